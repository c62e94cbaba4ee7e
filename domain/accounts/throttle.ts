/**
 * Throttles checked before any hashing, kept in the database so that every instance over it
 * counts together (`db/accounts/throttle.ts`, migration 020). Logins: per account (5 failures within 15
 * minutes lock that email for 15 minutes) and per client address (20 failures within a minute
 * lock that address for a minute). Registrations: per client address, a configured number of
 * accepted registrations within any hour.
 *
 * An admitted attempt is written first, in a short transaction of its own, and counts against
 * the limits until it ends (in another short transaction): attempts sent at once, through one
 * instance or several, cannot pass a limit together, and no transaction is held while a
 * password is hashed.
 */
import {
  deleteThrottleEntries,
  deleteThrottleSubjectEntries,
  insertThrottleEntries,
  listThrottleEntries,
  lockThrottleSubjects,
  pruneThrottleEntries,
  type ThrottleEntry,
  type ThrottleSubject,
} from "../../db/accounts/throttle.ts";
import type { Engine, Queries } from "../../db/kernel/engine.ts";
import type { Clock } from "../kernel/clock.ts";
import { DomainError } from "../kernel/errors.ts";

interface Rule {
  /** The rule's name in the database (`throttle_entries.rule`). */
  name: string;
  limit: number;
  windowMs: number;
  /** How long reaching the limit locks the subject; 0: no lock, a sliding window of `windowMs`. */
  lockMs: number;
}

const ACCOUNT_RULE = { limit: 5, windowMs: 15 * 60_000, lockMs: 15 * 60_000 };
const ADDRESS_RULE = { limit: 20, windowMs: 60_000, lockMs: 60_000 };

/** How long a caller waits when the allowance is taken by attempts still being checked. */
const PENDING_WAIT_MS = 1000;

/**
 * How long an attempt that never ends (its instance stopped while hashing) keeps its place:
 * far longer than a hash waits in the hasher's queue (about 5 s at the default limits).
 */
const PENDING_MS = 2 * 60_000;

/**
 * Expired rows are pruned by every `PRUNE_EVERY`-th admission of an instance, at most
 * `PRUNE_BATCH` at a time: an admission adds at most two rows that outlive it, so the pruning
 * keeps up, and the table holds about what the windows hold.
 */
const PRUNE_EVERY = 64;
const PRUNE_BATCH = 1000;

/** A rule applied to one subject. */
interface Check {
  rule: Rule;
  subject: string;
}

const subjectOf = (c: Check): ThrottleSubject => ({ rule: c.rule.name, subject: c.subject });

/** Milliseconds `rule` makes its subject wait, given the subject's live rows; 0: none. */
function waitFor(rule: Rule, entries: ThrottleEntry[], now: number): number {
  let lockedUntil = 0;
  let pending = 0;
  const counted: number[] = [];
  for (const e of entries) {
    if (e.state === "locked") lockedUntil = Math.max(lockedUntil, Date.parse(e.expiresAt));
    else if (e.state === "pending") pending++;
    else counted.push(Date.parse(e.createdAt));
  }
  if (lockedUntil > now) return lockedUntil - now;
  counted.sort((a, b) => a - b);
  // Without a lock, a full window reopens when its oldest counted event leaves it.
  const full = counted.length - rule.limit;
  if (full >= 0) return counted[full]! + rule.windowMs - now;
  if (counted.length + pending >= rule.limit) return PENDING_WAIT_MS;
  return 0;
}

/** How an admitted attempt ended. */
type Outcome = "counted" | "uncounted";

/** Admissions and endings of attempts under some rules, over the database. */
class Counter {
  #admissions = 0;
  constructor(readonly db: Engine, readonly clock: Clock) {}

  /**
   * Admits one attempt under every check (its rows written and committed) and returns the
   * rows' ids, or returns the milliseconds to wait when a check refuses (the first one that
   * does, in order); then nothing is written.
   */
  async admit(checks: Check[]): Promise<{ ids: number[] } | { wait: number }> {
    const now = this.clock.now().getTime();
    if (++this.#admissions % PRUNE_EVERY === 0) {
      await pruneThrottleEntries(this.db, new Date(now).toISOString(), PRUNE_BATCH);
    }
    const subjects = checks.map(subjectOf);
    return await this.db.transaction(async (tx) => {
      await lockThrottleSubjects(tx, subjects);
      const entries = await listThrottleEntries(tx, subjects, new Date(now).toISOString());
      for (const c of checks) {
        const mine = entries.filter((e) => e.rule === c.rule.name && e.subject === c.subject);
        const wait = waitFor(c.rule, mine, now);
        if (wait > 0) return { wait };
      }
      const ids = await insertThrottleEntries(
        tx,
        subjects.map((s) => ({
          ...s,
          state: "pending",
          createdAt: new Date(now).toISOString(),
          expiresAt: new Date(now + PENDING_MS).toISOString(),
        })),
      );
      return { ids };
    });
  }

