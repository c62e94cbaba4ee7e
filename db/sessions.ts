/**
 * Storage of server-side sessions, keyed by a hash of the session id. A session's own life
 * (issue, look-up, use, end) goes through the storage interface; the deletions that belong to
 * an account's changes (`deleteUserSessions`, …) still run inside those changes' synchronous
 * transactions, until the accounts move onto the interface too.
 */
import type { Queries } from "./engine.ts";
import type { Database } from "./sqlite.ts";

/** A stored session. */
export interface SessionRow {
  idHash: string;
  userId: number;
  issuedAt: string;
  lastUsedAt: string;
  expiresAt: string;
}

/** Stores a new session. */
export async function insertSession(q: Queries, s: SessionRow): Promise<void> {
  await q.run(
    "INSERT INTO sessions (id_hash, user_id, issued_at, last_used_at, expires_at) VALUES (?, ?, ?, ?, ?)",
    [s.idHash, s.userId, s.issuedAt, s.lastUsedAt, s.expiresAt],
  );
}

/** Finds a session by the hash of its id. */
export async function findSession(q: Queries, idHash: string): Promise<SessionRow | null> {
  const r = await q.get<{
    id_hash: string;
    user_id: number;
    issued_at: string;
    last_used_at: string;
    expires_at: string;
  }>(
    "SELECT id_hash, user_id, issued_at, last_used_at, expires_at FROM sessions WHERE id_hash = ?",
    [idHash],
  );
  return r
    ? {
      idHash: r.id_hash,
      userId: Number(r.user_id),
      issuedAt: r.issued_at,
      lastUsedAt: r.last_used_at,
      expiresAt: r.expires_at,
    }
    : null;
}

/** Records that a session was used. */
export async function touchSession(q: Queries, idHash: string, at: string): Promise<void> {
  await q.run("UPDATE sessions SET last_used_at = ? WHERE id_hash = ?", [at, idHash]);
}

/** Deletes one session. */
export async function deleteSession(q: Queries, idHash: string): Promise<void> {
  await q.run("DELETE FROM sessions WHERE id_hash = ?", [idHash]);
}

/** Deletes every session of a user; returns how many. */
export function deleteUserSessions(db: Database, userId: number): number {
  return Number(db.sql.prepare("DELETE FROM sessions WHERE user_id = ?").run(userId).changes);
}

/** Deletes sessions expired before `now`. */
export function deleteExpiredSessions(db: Database, now: string): number {
  return Number(db.sql.prepare("DELETE FROM sessions WHERE expires_at <= ?").run(now).changes);
}

/** Deletes every session of a user but `keepIdHash`; returns the hashes of those deleted. */
export function deleteOtherUserSessions(
  db: Database,
  userId: number,
  keepIdHash: string,
): string[] {
  return (db.sql.prepare(
    "DELETE FROM sessions WHERE user_id = ? AND id_hash <> ? RETURNING id_hash",
  ).all(userId, keepIdHash) as Array<{ id_hash: string }>).map((r) => r.id_hash);
}
