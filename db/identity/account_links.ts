/**
 * Storage of password-reset and email-verification links (migration 032): only a token's
 * hash is kept. `domain/identity/` decides what a link may do; these functions read and write,
 * each with the caller's queries.
 */
import type { Queries } from "../kernel/engine.ts";

/** What a link is for. */
export type AccountLinkKind = "reset" | "verify";

/** A stored link. */
export interface AccountLinkRow {
  id: number;
  tokenHash: string;
  userId: number;
  kind: AccountLinkKind;
  /** Whether it went to the account's address by mail (using it proves the address). */
  mailed: boolean;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
}

interface RawLink {
  id: number | bigint;
  token_hash: string;
  user_id: number | bigint;
  kind: AccountLinkKind;
  mailed: number | bigint;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

const COLUMNS = "id, token_hash, user_id, kind, mailed, created_at, expires_at, used_at";

function toLink(r: RawLink): AccountLinkRow {
  return {
    id: Number(r.id),
    tokenHash: r.token_hash,
    userId: Number(r.user_id),
    kind: r.kind,
    mailed: Number(r.mailed) === 1,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    usedAt: r.used_at,
  };
}

/** Stores a link; returns its id. */
export async function insertAccountLink(
  q: Queries,
  link: Omit<AccountLinkRow, "id" | "usedAt">,
): Promise<number> {
  const row = await q.get<{ id: number | bigint }>(
    `INSERT INTO account_links (token_hash, user_id, kind, mailed, created_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
    [
      link.tokenHash,
      link.userId,
      link.kind,
      link.mailed ? 1 : 0,
      link.createdAt,
      link.expiresAt,
    ],
  );
  return Number(row!.id);
}

/** The link stored under `tokenHash`, used or not, or null. */
export async function findAccountLink(
  q: Queries,
  tokenHash: string,
): Promise<AccountLinkRow | null> {
  const row = await q.get<RawLink>(
    `SELECT ${COLUMNS} FROM account_links WHERE token_hash = ?`,
    [tokenHash],
  );
  return row ? toLink(row) : null;
}

/**
 * Marks link `id` used at `now` if it still works then (unused, not expired); true when this
 * call used it. Two requests using one link at once: one of them gets true.
 */
export async function useAccountLink(q: Queries, id: number, now: string): Promise<boolean> {
  return (await q.run(
    "UPDATE account_links SET used_at = ? WHERE id = ? AND used_at IS NULL AND expires_at > ?",
    [now, id, now],
  )).changes === 1;
}

/** Ends every unused link of `kind` of user `userId` (marked used at `now`); returns how many. */
export async function endAccountLinks(
  q: Queries,
  userId: number,
  kind: AccountLinkKind,
  now: string,
): Promise<number> {
  return (await q.run(
    "UPDATE account_links SET used_at = ? WHERE user_id = ? AND kind = ? AND used_at IS NULL",
    [now, userId, kind],
  )).changes;
}

/** Deletes at most `max` links that expired by `now`; returns how many. */
export async function pruneAccountLinks(q: Queries, now: string, max: number): Promise<number> {
  return (await q.run(
    `DELETE FROM account_links WHERE id IN (
       SELECT id FROM account_links WHERE expires_at <= ? ORDER BY expires_at LIMIT ?)`,
    [now, max],
  )).changes;
}
