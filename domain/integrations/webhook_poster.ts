/**
 * One webhook attempt's HTTP side: resolve and check the target, sign the body, POST it, and
 * say how it went. The sender (`webhook_sender.ts`) decides what to send and records the
 * outcome; a poster only talks to the network, so it can run on another thread
 * (`WorkerPoster`), away from the requests whose events it delivers.
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
import { type AttemptOutcome, signature, signingKey } from "../projects/webhook_outbox.ts";
import {
  type AllowList,
  allowListText,
  checkTarget,
  dnsResolver,
  hostOf,
  parseAllowList,
  type Resolver,
} from "./webhook_targets.ts";

/** Everything one attempt needs, as plain data (it may cross to a worker). */
export interface PostJob {
  deliveryId: number;
  event: string;
  body: string;
  url: string;
  secret: string;
  /** The signature's timestamp (from the sender's clock). */
  unixSeconds: number;
}

/** Sends attempts. */
export interface Poster {
  /** One POST of a delivery; never throws. */
  post(job: PostJob): Promise<AttemptOutcome>;
  /** Cuts every attempt in flight short (they end `abandoned`) and refuses new ones. */
  abortAll(): void;
  /** Frees what the poster holds (connections, a worker); after `abortAll` and the last post. */
  close(): void;
}

/** How a poster checks and times its attempts. */
export interface PosterOptions {
  allow: AllowList;
  /** How long an attempt may take, resolving included. */
  timeoutMs: number;
  resolve?: Resolver;
}

/** Pinned HTTP clients kept for reuse (their connections stay open between attempts). */
const MAX_CLIENTS = 64;
/** Signing keys kept, by secret. */
const MAX_KEYS = 256;

/** Posts on the calling thread. */
export class WebhookPoster implements Poster {
  readonly #allow: AllowList;
  readonly #timeoutMs: number;
  readonly #resolve: Resolver;
  /** Pinned clients by `address|port`. */
  readonly #clients = new Map<string, Deno.HttpClient>();
  readonly #keys = new Map<string, Promise<CryptoKey>>();
  readonly #abort = new AbortController();

  constructor(options: PosterOptions) {
    this.#allow = options.allow;
    this.#timeoutMs = options.timeoutMs;
    this.#resolve = options.resolve ?? dnsResolver;
  }

  abortAll(): void {
    this.#abort.abort();
  }

  close(): void {
    for (const client of this.#clients.values()) client.close();
    this.#clients.clear();
  }

  async post(job: PostJob): Promise<AttemptOutcome> {
    const stop = this.#abort.signal;
    if (stop.aborted) return { kind: "abandoned" };
    // One controller whose timer is cleared when the attempt ends: a timeout signal per
    // attempt would keep each attempt reachable for the full 10 s after it ended.
    const controller = new AbortController();
    const signal = controller.signal;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.#timeoutMs);
    const onStop = () => controller.abort();
    stop.addEventListener("abort", onStop, { once: true });
    let owned: Deno.HttpClient | undefined;
    try {
      const url = new URL(job.url);
      const target = await checkTarget(url, {
        allow: this.#allow,
        resolve: this.#resolve,
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
      const headers = {
        "Content-Type": "application/json",
        "User-Agent": "Collab-Webhook/1",
        "X-Collab-Event": job.event,
        "X-Collab-Delivery": String(job.deliveryId),
        "X-Collab-Signature": await signature(
          await this.#key(job.secret),
          job.unixSeconds,
          job.body,
        ),
      };
      let client: Deno.HttpClient | undefined;
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
        body: job.body,
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
      if (timedOut) {
        return {
          kind: "failed",
          statusCode: null,
          error: `No answer within ${this.#timeoutMs / 1000} s`,
        };
      }
      return { kind: "failed", statusCode: null, error: describe(error) };
    } finally {
      clearTimeout(timer);
      stop.removeEventListener("abort", onStop);
      owned?.close();
    }
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
   * for reuse; when too many are kept, a new one that the caller closes after its attempt.
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
}

/** The first message a poster worker gets. */
export interface PosterWorkerSetup {
  type: "setup";
  /** The allow-list as `WEBHOOK_ALLOW_HOSTS` would write it (a parsed one does not clone). */
  allow: string;
  timeoutMs: number;
}

/** What the sender asks of a poster worker after the setup. */
export type PosterWorkerRequest = { type: "post"; id: number; job: PostJob } | { type: "abort" };

/** A poster worker's answer to a `post`. */
export interface PosterWorkerReply {
  id: number;
  outcome: AttemptOutcome;
}

/** Builds the poster a worker runs from its setup message. */
export function posterFromSetup(setup: PosterWorkerSetup): WebhookPoster {
  return new WebhookPoster({ allow: parseAllowList(setup.allow), timeoutMs: setup.timeoutMs });
}

/**
 * Posts on a worker thread of its own: the DNS lookups, TLS, HTTP and signing of every
 * attempt run there, so a burst of deliveries does not take turns with the requests on the
 * server's thread. Only the job and its outcome cross, as small messages. If the worker
 * dies, the attempts it held end `abandoned` (still due, sent again) and the next post
 * starts a new worker.
 */
export class WorkerPoster implements Poster {
  readonly #setup: PosterWorkerSetup;
  readonly #pending = new Map<number, (outcome: AttemptOutcome) => void>();
  #worker: Worker | null = null;
  #next = 1;
  #aborted = false;

  constructor(options: { allow: AllowList; timeoutMs: number }) {
    this.#setup = {
      type: "setup",
      allow: allowListText(options.allow),
      timeoutMs: options.timeoutMs,
    };
  }

  post(job: PostJob): Promise<AttemptOutcome> {
    if (this.#aborted) return Promise.resolve({ kind: "abandoned" });
    const id = this.#next++;
    const worker = this.#start();
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      worker.postMessage({ type: "post", id, job } satisfies PosterWorkerRequest);
    });
  }

  abortAll(): void {
    this.#aborted = true;
    this.#worker?.postMessage({ type: "abort" } satisfies PosterWorkerRequest);
  }

  close(): void {
    this.#worker?.terminate();
    this.#worker = null;
    this.#settleAll();
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(new URL("./webhook_post_worker.ts", import.meta.url).href, {
      type: "module",
    });
    worker.onmessage = ({ data }: MessageEvent<PosterWorkerReply>) => {
      const resolve = this.#pending.get(data.id);
      this.#pending.delete(data.id);
      resolve?.(data.outcome);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      if (this.#worker === worker) this.#worker = null;
      worker.terminate();
      this.#settleAll();
    };
    worker.postMessage(this.#setup);
    this.#worker = worker;
    return worker;
  }

  /** Ends every attempt still waiting for the worker as `abandoned`. */
  #settleAll(): void {
    const waiting = [...this.#pending.values()];
    this.#pending.clear();
    for (const resolve of waiting) resolve({ kind: "abandoned" });
  }
}

/** An attempt's error as the delivery log shows it: the innermost message, shortened. */
function describe(error: unknown): string {
  let inner: unknown = error;
  while (inner instanceof Error && inner.cause instanceof Error) inner = inner.cause;
  const text = inner instanceof Error ? inner.message : String(inner);
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
}
