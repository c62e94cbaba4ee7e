/** Storage of milestones, with their progress over the live to-do items linked to them. */
import type { Queries } from "../kernel/engine.ts";

/** A live milestone with its progress (0..100). */
export interface MilestoneRow {
  id: number;
  projectId: number;
  creatorId: number;
  title: string;
  description: string | null;
  dueDate: string | null;
  progress: number;
  createdAt: string;
  updatedAt: string;
}

type RawMilestone = {
  id: number;
  project_id: number;
  creator_id: number;
  title: string;
  description: string | null;
  due_date: string | null;
  progress: number;
  created_at: string;
  updated_at: string;
};

/**
 * Milestones (`from`: a query of milestone rows, ordered and limited as the caller wants) with
 * their progress, in `order`. One statement for any number of milestones: each one's linked
 * live items are counted over todo_items_milestone_progress (project, milestone, completed),
 * index entries alone, and only for the milestones returned (a dashboard's 20, not every
 * milestone of a project with a hundred thousand items). Integer division floors (the counts
 * are never negative).
 */
const withProgress = (from: string, order: string) =>
  `SELECT c.id, c.project_id, c.creator_id, c.title, c.description, c.due_date,
  CASE WHEN c.total = 0 THEN 0 ELSE (100 * c.done) / c.total END AS progress,
  c.created_at, c.updated_at
  FROM (SELECT m.id, m.project_id, m.creator_id, m.title, m.description, m.due_date,
      m.created_at, m.updated_at,
      (SELECT count(*) FROM todo_items i WHERE i.project_id = m.project_id
        AND i.milestone_id = m.id AND i.deleted_at IS NULL) AS total,
      (SELECT count(*) FROM todo_items i WHERE i.project_id = m.project_id
        AND i.milestone_id = m.id AND i.deleted_at IS NULL AND i.completed = 1) AS done
    FROM (${from}) m) c
  ORDER BY ${order}`;
const MILESTONE = "SELECT * FROM milestones m";

/**
 * The linked live items of every milestone of a project, counted in one grouped pass. The
 * cast keeps the sum an integer on PostgreSQL, whose `sum` of bigints is a numeric (a string
 * to the client).
 */
const COUNTS = `SELECT milestone_id, count(*) AS total, CAST(sum(completed) AS bigint) AS done
    FROM todo_items
    WHERE project_id = ? AND milestone_id IS NOT NULL AND deleted_at IS NULL
    GROUP BY milestone_id`;

function toMilestone(r: RawMilestone): MilestoneRow {
  return {
    id: r.id,
    projectId: r.project_id,
    creatorId: r.creator_id,
    title: r.title,
    description: r.description,
    dueDate: r.due_date,
    progress: r.progress,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Inserts a milestone. */
export async function insertMilestone(
  q: Queries,
  m: Omit<MilestoneRow, "id" | "progress" | "updatedAt">,
): Promise<number> {
  return (await q.get<{ id: number }>(
    `INSERT INTO milestones (project_id, creator_id, title, description, due_date, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    [m.projectId, m.creatorId, m.title, m.description, m.dueDate, m.createdAt, m.createdAt],
  ))!.id;
}

/** A live milestone of a project, with its progress. */
export async function findMilestone(
  q: Queries,
  projectId: number,
  id: number,
): Promise<MilestoneRow | null> {
  const r = await q.get<RawMilestone>(
    withProgress(
      `${MILESTONE} WHERE m.id = ? AND m.project_id = ? AND m.deleted_at IS NULL`,
      "c.id",
    ),
    [id, projectId],
  );
  return r ? toMilestone(r) : null;
}

/** Whether a project has this live milestone (a cheap check, without the progress). */
export async function milestoneInProject(
  q: Queries,
  projectId: number,
  id: number,
): Promise<boolean> {
  return await q.get(
    "SELECT 1 FROM milestones WHERE id = ? AND project_id = ? AND deleted_at IS NULL",
    [id, projectId],
  ) !== undefined;
}

/** A project's live milestones with their progress, oldest first. */
export async function listMilestones(q: Queries, projectId: number): Promise<MilestoneRow[]> {
  return (await q.all<RawMilestone>(
    withProgress(
      `${MILESTONE} WHERE m.project_id = ? AND m.deleted_at IS NULL`,
      "c.created_at, c.id",
    ),
    [projectId],
  )).map(toMilestone);
}

/** `limit` of a project's live milestones from `offset`, oldest first, with their progress. */
export async function pageMilestones(
  q: Queries,
  projectId: number,
  limit: number,
  offset: number,
): Promise<MilestoneRow[]> {
  return (await q.all<RawMilestone>(
    withProgress(
      `${MILESTONE} WHERE m.project_id = ? AND m.deleted_at IS NULL ORDER BY m.created_at, m.id
       LIMIT ? OFFSET ?`,
      "c.created_at, c.id",
    ),
    [projectId, limit, offset],
  )).map(toMilestone);
}

/** How many live milestones a project has. */
export async function countMilestones(q: Queries, projectId: number): Promise<number> {
  return Number(
    (await q.get<{ n: number }>(
      "SELECT count(*) AS n FROM milestones WHERE project_id = ? AND deleted_at IS NULL",
      [projectId],
    ))!.n,
  );
}

/**
 * How many live milestones of a project come before a live one in the list's order (oldest
 * first), or null when the project has no such milestone.
 */
export async function milestonePosition(
  q: Queries,
  projectId: number,
  id: number,
): Promise<number | null> {
  const r = await q.get<{ n: number }>(
    `SELECT (SELECT count(*) FROM milestones b WHERE b.project_id = m.project_id
       AND b.deleted_at IS NULL
       AND (b.created_at < m.created_at OR (b.created_at = m.created_at AND b.id < m.id))) AS n
     FROM milestones m WHERE m.id = ? AND m.project_id = ? AND m.deleted_at IS NULL`,
    [id, projectId],
  );
  return r === undefined ? null : Number(r.n);
}

/** Changes a milestone's fields. */
export async function updateMilestone(
  q: Queries,
  id: number,
  c: { title: string; description: string | null; dueDate: string | null; updatedAt: string },
): Promise<void> {
  await q.run(
    "UPDATE milestones SET title = ?, description = ?, due_date = ?, updated_at = ? WHERE id = ?",
    [c.title, c.description, c.dueDate, c.updatedAt, id],
  );
}

/** The live to-do items linked to each milestone of a project: how many, how many complete. */
export async function linkedTodoCounts(
  q: Queries,
  projectId: number,
): Promise<Map<number, { total: number; done: number }>> {
  const rows = await q.all<{ milestone_id: number; total: number; done: number }>(COUNTS, [
    projectId,
  ]);
  return new Map(rows.map((r) => [r.milestone_id, { total: r.total, done: r.done }]));
}
