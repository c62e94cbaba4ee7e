/**
 * CSRF protection for every unsafe method, whatever the content type: a request whose
 * `Sec-Fetch-Site` is `cross-site`, or whose `Origin` is another origin (`null` included),
 * is refused with 403 before anything else is looked at. Requests with neither header
 * (curl, scripts) pass. (Hono's own `csrf()` ignores JSON bodies, so it is not used.)
 *
 * One exception: pages are served with `Referrer-Policy: no-referrer`, under which browsers
 * send `Origin: null` on same-origin form posts. Such a request also carries
 * `Sec-Fetch-Site: same-origin`, which no page can forge, so that pair is allowed
 * (docs/decisions/0001-csrf-origin-null.md).
 */
import type { MiddlewareHandler } from "hono";
import { errorBody } from "../api/errors.ts";

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

/** Refuses cross-site unsafe requests; `baseUrl` fixes our origin when set. */
export function csrf(options: { baseUrl: string | null }): MiddlewareHandler {
  const fixedOrigin = options.baseUrl ? new URL(options.baseUrl).origin : null;
  return async (c, next) => {
    if (SAFE.has(c.req.method)) return await next();
    const site = c.req.header("sec-fetch-site");
    const origin = c.req.header("origin");
    const ours = fixedOrigin ?? new URL(c.req.url).origin;
    const sameOriginForm = origin === "null" && site === "same-origin";
    if (site === "cross-site" || (origin !== undefined && origin !== ours && !sameOriginForm)) {
      return c.json(errorBody("forbidden", "Cross-site request refused"), 403);
    }
    return await next();
  };
}
