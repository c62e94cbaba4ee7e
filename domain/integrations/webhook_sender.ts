/**
 * The sender loop: takes due deliveries from the outbox and POSTs them, at most 16 at a
 * time and 4 per webhook, so a slow or dead receiver holds a few slots and never the
 * requests that caused the events nor the other receivers. Woken right after a commit that
 * queued deliveries, and polling for retries that come due.
 *
 * Events wait in the outbox, one row each, until the loop fans them out into deliveries (a
 * commit of its own). Picking what to send only reads the database: a batch of due deliveries
 * per webhook at a time, kept here until slots free up, so a burst costs a look per batch
 * rather than per attempt; the deliveries in flight are known here and left out. The batches
 * are checked against the database at every wake-up after a change to a webhook (its URL,
 * turned off, deleted), when a recorded failure turns a webhook off, and at least every
 * `RECHECK_MS` (a project deleted meanwhile). Outcomes are written afterwards, those that ended close together in one
 * commit, so sending never waits for an fsync. A delivery stays `pending` and due until its
 * outcome is written: a server that dies mid-attempt (a crash, a kill -9) sends it again
 * after restart, so it arrives at least once; the cut-short attempt is not counted.
 *
 * On PostgreSQL several instances share the database, and picking is a claim
 * (`claimDueDeliveries`): one instance at a time takes a webhook's due deliveries and leases
 * them for `CLAIM_LEASE_MS` (they are not due for the others meanwhile), so each is sent by
 * one instance; recording the outcome replaces the lease, and an instance that died
 * mid-attempt leaves its claimed deliveries to be sent again once the lease ran out. On
 * SQLite one process owns the database: picking only reads.
 *
 * The HTTP side of an attempt is a `Poster` (`webhook_poster.ts`): on this thread by default,
 * on a worker thread of its own in the server (`main.ts`).
 */
import type { Engine } from "../../db/kernel/engine.ts";
import { takeSweepTurn } from "../../db/kernel/sweep_turn.ts";
import {
  claimDueDeliveries,
  type DeliveryRow,
  dueDeliveries,
  findWebhookById,
  liveWebhookIds,
  pruneDeliveries,
  type WebhookRow,
  webhooksWithDueDeliveries,
} from "../../db/integrations/webhooks.ts";
import type { Clock } from "../kernel/clock.ts";
import type { Presence } from "../kernel/presence.ts";
import {
  type AttemptOutcome,
  fanOutAll,
  fanOutQueued,
  recordAttempt,
} from "../projects/webhook_outbox.ts";
import { type Poster, WebhookPoster } from "./webhook_poster.ts";
import { type AllowList, dnsResolver, type Resolver } from "./webhook_targets.ts";

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
  /**
   * Milliseconds on a monotonic clock, for holding off while events arrive (default
   * `performance.now`; tests move their own).
   */
  monotonic?: () => number;
  /** Reports an unexpected error of the loop (default: standard error). */
  /** Called as each attempt ends (`succeeded` or `failed`; an abandoned one is not counted). */
  onOutcome?: (status: string) => void;
  onError?: (error: unknown) => void;
  /**
   * Makes the attempts (default: a `WebhookPoster` on this thread, built from `allow`,
   * `resolve` and `timeoutMs`). The sender aborts and closes it when it stops.
   */
  poster?: (options: { allow: AllowList; timeoutMs: number; resolve: Resolver }) => Poster;
}

/** What the sender is built from. */
export interface WebhookSenderDeps {
  db: Engine;
  clock: Clock;
  /** This instance's number, marking the deliveries it claims (PostgreSQL). */
  presence: Presence;
  allow: AllowList;
}

/** A delivery picked for an attempt and the webhook it goes to. */
interface Picked {
  delivery: DeliveryRow;
  webhook: WebhookRow;
}

/** An attempt that ended, awaiting its record. */
interface Settled extends Picked {
  outcome: AttemptOutcome;
}

const HOUR_MS = 3_600_000;
/**
 * How long a wake-up waits before looking: attempts that end within it are refilled, and
 * recorded, together (one look and one commit for many).
 */
const WAKE_DELAY_MS = 10;
/**
 * While events keep arriving (the last less than `YIELD_QUIET_MS` ago), the sender holds off
 * starting attempts (it still fans out, a small batch per commit), for at most `YIELD_MAX_MS`
 * from the first: the requests of a burst get the CPU (on a small machine the attempts, and
 * the receivers, take it from them), and its deliveries go out right after it. Past that the
 * sender sends whatever comes, busy or not.
 */
