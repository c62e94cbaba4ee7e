/**
 * Secrets shown once after a redirect. A form that makes a secret (an API token's, a
 * webhook's signing secret) answers 303 like every other form, so reloading the next page
 * never makes a second one; that page shows the secret to the same session, once.
 *
 * The server keeps only a hash of such a secret, so the secret waits here, in memory, for
 * the next request of the session that made it: for a few minutes at most, a bounded number
 * of them. After a restart or a long wait it is gone (what was made stays; the user revokes
 * it and makes another).
 */
import type { Context } from "hono";
import type { AppEnv } from "../../api/openapi.ts";

/** How long a secret waits for its page (the redirect follows at once). */
const WAIT_MS = 5 * 60_000;
/** Secrets waiting at most: the oldest goes first beyond this. */
const MAX_WAITING = 1000;

/** Secrets waiting to be shown once, each for one session and one page. */
export interface OnceSecrets {
  /** Keeps `secret` for the caller's session to see once on `page` (a path). */
  put(c: Context<AppEnv>, page: string, secret: string): void;
  /** The secret waiting for the caller's session on `page`, taken (so never shown again). */
  take(c: Context<AppEnv>, page: string): string | null;
}

/** A store of secrets shown once; `now` is the services' clock in milliseconds. */
export function onceSecrets(now: () => number): OnceSecrets {
  const waiting = new Map<string, { secret: string; until: number }>();
  const keyOf = (c: Context<AppEnv>, page: string) => {
    const session = c.get("session");
    return session ? `${session.idHash} ${page}` : null;
  };
  return {
    put(c, page, secret) {
      const key = keyOf(c, page);
      if (key === null) return;
      for (const [k, entry] of waiting) if (entry.until <= now()) waiting.delete(k);
      while (waiting.size >= MAX_WAITING) waiting.delete(waiting.keys().next().value!);
      waiting.delete(key);
      waiting.set(key, { secret, until: now() + WAIT_MS });
    },
    take(c, page) {
      const key = keyOf(c, page);
      const entry = key === null ? undefined : waiting.get(key);
      if (!entry) return null;
      waiting.delete(key!);
      return entry.until > now() ? entry.secret : null;
    },
  };
}
