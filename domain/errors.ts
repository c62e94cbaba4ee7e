/** The typed errors domain code throws; routes map them to HTTP, `soap/` to faults. */

/** The kinds of failure a domain operation reports. */
export type ErrorCode =
  | "validation"
  | "unauthenticated"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "too_large"
  | "unsupported_media_type"
  | "rate_limited";

/** A failure the caller caused or may see; carries no HTTP status. */
export class DomainError extends Error {
  override name = "DomainError";
  readonly code: ErrorCode;
  /** Per-field messages for `validation`, keyed by the field's path. */
  readonly details: Record<string, string> | undefined;
  /** Seconds until a `rate_limited` caller may retry. */
  readonly retryAfter: number | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: Record<string, string>; retryAfter?: number } = {},
  ) {
    super(message);
    this.code = code;
    this.details = options.details;
    this.retryAfter = options.retryAfter;
  }
}

/** A `validation` error for one field. */
export function invalid(field: string, message: string): DomainError {
  return new DomainError("validation", message, { details: { [field]: message } });
}
