/**
 * Password hashing with scrypt (N=2^17, r=8, p=1, 16-byte salt) through the async API, at
 * most two hashes at a time so logins cannot starve the server. The algorithm and its
 * parameters are stored with each hash, so they can be raised later.
 */
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { DomainError } from "../kernel/errors.ts";

/** Hashes and verifies passwords. */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** Whether `password` matches `stored`; false for a malformed stored value. */
  verify(password: string, stored: string): Promise<boolean>;
  /** Spends about the time of a verification, for unknown accounts. */
  burn(password: string): Promise<void>;
}

/** scrypt cost parameters. */
export interface ScryptParams {
  /** CPU/memory cost, a power of two. */
  N: number;
  r: number;
  p: number;
}

/** The production parameters. */
export const DEFAULT_SCRYPT: ScryptParams = { N: 2 ** 17, r: 8, p: 1 };

const KEY_LENGTH = 32;
const MAX_MEM = 256 * 1024 * 1024;

function derive(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(
      password.normalize("NFC"),
      salt,
      KEY_LENGTH,
      { N: params.N, r: params.r, p: params.p, maxmem: MAX_MEM },
      (error, key) => error ? reject(error) : resolve(key),
    );
  });
}

/**
 * A limiter that lets at most `max` tasks run at once and at most `maxWaiting` wait; past that
 * a task is refused at once (`rate_limited`), so a flood of logins or registrations cannot
 * pile up requests and memory behind the hashing.
 */
function limiter(max: number, maxWaiting: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async (task) => {
    if (running >= max) {
      if (waiting.length >= maxWaiting) {
        throw new DomainError("rate_limited", "The server is busy; try again shortly", {
          retryAfter: 1,
        });
      }
      await new Promise<void>((resolve) => waiting.push(resolve));
    }
    running++;
    try {
      return await task();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}

/** How many hashes run at once, and how many may wait for them. */
export interface HasherLimits {
  concurrent: number;
  waiting: number;
}

/** At most two hashes at a time (quality.md); 64 waiting is ~5 s of work at N=2^17. */
export const DEFAULT_HASHER_LIMITS: HasherLimits = { concurrent: 2, waiting: 64 };

/** A scrypt hasher with `params` (tests pass cheaper ones). */
export function scryptHasher(
  params: ScryptParams = DEFAULT_SCRYPT,
  limits: HasherLimits = DEFAULT_HASHER_LIMITS,
): PasswordHasher {
  const limit = limiter(limits.concurrent, limits.waiting);
  const encode = (salt: Buffer, key: Buffer) =>
    `scrypt$${params.N}$${params.r}$${params.p}$${salt.toString("base64")}$${
      key.toString("base64")
    }`;
  const dummySalt = randomBytes(16);

  return {
    async hash(password) {
      const salt = randomBytes(16);
      return encode(salt, await limit(() => derive(password, salt, params)));
    },
    async verify(password, stored) {
      const parts = stored.split("$");
      if (parts.length !== 6 || parts[0] !== "scrypt") return false;
      const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
      const salt = Buffer.from(parts[4]!, "base64");
      const expected = Buffer.from(parts[5]!, "base64");
      const key = await limit(() => derive(password, salt, { N, r, p }));
      return key.length === expected.length && timingSafeEqual(key, expected);
    },
    async burn(password) {
      await limit(() => derive(password, dummySalt, params));
    },
  };
}
