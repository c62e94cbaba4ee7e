/**
 * Storage side of project export and import. Export reads every live row of a project in
 * pages (keyset on id) from an engine snapshot (`Engine.snapshot`), so the archive is
 * consistent however long the download takes while writers carry on. Import writes rows with every field given (timestamps, order, states) into a
 * hidden project over many short transactions, indexes it for search in creation order, then
 * shows it in one last short one.
 */
import { dialect, type Kind, perEngine, pgJsonArray } from "../kernel/dialect.ts";
import type { Queries } from "../kernel/engine.ts";
import type { SqlValue } from "../kernel/engine.ts";
import { ownerGone } from "../kernel/presence.ts";
import { subjectAlive } from "../kernel/subjects.ts";

// ---------------------------------------------------------------------------------------
// Reading (export). Every row type carries the emails of the users it names.

/** Row shapes of the paged kinds (snake_case columns as SQLite gives them). */
export type RawRow = Record<string, SqlValue>;

/** The project's own fields. */
export interface ArchiveProjectRow {
  id: number;
  name: string;
  description: string;
  archivedAt: string | null;
  createdByEmail: string;
  createdAt: string;
  updatedAt: string;
}

/** Reads a live project, or null. */
export async function readProject(
  q: Queries,
  projectId: number,
): Promise<ArchiveProjectRow | null> {
  const row = await q.get<RawRow>(
    `SELECT p.id, p.name, p.description, p.archived_at, u.email, p.created_at, p.updated_at
     FROM projects p JOIN users u ON u.id = p.created_by WHERE p.id = ? AND p.deleted_at IS NULL`,
    [projectId],
  );
  if (!row) return null;
  return {
    id: row.id as number,
    name: row.name as string,
    description: row.description as string,
    archivedAt: row.archived_at as string | null,
    createdByEmail: row.email as string,
    createdAt: row.created_at as string,
    updatedAt: row.updated_at as string,
  };
}

/** A member as the archive lists it. */
export interface ArchiveMemberRow {
  email: string;
  displayName: string;
  role: "owner" | "member" | "viewer";
}

/**
 * The members of a project, by email in code-point order (an order that survives a round trip,
 * whatever the database's collation).
 */
export async function readMembers(q: Queries, projectId: number): Promise<ArchiveMemberRow[]> {
  return (await q.all<{ email: string; display_name: string; role: ArchiveMemberRow["role"] }>(
    `SELECT u.email, u.display_name, m.role FROM project_members m JOIN users u ON u.id = m.user_id
     WHERE m.project_id = ? ORDER BY ${dialect(q).byteOrder("u.email")}`,
    [projectId],
  )).map((m) => ({ email: m.email, displayName: m.display_name, role: m.role }));
}

/** A stored file with its uploader's email and the live subject it was uploaded to. */
export interface ArchiveFileRow {
  id: number;
  projectId: number;
  name: string;
  storedName: string;
  contentType: string;
  size: number;
  source: "upload" | "attachment";
  uploaderEmail: string;
  uploadedTo: { type: string; id: number } | null;
  createdAt: string;
}

const FILE_COLUMNS = `f.id, f.project_id, f.name, f.stored_name, f.content_type, f.size, f.source,
  uf.email AS uploader_email,
  CASE WHEN f.uploaded_to_id IS NOT NULL AND ${
  subjectAlive("f", "uploaded_to")
} THEN f.uploaded_to_type END AS to_type,
  f.uploaded_to_id AS to_id, f.created_at`;

function toFile(row: RawRow): ArchiveFileRow {
  const type = row.to_type as string | null;
  return {
    id: row.id as number,
    projectId: row.project_id as number,
    name: row.name as string,
    storedName: row.stored_name as string,
    contentType: row.content_type as string,
    size: row.size as number,
    source: row.source as "upload" | "attachment",
    uploaderEmail: row.uploader_email as string,
    uploadedTo: type === null ? null : { type, id: row.to_id as number },
    createdAt: row.created_at as string,
  };
}

