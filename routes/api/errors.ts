/** The one mapping from domain errors to the JSON error body and HTTP status. */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { DomainError, type ErrorCode } from "../../domain/errors.ts";

/** The JSON error body. */
export interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, string> };
}

const STATUS: Record<ErrorCode, ContentfulStatusCode> = {
  validation: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
};

/** Builds the error body. */
export function errorBody(
  code: string,
  message: string,
  details?: Record<string, string>,
): ErrorBody {
  return { error: { code, message, ...(details ? { details } : {}) } };
}

/** Answers `error` as JSON; unexpected errors are logged and become a bare 500. */
export function errorResponse(c: Context, error: unknown, log: (line: string) => void): Response {
  if (error instanceof DomainError) {
    if (error.retryAfter !== undefined) c.header("Retry-After", String(error.retryAfter));
    return c.json(errorBody(error.code, error.message, error.details), STATUS[error.code]);
  }
  if (error instanceof HTTPException && error.status === 415) {
    return c.json(errorBody("unsupported_media_type", "Unsupported media type"), 415);
  }
  if (error instanceof HTTPException && error.status === 413) {
    return c.json(errorBody("too_large", "The request body is too large"), 413);
  }
  if (error instanceof HTTPException && error.status < 500) {
    const message = error.message || "Bad request";
    return c.json(errorBody("validation", message, { body: message }), 400);
  }
  log(`error: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
  return c.json(errorBody("internal", "Internal server error"), 500);
}
