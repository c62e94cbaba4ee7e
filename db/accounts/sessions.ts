/** Storage of server-side sessions, keyed by a hash of the session id. */
import type { Queries } from "../kernel/engine.ts";

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
      userId: r.user_id,
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
export async function deleteUserSessions(q: Queries, userId: number): Promise<number> {
  return (await q.run("DELETE FROM sessions WHERE user_id = ?", [userId])).changes;
}

/** Deletes sessions expired before `now`. */
export async function deleteExpiredSessions(q: Queries, now: string): Promise<number> {
  return (await q.run("DELETE FROM sessions WHERE expires_at <= ?", [now])).changes;
}

/** Deletes every session of a user but `keepIdHash`; returns the hashes of those deleted. */
export async function deleteOtherUserSessions(
  q: Queries,
  userId: number,
  keepIdHash: string,
): Promise<string[]> {
  // A write returning rows: call it with a transaction's queries.
  return (await q.all<{ id_hash: string }>(
    "DELETE FROM sessions WHERE user_id = ? AND id_hash <> ? RETURNING id_hash",
    [userId, keepIdHash],
  )).map((r) => r.id_hash);
}
