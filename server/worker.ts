/**
 * A worker isolate of the server (`WORKERS` above 1), started by the primary (`workers.ts`)
 * once start-up checks and migrations are done: it opens its own connection to the storage,
 * serves HTTP on the primary's port beside the others, and drains when the primary says so.
 * Background work (sweeps, senders, import leftovers) is the primary's alone: here the senders
 * are never started, and what a request queues for them is told on the isolate bus.
 */
/// <reference lib="deno.worker" />
import { join } from "node:path";
import { keepClientTimerErrors, openPostgresEngine } from "../db/postgres/engine.ts";
import { openDatabase } from "../db/sqlite/sqlite.ts";
import { sqliteEngine } from "../db/sqlite/sqlite_engine.ts";
import { writeLock } from "../db/sqlite/write_lock.ts";
import { parseConfig } from "../domain/config.ts";
import { isolateBus } from "../domain/kernel/isolate_bus.ts";
import type { App, Lifecycle } from "../routes/app.ts";
import {
  buildApp,
  serve,
  type Serving,
  sharedLifecycle,
  SHUTDOWN_DEADLINE_MS,
  stopServing,
  type Storage,
  timeout,
} from "./isolate.ts";
import type { FromPrimary, FromWorker } from "./workers.ts";

const tell = (message: FromWorker) => self.postMessage(message);
const reason = (error: unknown) => error instanceof Error ? error.message : String(error);

let running: { app: App; serving: Serving; storage: Storage; lifecycle: Lifecycle } | null = null;
let stopping = false;

self.onmessage = (event: MessageEvent<FromPrimary>) => {
  const message = event.data;
  if (message.kind === "start") {
    start(message).catch((error) => tell({ kind: "failed", message: reason(error) }));
  } else if (message.kind === "drain") void stop();
};

async function start(message: Extract<FromPrimary, { kind: "start" }>): Promise<void> {
  // The primary parsed the same environment already: it is valid.
  const config = parseConfig(Deno.env.toObject());
  const clock = { now: () => new Date() };
  const bus = isolateBus(message.busName, message.peers);
  let storage: Storage;
  if (config.databaseUrl) {
    const engine = openPostgresEngine(config.databaseUrl);
    keepClientTimerErrors((line) => console.error(line));
    storage = { engine, close: () => engine.close() };
  } else {
    // Checked and migrated by the primary; this isolate writes under the shared lock.
    const db = openDatabase(join(config.dataDir, "collab.db"), {
      writeLock: writeLock(message.writeLock, message.id),
      checkpointOnClose: false,
    });
    storage = {
      engine: sqliteEngine(db),
      db,
      async close() {
        await db.close();
      },
    };
  }
  // Shared with the primary: its shutdown refuses new requests here too, at once.
  const lifecycle: Lifecycle = sharedLifecycle(message.lifecycle);
  const app = buildApp({
    storage,
    config,
    clock,
    lifecycle,
    sessionSecret: message.sessionSecret,
    bus,
  });
  // On PostgreSQL a worker is an instance like any other: a number of its own (what it takes
  // is taken over when it stops), and the other instances' events heard.
  await app.services.presence.start();
  await app.services.relay.start();
  const serving = serve(app, lifecycle, {
    port: message.port,
    hostname: message.hostname,
    reusePort: true,
    onListen: () => tell({ kind: "listening" }),
  });
  running = { app, serving, storage, lifecycle };
  if (stopping) await stop();
}

/** Drains and closes, then tells the primary (which ends this worker). */
async function stop(): Promise<void> {
  stopping = true;
  if (!running) return; // start ends by stopping
  const { app, serving, storage, lifecycle } = running;
  running = null;
  let code = 0;
  try {
    lifecycle.shuttingDown = true;
    const deadline = timeout(SHUTDOWN_DEADLINE_MS);
    await stopServing(app, serving, deadline.done);
    deadline.cancel();
    await app.services.relay.stop();
    await app.services.presence.stop();
    await storage.close();
  } catch (error) {
    console.error(`Cannot shut down a worker cleanly: ${reason(error)}`);
    code = 1;
  }
  app.flushLog();
  tell({ kind: "stopped", code });
}
