/** Storage of chat messages. */
import type { Database } from "./sqlite.ts";
import type { Deletion } from "./subjects.ts";

/** A live chat message. */
export interface MessageRow {
  id: number;
  projectId: number;
  authorId: number;
  text: string;
  createdAt: string;
  updatedAt: string;
}

interface RawMessage {
  id: number;
  project_id: number;
  author_id: number;
  text: string;
  created_at: string;
  updated_at: string;
}

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
export function insertMessage(
  db: Database,
  m: { projectId: number; authorId: number; text: string; createdAt: string },
): MessageRow {
  const { id } = db.sql.prepare(
    `INSERT INTO chat_messages (project_id, author_id, text, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?) RETURNING id`,
  ).get(m.projectId, m.authorId, m.text, m.createdAt, m.createdAt) as { id: number };
  return { id, ...m, updatedAt: m.createdAt };
}

/** A live message of a project. */
export function findMessage(db: Database, projectId: number, id: number): MessageRow | null {
  const r = db.sql.prepare(`${SELECT} WHERE m.id = ? AND m.project_id = ? AND m.deleted_at IS NULL`)
    .get(id, projectId) as RawMessage | undefined;
  return r ? toMessage(r) : null;
}

/**
 * The newest `limit` live messages older than `before` (or the newest overall), oldest
 * first, and whether older ones exist.
 */
export function messageHistory(
  db: Database,
  projectId: number,
  options: { before: number | null; limit: number },
): { items: MessageRow[]; hasMore: boolean } {
  const rows = db.sql.prepare(
    `${SELECT} WHERE m.project_id = ? AND m.deleted_at IS NULL AND (? IS NULL OR m.id < ?)
     ORDER BY m.id DESC LIMIT ?`,
  ).all(projectId, options.before, options.before, options.limit + 1) as unknown as RawMessage[];
  const hasMore = rows.length > options.limit;
  return { items: rows.slice(0, options.limit).reverse().map(toMessage), hasMore };
}

/**
 * The newest live messages of a project, newest first: id order, as in `messageHistory`
 * (ids rise with created_at), so chat_messages_history serves it without a sort.
 */
export function latestMessages(db: Database, projectId: number, limit: number): MessageRow[] {
  return (db.sql.prepare(
    `${SELECT} WHERE m.project_id = ? AND m.deleted_at IS NULL ORDER BY m.id DESC LIMIT ?`,
  ).all(projectId, limit) as unknown as RawMessage[]).map(toMessage);
}

/** Changes a message's text. */
export function updateMessage(db: Database, id: number, text: string, at: string): void {
  db.sql.prepare("UPDATE chat_messages SET text = ?, updated_at = ? WHERE id = ?").run(
    text,
    at,
    id,
  );
}

/** Moves a message to the trash (its `updated_at` stays as it was). */
export function deleteMessage(db: Database, id: number, d: Deletion): void {
  db.sql.prepare("UPDATE chat_messages SET deleted_at = ?, deleted_by = ? WHERE id = ?").run(
    d.at,
    d.by,
    id,
  );
}
