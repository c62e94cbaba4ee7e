/** Storage of the per-project activity log. */
import { dialect } from "../kernel/dialect.ts";
import type { Queries } from "../kernel/engine.ts";
import { subjectAlive } from "../kernel/subjects.ts";

/** An activity entry. */
export interface ActivityRow {
  id: number;
  projectId: number;
  kind: string;
  actorId: number;
  subjectType: string;
  subjectId: number;
  summary: string;
  createdAt: string;
}

interface RawActivity {
  id: number;
  project_id: number;
  kind: string;
  actor_id: number;
  subject_type: string;
  subject_id: number;
  summary: string;
  created_at: string;
}

const COLUMNS =
  "a.id, a.project_id, a.kind, a.actor_id, a.subject_type, a.subject_id, a.summary, a.created_at";

function toActivity(r: RawActivity): ActivityRow {
  return {
    id: r.id,
    projectId: r.project_id,
    kind: r.kind,
    actorId: r.actor_id,
    subjectType: r.subject_type,
    subjectId: r.subject_id,
    summary: r.summary,
    createdAt: r.created_at,
  };
}

/** Appends an activity entry. */
export async function insertActivity(q: Queries, a: Omit<ActivityRow, "id">): Promise<void> {
  await q.run(
    `INSERT INTO activity (project_id, kind, actor_id, subject_type, subject_id, summary, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
    [a.projectId, a.kind, a.actorId, a.subjectType, a.subjectId, a.summary, a.createdAt],
  );
}

/**
 * The newest `limit` entries (live subjects only) of some projects, without the total that
 * `listActivity` counts over every entry (the dashboards show no total).
 */
export async function latestActivity(
  q: Queries,
  projectIds: number[],
  limit: number,
): Promise<ActivityRow[]> {
  if (projectIds.length === 0) return [];
  const where = `a.project_id IN (${dialect(q).intsOf("?")}) AND ${subjectAlive("a")}`;
  return (await q.all<RawActivity>(
    `SELECT ${COLUMNS} FROM activity a WHERE ${where} ORDER BY a.created_at DESC, a.id DESC LIMIT ?`,
    [JSON.stringify(projectIds), limit],
  )).map(toActivity);
}

/** A page of a project's activity (live subjects only), newest first, and the total. */
export async function listActivity(
  q: Queries,
  projectIds: number[],
  limit: number,
  offset: number,
): Promise<{ items: ActivityRow[]; total: number }> {
  if (projectIds.length === 0) return { items: [], total: 0 };
  const where = `a.project_id IN (${dialect(q).intsOf("?")}) AND ${subjectAlive("a")}`;
  const items = (await q.all<RawActivity>(
    `SELECT ${COLUMNS} FROM activity a WHERE ${where} ORDER BY a.created_at DESC, a.id DESC LIMIT ? OFFSET ?`,
    [JSON.stringify(projectIds), limit, offset],
  )).map(toActivity);
  const total =
    ((await q.get<{ n: number }>(`SELECT count(*) AS n FROM activity a WHERE ${where}`, [
      JSON.stringify(projectIds),
    ]))!).n;
  return { items, total };
}
