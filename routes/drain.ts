/**
 * Graceful shutdown's first step: let the requests already in flight finish, bodies included,
 * before the server is told to shut down.
 *
 * Deno 2.9's `server.shutdown()` makes every request body still arriving unreadable at once
 * (denoland/deno#36809), so a slow upload or JSON POST would fail. Shutdown therefore first
 * waits here for the handlers in flight; requests arriving meanwhile are answered 503 with
 * `Connection: close`, as a closed listener would refuse them.
 */
import type { Lifecycle } from "./app.ts";
import { errorBody } from "./api/errors.ts";
import { setSecurityHeaders } from "./middleware/security_headers.ts";

/** A `Deno.serve` handler. */
export type Handler = (
  request: Request,
  info: Deno.ServeHandlerInfo,
) => Response | Promise<Response>;

/** The wrapped handler, and a way to wait for the requests in flight. */
export interface Drain {
  fetch: Handler;
  /** Resolves once no handler is running (at once when none is). */
  drained(): Promise<void>;
}

/** Wraps `fetch`, counting handlers in flight and refusing new requests once shutting down. */
export function drain(fetch: Handler, lifecycle: Lifecycle): Drain {
  let inFlight = 0;
  let waiters: Array<() => void> = [];
  const done = () => {
    if (--inFlight > 0) return;
    for (const resolve of waiters) resolve();
    waiters = [];
  };
  return {
    fetch(request, info) {
      // /healthz still answers (503 `shutting_down`), for the load balancer's sake.
      if (lifecycle.shuttingDown && new URL(request.url).pathname !== "/healthz") {
        return refused(request);
      }
      inFlight++;
      let answer;
      try {
        answer = fetch(request, info);
      } catch (error) {
        done();
        throw error;
      }
      // Synchronous answers (the SOAP fast path's) stay synchronous.
      if (!(answer instanceof Promise)) {
        done();
        return answer;
      }
      return answer.finally(done);
    },
    drained() {
      if (inFlight === 0) return Promise.resolve();
      return new Promise((resolve) => waiters.push(resolve));
    },
  };
}

function refused(request: Request): Response {
  const headers = new Headers({
    connection: "close",
    "retry-after": "5",
    "cache-control": "no-store",
  });
  setSecurityHeaders(headers, { hsts: false });
  const message = "The server is shutting down: try again shortly";
  if (new URL(request.url).pathname.startsWith("/api/")) {
    return Response.json(errorBody("unavailable", message), { status: 503, headers });
  }
  headers.set("content-type", "text/plain; charset=utf-8");
  return new Response(message, { status: 503, headers });
}

/** Tells which stop signals count: see `signalGate`. */
export interface SignalGate {
  /** True for a signal that counts (the first, or one later than the window after it). */
  counts(): boolean;
}

/**
 * The first stop signal counts, and so does any after `windowMs` from it (a second, deliberate
 * one: exit at once); those within the window are the same stop seen again (the terminal
 * signals the whole process group, and `npx` and `deno task` pass it on). `now` is in ms.
 */
export function signalGate(windowMs: number, now: () => number): SignalGate {
  let first: number | null = null;
  return {
    counts() {
      const at = now();
      if (first === null) {
        first = at;
        return true;
      }
      return at - first >= windowMs;
    },
  };
}
