/**
 * The notification mailer: turns notifications into queued mail, run by the mail sender at the
 * start of each of its ticks (so it follows the injected clock, and stops with the sender).
 *
 * - `immediate`: a mention, to-do assignment or meeting invitation still unread
 *   `MAIL_DELAY_SECONDS` after it was created is mailed, with every other such notification of
 *   the same recipient that is unread and unmailed by then (one mail for the window).
 * - the daily digest, at `digestHour` in the recipient's zone, of every notification created
 *   since the previous digest that is still unread and not mailed (with `immediate`, the kinds
 *   above are left to the immediate mail); no mail when there is none.
 *
 * Each mail is queued in the transaction that marks its notifications mailed (`mailed_at`), so
 * a notification is mailed once, and claims are guarded updates, so several instances on
 * PostgreSQL never mail one twice. A tick does bounded work (`batch` recipients for each of
 * the two), and asks for another tick when it met its bound. What the recipient can no longer
 * see (a project they left, a deleted item) is marked dealt with and never mailed.
 */
import { lookupHash, newLinkToken, sameHash } from "../accounts/link_tokens.ts";
import type { Engine, Queries } from "../../db/kernel/engine.ts";
import {
  claimDigest,
  claimDigestSlot,
  claimImmediate,
  dueDigests,
  findRecipient,
  findUnsubscribeToken,
  IMMEDIATE_KINDS,
  insertUnsubscribeToken,
  mailDetails,
  type MailedNotification,
  type Recipient,
  scheduleDigest,
  turnMailOff,
  unscheduledDigests,
  usersWithDueMail,
  visibleOf,
} from "../../db/mail/notification_mail.ts";
import type { Clock } from "../kernel/clock.ts";
import { dateInZone, DEFAULT_TIME_ZONE, wallTimeToUtc } from "../kernel/time_zones.ts";
import { queueMail } from "./outbox.ts";
import {
  type ComposedMail,
  digestMail,
  immediateMail,
  threadId,
} from "./notification_templates.ts";
import type { MailDetails } from "../../db/mail/notification_mail.ts";

/** The first instant after `now` when the clock in `zone` shows `hour`:00. */
export function nextDigestAt(now: Date, hour: number, zone: string): string {
  const today = dateInZone(now, zone);
  const wall = `T${String(hour).padStart(2, "0")}:00`;
  for (let days = 0;; days++) {
    const date = new Date(Date.parse(`${today}T00:00:00Z`) + days * 86_400_000)
      .toISOString().slice(0, 10);
    const at = wallTimeToUtc(date + wall, zone)!;
    if (Date.parse(at) > now.getTime()) return at;
  }
}

/** What the mailer is built from. */
export interface NotifierDeps {
  db: Engine;
  clock: Clock;
  /** BASE_URL without a trailing slash (links), and its host name (Message-IDs, List-Id). */
  baseUrl: string;
  host: string;
  /** `MAIL_DELAY_SECONDS`. */
  delaySeconds: number;
  /** Recipients handled per tick for each of immediate mail and digests (default 20). */
  batch?: number;
}

/**
 * How old a notification may be and still be mailed at once: one that waited longer (mail was
 * off, or the server down) is left to the digest rather than arriving long after the fact.
 */
export const IMMEDIATE_HORIZON_MS = 24 * 3_600_000;

/** Rolls back a claim that turned out to be nothing to mail yet. */
class NothingDue extends Error {}