const YIELD_QUIET_MS = 50;
const YIELD_MAX_MS = 2000;
/** How long picked batches may go unchecked against the database. */
const RECHECK_MS = 250;
/**
 * PostgreSQL: how long claimed deliveries stay away from the other instances, longer than a
 * picked batch can wait and take here (its attempts, 10 s at most each, in the slots it gets).
 */
export const CLAIM_LEASE_MS = 10 * 60_000;
/** Due deliveries of one webhook taken in one look. */
const PICK_BATCH = 32;
/** Deliveries picked and not yet started, over all webhooks (their bodies are in memory). */
const MAX_PICKED = 256;
/**
 * Ended attempts not yet written, beyond which no new attempt starts until they are (the
 * memory they hold stays bounded even if the disk stalls).
 */
const MAX_UNRECORDED = 256;

/** Sends queued webhook deliveries. */
export class WebhookSender {
  readonly #db: Engine;
  readonly #clock: Clock;
  readonly #presence: Presence;
  readonly #allow: AllowList;
  readonly #options: Required<Omit<WebhookSenderOptions, "poster" | "onOutcome">>;
  readonly #onOutcome: ((status: string) => void) | undefined;
  readonly #poster: Poster;
  /** Attempts in flight, by delivery id. */
  readonly #sending = new Map<number, Promise<void>>();
  readonly #perWebhook = new Map<number, number>();
  /** Ended attempts waiting for the next write, and the ids of every ended but unwritten one. */
  #settled: Settled[] = [];
  readonly #unrecorded = new Set<number>();
  #recording: Promise<void> | null = null;
  #fanning: Promise<void> | null = null;
  /** Wake-ups so far, and how many there had been when the fan-out under way began. */
  #wakes = 0;
  #fanningAfter = 0;
  /** The look in the database under way (one at a time), see `#pick`. */
  #picking: Promise<void> | null = null;
  /** Deliveries picked and not yet started, per webhook, oldest due first. */
  readonly #picked = new Map<number, { webhook: WebhookRow; items: DeliveryRow[] }>();
  #pickedCount = 0;
  /** Whether the next fill looks in the database (else it starts what was picked). */
  #look = true;
  /** When (on the monotonic clock) events last arrived, and when they began to (see `wake`). */
  #lastEventAt = -Infinity;
  /** When (on the monotonic clock) the sender last looked in the database. */
  #lookedAt = -Infinity;
  #busySince = -Infinity;
  #started = false;
  #stopping = false;
  #poll: ReturnType<typeof setInterval> | undefined;
  #wakeTimer: ReturnType<typeof setTimeout> | undefined;
  #lastPrune = 0;

