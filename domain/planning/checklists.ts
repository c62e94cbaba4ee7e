/**
 * Checklists on to-do items: ordered entries anyone who may edit the item may add, rename,
 * check, reorder and remove. Every change is a `todo_updated` activity entry on the item and
 * one `todo.updated` stream event (action `checklist`), and touches the item's `updatedAt`
 * (its `checklist` counts changed). A trashed item keeps its entries; search finds the item
 * by their text (migration 016).
 */
import {
  type ChecklistEntryRow,
  type ChecklistSummary,
  countEntries,
  deleteEntry,
  findEntry,
  insertEntry,
  listEntries,
  placeEntries,
  summariesOf,
  updateEntry,
} from "../../db/planning/checklists.ts";
import { findItem, type ItemRow, updateItem } from "../../db/planning/todos.ts";
import type { Queries } from "../../db/kernel/engine.ts";
import { projectAccess, requireWrite } from "../accounts/access.ts";
import type { Actor } from "../accounts/accounts.ts";
import { type DomainContext, type Effects, emits, runAction } from "../projects/actions.ts";
import { DomainError, invalid } from "../kernel/errors.ts";

export type { ChecklistEntryRow as ChecklistEntry, ChecklistSummary };

/** Every checklist change is a `todo.updated` of its item (action `checklist`). */
const CHANGED = emits("todo.updated");
/** The longest entry text, in characters. */
export const CHECKLIST_TEXT_MAX = 500;
/** The most entries one item's checklist holds. */
export const CHECKLIST_MAX_ENTRIES = 100;

/** The counts of each item's checklist (0 of 0 for an item without one). */
export async function checklistSummaries(
  q: Queries,
  itemIds: number[],
): Promise<(itemId: number) => ChecklistSummary> {
  const found = await summariesOf(q, itemIds);
  return (itemId) => found.get(itemId) ?? { done: 0, total: 0 };
}

/** A checked entry text: trimmed, 1..500 characters. */
function cleanText(text: string): string {
  const clean = text.trim();
  if (!clean) throw invalid("text", "Cannot be blank");
  if (clean.length > CHECKLIST_TEXT_MAX) {
    throw invalid("text", `Cannot be longer than ${CHECKLIST_TEXT_MAX} characters`);
  }
  return clean;
}

