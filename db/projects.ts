/** Storage of projects and their members. */
import type { Database } from "./sqlite.ts";
import type { Deletion } from "./subjects.ts";

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
export function insertProject(
  db: Database,
  p: { name: string; description: string; createdBy: number; at: string },
): ProjectRow {
  const r = db.sql.prepare(
    `INSERT INTO projects (name, description, created_by, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?) RETURNING ${RETURNING}`,
  ).get(p.name, p.description, p.createdBy, p.at, p.at) as unknown as RawProject;
  return toProject(r);
}

/** Finds a project that is not deleted. */
export function findProject(db: Database, id: number): ProjectRow | null {
  const r = db.sql.prepare(
    `SELECT ${PROJECT_COLUMNS} FROM projects p WHERE p.id = ? AND p.deleted_at IS NULL`,
  ).get(id) as RawProject | undefined;
  return r ? toProject(r) : null;
}

/** Projects `userId` belongs to, with their role, oldest first. */
export function listProjectsOfUser(
  db: Database,
  userId: number,
  includeArchived: boolean,
): Array<ProjectRow & { role: ProjectRole }> {
  const rows = db.sql.prepare(
    `SELECT ${PROJECT_COLUMNS}, m.role FROM projects p
     JOIN project_members m ON m.project_id = p.id AND m.user_id = ?
     WHERE p.deleted_at IS NULL AND (? OR p.archived_at IS NULL)
     ORDER BY p.created_at, p.id`,
  ).all(userId, includeArchived ? 1 : 0) as unknown as Array<RawProject & { role: ProjectRole }>;
  return rows.map((r) => ({ ...toProject(r), role: r.role }));
}

/** Changes a project's name and/or description. */
export function updateProject(
  db: Database,
  id: number,
  changes: { name?: string; description?: string },
  at: string,
): ProjectRow {
  const r = db.sql.prepare(
    `UPDATE projects SET name = coalesce(?, name), description = coalesce(?, description),
     updated_at = ? WHERE id = ? RETURNING ${RETURNING}`,
  ).get(changes.name ?? null, changes.description ?? null, at, id) as unknown as RawProject;
  return toProject(r);
}

/** Archives (with the time) or unarchives (null) a project. */
export function setProjectArchived(
  db: Database,
  id: number,
  archivedAt: string | null,
  at: string,
): ProjectRow {
  const r = db.sql.prepare(
    `UPDATE projects SET archived_at = ?, updated_at = ? WHERE id = ? RETURNING ${RETURNING}`,
  ).get(archivedAt, at, id) as unknown as RawProject;
  return toProject(r);
}

/**
 * Moves a project to the trash: it disappears from every list and fetch until an admin
 * restores it or the sweep purges it.
 */
export function deleteProject(db: Database, id: number, d: Deletion): void {
  db.sql.prepare("UPDATE projects SET deleted_at = ?, deleted_by = ? WHERE id = ?").run(
    d.at,
    d.by,
    id,
  );
}

/** The role of `userId` in `projectId`, or null when not a member. */
export function memberRole(db: Database, projectId: number, userId: number): ProjectRole | null {
  const r = db.sql.prepare(
    "SELECT role FROM project_members WHERE project_id = ? AND user_id = ?",
  ).get(projectId, userId) as { role: ProjectRole } | undefined;
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
export function listMembers(db: Database, projectId: number): MemberRow[] {
  return (db.sql.prepare(`${MEMBER_SELECT} WHERE m.project_id = ? ORDER BY m.joined_at, m.user_id`)
    .all(projectId) as unknown as RawMember[]).map(toMember);
}

/** One member of a project. */
export function findMember(db: Database, projectId: number, userId: number): MemberRow | null {
  const r = db.sql.prepare(`${MEMBER_SELECT} WHERE m.project_id = ? AND m.user_id = ?`)
    .get(projectId, userId) as RawMember | undefined;
  return r ? toMember(r) : null;
}

/** Adds a member; false when already one. */
export function insertMember(
  db: Database,
  m: { projectId: number; userId: number; role: ProjectRole; at: string },
): boolean {
  return db.sql.prepare(
    `INSERT INTO project_members (project_id, user_id, role, joined_at) VALUES (?, ?, ?, ?)
     ON CONFLICT DO NOTHING`,
  ).run(m.projectId, m.userId, m.role, m.at).changes === 1;
}

/** Changes a member's role. */
export function updateMemberRole(
  db: Database,
  projectId: number,
  userId: number,
  role: ProjectRole,
): void {
  db.sql.prepare("UPDATE project_members SET role = ? WHERE project_id = ? AND user_id = ?")
    .run(role, projectId, userId);
}

/** Removes a member. */
export function deleteMember(db: Database, projectId: number, userId: number): void {
  db.sql.prepare("DELETE FROM project_members WHERE project_id = ? AND user_id = ?")
    .run(projectId, userId);
}

/** Counts a project's owners. */
export function countOwners(db: Database, projectId: number): number {
  return (db.sql.prepare(
    "SELECT count(*) AS n FROM project_members WHERE project_id = ? AND role = 'owner'",
  ).get(projectId) as { n: number }).n;
}

/** The user ids of a project's members. */
export function memberIds(db: Database, projectId: number): number[] {
  return (db.sql.prepare("SELECT user_id FROM project_members WHERE project_id = ?")
    .all(projectId) as Array<{ user_id: number }>).map((r) => r.user_id);
}
