/**
 * `GET /metrics`, the Prometheus text format, for a scraper holding `METRICS_TOKEN` as its
 * bearer token: 404 while no token is set (the path does not exist), 401 without the token.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { Hono } from "hono";
import type { Metrics } from "../domain/kernel/metrics.ts";

/** The metrics route; with `token` null, a 404. */
export function metricsRoute(metrics: Metrics, token: string | null): Hono {
  const app = new Hono();
  // Not a page either: a plain 404, whoever asks.
  if (token === null) return app.get("/metrics", (c) => c.text("Not Found\n", 404));
  const expected = digest(token);
  app.get("/metrics", async (c) => {
    const header = c.req.header("authorization") ?? "";
    const match = /^Bearer +(\S+) *$/i.exec(header);
    // Compared as digests of equal length, in constant time: neither the token's length
    // nor how much of it a guess got right shows in the time taken.
    if (!match || !timingSafeEqual(digest(match[1]!), expected)) {
      return c.text("Unauthorized\n", 401, { "WWW-Authenticate": 'Bearer realm="metrics"' });
    }
    const text = await metrics.render();
    // Another isolate did not answer in time: no answer rather than a partial sum, which a
    // scraper would read as counters reset.
    if (text === null) return c.text("Service Unavailable\n", 503, { "retry-after": "5" });
    return c.body(text, 200, {
      "content-type": "text/plain; version=0.0.4; charset=utf-8",
      "cache-control": "no-store",
    });
  });
  return app;
}

/** The SHA-256 digest of `text`. */
function digest(text: string): Uint8Array {
  return createHash("sha256").update(text).digest();
}
