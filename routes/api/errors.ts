/** The one mapping from domain errors to the JSON error body and HTTP status. */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import {
  DomainError,
  type ErrorCode,
  isStorageFull,
  STORAGE_FULL_MESSAGE,
} from "../../domain/kernel/errors.ts";

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
  registration_closed: 403,
  registration_domain: 403,
  already_member: 409,
  account_exists: 409,
  too_many: 400,
  mail_off: 409,
  local_login_off: 403,
  last_sign_in: 409,
  sso_failed: 400,
  sso_domain: 403,
  sso_no_account: 403,
  account_disabled: 403,
};

/** The HTTP status of a domain error's code, for the API and the pages alike. */
export function statusOf(code: ErrorCode): ContentfulStatusCode {
  return STATUS[code];
}

/** Builds the error body. */
export function errorBody(
  code: string,
  message: string,
  details?: Record<string, string>,
): ErrorBody {
  return { error: { code, message, ...(details ? { details } : {}) } };
}

/**
 * Answers `error` as JSON. A full disk is 507 `insufficient_storage`; other unexpected
 * errors become a bare 500. Both go to `report` (which logs them).
 */
export function errorResponse(
  c: Context,
  error: unknown,
  report: (error: unknown) => void,
): Response {
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
  report(error);
  if (isStorageFull(error)) {
    return c.json(errorBody("insufficient_storage", STORAGE_FULL_MESSAGE), 507);
  }
  return c.json(errorBody("internal", "Internal server error"), 500);
}
