/**
 * API tokens on the wire: `Authorization: Bearer <secret>` on an `/api` route. Such a request
 * is the token's owner whatever cookie it carries (the cookie is not even read), and it skips
 * the CSRF check: a browser never adds this header to a cross-site request by itself, so a
 * page elsewhere cannot make one. The rules of what a token may do are here, in one place:
 * a `read` token only GETs and HEADs; no token manages tokens or the calendar feed (each
 * would mint a credential that outlives the token), changes the password, logs out, or uses
 * the admin routes. Every 401 under `/api` carries `WWW-Authenticate: Bearer`.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { ApiTokens, TokenScope } from "../../domain/accounts/api_tokens.ts";
import { errorBody } from "../api/errors.ts";
import { sessionOnly } from "../api/session_only.ts";
import type { AppEnv } from "../api/openapi.ts";

/** The challenge every 401 under `/api` carries (RFC 6750). */
export const BEARER_CHALLENGE = "Bearer";

const READ_METHODS = new Set(["GET", "HEAD"]);

/** Why a token of `scope` may not make this request, or null when it may. */
export function tokenRefusal(method: string, path: string, scope: TokenScope): string | null {
  if (sessionOnly(path)) {
    return "Cannot use an API token here: tokens cannot manage tokens or the calendar feed, " +
      "change the password, log out or use the admin routes; sign in instead";
  }
  if (scope === "read" && !READ_METHODS.has(method)) {
    return "Cannot change anything with a read-only token: use a token with the write scope";
  }
  return null;
}

/**
 * The credentials of an `Authorization: Bearer` header on an `/api` path ("" when the scheme
 * is there without one), or null when the request does not use the scheme. Other schemes
 * (Basic from a proxy in front, say) are not ours and leave the cookie in charge.
 */
export function bearerCredentials(c: Context): string | null {
  if (c.req.path !== "/api" && !c.req.path.startsWith("/api/")) return null;
  const header = c.req.header("authorization");
  if (header === undefined) return null;
  const match = /^[ \t]*bearer(?:[ \t]+(.*?))?[ \t]*$/is.exec(header);
  return match ? match[1] ?? "" : null;
}

/**
 * Authenticates a request that `bearerCredentials` found credentials in: 401 for a wrong,
 * expired or revoked token or a disabled owner; 403 for what the token may not do; else sets
 * `apiToken` (and no session) and answers `no-store`, as for any signed-in caller.
 */
export function bearerAuth(tokens: ApiTokens): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const auth = await tokens.authenticate(bearerCredentials(c) ?? "");
    if (!auth) {
      return c.json(
        errorBody(
          "unauthenticated",
          "Cannot authenticate: the API token is wrong, expired or revoked",
        ),
        401,
        { "www-authenticate": BEARER_CHALLENGE, "cache-control": "no-store" },
      );
    }
    const refusal = tokenRefusal(c.req.method, c.req.path, auth.scope);
    if (refusal) {
      return c.json(errorBody("forbidden", refusal), 403, { "cache-control": "no-store" });
    }
    c.set("session", null);
    c.set("apiToken", auth);
    await next();
    c.res.headers.set("cache-control", "no-store");
    return undefined;
  };
}

/** Adds `WWW-Authenticate: Bearer` to every 401 (login failures and missing sessions too). */
export function bearerChallenge(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (c.res.status === 401 && !c.res.headers.has("www-authenticate")) {
      c.res.headers.set("www-authenticate", BEARER_CHALLENGE);
    }
  };
}
