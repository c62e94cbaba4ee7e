/** The security headers every response carries, in one list. */
import type { MiddlewareHandler } from "hono";

/** Sets `nosniff`, `no-referrer` and `DENY` framing, plus HSTS behind https, on `headers`. */
export function setSecurityHeaders(headers: Headers, options: { hsts: boolean }): void {
  headers.set("x-content-type-options", "nosniff");
  headers.set("referrer-policy", "no-referrer");
  headers.set("x-frame-options", "DENY");
  if (options.hsts) headers.set("strict-transport-security", "max-age=31536000");
}

/** Sets the security headers on every response of the application. */
export function securityHeaders(options: { hsts: boolean }): MiddlewareHandler {
  return async (c, next) => {
    await next();
    setSecurityHeaders(c.res.headers, options);
  };
}
