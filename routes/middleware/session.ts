/** Authentication: who is calling, from the signed session cookie checked on the server. */
import type { MiddlewareHandler } from "hono";
import type { Sessions } from "../../domain/accounts/sessions.ts";
import { errorBody } from "../api/errors.ts";
import type { AppEnv } from "../api/openapi.ts";
import { SESSION_COOKIE, sessionCookie } from "../cookies.ts";

/**
 * Resolves the session (if any) into `c.var.session`. Answers to a signed-in caller, and every
 * answer that sets or clears the session cookie (login, register, logout), are `no-store`: no
 * cache may keep a session or a private page.
 */
export function session(sessions: Sessions): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const active = await sessions.resolve(sessionCookie(c));
    c.set("session", active);
    await next();
    const setsSession = c.res.headers.getSetCookie()
      .some((line) => line.startsWith(`${SESSION_COOKIE}=`));
    if (active || setsSession) c.res.headers.set("cache-control", "no-store");
  };
}

/** The `/api` routes that need no session (nor token). */
export const PUBLIC_API: ReadonlySet<string> = new Set([
  "/api/auth/register",
  "/api/auth/login",
  "/api/auth/providers",
  "/api/auth/password-reset",
  "/api/openapi.json",
]);

/**
 * The invitation link's routes, which need no session either (a signed-in caller's is used):
 * `/api/invitations/{token}` and `.../accept`, as a request's path or the document's template.
 */
const PUBLIC_INVITATION = /^\/api\/invitations\/[^/]+(?:\/accept)?$/;

/** The `/api` routes under these prefixes need no session either (a link's token is theirs). */
export const PUBLIC_API_PREFIXES: readonly string[] = ["/api/auth/password-reset/"];

/** Whether the `/api` path (or OpenAPI template) needs no session or token. */
export function isPublicApi(path: string): boolean {
  return PUBLIC_API.has(path) || PUBLIC_INVITATION.test(path) ||
    PUBLIC_API_PREFIXES.some((p) => path.startsWith(p));
}

/** Answers 401 for every `/api` route but the public ones without a session or API token. */
export function requireApiSession(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!c.get("session") && !c.get("apiToken") && !isPublicApi(c.req.path)) {
      return c.json(errorBody("unauthenticated", "Log in first"), 401);
    }
    return await next();
  };
}

/** Sends a visitor without a session to `/login?next=<path>` (302), except on the pages `open` names. */
export function requireLogin(open: (path: string) => boolean): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.get("session") || open(c.req.path)) return await next();
    const url = new URL(c.req.url);
    return c.redirect(`/login?next=${encodeURIComponent(url.pathname + url.search)}`, 302);
  };
}