  constructor(deps: WebhookSenderDeps, options: WebhookSenderOptions = {}) {
    this.#db = deps.db;
    this.#clock = deps.clock;
    this.#presence = deps.presence;
    this.#allow = deps.allow;
    const { poster, onOutcome, ...rest } = options;
    this.#onOutcome = onOutcome;
    this.#options = {
      maxInFlight: 16,
      maxInFlightPerWebhook: 4,
      timeoutMs: 10_000,
      pollMs: 1_000,
      keepDays: 30,
      resolve: dnsResolver,
      monotonic: () => performance.now(),
      onError: (error) => console.error("error: webhook sender:", error),
      ...rest,
    };
    const made = { allow: this.#allow, timeoutMs: this.#options.timeoutMs };
    this.#poster = poster
      ? poster({ ...made, resolve: this.#options.resolve })
      : new WebhookPoster({ ...made, resolve: this.#options.resolve });
  }

  /** Attempts in flight now. */
  get inFlight(): number {
    return this.#sending.size;
  }

  /** Starts the loop: what is due now (queued before, or cut short by a crash) goes at once. */
  start(): void {
    if (this.#started || this.#stopping) return;
    this.#started = true;
    this.#poll = setInterval(() => {
      this.#look = true;
      this.#wakeSoon();
    }, this.#options.pollMs);
    this.#wakeSoon();
  }

  /**
   * Looks for due deliveries soon, after a commit that queued some or changed a webhook;
   * no-op unless started.
   */
  wake(): void {
    this.#look = true;
    this.#wakes++;
    const now = this.#options.monotonic();
    // The first event after a quiet spell starts a busy spell.
    if (now - this.#lastEventAt >= YIELD_QUIET_MS) this.#busySince = now;
    this.#lastEventAt = now;
    this.#wakeSoon();
  }

  /** Fans out, starts attempts and records what ended, soon (later while yielding). */
  #wakeSoon(): void {
    if (!this.#started || this.#stopping || this.#wakeTimer !== undefined) return;
    this.#wakeTimer = setTimeout(() => {
      this.#wakeTimer = undefined;
      this.#fanOut().then(async () => {
        if (this.#yielding() > 0) {
          void this.#record();
          this.#wakeSoon();
          return;
        }
        await this.#fill().catch(this.#options.onError);
        void this.#record();
      });
    }, Math.max(WAKE_DELAY_MS, this.#yielding()));
  }

  /** How much longer to hold off starting attempts (0: not now); see `YIELD_QUIET_MS`. */
  #yielding(): number {
    const now = this.#options.monotonic();
    const sinceEvent = now - this.#lastEventAt;
    if (sinceEvent >= YIELD_QUIET_MS) return 0;
    const left = YIELD_MAX_MS - (now - this.#busySince);
    return left > 0 ? Math.min(YIELD_QUIET_MS - sinceEvent, left) : 0;
  }

  /**
   * Turns queued outbox events into deliveries, a batch per commit; one fan-out at a time.
   * Never rejects (a failed commit leaves the events queued for the next wake-up).
   */
  #fanOut(): Promise<void> {
    if (this.#fanning) {
      // A fan-out begun before this wake-up's commit may have read the outbox without it:
      // then fan out once more after it, else the events waited for the next poll.
      if (this.#fanningAfter === this.#wakes) return this.#fanning;
      return this.#fanning.then(() => this.#fanOut());
    }
    this.#fanningAfter = this.#wakes;
    this.#fanning = fanOutQueued(this.#db, () => this.#stopping)
      .then((events) => {
        // What it wrote is new to the batches: a look under way, or one that ended since the
        // wake-up (it cleared `#look`), read before it. The next fill looks again.
        if (events > 0) this.#look = true;
      }, (error) => this.#options.onError(error))
      .finally(() => this.#fanning = null);
    return this.#fanning;
  }

  /**
   * Starts attempts for what is due now (up to the limits) and waits until they ended and
   * were recorded; returns how many it started. For tests and tools that drive the sender
   * without its loop.
   */
  async runOnce(): Promise<number> {
    await this.#fanning;
    await fanOutAll(this.#db);
    this.#look = true;
    const started = await this.#fill();
    await this.#drain();
    return started;
  }

  /**
   * Stops the loop: nothing new starts; attempts in flight get `graceMs` to end, then are
   * aborted (and sent again after the next start). Every outcome known is recorded.
   */
  async stop(graceMs = 0): Promise<void> {
    this.#stopping = true;
    clearInterval(this.#poll);
    clearTimeout(this.#wakeTimer);
    this.#wakeTimer = undefined;
    if (this.#sending.size > 0 && graceMs > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([this.#attempts(), new Promise((r) => timer = setTimeout(r, graceMs))]);
      clearTimeout(timer);
    }
    await this.#fanning;
    // A look under way would fill the batches cleared below again.
    await this.#picking?.catch(() => {});
    this.#poster.abortAll();
    await this.#drain();
    this.#poster.close();
    this.#picked.clear();
    this.#pickedCount = 0;
  }

  /** Every attempt in flight, ended. */
  #attempts(): Promise<unknown> {
    return Promise.all(this.#sending.values());
  }

  /** Waits for the attempts in flight and for every outcome to be written. */
  async #drain(): Promise<void> {
    while (this.#sending.size > 0 || this.#settled.length > 0 || this.#recording) {
      await this.#attempts();
      await this.#record();
    }
  }

  /**
   * Starts attempts for due deliveries in the free slots, after a look in the database when
   * one is due; returns how many.
   */
  async #fill(): Promise<number> {
    if (!this.#hasRoom()) return 0;
    // Picked batches are checked against the database at least every `RECHECK_MS`, so a
    // project deleted meanwhile loses its attempts within that time.
    if (this.#look || this.#options.monotonic() - this.#lookedAt >= RECHECK_MS) {
      await this.#pick();
      // The look awaited may have been one already under way, begun before the wake-up that
      // set `#look` again (this fill's own): then look once more, afresh. Without it both the
      // fill under way and this one stopped below, and nothing was sent until the next poll.
      if (this.#look) await this.#pick();
      // A webhook changed while the look read (`wake`): its batch may be stale, so nothing
      // starts from the batches until the next wake-up has looked again.
      if (this.#look) return 0;
    }
    return this.#start();
  }

  /** Whether an attempt may start now. */
  #hasRoom(): boolean {
    return !this.#stopping && this.#sending.size < this.#options.maxInFlight &&
      this.#unrecorded.size < MAX_UNRECORDED;
  }

  /** Starts attempts from the picked batches in the free slots; returns how many. */
  #start(): number {
    if (!this.#hasRoom()) return 0;
    const free = this.#options.maxInFlight - this.#sending.size;
    // Oldest due first, over the webhooks.
    const queues = [...this.#picked.values()].sort((x, y) => {
      const a = x.items[0]!;
      const b = y.items[0]!;
      return a.nextAttemptAt! < b.nextAttemptAt!
        ? -1
        : a.nextAttemptAt! > b.nextAttemptAt!
        ? 1
        : a.id - b.id;
    });
    let started = 0;
    for (const queue of queues) {
      const room = Math.min(
        this.#options.maxInFlightPerWebhook - (this.#perWebhook.get(queue.webhook.id) ?? 0),
        free - started,
      );
      if (room <= 0) continue;
      for (const delivery of queue.items.splice(0, room)) {
        this.#launch({ delivery, webhook: queue.webhook });
        this.#pickedCount--;
        started++;
      }
      if (queue.items.length === 0) {
        // Used up: the next fill looks for more.
        this.#picked.delete(queue.webhook.id);
        this.#look = true;
      }
      if (started >= free) break;
    }
    return started;
  }

  /**
   * Looks in the database: the active webhooks (of live projects) with due deliveries not in
   * flight. Picked batches of webhooks no longer among them are dropped, the others get the
   * webhook as it is now, and webhooks without a batch get one, within `MAX_PICKED`. One
   * look at a time (a fill meanwhile waits for the one under way): two would pick the same
   * deliveries.
   */
  #pick(): Promise<void> {
    this.#picking ??= this.#lookInDatabase().finally(() => this.#picking = null);
    return this.#picking;
  }

  async #lookInDatabase(): Promise<void> {
    this.#look = false;
    this.#lookedAt = this.#options.monotonic();
    const at = this.#clock.now().toISOString();
    // Taken afresh before each read: attempts start and end while the reads are awaited.
    const exclude = () => [...this.#sending.keys(), ...this.#unrecorded];
    const due = await webhooksWithDueDeliveries(this.#db, at, exclude(), this.#presence.id());
    const active = new Set(due.map((d) => d.webhookId));
    const missing = [...this.#picked.keys()].filter((id) => !active.has(id));
    // On PostgreSQL a webhook whose due deliveries this instance claimed is not due any more:
    // its batch is kept while the webhook is active (and its project live).
    const held = this.#db.kind === "postgres" && missing.length > 0
      ? await liveWebhookIds(this.#db, missing)
      : new Set<number>();
    for (const id of missing) if (!held.has(id)) this.#drop(id);
    // And such a batch follows its webhook as it is now (a new URL, a new secret).
    for (const id of held) {
      const webhook = await findWebhookById(this.#db, id);
      const queue = this.#picked.get(id);
      if (!webhook?.active) this.#drop(id);
      else if (queue) queue.webhook = webhook;
    }
    for (const { webhookId } of due) {
      const webhook = await findWebhookById(this.#db, webhookId);
      if (!webhook?.active) {
        this.#drop(webhookId);
        continue;
      }
      const queue = this.#picked.get(webhookId);
      if (queue) {
        queue.webhook = webhook;
        continue;
      }
      const limit = Math.min(PICK_BATCH, MAX_PICKED - this.#pickedCount);
      if (limit <= 0) continue;
      // No attempt of this webhook can start while this reads: it has no batch to start from.
      const choice = { now: at, exclude: exclude(), limit };
      const items = this.#db.kind === "postgres"
        ? await this.#db.transaction((tx) =>
          claimDueDeliveries(tx, webhookId, {
            ...choice,
            leaseUntil: new Date(this.#clock.now().getTime() + CLAIM_LEASE_MS).toISOString(),
            owner: this.#presence.id(),
          })
        )
        : await dueDeliveries(this.#db, webhookId, choice);
      if (items.length === 0 || this.#picked.has(webhookId)) continue;
      this.#picked.set(webhookId, { webhook, items });
      this.#pickedCount += items.length;
    }
  }

  /** Forgets the picked batch of a webhook. */
  #drop(webhookId: number): void {
    const queue = this.#picked.get(webhookId);
    if (!queue) return;
    this.#picked.delete(webhookId);
    this.#pickedCount -= queue.items.length;
  }

  #launch(p: Picked): void {
    const { id } = p.delivery;
    this.#perWebhook.set(p.webhook.id, (this.#perWebhook.get(p.webhook.id) ?? 0) + 1);
    const attempt = this.#attempt(p).then((outcome) => {
      this.#sending.delete(id);
      const left = (this.#perWebhook.get(p.webhook.id) ?? 1) - 1;
      if (left > 0) this.#perWebhook.set(p.webhook.id, left);
      else this.#perWebhook.delete(p.webhook.id);
      // An abandoned attempt writes nothing: its delivery is simply still due.
      if (outcome.kind !== "abandoned") {
        this.#onOutcome?.(outcome.kind === "succeeded" ? "succeeded" : "failed");
        this.#unrecorded.add(id);
        this.#settled.push({ ...p, outcome });
      }
      // The slot goes to the next picked delivery at once (no database read unless the
      // batches are due a check); looking for more, and recording, wait for the wake-up.
      if (this.#started && !this.#stopping && !this.#look && this.#yielding() === 0) {
        this.#fill().catch(this.#options.onError);
      }
      this.#wakeSoon();
    });
    this.#sending.set(id, attempt);
  }

  /**
   * Writes the ended attempts' outcomes, those that ended meanwhile in one commit (joining
   * the requests' group commit); one write at a time. Resolves when nothing is left.
   */
  #record(): Promise<void> {
    if (this.#recording) return this.#recording;
    if (this.#settled.length === 0) return Promise.resolve();
    this.#recording = (async () => {
      while (this.#settled.length > 0) {
        const batch = this.#settled;
        this.#settled = [];
        try {
          // The transaction awaits only its own writes: the attempts have ended.
          const disabled = await this.#db.transaction(async (tx) => {
            const off: WebhookRow[] = [];
            for (const s of batch) {
              const webhook = await recordAttempt(tx, this.#clock, s);
              if (webhook) off.push(webhook);
            }
            return off;
          });
          // A webhook its failures just turned off gets no attempt from its picked batch (nor
          // from one a look under way picks: the batches are checked again first).
          for (const webhook of disabled) this.#drop(webhook.id);
          if (disabled.length > 0) this.#look = true;
        } catch (error) {
          // Nothing was written: the deliveries are still due and are sent again.
          this.#options.onError(error);
        } finally {
          for (const s of batch) this.#unrecorded.delete(s.delivery.id);
        }
      }
      await this.#pruneHourly().catch(this.#options.onError);
    })().finally(() => {
      this.#recording = null;
      this.#wakeSoon();
    });
    return this.#recording;
  }

  /** One attempt of a delivery through the poster; never throws. */
  #attempt({ delivery, webhook }: Picked): Promise<AttemptOutcome> {
    return this.#poster.post({
      deliveryId: delivery.id,
      event: delivery.event,
      body: delivery.body,
      url: webhook.url,
      secret: webhook.secret,
      unixSeconds: Math.floor(this.#clock.now().getTime() / 1000),
    });
  }

  /** Removes finished deliveries past their keeping time, at most once an hour. */
  async #pruneHourly(): Promise<void> {
    const now = this.#clock.now().getTime();
    if (now - this.#lastPrune < HOUR_MS) return;
    this.#lastPrune = now;
    const before = new Date(now - this.#options.keepDays * 24 * HOUR_MS).toISOString();
    // On PostgreSQL one instance prunes at a time; another pruning meanwhile does it for all.
    await this.#db.transaction(async (tx) =>
      await takeSweepTurn(tx, "webhookDeliveries") ? await pruneDeliveries(tx, before) : 0
    );
  }
}
