/**
 * HEAD requests: Hono answers them by running the GET route and then dropping the body
 * without cancelling it, so whatever the GET handler opened for its body (a file, an event
 * stream's subscription) would stay open. This cancels the body here, which runs the
 * stream's own clean-up, and answers with the GET's status and headers only.
 */
import type { MiddlewareHandler } from "hono";

/** Cancels the body of every HEAD response. */
export function headWithoutBody(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (c.req.method !== "HEAD") return;
    const body = c.res.body;
    if (body === null) return;
    await body.cancel();
    c.res = new Response(null, { status: c.res.status, headers: c.res.headers });
  };
}
