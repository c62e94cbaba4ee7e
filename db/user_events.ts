/** The per-user event log behind the caller's own event stream. */
import type { Database } from "./sqlite.ts";

/** A stored event of one user's stream. */
export interface UserEventRow {
  id: number;
  userId: number;
  name: string;
  /** The JSON data, as stored. */
  data: string;
}

/** How many events each user keeps for replay (as many as a project keeps). */
export const USER_EVENTS_KEPT = 5000;

/** Appends an event and returns it with its id; prunes old events now and then. */
export function appendUserEvent(
  db: Database,
  e: { userId: number; name: string; data: string; createdAt: string },
): UserEventRow {
  const { id } = db.sql.prepare(
    "INSERT INTO user_events (user_id, name, data, created_at) VALUES (?, ?, ?, ?) RETURNING id",
  ).get(e.userId, e.name, e.data, e.createdAt) as { id: number };
  if (id % 1000 === 0) {
    db.sql.prepare(
      `DELETE FROM user_events WHERE user_id = ? AND id <= (SELECT id FROM user_events
       WHERE user_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`,
    ).run(e.userId, e.userId, USER_EVENTS_KEPT);
  }
  return { id, userId: e.userId, name: e.name, data: e.data };
}

/** The events of a user after `afterId`, oldest first (at most `limit`). */
export function userEventsAfter(
  db: Database,
  userId: number,
  afterId: number,
  limit: number,
): UserEventRow[] {
  const rows = db.sql.prepare(
    `SELECT id, name, data FROM user_events WHERE user_id = ? AND id > ? ORDER BY id LIMIT ?`,
  ).all(userId, afterId, limit) as Array<{ id: number; name: string; data: string }>;
  return rows.map((r) => ({ ...r, userId }));
}
