/** The mail service for routes: the admin's view of the outbox and the test mail. */
import type { Engine } from "../../db/kernel/engine.ts";
import { lastFailedMail, listMails, type MailStatus } from "../../db/mail/outbox.ts";
import type { Actor } from "../accounts/accounts.ts";
import type { Clock } from "../kernel/clock.ts";
import { DomainError } from "../kernel/errors.ts";
import { offsetOf, type Page, pageOf, type PageRequest } from "../kernel/paging.ts";
import { queueMail } from "./outbox.ts";

/** A mail as the admin's list shows it (no bodies). */
export interface MailInfo {
  id: number;
  to: string;
  kind: string;
  subject: string;
  status: MailStatus;
  attempts: number;
  lastError: string | null;
  createdAt: string;
  sentAt: string | null;
}

/** Whether mail is on, and the last mail that failed. */
export interface MailState {
  enabled: boolean;
  lastFailure: { id: number; to: string; lastError: string | null; createdAt: string } | null;
}

function adminOnly(actor: Actor): void {
  if (actor.role !== "admin") throw new DomainError("forbidden", "Administrators only");
}

/** The mail service. */
export function createMail(deps: {
  db: Engine;
  clock: Clock;
  /** Whether mail is sent (`SMTP_URL` set). */
  enabled: boolean;
  /** The Message-ID host: BASE_URL's host name, or null when BASE_URL is unset. */
  host: string | null;
  /** Called after a commit that queued mail (wakes the sender). */
  onQueued: () => void;
}) {
  return {
    /** Whether mail is on, and the last failure (admins only). */
    async state(actor: Actor): Promise<MailState> {
      adminOnly(actor);
      const failed = await lastFailedMail(deps.db);
      return {
        enabled: deps.enabled,
        lastFailure: failed
          ? {
            id: failed.id,
            to: failed.to,
            lastError: failed.lastError,
            createdAt: failed.createdAt,
          }
          : null,
      };
    },

    /** A page of the outbox, newest first (admins only). */
    async list(actor: Actor, request: PageRequest): Promise<Page<MailInfo>> {
      adminOnly(actor);
      const { items, total } = await listMails(deps.db, {
        limit: request.pageSize,
        offset: offsetOf(request),
      });
      return pageOf(
        items.map((m) => ({
          id: m.id,
          to: m.to,
          kind: m.kind,
          subject: m.subject,
          status: m.status,
          attempts: m.attempts,
          lastError: m.lastError,
          createdAt: m.createdAt,
          sentAt: m.sentAt,
        })),
        total,
        request,
      );
    },

    /**
     * Queues a test mail to `to` through the outbox (admins only); `conflict` when mail is off
     * (nothing is queued), `validation` for a malformed address.
     */
    async sendTest(actor: Actor, to: string): Promise<{ id: number }> {
      adminOnly(actor);
      if (!deps.enabled || deps.host === null) {
        throw new DomainError("conflict", "Mail is off: SMTP_URL is not set");
      }
      const host = deps.host;
      const now = deps.clock.now();
      const { id } = await deps.db.transaction((tx) =>
        queueMail(tx, {
          to,
          kind: "test",
          subject: "Collab test mail",
          text: `This is a test mail from Collab (${now.toISOString()}).\n\n` +
            "If you can read it, mail works.\n",
          html: `<p>This is a test mail from Collab (${now.toISOString()}).</p>` +
            "<p>If you can read it, mail works.</p>",
        }, { now, host })
      );
      deps.onQueued();
      return { id };
    },
  };
}
