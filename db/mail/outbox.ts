/**
 * The mail outbox (migrations 026 and 033): queued mail, its claims and its outcomes, and the
 * contents of each mail still to be sent (`mail_bodies`, deleted at its last attempt).
 */
import { dialect } from "../kernel/dialect.ts";
import type { Queries } from "../kernel/engine.ts";
import { ownerGone } from "../kernel/presence.ts";

export type MailStatus = "pending" | "sent" | "failed";

/** A stored mail (what the outbox's log shows of it). */
export interface MailRow {
  id: number;
  to: string;
  kind: string;
  subject: string;
  messageId: string;
  status: MailStatus;
  attempts: number;
  nextAttemptAt: string | null;
  lastError: string | null;
  createdAt: string;
  sentAt: string | null;
}

/** A mail claimed for an attempt: its row and its contents. */
export interface MailToSend extends MailRow {
  text: string;
  html: string;
  headers: Record<string, string>;
}

/** What is queued. */
export type MailDraftRow = Pick<
  MailToSend,
  "to" | "kind" | "subject" | "text" | "html" | "headers" | "messageId"
>;

interface RawBody {
  mail_id: number | bigint;
  text_body: string;
  html_body: string;
  headers: string;
}

interface RawMail {
  id: number | bigint;
  to_address: string;
  kind: string;
  subject: string;
  message_id: string;
  status: MailStatus;
  attempts: number | bigint;
  next_attempt_at: string | null;
  last_error: string | null;
  created_at: string;
  sent_at: string | null;
}

const COLUMNS = `id, to_address, kind, subject, message_id, status, attempts, next_attempt_at,
  last_error, created_at, sent_at`;

function toMail(r: RawMail): MailRow {
  return {
    id: Number(r.id),
    to: r.to_address,
    kind: r.kind,
    subject: r.subject,
    messageId: r.message_id,
    status: r.status,
    attempts: Number(r.attempts),
    nextAttemptAt: r.next_attempt_at,
    lastError: r.last_error,
    createdAt: r.created_at,
    sentAt: r.sent_at,
  };
}

/** Queues a mail, due at `createdAt`; returns its id. Call inside a transaction (two rows). */
export async function insertMail(
  q: Queries,
  mail: MailDraftRow & { createdAt: string },
): Promise<number> {
  const row = await q.get<{ id: number | bigint }>(
    `INSERT INTO mail_outbox (to_address, kind, subject, message_id, status, attempts,
       next_attempt_at, created_at)
     VALUES (?, ?, ?, ?, 'pending', 0, ?, ?) RETURNING id`,
    [mail.to, mail.kind, mail.subject, mail.messageId, mail.createdAt, mail.createdAt],
  );
  const id = Number(row!.id);
  await q.run(
    "INSERT INTO mail_bodies (mail_id, text_body, html_body, headers) VALUES (?, ?, ?, ?)",
    [
      id,
      mail.text,
      mail.html,
      JSON.stringify(mail.headers),
    ],
  );
  return id;
}

/**
 * Claims up to `limit` due pending mails for an attempt, oldest due first; call inside a
 * transaction. A mail is due when its time came and nobody holds a claim on it: no claim, a
 * claim whose lease ran out, or (PostgreSQL) a claim of an instance that is gone. The claim is
 * `claimed_by = owner` until `leaseUntil`. On PostgreSQL the rows are locked with `SKIP
 * LOCKED`, so instances claiming at once get different mails.
 */
