/** One log line per request: method, path, status and milliseconds; never a query or body. */
import type { MiddlewareHandler } from "hono";

/** Logs each request through `write` once its response is ready. */
export function requestLog(write: (line: string) => void): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    await next();
    write(requestLine(c.req.method, c.req.path, c.res.status, started));
  };
}

/** The log line of a request that started at `started` (`performance.now()`) and ends now. */
export function requestLine(method: string, path: string, status: number, started: number): string {
  return `${method} ${redactPath(path)} ${status} ${(performance.now() - started).toFixed(1)}ms`;
}

/**
 * A path as logged: a token in the path (a calendar feed's credential, an unsubscribe,
 * invitation, reset or verification link's) is left out; a link is logged as its route
 * (`/unsubscribe/:token`, `/invite/:token`, `/api/invitations/:token/accept`,
 * `/reset-password/:token`, `/verify-email/:token`, `/api/auth/password-reset/:token`).
 */
function redactPath(path: string): string {
  if (path.startsWith("/ics/")) return path.replace(/^\/ics\/[^/]*/, "/ics/…");
  if (path.startsWith("/unsubscribe/")) return "/unsubscribe/:token";
  if (path.startsWith("/invite/")) return path.replace(/^\/invite\/[^/]*/, "/invite/:token");
  if (path.startsWith("/api/invitations/")) {
    return path.replace(/^\/api\/invitations\/[^/]*/, "/api/invitations/:token");
  }
  if (path.startsWith("/reset-password/")) return "/reset-password/:token";
  if (path.startsWith("/verify-email/")) return "/verify-email/:token";
  if (path.startsWith("/api/auth/password-reset/")) return "/api/auth/password-reset/:token";
  return path;
}

/** Lines buffered beyond this many characters are written at once. */
const MAX_BUFFERED_CHARS = 64 * 1024;

/** A log that writes to standard output, buffered. */
export interface StdoutLog {
  /** Writes `line`, like `console.log(line)`, at the end of this turn of the event loop. */
  write(line: string): void;
  /** Writes the buffered lines now. */
  flush(): void;
}

/**
 * A log to standard output, buffered: the lines of one turn of the event loop are written
 * together by one write at its end (a synchronous write per request costs more than the rest
 * of a SOAP request's handling). The program's end ("unload", which `Deno.exit()` dispatches
 * too) flushes it; call `flush()` before exiting otherwise.
 */
export function stdoutLog(): StdoutLog {
  let buffered: string[] = [];
  let bufferedChars = 0;
  let scheduled = false;
  const encoder = new TextEncoder();
  const flush = () => {
    scheduled = false;
    if (buffered.length === 0) return;
    const text = buffered.join("\n") + "\n";
    buffered = [];
    bufferedChars = 0;
    let bytes = encoder.encode(text);
    try {
      while (bytes.byteLength > 0) bytes = bytes.subarray(Deno.stdout.writeSync(bytes));
    } catch {
      // Standard output is gone (a closed pipe): the lines are lost, as console.log's would be.
    }
  };
  globalThis.addEventListener("unload", flush);
  return {
    write(line) {
      buffered.push(line);
      bufferedChars += line.length + 1;
      if (bufferedChars >= MAX_BUFFERED_CHARS) {
        flush();
      } else if (!scheduled) {
        scheduled = true;
        setTimeout(flush, 0);
      }
    },
    flush,
  };
}
