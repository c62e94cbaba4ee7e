/**
 * The trash in storage. A deleted item of the eight kinds keeps its row (`deleted_at`,
 * `deleted_by`) until it is restored or purged. Purging deletes the row for good with what
 * names it (attachment links, activity, notifications; search rows go by trigger), in batches
 * the caller commits one at a time. Deleted projects are listed, restored, and purged table by
 * table in the same bounded way.
 */
import type { StatementSync } from "node:sqlite";
import type { AttachableType } from "./files.ts";
import type { Database } from "./sqlite.ts";

/** Statements a purge runs for every row, compiled once per database. */
const statements = new WeakMap<Database, Map<string, StatementSync>>();

function prepared(db: Database, sql: string): StatementSync {
  let cache = statements.get(db);
  if (!cache) statements.set(db, cache = new Map());
  let stmt = cache.get(sql);
  if (!stmt) cache.set(sql, stmt = db.sql.prepare(sql));
  return stmt;
}

/** The kinds of item a project's trash holds (the activity `subjectType` names). */
export type TrashType =
  | "thread"
  | "comment"
  | "note"
  | "message"
  | "item"
  | "file"
  | "event"
  | "meeting";

/** Every trash type, in the contract's order. */
export const TRASH_TYPES: readonly TrashType[] = [
  "thread",
  "comment",
  "note",
  "message",
  "item",
  "file",
  "event",
  "meeting",
];

interface Kind {
  table: string;
  /** The entry's title, over alias `t`. */
  title: string;
  /** The author, creator or uploader column. */
  owner: string;
  /** When a deleted row is a trash entry of its own (not gone with another item). */
  listed: string;
  attachable: boolean;
}

const KINDS: Record<TrashType, Kind> = {
  thread: { table: "threads", title: "t.title", owner: "author_id", listed: "1", attachable: true },
  comment: {
    table: "comments",
    title: "substr(t.body, 1, 80)",
    owner: "author_id",
    listed: "t.deleted_with_thread = 0",
    attachable: true,
  },
  note: { table: "notes", title: "t.title", owner: "author_id", listed: "1", attachable: false },
  message: {
    table: "chat_messages",
    title: "substr(t.text, 1, 80)",
    owner: "author_id",
    listed: "1",
    attachable: true,
  },
  item: {
    table: "todo_items",
    title: "t.title",
    owner: "creator_id",
    listed: "1",
    attachable: true,
  },
  file: {
    table: "files",
    title: "t.name",
    owner: "uploader_id",
    listed: "t.deleted_with_subject = 0",
    attachable: false,
  },
  event: {
    table: "calendar_events",
    title: "t.title",
    owner: "creator_id",
    listed: "1",
    attachable: false,
  },
  meeting: {
    table: "meetings",
    title: "t.title",
    owner: "creator_id",
    listed: "1",
    attachable: false,
  },
};

/** A trash entry: a deleted item that is restorable on its own. */
export interface TrashRow {
  type: TrashType;
  id: number;
  projectId: number;
  title: string;
  deletedAt: string;
  /** Null for items deleted before the trash existed. */
  deletedBy: number | null;
  /** Its author, creator or uploader. */
  ownerId: number;
}

interface RawTrash {
  type: TrashType;
  id: number;
  project_id: number;
  title: string;
  deleted_at: string;
  deleted_by: number | null;
  owner_id: number;
}

function toTrash(r: RawTrash): TrashRow {
  return {
    type: r.type,
    id: r.id,
    projectId: r.project_id,
    title: r.title,
    deletedAt: r.deleted_at,
    deletedBy: r.deleted_by,
    ownerId: r.owner_id,
  };
}

/** The trash entries of one kind (the type is a constant of ours, never input). */
function entriesOf(type: TrashType): string {
  const k = KINDS[type];
  return `SELECT '${type}' AS type, t.id, t.project_id, ${k.title} AS title, t.deleted_at,
    t.deleted_by, t.${k.owner} AS owner_id FROM ${k.table} t
    WHERE t.deleted_at IS NOT NULL AND ${k.listed}`;
}

