/** Storage of projects and their members. */
import type { Queries } from "../kernel/engine.ts";
import type { Deletion } from "../kernel/subjects.ts";

/** A project member role. */
export type ProjectRole = "owner" | "member" | "viewer";

/** A stored project (not deleted). */
export interface ProjectRow {
  id: number;
  name: string;
  description: string;
  archivedAt: string | null;
  createdBy: number;
  createdAt: string;
  updatedAt: string;
}

/** A member of a project with the user's public fields. */
export interface MemberRow {
  userId: number;
  email: string;
  displayName: string;
  role: ProjectRole;
  joinedAt: string;
}

interface RawProject {
  id: number;
  name: string;
  description: string;
  archived_at: string | null;
  created_by: number;
  created_at: string;
  updated_at: string;
}

const PROJECT_COLUMNS =
  "p.id, p.name, p.description, p.archived_at, p.created_by, p.created_at, p.updated_at";
/** RETURNING cannot name a table alias. */
const RETURNING = PROJECT_COLUMNS.replaceAll("p.", "");

function toProject(r: RawProject): ProjectRow {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    archivedAt: r.archived_at,
    createdBy: r.created_by,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Inserts a project and returns it. */
export async function insertProject(
  q: Queries,
  p: { name: string; description: string; createdBy: number; at: string },
): Promise<ProjectRow> {
  const r = (await q.get<RawProject>(
    `INSERT INTO projects (name, description, created_by, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?) RETURNING ${RETURNING}`,
    [p.name, p.description, p.createdBy, p.at, p.at],
  ))!;
  return toProject(r);
}

/** Finds a project that is not deleted. */
export async function findProject(q: Queries, id: number): Promise<ProjectRow | null> {
  const r = await q.get<RawProject>(
    `SELECT ${PROJECT_COLUMNS} FROM projects p WHERE p.id = ? AND p.deleted_at IS NULL`,
    [id],
  );
  return r ? toProject(r) : null;
}

/** Projects `userId` belongs to, with their role, oldest first. */
export async function listProjectsOfUser(
  q: Queries,
  userId: number,
  includeArchived: boolean,
): Promise<Array<ProjectRow & { role: ProjectRole }>> {
  const rows = await q.all<RawProject & { role: ProjectRole }>(
    `SELECT ${PROJECT_COLUMNS}, m.role FROM projects p
     JOIN project_members m ON m.project_id = p.id AND m.user_id = ?
     WHERE p.deleted_at IS NULL AND (? = 1 OR p.archived_at IS NULL)
     ORDER BY p.created_at, p.id`,
    [userId, includeArchived ? 1 : 0],
  );
  return rows.map((r) => ({ ...toProject(r), role: r.role }));
}

/** Changes a project's name and/or description. */
export async function updateProject(
  q: Queries,
  id: number,
  changes: { name?: string; description?: string },
  at: string,
): Promise<ProjectRow> {
  const r = (await q.get<RawProject>(
    `UPDATE projects SET name = coalesce(?, name), description = coalesce(?, description),
     updated_at = ? WHERE id = ? RETURNING ${RETURNING}`,
    [changes.name ?? null, changes.description ?? null, at, id],
  ))!;
  return toProject(r);
}

/** Archives (with the time) or unarchives (null) a project. */
export async function setProjectArchived(
  q: Queries,
  id: number,
  archivedAt: string | null,
  at: string,
): Promise<ProjectRow> {
  const r = (await q.get<RawProject>(
    `UPDATE projects SET archived_at = ?, updated_at = ? WHERE id = ? RETURNING ${RETURNING}`,
    [archivedAt, at, id],
  ))!;
  return toProject(r);
}

/**
 * Moves a project to the trash: it disappears from every list and fetch until an admin
 * restores it or the sweep purges it.
 */
export async function deleteProject(q: Queries, id: number, d: Deletion): Promise<void> {
  await q.run("UPDATE projects SET deleted_at = ?, deleted_by = ? WHERE id = ?", [d.at, d.by, id]);
}

/** The role of `userId` in `projectId`, or null when not a member. */
export async function memberRole(
  q: Queries,
  projectId: number,
  userId: number,
): Promise<ProjectRole | null> {
  const r = await q.get<{ role: ProjectRole }>(
    "SELECT role FROM project_members WHERE project_id = ? AND user_id = ?",
    [projectId, userId],
  );
  return r?.role ?? null;
}

const MEMBER_SELECT = `SELECT m.user_id, u.email, u.display_name, m.role, m.joined_at
  FROM project_members m JOIN users u ON u.id = m.user_id`;

interface RawMember {
  user_id: number;
  email: string;
  display_name: string;
  role: ProjectRole;
  joined_at: string;
}

function toMember(r: RawMember): MemberRow {
  return {
    userId: r.user_id,
    email: r.email,
    displayName: r.display_name,
    role: r.role,
    joinedAt: r.joined_at,
  };
}

/** The members of a project, in the order they joined. */
export async function listMembers(q: Queries, projectId: number): Promise<MemberRow[]> {
  return (await q.all<RawMember>(
    `${MEMBER_SELECT} WHERE m.project_id = ? ORDER BY m.joined_at, m.user_id`,
    [projectId],
  )).map(toMember);
}

/** One member of a project. */
export async function findMember(
  q: Queries,
  projectId: number,
  userId: number,
): Promise<MemberRow | null> {
  const r = await q.get<RawMember>(`${MEMBER_SELECT} WHERE m.project_id = ? AND m.user_id = ?`, [
    projectId,
    userId,
  ]);
  return r ? toMember(r) : null;
}

/** Adds a member; false when already one. */
export async function insertMember(
  q: Queries,
  m: { projectId: number; userId: number; role: ProjectRole; at: string },
): Promise<boolean> {
  return (await q.run(
    `INSERT INTO project_members (project_id, user_id, role, joined_at) VALUES (?, ?, ?, ?)
     ON CONFLICT DO NOTHING`,
    [m.projectId, m.userId, m.role, m.at],
  )).changes === 1;
}

/** Changes a member's role. */
export async function updateMemberRole(
  q: Queries,
  projectId: number,
  userId: number,
  role: ProjectRole,
): Promise<void> {
  await q.run("UPDATE project_members SET role = ? WHERE project_id = ? AND user_id = ?", [
    role,
    projectId,
    userId,
  ]);
}

/** Removes a member. */
export async function deleteMember(q: Queries, projectId: number, userId: number): Promise<void> {
  await q.run("DELETE FROM project_members WHERE project_id = ? AND user_id = ?", [
    projectId,
    userId,
  ]);
}

/** Counts a project's owners. */
export async function countOwners(q: Queries, projectId: number): Promise<number> {
  return ((await q.get<{ n: number }>(
    "SELECT count(*) AS n FROM project_members WHERE project_id = ? AND role = 'owner'",
    [projectId],
  ))!).n;
}

/** The user ids of a project's members, ascending. */
export async function memberIds(q: Queries, projectId: number): Promise<number[]> {
  return (await q.all<{ user_id: number }>(
    "SELECT user_id FROM project_members WHERE project_id = ? ORDER BY user_id",
    [projectId],
  )).map((r) => r.user_id);
}
