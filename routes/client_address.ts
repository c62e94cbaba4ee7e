/** The client's network address, for throttling (never a header a client can forge). */
import type { Context } from "hono";
import type { RequestMeta } from "../domain/accounts/audit.ts";

/** The peer address `Deno.serve` reported, or "local" for in-process requests. */
export function clientAddress(c: Context): string {
  const info = c.env as { remoteAddr?: { hostname?: string } } | undefined;
  return info?.remoteAddr?.hostname ?? "local";
}

/**
 * Where a request came from, as the domain records it with what the request did (the audit
 * log): the peer address and the request's id.
 */
export function requestMeta(c: Context): RequestMeta {
  return {
    clientAddress: clientAddress(c),
    requestId: (c.get as (key: string) => unknown)("requestId") as string | undefined ?? null,
  };
}
