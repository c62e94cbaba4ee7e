/** Storage of board threads and comments. */
import type { Database } from "./sqlite.ts";
import type { Deletion } from "./subjects.ts";

/** A thread category. */
export type Category = "general" | "announcement" | "question" | "idea";

/** A live thread. */
export interface ThreadRow {
  id: number;
  projectId: number;
  authorId: number;
  title: string;
  body: string;
  category: Category;
  pinned: boolean;
  createdAt: string;
  updatedAt: string;
  commentCount: number;
}

/** A live comment. */
export interface CommentRow {
  id: number;
  projectId: number;
  threadId: number;
  authorId: number;
  body: string;
  createdAt: string;
  updatedAt: string;
}

interface RawThread {
  id: number;
  project_id: number;
  author_id: number;
  title: string;
  body: string;
  category: Category;
  pinned: number;
  created_at: string;
  updated_at: string;
  comment_count: number;
}

const THREAD_SELECT =
  `SELECT t.id, t.project_id, t.author_id, t.title, t.body, t.category, t.pinned,
  t.created_at, t.updated_at, (SELECT count(*) FROM comments c WHERE c.thread_id = t.id
  AND c.deleted_at IS NULL) AS comment_count FROM threads t`;

function toThread(r: RawThread): ThreadRow {
  return {
    id: r.id,
    projectId: r.project_id,
    authorId: r.author_id,
    title: r.title,
    body: r.body,
    category: r.category,
    pinned: r.pinned === 1,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    commentCount: r.comment_count,
  };
}

interface RawComment {
  id: number;
  project_id: number;
  thread_id: number;
  author_id: number;
  body: string;
  created_at: string;
  updated_at: string;
}

const COMMENT_SELECT =
  "SELECT c.id, c.project_id, c.thread_id, c.author_id, c.body, c.created_at, c.updated_at FROM comments c";

function toComment(r: RawComment): CommentRow {
  return {
    id: r.id,
    projectId: r.project_id,
    threadId: r.thread_id,
    authorId: r.author_id,
    body: r.body,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Inserts a thread. */
export function insertThread(
  db: Database,
  t: Omit<ThreadRow, "id" | "updatedAt" | "commentCount">,
): number {
  return (db.sql.prepare(
    `INSERT INTO threads (project_id, author_id, title, body, category, pinned, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  ).get(
    t.projectId,
    t.authorId,
    t.title,
    t.body,
    t.category,
    t.pinned ? 1 : 0,
    t.createdAt,
    t.createdAt,
  ) as {
    id: number;
  }).id;
}

/** A live thread of a project. */
export function findThread(db: Database, projectId: number, id: number): ThreadRow | null {
  const r = db.sql.prepare(
    `${THREAD_SELECT} WHERE t.id = ? AND t.project_id = ? AND t.deleted_at IS NULL`,
  )
    .get(id, projectId) as RawThread | undefined;
  return r ? toThread(r) : null;
}

/** A page of a project's live threads: pinned first, then newest. */
export function listThreads(
  db: Database,
  projectId: number,
  options: { category: string | null; limit: number; offset: number },
): { items: ThreadRow[]; total: number } {
  const where = "t.project_id = ? AND t.deleted_at IS NULL AND (? IS NULL OR t.category = ?)";
  const args = [projectId, options.category, options.category];
  const items = (db.sql.prepare(
    `${THREAD_SELECT} WHERE ${where} ORDER BY t.pinned DESC, t.created_at DESC, t.id DESC LIMIT ? OFFSET ?`,
  ).all(...args, options.limit, options.offset) as unknown as RawThread[]).map(toThread);
  const total =
    (db.sql.prepare(`SELECT count(*) AS n FROM threads t WHERE ${where}`).get(...args) as {
      n: number;
    }).n;
  return { items, total };
}

/** Changes a thread's fields. */
export function updateThread(
  db: Database,
  id: number,
  c: { title: string; body: string; category: Category; pinned: boolean; updatedAt: string },
): void {
  db.sql.prepare(
    "UPDATE threads SET title = ?, body = ?, category = ?, pinned = ?, updated_at = ? WHERE id = ?",
  ).run(c.title, c.body, c.category, c.pinned ? 1 : 0, c.updatedAt, id);
}

/**
 * Moves a thread to the trash with its live comments (marked as gone with it, so they come
 * back with it); returns those comments' ids. Comments deleted before stay in the trash alone.
 */
export function deleteThread(db: Database, id: number, d: Deletion): number[] {
  db.sql.prepare("UPDATE threads SET deleted_at = ?, deleted_by = ? WHERE id = ?").run(
    d.at,
    d.by,
    id,
  );
  return (db.sql.prepare(
    `UPDATE comments SET deleted_at = ?, deleted_by = ?, deleted_with_thread = 1
     WHERE thread_id = ? AND deleted_at IS NULL RETURNING id`,
  ).all(d.at, d.by, id) as Array<{ id: number }>).map((r) => r.id);
}

/** Inserts a comment. */
export function insertComment(db: Database, c: Omit<CommentRow, "id" | "updatedAt">): number {
  return (db.sql.prepare(
    `INSERT INTO comments (project_id, thread_id, author_id, body, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
  ).get(c.projectId, c.threadId, c.authorId, c.body, c.createdAt, c.createdAt) as { id: number })
    .id;
}

/** A live comment of a project, on a live thread. */
export function findComment(db: Database, projectId: number, id: number): CommentRow | null {
  const r = db.sql.prepare(
    `${COMMENT_SELECT} JOIN threads t ON t.id = c.thread_id WHERE c.id = ? AND c.project_id = ?
     AND c.deleted_at IS NULL AND t.deleted_at IS NULL`,
  ).get(id, projectId) as RawComment | undefined;
  return r ? toComment(r) : null;
}

/** The live comments of a thread, oldest first. */
export function listComments(db: Database, threadId: number): CommentRow[] {
  return (db.sql.prepare(
    `${COMMENT_SELECT} WHERE c.thread_id = ? AND c.deleted_at IS NULL ORDER BY c.created_at, c.id`,
  ).all(threadId) as unknown as RawComment[]).map(toComment);
}

/** The distinct authors of a thread's live comments. */
export function commenterIds(db: Database, threadId: number): number[] {
  return (db.sql.prepare(
    "SELECT DISTINCT author_id FROM comments WHERE thread_id = ? AND deleted_at IS NULL",
  ).all(threadId) as Array<{ author_id: number }>).map((r) => r.author_id);
}

/** Changes a comment's body. */
export function updateComment(db: Database, id: number, body: string, at: string): void {
  db.sql.prepare("UPDATE comments SET body = ?, updated_at = ? WHERE id = ?").run(body, at, id);
}

/** Moves a comment to the trash. */
export function deleteComment(db: Database, id: number, d: Deletion): void {
  db.sql.prepare("UPDATE comments SET deleted_at = ?, deleted_by = ? WHERE id = ?").run(
    d.at,
    d.by,
    id,
  );
}

/** Live threads by id, in the order of `ids`. */
export function threadsByIds(db: Database, ids: number[]): ThreadRow[] {
  if (ids.length === 0) return [];
  const rows = (db.sql.prepare(
    `${THREAD_SELECT} WHERE t.deleted_at IS NULL AND t.id IN (${ids.map(() => "?").join(",")})`,
  ).all(...ids) as unknown as RawThread[]).map(toThread);
  return rows.sort((a, b) => ids.indexOf(a.id) - ids.indexOf(b.id));
}
