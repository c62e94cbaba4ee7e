/**
 * The queries behind the dashboards: each is one statement whatever the number of
 * projects or items, so a dashboard costs a fixed number of queries.
 */
import type { Queries, Row, SqlValue } from "../kernel/engine.ts";
import { type ItemRow, toItem } from "../planning/todos.ts";

const ITEM_SELECT = `SELECT i.id, i.project_id, i.column_id, i.creator_id, i.title, i.description,
  i.assignee_id, i.priority, i.start_date, i.due_date, i.tags, i.order_index, i.completed,
  i.completed_at, i.milestone_id, i.created_at, i.updated_at FROM todo_items i`;

type RawItem = Parameters<typeof toItem>[0] & Row;

/** How many rows a `count(*) AS n` statement counted. */
async function counted(q: Queries, sql: string, params: SqlValue[]) {
  return Number((await q.get<{ n: number }>(sql, params))!.n);
}

const IN_PROGRESS = `i.column_id = (SELECT id FROM todo_columns
       WHERE project_id = ? AND key = 'in_progress')
     AND i.deleted_at IS NULL AND i.completed = 0`;

/**
 * The first `limit` incomplete items of a project in its `in_progress` column, in board order:
 * read through todo_items_column (column, order), not through every item of the project.
 */
export async function inProgressItems(
  q: Queries,
  projectId: number,
  limit: number,
): Promise<ItemRow[]> {
  return (await q.all<RawItem>(
    `${ITEM_SELECT} WHERE ${IN_PROGRESS} ORDER BY i.order_index, i.id LIMIT ?`,
    [projectId, limit],
  )).map(toItem);
}

/** How many incomplete items a project's `in_progress` column holds. */
export function countInProgressItems(q: Queries, projectId: number): Promise<number> {
  return counted(q, `SELECT count(*) AS n FROM todo_items i WHERE ${IN_PROGRESS}`, [projectId]);
}

const DUE_BETWEEN = `i.project_id = ? AND i.deleted_at IS NULL AND i.completed = 0
     AND i.due_date BETWEEN ? AND ?`;

/** The first `limit` incomplete items of a project due within [from, to] (dates), soonest first. */
export async function itemsDueBetween(
  q: Queries,
  projectId: number,
  range: { from: string; to: string; limit: number },
): Promise<ItemRow[]> {
  return (await q.all<RawItem>(
    `${ITEM_SELECT} WHERE ${DUE_BETWEEN} ORDER BY i.due_date, i.id LIMIT ?`,
    [projectId, range.from, range.to, range.limit],
  )).map(toItem);
}

/** How many incomplete items of a project are due within [from, to] (dates). */
export function countItemsDueBetween(
  q: Queries,
  projectId: number,
  range: { from: string; to: string },
): Promise<number> {
  return counted(q, `SELECT count(*) AS n FROM todo_items i WHERE ${DUE_BETWEEN}`, [
    projectId,
    range.from,
    range.to,
  ]);
}

const ASSIGNED = `JOIN projects p ON p.id = i.project_id AND p.deleted_at IS NULL
     JOIN project_members pm ON pm.project_id = i.project_id AND pm.user_id = i.assignee_id
     WHERE i.assignee_id = ? AND i.deleted_at IS NULL AND i.completed = 0
     AND (CAST(? AS text) IS NULL OR i.due_date < ?)`;

/**
 * Incomplete items assigned to a user in the live projects they belong to; `dueBefore`
 * keeps only those due before that date. Soonest due first, undated last.
 */
export async function assignedItems(
  q: Queries,
  userId: number,
  options: { dueBefore: string | null; limit: number },
): Promise<ItemRow[]> {
  return (await q.all<RawItem>(
    `${ITEM_SELECT} ${ASSIGNED} ORDER BY i.due_date IS NULL, i.due_date, i.id LIMIT ?`,
    [userId, options.dueBefore, options.dueBefore, options.limit],
  )).map(toItem);
}

/** How many items `assignedItems` would list without its limit. */
export function countAssignedItems(
  q: Queries,
  userId: number,
  dueBefore: string | null,
): Promise<number> {
  return counted(q, `SELECT count(*) AS n FROM todo_items i ${ASSIGNED}`, [
    userId,
    dueBefore,
    dueBefore,
  ]);
}

/** The newest live threads of a project (not pinned-first: the dashboard shows news). */
export async function newestThreadIds(
  q: Queries,
  projectId: number,
  limit: number,
): Promise<number[]> {
  return (await q.all<{ id: number }>(
    `SELECT id FROM threads WHERE project_id = ? AND deleted_at IS NULL
     ORDER BY created_at DESC, id DESC LIMIT ?`,
    [projectId, limit],
  )).map((r) => r.id);
}

/** The newest live notes of a project. */
export async function newestNoteIds(
  q: Queries,
  projectId: number,
  limit: number,
): Promise<number[]> {
  return (await q.all<{ id: number }>(
    `SELECT id FROM notes WHERE project_id = ? AND deleted_at IS NULL
     ORDER BY created_at DESC, id DESC LIMIT ?`,
    [projectId, limit],
  )).map((r) => r.id);
}

/** The ids of the live projects a user belongs to, ascending. */
export async function userProjectIds(q: Queries, userId: number): Promise<number[]> {
  return (await q.all<{ project_id: number }>(
    `SELECT m.project_id FROM project_members m JOIN projects p ON p.id = m.project_id
     WHERE m.user_id = ? AND p.deleted_at IS NULL ORDER BY m.project_id`,
    [userId],
  )).map((r) => r.project_id);
}

/** The id of a project's soonest meeting that has not started, or null. */
export async function nextMeetingId(
  q: Queries,
  projectId: number,
  now: string,
): Promise<number | null> {
  const r = await q.get<{ id: number }>(
    `SELECT id FROM meetings WHERE project_id = ? AND deleted_at IS NULL AND start_at > ?
     ORDER BY start_at, id LIMIT 1`,
    [projectId, now],
  );
  return r?.id ?? null;
}

const UPCOMING = `FROM meetings m
     JOIN projects p ON p.id = m.project_id AND p.deleted_at IS NULL
     JOIN project_members pm ON pm.project_id = m.project_id AND pm.user_id = ?
     WHERE m.deleted_at IS NULL AND m.end_at > ?
     AND (m.creator_id = ? OR EXISTS (SELECT 1 FROM meeting_invitees i
       WHERE i.meeting_id = m.id AND i.user_id = ?))`;

/** Meetings a user organises or is invited to that have not ended, soonest first. */
export async function upcomingMeetingIds(
  q: Queries,
  userId: number,
  now: string,
  limit: number,
): Promise<number[]> {
  return (await q.all<{ id: number }>(
    `SELECT m.id ${UPCOMING} ORDER BY m.start_at, m.id LIMIT ?`,
    [userId, now, userId, userId, limit],
  )).map((r) => r.id);
}

/** How many meetings `upcomingMeetingIds` would list without its limit. */
export function countUpcomingMeetings(q: Queries, userId: number, now: string): Promise<number> {
  return counted(q, `SELECT count(*) AS n ${UPCOMING}`, [userId, now, userId, userId]);
}