/** A meeting's invitees as a JSON array (text) of their emails in code-point order. */
const INVITEE_EMAILS = perEngine((d) =>
  d.kind === "sqlite"
    ? `(SELECT json_group_array(email) FROM (SELECT iu.email
      FROM meeting_invitees mi JOIN users iu ON iu.id = mi.user_id WHERE mi.meeting_id = m.id
      ORDER BY iu.email))`
    : `(SELECT ${pgJsonArray("iu.email", d.byteOrder("iu.email"))}
      FROM meeting_invitees mi JOIN users iu ON iu.id = mi.user_id WHERE mi.meeting_id = m.id)`
);

/** Refuses to explain a query on PostgreSQL: the plans tests read are SQLite's. */
function sqlitePlanOnly(q: Queries): void {
  if (q.kind !== "sqlite") throw new Error("Cannot show the query plan: only SQLite's is read");
}

/**
 * The paged reads, one per kind: live rows of a project with ids above `afterId`, by id,
 * at most `limit`. Emails of the users a row names come as `*_email` columns. The `+` before
 * `project_id` keeps SQLite off the project indexes: with them it would read and sort every
 * row of the project for each page; without, it walks the table by id from `afterId`.
 */
function pages(kind: Kind) {
  return {
    threads: `SELECT t.id, t.project_id, u.email AS author_email, t.title, t.body, t.category,
    t.pinned, (SELECT count(*) FROM comments c WHERE c.thread_id = t.id AND c.deleted_at IS NULL)
    AS comment_count, t.created_at, t.updated_at
    FROM threads t JOIN users u ON u.id = t.author_id
    WHERE +t.project_id = ? AND t.deleted_at IS NULL AND t.id > ? ORDER BY t.id LIMIT ?`,
    comments: `SELECT c.id, c.project_id, c.thread_id, u.email AS author_email, c.body,
    c.created_at, c.updated_at
    FROM comments c JOIN users u ON u.id = c.author_id
    JOIN threads th ON th.id = c.thread_id AND th.deleted_at IS NULL
    WHERE +c.project_id = ? AND c.deleted_at IS NULL AND c.id > ? ORDER BY c.id LIMIT ?`,
    notes: `SELECT n.id, n.project_id, u.email AS author_email, n.title, n.body, n.tags, n.pinned,
    n.created_at, n.updated_at FROM notes n JOIN users u ON u.id = n.author_id
    WHERE +n.project_id = ? AND n.deleted_at IS NULL AND n.id > ? ORDER BY n.id LIMIT ?`,
    chat: `SELECT m.id, m.project_id, u.email AS author_email, m.text, m.created_at, m.updated_at
    FROM chat_messages m JOIN users u ON u.id = m.author_id
    WHERE +m.project_id = ? AND m.deleted_at IS NULL AND m.id > ? ORDER BY m.id LIMIT ?`,
    columns: `SELECT c.id, c.project_id, c.name, c.key, c.position, c.created_at, c.updated_at
    FROM todo_columns c WHERE +c.project_id = ? AND c.id > ? ORDER BY c.id LIMIT ?`,
    items: `SELECT i.id, i.project_id, i.column_id, uc.email AS creator_email, i.title,
    i.description, ua.email AS assignee_email, i.priority, i.start_date, i.due_date, i.tags,
    i.order_index, i.completed, i.completed_at,
    (SELECT ms.id FROM milestones ms WHERE ms.id = i.milestone_id AND ms.deleted_at IS NULL)
    AS milestone_id, i.created_at, i.updated_at
    FROM todo_items i JOIN users uc ON uc.id = i.creator_id
    LEFT JOIN users ua ON ua.id = i.assignee_id
    WHERE +i.project_id = ? AND i.deleted_at IS NULL AND i.id > ? ORDER BY i.id LIMIT ?`,
    milestones: `SELECT m.id, m.project_id, u.email AS creator_email, m.title, m.description,
    m.due_date, (SELECT CASE WHEN count(*) = 0 THEN 0
        ELSE (100 * CAST(sum(i.completed) AS bigint)) / count(*) END
      FROM todo_items i WHERE i.milestone_id = m.id AND i.deleted_at IS NULL) AS progress,
    m.created_at, m.updated_at FROM milestones m JOIN users u ON u.id = m.creator_id
    WHERE +m.project_id = ? AND m.deleted_at IS NULL AND m.id > ? ORDER BY m.id LIMIT ?`,
    events: `SELECT e.id, e.project_id, u.email AS creator_email, e.title, e.description,
    e.start_at, e.end_at, e.all_day, e.created_at, e.updated_at
    FROM calendar_events e JOIN users u ON u.id = e.creator_id
    WHERE +e.project_id = ? AND e.deleted_at IS NULL AND e.id > ? ORDER BY e.id LIMIT ?`,
    meetings: `SELECT m.id, m.project_id, u.email AS creator_email, m.title, m.start_at, m.end_at,
    m.location, m.minutes, ${INVITEE_EMAILS[kind]} AS invitee_emails, m.created_at, m.updated_at
    FROM meetings m JOIN users u ON u.id = m.creator_id
    WHERE +m.project_id = ? AND m.deleted_at IS NULL AND m.id > ? ORDER BY m.id LIMIT ?`,
    files: `SELECT ${FILE_COLUMNS} FROM files f JOIN users uf ON uf.id = f.uploader_id
    WHERE +f.project_id = ? AND f.deleted_at IS NULL AND f.id > ? ORDER BY f.id LIMIT ?`,
    activity: `SELECT a.id, a.project_id, a.kind, u.email AS actor_email, a.subject_type,
    a.subject_id, a.summary, a.created_at FROM activity a JOIN users u ON u.id = a.actor_id
    WHERE +a.project_id = ? AND ${subjectAlive("a")} AND a.id > ? ORDER BY a.id LIMIT ?`,
  } as const;
}

