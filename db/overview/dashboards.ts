/**
 * The queries behind the dashboards: each is one statement whatever the number of
 * projects or items, so a dashboard costs a fixed number of queries. The open to-dos are read
 * through the indexes of migration 025 (only live, incomplete items, in the order listed): a
 * list stops after its first entries, and a count walks index entries alone, never the rows,
 * and stops one past the cap it is given (`cappedCount`), so no statement here costs more as a
 * project grows.
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

/** The rows of `from` (a `FROM … WHERE …` clause) counted up to `cap + 1` and no further. */
const upTo = (from: string, cap: number) =>
  `(SELECT count(*) FROM (SELECT 1 AS one ${from} LIMIT ${Math.trunc(cap) + 1}) capped)`;

/** How many rows `from` holds, counted up to `cap + 1` (more than `cap`: at least that many). */
function cappedCount(q: Queries, from: string, params: SqlValue[], cap: number) {
  return counted(q, `SELECT ${upTo(from, cap)} AS n`, params);
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

/**
 * How many incomplete items a project's `in_progress` column holds (todo_items_open_column),
 * up to `cap + 1`.
 */
export function countInProgressItems(q: Queries, projectId: number, cap: number): Promise<number> {
  return cappedCount(q, `FROM todo_items i WHERE ${IN_PROGRESS}`, [projectId], cap);
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

/** How many incomplete items of a project are due within [from, to] (dates), up to `cap + 1`. */
export function countItemsDueBetween(
  q: Queries,
  projectId: number,
  range: { from: string; to: string },
  cap: number,
): Promise<number> {
  return cappedCount(
    q,
    `FROM todo_items i WHERE ${DUE_BETWEEN}`,
    [projectId, range.from, range.to],
    cap,
  );
}

/** The live projects a user belongs to (archived ones too), as a subquery of their ids. */
const MY_PROJECTS = `SELECT pm.project_id FROM project_members pm
     JOIN projects p ON p.id = pm.project_id AND p.deleted_at IS NULL WHERE pm.user_id = ?`;

/**
 * Open items assigned to a user in the live projects they belong to, over
 * todo_items_open_assigned: the dated ones in due order (`due`: all, or only those due before
 * a date, a range the index seeks), or the undated ones in id order. The project is tested on
 * the index entry, so neither a list nor a count reads rows it does not show.
 */
const assignedWhere = (part: "dated" | "before" | "undated") =>
  `i.assignee_id = ? AND i.deleted_at IS NULL AND i.completed = 0
     AND ${
    part === "dated"
      ? "i.due_date IS NOT NULL"
      : part === "before"
      ? "i.due_date < ?"
      : "i.due_date IS NULL"
  }
     AND i.project_id IN (${MY_PROJECTS})`;

/**
 * Incomplete items assigned to a user in the live projects they belong to; `dueBefore`
 * keeps only those due before that date. Soonest due first, undated last: the first `limit`
 * dated ones and (without `dueBefore`) the first `limit` undated ones, each read in index
 * order and stopped there, then the two merged (no sort of every assigned item).
 */
export async function assignedItems(
  q: Queries,
  userId: number,
  options: { dueBefore: string | null; limit: number },
): Promise<ItemRow[]> {
  const { dueBefore, limit } = options;
  if (dueBefore !== null) {
    return (await q.all<RawItem>(
      `${ITEM_SELECT} WHERE ${assignedWhere("before")} ORDER BY i.due_date, i.id LIMIT ?`,
      [userId, dueBefore, userId, limit],
    )).map(toItem);
  }
  return (await q.all<RawItem>(
    `SELECT u.* FROM (
       SELECT * FROM (${ITEM_SELECT} WHERE ${assignedWhere("dated")}
         ORDER BY i.due_date, i.id LIMIT ?) dated
       UNION ALL
       SELECT * FROM (${ITEM_SELECT} WHERE ${
      assignedWhere("undated")
    } ORDER BY i.id LIMIT ?) undated
     ) u ORDER BY u.due_date IS NULL, u.due_date, u.id LIMIT ?`,
    [userId, userId, limit, userId, userId, limit, limit],
  )).map(toItem);
}

/**
 * How many items `assignedItems` would list without its limit (index entries only), up to
 * `cap + 1`.
 */
export function countAssignedItems(
  q: Queries,
  userId: number,
  dueBefore: string | null,
  cap: number,
): Promise<number> {
  if (dueBefore !== null) {
    return cappedCount(
      q,
      `FROM todo_items i WHERE ${assignedWhere("before")}`,
      [userId, dueBefore, userId],
      cap,
    );
  }
  return counted(
    q,
    `SELECT ${upTo(`FROM todo_items i WHERE ${assignedWhere("dated")}`, cap)}
       + ${upTo(`FROM todo_items i WHERE ${assignedWhere("undated")}`, cap)} AS n`,
    [userId, userId, userId, userId],
  );
}

/**
 * How many live rows of a project a "latest" list of the dashboard draws from, each up to
 * `cap + 1`: each over a partial index of the live rows by project (chat_messages_live,
 * threads_live, notes_live, files_live), counting index entries alone.
 */
export async function countLatest(
  q: Queries,
  projectId: number,
  cap: number,
): Promise<{ chat: number; threads: number; notes: number; files: number }> {
  const live = (table: string) =>
    upTo(`FROM ${table} WHERE project_id = ? AND deleted_at IS NULL`, cap);
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

/**
 * How SQLite reads the meetings in `upcomingMeetingIds` and `countUpcomingMeetings`: the plan's
 * step over `meetings` of each (for tests: it must seek the end time, migration 037, not read
 * every meeting of the project).
 */
export async function upcomingMeetingsPlan(q: Queries): Promise<string[]> {
  if (q.kind !== "sqlite") throw new Error("Cannot show the query plan: only SQLite's is read");
  const step = async (text: string, params: SqlValue[]) =>
    (await q.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${text}`, params))
      .map((row) => row.detail).filter((detail) => / m USING /.test(detail)).join("; ");
  return [
    await step(`SELECT m.id ${UPCOMING} ORDER BY m.start_at, m.id LIMIT ?`, [0, "", 0, 0, 1]),
    await step(`SELECT count(*) AS n ${UPCOMING}`, [0, "", 0, 0]),
  ];
}
