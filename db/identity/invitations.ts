/**
 * The invitations' table (migration 031): who was invited where, by whom, until when, and what
 * became of it. Only a token's hash is stored; the token itself never reaches the database.
 */
import type { Queries } from "../kernel/engine.ts";

/** The role an invitation gives: in a project, or (project null) on the server. */
export type InvitationRole = "owner" | "member" | "viewer" | "admin";

/** A stored invitation (its token hash stays in `db/` and `domain/`). */
export interface InvitationRow {
  id: number;
  tokenHash: string;
  email: string;
  role: InvitationRole;
  projectId: number | null;
  invitedBy: number;
  createdAt: string;
  expiresAt: string;
  acceptedAt: string | null;
  revokedAt: string | null;
}

/** An invitation with the names its page shows. */
export interface InvitationDetails extends InvitationRow {
  /** The project's name; null for an invitation to the server (or a project since deleted). */
  projectName: string | null;
  /** Whether the project is gone (deleted): its invitations no longer work. */
  projectGone: boolean;
  invitedByName: string;
}

interface RawInvitation {
  id: number | bigint;
  token_hash: string;
  email: string;
  role: InvitationRole;
  project_id: number | bigint | null;
  invited_by: number | bigint;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
  revoked_at: string | null;
}

const COLUMNS = "i.id, i.token_hash, i.email, i.role, i.project_id, i.invited_by, i.created_at, " +
  "i.expires_at, i.accepted_at, i.revoked_at";

/** The same columns unqualified, for `RETURNING`. */
const RETURNED = COLUMNS.replace(/\bi\./g, "");

function toInvitation(r: RawInvitation): InvitationRow {
  return {
    id: Number(r.id),
    tokenHash: r.token_hash,
    email: r.email,
    role: r.role,
    projectId: r.project_id === null ? null : Number(r.project_id),
    invitedBy: Number(r.invited_by),
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    acceptedAt: r.accepted_at,
    revokedAt: r.revoked_at,
  };
}

/** Stores a new invitation and returns it. */
export async function insertInvitation(
  q: Queries,
  i: Omit<InvitationRow, "id" | "acceptedAt" | "revokedAt">,
): Promise<InvitationRow> {
  const row = await q.get<RawInvitation>(
    `INSERT INTO invitations (token_hash, email, role, project_id, invited_by, created_at,
       expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ${RETURNED}`,
    [i.tokenHash, i.email, i.role, i.projectId, i.invitedBy, i.createdAt, i.expiresAt],
  );
  return toInvitation(row!);
}

/** One invitation by id. */
export async function findInvitation(q: Queries, id: number): Promise<InvitationRow | null> {
  const r = await q.get<RawInvitation>(`SELECT ${COLUMNS} FROM invitations i WHERE i.id = ?`, [
    id,
  ]);
  return r ? toInvitation(r) : null;
}

/** The invitation whose token has `tokenHash`, with its project's and inviter's names. */
export async function findInvitationByHash(
  q: Queries,
  tokenHash: string,
): Promise<InvitationDetails | null> {
  const r = await q.get<
    RawInvitation & { project_name: string | null; project_deleted: string | null; name: string }
  >(
    `SELECT ${COLUMNS}, p.name AS project_name, p.deleted_at AS project_deleted,
       u.display_name AS name
     FROM invitations i
     JOIN users u ON u.id = i.invited_by
     LEFT JOIN projects p ON p.id = i.project_id
     WHERE i.token_hash = ?`,
    [tokenHash],
  );
  if (!r) return null;
  return {
    ...toInvitation(r),
    projectName: r.project_name,
    projectGone: r.project_id !== null && (r.project_name === null || r.project_deleted !== null),
    invitedByName: r.name,
  };
}

/** A page of invitations, newest first: one project's, or (`projectId` undefined) all. */
export async function listInvitations(
  q: Queries,
  options: { projectId?: number; limit: number; offset: number },
): Promise<{ items: InvitationRow[]; total: number }> {
  const where = options.projectId === undefined ? "" : "WHERE i.project_id = ?";
  const params = options.projectId === undefined ? [] : [options.projectId];
  const items = await q.all<RawInvitation>(
    `SELECT ${COLUMNS} FROM invitations i ${where} ORDER BY i.id DESC LIMIT ? OFFSET ?`,
    [...params, options.limit, options.offset],
  );
  const total = await q.get<{ n: number | bigint }>(
    `SELECT count(*) AS n FROM invitations i ${where}`,
    params,
  );
  return { items: items.map(toInvitation), total: Number(total!.n) };
}

/**
 * Marks an invitation accepted at `at`, if it still works then (not accepted, not revoked, not
 * expired); false when it no longer does (another request took it first).
 */
export async function acceptInvitation(q: Queries, id: number, at: string): Promise<boolean> {
  return (await q.run(
    `UPDATE invitations SET accepted_at = ?
     WHERE id = ? AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > ?`,
    [at, id, at],
  )).changes === 1;
}

/** Revokes an invitation not yet accepted; false when it was accepted or revoked already. */
export async function revokeInvitation(q: Queries, id: number, at: string): Promise<boolean> {
  return (await q.run(
    `UPDATE invitations SET revoked_at = ? WHERE id = ? AND accepted_at IS NULL AND revoked_at IS NULL`,
    [at, id],
  )).changes === 1;
}

/**
 * Revokes the pending invitations of `email` to the same place (`projectId`, null: the server):
 * a new invitation replaces them. Returns how many.
 */
export async function revokePendingFor(
  q: Queries,
  email: string,
  projectId: number | null,
  at: string,
): Promise<number> {
  return (await q.run(
    `UPDATE invitations SET revoked_at = ?
     WHERE email = ? AND accepted_at IS NULL AND revoked_at IS NULL
       AND ${projectId === null ? "project_id IS NULL" : "project_id = ?"}`,
    projectId === null ? [at, email] : [at, email, projectId],
  )).changes;
}

/** Gives a pending invitation a new token and expiry (the old link stops working). */
export async function renewInvitation(
  q: Queries,
  id: number,
  renewal: { tokenHash: string; expiresAt: string },
): Promise<InvitationRow | null> {
  const r = await q.get<RawInvitation>(
    `UPDATE invitations SET token_hash = ?, expires_at = ?
     WHERE id = ? AND accepted_at IS NULL AND revoked_at IS NULL RETURNING ${RETURNED}`,
    [renewal.tokenHash, renewal.expiresAt, id],
  );
  return r ? toInvitation(r) : null;
}

/**
 * Marks notifications as dealt with by mail (a direct mail told their recipient already), so
 * the notification mailer does not mail them a second time.
 */
export async function markNotificationsMailed(
  q: Queries,
  ids: number[],
  at: string,
): Promise<void> {
  for (const id of ids) {
    await q.run("UPDATE notifications SET mailed_at = ? WHERE id = ?", [at, id]);
  }
}