const PAGES = { sqlite: pages("sqlite"), postgres: pages("postgres") };

/** The kinds read in pages. */
export type PagedKind = keyof ReturnType<typeof pages>;

/** One page of a kind's live rows (raw; files mapped by `fileFromRow`). */
export async function readPage(
  q: Queries,
  kind: PagedKind,
  page: { projectId: number; afterId: number; limit: number },
): Promise<RawRow[]> {
  return await q.all<RawRow>(PAGES[q.kind][kind], [page.projectId, page.afterId, page.limit]);
}

/** How SQLite runs a kind's page query: the top-level steps of its plan, for tests. */
export async function pagePlan(q: Queries, kind: PagedKind): Promise<string[]> {
  sqlitePlanOnly(q);
  return (await q.all<{ parent: number; detail: string }>(
    `EXPLAIN QUERY PLAN ${PAGES.sqlite[kind]}`,
    [0, 0, 1],
  )).filter((row) => row.parent === 0).map((row) => row.detail);
}

/** A file row from a raw `files` page row. */
export function fileFromRow(row: RawRow): ArchiveFileRow {
  return toFile(row);
}

/** The live comments of one thread after `afterId`, by id (for its Markdown copy). */
export async function readThreadComments(
  q: Queries,
  page: { threadId: number; afterId: number; limit: number },
): Promise<RawRow[]> {
  return await q.all<RawRow>(
    `SELECT c.id, u.email AS author_email, c.body, c.created_at, c.updated_at
     FROM comments c JOIN users u ON u.id = c.author_id
     WHERE c.thread_id = ? AND c.deleted_at IS NULL AND c.id > ? ORDER BY c.id LIMIT ?`,
    [page.threadId, page.afterId, page.limit],
  );
}

/** The live files attached to each of `subjectIds`, in attachment order. */
export async function readAttachments(
  q: Queries,
  subjectType: "thread" | "comment" | "message" | "item",
  subjectIds: number[],
): Promise<Map<number, ArchiveFileRow[]>> {
  const result = new Map<number, ArchiveFileRow[]>(subjectIds.map((id) => [id, []]));
  if (subjectIds.length === 0) return result;
  const rows = await q.all<RawRow>(
    `SELECT a.subject_id, ${FILE_COLUMNS} FROM attachments a JOIN files f ON f.id = a.file_id
     JOIN users uf ON uf.id = f.uploader_id
     WHERE a.subject_type = ? AND a.subject_id IN (${dialect(q).intsOf("?")})
     AND f.deleted_at IS NULL ORDER BY a.id`,
    [subjectType, JSON.stringify(subjectIds)],
  );
  for (const row of rows) result.get(row.subject_id as number)?.push(toFile(row));
  return result;
}

