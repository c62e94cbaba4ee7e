/** Storage of milestones, with their progress over the live to-do items linked to them. */
import type { Database } from "./sqlite.ts";

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

interface RawMilestone {
  id: number;
  project_id: number;
  creator_id: number;
  title: string;
  description: string | null;
  due_date: string | null;
  progress: number;
  created_at: string;
  updated_at: string;
}

/**
 * One statement for any number of milestones: the linked live items of the project are
 * counted in one grouped pass and joined, so a list costs no query per milestone.
 * Integer division floors (the counts are never negative).
 */
const COUNTS = `SELECT milestone_id, count(*) AS total, sum(completed) AS done FROM todo_items
    WHERE project_id = ? AND milestone_id IS NOT NULL AND deleted_at IS NULL
    GROUP BY milestone_id`;
const SELECT = `SELECT m.id, m.project_id, m.creator_id, m.title, m.description, m.due_date,
  CASE WHEN coalesce(p.total, 0) = 0 THEN 0 ELSE (100 * p.done) / p.total END AS progress,
  m.created_at, m.updated_at
  FROM milestones m
  LEFT JOIN (${COUNTS}) p ON p.milestone_id = m.id`;

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
export function insertMilestone(
  db: Database,
  m: Omit<MilestoneRow, "id" | "progress" | "updatedAt">,
): number {
  return (db.sql.prepare(
    `INSERT INTO milestones (project_id, creator_id, title, description, due_date, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  ).get(m.projectId, m.creatorId, m.title, m.description, m.dueDate, m.createdAt, m.createdAt) as {
    id: number;
  }).id;
}

/** A live milestone of a project, with its progress. */
export function findMilestone(db: Database, projectId: number, id: number): MilestoneRow | null {
  const r = db.sql.prepare(
    `${SELECT} WHERE m.id = ? AND m.project_id = ? AND m.deleted_at IS NULL`,
  ).get(projectId, id, projectId) as RawMilestone | undefined;
  return r ? toMilestone(r) : null;
}

/** A project's live milestones with their progress, oldest first. */
export function listMilestones(db: Database, projectId: number): MilestoneRow[] {
  return (db.sql.prepare(
    `${SELECT} WHERE m.project_id = ? AND m.deleted_at IS NULL ORDER BY m.created_at, m.id`,
  ).all(projectId, projectId) as unknown as RawMilestone[]).map(toMilestone);
}

/** Changes a milestone's fields. */
export function updateMilestone(
  db: Database,
  id: number,
  c: { title: string; description: string | null; dueDate: string | null; updatedAt: string },
): void {
  db.sql.prepare(
    "UPDATE milestones SET title = ?, description = ?, due_date = ?, updated_at = ? WHERE id = ?",
  ).run(c.title, c.description, c.dueDate, c.updatedAt, id);
}

/** The live to-do items linked to each milestone of a project: how many, how many complete. */
export function linkedTodoCounts(
  db: Database,
  projectId: number,
): Map<number, { total: number; done: number }> {
  const rows = db.sql.prepare(COUNTS).all(projectId) as Array<
    { milestone_id: number; total: number; done: number }
  >;
  return new Map(rows.map((r) => [r.milestone_id, { total: r.total, done: r.done }]));
}
