/**
 * The mail sender: runs beside the requests (never in them), takes a bounded batch of due
 * mails from the outbox per tick and sends them over a small pool of SMTP connections
 * (nodemailer; `connections` mails under way at once, each connection one mail at a time). Each outcome is written at once: sent; a 4xx answer or a network
 * failure is retried after 1 min, 5 min, 15 min, 1 h, 3 h and 6 h, then `failed`; a 5xx
 * answer is `failed` with its reason at once.
 *
 * A mail stays `pending` until its outcome is written: one cut short by a crash or a stop is
 * sent again after the next start (at least once), with the same Message-ID. On PostgreSQL
 * several instances share the outbox: a batch is claimed (`FOR UPDATE SKIP LOCKED`) for
 * `CLAIM_LEASE_MS` by this instance, so each mail is sent by one; an instance that died
 * leaves its claims to the others at once (its presence is gone). On SQLite one process owns
 * the database, and the claims left by the previous run are let go at start.
 */
import type { Engine } from "../../db/kernel/engine.ts";
import {
  claimDueMails,
  finishMail,
  type MailToSend,
  releaseClaims,
  releaseMails,
} from "../../db/mail/outbox.ts";
import type { SmtpConfig } from "../config.ts";
import type { Clock } from "../kernel/clock.ts";
import type { Presence } from "../kernel/presence.ts";
import { headerValue } from "./address.ts";
import { type MailTransport, smtpTransport, WorkerTransport } from "./smtp_transport.ts";

export type { Envelope, MailTransport } from "./smtp_transport.ts";

/** The waits before the 2nd to 7th attempts; a failure after the last is final. */
export const RETRY_DELAYS_MS = [
  60_000,
  5 * 60_000,
  15 * 60_000,
  3_600_000,
  3 * 3_600_000,
  6 * 3_600_000,
];
/** How long a claimed batch stays away from the other instances (PostgreSQL). */
export const CLAIM_LEASE_MS = 10 * 60_000;

/** Tuning of the sender (the defaults are the production values). */
export interface MailSenderOptions {
  /** Mails taken in one tick (default 40). */
  batch?: number;
  /**
   * Mails under way at once, each over a connection of the pool (default 4): one connection
   * spends most of a mail waiting for the server's answers (about 6 ms a mail on loopback).
   */
  connections?: number;
  /** How often the sender looks for due mail (default 5 s). */
  pollMs?: number;
  /** SMTP timeouts: connecting, the greeting, and silence on the socket (default 10, 10, 30 s). */
  connectionTimeoutMs?: number;
  greetingTimeoutMs?: number;
  socketTimeoutMs?: number;
  /** Certificates trusted besides the system's (tests: a throwaway self-signed one). */
  ca?: string;
  /** Reports an unexpected error of the loop (default: standard error). */
  /** Called as each attempt's outcome is written (`sent`, `failed` or `retry`). */
  onOutcome?: (status: string) => void;
  onError?: (error: unknown) => void;
  /**
   * Sends over SMTP from a worker thread of its own (the server: the mails' JavaScript stays
   * off the thread that answers requests) rather than this one (default false).
   */
  inWorker?: boolean;
  /** Makes the transport (default: nodemailer's pooled SMTP transport for `smtp`). */
  transport?: (smtp: SmtpConfig) => MailTransport;
}

/** What the sender is built from. */
export interface MailSenderDeps {
  db: Engine;
  clock: Clock;
  presence: Presence;
  /** Where mail goes, or null: the sender never starts and mail stays queued. */
  smtp: SmtpConfig | null;
  from: string | null;
  /**
   * Queues the mail that came due (the notification mailer), at the start of every tick;
   * `more` asks for another tick soon.
   */
  compose?: () => Promise<{ more: boolean }>;
}

