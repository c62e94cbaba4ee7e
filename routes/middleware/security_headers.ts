/** The security headers every response carries. */
import type { MiddlewareHandler } from "hono";

/** Sets `nosniff`, `no-referrer` and `DENY` framing, plus HSTS behind https. */
export function securityHeaders(options: { hsts: boolean }): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const headers = c.res.headers;
    headers.set("x-content-type-options", "nosniff");
    headers.set("referrer-policy", "no-referrer");
    headers.set("x-frame-options", "DENY");
    if (options.hsts) headers.set("strict-transport-security", "max-age=31536000");
  };
}
