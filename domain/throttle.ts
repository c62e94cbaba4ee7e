/**
 * Login throttling, checked before any hashing: per account (5 failures within 15 minutes
 * lock that email for 15 minutes) and per client address (20 failures within a minute lock
 * that address for a minute). Kept in memory, bounded in size.
 */
import type { Clock } from "./clock.ts";
import { DomainError } from "./errors.ts";

interface Rule {
  limit: number;
  windowMs: number;
  lockMs: number;
}

const EMAIL_RULE: Rule = { limit: 5, windowMs: 15 * 60_000, lockMs: 15 * 60_000 };
const ADDRESS_RULE: Rule = { limit: 20, windowMs: 60_000, lockMs: 60_000 };
const MAX_TRACKED = 100_000;

interface Entry {
  failures: number[];
  lockedUntil: number;
}

/** One key space (emails or addresses) under one rule. */
class Counter {
  readonly #entries = new Map<string, Entry>();
  constructor(readonly rule: Rule) {}

  /** Milliseconds `key` must still wait. */
  wait(key: string, now: number): number {
    const entry = this.#entries.get(key);
    if (!entry) return 0;
    if (entry.lockedUntil > now) return entry.lockedUntil - now;
    entry.failures = entry.failures.filter((t) => now - t < this.rule.windowMs);
    if (entry.failures.length === 0) this.#entries.delete(key);
    return 0;
  }

  fail(key: string, now: number): void {
    let entry = this.#entries.get(key);
    if (!entry) {
      if (this.#entries.size >= MAX_TRACKED) {
        this.#entries.delete(this.#entries.keys().next().value!);
      }
      entry = { failures: [], lockedUntil: 0 };
      this.#entries.set(key, entry);
    }
    entry.failures = entry.failures.filter((t) => now - t < this.rule.windowMs);
    entry.failures.push(now);
    if (entry.failures.length >= this.rule.limit) {
      entry.lockedUntil = now + this.rule.lockMs;
      entry.failures = [];
    }
  }

  clear(key: string): void {
    this.#entries.delete(key);
  }
}

/** Tracks failed logins per email and per client address. */
export class LoginThrottle {
  readonly #clock: Clock;
  readonly #emails = new Counter(EMAIL_RULE);
  readonly #addresses = new Counter(ADDRESS_RULE);

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Throws `rate_limited` (with seconds to wait) when the email or address is locked. */
  check(email: string, address: string): void {
    const now = this.#clock.now().getTime();
    const wait = Math.max(this.#emails.wait(email, now), this.#addresses.wait(address, now));
    if (wait > 0) {
      throw new DomainError("rate_limited", "Too many failed logins; try again later", {
        retryAfter: Math.ceil(wait / 1000),
      });
    }
  }

  /** Records a failed attempt for both keys. */
  fail(email: string, address: string): void {
    const now = this.#clock.now().getTime();
    this.#emails.fail(email, now);
    this.#addresses.fail(address, now);
  }

  /** Forgets an account's failures after a successful login. */
  succeed(email: string): void {
    this.#emails.clear(email);
  }
}