  /**
   * Ends an admitted attempt (its rows `ids`): a counted one becomes an event of every check,
   * which may lock a subject. `clear`: the subjects whose counted events and lock go too.
   */
  async end(
    checks: Check[],
    ids: number[],
    outcome: Outcome,
    clear: Check[] = [],
    also?: (tx: Queries) => Promise<void>,
  ): Promise<void> {
    const now = this.clock.now().getTime();
    const at = new Date(now).toISOString();
    if (outcome === "uncounted" && clear.length === 0 && !also) {
      // Only its own rows go: nothing is decided, so no lock is needed.
      await this.db.transaction((tx) => deleteThrottleEntries(tx, ids));
      return;
    }
    await this.db.transaction(async (tx) => {
      await lockThrottleSubjects(tx, checks.map(subjectOf));
      await deleteThrottleEntries(tx, ids);
      for (const c of clear) {
        await deleteThrottleSubjectEntries(tx, subjectOf(c), ["counted", "locked"]);
      }
      await also?.(tx);
      if (outcome === "uncounted") return;
      await insertThrottleEntries(
        tx,
        checks.map((c) => ({
          ...subjectOf(c),
          state: "counted",
          createdAt: at,
          expiresAt: new Date(now + c.rule.windowMs).toISOString(),
        })),
      );
      const locking = checks.filter((c) => c.rule.lockMs > 0);
      const entries = await listThrottleEntries(tx, locking.map(subjectOf), at);
      for (const c of locking) {
        const counted = entries.filter((e) =>
          e.rule === c.rule.name && e.subject === c.subject && e.state === "counted"
        ).length;
        if (counted >= c.rule.limit) {
          // The limit reached: the subject is locked, and its count starts again after.
          await deleteThrottleSubjectEntries(tx, subjectOf(c), ["counted"]);
          await insertThrottleEntries(tx, [{
            ...subjectOf(c),
            state: "locked",
            createdAt: at,
            expiresAt: new Date(now + c.rule.lockMs).toISOString(),
          }]);
        }
      }
    });
  }
}

/** An attempt that passed the throttle; say how it ended, once (later calls do nothing). */
export interface LoginAttempt {
  /** The attempt failed; `also` writes in the transaction that counts it (its audit row). */
  failed(also?: (tx: Queries) => Promise<void>): Promise<void>;
  succeeded(): Promise<void>;
  /** The password was never checked (the server was busy): frees the place, counts nothing. */
  abandoned(): Promise<void>;
}

/**
 * Tracks failed logins per account and per client address. Its `name` keeps its counts
 * apart from another throttle's: `login`, or `password` for password changes (whose failures
 * do not lock the account's login).
 */
export class LoginThrottle {
  readonly #counter: Counter;
  readonly #account: Rule;
  readonly #address: Rule;

  constructor(db: Engine, clock: Clock, name = "login") {
    this.#counter = new Counter(db, clock);
    this.#account = { name: `${name}_account`, ...ACCOUNT_RULE };
    this.#address = { name: `${name}_address`, ...ADDRESS_RULE };
  }

  /**
   * Admits one attempt for `account` (an email) from `address`, or throws `rate_limited`
   * (with seconds to wait). The admission is committed before this resolves, so attempts
   * sent at once count against the limits before any of them is hashed.
   */
  async begin(account: string, address: string): Promise<LoginAttempt> {
    const checks = [
      { rule: this.#account, subject: account },
      { rule: this.#address, subject: address },
    ];
    const admitted = await this.#counter.admit(checks);
    if ("wait" in admitted) {
      throw new DomainError("rate_limited", "Too many failed logins; try again later", {
        retryAfter: Math.ceil(admitted.wait / 1000),
      });
    }
    let ended = false;
    const end = async (
      outcome: "failed" | "succeeded" | "abandoned",
      also?: (tx: Queries) => Promise<void>,
    ) => {
      if (ended) return;
      ended = true;
      await this.#counter.end(
        checks,
        admitted.ids,
        outcome === "failed" ? "counted" : "uncounted",
        // A success forgets the account's failures (not the address's).
        outcome === "succeeded" ? [checks[0]!] : [],
        also,
      );
    };
    return {
      failed: (also) => end("failed", also),
      succeeded: () => end("succeeded"),
      abandoned: () => end("abandoned"),
    };
  }
}

/** A registration that passed the throttle; say how it ended, once. */
export interface RegistrationAttempt {
  /** The account was created: the registration counts against the address. */
  accepted(): Promise<void>;
  /** Nothing was created (refused, or the server was busy): counts nothing. */
  abandoned(): Promise<void>;
}

/**
 * Limits accepted registrations per client address within any hour (each costs a password
 * hash). Refused registrations do not count; registrations in flight do until they end.
 */
export class RegistrationThrottle {
  readonly #counter: Counter;
  readonly #rule: Rule;

