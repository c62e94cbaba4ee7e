/**
 * Storage of single sign-on (migration 034): identities at the provider, sign-ins under way,
 * links waiting for a password, and which sessions began by single sign-on. `domain/identity/
 * sso.ts` decides; these functions read and write, each with the caller's queries.
 */
import type { Queries } from "../kernel/engine.ts";

/** An account's identity at a provider. */
export interface SsoIdentityRow {
  id: number;
  userId: number;
  issuer: string;
  subject: string;
  email: string | null;
  linkedAt: string;
}

interface RawIdentity {
  id: number | bigint;
  user_id: number | bigint;
  issuer: string;
  subject: string;
  email: string | null;
  linked_at: string;
}

const IDENTITY_COLUMNS = "id, user_id, issuer, subject, email, linked_at";

function toIdentity(r: RawIdentity): SsoIdentityRow {
  return {
    id: Number(r.id),
    userId: Number(r.user_id),
    issuer: r.issuer,
    subject: r.subject,
    email: r.email,
    linkedAt: r.linked_at,
  };
}

/** The identity `(issuer, subject)`, or null. */
export async function findSsoIdentity(
  q: Queries,
  issuer: string,
  subject: string,
): Promise<SsoIdentityRow | null> {
  const row = await q.get<RawIdentity>(
    `SELECT ${IDENTITY_COLUMNS} FROM sso_identities WHERE issuer = ? AND subject = ?`,
    [issuer, subject],
  );
  return row ? toIdentity(row) : null;
}

/** Links `(issuer, subject)` to user `userId`; null when that identity is linked already. */
export async function insertSsoIdentity(
  q: Queries,
  identity: Omit<SsoIdentityRow, "id">,
): Promise<SsoIdentityRow | null> {
  const row = await q.get<RawIdentity>(
    `INSERT INTO sso_identities (user_id, issuer, subject, email, linked_at)
     VALUES (?, ?, ?, ?, ?) ON CONFLICT (issuer, subject) DO NOTHING
     RETURNING ${IDENTITY_COLUMNS}`,
    [identity.userId, identity.issuer, identity.subject, identity.email, identity.linkedAt],
  );
  return row ? toIdentity(row) : null;
}

/** User `userId`'s identities, oldest link first. */
export async function listSsoIdentities(q: Queries, userId: number): Promise<SsoIdentityRow[]> {
  return (await q.all<RawIdentity>(
    `SELECT ${IDENTITY_COLUMNS} FROM sso_identities WHERE user_id = ? ORDER BY linked_at, id`,
    [userId],
  )).map(toIdentity);
}

/** Removes identity `id` of user `userId` (and the sessions' notes of it); true when removed. */
export async function deleteSsoIdentity(q: Queries, userId: number, id: number): Promise<boolean> {
  await q.run("DELETE FROM sso_sessions WHERE identity_id = ?", [id]);
  return (await q.run("DELETE FROM sso_identities WHERE id = ? AND user_id = ?", [id, userId]))
    .changes === 1;
}

/** Counts the active admins that have an identity at `issuer`. */
export async function countSsoAdmins(q: Queries, issuer: string): Promise<number> {
  const row = await q.get<{ n: number | bigint }>(
    `SELECT count(DISTINCT u.id) AS n FROM users u JOIN sso_identities i ON i.user_id = u.id
     WHERE u.role = 'admin' AND u.status = 'active' AND i.issuer = ?`,
    [issuer],
  );
  return Number(row?.n ?? 0);
}

/** A sign-in under way: what the callback checks the provider's answer with. */
export interface SsoLoginRow {
  stateHash: string;
  nonce: string;
  codeVerifier: string;
  nextPath: string;
  createdAt: string;
  expiresAt: string;
}

/** Stores a sign-in under way. */
export async function insertSsoLogin(q: Queries, login: SsoLoginRow): Promise<void> {
  await q.run(
    `INSERT INTO sso_logins (state_hash, nonce, code_verifier, next_path, created_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?)`,
    [
      login.stateHash,
      login.nonce,
      login.codeVerifier,
      login.nextPath,
      login.createdAt,
      login.expiresAt,
    ],
  );
}

