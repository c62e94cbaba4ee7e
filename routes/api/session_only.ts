/**
 * The API routes no token may use, whatever its scope: they are for signed-in sessions only.
 * Read by the bearer middleware (which refuses them) and by the OpenAPI document (which says
 * so), so it imports nothing.
 */

/** Routes no token may use, whatever its scope (session only). */
const SESSION_ONLY = [
  /^\/api\/tokens(?:\/|$)/,
  /^\/api\/admin(?:\/|$)/,
  /^\/api\/auth\/password$/,
  /^\/api\/auth\/logout$/,
  /^\/api\/me\/calendar-feed(?:\/|$)/,
  /^\/api\/users\/me\/identities(?:\/|$)/,
];

/** Whether `path` (an `/api` path or OpenAPI path template) is for sessions only. */
export function sessionOnly(path: string): boolean {
  return SESSION_ONLY.some((pattern) => pattern.test(path));
}