/** A page of a project's trash, most recently deleted first (then id, descending). */
export function listTrash(
  db: Database,
  projectId: number,
  page: { limit: number; offset: number },
): { items: TrashRow[]; total: number } {
  const all = TRASH_TYPES.map((type) => `${entriesOf(type)} AND t.project_id = :project`)
    .join(" UNION ALL ");
  const items = (db.sql.prepare(
    `SELECT * FROM (${all}) ORDER BY deleted_at DESC, id DESC, type DESC LIMIT :limit OFFSET :offset`,
  ).all({ project: projectId, limit: page.limit, offset: page.offset }) as unknown as RawTrash[])
    .map(toTrash);
  const { n } = db.sql.prepare(`SELECT count(*) AS n FROM (${all})`).get({
    project: projectId,
  }) as { n: number };
  return { items, total: n };
}

/** One trash entry of a project, or null when that item is live, gone, or went with another. */
export function findTrashed(
  db: Database,
  projectId: number,
  ref: { type: TrashType; id: number },
): TrashRow | null {
  const r = db.sql.prepare(`${entriesOf(ref.type)} AND t.project_id = ? AND t.id = ?`)
    .get(projectId, ref.id) as RawTrash | undefined;
  return r ? toTrash(r) : null;
}

/** Takes an item out of the trash (its `updated_at` untouched). */
export function restoreRow(db: Database, ref: { type: TrashType; id: number }): void {
  const extra = ref.type === "comment"
    ? ", deleted_with_thread = 0"
    : ref.type === "file"
    ? ", deleted_with_subject = 0"
    : "";
  db.sql.prepare(
    `UPDATE ${KINDS[ref.type].table} SET deleted_at = NULL, deleted_by = NULL${extra} WHERE id = ?`,
  ).run(ref.id);
}

/** Brings back the comments that went to the trash with their thread; returns their ids. */
export function restoreThreadComments(db: Database, threadId: number): number[] {
  return (db.sql.prepare(
    `UPDATE comments SET deleted_at = NULL, deleted_by = NULL, deleted_with_thread = 0
     WHERE thread_id = ? AND deleted_with_thread = 1 RETURNING id`,
  ).all(threadId) as Array<{ id: number }>).map((r) => r.id);
}

/** Whether the thread of a comment is deleted. */
export function threadOfCommentDeleted(db: Database, commentId: number): boolean {
  const r = db.sql.prepare(
    "SELECT t.deleted_at FROM comments c JOIN threads t ON t.id = c.thread_id WHERE c.id = ?",
  ).get(commentId) as { deleted_at: string | null } | undefined;
  return r !== undefined && r.deleted_at !== null;
}

/**
 * Brings back the files that went to the trash with a subject (not those deleted on their
 * own) and that `subjects` link: a restored item has its attachments again.
 */
export function restoreLinkedFiles(
  db: Database,
  subjects: Array<{ type: AttachableType; id: number }>,
): void {
  const stmt = db.sql.prepare(
    `UPDATE files SET deleted_at = NULL, deleted_by = NULL, deleted_with_subject = 0
     WHERE deleted_with_subject = 1 AND deleted_at IS NOT NULL
     AND id IN (SELECT file_id FROM attachments WHERE subject_type = ? AND subject_id = ?)`,
  );
  for (const s of subjects) stmt.run(s.type, s.id);
}

/**
 * Puts a restored to-do item back at its old index in its column (last when the column is
 * shorter now), renumbering the column 0..n-1. Items whose index changes get `updated_at` =
 * `at`, as on any move; the restored item keeps its own.
 */
export function restoreItemPlace(db: Database, itemId: number, at: string): void {
  const item = db.sql.prepare("SELECT column_id, order_index FROM todo_items WHERE id = ?")
    .get(itemId) as { column_id: number; order_index: number } | undefined;
  if (!item) return;
  const ids = (db.sql.prepare(
    `SELECT id FROM todo_items WHERE column_id = ? AND deleted_at IS NULL AND id <> ?
     ORDER BY order_index, id`,
  ).all(item.column_id, itemId) as Array<{ id: number }>).map((r) => r.id);
  ids.splice(Math.min(Math.max(0, item.order_index), ids.length), 0, itemId);
  const place = db.sql.prepare(
    `UPDATE todo_items SET order_index = :index,
       updated_at = CASE WHEN id = :restored OR order_index = :index THEN updated_at ELSE :at END
     WHERE id = :id`,
  );
  ids.forEach((id, index) => place.run({ index, restored: itemId, at, id }));
}

