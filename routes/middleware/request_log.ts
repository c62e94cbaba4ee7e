/**
 * The request log and request ids. One line per request: in text (today's line: method,
 * path, status and milliseconds) or, with `LOG_FORMAT=json`, one JSON object per line with the
 * route's template instead of the path. Never a query, a body, a header's value or a token of
 * a path. Each request gets an id (`X-Request-Id`): the client's own when it sent a sane one,
 * else a new one; it is on the response, in JSON error bodies and in JSON log lines.
 */
import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { LogFormat } from "../../domain/config.ts";
import type { Metrics } from "../../domain/kernel/metrics.ts";

/** The header carrying a request's id, both ways. */
export const REQUEST_ID_HEADER = "X-Request-Id";

/** A sane request id: 1–128 visible ASCII characters (no space, no control character). */
const SANE_ID = /^[\x21-\x7e]{1,128}$/;

/** The request's own id when `sent` is sane, else a new one. */
export function requestIdFrom(sent: string | null | undefined): string {
  return sent && sent.length <= 128 && SANE_ID.test(sent) ? sent : crypto.randomUUID();
}

/** A request as logged and counted once its response is ready. */
export interface RequestRecord {
  method: string;
  /** The route's template (`/api/projects/:projectId/notes`), or `unmatched`. */
  route: string;
  /** The path as requested (logged by the text format only, tokens left out). */
  path: string;
  status: number;
  /** `performance.now()` when the request arrived. */
  started: number;
  requestId: string;
  /** The signed-in user, or null when anonymous. */
  userId: number | null;
}

/** Where request and error lines go, and the request metrics. */
export interface RequestLog {
  /** Logs and counts one answered request. */
  request(record: RequestRecord): void;
  /** Logs an error (with the request's id when it happened in one). */
  error(message: string, requestId?: string | null): void;
}

/**
 * The request log in `format`, writing through `write`, counting in `metrics` when given.
 * JSON lines carry `time`, `level`, `msg`, and for requests `method`, `route`, `status`,
 * `ms`, `requestId` and `userId`.
 */
export function requestLog(
  format: LogFormat,
  write: (line: string) => void,
  metrics: Metrics | null = null,
): RequestLog {
  const json = format === "json";
  return {
    request(r) {
      const ms = performance.now() - r.started;
      metrics?.request(r.method, r.route, r.status, ms / 1000);
      if (!json) {
        write(`${r.method} ${redactPath(r.path)} ${r.status} ${ms.toFixed(1)}ms`);
        return;
      }
      // The same object JSON.stringify would write, built as text: a request's line is on the
      // hot path (JSON.stringify and Date#toISOString were 4 µs of a SOAP request's ~30).
      // Its middle (level, method, route, status) is kept per route, and an id without a
      // quote or backslash (every id made here) is written as it is.
      let middle = middles.get(r.route);
      if (middle === undefined || middle.method !== r.method || middle.status !== r.status) {
        middle = requestLineMiddle(r.method, r.route, r.status);
        if (middles.size < MAX_MIDDLES) middles.set(r.route, middle);
      }
      const id = r.requestId;
      write(
        `{"time":"${isoNow()}${middle.text}${Math.round(ms * 10) / 10},"requestId":` +
          `${id.includes('"') || id.includes("\\") ? JSON.stringify(id) : `"${id}"`},` +
          `"userId":${r.userId === null ? "null" : r.userId}}`,
      );
    },
    error(message, requestId = null) {
      if (!json) {
        write(`error: ${message}`);
        return;
      }
      const line: Record<string, unknown> = {
        time: new Date().toISOString(),
        level: "error",
        msg: message,
      };
      if (requestId) line.requestId = requestId;
      write(JSON.stringify(line));
    },
  };
}

/** The part of a request's JSON line from its level to its `ms` key, for one method, route and status. */
interface LineMiddle {
  method: string;
  status: number;
  text: string;
}

/** Route templates are few; past this many, middles are made per line rather than kept. */
const MAX_MIDDLES = 4096;

/** The middle of the last line logged per route (a route is nearly always one method and status). */
const middles = new Map<string, LineMiddle>();

function requestLineMiddle(method: string, route: string, status: number): LineMiddle {
  const text = `","level":"${status >= 500 ? "error" : "info"}","msg":"request",` +
    `"method":${JSON.stringify(method)},"route":${JSON.stringify(route)},` +
    `"status":${status},"ms":`;
  return { method, status, text };
}

/** The second of the last `isoNow()`, and its ISO text up to the milliseconds. */
let isoSecond = -1;
let isoPrefix = "";

