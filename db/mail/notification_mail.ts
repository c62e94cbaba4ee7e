/**
 * The notification mailer's storage (migration 028): which notifications are due to be mailed,
 * claiming them (`mailed_at`, set once, so nothing is mailed twice), the digest schedule of
 * each user, what a mail shows of each notification, and the unsubscribe tokens.
 *
 * Claims are single `UPDATE … RETURNING` statements guarded by the state they change
 * (`mailed_at IS NULL`, the `digest_at` read before): on PostgreSQL an instance claiming the
 * same rows at once waits for the first one's transaction, then finds nothing left to claim.
 */
import type { Queries } from "../kernel/engine.ts";
import {
  COLUMNS,
  type NotificationRow,
  type RawNotification,
  toNotification,
} from "../projects/notifications.ts";
import { subjectAlive } from "../kernel/subjects.ts";

/** How a user's notifications are mailed (as `users.email_notifications` holds it). */
type EmailNotifications = "off" | "immediate" | "daily";

/** The kinds mailed shortly after they arrive (for `immediate`). */
export const IMMEDIATE_KINDS = ["mention", "todo_assigned", "meeting_invited"] as const;

const IMMEDIATE_LIST = IMMEDIATE_KINDS.map((k) => `'${k}'`).join(", ");

/** A notification the mailer claimed (unread: `readAt` is null). */
export type MailedNotification = NotificationRow;

const byTimeThenId = (a: MailedNotification, b: MailedNotification) =>
  a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id - b.id;

/**
 * Up to `limit` active users with `immediate` mail who have a notification of an immediate
 * kind, unread and not mailed, created after `since` and at or before `cutoff`.
 */
export async function usersWithDueMail(
  q: Queries,
  options: { since: string; cutoff: string; limit: number },
): Promise<number[]> {
  const rows = await q.all<{ user_id: number | bigint }>(
    `SELECT DISTINCT n.user_id FROM notifications n JOIN users u ON u.id = n.user_id
     WHERE n.mailed_at IS NULL AND n.read_at IS NULL AND n.kind IN (${IMMEDIATE_LIST})
       AND n.created_at > ? AND n.created_at <= ?
       AND u.email_notifications = 'immediate' AND u.status = 'active'
     ORDER BY n.user_id LIMIT ?`,
    [options.since, options.cutoff, options.limit],
  );
  return rows.map((r) => Number(r.user_id));
}

/**
 * Claims (marks mailed at `now`) every unread, unmailed notification of an immediate kind of
 * `userId` created after `since` and up to `now`, oldest first. Call inside the transaction
 * that queues the mail.
 */
export async function claimImmediate(
  tx: Queries,
  userId: number,
  options: { since: string; now: string },
): Promise<MailedNotification[]> {
  const rows = await tx.all<RawNotification>(
    `UPDATE notifications SET mailed_at = ?
     WHERE user_id = ? AND mailed_at IS NULL AND read_at IS NULL
       AND kind IN (${IMMEDIATE_LIST}) AND created_at > ? AND created_at <= ?
     RETURNING ${COLUMNS}`,
    [options.now, userId, options.since, options.now],
  );
  return rows.map(toNotification).sort(byTimeThenId);
}

/**
 * Claims the digest's notifications of `userId`: unread, not mailed, created after `since` and
 * up to `now`, every kind but `exceptKinds`, oldest first. Call inside the mail's transaction.
 */
export async function claimDigest(
  tx: Queries,
  userId: number,
  options: { since: string; now: string; exceptKinds: readonly string[] },
): Promise<MailedNotification[]> {
  const except = options.exceptKinds.length === 0
    ? ""
    : `AND kind NOT IN (${options.exceptKinds.map(() => "?").join(", ")})`;
  const rows = await tx.all<RawNotification>(
    `UPDATE notifications SET mailed_at = ?
     WHERE user_id = ? AND mailed_at IS NULL AND read_at IS NULL
       AND created_at > ? AND created_at <= ? ${except}
     RETURNING ${COLUMNS}`,
    [options.now, userId, options.since, options.now, ...options.exceptKinds],
  );
  return rows.map(toNotification).sort(byTimeThenId);
}

/**
 * Of `ids` (notifications of `userId`), those the user can still see: in a live project they
 * are still a member of (or in no project), about a subject that still exists.
 */