/** The checklist entries of each of `itemIds`, in checklist order. */
export async function readChecklists(
  q: Queries,
  itemIds: number[],
): Promise<Map<number, RawRow[]>> {
  const result = new Map<number, RawRow[]>(itemIds.map((id) => [id, []]));
  if (itemIds.length === 0) return result;
  const rows = await q.all<RawRow>(
    `SELECT item_id, text, done, created_at, updated_at FROM todo_checklist_entries
     WHERE item_id IN (${dialect(q).intsOf("?")}) ORDER BY item_id, position, id`,
    [JSON.stringify(itemIds)],
  );
  for (const row of rows) result.get(row.item_id as number)?.push(row);
  return result;
}

// ---------------------------------------------------------------------------------------
// Writing (import). Everything runs inside the caller's transaction.

/** The ids of the accounts with these (normalised) emails. */
export async function userIdsByEmail(
  q: Queries,
  emails: string[],
): Promise<Map<string, number>> {
  const rows = await q.all<{ id: number; email: string }>(
    `SELECT id, email FROM users WHERE email IN (${dialect(q).textsOf("?")})`,
    [JSON.stringify(emails)],
  );
  return new Map(rows.map((r) => [r.email, r.id]));
}

/**
 * Rows of the kinds that search indexes are written hidden (`deleted_at` set to this mark)
 * and shown by `showImported`, which indexes them in creation order: search lists newest
 * first by the order items were indexed in.
 */
const HIDDEN = "import";

/** The tables search indexes, with the type code its order ties on (migration 008). */
const INDEXED: Array<[string, number]> = [
  ["threads", 1],
  ["chat_messages", 2],
  ["todo_items", 3],
  ["files", 4],
  ["calendar_events", 5],
  ["meetings", 6],
  ["milestones", 7],
  ["notes", 8],
];

/** The next hidden rows of a project, oldest first: each kind's from its partial index. */
const NEXT_HIDDEN = `${
  INDEXED.map(([table, code]) =>
    `SELECT * FROM (SELECT '${table}' AS t, ${code} AS code, id, created_at FROM ${table}
     WHERE project_id = ? AND deleted_at = '${HIDDEN}' ORDER BY created_at, id LIMIT ?) AS h${code}`
  ).join(" UNION ALL ")
} ORDER BY created_at, code, id LIMIT ?`;

/** How SQLite finds the next hidden rows: every step of its plan, for tests. */
export async function showImportedPlan(q: Queries): Promise<string[]> {
  sqlitePlanOnly(q);
  return (await q.all<{ detail: string }>(
    `EXPLAIN QUERY PLAN ${NEXT_HIDDEN}`,
    [...INDEXED.flatMap(() => [0, 1]), 1],
  )).map((row) => row.detail);
}

/**
 * Makes up to `limit` hidden rows of an imported project live, oldest first (creation time,
 * then the type code, then id), so search numbers them in creation order; returns how many it
 * showed (0: none are left). Each kind's first rows come from its partial index of hidden rows
 * (migration 014), so a batch reads at most `limit` rows per kind and sorts nothing else.
 */
export async function showImported(
  q: Queries,
  projectId: number,
  limit: number,
): Promise<number> {
  const rows = await q.all<{ t: string; id: number }>(
    NEXT_HIDDEN,
    [...INDEXED.flatMap(() => [projectId, limit]), limit],
  );
  for (const row of rows) {
    await q.run(`UPDATE ${row.t} SET deleted_at = NULL WHERE id = ?`, [row.id]);
  }
  return rows.length;
}

/**
 * Who holds an import's hidden project (the instance's number, db/kernel/presence.ts; null when it
 * has none: SQLite, or before it took one), and until when (see migration 021).
 */
export interface ImportLease {
  owner: number | null;
  until: string;
}

/**
 * Inserts an imported project, hidden while the import writes it (`deleted_at` holds the
 * import mark, `importing_since` the start) until `finishImportedProject`, and held by `lease`
 * (`renewImportLease` moves it on); returns its id.
 */
export async function insertImportedProject(
  q: Queries,
  p: {
    name: string;
    description: string;
    archivedAt: string | null;
    createdBy: number;
    at: string;
    lease: ImportLease;
  },
): Promise<number> {
  const { until } = p.lease;
  return (await q.get<{ id: number }>(
    `INSERT INTO projects (name, description, archived_at, created_by, created_at, updated_at,
       deleted_at, importing_since, import_owner, import_lease_until)
     VALUES (?, ?, ?, ?, ?, ?, '${HIDDEN}', ?, ?, ?) RETURNING id`,
    [p.name, p.description, p.archivedAt, p.createdBy, p.at, p.at, p.at, p.lease.owner, until],
  ))!.id;
}

