/**
 * The audit log (operations: "Audit log"): security-relevant actions, each recorded by one
 * small call, `audit(tx, …)`, inside the action's own transaction, so a row exists exactly
 * when the action committed. The request's client address and id come with the action's
 * input (`RequestMeta`), handed down by the route; nothing global.
 */
import {
  type AuditFilter,
  type AuditRow,
  insertAudit,
  listAudit,
  sweepAudit,
} from "../../db/accounts/audit.ts";
import type { Engine, Queries } from "../../db/kernel/engine.ts";

export type { AuditFilter };
import { takeSweepTurn } from "../../db/kernel/sweep_turn.ts";
import { DomainError } from "../kernel/errors.ts";
import { offsetOf, type Page, pageOf, type PageRequest } from "../kernel/paging.ts";

/** Where a request came from: recorded with what it did. */
export interface RequestMeta {
  /** The peer address (`local` in process), or null for work no request asked for. */
  clientAddress: string | null;
  /** The request's id (`X-Request-Id`), or null for work no request asked for. */
  requestId: string | null;
}

/** The meta of work that no request asked for (the sweeps). */
export const NO_REQUEST: RequestMeta = { clientAddress: null, requestId: null };

/** Every action the log records. */
export const AUDIT_ACTIONS = [
  "auth.login",
  "auth.login_failed",
  "auth.logout",
  "auth.password_changed",
  "auth.password_reset",
  "auth.email_verified",
  "user.role_changed",
  "user.status_changed",
  "user.loan_officer_changed",
  "invitation.created",
  "invitation.resent",
  "invitation.revoked",
  "invitation.accepted",
  "token.created",
  "token.revoked",
  "webhook.created",
  "webhook.updated",
  "webhook.deleted",
  "project.exported",
  "project.imported",
  "project.deleted",
  "project.restored",
  "project.purged",
  "backup.downloaded",
  "sso.linked",
  "sso.unlinked",
  "loan.blacklist_changed",
] as const;

/** An action the log records. */
export type AuditAction = typeof AUDIT_ACTIONS[number];

/** What one audit call records. */
export interface AuditEntry {
  action: AuditAction;
  /** Who acted: a user's id (their email is looked up), or null with `actorEmail` (a failed sign-in). */
  actorId: number | null;
  /** The email tried, when there is no actor (never a password). */
  actorEmail?: string;
  target?: { type: string; id: number };
  /** Facts about the action; never a secret (no password, token or link). */
  details?: Record<string, unknown>;
}

/**
 * Records `entry` in `tx`, the action's own transaction, at `at` (the action's time), with
 * the request's address and id.
 */
export async function audit(
  tx: Queries,
  meta: RequestMeta,
  at: string,
  entry: AuditEntry,
): Promise<void> {
  await insertAudit(tx, {
    at,
    actorId: entry.actorId,
    actorEmail: entry.actorEmail ?? null,
    action: entry.action,
    targetType: entry.target?.type ?? null,
    targetId: entry.target?.id ?? null,
    details: JSON.stringify(entry.details ?? {}),
    clientAddress: meta.clientAddress,
    requestId: meta.requestId,
  });
}

/**
 * Records that an account was linked to (or unlinked from) a single sign-on identity: for the
 * sign-on flow to call inside the transaction that links it.
 */
export function auditSsoLink(
  tx: Queries,
  meta: RequestMeta,
  at: string,
  link: { userId: number; issuer: string; linked: boolean },
): Promise<void> {
  return audit(tx, meta, at, {
    action: link.linked ? "sso.linked" : "sso.unlinked",
    actorId: link.userId,
    target: { type: "user", id: link.userId },
    details: { issuer: link.issuer },
  });
}

/** An audit row as the API shows it. */
export interface AuditRecord {
  id: number;
  at: string;
  actorId: number | null;
  actorEmail: string | null;
  action: string;
  targetType: string | null;
  targetId: number | null;
  details: Record<string, unknown>;
  clientAddress: string | null;
  requestId: string | null;
}

function toRecord(row: AuditRow): AuditRecord {
  return { ...row, details: JSON.parse(row.details) };
}

/** Rows removed per sweep transaction at most. */
const SWEEP_BATCH = 1_000;
const DAY_MS = 86_400_000;

/** The audit log for admins, and its sweep. */
export function createAuditLog(
  db: Engine,
  options: { auditDays: number; now: () => Date },
) {
  return {
    /** A page of rows matching `filter`, newest first (admins only). */
    async list(
      actor: { role: string },
      filter: AuditFilter,
      page: PageRequest,
    ): Promise<Page<AuditRecord>> {
      if (actor.role !== "admin") throw new DomainError("forbidden", "Administrators only");
      const { items, total } = await listAudit(db, filter, {
        limit: page.pageSize,
        offset: offsetOf(page),
      });
      return pageOf(items.map(toRecord), total, page);
    },

    /**
     * Removes the rows older than `AUDIT_DAYS`, in short transactions (one instance at a time
     * on PostgreSQL); how many went.
     */
    async sweep(): Promise<number> {
      const before = new Date(options.now().getTime() - options.auditDays * DAY_MS)
        .toISOString();
      let removed = 0;
      while (true) {
        const batch = await db.transaction(async (tx) =>
          await takeSweepTurn(tx, "audit") ? await sweepAudit(tx, before, SWEEP_BATCH) : 0
        );
        removed += batch;
        if (batch < SWEEP_BATCH) return removed;
        await new Promise<void>((resolve) => setTimeout(resolve, 0));
      }
    },
  };
}
