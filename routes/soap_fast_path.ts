/**
 * The front door of the application. The SOAP endpoints without the router: a request for
 * exactly `/hello` or `/loan` goes straight to its SOAP handler, everything else to the
 * application (Hono). The SOAP services are the hot path, and routing plus the middleware
 * chain cost about a quarter of their time; what that chain does for them is done here
 * instead: the request log line, the security headers, and the error page for a handler
 * that throws. (The session and CSRF middleware skip these paths anyway.)
 *
 * Also here, for every request but a SOAP POST: a `Host` header that is not a host is 400
 * (RFC 9112 asks for it). Deno builds `request.url` from that header as it comes, so any
 * address built from it (the WSDL's, a redirect, the CSRF origin) would be garbage or throw.
 * A SOAP POST builds none, and skips the check to stay fast.
 */
import type { SoapHandler } from "../soap/endpoint.ts";
import { errorBody } from "./api/errors.ts";
import { SERVER_ERROR_PAGE } from "./failures.ts";
import { REQUEST_ID_HEADER, requestIdFrom, type RequestLog } from "./middleware/request_log.ts";
import { setSecurityHeaders } from "./middleware/security_headers.ts";

type Fetch<A extends unknown[]> = (request: Request, ...rest: A) => Response | Promise<Response>;

/** What the fast path serves and how it logs. */
export interface SoapFastPathOptions {
  hello: SoapHandler;
  loan: SoapHandler;
  /** Where the request and error log lines go (the application's log and metrics). */
  log: RequestLog;
  /** Whether responses carry HSTS (as `securityHeaders({ hsts })` does). */
  hsts: boolean;
}

/** `fallback` with `/hello` and `/loan` served directly by their SOAP handlers. */
export function soapFastPath<A extends unknown[]>(
  fallback: Fetch<A>,
  options: SoapFastPathOptions,
): Fetch<A> {
  const { hello, loan, log, hsts } = options;

  async function serve(handler: SoapHandler, request: Request, path: string): Promise<Response> {
    const started = performance.now();
    const requestId = requestIdFrom(request.headers.get(REQUEST_ID_HEADER));
    let response: Response;
    try {
      response = await handler(request);
    } catch (error) {
      // As the application's error handler answers outside /api/.
      const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      log.error(text, requestId);
      response = new Response(SERVER_ERROR_PAGE, {
        status: 500,
        headers: { "content-type": "text/html; charset=UTF-8" },
      });
    }
    response.headers.set(REQUEST_ID_HEADER, requestId);
    return finish(request, path, path, response, started, requestId);
  }

  /**
   * What the middleware adds to a response served here: security headers, the log line and
   * the request's metrics.
   */
  function finish(
    request: Request,
    route: string,
    path: string,
    response: Response,
    started: number,
    requestId: string,
  ) {
    setSecurityHeaders(response.headers, { hsts });
    log.request({
      method: request.method,
      route,
      path,
      status: response.status,
      started,
      requestId,
      userId: null,
    });
    return response;
  }

  return (request, ...rest) => {
    // HEAD keeps going through the router, which answers it from GET without a body.
    const method = request.method;
    const path = method === "HEAD" ? null : exactPath(request.url);
    const handler = path === "/hello" ? hello : path === "/loan" ? loan : null;
    if (handler && method === "POST") return serve(handler, request, path!);
    const host = request.headers.get("host");
    if (!isValidHost(host)) {
      const started = performance.now();
      const requestId = requestIdFrom(request.headers.get(REQUEST_ID_HEADER));
      const shown = targetPath(request.url, host!);
      return finish(request, "unmatched", shown, badHost(shown, requestId), started, requestId);
    }
    if (handler) return serve(handler, request, path!);
    return fallback(request, ...rest);
  };
}

/**
 * Whether `host` (a `Host` header) is a host with an optional port: a DNS name or IPv4
 * address (letters, digits, `-`, `.`, `_`, `~`), or an IPv6 address in brackets. A missing
 * or empty header is allowed: Deno then uses the address it listens on.
 */
export function isValidHost(host: string | null): boolean {
  if (host === null || host === "") return true;
  const match = /^(?:[A-Za-z0-9._~-]+|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?$/.exec(host);
  if (!match || (match[1] !== undefined && Number(match[1]) > 65535)) return false;
  return URL.canParse(`http://${host}/`);
}

/**
 * The path of the request's target, from an address built as scheme, `://`, `host` as sent
 * (which may hold a `/`), target. (Deno reads the header's bytes as UTF-8 there and as
 * Latin-1 in `headers`: then the first `/` has to do.)
 */
function targetPath(url: string, host: string): string {
  const authority = url.indexOf("://") + 3;
  const start = url.startsWith(host, authority)
    ? authority + host.length
    : url.indexOf("/", authority);
  if (start < authority) return "-";
  return url.slice(start).split(/[?#]/, 1)[0] || "-";
}

/**
 * The answer to a bad `Host`: JSON under /api/ (with the request's id in the error), plain
 * text elsewhere; made whole here, with its `X-Request-Id`, so its body keeps a known length.
 */
function badHost(path: string, requestId: string): Response {
  const message = "Cannot read the request: the Host header is not a valid host";
  const headers = { [REQUEST_ID_HEADER]: requestId };
  if (path === "/api" || path.startsWith("/api/")) {
    const { error } = errorBody("validation", message, { host: "not a valid host" });
    return Response.json({ error: { ...error, requestId } }, { status: 400, headers });
  }
  return new Response(`${message}\n`, {
    status: 400,
    headers: { ...headers, "content-type": "text/plain; charset=utf-8" },
  });
}

/**
 * The path of an absolute request URL, up to a query or fragment, or null when it holds a
 * `%` (percent-decoding is left to the router, so `/h%65llo` is routed as Hono routes it).
 */
function exactPath(url: string): string | null {
  const start = url.indexOf("/", url.indexOf(":") + 3);
  if (start === -1) return null;
  let end = start;
  for (; end < url.length; end++) {
    const c = url.charCodeAt(end);
    if (c === 0x3f || c === 0x23) break; // ? or #
    if (c === 0x25) return null; // %
  }
  return url.slice(start, end);
}

/**
 * The application's `request()` (Hono's, for tests), over `fetch`: a path is taken
 * relative to `http://localhost/`.
 */
export function requestVia<A extends unknown[]>(
  fetch: Fetch<A>,
): (
  input: Request | string | URL,
  requestInit?: RequestInit,
  ...rest: A
) => Response | Promise<Response> {
  return (input, requestInit, ...rest) => {
    if (input instanceof Request) {
      return fetch(requestInit ? new Request(input, requestInit) : input, ...rest);
    }
    const text = input.toString();
    const url = /^https?:\/\//.test(text)
      ? text
      : `http://localhost/${text.startsWith("/") ? text.slice(1) : text}`;
    return fetch(new Request(url, requestInit), ...rest);
  };
}