/**
 * Moves the lease of an unfinished import on, if `lease.owner` still holds it; false when it
 * does not (another instance took it over, or it is gone).
 */
export async function renewImportLease(
  q: Queries,
  projectId: number,
  lease: ImportLease,
): Promise<boolean> {
  const { changes } = await q.run(
    `UPDATE projects SET import_lease_until = ?
     WHERE id = ? AND importing_since IS NOT NULL AND coalesce(import_owner, 0) = ?`,
    [lease.until, projectId, lease.owner ?? 0],
  );
  return changes === 1;
}

/**
 * Makes an imported project visible, in one short statement; false when it is no longer
 * being imported (removed meanwhile as a leftover).
 */
export async function finishImportedProject(q: Queries, projectId: number): Promise<boolean> {
  const { changes } = await q.run(
    `UPDATE projects
     SET deleted_at = NULL, importing_since = NULL, import_owner = NULL, import_lease_until = NULL
     WHERE id = ? AND importing_since IS NOT NULL`,
    [projectId],
  );
  return changes === 1;
}

/**
 * The projects of unfinished imports nobody holds at `now`, oldest first: the instance
 * importing them is gone, or stalled past its lease. SQLite has one instance, the caller:
 * there every unfinished import is one, and the caller leaves out those it is running itself.
 */
export async function importLeftoverIds(q: Queries, now: string): Promise<number[]> {
  const lapsed = leaseLapsed(q, now);
  return (await q.all<{ id: number }>(
    `SELECT id FROM projects WHERE importing_since IS NOT NULL ${lapsed.sql} ORDER BY id`,
    lapsed.params,
  )).map((r) => r.id);
}

/**
 * Takes over a leftover import with `lease`, to remove it; false when it is not one at `now`
 * (its owner renewed its lease meanwhile, another instance took it first, or it is gone).
 */
export async function takeImportLeftover(
  q: Queries,
  projectId: number,
  now: string,
  lease: ImportLease,
): Promise<boolean> {
  const lapsed = leaseLapsed(q, now);
  const { changes } = await q.run(
    `UPDATE projects SET import_owner = ?, import_lease_until = ?
     WHERE id = ? AND importing_since IS NOT NULL ${lapsed.sql}`,
    [lease.owner, lease.until, projectId, ...lapsed.params],
  );
  return changes === 1;
}

/** The condition that nobody holds an import at `now` (none on SQLite: one instance). */
function leaseLapsed(q: Queries, now: string): { sql: string; params: SqlValue[] } {
  if (q.kind === "sqlite") return { sql: "", params: [] };
  return {
    sql: `AND (import_lease_until IS NULL OR import_lease_until <= ? OR ${
      ownerGone("import_owner")
    })`,
    params: [now],
  };
}

/** Whether a project is (still) being imported. */
export async function isImporting(q: Queries, projectId: number): Promise<boolean> {
  return await q.get(
    "SELECT 1 FROM projects WHERE id = ? AND importing_since IS NOT NULL",
    [projectId],
  ) !== undefined;
}

/**
 * Deletes an unfinished imported project's own row and memberships; its other rows are gone
 * by then (`deleteProjectRowsWithin`). A finished project is left alone.
 */
export async function deleteImportingProject(q: Queries, projectId: number): Promise<void> {
  if (!await isImporting(q, projectId)) return;
  await q.run("DELETE FROM project_members WHERE project_id = ?", [projectId]);
  await q.run("DELETE FROM projects WHERE id = ?", [projectId]);
}

/** Inserts a row of `values`, in the order of `cols`; returns its id. */
async function insertRow(
  q: Queries,
  table: string,
  cols: string[],
  values: SqlValue[],
): Promise<number> {
  return (await q.get<{ id: number }>(
    `INSERT INTO ${table} (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})
     RETURNING id`,
    values,
  ))!.id;
}

