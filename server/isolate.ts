/**
 * What every isolate serving HTTP does alike, the primary (main.ts) and each worker
 * (`worker.ts`, `WORKERS` above 1): builds the application on its own storage, listens for the
 * other instances' or isolates' events, serves, and at shutdown drains its requests and
 * closes.
 */
import type { Engine } from "../db/kernel/engine.ts";
import type { Database } from "../db/sqlite/sqlite.ts";
import type { Config } from "../domain/config.ts";
import { WorkerPoster } from "../domain/integrations/webhook_poster.ts";
import type { IsolateBus } from "../domain/kernel/isolate_bus.ts";
import { type App, createApp, type Lifecycle } from "../routes/app.ts";
import { type Drain, drain } from "../routes/drain.ts";

/** How long requests in flight may finish at shutdown, in every isolate. */
export const SHUTDOWN_DEADLINE_MS = 10_000;

/** The storage an isolate runs on, and how it is closed at shutdown. */
export interface Storage {
  engine: Engine;
  /** The SQLite database, when the server runs on SQLite. */
  db?: Database;
  close(): Promise<void>;
}

/**
 * The lifecycle every isolate shares (`WORKERS` above 1): one word in shared memory, so that
 * once the primary begins shutting down no isolate takes a new request, at once, before the
 * workers have even read their drain message.
 */
export function sharedLifecycle(buffer: SharedArrayBuffer): Lifecycle {
  const word = new Int32Array(buffer);
  return {
    get shuttingDown() {
      return Atomics.load(word, 0) === 1;
    },
    set shuttingDown(value: boolean) {
      Atomics.store(word, 0, value ? 1 : 0);
    },
  };
}

/** The shared word of `sharedLifecycle`. */
export function lifecycleBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
}

/** The application of one isolate. */
export function buildApp(
  deps: {
    storage: Storage;
    config: Config;
    clock: { now(): Date };
    lifecycle: Lifecycle;
    sessionSecret: string;
    bus?: IsolateBus;
  },
): App {
  return createApp({
    engine: deps.storage.engine,
    ...(deps.storage.db ? { db: deps.storage.db } : {}),
    config: deps.config,
    clock: deps.clock,
    lifecycle: deps.lifecycle,
    sessionSecret: deps.sessionSecret,
    ...(deps.bus ? { bus: deps.bus } : {}),
    // Webhook attempts (lookups, TLS, HTTP, signing) run on a thread of their own, so a burst
    // of deliveries does not take turns with the requests (bench/README.md, webhooks).
    webhooks: { poster: (options) => new WorkerPoster(options) },
    // Likewise mail: building and writing each mail stays off the requests' thread.
    mail: { inWorker: true },
  });
}

/** An isolate's server with its requests counted (`routes/drain.ts`). */
export interface Serving {
  server: Deno.HttpServer<Deno.NetAddr>;
  requests: Drain;
}

/**
 * Serves `app` on `port`; with `reusePort` the port is shared with the other isolates (Linux
 * spreads the connections among them, `SO_REUSEPORT`).
 */
export function serve(
  app: App,
  lifecycle: Lifecycle,
  listen: {
    port: number;
    hostname: string;
    reusePort: boolean;
    onListen: (addr: Deno.NetAddr) => void;
  },
): Serving {
  const requests = drain(app.fetch, lifecycle);
  const server = Deno.serve({
    port: listen.port,
    hostname: listen.hostname,
    ...(listen.reusePort ? { reusePort: true } : {}),
    onListen: listen.onListen,
  }, requests.fetch);
  return { server, requests };
}

/**
 * The first steps of a shutdown: streams end (they never end on their own), requests in flight
 * finish, bodies included, and then the server stops; within `deadline`.
 */
export async function stopServing(app: App, serving: Serving, deadline: Promise<void>) {
  app.services.hub.closeAll();
  await Promise.race([serving.requests.drained().then(() => serving.server.shutdown()), deadline]);
}

/** A promise resolved after `ms`, and its cancellation. */
export function timeout(ms: number): { done: Promise<void>; cancel(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const done = new Promise<void>((resolve) => timer = setTimeout(resolve, ms));
  return { done, cancel: () => clearTimeout(timer) };
}
