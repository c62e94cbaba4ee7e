/**
 * Throttles checked before any hashing, kept in memory and bounded in size. Logins: per
 * account (5 failures within 15 minutes lock that email for 15 minutes) and per client address
 * (20 failures within a minute lock that address for a minute). Registrations: per client
 * address, a configured number of accepted registrations within any hour.
 */
import type { Clock } from "./clock.ts";
import { DomainError } from "./errors.ts";

interface Rule {
  limit: number;
  windowMs: number;
  /** How long reaching the limit locks the key; 0: no lock, a sliding window of `windowMs`. */
  lockMs: number;
}

const EMAIL_RULE: Rule = { limit: 5, windowMs: 15 * 60_000, lockMs: 15 * 60_000 };
const ADDRESS_RULE: Rule = { limit: 20, windowMs: 60_000, lockMs: 60_000 };
const MAX_TRACKED = 100_000;

interface Entry {
  /** When the counted events (failed logins, accepted registrations) happened. */
  failures: number[];
  lockedUntil: number;
  /** Attempts being checked right now; they count against the limit until they end. */
  pending: number;
}

/** How long a caller waits when the allowance is taken by attempts still being checked. */
const PENDING_WAIT_MS = 1000;

/** One key space (emails or addresses) under one rule. */
class Counter {
  readonly #entries = new Map<string, Entry>();
  constructor(readonly rule: Rule) {}

  /**
   * Reserves one attempt for `key` and returns 0, or returns the milliseconds to wait when
   * the key is locked or its failures plus the attempts in flight reach the limit.
   */
  reserve(key: string, now: number): number {
    const entry = this.#entry(key, now);
    if (entry.lockedUntil > now) return entry.lockedUntil - now;
    // Without a lock, a full window reopens when its oldest counted event leaves it.
    const full = entry.failures.length - this.rule.limit;
    if (full >= 0) return entry.failures[full]! + this.rule.windowMs - now;
    if (entry.failures.length + entry.pending >= this.rule.limit) return PENDING_WAIT_MS;
    entry.pending++;
    return 0;
  }

  /** Ends a reserved attempt; a counted one may lock the key. */
  release(key: string, now: number, counted: boolean): void {
    const entry = this.#entry(key, now);
    entry.pending = Math.max(0, entry.pending - 1);
    if (counted) {
      entry.failures.push(now);
      if (this.rule.lockMs > 0 && entry.failures.length >= this.rule.limit) {
        entry.lockedUntil = now + this.rule.lockMs;
        entry.failures = [];
      }
    }
    this.#forgetIfIdle(key, entry, now);
  }

  /** Forgets `key`'s failures (attempts still in flight keep their reservation). */
  clear(key: string, now: number): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    entry.failures = [];
    entry.lockedUntil = 0;
    this.#forgetIfIdle(key, entry, now);
  }

  #entry(key: string, now: number): Entry {
    let entry = this.#entries.get(key);
    if (entry) {
      entry.failures = entry.failures.filter((t) => now - t < this.rule.windowMs);
      return entry;
    }
    if (this.#entries.size >= MAX_TRACKED) this.#makeRoom(now);
    entry = { failures: [], lockedUntil: 0, pending: 0 };
    this.#entries.set(key, entry);
    return entry;
  }

  #forgetIfIdle(key: string, entry: Entry, now: number): void {
    if (entry.pending === 0 && entry.failures.length === 0 && entry.lockedUntil <= now) {
      this.#entries.delete(key);
    }
  }

  /**
   * Makes room when the table is full, a tenth of it at a time (so the sweep is paid once per
   * many new keys): first whatever has expired, then the oldest keys that are neither locked
   * nor being checked; a lock is dropped only when nothing else is left.
   */
  #makeRoom(now: number): void {
    const target = MAX_TRACKED - Math.ceil(MAX_TRACKED / 10);
    for (const [key, entry] of this.#entries) {
      entry.failures = entry.failures.filter((t) => now - t < this.rule.windowMs);
      this.#forgetIfIdle(key, entry, now);
    }
    for (const [key, entry] of this.#entries) {
      if (this.#entries.size <= target) return;
      if (entry.pending === 0 && entry.lockedUntil <= now) this.#entries.delete(key);
    }
    for (const key of this.#entries.keys()) {
      if (this.#entries.size < MAX_TRACKED) return;
      this.#entries.delete(key);
    }
  }
}

/** An attempt that passed the throttle; say how it ended, once. */
export interface LoginAttempt {
  failed(): void;
  succeeded(): void;
  /** The password was never checked (the server was busy): frees the place, counts nothing. */
  abandoned(): void;
}

/** Tracks failed logins per email and per client address. */
export class LoginThrottle {
  readonly #clock: Clock;
  readonly #emails = new Counter(EMAIL_RULE);
  readonly #addresses = new Counter(ADDRESS_RULE);

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /**
   * Admits one attempt for `email` from `address`, or throws `rate_limited` (with seconds to
   * wait). Admission and reservation are one synchronous step, so attempts sent at once count
   * against the limits before any of them is hashed.
   */
  begin(email: string, address: string): LoginAttempt {
    const now = this.#clock.now().getTime();
    let wait = this.#emails.reserve(email, now);
    if (wait === 0) {
      wait = this.#addresses.reserve(address, now);
      if (wait > 0) this.#emails.release(email, now, false);
    }
    if (wait > 0) {
      throw new DomainError("rate_limited", "Too many failed logins; try again later", {
        retryAfter: Math.ceil(wait / 1000),
      });
    }
    let ended = false;
    const end = (outcome: "failed" | "succeeded" | "abandoned") => {
      if (ended) return;
      ended = true;
      const at = this.#clock.now().getTime();
      const failed = outcome === "failed";
      this.#emails.release(email, at, failed);
      this.#addresses.release(address, at, failed);
      if (outcome === "succeeded") this.#emails.clear(email, at);
    };
    return {
      failed: () => end("failed"),
      succeeded: () => end("succeeded"),
      abandoned: () => end("abandoned"),
    };
  }
}

/** A registration that passed the throttle; say how it ended, once. */
export interface RegistrationAttempt {
  /** The account was created: the registration counts against the address. */
  accepted(): void;
  /** Nothing was created (refused, or the server was busy): counts nothing. */
  abandoned(): void;
}

/**
 * Limits accepted registrations per client address within any hour (each costs a password
 * hash). Refused registrations do not count; registrations in flight do until they end.
 */
export class RegistrationThrottle {
  readonly #clock: Clock;
  readonly #addresses: Counter;

  constructor(clock: Clock, limitPerHour: number) {
    this.#clock = clock;
    this.#addresses = new Counter({ limit: limitPerHour, windowMs: 3_600_000, lockMs: 0 });
  }

  /** Admits one registration from `address`, or throws `rate_limited` (with seconds to wait). */
  begin(address: string): RegistrationAttempt {
    const wait = this.#addresses.reserve(address, this.#clock.now().getTime());
    if (wait > 0) {
      throw new DomainError("rate_limited", "Too many registrations; try again later", {
        retryAfter: Math.ceil(wait / 1000),
      });
    }
    let ended = false;
    const end = (accepted: boolean) => {
      if (ended) return;
      ended = true;
      this.#addresses.release(address, this.#clock.now().getTime(), accepted);
    };
    return { accepted: () => end(true), abandoned: () => end(false) };
  }
}
