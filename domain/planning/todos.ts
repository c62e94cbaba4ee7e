/**
 * The kanban board: columns (the standard three created on first use) and to-do items,
 * shared work any member may change. Every change writes activity and one `todo.updated`
 * stream event; assigning someone notifies them.
 */
import { milestoneInProject } from "../../db/planning/milestones.ts";
import { memberRole } from "../../db/projects/projects.ts";
import {
  columnCounts,
  columnItemIds,
  columnItemsAfter,
  columnItemsByCompletion,
  type ColumnKey,
  type ColumnRow,
  countColumnItems,
  countItems,
  deleteColumn,
  deleteItem,
  findColumn,
  findItem,
  findItems,
  insertColumn,
  insertItem,
  type ItemChanges,
  type ItemRow,
  listColumns,
  listItems,
  lockBoard,
  placeInColumn,
  placeItems,
  type Priority,
  rehomeDeletedItems,
  renameColumn,
  setCompleted,
  updateItem,
} from "../../db/planning/todos.ts";
import type { Queries } from "../../db/kernel/engine.ts";
import { projectAccess, requireWrite } from "../accounts/access.ts";
import type { Actor } from "../accounts/accounts.ts";
import { type DomainContext, type Effects, emits, runAction } from "../projects/actions.ts";
import type { Attachments } from "../content/attachments.ts";
import { checklistSummaries, type ChecklistSummary } from "./checklists.ts";
import { DomainError, invalid, outOfOrder } from "../kernel/errors.ts";
import type { FileInfo } from "../content/files.ts";
import { cleanTags } from "../content/notes.ts";
import { type BoardCard, cardsOf, type LaneOrder } from "./todo_board.ts";
import type { TrashRef } from "../projects/trash.ts";

export type { ColumnRow as Column, Priority };

/** A to-do item as the API shows it: with its attachments and how much of its checklist is done. */
export type Item = ItemRow & { attachments: FileInfo[]; checklist: ChecklistSummary };

const STANDARD: Array<[ColumnKey, string]> = [
  ["todo", "To Do"],
  ["in_progress", "In Progress"],
  ["done", "Done"],
];

/** Whether a standard column still has its standard name (not renamed by the project). */
export function hasStandardName(column: ColumnRow): boolean {
  return STANDARD.some(([key, name]) => key === column.key && name === column.name);
}

/** The most items a list without `columnId` answers whole; past it, page each column. */
export const WHOLE_LIST_MAX = 1000;
/** A column page's default and largest `limit`. */
export const PAGE_DEFAULT = 100;
export const PAGE_MAX = 500;
/** How many of the Done column the board shows before "Show more"; of any other, `PAGE_DEFAULT`. */
export const DONE_SHOWN = 50;
/** The most items of a column the board page draws at once (its `show`, clamped). */
export const BOARD_SHOW_MAX = 5000;

/** How a column page is ordered: the Done column newest-completed first, any other by place. */
export function laneOrder(column: ColumnRow): LaneOrder {
  return column.key === "done" ? "completed" : "board";
}

/**
 * Where a column page ended, as its cursor says: the last item's id and where it stood then
 * (board order: its `orderIndex`; completion order: its `completedAt`, "" when not completed).
 */
type Cursor = { order: "board"; orderIndex: number; id: number } | {
  order: "completed";
  completedAt: string;
  id: number;
};