/** A file of a project, live or deleted, with its stored name; null when there is none. */
export function findAnyFile(
  db: Database,
  projectId: number,
  fileId: number,
): { id: number; storedName: string } | null {
  const r = db.sql.prepare("SELECT id, stored_name FROM files WHERE id = ? AND project_id = ?")
    .get(fileId, projectId) as { id: number; stored_name: string } | undefined;
  return r ? { id: r.id, storedName: r.stored_name } : null;
}

/** An SQL condition true when the subject of attachment row `a` still exists (live or deleted). */
const SUBJECT_EXISTS = `(CASE a.subject_type
  WHEN 'thread' THEN EXISTS (SELECT 1 FROM threads s WHERE s.id = a.subject_id)
  WHEN 'comment' THEN EXISTS (SELECT 1 FROM comments s WHERE s.id = a.subject_id)
  WHEN 'message' THEN EXISTS (SELECT 1 FROM chat_messages s WHERE s.id = a.subject_id)
  WHEN 'item' THEN EXISTS (SELECT 1 FROM todo_items s WHERE s.id = a.subject_id)
  ELSE 0 END)`;

/**
 * The order in which one sweep purges: a file gone with a subject waits until no item,
 * live or trashed, links it, so files come after every item that can link one.
 */
const PURGE_ORDER: readonly TrashType[] = [
  "comment",
  "thread",
  "note",
  "message",
  "item",
  "event",
  "meeting",
  "file",
];

/**
 * Ids of rows of `type` deleted at or before `cutoff`, oldest first. A thread's comments that
 * went with it are purged with the thread (in one transaction, so a restore never finds a thread
 * without them); a file gone with a subject waits until nothing links it.
 */
function expiredIds(db: Database, type: TrashType, cutoff: string, limit: number): number[] {
  const extra = type === "comment"
    ? "AND t.deleted_with_thread = 0"
    : type === "file"
    ? `AND (t.deleted_with_subject = 0 OR NOT EXISTS (SELECT 1 FROM attachments a
         WHERE a.file_id = t.id AND ${SUBJECT_EXISTS}))`
    : "";
  return (prepared(
    db,
    `SELECT t.id FROM ${KINDS[type].table} t WHERE t.deleted_at IS NOT NULL
     AND t.deleted_at <= ? ${extra} ORDER BY t.deleted_at, t.id LIMIT ?`,
  ).all(cutoff, limit) as Array<{ id: number }>).map((r) => r.id);
}

/**
 * Deletes the rows that name an item about to be purged: its attachment links, activity and
 * notifications (ids are reused once the highest row goes, and a new item must not inherit
 * them). A live file uploaded to it forgets the subject (`uploaded_to_id` 0 names none) so
 * that it still goes with the last item linking it.
 */
function purgeDependants(db: Database, type: TrashType, id: number): void {
  if (KINDS[type].attachable) {
    prepared(db, "DELETE FROM attachments WHERE subject_type = ? AND subject_id = ?")
      .run(type, id);
    prepared(
      db,
      "UPDATE files SET uploaded_to_id = 0 WHERE uploaded_to_type = ? AND uploaded_to_id = ?",
    ).run(type, id);
  }
  prepared(db, "DELETE FROM activity WHERE subject_type = ? AND subject_id = ?").run(type, id);
  prepared(db, "DELETE FROM notifications WHERE subject_type = ? AND subject_id = ?")
    .run(type, id);
}

/**
 * Deletes one item for good with what names it (a thread with all its comments); returns the
 * stored name of a purged file, whose bytes the caller removes after the commit.
 */