/** Inserts an imported thread (hidden until `showImported`). */
export async function insertImportedThread(
  q: Queries,
  t: {
    projectId: number;
    authorId: number;
    title: string;
    body: string;
    category: string;
    pinned: boolean;
    createdAt: string;
    updatedAt: string;
  },
): Promise<number> {
  return await insertRow(
    q,
    "threads",
    [
      "project_id",
      "author_id",
      "title",
      "body",
      "category",
      "pinned",
      "created_at",
      "updated_at",
      "deleted_at",
    ],
    [
      t.projectId,
      t.authorId,
      t.title,
      t.body,
      t.category,
      t.pinned ? 1 : 0,
      t.createdAt,
      t.updatedAt,
      HIDDEN,
    ],
  );
}

/** Inserts an imported comment. */
export async function insertImportedComment(
  q: Queries,
  c: {
    projectId: number;
    threadId: number;
    authorId: number;
    body: string;
    createdAt: string;
    updatedAt: string;
  },
): Promise<number> {
  return await insertRow(
    q,
    "comments",
    ["project_id", "thread_id", "author_id", "body", "created_at", "updated_at"],
    [c.projectId, c.threadId, c.authorId, c.body, c.createdAt, c.updatedAt],
  );
}

/** Inserts an imported note (hidden until `showImported`). */
export async function insertImportedNote(
  q: Queries,
  n: {
    projectId: number;
    authorId: number;
    title: string;
    body: string;
    tags: string[];
    pinned: boolean;
    createdAt: string;
    updatedAt: string;
  },
): Promise<number> {
  return await insertRow(
    q,
    "notes",
    [
      "project_id",
      "author_id",
      "title",
      "body",
      "tags",
      "pinned",
      "created_at",
      "updated_at",
      "deleted_at",
    ],
    [
      n.projectId,
      n.authorId,
      n.title,
      n.body,
      JSON.stringify(n.tags),
      n.pinned ? 1 : 0,
      n.createdAt,
      n.updatedAt,
      HIDDEN,
    ],
  );
}

/** Inserts an imported chat message (hidden until `showImported`). */
export async function insertImportedMessage(
  q: Queries,
  m: { projectId: number; authorId: number; text: string; createdAt: string; updatedAt: string },
): Promise<number> {
  return await insertRow(
    q,
    "chat_messages",
    ["project_id", "author_id", "text", "created_at", "updated_at", "deleted_at"],
    [m.projectId, m.authorId, m.text, m.createdAt, m.updatedAt, HIDDEN],
  );
}

/** Inserts an imported to-do column. */
export async function insertImportedColumn(
  q: Queries,
  c: {
    projectId: number;
    name: string;
    key: string | null;
    position: number;
    createdAt: string;
    updatedAt: string;
  },
): Promise<number> {
  return await insertRow(
    q,
    "todo_columns",
    ["project_id", "name", "key", "position", "created_at", "updated_at"],
    [c.projectId, c.name, c.key, c.position, c.createdAt, c.updatedAt],
  );
}

/** Inserts an imported to-do item (hidden until `showImported`). */
export async function insertImportedItem(
  q: Queries,
  i: {
    projectId: number;
    columnId: number;
    creatorId: number;
    title: string;
    description: string | null;
    assigneeId: number | null;
    priority: string;
    startDate: string | null;
    dueDate: string | null;
    tags: string[];
    orderIndex: number;
    completed: boolean;
    completedAt: string | null;
    milestoneId: number | null;
    createdAt: string;
    updatedAt: string;
  },
): Promise<number> {
  return await insertRow(
    q,
    "todo_items",
    [
      "project_id",
      "column_id",
      "creator_id",
      "title",
      "description",
      "assignee_id",
      "priority",
      "start_date",
      "due_date",
      "tags",
      "order_index",
      "completed",
      "completed_at",
      "milestone_id",
      "created_at",
      "updated_at",
      "deleted_at",
    ],
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
      i.completed ? 1 : 0,
      i.completedAt,
      i.milestoneId,
      i.createdAt,
      i.updatedAt,
      HIDDEN,
    ],
  );
}

/** Inserts an imported milestone (hidden until `showImported`). */
export async function insertImportedMilestone(
  q: Queries,
  m: {
    projectId: number;
    creatorId: number;
    title: string;
    description: string | null;
    dueDate: string | null;
    createdAt: string;
    updatedAt: string;
  },
): Promise<number> {
  return await insertRow(
    q,
    "milestones",
    [
      "project_id",
      "creator_id",
      "title",
      "description",
      "due_date",
      "created_at",
      "updated_at",
      "deleted_at",
    ],
    [
      m.projectId,
      m.creatorId,
      m.title,
      m.description,
      m.dueDate,
      m.createdAt,
      m.updatedAt,
      HIDDEN,
    ],
  );
}