/** The opaque cursor after `item` in `order`: base64url of a small JSON object. */
function encodeCursor(order: LaneOrder, item: ItemRow): string {
  const body = order === "board"
    ? { o: item.orderIndex, i: item.id }
    : { c: item.completedAt ?? "", i: item.id };
  return btoa(JSON.stringify(body)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

const COMPLETED_AT = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z)?$/;

/** Reads a cursor given as `after`; anything not made by `encodeCursor` is a validation error. */
function decodeCursor(text: string): Cursor {
  const refuse = () => invalid("after", "Not a cursor of this list: pass nextCursor as it came");
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(text)) throw refuse();
  let body: unknown;
  try {
    body = JSON.parse(atob(text.replaceAll("-", "+").replaceAll("_", "/")));
  } catch {
    throw refuse();
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw refuse();
  const { o, c, i } = body as Record<string, unknown>;
  if (!Number.isSafeInteger(i) || (i as number) < 1) throw refuse();
  if (Number.isSafeInteger(o) && (o as number) >= 0 && c === undefined) {
    return { order: "board", orderIndex: o as number, id: i as number };
  }
  if (typeof c === "string" && COMPLETED_AT.test(c) && o === undefined) {
    return { order: "completed", completedAt: c, id: i as number };
  }
  throw refuse();
}

/** A column of the board page: its first items (as many as asked), its total and what follows. */
export interface BoardColumn {
  column: ColumnRow;
  order: LaneOrder;
  cards: BoardCard<Item>[];
  /** The column's live items, all of them. */
  total: number;
  /** The cursor of the items after `cards`, or null when they are all there. */
  nextCursor: string | null;
}

/** The item filters of a list. */
export interface ItemFilters {
  columnId: number | null;
  assigneeId: number | null;
  milestoneId: number | null;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Checks a calendar date `YYYY-MM-DD` (a real day). */
export function checkDate(field: string, value: string | null): string | null {
  if (value === null) return null;
  const time = DATE.test(value) ? Date.parse(`${value}T00:00:00Z`) : NaN;
  if (Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== value) {
    throw invalid(field, "Use a date like 2026-11-22");
  }
  return value;
}

/** Creates the standard columns of a project when it has none yet. */
async function ensureColumns(q: Queries, projectId: number, at: string): Promise<ColumnRow[]> {
  await lockBoard(q, projectId); // two first uses at once make them once
  const existing = await listColumns(q, projectId);
  if (existing.length > 0) return existing;
  for (const [position, [key, name]] of STANDARD.entries()) {
    await insertColumn(q, { projectId, name, key, position, at });
  }
  return await listColumns(q, projectId);
}

/** What a to-do create or update may set. */
export interface ItemInput {
  title?: string | undefined;
  description?: string | null | undefined;
  assigneeId?: number | null | undefined;
  priority?: Priority | undefined;
  startDate?: string | null | undefined;
  dueDate?: string | null | undefined;
  tags?: string[] | null | undefined;
  milestoneId?: number | null | undefined;
}

const NO_FILTER = { assigneeId: null, milestoneId: null };

/** The to-do operations. */
export function createTodos(ctx: DomainContext, attachments: Attachments) {
  const { db } = ctx;

  const withFiles = async (q: Queries, rows: ItemRow[]): Promise<Item[]> => {
    const ids = rows.map((r) => r.id);
    const files = await attachments.of(q, "item", ids);
    const checklist = await checklistSummaries(q, ids);
    return rows.map((r) => ({
      ...r,
      attachments: files.get(r.id) ?? [],
      checklist: checklist(r.id),
    }));
  };
  const item = async (q: Queries, projectId: number, id: number): Promise<ItemRow> => {
    const row = await findItem(q, projectId, id);
    if (!row) throw new DomainError("not_found", "No such to-do item");
    return row;
  };
  const column = async (q: Queries, projectId: number, id: number): Promise<ColumnRow> => {
    const row = await findColumn(q, projectId, id);
    if (!row) throw new DomainError("not_found", "No such column");
    return row;
  };

  /** Validates the settable fields of `input` into changes (absent stays absent). */
  async function changesOf(q: Queries, projectId: number, input: ItemInput): Promise<ItemChanges> {
    const changes: ItemChanges = {};
    if (input.title !== undefined) {
      if (!input.title.trim()) throw invalid("title", "Cannot be blank");
      changes.title = input.title.trim();
    }
    if (input.description !== undefined) changes.description = input.description;
    if (input.priority !== undefined) changes.priority = input.priority;
    if (input.startDate !== undefined) changes.startDate = checkDate("startDate", input.startDate);
    if (input.dueDate !== undefined) changes.dueDate = checkDate("dueDate", input.dueDate);
    if (input.tags !== undefined) changes.tags = cleanTags(input.tags ?? []);
    if (input.assigneeId !== undefined) {
      if (
        input.assigneeId !== null && await memberRole(q, projectId, input.assigneeId) === null
      ) {
        throw invalid("assigneeId", "The assignee must be a member of the project");
      }
      changes.assigneeId = input.assigneeId;
    }
    if (input.milestoneId !== undefined) {
      if (input.milestoneId !== null) {
        if (!await milestoneInProject(q, projectId, input.milestoneId)) {
          throw invalid("milestoneId", "The milestone must belong to the project");
        }
      }
      changes.milestoneId = input.milestoneId;
    }
    return changes;
  }

  function checkSpan(row: Pick<ItemRow, "startDate" | "dueDate">): void {
    if (row.startDate && row.dueDate && row.startDate > row.dueDate) {
      throw outOfOrder(
        "dueDate",
        "before_start",
        "Cannot save: the due date lies before the start date",
      );
    }
  }

  function announce(
    fx: Effects,
    e: { projectId: number; itemIds: number[]; columnId?: number; action: string },
  ): void {
    fx.event(e.projectId, "todo.updated", e);
  }

  function assigned(fx: Effects, actor: Actor, row: ItemRow): void {
    if (row.assigneeId === null) return;
    fx.notify({
      kind: "todo_assigned",
      projectId: row.projectId,
      actorId: actor.id,
      subjectType: "item",
      subjectId: row.id,
      text: row.title,
      recipients: [row.assigneeId],
    });
  }

  function activity(
    fx: Effects,
    actor: Actor,
    row: ItemRow,
    kind: "todo_created" | "todo_updated" | "todo_completed",
  ) {
    fx.activity({
      projectId: row.projectId,
      kind,
      actorId: actor.id,
      subjectType: "item",
      subjectId: row.id,
      summary: row.title,
    });
  }

  attachments.register(
    "item",
    async (q, projectId, id) => (await findItem(q, projectId, id) ? { authorId: null } : null),
    async (tx, fx, subject) => {
      const row = await item(tx, subject.projectId, subject.id);
      announce(fx, {
        projectId: row.projectId,
        itemIds: [row.id],
        columnId: row.columnId,
        action: "attachments",
      });
    },
  );

  /** A page of a column (see `page`), read through `r`. */
  async function pageOf(
    r: Queries,
    column: ColumnRow,
    order: LaneOrder,
    after: Cursor | null,
    limit: number,
    filters: Omit<ItemFilters, "columnId">,
  ): Promise<{ items: Item[]; nextCursor: string | null }> {
    let rows: ItemRow[];
    if (order === "completed") {
      const from = after?.order === "completed" ? after : null;
      rows = await columnItemsByCompletion(r, column.id, from, limit + 1, filters);
    } else {
      let from: { orderIndex: number; id: number } | null = null;
      if (after?.order === "board") {
        const now = await placeInColumn(r, column.id, after.id);
        // Gone from the column: the items after it moved up one, to its old index and on.
        from = now === null
          ? { orderIndex: after.orderIndex - 1, id: Number.MAX_SAFE_INTEGER }
          : { orderIndex: now, id: after.id };
      }
      rows = await columnItemsAfter(r, column.id, from, limit + 1, filters);
    }
    const more = rows.length > limit;
    const page = more ? rows.slice(0, limit) : rows;
    return {
      items: await withFiles(r, page),
      nextCursor: more ? encodeCursor(order, page.at(-1)!) : null,
    };
  }

  const operations = {
    /** The columns by position; the standard three are created on first use. */
    async columns(actor: Actor, projectId: number): Promise<ColumnRow[]> {
      await projectAccess(db, actor, projectId);
      const existing = await listColumns(db, projectId);
      if (existing.length > 0) return existing;
      const at = ctx.clock.now().toISOString();
      return await db.transaction((tx) => ensureColumns(tx, projectId, at));
    },

    /** Appends a custom column (key null). */
    addColumn(actor: Actor, projectId: number, input: { name: string }): Promise<ColumnRow> {
      return runAction(ctx, emits("todo.column.created"), async (tx, fx) => {
        requireWrite(await projectAccess(tx, actor, projectId));
        const name = input.name.trim();
        if (!name) throw invalid("name", "Cannot be blank");
        const existing = await ensureColumns(tx, projectId, fx.now);
        await insertColumn(tx, {
          projectId,
          name,
          key: null,
          position: existing.length,
          at: fx.now,
        });
        const created = (await listColumns(tx, projectId)).at(-1)!;
        fx.event(projectId, "todo.column.created", created);
        return created;
      });
    },

    /** Renames a column (its key survives). */
    renameColumn(
      actor: Actor,
      projectId: number,
      input: { columnId: number; name: string },
    ): Promise<ColumnRow> {
      return runAction(ctx, emits("todo.column.updated"), async (tx, fx) => {
        requireWrite(await projectAccess(tx, actor, projectId));
        const row = await column(tx, projectId, input.columnId);
        const name = input.name.trim();
        if (!name) throw invalid("name", "Cannot be blank");
        await renameColumn(tx, row.id, name, fx.now);
        const renamed = await column(tx, projectId, row.id);
        fx.event(projectId, "todo.column.updated", renamed);
        return renamed;
      });
    },

    /** Deletes an empty column (409 while it holds items, or when it is the last one). */
    async removeColumn(actor: Actor, projectId: number, columnId: number): Promise<void> {
      await runAction(ctx, emits("todo.column.deleted"), async (tx, fx) => {
        requireWrite(await projectAccess(tx, actor, projectId));
        await lockBoard(tx, projectId);
        const row = await column(tx, projectId, columnId);
        if (await countColumnItems(tx, row.id, { live: true }) > 0) {
          throw new DomainError("conflict", "The column still holds items");
        }
        const others = (await listColumns(tx, projectId)).filter((c) => c.id !== row.id);
        if (others.length === 0) {
          throw new DomainError("conflict", "A board keeps at least one column");
        }
        await rehomeDeletedItems(tx, row.id, others[0]!.id);
        await deleteColumn(tx, projectId, row.id);
        fx.event(projectId, "todo.column.deleted", { id: row.id, projectId });
      });
    },

    /**
     * The board: each column with its first items (`show`: how many of a column, by its id, when
     * more than `PAGE_DEFAULT` (the Done column `DONE_SHOWN`), at most `BOARD_SHOW_MAX`), its
     * total and the cursor of the rest, and where each card's arrows move it.
     */
    async board(
      actor: Actor,
      projectId: number,
      show: ReadonlyMap<number, number> = new Map(),
    ): Promise<BoardColumn[]> {
      const columns = await operations.columns(actor, projectId);
      return await db.read(async (r) => {
        const totals = await columnCounts(r, projectId);
        const lanes: BoardColumn[] = [];
        for (const column of columns) {
          const order = laneOrder(column);
          // `show` asks for more than the first page, never fewer: a re-render after a card
          // came in shows it too.
          const first = order === "completed" ? DONE_SHOWN : PAGE_DEFAULT;
          const limit = Math.min(Math.max(first, show.get(column.id) ?? 0), BOARD_SHOW_MAX);
          const { items, nextCursor } = await pageOf(r, column, order, null, limit, NO_FILTER);
          lanes.push({
            column,
            order,
            cards: cardsOf(columns, column.id, items, totals, order),
            total: totals.get(column.id) ?? 0,
            nextCursor,
          });
        }
        return lanes;
      });
    },

    /**
     * The cards of a column's page after `after` (a cursor), as the board draws them: the
     * board page's "Show more".
     */
    async boardPage(
      actor: Actor,
      projectId: number,
      input: { columnId: number; after: string | null; limit: number },
    ): Promise<
      { column: ColumnRow; cards: BoardCard<Item>[]; total: number; nextCursor: string | null }
    > {
      await projectAccess(db, actor, projectId);
      const columns = await listColumns(db, projectId);
      const column = columns.find((c) => c.id === input.columnId);
      if (!column) throw new DomainError("not_found", "No such column");
      const order = laneOrder(column);
      return await db.read(async (r) => {
        const totals = await columnCounts(r, projectId);
        const after = input.after === null ? null : decodeCursor(input.after);
        const limit = Math.min(Math.max(1, input.limit), PAGE_MAX);
        const { items, nextCursor } = await pageOf(r, column, order, after, limit, NO_FILTER);
        const cards = cardsOf(columns, column.id, items, totals, order);
        return { column, cards, total: totals.get(column.id) ?? 0, nextCursor };
      });
    },

    /**
     * Items by column position then order, optionally filtered: the whole list, refused
     * (`too_many`) past `WHOLE_LIST_MAX` items, where a caller pages each column (`page`).
     */
    async list(actor: Actor, projectId: number, filters: ItemFilters): Promise<Item[]> {
      await projectAccess(db, actor, projectId);
      return await db.read(async (r) => {
        if (await countItems(r, projectId, filters) > WHOLE_LIST_MAX) {
          throw new DomainError(
            "too_many",
            `More than ${WHOLE_LIST_MAX} items: page each column with columnId, limit and after`,
            { details: { columnId: "Required above 1000 items: page each column" } },
          );
        }
        return await withFiles(r, await listItems(r, projectId, filters));
      });
    },

    /**
     * A page of one column: up to `limit` items after the cursor `after` (the first ones when
     * null), in the column's order (board order: `orderIndex`; `order: "completed"`: newest
     * completed first), and the cursor of the next page, null at the end. A board-order
     * cursor names the page's last item and stands for "after that item, where it is now":
     * the items that stay in the column unmoved keep their order among themselves through
     * any move, reorder, create or delete (renumbering keeps it), so each of them comes
     * exactly once across the pages. An item moved while paging may come twice or not at
     * all (each move is a `todo.updated` event naming it). If the cursor's item has left
     * the column, the next page starts at its old `orderIndex`.
     */
    async page(
      actor: Actor,
      projectId: number,
      input: ItemFilters & {
        columnId: number;
        limit: number;
        after: string | null;
        order?: LaneOrder | undefined;
      },
    ): Promise<{ items: Item[]; nextCursor: string | null }> {
      await projectAccess(db, actor, projectId);
      const after = input.after === null ? null : decodeCursor(input.after);
      const order = input.order ?? "board";
      if (after && after.order !== order) {
        throw invalid("after", "Not a cursor of this list: pass nextCursor as it came");
      }
      const column = await findColumn(db, projectId, input.columnId);
      if (!column) return { items: [], nextCursor: null };
      const limit = Math.min(Math.max(1, input.limit), PAGE_MAX);
      return await db.read((r) => pageOf(r, column, order, after, limit, input));
    },

    /** One item. */
    async get(actor: Actor, projectId: number, itemId: number): Promise<Item> {
      await projectAccess(db, actor, projectId);
      return (await withFiles(db, [await item(db, projectId, itemId)]))[0]!;
    },

    /** Creates an item, placed last in its column (the first column by default). */
    create(
      actor: Actor,
      projectId: number,
      input: ItemInput & {
        title: string;
        columnId?: number | undefined;
        fileIds?: number[] | undefined;
      },
    ): Promise<Item> {
      return runAction(ctx, emits("todo.created"), async (tx, fx) => {
        requireWrite(await projectAccess(tx, actor, projectId));
        await lockBoard(tx, projectId);
        const columns = await ensureColumns(tx, projectId, fx.now);
        const target = input.columnId === undefined
          ? columns[0]!
          : await column(tx, projectId, input.columnId);
        const changes = await changesOf(tx, projectId, input);
        const fields = {
          title: changes.title!,
          description: changes.description ?? null,
          assigneeId: changes.assigneeId ?? null,
          priority: changes.priority ?? "normal",
          startDate: changes.startDate ?? null,
          dueDate: changes.dueDate ?? null,
          tags: changes.tags ?? [],
          milestoneId: changes.milestoneId ?? null,
        };
        checkSpan(fields);
        const id = await insertItem(tx, {
          projectId,
          columnId: target.id,
          creatorId: actor.id,
          ...fields,
          orderIndex: (await columnItemIds(tx, target.id)).length,
          createdAt: fx.now,
        });
        await attachments.link(tx, fx, {
          projectId,
          type: "item",
          id,
          fileIds: input.fileIds ?? [],
        });
        const row = await item(tx, projectId, id);
        activity(fx, actor, row, "todo_created");
        assigned(fx, actor, row);
        const created = (await withFiles(tx, [row]))[0]!;
        fx.event(projectId, "todo.created", created);
        return created;
      });
    },

    /** Changes an item: an absent field stays, an explicit null clears. */
    update(
      actor: Actor,
      projectId: number,
      input: ItemInput & { itemId: number },
    ): Promise<Item> {
      return runAction(ctx, emits("todo.updated"), async (tx, fx) => {
        requireWrite(await projectAccess(tx, actor, projectId));
        const before = await item(tx, projectId, input.itemId);
        const changes = await changesOf(tx, projectId, input);
        checkSpan({ ...before, ...changes });
        if (Object.keys(changes).length > 0) await updateItem(tx, before.id, changes, fx.now);
        const row = await item(tx, projectId, before.id);
        activity(fx, actor, row, "todo_updated");
        if (changes.assigneeId !== undefined && row.assigneeId !== before.assigneeId) {
          assigned(fx, actor, row);
        }
        announce(fx, { projectId, itemIds: [row.id], columnId: row.columnId, action: "edited" });
        return (await withFiles(tx, [row]))[0]!;
      });
    },

    /**
     * Moves an item and the files uploaded to it to the trash; the rest of its column is
     * renumbered (the item keeps its old index, where a restore puts it back). Returns the
     * trash entry.
     */
    remove(actor: Actor, projectId: number, itemId: number): Promise<TrashRef> {
      return runAction(ctx, emits("todo.deleted"), async (tx, fx) => {
        requireWrite(await projectAccess(tx, actor, projectId));
        await lockBoard(tx, projectId);
        const row = await item(tx, projectId, itemId);
        const deletion = { at: fx.now, by: actor.id };
        await deleteItem(tx, row.id, deletion);
        await attachments.trashWith(tx, deletion, [{ type: "item", id: row.id }]);
        await placeItems(tx, row.columnId, await columnItemIds(tx, row.columnId), fx.now);
        fx.event(projectId, "todo.deleted", { id: row.id, projectId });
        return { type: "item", id: row.id };
      });
    },

    /** Completes or reopens an item; completing writes `todo_completed`. */
    toggleComplete(actor: Actor, projectId: number, itemId: number): Promise<Item> {
      const spec = emits("todo.completed", "todo.reopened");
      return runAction(ctx, spec, async (tx, fx) => {
        requireWrite(await projectAccess(tx, actor, projectId));
        const before = await item(tx, projectId, itemId);
        await setCompleted(tx, before.id, before.completed ? null : fx.now, fx.now);
        const row = await item(tx, projectId, before.id);
        activity(fx, actor, row, row.completed ? "todo_completed" : "todo_updated");
        const toggled = (await withFiles(tx, [row]))[0]!;
        fx.event(projectId, row.completed ? "todo.completed" : "todo.reopened", toggled);
        return toggled;
      });
    },

    /** Moves an item to `orderIndex` of a column; both columns are renumbered 0..n-1. */
    move(
      actor: Actor,
      projectId: number,
      input: { itemId: number; columnId: number; orderIndex: number },
    ): Promise<Item> {
      return runAction(ctx, emits("todo.updated"), async (tx, fx) => {
        requireWrite(await projectAccess(tx, actor, projectId));
        await lockBoard(tx, projectId);
        const row = await item(tx, projectId, input.itemId);
        const target = await column(tx, projectId, input.columnId);
        const ids = (await columnItemIds(tx, target.id)).filter((id) => id !== row.id);
        ids.splice(Math.min(Math.max(0, input.orderIndex), ids.length), 0, row.id);
        await placeItems(tx, target.id, ids, fx.now);
        if (row.columnId !== target.id) {
          await placeItems(tx, row.columnId, await columnItemIds(tx, row.columnId), fx.now);
        }
        const moved = await item(tx, projectId, row.id);
        activity(fx, actor, moved, "todo_updated");
        announce(fx, { projectId, itemIds: [row.id], columnId: target.id, action: "moved" });
        return (await withFiles(tx, [moved]))[0]!;
      });
    },

    /**
     * Puts `itemIds` at positions 0..k-1 of a column in the given order (items from other
     * columns move in); the column's other items follow in their previous order. One
     * activity entry and one event; an empty list changes nothing.
     */
    reorder(
      actor: Actor,
      projectId: number,
      input: { bodyProjectId: number; columnId: number; itemIds: number[] },
    ): Promise<Item[]> {
      return runAction(ctx, emits("todo.updated"), async (tx, fx) => {
        requireWrite(await projectAccess(tx, actor, projectId));
        await lockBoard(tx, projectId);
        if (input.bodyProjectId !== projectId) {
          throw invalid("projectId", "Must be the project of the path");
        }
        const ids = input.itemIds;
        if (new Set(ids).size !== ids.length) throw invalid("itemIds", "Each item may appear once");
        const target = await findColumn(tx, projectId, input.columnId);
        if (!target) throw invalid("columnId", "Must be a column of this project");
        if (ids.length === 0) {
          fx.unchanged();
          return [];
        }
        const found = await findItems(tx, projectId, ids);
        if (found.length !== ids.length) {
          throw invalid("itemIds", "Every item must belong to this project");
        }
        const sources = new Set(found.map((i) => i.columnId).filter((c) => c !== target.id));
        const listed = new Set(ids);
        const rest = (await columnItemIds(tx, target.id)).filter((id) => !listed.has(id));
        await placeItems(tx, target.id, [...ids, ...rest], fx.now);
        for (const source of sources) {
          await placeItems(tx, source, await columnItemIds(tx, source), fx.now);
        }
        const first = await item(tx, projectId, ids[0]!);
        fx.activity({
          projectId,
          kind: "todo_updated",
          actorId: actor.id,
          subjectType: "item",
          subjectId: first.id,
          summary: first.title,
        });
        announce(fx, { projectId, itemIds: ids, columnId: target.id, action: "reordered" });
        return (await withFiles(tx, await findItems(tx, projectId, ids))).sort((a, b) =>
          ids.indexOf(a.id) - ids.indexOf(b.id)
        );
      });
    },
  };
  return operations;
}

/** The to-do operations' type. */
export type Todos = ReturnType<typeof createTodos>;