export function purgeItem(db: Database, type: TrashType, id: number): string | null {
  if (type === "thread") {
    const comments = prepared(db, "SELECT id FROM comments WHERE thread_id = ?")
      .all(id) as Array<{ id: number }>;
    for (const c of comments) purgeDependants(db, "comment", c.id);
  }
  purgeDependants(db, type, id);
  const stored = type === "file"
    ? (prepared(db, "SELECT stored_name FROM files WHERE id = ?").get(id) as
      | { stored_name: string }
      | undefined)?.stored_name ?? null
    : null;
  prepared(db, `DELETE FROM ${KINDS[type].table} WHERE id = ?`).run(id);
  return stored;
}

/** How much one transaction of a purge may do. */
export interface PurgeBudget {
  /** Rows at most. */
  limit: number;
  /** Asked before each further item (or chunk of rows): false ends the transaction early. */
  more(): boolean;
}

/**
 * Purges up to about `budget.limit` rows of items deleted at or before `cutoff`, kind by kind
 * (a thread counts with its comments; one larger thread still goes whole), stopping early when
 * `budget.more()` says so. Returns how many items went and the stored names of purged files
 * (none went only when nothing is left to purge). The caller runs it in one transaction.
 */
export function purgeExpired(
  db: Database,
  cutoff: string,
  budget: PurgeBudget,
): { purged: number; storedNames: string[] } {
  const limit = budget.limit;
  let rows = 0;
  let purged = 0;
  const storedNames: string[] = [];
  const commentsOf = prepared(db, "SELECT count(*) AS n FROM comments WHERE thread_id = ?");
  for (const type of PURGE_ORDER) {
    if (rows >= limit) break;
    for (const id of expiredIds(db, type, cutoff, limit - rows)) {
      if (purged > 0 && !budget.more()) return { purged, storedNames };
      const weight = type === "thread" ? 1 + (commentsOf.get(id) as { n: number }).n : 1;
      if (rows > 0 && rows + weight > limit) return { purged, storedNames };
      const stored = purgeItem(db, type, id);
      if (stored !== null) storedNames.push(stored);
      rows += weight;
      purged++;
    }
  }
  return { purged, storedNames };
}

/** A deleted project. */
export interface DeletedProjectRow {
  id: number;
  name: string;
  deletedAt: string;
  deletedBy: number | null;
}

interface RawDeletedProject {
  id: number;
  name: string;
  deleted_at: string;
  deleted_by: number | null;
}

// A project still being imported is hidden the same way, but is no trash (migration 014).
const DELETED_PROJECTS = `SELECT p.id, p.name, p.deleted_at, p.deleted_by FROM projects p
  WHERE p.deleted_at IS NOT NULL AND p.purge_started_at IS NULL AND p.importing_since IS NULL`;

function toDeletedProject(r: RawDeletedProject): DeletedProjectRow {
  return { id: r.id, name: r.name, deletedAt: r.deleted_at, deletedBy: r.deleted_by };
}

/** A page of deleted projects not yet being purged, most recently deleted first. */
export function listDeletedProjects(
  db: Database,
  page: { limit: number; offset: number },
): { items: DeletedProjectRow[]; total: number } {
  const items = (db.sql.prepare(
    `${DELETED_PROJECTS} ORDER BY p.deleted_at DESC, p.id DESC LIMIT ? OFFSET ?`,
  ).all(page.limit, page.offset) as unknown as RawDeletedProject[]).map(toDeletedProject);
  const { n } = db.sql.prepare(`SELECT count(*) AS n FROM (${DELETED_PROJECTS})`).get() as {
    n: number;
  };
  return { items, total: n };
}

/** A deleted project that can still be restored, or null. */
export function findDeletedProject(db: Database, id: number): DeletedProjectRow | null {
  const r = db.sql.prepare(`${DELETED_PROJECTS} AND p.id = ?`).get(id) as
    | RawDeletedProject
    | undefined;
  return r ? toDeletedProject(r) : null;
}

/** Takes a project out of the trash (its `updated_at` untouched). */
export function restoreProjectRow(db: Database, id: number): void {
  db.sql.prepare("UPDATE projects SET deleted_at = NULL, deleted_by = NULL WHERE id = ?").run(id);
}