  constructor(db: Engine, clock: Clock, limitPerHour: number) {
    this.#counter = new Counter(db, clock);
    this.#rule = {
      name: "registration_address",
      limit: limitPerHour,
      windowMs: 3_600_000,
      lockMs: 0,
    };
  }

  /** Admits one registration from `address`, or throws `rate_limited` (with seconds to wait). */
  async begin(address: string): Promise<RegistrationAttempt> {
    const checks = [{ rule: this.#rule, subject: address }];
    const admitted = await this.#counter.admit(checks);
    if ("wait" in admitted) {
      throw new DomainError("rate_limited", "Too many registrations; try again later", {
        retryAfter: Math.ceil(admitted.wait / 1000),
      });
    }
    let ended = false;
    const end = async (accepted: boolean) => {
      if (ended) return;
      ended = true;
      await this.#counter.end(checks, admitted.ids, accepted ? "counted" : "uncounted");
    };
    return { accepted: () => end(true), abandoned: () => end(false) };
  }
}

/** An invitation that passed the throttle; say how it ended, once. */
export interface InvitationAttempt {
  /** The invitation was made (or sent again): it counts against the inviter. */
  sent(): Promise<void>;
  /** Nothing was made (refused): counts nothing. */
  abandoned(): Promise<void>;
}

/**
 * Limits invitations per inviter within any hour (each may mail a stranger): made and sent-again
 * ones count; refused ones do not; ones in flight do until they end.
 */
export class InvitationThrottle {
  readonly #counter: Counter;
  readonly #rule: Rule;

  constructor(db: Engine, clock: Clock, limitPerHour = 20) {
    this.#counter = new Counter(db, clock);
    this.#rule = { name: "invitation_user", limit: limitPerHour, windowMs: 3_600_000, lockMs: 0 };
  }

  /** Admits one invitation by `userId`, or throws `rate_limited` (with seconds to wait). */
  async begin(userId: number): Promise<InvitationAttempt> {
    const checks = [{ rule: this.#rule, subject: String(userId) }];
    const admitted = await this.#counter.admit(checks);
    if ("wait" in admitted) {
      throw new DomainError("rate_limited", "Too many invitations; try again later", {
        retryAfter: Math.ceil(admitted.wait / 1000),
      });
    }
    let ended = false;
    const end = async (sent: boolean) => {
      if (ended) return;
      ended = true;
      await this.#counter.end(checks, admitted.ids, sent ? "counted" : "uncounted");
    };
    return { sent: () => end(true), abandoned: () => end(false) };
  }
}

/**
 * A plain allowance: at most `limit` uses per subject within any `windowMs` (a sliding window,
 * no lock), counted in the database like the throttles above, so every instance over it
 * shares it. Password-reset requests (per client address), reset mails (per address) and
 * verification mails (per account) use one each.
 */
export class UseLimit {
  readonly #counter: Counter;
  readonly #rule: Rule;

  /** `name`: the rule's name in `throttle_entries.rule`, unique to this limit. */
  constructor(db: Engine, clock: Clock, name: string, limit: number, windowMs: number) {
    this.#counter = new Counter(db, clock);
    this.#rule = { name, limit, windowMs, lockMs: 0 };
  }

  /**
   * Counts one use by `subject` and returns 0, or returns the milliseconds until the next use
   * is allowed (then nothing is counted).
   */
  async take(subject: string): Promise<number> {
    const checks = [{ rule: this.#rule, subject }];
    const admitted = await this.#counter.admit(checks);
    if ("wait" in admitted) return admitted.wait;
    await this.#counter.end(checks, admitted.ids, "counted");
    return 0;
  }
}
