/** Storage of personal API tokens, keyed by the SHA-256 of their secret (never the secret). */
import type { Database } from "./sqlite.ts";

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

interface RawToken {
  id: number;
  user_id: number;
  name: string;
  scope: "read" | "write";
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
}

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

/** Stores a new token and returns its id. */
export function insertApiToken(
  db: Database,
  t: Omit<ApiTokenRow, "id" | "lastUsedAt"> & { secretHash: string },
): number {
  return (db.sql.prepare(
    `INSERT INTO api_tokens (user_id, name, scope, secret_hash, created_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
  ).get(t.userId, t.name, t.scope, t.secretHash, t.createdAt, t.expiresAt) as { id: number }).id;
}

/** One of a user's tokens. */
export function findApiToken(db: Database, userId: number, id: number): ApiTokenRow | null {
  const r = db.sql.prepare(`SELECT ${COLUMNS} FROM api_tokens t WHERE t.id = ? AND t.user_id = ?`)
    .get(id, userId) as RawToken | undefined;
  return r ? toToken(r) : null;
}

/** A user's tokens, oldest first. */
export function listApiTokens(db: Database, userId: number): ApiTokenRow[] {
  return (db.sql.prepare(
    `SELECT ${COLUMNS} FROM api_tokens t WHERE t.user_id = ? ORDER BY t.created_at, t.id`,
  ).all(userId) as unknown as RawToken[]).map(toToken);
}

/** How many tokens a user has. */
export function countApiTokens(db: Database, userId: number): number {
  return (db.sql.prepare("SELECT count(*) AS n FROM api_tokens WHERE user_id = ?")
    .get(userId) as { n: number }).n;
}

/**
 * The token whose secret hashes to `secretHash`, with its owner's role and status: one
 * statement over the unique index and the users' primary key. The statement is prepared once
 * per connection, since every bearer request runs it.
 */
export function findApiTokenByHash(db: Database, secretHash: string): ApiTokenOwner | null {
  const r = byHash(db).get(secretHash) as
    | RawToken & { user_role: "admin" | "member"; user_status: "active" | "disabled" }
    | undefined;
  return r ? { ...toToken(r), userRole: r.user_role, userStatus: r.user_status } : null;
}

const byHashStatements = new WeakMap<Database, ReturnType<Database["sql"]["prepare"]>>();

function byHash(db: Database) {
  let statement = byHashStatements.get(db);
  if (!statement) {
    statement = db.sql.prepare(
      `SELECT ${COLUMNS}, u.role AS user_role, u.status AS user_status
       FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.secret_hash = ?`,
    );
    byHashStatements.set(db, statement);
  }
  return statement;
}

/** Records when a token was used. */
export function touchApiToken(db: Database, id: number, at: string): void {
  db.sql.prepare("UPDATE api_tokens SET last_used_at = ? WHERE id = ?").run(at, id);
}

/** Deletes one token; whether it existed. */
export function deleteApiToken(db: Database, id: number): boolean {
  return Number(db.sql.prepare("DELETE FROM api_tokens WHERE id = ?").run(id).changes) > 0;
}

/** Deletes every token of a user; returns how many. */
export function deleteUserApiTokens(db: Database, userId: number): number {
  return Number(db.sql.prepare("DELETE FROM api_tokens WHERE user_id = ?").run(userId).changes);
}
