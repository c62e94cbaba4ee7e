/**
 * The trash in storage. A deleted item of the eight kinds keeps its row (`deleted_at`,
 * `deleted_by`) until it is restored or purged. Purging deletes the row for good with what
 * names it (attachment links, activity, notifications; search rows go by trigger), in batches
 * the caller commits one at a time. Deleted projects are listed, restored, and purged table by
 * table in the same bounded way.
 */
import type { PerEngine } from "../kernel/dialect.ts";
import type { Queries } from "../kernel/engine.ts";
import type { AttachableType } from "../kernel/subjects.ts";

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
  /**
   * When a deleted row is a trash entry of its own (not gone with another item), for kinds
   * where that is not always so.
   */
  listed?: string;
  attachable: boolean;
}

const KINDS: Record<TrashType, Kind> = {
  thread: { table: "threads", title: "t.title", owner: "author_id", attachable: true },
  comment: {
    table: "comments",
    title: "substr(t.body, 1, 80)",
    owner: "author_id",
    listed: "t.deleted_with_thread = 0",
    attachable: true,
  },
  note: { table: "notes", title: "t.title", owner: "author_id", attachable: false },
  message: {
    table: "chat_messages",
    title: "substr(t.text, 1, 80)",
    owner: "author_id",
    attachable: true,
  },
  item: {
    table: "todo_items",
    title: "t.title",
    owner: "creator_id",
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
    attachable: false,
  },
  meeting: {
    table: "meetings",
    title: "t.title",
    owner: "creator_id",
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

type RawTrash = {
  type: TrashType;
  id: number;
  project_id: number;
  title: string;
  deleted_at: string;
  deleted_by: number | null;
  owner_id: number;
};

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
    WHERE t.deleted_at IS NOT NULL${k.listed ? ` AND ${k.listed}` : ""}`;
}

/** A page of a project's trash, most recently deleted first (then id, descending). */
export async function listTrash(
  q: Queries,
  projectId: number,
  page: { limit: number; offset: number },
): Promise<{ items: TrashRow[]; total: number }> {
  // ?1 is the project in every part; ?2 and ?3 the page.
  const all = TRASH_TYPES.map((type) => `${entriesOf(type)} AND t.project_id = ?1`)
    .join(" UNION ALL ");
  const items = (await q.all<RawTrash>(
    `SELECT * FROM (${all}) AS x ORDER BY deleted_at DESC, id DESC, type DESC LIMIT ?2 OFFSET ?3`,
    [projectId, page.limit, page.offset],
  )).map(toTrash);
  const { n } = (await q.get<{ n: number }>(`SELECT count(*) AS n FROM (${all}) AS x`, [
    projectId,
  ]))!;
  return { items, total: n };
}

/** One trash entry of a project, or null when that item is live, gone, or went with another. */
export async function findTrashed(
  q: Queries,
  projectId: number,
  ref: { type: TrashType; id: number },
): Promise<TrashRow | null> {
  const r = await q.get<RawTrash>(`${entriesOf(ref.type)} AND t.project_id = ? AND t.id = ?`, [
    projectId,
    ref.id,
  ]);
  return r ? toTrash(r) : null;
}

/** Takes an item out of the trash (its `updated_at` untouched). */
export async function restoreRow(
  q: Queries,
  ref: { type: TrashType; id: number },
): Promise<void> {
  const extra = ref.type === "comment"
    ? ", deleted_with_thread = 0"
    : ref.type === "file"
    ? ", deleted_with_subject = 0"
    : "";
  await q.run(
    `UPDATE ${KINDS[ref.type].table} SET deleted_at = NULL, deleted_by = NULL${extra} WHERE id = ?`,
    [ref.id],
  );
}

/** Brings back the comments that went to the trash with their thread; returns their ids. */
export async function restoreThreadComments(q: Queries, threadId: number): Promise<number[]> {
  return (await q.all<{ id: number }>(
    `UPDATE comments SET deleted_at = NULL, deleted_by = NULL, deleted_with_thread = 0
     WHERE thread_id = ? AND deleted_with_thread = 1 RETURNING id`,
    [threadId],
  )).map((r) => r.id);
}

/** Whether the thread of a comment is deleted. */
export async function threadOfCommentDeleted(q: Queries, commentId: number): Promise<boolean> {
  const r = await q.get<{ deleted_at: string | null }>(
    "SELECT t.deleted_at FROM comments c JOIN threads t ON t.id = c.thread_id WHERE c.id = ?",
    [commentId],
  );
  return r !== undefined && r.deleted_at !== null;
}

/**
 * Brings back the files that went to the trash with a subject (not those deleted on their
 * own) and that `subjects` link: a restored item has its attachments again.
 */
export async function restoreLinkedFiles(
  q: Queries,
  subjects: Array<{ type: AttachableType; id: number }>,
): Promise<void> {
  for (const s of subjects) {
    await q.run(
      `UPDATE files SET deleted_at = NULL, deleted_by = NULL, deleted_with_subject = 0
       WHERE deleted_with_subject = 1 AND deleted_at IS NOT NULL
       AND id IN (SELECT file_id FROM attachments WHERE subject_type = ? AND subject_id = ?)`,
      [s.type, s.id],
    );
  }
}

/**
 * Puts a restored to-do item back at its old index in its column (last when the column is
 * shorter now), renumbering the column 0..n-1. Items whose index changes get `updated_at` =
 * `at`, as on any move; the restored item keeps its own.
 */
export async function restoreItemPlace(q: Queries, itemId: number, at: string): Promise<void> {
  const item = await q.get<{ column_id: number; order_index: number }>(
    "SELECT column_id, order_index FROM todo_items WHERE id = ?",
    [itemId],
  );
  if (!item) return;
  const ids = (await q.all<{ id: number }>(
    `SELECT id FROM todo_items WHERE column_id = ? AND deleted_at IS NULL AND id <> ?
     ORDER BY order_index, id`,
    [item.column_id, itemId],
  )).map((r) => r.id);
  ids.splice(Math.min(Math.max(0, item.order_index), ids.length), 0, itemId);
  for (const [index, id] of ids.entries()) {
    await q.run(
      `UPDATE todo_items SET order_index = ?1,
         updated_at = CASE WHEN id = ?2 OR order_index = ?1 THEN updated_at ELSE ?3 END
       WHERE id = ?4`,
      [index, itemId, at, id],
    );
  }
}

/** A file of a project, live or deleted, with its stored name; null when there is none. */
export async function findAnyFile(
  q: Queries,
  projectId: number,
  fileId: number,
): Promise<{ id: number; storedName: string; live: boolean } | null> {
  const r = await q.get<{ id: number; stored_name: string; deleted_at: string | null }>(
    "SELECT id, stored_name, deleted_at FROM files WHERE id = ? AND project_id = ?",
    [fileId, projectId],
  );
  return r ? { id: r.id, storedName: r.stored_name, live: r.deleted_at === null } : null;
}

/** An SQL condition true when the subject of attachment row `a` still exists (live or deleted). */
const SUBJECT_EXISTS = `(CASE a.subject_type
  WHEN 'thread' THEN EXISTS (SELECT 1 FROM threads s WHERE s.id = a.subject_id)
  WHEN 'comment' THEN EXISTS (SELECT 1 FROM comments s WHERE s.id = a.subject_id)
  WHEN 'message' THEN EXISTS (SELECT 1 FROM chat_messages s WHERE s.id = a.subject_id)
  WHEN 'item' THEN EXISTS (SELECT 1 FROM todo_items s WHERE s.id = a.subject_id)
  ELSE false END)`;

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
async function expiredIds(
  q: Queries,
  type: TrashType,
  cutoff: string,
  limit: number,
): Promise<number[]> {
  const extra = type === "comment"
    ? "AND t.deleted_with_thread = 0"
    : type === "file"
    ? `AND (t.deleted_with_subject = 0 OR NOT EXISTS (SELECT 1 FROM attachments a
         WHERE a.file_id = t.id AND ${SUBJECT_EXISTS}))`
    : "";
  return (await q.all<{ id: number }>(
    `SELECT t.id FROM ${KINDS[type].table} t WHERE t.deleted_at IS NOT NULL
     AND t.deleted_at <= ? ${extra} ORDER BY t.deleted_at, t.id LIMIT ?`,
    [cutoff, limit],
  )).map((r) => r.id);
}

/**
 * Deletes the rows that name an item about to be purged: its attachment links, activity and
 * notifications (ids are reused once the highest row goes, and a new item must not inherit
 * them). A live file uploaded to it forgets the subject (`uploaded_to_id` 0 names none) so
 * that it still goes with the last item linking it.
 */
async function purgeDependants(q: Queries, type: TrashType, id: number): Promise<void> {
  if (KINDS[type].attachable) {
    await q.run("DELETE FROM attachments WHERE subject_type = ? AND subject_id = ?", [type, id]);
    await q.run(
      "UPDATE files SET uploaded_to_id = 0 WHERE uploaded_to_type = ? AND uploaded_to_id = ?",
      [type, id],
    );
  }
  await q.run("DELETE FROM activity WHERE subject_type = ? AND subject_id = ?", [type, id]);
  await q.run("DELETE FROM notifications WHERE subject_type = ? AND subject_id = ?", [type, id]);
}

/**
 * Deletes one item for good with what names it (a thread with all its comments); returns the
 * stored name of a purged file, whose bytes the caller removes after the commit.
 */
export async function purgeItem(
  q: Queries,
  type: TrashType,
  id: number,
): Promise<string | null> {
  if (type === "thread") {
    const comments = await q.all<{ id: number }>("SELECT id FROM comments WHERE thread_id = ?", [
      id,
    ]);
    for (const c of comments) await purgeDependants(q, "comment", c.id);
  }
  await purgeDependants(q, type, id);
  const stored = type === "file"
    ? (await q.get<{ stored_name: string }>("SELECT stored_name FROM files WHERE id = ?", [id]))
      ?.stored_name ?? null
    : null;
  await q.run(`DELETE FROM ${KINDS[type].table} WHERE id = ?`, [id]);
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
export async function purgeExpired(
  q: Queries,
  cutoff: string,
  budget: PurgeBudget,
): Promise<{ purged: number; storedNames: string[] }> {
  const limit = budget.limit;
  let rows = 0;
  let purged = 0;
  const storedNames: string[] = [];
  const commentsOf = async (threadId: number) =>
    (await q.get<{ n: number }>("SELECT count(*) AS n FROM comments WHERE thread_id = ?", [
      threadId,
    ]))!.n;
  for (const type of PURGE_ORDER) {
    if (rows >= limit) break;
    for (const id of await expiredIds(q, type, cutoff, limit - rows)) {
      if (purged > 0 && !budget.more()) return { purged, storedNames };
      const weight = type === "thread" ? 1 + await commentsOf(id) : 1;
      if (rows > 0 && rows + weight > limit) return { purged, storedNames };
      const stored = await purgeItem(q, type, id);
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

type RawDeletedProject = {
  id: number;
  name: string;
  deleted_at: string;
  deleted_by: number | null;
};

// A project still being imported is hidden the same way, but is no trash (migration 014).
const DELETED_PROJECTS = `SELECT p.id, p.name, p.deleted_at, p.deleted_by FROM projects p
  WHERE p.deleted_at IS NOT NULL AND p.purge_started_at IS NULL AND p.importing_since IS NULL`;

function toDeletedProject(r: RawDeletedProject): DeletedProjectRow {
  return { id: r.id, name: r.name, deletedAt: r.deleted_at, deletedBy: r.deleted_by };
}

/** A page of deleted projects not yet being purged, most recently deleted first. */
export async function listDeletedProjects(
  q: Queries,
  page: { limit: number; offset: number },
): Promise<{ items: DeletedProjectRow[]; total: number }> {
  const items = (await q.all<RawDeletedProject>(
    `${DELETED_PROJECTS} ORDER BY p.deleted_at DESC, p.id DESC LIMIT ? OFFSET ?`,
    [page.limit, page.offset],
  )).map(toDeletedProject);
  const { n } = (await q.get<{ n: number }>(
    `SELECT count(*) AS n FROM (${DELETED_PROJECTS}) AS x`,
  ))!;
  return { items, total: n };
}

/** A deleted project that can still be restored, or null. */
export async function findDeletedProject(
  q: Queries,
  id: number,
): Promise<DeletedProjectRow | null> {
  const r = await q.get<RawDeletedProject>(`${DELETED_PROJECTS} AND p.id = ?`, [id]);
  return r ? toDeletedProject(r) : null;
}

/** Takes a project out of the trash (its `updated_at` untouched). */
export async function restoreProjectRow(q: Queries, id: number): Promise<void> {
  await q.run("UPDATE projects SET deleted_at = NULL, deleted_by = NULL WHERE id = ?", [id]);
}

/** Ids of projects deleted at or before `cutoff` (those already being purged first). */
export async function expiredProjectIds(q: Queries, cutoff: string): Promise<number[]> {
  return (await q.all<{ id: number }>(
    `SELECT id FROM projects WHERE deleted_at IS NOT NULL AND deleted_at <= ?
     AND importing_since IS NULL ORDER BY purge_started_at IS NULL, deleted_at, id`,
    [cutoff],
  )).map((r) => r.id);
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
 * The tables with a foreign key to `projects` (the referencing column), by name, read from
 * each engine's catalog. `project_members` is left out: it has no rowid on SQLite (the
 * `WITHOUT ROWID` tables, `l.wr = 1`) and goes with the project's own row (`deleteProjectRow`).
 */
const PROJECT_TABLES: PerEngine = {
  sqlite: `SELECT m.name AS name, f."from" AS column FROM sqlite_schema m
     JOIN pragma_foreign_key_list(m.name) f ON f."table" = 'projects'
     JOIN pragma_table_list(m.name) l ON l.wr = 0
     WHERE m.type = 'table' ORDER BY m.name`,
  postgres: `SELECT t.relname::text AS name, a.attname::text AS column FROM pg_constraint c
     JOIN pg_class t ON t.oid = c.conrelid
     JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
     WHERE c.contype = 'f' AND c.confrelid = 'projects'::regclass
       AND t.relname <> 'project_members' ORDER BY t.relname`,
};

/**
 * Deletes up to `?2` rows of a table whose column equals `?1`, found by their row address (the
 * rowid on SQLite, the ctid on PostgreSQL): any table, whatever its key.
 */
function deleteChunk(kind: Queries["kind"], table: string, column: string): string {
  return kind === "postgres"
    ? `DELETE FROM "${table}" WHERE ctid = ANY(ARRAY(
         SELECT ctid FROM "${table}" WHERE "${column}" = ? LIMIT ?))`
    : `DELETE FROM "${table}" WHERE rowid IN
         (SELECT rowid FROM "${table}" WHERE "${column}" = ? LIMIT ?)`;
}

/**
 * Every table (but `project_members`) with a foreign key to `projects`: the known ones in their
 * order, then any other (a table added later is purged in batches too, instead of in one cascade
 * at the end).
 */
async function projectTables(q: Queries): Promise<ProjectTable[]> {
  const found = (await q.all<{ name: string; column: string }>(PROJECT_TABLES[q.kind]))
    .map((r) => ({
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
export async function purgeProjectRows(
  q: Queries,
  projectId: number,
  options: { cutoff: string; at: string; budget: PurgeBudget },
): Promise<{ rowsLeft: boolean } | null> {
  const marked = await q.run(
    `UPDATE projects SET purge_started_at = coalesce(purge_started_at, ?)
     WHERE id = ? AND deleted_at IS NOT NULL AND deleted_at <= ?
     AND importing_since IS NULL`,
    [options.at, projectId, options.cutoff],
  );
  if (marked.changes === 0) return null;
  return { rowsLeft: await deleteProjectRowsWithin(q, projectId, options.budget) };
}

/**
 * Deletes rows of a project, table by table, within `budget`; returns whether rows are left.
 * For a purge, and for an import that failed or that a crash cut short.
 */
export async function deleteProjectRowsWithin(
  q: Queries,
  projectId: number,
  budget: PurgeBudget,
): Promise<boolean> {
  const { limit } = budget;
  let deleted = 0;
  for (const { table, column } of await projectTables(q)) {
    while (true) {
      if (deleted >= limit || (deleted > 0 && !budget.more())) return true;
      const chunk = Math.min(PROJECT_CHUNK, limit - deleted);
      const { changes } = await q.run(deleteChunk(q.kind, table, column), [projectId, chunk]);
      deleted += changes;
      if (changes < chunk) break;
    }
  }
  return false;
}

/**
 * Deletes a purged project's own row and memberships (a small table without rowids); its other
 * rows are gone by then.
 */
export async function deleteProjectRow(q: Queries, projectId: number): Promise<void> {
  await q.run("DELETE FROM project_members WHERE project_id = ?", [projectId]);
  await q.run("DELETE FROM projects WHERE id = ? AND purge_started_at IS NOT NULL", [projectId]);
}
