/**
 * What the error handlers of the API and the pages share: logging server faults, counting the
 * clients that went away mid-body, and the bare error page.
 */
import type { ErrorHandler } from "hono";
import { CLIENT_GONE_STATUS, isClientGone } from "../soap/http_body.ts";
import type { AppEnv } from "./api/openapi.ts";

/** How a sub-app reports what went wrong. */
export interface Failures {
  /**
   * Logs an unexpected error (a full disk once, until writes work again), with the id of the
   * request it happened in when known.
   */
  report(error: unknown, requestId?: string): void;
  /** Counts a client that went away before its body was read. */
  clientGone(): void;
}

/** The page answered for a server fault when nothing better can be rendered. */
export const SERVER_ERROR_PAGE =
  "<!DOCTYPE html><title>Error</title><h1>Something went wrong.</h1>";

/**
 * `handler`, after a client that went away mid-body (a JSON body, an upload, a form) is
 * counted, not logged, and answered 499: a slow-client flood would otherwise write a line per
 * request, and nobody is left to read an answer.
 */
export function handleFailure(
  failures: Failures,
  handler: ErrorHandler<AppEnv>,
): ErrorHandler<AppEnv> {
  return (error, c) => {
    if (!isClientGone(error)) return handler(error, c);
    failures.clientGone();
    return new Response(null, { status: CLIENT_GONE_STATUS });
  };
}