/** The notification mailer. */
export function createNotifier(deps: NotifierDeps) {
  const { db, clock, baseUrl, host } = deps;
  const batch = deps.batch ?? 20;

  /** Queues one composed mail with the list and unsubscribe headers, in `tx`. */
  async function queue(
    tx: Queries,
    recipient: Recipient,
    kind: string,
    rows: MailedNotification[],
    details: MailDetails,
    compose: (links: { baseUrl: string; unsubscribeUrl: string }) => ComposedMail,
    now: Date,
  ): Promise<void> {
    const { token, hash } = newLinkToken();
    await insertUnsubscribeToken(tx, hash, recipient.id, now.toISOString());
    const unsubscribeUrl = `${baseUrl}/unsubscribe/${token}`;
    const mail = compose({ baseUrl, unsubscribeUrl });
    const headers: Record<string, string> = {
      "List-Unsubscribe": `<${unsubscribeUrl}>`,
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    };
    const projects = new Set(rows.map((r) => r.projectId));
    if (projects.size === 1) {
      const [projectId] = projects;
      if (projectId !== null && projectId !== undefined) {
        headers["List-Id"] = `<project-${projectId}.${host}>`;
      }
    }
    const threads = new Set(rows.map((r) => threadId(r, details, host)));
    if (threads.size === 1) {
      const [thread] = threads;
      if (thread) {
        headers["In-Reply-To"] = thread;
        headers["References"] = thread;
      }
    }
    await queueMail(tx, { to: recipient.email, kind, ...mail, headers }, { now, host });
  }

  /** Keeps what the recipient can still see; the rest stays marked, never mailed. */
  async function visible(tx: Queries, recipient: Recipient, rows: MailedNotification[]) {
    const shown = await visibleOf(tx, recipient.id, rows.map((r) => r.id));
    return rows.filter((r) => shown.has(r.id));
  }

  /** One recipient's immediate mail; whether a mail was queued. */
  async function mailNow(
    userId: number,
    now: Date,
    window: { since: string; cutoff: string },
  ): Promise<boolean> {
    try {
      return await db.transaction(async (tx) => {
        const recipient = await findRecipient(tx, userId);
        if (!recipient || recipient.emailNotifications !== "immediate") return false;
        const claimed = await claimImmediate(tx, userId, {
          since: window.since,
          now: now.toISOString(),
        });
        // Another instance mailed the due ones meanwhile: what is left is not due yet.
        if (!claimed.some((r) => r.createdAt <= window.cutoff)) throw new NothingDue();
        const rows = await visible(tx, recipient, claimed);
        if (rows.length === 0) return false;
        const details = await mailDetails(tx, rows);
        const reader = { ...recipient, timeZone: recipient.timeZone ?? DEFAULT_TIME_ZONE };
        await queue(
          tx,
          recipient,
          "notification",
          rows,
          details,
          (links) => immediateMail(rows, details, reader, links),
          now,
        );
        return true;
      });
    } catch (error) {
      if (error instanceof NothingDue) return false;
      throw error;
    }
  }

  /** One recipient's digest; whether a mail was queued. */
  async function digest(recipient: Recipient, now: Date): Promise<boolean> {
    const zone = recipient.timeZone ?? DEFAULT_TIME_ZONE;
    return await db.transaction(async (tx) => {
      const claimed = await claimDigestSlot(tx, recipient.id, {
        from: recipient.digestAt!,
        next: nextDigestAt(now, recipient.digestHour, zone),
        now: now.toISOString(),
      });
      if (!claimed) return false;
      const rows = await visible(
        tx,
        recipient,
        await claimDigest(tx, recipient.id, {
          since: recipient.lastDigestAt ?? "",
          now: now.toISOString(),
          exceptKinds: recipient.emailNotifications === "immediate" ? IMMEDIATE_KINDS : [],
        }),
      );
      if (rows.length === 0) return false;
      const details = await mailDetails(tx, rows);
      const reader = { ...recipient, timeZone: zone };
      await queue(
        tx,
        recipient,
        "digest",
        rows,
        details,
        (links) => digestMail(rows, details, reader, links),
        now,
      );
      return true;
    });
  }

  return {
    /**
     * One round: immediate mail that came due, then digests (scheduling the unscheduled first).
     * Returns how many mails were queued and whether work was left for another round.
     */
    async runOnce(): Promise<{ queued: number; more: boolean }> {
      const now = clock.now();
      const cutoffMs = now.getTime() - deps.delaySeconds * 1000;
      const window = {
        since: new Date(cutoffMs - IMMEDIATE_HORIZON_MS).toISOString(),
        cutoff: new Date(cutoffMs).toISOString(),
      };
      let queued = 0;
      const users = await usersWithDueMail(db, { ...window, limit: batch });
      for (const userId of users) if (await mailNow(userId, now, window)) queued++;
      const unscheduled = await unscheduledDigests(db, batch);
      for (const r of unscheduled) {
        const at = nextDigestAt(now, r.digestHour, r.timeZone ?? DEFAULT_TIME_ZONE);
        await scheduleDigest(db, r.id, at, now.toISOString());
      }
      const due = await dueDigests(db, now.toISOString(), batch);
      for (const r of due) if (await digest(r, now)) queued++;
      const more = users.length === batch || unscheduled.length === batch ||
        due.length === batch;
      return { queued, more };
    },

    /**
     * Turns off the notification mail of the user whose unsubscribe token this is (again and
     * again: the link keeps working); false for a token that does not work. Callers answer both
     * alike, so the answer tells nothing about the token.
     */
    async unsubscribe(token: string): Promise<boolean> {
      const hash = lookupHash(token);
      if (hash === null) return false;
      const found = await findUnsubscribeToken(db, hash);
      if (!found || !sameHash(found.tokenHash, hash)) return false;
      await db.transaction((tx) => turnMailOff(tx, found.userId, clock.now().toISOString()));
      return true;
    },
  };
}

/** The notification mailer's type. */
export type Notifier = ReturnType<typeof createNotifier>;