export async function visibleOf(q: Queries, userId: number, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await q.all<{ id: number | bigint }>(
    `SELECT n.id FROM notifications n
     WHERE n.id IN (${ids.map(() => "?").join(", ")}) AND n.user_id = ?
       AND (n.project_id IS NULL OR EXISTS (SELECT 1 FROM projects p JOIN project_members m
         ON m.project_id = p.id AND m.user_id = n.user_id
         WHERE p.id = n.project_id AND p.deleted_at IS NULL))
       AND ${subjectAlive("n")}`,
    [...ids, userId],
  );
  return new Set(rows.map((r) => Number(r.id)));
}

/** A recipient as a mail needs them. */
export interface Recipient {
  id: number;
  email: string;
  displayName: string;
  locale: "en" | "ja";
  timeZone: string | null;
  emailNotifications: EmailNotifications;
  digestHour: number;
  status: "active" | "disabled";
  digestAt: string | null;
  lastDigestAt: string | null;
}

interface RawRecipient {
  id: number | bigint;
  email: string;
  display_name: string;
  locale: "en" | "ja";
  time_zone: string | null;
  email_notifications: EmailNotifications;
  digest_hour: number | bigint;
  status: "active" | "disabled";
  digest_at: string | null;
  last_digest_at: string | null;
}

const RECIPIENT = "id, email, display_name, locale, time_zone, email_notifications, " +
  "digest_hour, status, digest_at, last_digest_at";

function toRecipient(r: RawRecipient): Recipient {
  return {
    id: Number(r.id),
    email: r.email,
    displayName: r.display_name,
    locale: r.locale,
    timeZone: r.time_zone,
    emailNotifications: r.email_notifications,
    digestHour: Number(r.digest_hour),
    status: r.status,
    digestAt: r.digest_at,
    lastDigestAt: r.last_digest_at,
  };
}

/** A user as a mail needs them. */
export async function findRecipient(q: Queries, id: number): Promise<Recipient | null> {
  const row = await q.get<RawRecipient>(`SELECT ${RECIPIENT} FROM users WHERE id = ?`, [id]);
  return row ? toRecipient(row) : null;
}

/** Up to `limit` users with mail on whose next digest is not scheduled. */
export async function unscheduledDigests(q: Queries, limit: number): Promise<Recipient[]> {
  return (await q.all<RawRecipient>(
    `SELECT ${RECIPIENT} FROM users
     WHERE digest_at IS NULL AND email_notifications <> 'off' AND status = 'active'
     ORDER BY id LIMIT ?`,
    [limit],
  )).map(toRecipient);
}

/**
 * Schedules a user's next digest at `digestAt` unless it was scheduled meanwhile; the first
 * digest lists what arrives from `now` on.
 */
export async function scheduleDigest(
  q: Queries,
  userId: number,
  digestAt: string,
  now: string,
): Promise<void> {
  await q.run(
    `UPDATE users SET digest_at = ?, last_digest_at = coalesce(last_digest_at, ?)
     WHERE id = ? AND digest_at IS NULL`,
    [digestAt, now, userId],
  );
}

/** Up to `limit` users with mail on whose digest is due at `now`, the longest due first. */
export async function dueDigests(q: Queries, now: string, limit: number): Promise<Recipient[]> {
  return (await q.all<RawRecipient>(
    `SELECT ${RECIPIENT} FROM users
     WHERE digest_at <= ? AND email_notifications <> 'off' AND status = 'active'
     ORDER BY digest_at, id LIMIT ?`,
    [now, limit],
  )).map(toRecipient);
}

/**
 * Claims a due digest: moves the user's schedule from `from` to `next` and records `now` as the
 * previous digest. False when another instance (or a settings change) moved it first.
 */
export async function claimDigestSlot(
  tx: Queries,
  userId: number,
  options: { from: string; next: string; now: string },
): Promise<boolean> {
  const row = await tx.get<{ id: number | bigint }>(
    `UPDATE users SET digest_at = ?, last_digest_at = ?
     WHERE id = ? AND digest_at = ? AND email_notifications <> 'off' RETURNING id`,
    [options.next, options.now, userId, options.from],
  );
  return row !== undefined;
}