/** Inserts an imported calendar event (hidden until `showImported`). */
export async function insertImportedEvent(
  q: Queries,
  e: {
    projectId: number;
    creatorId: number;
    title: string;
    description: string | null;
    startAt: string;
    endAt: string;
    allDay: boolean;
    createdAt: string;
    updatedAt: string;
  },
): Promise<number> {
  return await insertRow(
    q,
    "calendar_events",
    [
      "project_id",
      "creator_id",
      "title",
      "description",
      "start_at",
      "end_at",
      "all_day",
      "created_at",
      "updated_at",
      "deleted_at",
    ],
    [
      e.projectId,
      e.creatorId,
      e.title,
      e.description,
      e.startAt,
      e.endAt,
      e.allDay ? 1 : 0,
      e.createdAt,
      e.updatedAt,
      HIDDEN,
    ],
  );
}

/** Inserts an imported meeting and its invitees (hidden until `showImported`). */
export async function insertImportedMeeting(
  q: Queries,
  m: {
    projectId: number;
    creatorId: number;
    title: string;
    startAt: string;
    endAt: string;
    location: string | null;
    minutes: string | null;
    inviteeIds: number[];
    createdAt: string;
    updatedAt: string;
  },
): Promise<number> {
  const id = await insertRow(
    q,
    "meetings",
    [
      "project_id",
      "creator_id",
      "title",
      "start_at",
      "end_at",
      "location",
      "minutes",
      "created_at",
      "updated_at",
      "deleted_at",
    ],
    [
      m.projectId,
      m.creatorId,
      m.title,
      m.startAt,
      m.endAt,
      m.location,
      m.minutes,
      m.createdAt,
      m.updatedAt,
      HIDDEN,
    ],
  );
  for (const userId of m.inviteeIds) {
    await q.run(
      "INSERT INTO meeting_invitees (meeting_id, user_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
      [id, userId],
    );
  }
  return id;
}

/** Inserts an imported file record (hidden until `showImported`); its subject comes later. */
export async function insertImportedFile(
  q: Queries,
  f: {
    projectId: number;
    uploaderId: number;
    name: string;
    storedName: string;
    contentType: string;
    size: number;
    source: string;
    createdAt: string;
  },
): Promise<number> {
  return await insertRow(
    q,
    "files",
    [
      "project_id",
      "uploader_id",
      "name",
      "stored_name",
      "content_type",
      "size",
      "source",
      "created_at",
      "deleted_at",
    ],
    [
      f.projectId,
      f.uploaderId,
      f.name,
      f.storedName,
      f.contentType,
      f.size,
      f.source,
      f.createdAt,
      HIDDEN,
    ],
  );
}

/** Records the subject an imported attachment upload was uploaded to. */
export async function setUploadedTo(
  q: Queries,
  fileId: number,
  to: { type: string; id: number },
): Promise<void> {
  await q.run("UPDATE files SET uploaded_to_type = ?, uploaded_to_id = ? WHERE id = ?", [
    to.type,
    to.id,
    fileId,
  ]);
}

/** Links imported files to a subject, in the given order. */
export async function insertImportedAttachments(
  q: Queries,
  a: { projectId: number; subjectType: string; subjectId: number; fileIds: number[]; at: string },
): Promise<void> {
  for (const fileId of a.fileIds) {
    await q.run(
      `INSERT INTO attachments (project_id, file_id, subject_type, subject_id, created_at)
       VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      [a.projectId, fileId, a.subjectType, a.subjectId, a.at],
    );
  }
}

/** Appends an imported activity entry. */
export async function insertImportedActivity(
  q: Queries,
  a: {
    projectId: number;
    kind: string;
    actorId: number;
    subjectType: string;
    subjectId: number;
    summary: string;
    createdAt: string;
  },
): Promise<void> {
  await q.run(
    `INSERT INTO activity (project_id, kind, actor_id, subject_type, subject_id, summary, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
    [a.projectId, a.kind, a.actorId, a.subjectType, a.subjectId, a.summary, a.createdAt],
  );
}
