/**
 * The sender loop: takes due deliveries from the outbox and POSTs them, at most 16 at a
 * time and 4 per webhook, so a slow or dead receiver holds a few slots and never the
 * requests that caused the events nor the other receivers. Woken right after a commit that
 * queued deliveries, and polling for retries that come due.
 *
 * Each attempt is claimed in the database first (its `attempts` counted, a lease set), then
 * sent, then recorded; a server that dies mid-attempt leaves the lease, which the next start
 * ends (`start`), so the delivery goes out again: at least once.
 *
 * Where an attempt connects: the host is resolved here and every address checked
 * (`webhook_targets.ts`). An `http` attempt then connects to the checked address itself (a
 * client whose transport is that address), so a name that resolves differently a moment
 * later (DNS rebinding) cannot redirect it. An `https` attempt cannot be pinned that way
 * (Deno's pinned transport speaks plain HTTP even for https URLs, and connecting to a bare
 * address would break the certificate's name check), so fetch resolves the name again; the
 * remaining window is covered by TLS: a rebound address would have to present a valid
 * certificate for the webhook's host name before any byte of the request is sent.
 */
import type { Database } from "../db/sqlite.ts";
import {
  claimDeliveries,
  type DeliveryRow,
  findWebhookById,
  pruneDeliveries,
  releaseAllClaims,
  releaseClaim,
  type WebhookRow,
  webhooksWithDueDeliveries,
} from "../db/webhooks.ts";
import type { Clock } from "./clock.ts";
import { type AttemptOutcome, recordAttempt, signature, signingKey } from "./webhook_outbox.ts";
import {
  type AllowList,
  checkTarget,
  dnsResolver,
  hostOf,
  type Resolver,
} from "./webhook_targets.ts";

/** Tuning of the sender (the defaults are the production values). */
export interface WebhookSenderOptions {
  /** Attempts in flight at once, over all webhooks (default 16). */
  maxInFlight?: number;
  /** Attempts in flight at once for one webhook (default 4). */
  maxInFlightPerWebhook?: number;
  /** How long an attempt may take, resolving included (default 10 s, the contract's). */
  timeoutMs?: number;
  /** How often the loop looks for retries that came due (default 1 s). */
  pollMs?: number;
  /** Finished deliveries older than this are removed (default 30 days). */
  keepDays?: number;
  /** Resolves host names (default: the system's resolver). */
  resolve?: Resolver;
  /** Reports an unexpected error of the loop (default: standard error). */
  onError?: (error: unknown) => void;
}

/** What the sender is built from. */
export interface WebhookSenderDeps {
  db: Database;
  clock: Clock;
  allow: AllowList;
}

/** A claimed attempt and the webhook it goes to. */
interface Claimed {
  delivery: DeliveryRow;
  webhook: WebhookRow;
}

/** The longest a response's headers are waited for past the timeout before a lease ends. */
const LEASE_MARGIN_MS = 60_000;
const HOUR_MS = 3_600_000;
/**
 * How long a wake-up waits before looking: attempts that finish meanwhile are recorded, and
 * new ones claimed, in one commit (one fsync) rather than one each.
 */
const PUMP_DELAY_MS = 5;
/** Pinned HTTP clients kept for reuse (their connections stay open between attempts). */
const MAX_CLIENTS = 64;
/** Signing keys kept, by secret. */
const MAX_KEYS = 256;

/** An attempt that ended and awaits being recorded. */
interface Settled extends Claimed {
  outcome: AttemptOutcome;
}

/** Sends queued webhook deliveries. */
export class WebhookSender {
  readonly #db: Database;
  readonly #clock: Clock;
  readonly #allow: AllowList;
  readonly #options: Required<WebhookSenderOptions>;
  /** Attempts in flight, by delivery id: from their claim until their outcome is taken up. */
  readonly #inFlight = new Map<number, { webhookId: number; attempt: Promise<void> }>();
  readonly #perWebhook = new Map<number, number>();
  /** Attempts that ended, recorded by the next pump together with its claims. */
  #settled: Settled[] = [];
  /** Pinned clients by `address|port`. */
  readonly #clients = new Map<string, Deno.HttpClient>();
  readonly #keys = new Map<string, Promise<CryptoKey>>();
  /** Aborts every attempt in flight when the sender stops for good. */
  #abort = new AbortController();
  #started = false;
  #stopping = false;
  #poll: ReturnType<typeof setInterval> | undefined;
  #wakeTimer: ReturnType<typeof setTimeout> | undefined;
  #pumping: Promise<number> | null = null;
  #again = false;
  #lastPrune = 0;

