/** Authentication: who is calling, from the signed session cookie checked on the server. */
import type { MiddlewareHandler } from "hono";
import type { Sessions } from "../../domain/sessions.ts";
import type { AppEnv } from "../api/openapi.ts";
import { sessionCookie } from "../cookies.ts";

/** Resolves the session (if any) into `c.var.session`; marks authenticated answers no-store. */
export function session(sessions: Sessions): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const active = await sessions.resolve(sessionCookie(c));
    c.set("session", active);
    await next();
    if (active) c.res.headers.set("cache-control", "no-store");
  };
}

const PUBLIC_API = new Set(["/api/auth/register", "/api/auth/login", "/api/openapi.json"]);

/** Answers 401 for every `/api` route but the public ones when nobody is logged in. */
export function requireApiSession(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!c.get("session") && !PUBLIC_API.has(c.req.path)) {
      return c.json({ error: { code: "unauthenticated", message: "Log in first" } }, 401);
    }
    return await next();
  };
}
