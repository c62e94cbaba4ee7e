/**
 * An append-only event log kept for replay, one sequence of ids for all owners: the project
 * stream's (`project_events`, owner `project_id`) and each user's own stream's (`user_events`,
 * owner `user_id`). Every owner keeps its latest `kept` events; older ones are pruned now and then.
 */
import type { Queries } from "../kernel/engine.ts";

/** A stored event of one owner's log. */
export interface LogRow {
  id: number;
  ownerId: number;
  name: string;
  /** The JSON data, as stored. */
  data: string;
}

/** The two logs there are (fixed names: they are written into the SQL). */
type Log = { table: "project_events"; owner: "project_id" } | {
  table: "user_events";
  owner: "user_id";
};

/**
 * The PostgreSQL advisory lock (two keys; the first as the migrations' lock) an append to each
 * log holds until its transaction ends. PostgreSQL takes an identity value at the insert, not
 * at the commit: two transactions appending at once may commit ids 6 then 5, and a client that
 * saw 6 and replays `id > 6` after reconnecting (`Last-Event-ID`) never gets 5. Under the lock,
 * the next append waits for the previous one's commit, so ids commit in order, as they do on
 * SQLite with its one writer. The lock stays until the commit, so a transaction appending to
 * both logs must take them in one order: user events first (`runAction` writes notifications
 * before its project events); the other order, at once with this one, would deadlock.
 */
const APPEND_LOCKS = { user_events: [0x636f6c6c, 2], project_events: [0x636f6c6c, 3] } as const;

/** Appends and reads the events of `log`. */
export function eventLog(log: Log, kept: number) {
  const { table, owner } = log;
  return {
    /** Appends an event and returns its row; prunes the owner's old events now and then. */
    async append(
      q: Queries,
      e: { ownerId: number; name: string; data: string; createdAt: string },
    ): Promise<LogRow> {
      if (q.kind === "postgres") {
        await q.run("SELECT pg_advisory_xact_lock(?, ?)", [...APPEND_LOCKS[table]]);
      }
      const { id } = (await q.get<{ id: number }>(
        `INSERT INTO ${table} (${owner}, name, data, created_at) VALUES (?, ?, ?, ?) RETURNING id`,
        [e.ownerId, e.name, e.data, e.createdAt],
      ))!;
      if (id % 1000 === 0) {
        await q.run(
          `DELETE FROM ${table} WHERE ${owner} = ? AND id <= (SELECT id FROM ${table}
           WHERE ${owner} = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`,
          [e.ownerId, e.ownerId, kept],
        );
      }
      return { id, ownerId: e.ownerId, name: e.name, data: e.data };
    },

    /** The owner's events after `afterId`, oldest first (at most `limit`). */
    async after(q: Queries, ownerId: number, afterId: number, limit: number): Promise<LogRow[]> {
      const rows = await q.all<{ id: number; name: string; data: string }>(
        `SELECT id, name, data FROM ${table} WHERE ${owner} = ? AND id > ? ORDER BY id LIMIT ?`,
        [ownerId, afterId, limit],
      );
      return rows.map((r) => ({ ...r, ownerId }));
    },
  };
}