/** What an attempt's failure means: retry later, or give up. */
export function classifyFailure(error: unknown): { permanent: boolean; reason: string } {
  const e = error as { responseCode?: unknown; response?: unknown; message?: unknown };
  const code = typeof e?.responseCode === "number" ? e.responseCode : null;
  const text = typeof e?.response === "string"
    ? e.response
    : typeof e?.message === "string"
    ? e.message
    : String(error);
  const reason = headerValue(text).slice(0, 500);
  return { permanent: code !== null && code >= 500 && code < 600, reason };
}

/** Sends queued mail. */
export class MailSender {
  readonly #db: Engine;
  readonly #clock: Clock;
  readonly #presence: Presence;
  readonly #smtp: SmtpConfig | null;
  readonly #from: string | null;
  readonly #compose: (() => Promise<{ more: boolean }>) | null;
  readonly #options: Required<
    Omit<MailSenderOptions, "transport" | "ca" | "inWorker" | "onOutcome">
  >;
  readonly #onOutcome: ((status: string) => void) | undefined;
  readonly #makeTransport: (smtp: SmtpConfig) => MailTransport;
  #transport: MailTransport | null = null;
  #tick: Promise<number> | null = null;
  #again = false;
  #started = false;
  #stopping = false;
  #poll: ReturnType<typeof setInterval> | undefined;
  #wakeTimer: ReturnType<typeof setTimeout> | undefined;
  #released = false;
  /** Mails claimed by this sender whose outcome is not written yet. */
  readonly #claimed = new Set<number>();

