/** Storage of board threads and comments. */
import { dialect } from "../kernel/dialect.ts";
import type { Queries } from "../kernel/engine.ts";
import type { Deletion } from "../kernel/subjects.ts";

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

type RawThread = {
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
};

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

type RawComment = {
  id: number;
  project_id: number;
  thread_id: number;
  author_id: number;
  body: string;
  created_at: string;
  updated_at: string;
};

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
export async function insertThread(
  q: Queries,
  t: Omit<ThreadRow, "id" | "updatedAt" | "commentCount">,
): Promise<number> {
  return (await q.get<{ id: number }>(
    `INSERT INTO threads (project_id, author_id, title, body, category, pinned, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    [
      t.projectId,
      t.authorId,
      t.title,
      t.body,
      t.category,
      t.pinned ? 1 : 0,
      t.createdAt,
      t.createdAt,
    ],
  ))!.id;
}

/** A live thread of a project. */
export async function findThread(
  q: Queries,
  projectId: number,
  id: number,
): Promise<ThreadRow | null> {
  const r = await q.get<RawThread>(
    `${THREAD_SELECT} WHERE t.id = ? AND t.project_id = ? AND t.deleted_at IS NULL`,
    [id, projectId],
  );
  return r ? toThread(r) : null;
}

/** A page of a project's live threads: pinned first, then newest. */
export async function listThreads(
  q: Queries,
  projectId: number,
  options: { category: string | null; limit: number; offset: number },
): Promise<{ items: ThreadRow[]; total: number }> {
  const where =
    "t.project_id = ? AND t.deleted_at IS NULL AND (CAST(? AS text) IS NULL OR t.category = ?)";
  const args = [projectId, options.category, options.category];
  const items = (await q.all<RawThread>(
    `${THREAD_SELECT} WHERE ${where} ORDER BY t.pinned DESC, t.created_at DESC, t.id DESC LIMIT ? OFFSET ?`,
    [...args, options.limit, options.offset],
  )).map(toThread);
  const total =
    (await q.get<{ n: number }>(`SELECT count(*) AS n FROM threads t WHERE ${where}`, args))!.n;
  return { items, total };
}

/** Changes a thread's fields. */
export async function updateThread(
  q: Queries,
  id: number,
  c: { title: string; body: string; category: Category; pinned: boolean; updatedAt: string },
): Promise<void> {
  await q.run(
    "UPDATE threads SET title = ?, body = ?, category = ?, pinned = ?, updated_at = ? WHERE id = ?",
    [c.title, c.body, c.category, c.pinned ? 1 : 0, c.updatedAt, id],
  );
}

/**
 * Moves a thread to the trash with its live comments (marked as gone with it, so they come
 * back with it); returns those comments' ids. Comments deleted before stay in the trash alone.
 */
export async function deleteThread(q: Queries, id: number, d: Deletion): Promise<number[]> {
  await q.run("UPDATE threads SET deleted_at = ?, deleted_by = ? WHERE id = ?", [d.at, d.by, id]);
  return (await q.all<{ id: number }>(
    `UPDATE comments SET deleted_at = ?, deleted_by = ?, deleted_with_thread = 1
     WHERE thread_id = ? AND deleted_at IS NULL RETURNING id`,
    [d.at, d.by, id],
  )).map((r) => r.id);
}

/** Inserts a comment. */
export async function insertComment(
  q: Queries,
  c: Omit<CommentRow, "id" | "updatedAt">,
): Promise<number> {
  return (await q.get<{ id: number }>(
    `INSERT INTO comments (project_id, thread_id, author_id, body, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
    [c.projectId, c.threadId, c.authorId, c.body, c.createdAt, c.createdAt],
  ))!.id;
}

/** A live comment of a project, on a live thread. */
export async function findComment(
  q: Queries,
  projectId: number,
  id: number,
): Promise<CommentRow | null> {
  const r = await q.get<RawComment>(
    `${COMMENT_SELECT} JOIN threads t ON t.id = c.thread_id WHERE c.id = ? AND c.project_id = ?
     AND c.deleted_at IS NULL AND t.deleted_at IS NULL`,
    [id, projectId],
  );
  return r ? toComment(r) : null;
}

/** The live comments of a thread, oldest first. */
export async function listComments(q: Queries, threadId: number): Promise<CommentRow[]> {
  return (await q.all<RawComment>(
    `${COMMENT_SELECT} WHERE c.thread_id = ? AND c.deleted_at IS NULL ORDER BY c.created_at, c.id`,
    [threadId],
  )).map(toComment);
}

/** The distinct authors of a thread's live comments, ascending. */
export async function commenterIds(q: Queries, threadId: number): Promise<number[]> {
  return (await q.all<{ author_id: number }>(
    "SELECT DISTINCT author_id FROM comments WHERE thread_id = ? AND deleted_at IS NULL " +
      "ORDER BY author_id",
    [threadId],
  )).map((r) => r.author_id);
}

/** Changes a comment's body. */
export async function updateComment(
  q: Queries,
  id: number,
  body: string,
  at: string,
): Promise<void> {
  await q.run("UPDATE comments SET body = ?, updated_at = ? WHERE id = ?", [body, at, id]);
}

/** Moves a comment to the trash. */
export async function deleteComment(q: Queries, id: number, d: Deletion): Promise<void> {
  await q.run("UPDATE comments SET deleted_at = ?, deleted_by = ? WHERE id = ?", [d.at, d.by, id]);
}

/** Live threads by id, in the order of `ids`. */
export async function threadsByIds(q: Queries, ids: number[]): Promise<ThreadRow[]> {
  if (ids.length === 0) return [];
  const rows = (await q.all<RawThread>(
    `${THREAD_SELECT} WHERE t.deleted_at IS NULL AND t.id IN (${dialect(q).intsOf("?")})`,
    [JSON.stringify(ids)],
  )).map(toThread);
  return rows.sort((a, b) => ids.indexOf(a.id) - ids.indexOf(b.id));
}
