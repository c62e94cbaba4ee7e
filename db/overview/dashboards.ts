/**
 * The queries behind the dashboards: each is one statement whatever the number of
 * projects or items, so a dashboard costs a fixed number of queries. The open to-dos are read
 * through the indexes of migration 025 (only live, incomplete items, in the order listed): a
 * list stops after its first entries, and a count walks index entries alone, never the rows.
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
 * read through todo_items_open_column (column, order, id), not through every item of the project.
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

/** How many incomplete items a project's `in_progress` column holds (todo_items_open_column). */
export function countInProgressItems(q: Queries, projectId: number): Promise<number> {
  return counted(q, `SELECT count(*) AS n FROM todo_items i WHERE ${IN_PROGRESS}`, [projectId]);
}

const DUE_BETWEEN = `i.project_id = ? AND i.deleted_at IS NULL AND i.completed = 0
     AND i.due_date BETWEEN ? AND ?`;

/**
 * The first `limit` incomplete items of a project due within [from, to] (dates), soonest first
 * (todo_items_open_due).
 */
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

/** The live projects a user belongs to (archived ones too), as a subquery of their ids. */
const MY_PROJECTS = `SELECT pm.project_id FROM project_members pm
     JOIN projects p ON p.id = pm.project_id AND p.deleted_at IS NULL WHERE pm.user_id = ?`;

/**
 * Open items assigned to a user in the live projects they belong to, due before a date when
 * one is given (`CAST(? AS text) IS NULL OR …`), over todo_items_open_assigned: the dated ones
 * in due order, or (`datedOnly` false) the undated ones in id order. The project is tested on
 * the index entry, so neither a list nor a count reads rows it does not show.
 */
const assignedWhere = (dated: boolean) =>
  `i.assignee_id = ? AND i.deleted_at IS NULL AND i.completed = 0
     AND ${
    dated
      ? "i.due_date IS NOT NULL AND (CAST(? AS text) IS NULL OR i.due_date < ?)"
      // The undated part only of the whole list: none when a date bounds it.
      : "i.due_date IS NULL AND CAST(? AS text) IS NULL"
  }
     AND i.project_id IN (${MY_PROJECTS})`;

/**
 * Incomplete items assigned to a user in the live projects they belong to; `dueBefore`
 * keeps only those due before that date. Soonest due first, undated last: the first `limit`
 * dated ones and the first `limit` undated ones, each read in index order and stopped there,
 * then the two merged (no sort of every assigned item).
 */
export async function assignedItems(
  q: Queries,
  userId: number,
  options: { dueBefore: string | null; limit: number },
): Promise<ItemRow[]> {
  const { dueBefore, limit } = options;
  return (await q.all<RawItem>(
    `SELECT u.* FROM (
       SELECT * FROM (${ITEM_SELECT} WHERE ${assignedWhere(true)}
         ORDER BY i.due_date, i.id LIMIT ?) dated
       UNION ALL
       SELECT * FROM (${ITEM_SELECT} WHERE ${assignedWhere(false)} ORDER BY i.id LIMIT ?) undated
     ) u ORDER BY u.due_date IS NULL, u.due_date, u.id LIMIT ?`,
    [userId, dueBefore, dueBefore, userId, limit, userId, dueBefore, userId, limit, limit],
  )).map(toItem);
}

/** How many items `assignedItems` would list without its limit (index entries only). */
export function countAssignedItems(
  q: Queries,
  userId: number,
  dueBefore: string | null,
): Promise<number> {
  return counted(
    q,
    `SELECT (SELECT count(*) FROM todo_items i WHERE ${assignedWhere(true)})
       + (SELECT count(*) FROM todo_items i WHERE ${assignedWhere(false)}) AS n`,
    [userId, dueBefore, dueBefore, userId, userId, dueBefore, userId],
  );
}

/**
 * How many live rows of a project a "latest" list of the dashboard draws from: each over a
 * partial index of the live rows by project (chat_messages_history, threads_newest,
 * notes_newest, files_list), counting index entries alone.
 */
export async function countLatest(
  q: Queries,
  projectId: number,
): Promise<{ chat: number; threads: number; notes: number; files: number }> {
  const live = (table: string) =>
    `(SELECT count(*) FROM ${table} WHERE project_id = ? AND deleted_at IS NULL)`;
  const r = (await q.get<{ chat: number; threads: number; notes: number; files: number }>(
    `SELECT ${live("chat_messages")} AS chat, ${live("threads")} AS threads,
       ${live("notes")} AS notes, ${live("files")} AS files`,
    [projectId, projectId, projectId, projectId],
  ))!;
  return {
    chat: Number(r.chat),
    threads: Number(r.threads),
    notes: Number(r.notes),
    files: Number(r.files),
  };
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