/** The checklist operations. */
export function createChecklists(ctx: DomainContext) {
  const { db } = ctx;

  const itemOf = async (q: Queries, projectId: number, itemId: number): Promise<ItemRow> => {
    const row = await findItem(q, projectId, itemId);
    if (!row) throw new DomainError("not_found", "No such to-do item");
    return row;
  };
  const entryOf = async (
    q: Queries,
    itemId: number,
    entryId: number,
  ): Promise<ChecklistEntryRow> => {
    const row = await findEntry(q, itemId, entryId);
    if (!row) throw new DomainError("not_found", "No such checklist entry");
    return row;
  };

  /** The item an edit changes, for a caller who may edit it. */
  async function editable(
    tx: Queries,
    actor: Actor,
    projectId: number,
    itemId: number,
  ): Promise<ItemRow> {
    requireWrite(await projectAccess(tx, actor, projectId));
    return await itemOf(tx, projectId, itemId);
  }

  /** What every change records: the item's new `updatedAt`, activity and one event. */
  async function changed(tx: Queries, fx: Effects, actor: Actor, item: ItemRow): Promise<void> {
    await updateItem(tx, item.id, {}, fx.now);
    fx.activity({
      projectId: item.projectId,
      kind: "todo_updated",
      actorId: actor.id,
      subjectType: "item",
      subjectId: item.id,
      summary: item.title,
    });
    fx.event(item.projectId, "todo.updated", {
      projectId: item.projectId,
      itemIds: [item.id],
      columnId: item.columnId,
      action: "checklist",
    });
  }

  /** Puts the item's entries in the order of `ids` (exactly its entries, each once). */
  async function place(
    tx: Queries,
    item: ItemRow,
    ids: number[],
    at: string,
  ): Promise<ChecklistEntryRow[]> {
    const current = (await listEntries(tx, item.id)).map((e) => e.id);
    const same = ids.length === current.length && new Set(ids).size === ids.length &&
      ids.every((id) => current.includes(id));
    if (!same) {
      throw new DomainError(
        "validation",
        "Cannot reorder: list each entry of the item's checklist exactly once",
        { details: { entryIds: "not_the_entries" } },
      );
    }
    await placeEntries(tx, ids, at);
    return await listEntries(tx, item.id);
  }

  return {
    /** An item's entries in order (members and readers). */
    async list(actor: Actor, projectId: number, itemId: number): Promise<ChecklistEntryRow[]> {
      await projectAccess(db, actor, projectId);
      return await listEntries(db, (await itemOf(db, projectId, itemId)).id);
    },

    /** Appends an entry (409 `conflict`, details `{checklist: "full"}`, at 100 entries). */
    add(
      actor: Actor,
      projectId: number,
      itemId: number,
      input: { text: string },
    ): Promise<ChecklistEntryRow> {
      return runAction(ctx, CHANGED, async (tx, fx) => {
        const item = await editable(tx, actor, projectId, itemId);
        const text = cleanText(input.text);
        const total = await countEntries(tx, item.id);
        if (total >= CHECKLIST_MAX_ENTRIES) {
          throw new DomainError(
            "conflict",
            `Cannot add: a checklist holds at most ${CHECKLIST_MAX_ENTRIES} entries`,
            { details: { checklist: "full" } },
          );
        }
        const id = await insertEntry(tx, {
          projectId,
          itemId: item.id,
          text,
          done: false,
          position: total,
          createdAt: fx.now,
          updatedAt: fx.now,
        });
        await changed(tx, fx, actor, item);
        return await entryOf(tx, item.id, id);
      });
    },

    /** Renames an entry or checks it off (absent fields stay). */
    update(
      actor: Actor,
      projectId: number,
      itemId: number,
      entryId: number,
      input: { text?: string | undefined; done?: boolean | undefined },
    ): Promise<ChecklistEntryRow> {
      return runAction(ctx, CHANGED, async (tx, fx) => {
        const item = await editable(tx, actor, projectId, itemId);
        const entry = await entryOf(tx, item.id, entryId);
        const text = input.text === undefined ? entry.text : cleanText(input.text);
        const done = input.done ?? entry.done;
        await updateEntry(tx, entry.id, { text, done, at: fx.now });
        await changed(tx, fx, actor, item);
        return await entryOf(tx, item.id, entry.id);
      });
    },

    /** Removes an entry; the rest close up in their order. */
    async remove(actor: Actor, projectId: number, itemId: number, entryId: number): Promise<void> {
      await runAction(ctx, CHANGED, async (tx, fx) => {
        const item = await editable(tx, actor, projectId, itemId);
        const entry = await entryOf(tx, item.id, entryId);
        await deleteEntry(tx, entry.id);
        await placeEntries(tx, (await listEntries(tx, item.id)).map((e) => e.id), fx.now);
        await changed(tx, fx, actor, item);
      });
    },

    /** Puts the entries in the given order: `entryIds` must be exactly the item's entries. */
    reorder(
      actor: Actor,
      projectId: number,
      itemId: number,
      entryIds: number[],
    ): Promise<ChecklistEntryRow[]> {
      return runAction(ctx, CHANGED, async (tx, fx) => {
        const item = await editable(tx, actor, projectId, itemId);
        const entries = await place(tx, item, entryIds, fx.now);
        await changed(tx, fx, actor, item);
        return entries;
      });
    },

    /** Moves an entry one place up (-1) or down (1); at either end nothing changes. */
    move(
      actor: Actor,
      projectId: number,
      itemId: number,
      entryId: number,
      by: -1 | 1,
    ): Promise<ChecklistEntryRow[]> {
      return runAction(ctx, CHANGED, async (tx, fx) => {
        const item = await editable(tx, actor, projectId, itemId);
        const entry = await entryOf(tx, item.id, entryId);
        const ids = (await listEntries(tx, item.id)).map((e) => e.id);
        const from = ids.indexOf(entry.id);
        const to = from + by;
        if (to < 0 || to >= ids.length) {
          fx.unchanged();
          return await listEntries(tx, item.id);
        }
        ids.splice(from, 1);
        ids.splice(to, 0, entry.id);
        const entries = await place(tx, item, ids, fx.now);
        await changed(tx, fx, actor, item);
        return entries;
      });
    },
  };
}

/** The checklist operations' type. */
export type Checklists = ReturnType<typeof createChecklists>;
