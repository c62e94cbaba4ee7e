/** Storage of kanban columns and to-do items. */
import { dialect, type PerEngine } from "../kernel/dialect.ts";
import type { Queries } from "../kernel/engine.ts";
import type { Deletion } from "../kernel/subjects.ts";

/** A column key of the standard set. */
export type ColumnKey = "todo" | "in_progress" | "done";
/** A to-do priority. */
export type Priority = "low" | "normal" | "high";

/** A column. */
export interface ColumnRow {
  id: number;
  projectId: number;
  name: string;
  key: ColumnKey | null;
  position: number;
  createdAt: string;
  updatedAt: string;
}

/** A live to-do item. */
export interface ItemRow {
  id: number;
  projectId: number;
  columnId: number;
  creatorId: number;
  title: string;
  description: string | null;
  assigneeId: number | null;
  priority: Priority;
  startDate: string | null;
  dueDate: string | null;
  tags: string[];
  orderIndex: number;
  completed: boolean;
  completedAt: string | null;
  milestoneId: number | null;
  createdAt: string;
  updatedAt: string;
}

type RawColumn = {
  id: number;
  project_id: number;
  name: string;
  key: ColumnKey | null;
  position: number;
  created_at: string;
  updated_at: string;
};

type RawItem = {
  id: number;
  project_id: number;
  column_id: number;
  creator_id: number;
  title: string;
  description: string | null;
  assignee_id: number | null;
  priority: Priority;
  start_date: string | null;
  due_date: string | null;
  tags: string;
  order_index: number;
  completed: number;
  completed_at: string | null;
  milestone_id: number | null;
  created_at: string;
  updated_at: string;
};

const COLUMN_SELECT =
  "SELECT id, project_id, name, key, position, created_at, updated_at FROM todo_columns";
const ITEM_SELECT = `SELECT i.id, i.project_id, i.column_id, i.creator_id, i.title, i.description,
  i.assignee_id, i.priority, i.start_date, i.due_date, i.tags, i.order_index, i.completed,
  i.completed_at, i.milestone_id, i.created_at, i.updated_at FROM todo_items i`;

