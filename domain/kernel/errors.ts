/** The typed errors domain code throws; routes map them to HTTP, `soap/` to faults. */
import { StorageFullError } from "../../db/kernel/engine.ts";

/** The kinds of failure a domain operation reports. */
export type ErrorCode =
  | "validation"
  | "unauthenticated"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "too_large"
  | "unsupported_media_type"
  | "rate_limited"
  /** Registration refused: `REGISTRATION` is `invite` or `closed` (an invitation still works). */
  | "registration_closed"
  /** Registration refused: the email's domain is not one `REGISTRATION_DOMAINS` lists. */
  | "registration_domain"
  /** An invitation to a project for a person already in it. */
  | "already_member"
  /** An invitation to the server for an email that already has an account. */
  | "account_exists"
  /** A list too long to answer whole: the caller asks for it page by page. */
  | "too_many"
  /** Something only mail can do, asked of a server whose mail is off (no `SMTP_URL`). */
  | "mail_off"
  /** Password sign-in refused by `LOCAL_LOGIN` (`off`, or `admins` for a member). */
  | "local_login_off"
  /** Unlinking the identity that is the only way left to sign in to the account. */
  | "last_sign_in"
  /** A single sign-on failed; `details.reason` says why (domain/identity/sso.ts `SsoFailure`). */
  | "sso_failed"
  /** A single sign-on with an email whose domain `OIDC_ALLOWED_DOMAINS` does not list. */
  | "sso_domain"
  /** A single sign-on of an identity with no account, while `OIDC_AUTO_PROVISION` is false. */
  | "sso_no_account"
  /** A sign-in (single sign-on) to a disabled account. */
  | "account_disabled";

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

/**
 * What a rule between two fields reports in `details`, under the later field: a code, never a
 * sentence, so callers (pages) can say it in their own words.
 */
export type OrderCode =
  /** The field lies before the start it must not precede. */
  | "before_start"
  /** The field must lie after the start, and does not. */
  | "not_after_start";

/** A `validation` error for a rule between two fields: `message` in words, `code` in `details`. */
export function outOfOrder(field: string, code: OrderCode, message: string): DomainError {
  return new DomainError("validation", message, { details: { [field]: code } });
}

/** What a caller is told when a write failed because the server's disk is full. */
export const STORAGE_FULL_MESSAGE = "Cannot save: the server's disk is full";

/**
 * Whether `error` means the disk is full: SQLite's (`StorageFullError`) or the operating
 * system's when file bytes are written (ENOSPC, or EDQUOT for a quota).
 */
export function isStorageFull(error: unknown): boolean {
  if (error instanceof StorageFullError) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && (code === "ENOSPC" || code === "EDQUOT");
}
