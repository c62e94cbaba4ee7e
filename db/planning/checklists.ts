/** Storage of to-do checklists: each item's ordered entries (migration 016). */
import { dialect } from "../kernel/dialect.ts";
import type { Queries } from "../kernel/engine.ts";

/** A checklist entry. */
export interface ChecklistEntryRow {
  id: number;
  itemId: number;
  text: string;
  done: boolean;
  position: number;
  createdAt: string;
  updatedAt: string;
}

/** How much of an item's checklist is done. */
export interface ChecklistSummary {
  done: number;
  total: number;
}

type RawEntry = {
  id: number;
  item_id: number;
  text: string;
  done: number;
  position: number;
  created_at: string;
  updated_at: string;
};

const SELECT =
  "SELECT id, item_id, text, done, position, created_at, updated_at FROM todo_checklist_entries";

function toEntry(r: RawEntry): ChecklistEntryRow {
  return {
    id: r.id,
    itemId: r.item_id,
    text: r.text,
    done: r.done === 1,
    position: r.position,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** An item's entries in order. */
export async function listEntries(q: Queries, itemId: number): Promise<ChecklistEntryRow[]> {
  return (await q.all<RawEntry>(`${SELECT} WHERE item_id = ? ORDER BY position, id`, [itemId]))
    .map(toEntry);
}

/** The entries of several items, each item's in order. */
export async function entriesOfItems(
  q: Queries,
  itemIds: number[],
): Promise<Map<number, ChecklistEntryRow[]>> {
  const found = new Map<number, ChecklistEntryRow[]>();
  if (itemIds.length === 0) return found;
  const rows = await q.all<RawEntry>(
    `${SELECT} WHERE item_id IN (${dialect(q).intsOf("?")}) ORDER BY item_id, position, id`,
    [JSON.stringify(itemIds)],
  );
  for (const r of rows) {
    const list = found.get(r.item_id) ?? [];
    list.push(toEntry(r));
    found.set(r.item_id, list);
  }
  return found;
}

/** An entry of an item. */
export async function findEntry(
  q: Queries,
  itemId: number,
  id: number,
): Promise<ChecklistEntryRow | null> {
  const r = await q.get<RawEntry>(`${SELECT} WHERE id = ? AND item_id = ?`, [id, itemId]);
  return r ? toEntry(r) : null;
}

/** How many entries an item has. */
export async function countEntries(q: Queries, itemId: number): Promise<number> {
  return (await q.get<{ n: number }>(
    "SELECT count(*) AS n FROM todo_checklist_entries WHERE item_id = ?",
    [itemId],
  ))!.n;
}

/** Done and total entries per item (items without entries are absent). */
export async function summariesOf(
  q: Queries,
  itemIds: number[],
): Promise<Map<number, ChecklistSummary>> {
  const found = new Map<number, ChecklistSummary>();
  if (itemIds.length === 0) return found;
  const rows = await q.all<{ item_id: number; done: number; total: number }>(
    `SELECT item_id, CAST(sum(done) AS bigint) AS done, count(*) AS total
     FROM todo_checklist_entries WHERE item_id IN (${dialect(q).intsOf("?")}) GROUP BY item_id`,
    [JSON.stringify(itemIds)],
  );
  for (const r of rows) found.set(r.item_id, { done: r.done, total: r.total });
  return found;
}

/** Inserts an entry; returns its id. */
export async function insertEntry(
  q: Queries,
  e: {
    projectId: number;
    itemId: number;
    text: string;
    done: boolean;
    position: number;
    createdAt: string;
    updatedAt: string;
  },
): Promise<number> {
  return (await q.get<{ id: number }>(
    `INSERT INTO todo_checklist_entries (project_id, item_id, text, done, position, created_at,
     updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    [e.projectId, e.itemId, e.text, e.done ? 1 : 0, e.position, e.createdAt, e.updatedAt],
  ))!.id;
}

/** Changes an entry's text and whether it is done. */
export async function updateEntry(
  q: Queries,
  id: number,
  e: { text: string; done: boolean; at: string },
): Promise<void> {
  await q.run(
    "UPDATE todo_checklist_entries SET text = ?, done = ?, updated_at = ? WHERE id = ?",
    [e.text, e.done ? 1 : 0, e.at, id],
  );
}

/** Deletes an entry. */
export async function deleteEntry(q: Queries, id: number): Promise<void> {
  await q.run("DELETE FROM todo_checklist_entries WHERE id = ?", [id]);
}

/**
 * Places an item's entries at positions 0..n-1 in the order of `ids`; an entry whose position
 * changes gets `updated_at` = `at`.
 */
export async function placeEntries(q: Queries, ids: number[], at: string): Promise<void> {
  for (const [position, id] of ids.entries()) {
    await q.run(
      `UPDATE todo_checklist_entries SET position = ?1,
         updated_at = CASE WHEN position = ?1 THEN updated_at ELSE ?2 END
       WHERE id = ?3`,
      [position, at, id],
    );
  }
}