  constructor(deps: MailSenderDeps, options: MailSenderOptions = {}) {
    this.#db = deps.db;
    this.#clock = deps.clock;
    this.#presence = deps.presence;
    this.#smtp = deps.smtp;
    this.#from = deps.from;
    this.#compose = deps.compose ?? null;
    const { transport, ca, inWorker, onOutcome, ...rest } = options;
    this.#onOutcome = onOutcome;
    this.#options = {
      batch: 40,
      connections: 4,
      pollMs: 5_000,
      connectionTimeoutMs: 10_000,
      greetingTimeoutMs: 10_000,
      socketTimeoutMs: 30_000,
      onError: (error) => console.error("error: mail sender:", error),
      ...rest,
    };
    const smtpOptions = {
      connections: this.#options.connections,
      connectionTimeoutMs: this.#options.connectionTimeoutMs,
      greetingTimeoutMs: this.#options.greetingTimeoutMs,
      socketTimeoutMs: this.#options.socketTimeoutMs,
      ...(ca !== undefined ? { ca } : {}),
    };
    this.#makeTransport = transport ??
      ((smtp) =>
        inWorker ? new WorkerTransport(smtp, smtpOptions) : smtpTransport(smtp, smtpOptions));
  }

  /** Whether mail is sent at all (`SMTP_URL` set). */
  get enabled(): boolean {
    return this.#smtp !== null && this.#from !== null;
  }

  /** Starts the loop (no-op when mail is off): what is due now goes at once. */
  start(): void {
    if (!this.enabled || this.#started || this.#stopping) return;
    this.#started = true;
    this.#transport ??= this.#makeTransport(this.#smtp!);
    this.#poll = setInterval(() => this.#wakeSoon(), this.#options.pollMs);
    this.#wakeSoon();
  }

  /** Looks for due mail soon (after a commit that queued some); no-op unless started. */
  wake(): void {
    this.#wakeSoon();
  }

  #wakeSoon(): void {
    if (!this.#started || this.#stopping || this.#wakeTimer !== undefined) return;
    this.#wakeTimer = setTimeout(() => {
      this.#wakeTimer = undefined;
      if (this.#tick) {
        this.#again = true;
        return;
      }
      void this.runOnce().catch(this.#options.onError).then(() => {
        if (this.#again) {
          this.#again = false;
          this.#wakeSoon();
        }
      });
    }, 10);
  }

  /**
   * One tick: queues the mail that came due (`compose`), then claims up to `batch` due mails
   * and sends them (`connections` at a time), writing each outcome; returns how many were
   * attempted. For tests that drive the sender without its loop (with the clock moved in
   * between). One tick at a time.
   */
  runOnce(): Promise<number> {
    if (!this.enabled) return Promise.resolve(0);
    this.#tick ??= this.#runTick().finally(() => this.#tick = null);
    return this.#tick;
  }

  async #runTick(): Promise<number> {
    if (!this.#released && this.#db.kind === "sqlite") {
      await releaseClaims(this.#db);
      this.#released = true;
    }
    if (this.#compose) {
      // A failure to compose holds back no mail already queued.
      try {
        if ((await this.#compose()).more) this.#again = true;
      } catch (error) {
        this.#options.onError(error);
      }
    }
    const now = this.#clock.now();
    const mails = await this.#db.transaction((tx) =>
      claimDueMails(tx, {
        now: now.toISOString(),
        limit: this.#options.batch,
        leaseUntil: new Date(now.getTime() + CLAIM_LEASE_MS).toISOString(),
        owner: this.#presence.id(),
      })
    );
    for (const mail of mails) this.#claimed.add(mail.id);
    let attempted = 0;
    let next = 0;
    // `connections` lanes take the batch's mails in order, one at a time each.
    const lane = async () => {
      // A stop lets the mails under way end; the rest of the batch waits for the next start.
      while (next < mails.length && !this.#stopping) {
        const mail = mails[next++]!;
        await this.#attempt(mail);
        this.#claimed.delete(mail.id);
        attempted++;
      }
    };
    await Promise.all(
      Array.from({ length: Math.min(this.#options.connections, mails.length) }, lane),
    );
    if (mails.length === this.#options.batch && !this.#stopping) this.#again = true;
    return attempted;
  }

  async #attempt(mail: MailToSend): Promise<void> {
    this.#transport ??= this.#makeTransport(this.#smtp!);
    const attempts = mail.attempts + 1;
    try {
      await this.#transport.send({
        from: this.#from!,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        messageId: mail.messageId,
        headers: mail.headers,
      });
    } catch (error) {
      // Cut short by a stop: not counted, and sent again after the next start.
      if (this.#stopping) return;
      const { permanent, reason } = classifyFailure(error);
      const delay = RETRY_DELAYS_MS[attempts - 1];
      const final = permanent || delay === undefined;
      await this.#finish(mail.id, {
        status: final ? "failed" : "pending",
        attempts,
        lastError: reason,
        nextAttemptAt: final ? null : new Date(this.#clock.now().getTime() + delay).toISOString(),
        sentAt: null,
      });
      return;
    }
    const at = this.#clock.now().toISOString();
    await this.#finish(mail.id, {
      status: "sent",
      attempts,
      lastError: null,
      nextAttemptAt: null,
      sentAt: at,
    });
  }

  /** Writes an attempt's outcome (and, at the last attempt, drops the contents) at once. */
  async #finish(id: number, outcome: Parameters<typeof finishMail>[2]): Promise<void> {
    await this.#db.transaction((tx) => finishMail(tx, id, outcome));
    this.#onOutcome?.(outcome.status === "pending" ? "retry" : outcome.status);
  }

  /**
   * Stops the loop: nothing new starts; the mail under way gets `graceMs` to end (its outcome
   * is written), the rest stays pending for the next start. Closes the connection: an attempt
   * it cuts short is not counted and stays pending (sent again after the next start).
   */
  async stop(graceMs = 0): Promise<void> {
    this.#stopping = true;
    clearInterval(this.#poll);
    clearTimeout(this.#wakeTimer);
    this.#wakeTimer = undefined;
    if (this.#tick) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        this.#tick.catch(() => {}),
        new Promise((r) => timer = setTimeout(r, graceMs)),
      ]);
      clearTimeout(timer);
    }
    this.#transport?.close();
    this.#transport = null;
    // What this sender claimed and did not finish is free for the next start, or another
    // instance, at once (not after the lease).
    const unfinished = [...this.#claimed];
    this.#claimed.clear();
    await releaseMails(this.#db, unfinished).catch(this.#options.onError);
  }
}
