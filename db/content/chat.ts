/** Storage of chat messages. */
import type { Queries } from "../kernel/engine.ts";
import type { Deletion } from "../kernel/subjects.ts";

/** A live chat message. */
export interface MessageRow {
  id: number;
  projectId: number;
  authorId: number;
  text: string;
  createdAt: string;
  updatedAt: string;
}

type RawMessage = {
  id: number;
  project_id: number;
  author_id: number;
  text: string;
  created_at: string;
  updated_at: string;
};

const SELECT =
  "SELECT m.id, m.project_id, m.author_id, m.text, m.created_at, m.updated_at FROM chat_messages m";

function toMessage(r: RawMessage): MessageRow {
  return {
    id: r.id,
    projectId: r.project_id,
    authorId: r.author_id,
    text: r.text,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Inserts a message. */
export async function insertMessage(
  q: Queries,
  m: { projectId: number; authorId: number; text: string; createdAt: string },
): Promise<MessageRow> {
  const { id } = (await q.get<{ id: number }>(
    `INSERT INTO chat_messages (project_id, author_id, text, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?) RETURNING id`,
    [m.projectId, m.authorId, m.text, m.createdAt, m.createdAt],
  ))!;
  return { id, ...m, updatedAt: m.createdAt };
}

/** A live message of a project. */
export async function findMessage(
  q: Queries,
  projectId: number,
  id: number,
): Promise<MessageRow | null> {
  const r = await q.get<RawMessage>(
    `${SELECT} WHERE m.id = ? AND m.project_id = ? AND m.deleted_at IS NULL`,
    [id, projectId],
  );
  return r ? toMessage(r) : null;
}

/**
 * The newest `limit` live messages older than `before` (or the newest overall), oldest
 * first, and whether older ones exist.
 */
export async function messageHistory(
  q: Queries,
  projectId: number,
  options: { before: number | null; limit: number },
): Promise<{ items: MessageRow[]; hasMore: boolean }> {
  const rows = await q.all<RawMessage>(
    `${SELECT} WHERE m.project_id = ? AND m.deleted_at IS NULL
     AND (CAST(? AS bigint) IS NULL OR m.id < ?) ORDER BY m.id DESC LIMIT ?`,
    [projectId, options.before, options.before, options.limit + 1],
  );
  const hasMore = rows.length > options.limit;
  return { items: rows.slice(0, options.limit).reverse().map(toMessage), hasMore };
}

/**
 * The newest live messages of a project, newest first: id order, as in `messageHistory`
 * (ids rise with created_at), so chat_messages_history serves it without a sort.
 */
export async function latestMessages(
  q: Queries,
  projectId: number,
  limit: number,
): Promise<MessageRow[]> {
  return (await q.all<RawMessage>(
    `${SELECT} WHERE m.project_id = ? AND m.deleted_at IS NULL ORDER BY m.id DESC LIMIT ?`,
    [projectId, limit],
  )).map(toMessage);
}

/** Changes a message's text. */
export async function updateMessage(
  q: Queries,
  id: number,
  text: string,
  at: string,
): Promise<void> {
  await q.run("UPDATE chat_messages SET text = ?, updated_at = ? WHERE id = ?", [text, at, id]);
}

/** Moves a message to the trash (its `updated_at` stays as it was). */
export async function deleteMessage(q: Queries, id: number, d: Deletion): Promise<void> {
  await q.run("UPDATE chat_messages SET deleted_at = ?, deleted_by = ? WHERE id = ?", [
    d.at,
    d.by,
    id,
  ]);
}