/** Ids of projects deleted at or before `cutoff` (those already being purged first). */
export function expiredProjectIds(db: Database, cutoff: string): number[] {
  return (db.sql.prepare(
    `SELECT id FROM projects WHERE deleted_at IS NOT NULL AND deleted_at <= ?
     AND importing_since IS NULL ORDER BY purge_started_at IS NULL, deleted_at, id`,
  ).all(cutoff) as Array<{ id: number }>).map((r) => r.id);
}

/**
 * The tables a project's rows are deleted from, children before their parents (comments
 * before threads, checklist entries before items, items before columns and milestones), so
 * that no delete cascades far.
 */
const KNOWN_PROJECT_TABLES = [
  "attachments",
  "comments",
  "threads",
  "notes",
  "chat_messages",
  "meetings",
  "calendar_events",
  "todo_checklist_entries",
  "todo_items",
  "todo_columns",
  "milestones",
  "files",
  "activity",
  "notifications",
  "project_events",
];

/** Rows deleted per statement of a project's purge, between two checks of the budget. */
const PROJECT_CHUNK = 100;

/** A table holding a project's rows, and the column naming the project. */
interface ProjectTable {
  table: string;
  column: string;
}

/**
 * Every rowid table with a foreign key to `projects`: the known ones in their order, then any
 * other (a table added later is purged in batches too, instead of in one cascade at the end).
 */
function projectTables(db: Database): ProjectTable[] {
  const found = (prepared(
    db,
    `SELECT m.name AS name, f."from" AS column FROM sqlite_schema m
     JOIN pragma_foreign_key_list(m.name) f ON f."table" = 'projects'
     JOIN pragma_table_list(m.name) l ON l.wr = 0
     WHERE m.type = 'table' ORDER BY m.name`,
  ).all() as Array<{ name: string; column: string }>).map((r) => ({
    table: r.name,
    column: r.column,
  }));
  const rank = (t: ProjectTable) => {
    const i = KNOWN_PROJECT_TABLES.indexOf(t.table);
    return i < 0 ? KNOWN_PROJECT_TABLES.length : i;
  };
  return found.toSorted((a, b) => rank(a) - rank(b));
}

/**
 * Deletes rows of an expired deleted project within `budget` (marking it as being purged,
 * after which it cannot be restored); returns whether rows are left. Nothing happens (null)
 * when the project is not deleted at or before `cutoff`: it was restored meanwhile, or is
 * already gone.
 */
export function purgeProjectRows(
  db: Database,
  projectId: number,
  options: { cutoff: string; at: string; budget: PurgeBudget },
): { rowsLeft: boolean } | null {
  const marked = prepared(
    db,
    `UPDATE projects SET purge_started_at = coalesce(purge_started_at, ?)
     WHERE id = ? AND deleted_at IS NOT NULL AND deleted_at <= ?
     AND importing_since IS NULL`,
  ).run(options.at, projectId, options.cutoff);
  if (Number(marked.changes) === 0) return null;
  return { rowsLeft: deleteProjectRowsWithin(db, projectId, options.budget) };
}

/**
 * Deletes rows of a project, table by table, within `budget`; returns whether rows are left.
 * For a purge, and for an import that failed or that a crash cut short.
 */
export function deleteProjectRowsWithin(
  db: Database,
  projectId: number,
  budget: PurgeBudget,
): boolean {
  const { limit } = budget;
  let deleted = 0;
  for (const { table, column } of projectTables(db)) {
    while (true) {
      if (deleted >= limit || (deleted > 0 && !budget.more())) return true;
      const chunk = Math.min(PROJECT_CHUNK, limit - deleted);
      const { changes } = prepared(
        db,
        `DELETE FROM "${table}" WHERE rowid IN
         (SELECT rowid FROM "${table}" WHERE "${column}" = ? LIMIT ?)`,
      ).run(projectId, chunk);
      deleted += Number(changes);
      if (Number(changes) < chunk) break;
    }
  }
  return false;
}

/**
 * Deletes a purged project's own row and memberships (a small table without rowids); its other
 * rows are gone by then.
 */
export function deleteProjectRow(db: Database, projectId: number): void {
  prepared(db, "DELETE FROM project_members WHERE project_id = ?").run(projectId);
  prepared(db, "DELETE FROM projects WHERE id = ? AND purge_started_at IS NOT NULL")
    .run(projectId);
}