/** What a mail shows about the notifications' projects, actors and subjects. */
export interface MailDetails {
  projects: Map<number, string>;
  people: Map<number, string>;
  /** A chat message's Markdown, by message id. */
  messages: Map<number, string>;
  /** A meeting's start and end, by meeting id. */
  meetings: Map<number, { startAt: string; endAt: string }>;
  /** A to-do's due date (YYYY-MM-DD or null), by item id. */
  todos: Map<number, string | null>;
  /** A comment's thread, by comment id. */
  commentThreads: Map<number, number>;
}

const list = (ids: Iterable<number>) => {
  const unique = [...new Set(ids)];
  return { unique, marks: unique.map(() => "?").join(", ") };
};

/** Loads what a mail shows about `rows`. */
export async function mailDetails(
  q: Queries,
  rows: readonly MailedNotification[],
): Promise<MailDetails> {
  const details: MailDetails = {
    projects: new Map(),
    people: new Map(),
    messages: new Map(),
    meetings: new Map(),
    todos: new Map(),
    commentThreads: new Map(),
  };
  const of = (type: string) => rows.filter((r) => r.subjectType === type).map((r) => r.subjectId);
  const load = async <R>(ids: Iterable<number>, sql: (marks: string) => string) => {
    const { unique, marks } = list(ids);
    return unique.length === 0 ? [] : await q.all<R>(sql(marks), unique);
  };
  for (
    const r of await load<{ id: number | bigint; name: string }>(
      rows.flatMap((r) => r.projectId === null ? [] : [r.projectId]),
      (m) => `SELECT id, name FROM projects WHERE id IN (${m})`,
    )
  ) details.projects.set(Number(r.id), r.name);
  for (
    const r of await load<{ id: number | bigint; display_name: string }>(
      rows.flatMap((r) => r.actorId === null ? [] : [r.actorId]),
      (m) => `SELECT id, display_name FROM users WHERE id IN (${m})`,
    )
  ) details.people.set(Number(r.id), r.display_name);
  for (
    const r of await load<{ id: number | bigint; text: string }>(
      of("message"),
      (m) => `SELECT id, text FROM chat_messages WHERE id IN (${m})`,
    )
  ) details.messages.set(Number(r.id), r.text);
  for (
    const r of await load<{ id: number | bigint; start_at: string; end_at: string }>(
      of("meeting"),
      (m) => `SELECT id, start_at, end_at FROM meetings WHERE id IN (${m})`,
    )
  ) details.meetings.set(Number(r.id), { startAt: r.start_at, endAt: r.end_at });
  for (
    const r of await load<{ id: number | bigint; due_date: string | null }>(
      of("item"),
      (m) => `SELECT id, due_date FROM todo_items WHERE id IN (${m})`,
    )
  ) details.todos.set(Number(r.id), r.due_date);
  for (
    const r of await load<{ id: number | bigint; thread_id: number | bigint }>(
      of("comment"),
      (m) => `SELECT id, thread_id FROM comments WHERE id IN (${m})`,
    )
  ) details.commentThreads.set(Number(r.id), Number(r.thread_id));
  return details;
}

/** Stores an unsubscribe token's hash for `userId`. */
export async function insertUnsubscribeToken(
  q: Queries,
  tokenHash: string,
  userId: number,
  at: string,
): Promise<void> {
  await q.run(
    "INSERT INTO unsubscribe_tokens (token_hash, user_id, created_at) VALUES (?, ?, ?)",
    [tokenHash, userId, at],
  );
}

/** The stored hash equal to `tokenHash` and its user, if any. */
export async function findUnsubscribeToken(
  q: Queries,
  tokenHash: string,
): Promise<{ tokenHash: string; userId: number } | null> {
  const row = await q.get<{ token_hash: string; user_id: number | bigint }>(
    "SELECT token_hash, user_id FROM unsubscribe_tokens WHERE token_hash = ?",
    [tokenHash],
  );
  return row ? { tokenHash: row.token_hash, userId: Number(row.user_id) } : null;
}

/** Turns a user's notification mail off (the unsubscribe link). */
export async function turnMailOff(q: Queries, userId: number, at: string): Promise<void> {
  await q.run(
    `UPDATE users SET email_notifications = 'off', digest_at = NULL, updated_at = ?
     WHERE id = ?`,
    [at, userId],
  );
}
