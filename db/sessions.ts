/** Storage of server-side sessions, keyed by a hash of the session id. */
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
export function insertSession(db: Database, s: SessionRow): void {
  db.sql.prepare(
    "INSERT INTO sessions (id_hash, user_id, issued_at, last_used_at, expires_at) VALUES (?, ?, ?, ?, ?)",
  ).run(s.idHash, s.userId, s.issuedAt, s.lastUsedAt, s.expiresAt);
}

/** Finds a session by the hash of its id. */
export function findSession(db: Database, idHash: string): SessionRow | null {
  const r = db.sql.prepare(
    "SELECT id_hash, user_id, issued_at, last_used_at, expires_at FROM sessions WHERE id_hash = ?",
  ).get(idHash) as
    | {
      id_hash: string;
      user_id: number;
      issued_at: string;
      last_used_at: string;
      expires_at: string;
    }
    | undefined;
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
export function touchSession(db: Database, idHash: string, at: string): void {
  db.sql.prepare("UPDATE sessions SET last_used_at = ? WHERE id_hash = ?").run(at, idHash);
}

/** Deletes one session. */
export function deleteSession(db: Database, idHash: string): void {
  db.sql.prepare("DELETE FROM sessions WHERE id_hash = ?").run(idHash);
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
