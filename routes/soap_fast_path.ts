/**
 * The SOAP endpoints without the router: a request for exactly `/hello` or `/loan` goes
 * straight to its SOAP handler, everything else to the application (Hono). The SOAP
 * services are the hot path, and routing plus the middleware chain cost about a quarter of
 * their time; what that chain does for them is done here instead: the request log line,
 * the security headers, and the error page for a handler that throws. (The session and
 * CSRF middleware skip these paths anyway.)
 */
import type { SoapHandler } from "../soap/endpoint.ts";
import { requestLine } from "./middleware/request_log.ts";

type Fetch<A extends unknown[]> = (request: Request, ...rest: A) => Response | Promise<Response>;

/** What the fast path serves and how it logs. */
export interface SoapFastPathOptions {
  hello: SoapHandler;
  loan: SoapHandler;
  /** Where the request and error log lines go (the application's log). */
  log: (line: string) => void;
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
    let response: Response;
    try {
      response = await handler(request);
    } catch (error) {
      // As the application's error handler answers outside /api/.
      log(`error: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
      response = new Response(ERROR_PAGE, {
        status: 500,
        headers: { "content-type": "text/html; charset=UTF-8" },
      });
    }
    // As the securityHeaders middleware does.
    const headers = response.headers;
    headers.set("x-content-type-options", "nosniff");
    headers.set("referrer-policy", "no-referrer");
    headers.set("x-frame-options", "DENY");
    if (hsts) headers.set("strict-transport-security", "max-age=31536000");
    log(requestLine(request.method, path, response.status, started));
    return response;
  }

  return (request, ...rest) => {
    // HEAD keeps going through the router, which answers it from GET without a body.
    if (request.method !== "HEAD") {
      const path = exactPath(request.url);
      if (path === "/hello") return serve(hello, request, path);
      if (path === "/loan") return serve(loan, request, path);
    }
    return fallback(request, ...rest);
  };
}

const ERROR_PAGE = "<!DOCTYPE html><title>Error</title><h1>Something went wrong.</h1>";

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
