/** The client's network address, for throttling (never a header a client can forge). */
import type { Context } from "hono";

/** The peer address `Deno.serve` reported, or "local" for in-process requests. */
export function clientAddress(c: Context): string {
  const info = c.env as { remoteAddr?: { hostname?: string } } | undefined;
  return info?.remoteAddr?.hostname ?? "local";
}
