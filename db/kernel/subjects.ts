/**
 * Whether the subject of an activity entry or notification still exists: a soft-deleted
 * subject (or one inside a deleted parent) makes the row invisible in lists and counts.
 */

/** What an attachment hangs on. */
export type AttachableType = "thread" | "comment" | "message" | "item";

/**
 * An SQL condition true when the subject of row `alias` (`<prefix>_type`, `<prefix>_id`,
 * by default subject_type and subject_id) is live. A condition, not a number: on PostgreSQL
 * it is a boolean (every branch must be one), on SQLite 1 or 0.
 */
export function subjectAlive(alias: string, prefix = "subject"): string {
  const id = `${alias}.${prefix}_id`;
  const type = `${alias}.${prefix}_type`;
  // `LIMIT 1 OFFSET 0` changes no answer, and keeps PostgreSQL from turning an EXISTS into a
  // hashed set of the whole table: it did for a newest-ten-activities query, hashing all
  // 20,000 live to-dos to check ten rows (16 ms against under 1, bench/search.md).
  const live = (table: string) =>
    `EXISTS (SELECT 1 FROM ${table} s WHERE s.id = ${id} AND s.deleted_at IS NULL
      LIMIT 1 OFFSET 0)`;
  return `(CASE ${type}
    WHEN 'thread' THEN ${live("threads")}
    WHEN 'comment' THEN EXISTS (SELECT 1 FROM comments s JOIN threads th ON th.id = s.thread_id
      WHERE s.id = ${id} AND s.deleted_at IS NULL AND th.deleted_at IS NULL LIMIT 1 OFFSET 0)
    WHEN 'note' THEN ${live("notes")}
    WHEN 'message' THEN ${live("chat_messages")}
    WHEN 'item' THEN ${live("todo_items")}
    WHEN 'file' THEN ${live("files")}
    WHEN 'event' THEN ${live("calendar_events")}
    WHEN 'milestone' THEN ${live("milestones")}
    WHEN 'meeting' THEN ${live("meetings")}
    WHEN 'project' THEN ${live("projects")}
    ELSE true END)`;
}

/** Who moved an item to the trash, and when. */
export interface Deletion {
  at: string;
  by: number;
}
