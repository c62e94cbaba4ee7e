/** Storage of personal API tokens, keyed by the SHA-256 of their secret (never the secret). */
import type { Queries } from "../kernel/engine.ts";

/** A stored token, without its hash. */
export interface ApiTokenRow {
  id: number;
  userId: number;
  name: string;
  scope: "read" | "write";
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
}

/** A token found by its hash, with what authentication needs of its owner. */
export interface ApiTokenOwner extends ApiTokenRow {
  userRole: "admin" | "member";
  userStatus: "active" | "disabled";
}

type RawToken = {
  id: number;
  user_id: number;
  name: string;
  scope: "read" | "write";
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
};

const COLUMNS = "t.id, t.user_id, t.name, t.scope, t.created_at, t.expires_at, t.last_used_at";

function toToken(r: RawToken): ApiTokenRow {
  return {
    id: r.id,
    userId: r.user_id,
    name: r.name,
    scope: r.scope,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    lastUsedAt: r.last_used_at,
  };
}

/** Stores a new token and returns its id (a write returning a row: use a transaction's queries). */
export async function insertApiToken(
  q: Queries,
  t: Omit<ApiTokenRow, "id" | "lastUsedAt"> & { secretHash: string },
): Promise<number> {
  return (await q.get<{ id: number }>(
    `INSERT INTO api_tokens (user_id, name, scope, secret_hash, created_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
    [t.userId, t.name, t.scope, t.secretHash, t.createdAt, t.expiresAt],
  ))!.id;
}

/** One of a user's tokens. */
export async function findApiToken(
  q: Queries,
  userId: number,
  id: number,
): Promise<ApiTokenRow | null> {
  const r = await q.get<RawToken>(
    `SELECT ${COLUMNS} FROM api_tokens t WHERE t.id = ? AND t.user_id = ?`,
    [id, userId],
  );
  return r ? toToken(r) : null;
}

/** A user's tokens, oldest first. */
export async function listApiTokens(q: Queries, userId: number): Promise<ApiTokenRow[]> {
  return (await q.all<RawToken>(
    `SELECT ${COLUMNS} FROM api_tokens t WHERE t.user_id = ? ORDER BY t.created_at, t.id`,
    [userId],
  )).map(toToken);
}

/** How many tokens a user has. */
export async function countApiTokens(q: Queries, userId: number): Promise<number> {
  return (await q.get<{ n: number }>(
    "SELECT count(*) AS n FROM api_tokens WHERE user_id = ?",
    [userId],
  ))!.n;
}

/**
 * The token whose secret hashes to `secretHash`, with its owner's role and status: one
 * statement over the unique index and the users' primary key (every bearer request runs it;
 * the engine keeps its prepared statement).
 */
export async function findApiTokenByHash(
  q: Queries,
  secretHash: string,
): Promise<ApiTokenOwner | null> {
  const r = await q.get<
    RawToken & { user_role: "admin" | "member"; user_status: "active" | "disabled" }
  >(
    `SELECT ${COLUMNS}, u.role AS user_role, u.status AS user_status
     FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.secret_hash = ?`,
    [secretHash],
  );
  return r ? { ...toToken(r), userRole: r.user_role, userStatus: r.user_status } : null;
}

/** Records when a token was used. */
export async function touchApiToken(q: Queries, id: number, at: string): Promise<void> {
  await q.run("UPDATE api_tokens SET last_used_at = ? WHERE id = ?", [at, id]);
}

/** Deletes one token; whether it existed. */
export async function deleteApiToken(q: Queries, id: number): Promise<boolean> {
  return (await q.run("DELETE FROM api_tokens WHERE id = ?", [id])).changes > 0;
}

/** Deletes every token of a user; returns how many. */
export async function deleteUserApiTokens(q: Queries, userId: number): Promise<number> {
  return (await q.run("DELETE FROM api_tokens WHERE user_id = ?", [userId])).changes;
}