function toColumn(r: RawColumn): ColumnRow {
  return {
    id: r.id,
    projectId: r.project_id,
    name: r.name,
    key: r.key,
    position: r.position,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Maps a raw item row (also used by other modules reading `todo_items`). */
export function toItem(r: RawItem): ItemRow {
  return {
    id: r.id,
    projectId: r.project_id,
    columnId: r.column_id,
    creatorId: r.creator_id,
    title: r.title,
    description: r.description,
    assigneeId: r.assignee_id,
    priority: r.priority,
    startDate: r.start_date,
    dueDate: r.due_date,
    tags: JSON.parse(r.tags) as string[],
    orderIndex: r.order_index,
    completed: r.completed === 1,
    completedAt: r.completed_at,
    milestoneId: r.milestone_id,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** The columns of a project by position. */
export async function listColumns(q: Queries, projectId: number): Promise<ColumnRow[]> {
  return (await q.all<RawColumn>(`${COLUMN_SELECT} WHERE project_id = ? ORDER BY position, id`, [
    projectId,
  ])).map(toColumn);
}

/** Inserts a column at `position`. */
export async function insertColumn(
  q: Queries,
  c: { projectId: number; name: string; key: ColumnKey | null; position: number; at: string },
): Promise<void> {
  await q.run(
    "INSERT INTO todo_columns (project_id, name, key, position, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
    [c.projectId, c.name, c.key, c.position, c.at, c.at],
  );
}

/** A column of a project. */
export async function findColumn(
  q: Queries,
  projectId: number,
  id: number,
): Promise<ColumnRow | null> {
  const r = await q.get<RawColumn>(`${COLUMN_SELECT} WHERE id = ? AND project_id = ?`, [
    id,
    projectId,
  ]);
  return r ? toColumn(r) : null;
}

/** Renames a column. */
export async function renameColumn(
  q: Queries,
  id: number,
  name: string,
  at: string,
): Promise<void> {
  await q.run("UPDATE todo_columns SET name = ?, updated_at = ? WHERE id = ?", [name, at, id]);
}

/** Deletes a column and renumbers the rest 0..n-1. */
export async function deleteColumn(q: Queries, projectId: number, id: number): Promise<void> {
  await q.run("DELETE FROM todo_columns WHERE id = ?", [id]);
  const rest = await listColumns(q, projectId);
  for (const [i, c] of rest.entries()) {
    await q.run("UPDATE todo_columns SET position = ? WHERE id = ?", [i, c.id]);
  }
}

/** Counts the items (deleted ones included) that still point at a column. */
export async function countColumnItems(
  q: Queries,
  columnId: number,
  options: { live: boolean },
): Promise<number> {
  return (await q.get<{ n: number }>(
    `SELECT count(*) AS n FROM todo_items WHERE column_id = ? ${
      options.live ? "AND deleted_at IS NULL" : ""
    }`,
    [columnId],
  ))!.n;
}

/**
 * Moves the deleted items of a column to another, so the column can be removed. Their old
 * place means nothing there: restored, they go last (an index past any column's end).
 */
export async function rehomeDeletedItems(
  q: Queries,
  fromColumn: number,
  toColumn: number,
): Promise<void> {
  await q.run(
    `UPDATE todo_items SET column_id = ?, order_index = ?
     WHERE column_id = ? AND deleted_at IS NOT NULL`,
    [toColumn, Number.MAX_SAFE_INTEGER, fromColumn],
  );
}

/** Inserts an item. */
export async function insertItem(
  q: Queries,
  i: Omit<ItemRow, "id" | "completed" | "completedAt" | "updatedAt">,
): Promise<number> {
  return (await q.get<{ id: number }>(
    `INSERT INTO todo_items (project_id, column_id, creator_id, title, description, assignee_id,
     priority, start_date, due_date, tags, order_index, milestone_id, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    [
      i.projectId,
      i.columnId,
      i.creatorId,
      i.title,
      i.description,
      i.assigneeId,
      i.priority,
      i.startDate,
      i.dueDate,
      JSON.stringify(i.tags),
      i.orderIndex,
      i.milestoneId,
      i.createdAt,
      i.createdAt,
    ],
  ))!.id;
}

/** A live item of a project. */
export async function findItem(
  q: Queries,
  projectId: number,
  id: number,
): Promise<ItemRow | null> {
  const r = await q.get<RawItem>(
    `${ITEM_SELECT} WHERE i.id = ? AND i.project_id = ? AND i.deleted_at IS NULL`,
    [id, projectId],
  );
  return r ? toItem(r) : null;
}

/** Live items of a project among `ids`, by id. */
export async function findItems(
  q: Queries,
  projectId: number,
  ids: number[],
): Promise<ItemRow[]> {
  if (ids.length === 0) return [];
  return (await q.all<RawItem>(
    `${ITEM_SELECT} WHERE i.project_id = ? AND i.deleted_at IS NULL AND i.id IN (${
      dialect(q).intsOf("?")
    }) ORDER BY i.id`,
    [projectId, JSON.stringify(ids)],
  )).map(toItem);
}

/** A project's live items, by column position then order, with optional filters. */
export async function listItems(
  q: Queries,
  projectId: number,
  filters: { columnId: number | null; assigneeId: number | null; milestoneId: number | null },
): Promise<ItemRow[]> {
  return (await q.all<RawItem>(
    `${ITEM_SELECT} JOIN todo_columns c ON c.id = i.column_id
     WHERE i.project_id = ? AND i.deleted_at IS NULL
     AND (CAST(? AS bigint) IS NULL OR i.column_id = ?)
     AND (CAST(? AS bigint) IS NULL OR i.assignee_id = ?)
     AND (CAST(? AS bigint) IS NULL OR i.milestone_id = ?)
     ORDER BY c.position, i.order_index, i.id`,
    [
      projectId,
      filters.columnId,
      filters.columnId,
      filters.assigneeId,
      filters.assigneeId,
      filters.milestoneId,
      filters.milestoneId,
    ],
  )).map(toItem);
}

/** The live item ids of a column in order. */
export async function columnItemIds(q: Queries, columnId: number): Promise<number[]> {
  return (await q.all<{ id: number }>(
    "SELECT id FROM todo_items WHERE column_id = ? AND deleted_at IS NULL ORDER BY order_index, id",
    [columnId],
  )).map((r) => r.id);
}

/**
 * Makes the board changes of one project (moves, reorders, items added or removed, columns
 * added or removed, the first columns made) wait for each other: each reads a column's order
 * (or the columns) and writes it back whole, so two at once would interleave (PostgreSQL: they
 * could deadlock, number a column twice, or make the first columns twice). Takes the project's
 * row lock until the transaction ends; `NO KEY` so that rows referring to the project are
 * still written meanwhile. SQLite runs one write transaction at a time already.
 */
export async function lockBoard(q: Queries, projectId: number): Promise<void> {
  if (q.kind === "sqlite") return;
  await q.get("SELECT id FROM projects WHERE id = ? FOR NO KEY UPDATE", [projectId]);
}

// The ids travel as one JSON array, each placed at its index in it: one statement whatever
// the column's length (a statement per item took a round trip per item on PostgreSQL).
const PLACE: PerEngine = {
  sqlite: `UPDATE todo_items SET column_id = ?, order_index = j.key, updated_at = ?
    FROM json_each(?) AS j WHERE todo_items.id = j.value`,
  postgres: `UPDATE todo_items SET column_id = ?, order_index = j.n - 1, updated_at = ?
    FROM json_array_elements_text(CAST(? AS text)::json) WITH ORDINALITY AS j(value, n)
    WHERE todo_items.id = j.value::bigint`,
};

/** Places `ids` in `columnId` at positions 0..n-1 in the given order. */
export async function placeItems(
  q: Queries,
  columnId: number,
  ids: number[],
  at: string,
): Promise<void> {
  if (ids.length === 0) return;
  await q.run(PLACE[q.kind], [columnId, at, JSON.stringify(ids)]);
}

/** The fields of an item that can be changed. */
export type ItemChanges = Partial<
  Pick<
    ItemRow,
    | "title"
    | "description"
    | "assigneeId"
    | "priority"
    | "startDate"
    | "dueDate"
    | "tags"
    | "milestoneId"
  >
>;

const CHANGE_COLUMNS: Record<keyof ItemChanges, string> = {
  title: "title",
  description: "description",
  assigneeId: "assignee_id",
  priority: "priority",
  startDate: "start_date",
  dueDate: "due_date",
  tags: "tags",
  milestoneId: "milestone_id",
};

/** Applies the given changes (a key present with null clears that column). */
export async function updateItem(
  q: Queries,
  id: number,
  changes: ItemChanges,
  at: string,
): Promise<void> {
  const keys = Object.keys(changes) as Array<keyof ItemChanges>;
  const values = keys.map((k) =>
    k === "tags" ? JSON.stringify(changes.tags ?? []) : changes[k] ?? null
  );
  await q.run(
    `UPDATE todo_items SET ${
      keys.map((k) => `${CHANGE_COLUMNS[k]} = ?`).concat("updated_at = ?").join(", ")
    } WHERE id = ?`,
    [...(values as Array<string | number | null>), at, id],
  );
}

/** Sets completion. */
export async function setCompleted(
  q: Queries,
  id: number,
  completedAt: string | null,
  at: string,
): Promise<void> {
  await q.run(
    "UPDATE todo_items SET completed = ?, completed_at = ?, updated_at = ? WHERE id = ?",
    [completedAt ? 1 : 0, completedAt, at, id],
  );
}

/** Moves an item to the trash (its `updated_at` stays as it was). */
export async function deleteItem(q: Queries, id: number, d: Deletion): Promise<void> {
  await q.run("UPDATE todo_items SET deleted_at = ?, deleted_by = ? WHERE id = ?", [
    d.at,
    d.by,
    id,
  ]);
}

/** How many live items of a project match the filters (what `listItems` would return). */
export async function countItems(
  q: Queries,
  projectId: number,
  filters: { columnId: number | null; assigneeId: number | null; milestoneId: number | null },
): Promise<number> {
  return Number(
    (await q.get<{ n: number }>(
      `SELECT count(*) AS n FROM todo_items i
     WHERE i.project_id = ? AND i.deleted_at IS NULL
     AND (CAST(? AS bigint) IS NULL OR i.column_id = ?)
     AND (CAST(? AS bigint) IS NULL OR i.assignee_id = ?)
     AND (CAST(? AS bigint) IS NULL OR i.milestone_id = ?)`,
      [
        projectId,
        filters.columnId,
        filters.columnId,
        filters.assigneeId,
        filters.assigneeId,
        filters.milestoneId,
        filters.milestoneId,
      ],
    ))!.n,
  );
}

/**
 * The live items of each column of a project, by column id (an empty column counts 0). Each
 * column is counted in the index of live items by place (`todo_items_column`, partial on
 * `deleted_at IS NULL`), entries only: grouped over the project, SQLite read every item's
 * row to learn its column (300 ms at 100,000 items; 30 ms this way). `order_index >= 0` holds
 * for every item; it names that index's second column, so SQLite picks it over the plain one
 * on `column_id`.
 */
export async function columnCounts(q: Queries, projectId: number): Promise<Map<number, number>> {
  const rows = await q.all<{ column_id: number; n: number }>(
    `SELECT c.id AS column_id, (SELECT count(*) FROM todo_items i
       WHERE i.column_id = c.id AND i.deleted_at IS NULL AND i.order_index >= 0) AS n
     FROM todo_columns c WHERE c.project_id = ?`,
    [projectId],
  );
  return new Map(rows.map((r) => [r.column_id, Number(r.n)]));
}

/** The filters a column page takes besides its column. */
export interface PageFilters {
  assigneeId: number | null;
  milestoneId: number | null;
}

const PAGE_FILTERS = `AND (CAST(? AS bigint) IS NULL OR i.assignee_id = ?)
  AND (CAST(? AS bigint) IS NULL OR i.milestone_id = ?)`;

function filterArgs(f: PageFilters): Array<number | null> {
  return [f.assigneeId, f.assigneeId, f.milestoneId, f.milestoneId];
}

/** Where a live item stands now in a column: its `order_index`, or null when it is not there. */
export async function placeInColumn(
  q: Queries,
  columnId: number,
  id: number,
): Promise<number | null> {
  const r = await q.get<{ order_index: number }>(
    "SELECT order_index FROM todo_items WHERE id = ? AND column_id = ? AND deleted_at IS NULL",
    [id, columnId],
  );
  return r ? r.order_index : null;
}

/**
 * Up to `limit` live items of a column in board order (`order_index`, then id) that come after
 * the place (`orderIndex`, `id`); the first ones when `after` is null.
 */
export async function columnItemsAfter(
  q: Queries,
  columnId: number,
  after: { orderIndex: number; id: number } | null,
  limit: number,
  filters: PageFilters,
): Promise<ItemRow[]> {
  const o = after?.orderIndex ?? -1;
  const id = after?.id ?? 0;
  return (await q.all<RawItem>(
    `${ITEM_SELECT} WHERE i.column_id = ? AND i.deleted_at IS NULL
     AND (i.order_index > ? OR (i.order_index = ? AND i.id > ?)) ${PAGE_FILTERS}
     ORDER BY i.order_index, i.id LIMIT ?`,
    [columnId, o, o, id, ...filterArgs(filters), limit],
  )).map(toItem);
}

/**
 * Up to `limit` live items of a column newest-completed first (`completed_at` descending, then
 * id descending; items not completed last), after the place (`completedAt`, `id`), "" standing
 * for not completed; the first ones when `after` is null.
 */
export async function columnItemsByCompletion(
  q: Queries,
  columnId: number,
  after: { completedAt: string; id: number } | null,
  limit: number,
  filters: PageFilters,
): Promise<ItemRow[]> {
  const c = after?.completedAt ?? null;
  const id = after?.id ?? 0;
  // Timestamps are ISO strings of one format: they compare alike under any collation.
  return (await q.all<RawItem>(
    `${ITEM_SELECT} WHERE i.column_id = ? AND i.deleted_at IS NULL
     AND (CAST(? AS text) IS NULL OR coalesce(i.completed_at, '') < ?
       OR (coalesce(i.completed_at, '') = ? AND i.id < ?)) ${PAGE_FILTERS}
     ORDER BY coalesce(i.completed_at, '') DESC, i.id DESC LIMIT ?`,
    [columnId, c, c, c, id, ...filterArgs(filters), limit],
  )).map(toItem);
}