export async function claimDueMails(
  tx: Queries,
  options: { now: string; limit: number; leaseUntil: string; owner: number | null },
): Promise<MailToSend[]> {
  const free = tx.kind === "postgres"
    ? `(claimed_until IS NULL OR claimed_until <= ? OR ${ownerGone("claimed_by")})`
    : "(claimed_until IS NULL OR claimed_until <= ?)";
  const chosen = `SELECT id FROM mail_outbox
    WHERE status = 'pending' AND next_attempt_at <= ? AND ${free}
    ORDER BY next_attempt_at, id LIMIT ?`;
  const params = [options.owner, options.leaseUntil, options.now, options.now, options.limit];
  const rows = tx.kind === "postgres"
    ? await tx.all<RawMail>(
      `WITH chosen AS (${chosen} FOR UPDATE SKIP LOCKED)
       UPDATE mail_outbox m SET claimed_by = ?, claimed_until = ?
       FROM chosen WHERE m.id = chosen.id RETURNING ${
        COLUMNS.split(",").map((c) => `m.${c.trim()}`).join(", ")
      }`,
      [options.now, options.now, options.limit, options.owner, options.leaseUntil],
    )
    : await tx.all<RawMail>(
      `UPDATE mail_outbox SET claimed_by = ?, claimed_until = ?
       WHERE id IN (${chosen}) RETURNING ${COLUMNS}`,
      params,
    );
  if (rows.length === 0) return [];
  const bodies = new Map(
    (await tx.all<RawBody>(
      `SELECT mail_id, text_body, html_body, headers FROM mail_bodies
       WHERE mail_id IN (${dialect(tx).intsOf("?")})`,
      [JSON.stringify(rows.map((r) => Number(r.id)))],
    )).map((b) => [Number(b.mail_id), b]),
  );
  return rows.map((r): MailToSend => {
    const body = bodies.get(Number(r.id));
    return {
      ...toMail(r),
      text: body?.text_body ?? "",
      html: body?.html_body ?? "",
      headers: body ? JSON.parse(body.headers) as Record<string, string> : {},
    };
  }).sort((a, b) =>
    a.nextAttemptAt! < b.nextAttemptAt! ? -1 : a.nextAttemptAt! > b.nextAttemptAt! ? 1 : a.id - b.id
  );
}

/** Lets go of every claim (SQLite, at the sender's start: one process owns the database). */
export async function releaseClaims(q: Queries): Promise<void> {
  await q.run(
    "UPDATE mail_outbox SET claimed_by = NULL, claimed_until = NULL WHERE claimed_by IS NOT NULL OR claimed_until IS NOT NULL",
  );
}

/** Lets go of the claims on `ids` that are still pending (a stopping sender's unfinished batch). */
export async function releaseMails(q: Queries, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await q.run(
    `UPDATE mail_outbox SET claimed_by = NULL, claimed_until = NULL
     WHERE status = 'pending' AND id IN (${ids.map(() => "?").join(", ")})`,
    ids,
  );
}

/**
 * Records an attempt's outcome and ends the claim (nothing when the mail is no longer pending);
 * at the last attempt (sent, or failed for good) the mail's contents go.
 */
export async function finishMail(
  q: Queries,
  id: number,
  outcome: {
    status: MailStatus;
    attempts: number;
    lastError: string | null;
    nextAttemptAt: string | null;
    sentAt: string | null;
  },
): Promise<void> {
  await q.run(
    `UPDATE mail_outbox SET status = ?, attempts = ?, last_error = ?, next_attempt_at = ?,
       sent_at = ?, claimed_by = NULL, claimed_until = NULL
     WHERE id = ? AND status = 'pending'`,
    [
      outcome.status,
      outcome.attempts,
      outcome.lastError,
      outcome.nextAttemptAt,
      outcome.sentAt,
      id,
    ],
  );
  if (outcome.status !== "pending") await q.run("DELETE FROM mail_bodies WHERE mail_id = ?", [id]);
}

/** A page of mails, newest first, and how many there are. */
export async function listMails(
  q: Queries,
  page: { limit: number; offset: number },
): Promise<{ items: MailRow[]; total: number }> {
  const [rows, count] = await Promise.all([
    q.all<RawMail>(`SELECT ${COLUMNS} FROM mail_outbox ORDER BY id DESC LIMIT ? OFFSET ?`, [
      page.limit,
      page.offset,
    ]),
    q.get<{ n: number | bigint }>("SELECT count(*) AS n FROM mail_outbox"),
  ]);
  return { items: rows.map(toMail), total: Number(count!.n) };
}

/** The mail that failed last (by id), if any. */
export async function lastFailedMail(q: Queries): Promise<MailRow | null> {
  const row = await q.get<RawMail>(
    `SELECT ${COLUMNS} FROM mail_outbox WHERE status = 'failed' ORDER BY id DESC LIMIT 1`,
  );
  return row ? toMail(row) : null;
}

/** A mail by id. */
export async function findMail(q: Queries, id: number): Promise<MailRow | null> {
  const row = await q.get<RawMail>(`SELECT ${COLUMNS} FROM mail_outbox WHERE id = ?`, [id]);
  return row ? toMail(row) : null;
}