/**
 * Takes the sign-in stored under `stateHash`: deletes it and returns it when it had not
 * expired by `now`, else null. Of two callbacks with one state, one gets the row.
 */
export async function takeSsoLogin(
  q: Queries,
  stateHash: string,
  now: string,
): Promise<SsoLoginRow | null> {
  const row = await q.get<{
    state_hash: string;
    nonce: string;
    code_verifier: string;
    next_path: string;
    created_at: string;
    expires_at: string;
  }>(
    `DELETE FROM sso_logins WHERE state_hash = ?
     RETURNING state_hash, nonce, code_verifier, next_path, created_at, expires_at`,
    [stateHash],
  );
  if (!row || row.expires_at <= now) return null;
  return {
    stateHash: row.state_hash,
    nonce: row.nonce,
    codeVerifier: row.code_verifier,
    nextPath: row.next_path,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}

/** An identity waiting for its account's password before it is linked. */
export interface SsoPendingLinkRow {
  tokenHash: string;
  userId: number;
  issuer: string;
  subject: string;
  email: string | null;
  idToken: string;
  nextPath: string;
  createdAt: string;
  expiresAt: string;
}

interface RawPending {
  token_hash: string;
  user_id: number | bigint;
  issuer: string;
  subject: string;
  email: string | null;
  id_token: string;
  next_path: string;
  created_at: string;
  expires_at: string;
}

const PENDING_COLUMNS =
  "token_hash, user_id, issuer, subject, email, id_token, next_path, created_at, expires_at";

function toPending(r: RawPending): SsoPendingLinkRow {
  return {
    tokenHash: r.token_hash,
    userId: Number(r.user_id),
    issuer: r.issuer,
    subject: r.subject,
    email: r.email,
    idToken: r.id_token,
    nextPath: r.next_path,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
  };
}

/** Stores a link waiting for a password. */
export async function insertSsoPendingLink(q: Queries, link: SsoPendingLinkRow): Promise<void> {
  await q.run(
    `INSERT INTO sso_pending_links (${PENDING_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      link.tokenHash,
      link.userId,
      link.issuer,
      link.subject,
      link.email,
      link.idToken,
      link.nextPath,
      link.createdAt,
      link.expiresAt,
    ],
  );
}

/** The waiting link under `tokenHash` when it has not expired by `now`, else null. */
export async function findSsoPendingLink(
  q: Queries,
  tokenHash: string,
  now: string,
): Promise<SsoPendingLinkRow | null> {
  const row = await q.get<RawPending>(
    `SELECT ${PENDING_COLUMNS} FROM sso_pending_links WHERE token_hash = ? AND expires_at > ?`,
    [tokenHash, now],
  );
  return row ? toPending(row) : null;
}

/** Removes the waiting link under `tokenHash`; true when this call removed it. */
export async function deleteSsoPendingLink(q: Queries, tokenHash: string): Promise<boolean> {
  return (await q.run("DELETE FROM sso_pending_links WHERE token_hash = ?", [tokenHash]))
    .changes === 1;
}

/** Deletes sign-ins and waiting links that expired by `now`. */
export async function pruneSso(q: Queries, now: string): Promise<void> {
  await q.run("DELETE FROM sso_logins WHERE expires_at <= ?", [now]);
  await q.run("DELETE FROM sso_pending_links WHERE expires_at <= ?", [now]);
}

/** Notes that session `sessionIdHash` began by signing in as identity `identityId`. */
export async function insertSsoSession(
  q: Queries,
  session: { sessionIdHash: string; identityId: number; idToken: string },
): Promise<void> {
  await q.run(
    "INSERT INTO sso_sessions (session_id_hash, identity_id, id_token) VALUES (?, ?, ?)",
    [session.sessionIdHash, session.identityId, session.idToken],
  );
}

/** The ID token of session `sessionIdHash` when it began by single sign-on, else null. */
export async function ssoSessionIdToken(
  q: Queries,
  sessionIdHash: string,
): Promise<string | null> {
  const row = await q.get<{ id_token: string }>(
    "SELECT id_token FROM sso_sessions WHERE session_id_hash = ?",
    [sessionIdHash],
  );
  return row?.id_token ?? null;
}
