/** Storage of to-do checklists: each item's ordered entries (migration 016). */
import type { Database } from "./sqlite.ts";

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

interface RawEntry {
  id: number;
  item_id: number;
  text: string;
  done: number;
  position: number;
  created_at: string;
  updated_at: string;
}

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
export function listEntries(db: Database, itemId: number): ChecklistEntryRow[] {
  return (db.sql.prepare(`${SELECT} WHERE item_id = ? ORDER BY position, id`).all(
    itemId,
  ) as unknown as RawEntry[]).map(toEntry);
}

/** The entries of several items, each item's in order. */
export function entriesOfItems(db: Database, itemIds: number[]): Map<number, ChecklistEntryRow[]> {
  const found = new Map<number, ChecklistEntryRow[]>();
  if (itemIds.length === 0) return found;
  const rows = db.sql.prepare(
    `${SELECT} WHERE item_id IN (SELECT value FROM json_each(?)) ORDER BY item_id, position, id`,
  ).all(JSON.stringify(itemIds)) as unknown as RawEntry[];
  for (const r of rows) {
    const list = found.get(r.item_id) ?? [];
    list.push(toEntry(r));
    found.set(r.item_id, list);
  }
  return found;
}

/** An entry of an item. */
export function findEntry(db: Database, itemId: number, id: number): ChecklistEntryRow | null {
  const r = db.sql.prepare(`${SELECT} WHERE id = ? AND item_id = ?`).get(id, itemId) as
    | RawEntry
    | undefined;
  return r ? toEntry(r) : null;
}

/** How many entries an item has. */
export function countEntries(db: Database, itemId: number): number {
  return (db.sql.prepare("SELECT count(*) AS n FROM todo_checklist_entries WHERE item_id = ?")
    .get(itemId) as { n: number }).n;
}

/** Done and total entries per item (items without entries are absent). */
export function summariesOf(db: Database, itemIds: number[]): Map<number, ChecklistSummary> {
  const found = new Map<number, ChecklistSummary>();
  if (itemIds.length === 0) return found;
  const rows = db.sql.prepare(
    `SELECT item_id, sum(done) AS done, count(*) AS total FROM todo_checklist_entries
     WHERE item_id IN (SELECT value FROM json_each(?)) GROUP BY item_id`,
  ).all(JSON.stringify(itemIds)) as Array<{ item_id: number; done: number; total: number }>;
  for (const r of rows) found.set(r.item_id, { done: r.done, total: r.total });
  return found;
}

/** Inserts an entry; returns its id. */
export function insertEntry(
  db: Database,
  e: {
    projectId: number;
    itemId: number;
    text: string;
    done: boolean;
    position: number;
    createdAt: string;
    updatedAt: string;
  },
): number {
  return (db.sql.prepare(
    `INSERT INTO todo_checklist_entries (project_id, item_id, text, done, position, created_at,
     updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  ).get(
    e.projectId,
    e.itemId,
    e.text,
    e.done ? 1 : 0,
    e.position,
    e.createdAt,
    e.updatedAt,
  ) as { id: number }).id;
}

/** Changes an entry's text and whether it is done. */
export function updateEntry(
  db: Database,
  id: number,
  e: { text: string; done: boolean; at: string },
): void {
  db.sql.prepare(
    "UPDATE todo_checklist_entries SET text = ?, done = ?, updated_at = ? WHERE id = ?",
  )
    .run(e.text, e.done ? 1 : 0, e.at, id);
}

/** Deletes an entry. */
export function deleteEntry(db: Database, id: number): void {
  db.sql.prepare("DELETE FROM todo_checklist_entries WHERE id = ?").run(id);
}

/**
 * Places an item's entries at positions 0..n-1 in the order of `ids`; an entry whose position
 * changes gets `updated_at` = `at`.
 */
export function placeEntries(db: Database, ids: number[], at: string): void {
  const stmt = db.sql.prepare(
    `UPDATE todo_checklist_entries SET position = :position,
       updated_at = CASE WHEN position = :position THEN updated_at ELSE :at END
     WHERE id = :id`,
  );
  ids.forEach((id, position) => stmt.run({ position, at, id }));
}