/** `new Date().toISOString()`, with the text of the second kept from one call to the next. */
export function isoNow(now = Date.now()): string {
  const second = Math.floor(now / 1000);
  if (second !== isoSecond) {
    isoSecond = second;
    isoPrefix = new Date(second * 1000).toISOString().slice(0, 20);
  }
  const ms = now - second * 1000;
  return `${isoPrefix}${ms < 10 ? "00" : ms < 100 ? "0" : ""}${ms}Z`;
}

/**
 * The template of the route that serves the request: the last route matched for the request's
 * own method (`app.get`, `app.post`…; a request refused by a middleware before its route ran
 * still counts under that route), else the last one for any method (`app.all`) that is not a
 * wildcard (middleware and catch-alls end in `*`); `unmatched` when there is none. Hono wraps
 * the handlers of mounted sub-apps, so a handler's arity cannot tell a middleware.
 */
export function routeOf(c: Context): string {
  const routes = matchedRoutes(c);
  let any: string | null = null;
  for (let i = routes.length - 1; i >= 0; i--) {
    const route = routes[i]!;
    if (route.method !== "ALL") return route.path;
    if (any === null && !route.path.endsWith("*")) any = route.path;
  }
  return any ?? "unmatched";
}

/**
 * Gives each request its id (the `requestId` variable), and once its response is ready: sets
 * `X-Request-Id`, adds `requestId` to a JSON error body, logs and counts it.
 */
export function observeRequests(
  log: RequestLog,
  userOf: (c: Context) => number | null,
): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    const requestId = requestIdFrom(c.req.header(REQUEST_ID_HEADER));
    c.set("requestId", requestId);
    await next();
    c.res = await withRequestId(c.res, requestId);
    log.request({
      method: c.req.method,
      route: routeOf(c),
      path: c.req.path,
      status: c.res.status,
      started,
      requestId,
      userId: userOf(c),
    });
  };
}

/**
 * `response` with `X-Request-Id`, and `error.requestId` in its body when it is a JSON error
 * (status 400 or more, an `error` object).
 */
export async function withRequestId(response: Response, requestId: string): Promise<Response> {
  let answer = response;
  const type = response.headers.get("content-type") ?? "";
  if (response.status >= 400 && response.body !== null && type.startsWith("application/json")) {
    const text = await response.text();
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch {
      // Not JSON after all: passed on as it came.
    }
    const error = (body as { error?: unknown } | null)?.error;
    const headers = new Headers(response.headers);
    headers.delete("content-length");
    const out = error !== null && typeof error === "object" && !Array.isArray(error)
      ? JSON.stringify({ ...body as object, error: { ...error, requestId } })
      : text;
    answer = new Response(out, {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  }
  try {
    answer.headers.set(REQUEST_ID_HEADER, requestId);
  } catch {
    // Immutable headers (a response passed through from elsewhere): copied.
    answer = new Response(answer.body, answer);
    answer.headers.set(REQUEST_ID_HEADER, requestId);
  }
  return answer;
}

/**
 * A path as logged: a token in the path (a calendar feed's credential, an unsubscribe,
 * invitation, reset or verification link's) is left out; a link is logged as its route
 * (`/unsubscribe/:token`, `/invite/:token`, `/api/invitations/:token/accept`,
 * `/reset-password/:token`, `/verify-email/:token`, `/api/auth/password-reset/:token`).
 */
export function redactPath(path: string): string {
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

/**
 * Room for one more line past `MAX_BUFFERED_CHARS` in the kept encoding buffer; a flush
 * longer than both (a long line written last) is encoded into a buffer of its own.
 */
const MAX_KEPT_LINE = 16 * 1024;

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
  let pending = "";
  let scheduled = false;
  const encoder = new TextEncoder();
  // Encoded into one buffer kept from flush to flush (a UTF-16 unit is at most 3 bytes).
  const buffer = new Uint8Array(3 * (MAX_BUFFERED_CHARS + MAX_KEPT_LINE));
  const flush = () => {
    scheduled = false;
    if (pending === "") return;
    const text = pending;
    pending = "";
    let bytes = 3 * text.length <= buffer.byteLength
      ? buffer.subarray(0, encoder.encodeInto(text, buffer).written)
      : encoder.encode(text);
    try {
      while (bytes.byteLength > 0) bytes = bytes.subarray(Deno.stdout.writeSync(bytes));
    } catch {
      // Standard output is gone (a closed pipe): the lines are lost, as console.log's would be.
    }
  };
  globalThis.addEventListener("unload", flush);
  return {
    write(line) {
      pending += line + "\n";
      if (pending.length >= MAX_BUFFERED_CHARS) {
        flush();
      } else if (!scheduled) {
        scheduled = true;
        setTimeout(flush, 0);
      }
    },
    flush,
  };
}
