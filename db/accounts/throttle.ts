/**
 * Storage of the login, password-change and registration throttles (migration 020): one row
 * per attempt in flight, counted event or lock of a rule's subject. `domain/accounts/throttle.ts`
 * decides; these functions read and write, each in the caller's transaction.
 */
import { dialect } from "../kernel/dialect.ts";
import type { Queries } from "../kernel/engine.ts";

/** What a row says about its subject. */
export type ThrottleState = "pending" | "counted" | "locked";

/** A rule and whom it counts (an email, an account, a client address). */
export interface ThrottleSubject {
  rule: string;
  subject: string;
}

/** A row of `throttle_entries`. */
export interface ThrottleEntry extends ThrottleSubject {
  id: number;
  state: ThrottleState;
  createdAt: string;
  expiresAt: string;
}

/**
 * The first key of the PostgreSQL advisory locks taken per subject (the second is a hash of
 * the subject); the migrations' and event logs' locks use another first key.
 */
const LOCK_SPACE = 0x74687274; // "thrt"

/**
 * Makes the transactions that decide about `subjects` run one after another, until this
 * transaction ends. On PostgreSQL: an advisory lock per subject, taken in one order (so two
 * transactions locking the same two subjects cannot deadlock); a statement of this
 * transaction after it sees what the previous holder committed. On SQLite there is nothing to
 * do: its write transactions already run one at a time.
 */
export async function lockThrottleSubjects(q: Queries, subjects: ThrottleSubject[]): Promise<void> {
  if (q.kind !== "postgres" || subjects.length === 0) return;
  // One `?` per subject is bounded: an attempt's subjects are its checks, a handful fixed by
  // the code (the rules a route applies), never a count that grows with stored data.
  const values = subjects.map(() => "(?::text)").join(", ");
  await q.run(
    `SELECT pg_advisory_xact_lock(${LOCK_SPACE}, k) FROM unnest(ARRAY(
       SELECT DISTINCT hashtext(s) FROM (VALUES ${values}) AS v (s) ORDER BY 1)) AS k`,
    subjects.map(lockName),
  );
}

function lockName(s: ThrottleSubject): string {
  return `${s.rule}\n${s.subject}`;
}

/** The rows of `subjects` that still matter at `now` (expiring after it), oldest first. */
export async function listThrottleEntries(
  q: Queries,
  subjects: ThrottleSubject[],
  now: string,
): Promise<ThrottleEntry[]> {
  if (subjects.length === 0) return [];
  // One range of `throttle_entries_subject` per subject; two `?` a subject, bounded as in
  // `lockThrottleSubjects` (an attempt's checks).
  const which = subjects.map(() => "(rule = ? AND subject = ?)").join(" OR ");
  const rows = await q.all<{
    id: number;
    rule: string;
    subject: string;
    state: ThrottleState;
    created_at: string;
    expires_at: string;
  }>(
    `SELECT id, rule, subject, state, created_at, expires_at FROM throttle_entries
     WHERE (${which}) AND expires_at > ? ORDER BY created_at, id`,
    [...subjects.flatMap((s) => [s.rule, s.subject]), now],
  );
  return rows.map((r) => ({
    id: r.id,
    rule: r.rule,
    subject: r.subject,
    state: r.state,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
  }));
}

/** Adds rows; returns their ids (in no particular order). A write returning rows. */
export async function insertThrottleEntries(
  q: Queries,
  entries: Array<Omit<ThrottleEntry, "id">>,
): Promise<number[]> {
  if (entries.length === 0) return [];
  // A row of `?` per entry is bounded: one entry per check of an attempt (a handful).
  const rows = await q.all<{ id: number }>(
    `INSERT INTO throttle_entries (rule, subject, state, created_at, expires_at)
     VALUES ${entries.map(() => "(?, ?, ?, ?, ?)").join(", ")} RETURNING id`,
    entries.flatMap((e) => [e.rule, e.subject, e.state, e.createdAt, e.expiresAt]),
  );
  return rows.map((r) => r.id);
}

/** Deletes rows by id. */
export async function deleteThrottleEntries(q: Queries, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await q.run(
    `DELETE FROM throttle_entries WHERE id IN (${dialect(q).intsOf("?")})`,
    [JSON.stringify(ids)],
  );
}

/** Deletes a subject's rows in `states` (a lock lifted, counted events forgotten). */
export async function deleteThrottleSubjectEntries(
  q: Queries,
  s: ThrottleSubject,
  states: ThrottleState[],
): Promise<void> {
  // `states` has at most the three states: a bounded list.
  await q.run(
    `DELETE FROM throttle_entries WHERE rule = ? AND subject = ?
     AND state IN (${states.map(() => "?").join(", ")})`,
    [s.rule, s.subject, ...states],
  );
}

/**
 * Deletes at most `max` rows that expired by `now`; returns how many. On PostgreSQL, rows
 * another transaction is deleting are skipped rather than waited for (two instances pruning
 * at once would otherwise wait on, or deadlock over, each other's rows).
 */
export async function pruneThrottleEntries(q: Queries, now: string, max: number): Promise<number> {
  const skipLocked = q.kind === "postgres" ? " FOR UPDATE SKIP LOCKED" : "";
  return (await q.run(
    `DELETE FROM throttle_entries WHERE id IN (
       SELECT id FROM throttle_entries WHERE expires_at <= ? ORDER BY expires_at LIMIT ?${skipLocked})`,
    [now, max],
  )).changes;
}