  constructor(deps: WebhookSenderDeps, options: WebhookSenderOptions = {}) {
    this.#db = deps.db;
    this.#clock = deps.clock;
    this.#allow = deps.allow;
    this.#options = {
      maxInFlight: 16,
      maxInFlightPerWebhook: 4,
      timeoutMs: 10_000,
      pollMs: 1_000,
      keepDays: 30,
      resolve: dnsResolver,
      onError: (error) => console.error("error: webhook sender:", error),
      ...options,
    };
  }

  /** Attempts in flight now. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /**
   * Starts the loop. Attempts a previous run left in flight (a crash, a kill) are due again
   * at once: on SQLite exactly one server process uses the database, so no lease can belong
   * to a live sender.
   */
  start(): void {
    if (this.#started || this.#stopping) return;
    this.#started = true;
    this.#db.tx(() => releaseAllClaims(this.#db));
    this.#poll = setInterval(() => this.wake(), this.#options.pollMs);
    this.wake();
  }

  /** Looks for due deliveries soon (after a commit that queued some); no-op unless started. */
  wake(): void {
    if (!this.#started || this.#stopping || this.#wakeTimer !== undefined) return;
    this.#wakeTimer = setTimeout(() => {
      this.#wakeTimer = undefined;
      this.#pump(true).catch(this.#options.onError);
    }, PUMP_DELAY_MS);
  }

  /**
   * Claims what is due now (up to the limits), sends it and waits until every attempt in
   * flight is recorded; returns how many attempts this call started. For tests and tools
   * that drive the sender without its loop.
   */
  async runOnce(): Promise<number> {
    const started = await this.#pump(true);
    await this.#drain();
    return started;
  }

  /**
   * Stops the loop: nothing new is claimed; attempts in flight get `graceMs` to finish,
   * then are aborted and given back uncounted, to be sent again after the next start.
   * Outcomes already known are recorded.
   */
  async stop(graceMs = 0): Promise<void> {
    this.#stopping = true;
    clearInterval(this.#poll);
    clearTimeout(this.#wakeTimer);
    this.#wakeTimer = undefined;
    if (this.#inFlight.size > 0 && graceMs > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([this.#attempts(), new Promise((r) => timer = setTimeout(r, graceMs))]);
      clearTimeout(timer);
    }
    this.#abort.abort();
    await this.#pumping?.catch(() => {});
    await this.#drain();
    for (const client of this.#clients.values()) client.close();
    this.#clients.clear();
  }

  /** Every attempt in flight, ended. */
  #attempts(): Promise<unknown> {
    return Promise.all([...this.#inFlight.values()].map((f) => f.attempt));
  }

  /** Waits for the attempts in flight and records their outcomes, claiming nothing new. */
  async #drain(): Promise<void> {
    while (this.#inFlight.size > 0) {
      await this.#attempts();
      await this.#pump(false);
    }
  }

  /** Records ended attempts and fills the free slots; again while asked meanwhile. */
  #pump(claim: boolean): Promise<number> {
    if (this.#pumping) {
      this.#again = true;
      // A pump that records only must still run after the one under way.
      return this.#pumping.then(() => claim ? 0 : this.#pump(false));
    }
    this.#pumping = (async () => {
      let started = 0;
      do {
        this.#again = false;
        started += await this.#fill(claim && !this.#stopping);
      } while (this.#again && !this.#stopping);
      return started;
    })().finally(() => this.#pumping = null);
    return this.#pumping;
  }

  /**
   * One commit: the outcomes of ended attempts, then claims for the free slots (which the
   * ended attempts have just freed). Claims that filled every slot look again.
   */
  async #fill(claim: boolean): Promise<number> {
    let started = 0;
    while (true) {
      const settled = this.#settled;
      this.#settled = [];
      // Their rows stay leased until the commit below records them: freeing their slots now
      // cannot let them be claimed twice.
      for (const s of settled) this.#release(s);
      const free = claim && !this.#stopping ? this.#options.maxInFlight - this.#inFlight.size : 0;
      if (settled.length === 0 && free <= 0) break;
      // Joins the next group commit: one fsync with the requests' writes.
      const claimed = await this.#db.commit(() => {
        for (const s of settled) {
          if (s.outcome.kind === "abandoned") releaseClaim(this.#db, s.delivery.id);
          else recordAttempt(this.#db, this.#clock, s);
        }
        return free > 0 ? this.#claim(free) : [];
      });
      for (const c of claimed) this.#launch(c);
      started += claimed.length;
      if (free <= 0 || claimed.length < free) {
        if (this.#settled.length === 0) break;
      }
    }
    await this.#pruneHourly();
    return started;
  }

  /** Frees an ended attempt's slots. */
  #release(s: Settled): void {
    this.#inFlight.delete(s.delivery.id);
    const left = (this.#perWebhook.get(s.webhook.id) ?? 1) - 1;
    if (left > 0) this.#perWebhook.set(s.webhook.id, left);
    else this.#perWebhook.delete(s.webhook.id);
  }

  /** Claims up to `free` due attempts, oldest webhook backlog first, within the per-webhook cap. */
  #claim(free: number): Claimed[] {
    const now = this.#clock.now();
    const at = now.toISOString();
    const leaseUntil = new Date(now.getTime() + this.#options.timeoutMs + LEASE_MARGIN_MS)
      .toISOString();
    const claimed: Claimed[] = [];
    for (const { webhookId } of webhooksWithDueDeliveries(this.#db, at)) {
      const room = Math.min(
        this.#options.maxInFlightPerWebhook - (this.#perWebhook.get(webhookId) ?? 0),
        free - claimed.length,
      );
      if (room <= 0) continue;
      const webhook = findWebhookById(this.#db, webhookId);
      if (!webhook) continue;
      for (
        const delivery of claimDeliveries(this.#db, webhookId, { now: at, leaseUntil, limit: room })
      ) {
        claimed.push({ delivery, webhook });
      }
      if (claimed.length >= free) break;
    }
    return claimed;
  }

  #launch(c: Claimed): void {
    this.#perWebhook.set(c.webhook.id, (this.#perWebhook.get(c.webhook.id) ?? 0) + 1);
    const attempt = this.#attempt(c).then((outcome) => {
      this.#settled.push({ ...c, outcome });
      this.wake();
    });
    this.#inFlight.set(c.delivery.id, { webhookId: c.webhook.id, attempt });
  }

  /** The HMAC key of a secret (kept: importing it for every attempt costs more than it signs). */
  #key(secret: string): Promise<CryptoKey> {
    let key = this.#keys.get(secret);
    if (!key) {
      if (this.#keys.size >= MAX_KEYS) this.#keys.clear();
      key = signingKey(secret);
      this.#keys.set(secret, key);
    }
    return key;
  }

  /**
   * A client whose every connection goes to `address` and `port` (the address checked), kept
   * for reuse; a new one that the caller closes when too many are kept.
   */
  #pinned(address: string, port: number): { client: Deno.HttpClient; owned: boolean } {
    const name = `${address}|${port}`;
    const kept = this.#clients.get(name);
    if (kept) return { client: kept, owned: false };
    const client = Deno.createHttpClient({
      // An IPv6 address goes in brackets.
      proxy: { transport: "tcp", hostname: address.includes(":") ? `[${address}]` : address, port },
    });
    if (this.#clients.size >= MAX_CLIENTS) return { client, owned: true };
    this.#clients.set(name, client);
    return { client, owned: false };
  }

  /** One POST of a delivery; never throws. */
  async #attempt({ delivery, webhook }: Claimed): Promise<AttemptOutcome> {
    const stop = this.#abort.signal;
    if (stop.aborted) return { kind: "abandoned" };
    const timeout = AbortSignal.timeout(this.#options.timeoutMs);
    const signal = AbortSignal.any([timeout, stop]);
    let client: Deno.HttpClient | undefined;
    let owned: Deno.HttpClient | undefined;
    try {
      const url = new URL(webhook.url);
      const target = await checkTarget(url, {
        allow: this.#allow,
        resolve: this.#options.resolve,
        signal,
      });
      if (!target.ok) {
        return target.reason === "blocked"
          ? {
            kind: "failed",
            statusCode: null,
            error: `Refused: ${target.address} is not a public address`,
            final: true,
          }
          : { kind: "failed", statusCode: null, error: `Cannot resolve ${hostOf(url)}` };
      }
      const t = Math.floor(this.#clock.now().getTime() / 1000);
      const headers = {
        "Content-Type": "application/json",
        "User-Agent": "Collab-Webhook/1",
        "X-Collab-Event": delivery.event,
        "X-Collab-Delivery": String(delivery.id),
        "X-Collab-Signature": await signature(await this.#key(webhook.secret), t, delivery.body),
      };
      if (url.protocol === "http:") {
        // Connect to the address just checked, not to whatever the name resolves to next
        // (the first one: A records come before AAAA).
        const pinned = this.#pinned(target.addresses[0]!, Number(url.port || 80));
        client = pinned.client;
        if (pinned.owned) owned = pinned.client;
      }
      const response = await fetch(url, {
        method: "POST",
        headers,
        body: delivery.body,
        redirect: "manual",
        signal,
        ...(client ? { client } : {}),
      });
      // The answer's body is never read: nothing is buffered, however large or endless.
      await response.body?.cancel().catch(() => {});
      const status = response.status;
      if (status >= 200 && status < 300) return { kind: "succeeded", statusCode: status };
      return {
        kind: "failed",
        statusCode: status,
        error: status >= 300 && status < 400
          ? `Redirect not followed (HTTP ${status})`
          : `HTTP ${status}`,
      };
    } catch (error) {
      if (stop.aborted) return { kind: "abandoned" };
      if (timeout.aborted) {
        return {
          kind: "failed",
          statusCode: null,
          error: `No answer within ${this.#options.timeoutMs / 1000} s`,
        };
      }
      return { kind: "failed", statusCode: null, error: describe(error) };
    } finally {
      owned?.close();
    }
  }

  /** Removes finished deliveries past their keeping time, at most once an hour. */
  async #pruneHourly(): Promise<void> {
    const now = this.#clock.now().getTime();
    if (now - this.#lastPrune < HOUR_MS) return;
    this.#lastPrune = now;
    const before = new Date(now - this.#options.keepDays * 24 * HOUR_MS).toISOString();
    await this.#db.commit(() => pruneDeliveries(this.#db, before));
  }
}

/** An attempt's error as the delivery log shows it: the innermost message, shortened. */
function describe(error: unknown): string {
  let inner: unknown = error;
  while (inner instanceof Error && inner.cause instanceof Error) inner = inner.cause;
  const text = inner instanceof Error ? inner.message : String(inner);
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
}
