/**
 * The primary's side of `WORKERS`: starts the worker isolates (`worker.ts`) on the port the
 * primary listens on, replaces one that an uncaught error ended, and drains them all at
 * shutdown.
 */
import { releaseFor } from "../db/sqlite/write_lock.ts";

/** What the primary tells a worker. */
export type FromPrimary =
  | {
    kind: "start";
    /** The worker's number (2 and up; the primary is 1): its hold on the write lock. */
    id: number;
    port: number;
    hostname: string;
    sessionSecret: string;
    /** The SQLite write lock's word (`db/sqlite/write_lock.ts`). */
    writeLock: SharedArrayBuffer;
    /** The shutting-down word every isolate shares (`isolate.ts`, `sharedLifecycle`). */
    lifecycle: SharedArrayBuffer;
    /** The isolate bus's channel (`domain/kernel/isolate_bus.ts`). */
    busName: string;
    /** How many other isolates hear it there (the primary and the other workers). */
    peers: number;
  }
  | { kind: "drain" };

/** What a worker tells the primary. */
export type FromWorker =
  | { kind: "listening" }
  | { kind: "failed"; message: string }
  | { kind: "stopped"; code: number };

/** The workers, as the primary runs them. */
export interface WorkerPool {
  /**
   * Tells every worker to drain, and resolves once all stopped (true) or `deadline` came
   * first (false); the workers are ended either way.
   */
  drain(deadline: Promise<void>): Promise<boolean>;
}

/** Where the worker module is (listed in the compile task's `--include`). */
const WORKER_MODULE = new URL("./worker.ts", import.meta.url);

/** How long before a worker that could not be replaced is tried again. */
const RETRY_MS = 1_000;

/**
 * Starts `count` workers and resolves once each listens; rejects with the first one's reason
 * if one cannot start.
 */
export async function startWorkers(options: {
  count: number;
  port: number;
  hostname: string;
  sessionSecret: string;
  writeLock: SharedArrayBuffer;
  lifecycle: SharedArrayBuffer;
  busName: string;
  /** Where a worker's end and replacement are logged (one line each). */
  log: (line: string) => void;
  /** The worker module (`worker.ts`; a test gives one that wraps it). */
  module?: URL;
}): Promise<WorkerPool> {
  const workers = new Map<number, Worker>();
  const stopped = new Map<number, Promise<void>>();
  let draining = false;

  /** Starts worker `id`; resolves once it listens, rejects if it cannot start. */
  function spawn(id: number): Promise<void> {
    const worker = new Worker(options.module ?? WORKER_MODULE, {
      type: "module",
      name: `worker ${id}`,
    });
    workers.set(id, worker);
    let markStopped: () => void = () => {};
    stopped.set(id, new Promise((resolve) => markStopped = resolve));
    return new Promise((resolve, reject) => {
      let listening = false;
      const ended = (why: string) => {
        worker.terminate();
        markStopped();
        if (workers.get(id) !== worker) return;
        workers.delete(id);
        // A worker that died holding the write lock would hold it for ever.
        releaseFor(options.writeLock, id);
        if (!listening) return reject(new Error(why));
        if (draining) return;
        options.log(`worker ${id} ended (${why}): starting another`);
        replace(id);
      };
      worker.onmessage = (event: MessageEvent<FromWorker>) => {
        const message = event.data;
        if (message.kind === "listening") {
          listening = true;
          resolve();
        } else if (message.kind === "failed") ended(message.message);
        else if (message.kind === "stopped") {
          workers.delete(id);
          worker.terminate();
          markStopped();
        }
      };
      worker.onerror = (event) => {
        // Handled here: the primary logs it and carries on.
        event.preventDefault();
        ended(event.message);
      };
      const start: FromPrimary = {
        kind: "start",
        id,
        port: options.port,
        hostname: options.hostname,
        sessionSecret: options.sessionSecret,
        writeLock: options.writeLock,
        lifecycle: options.lifecycle,
        busName: options.busName,
        peers: options.count,
      };
      worker.postMessage(start);
    });
  }

  function replace(id: number): void {
    spawn(id).catch((error) => {
      options.log(`worker ${id} cannot start again (${(error as Error).message}): retrying`);
      setTimeout(() => {
        if (!draining) replace(id);
      }, RETRY_MS);
    });
  }

  const ids = Array.from({ length: options.count }, (_, i) => i + 2);
  try {
    await Promise.all(ids.map(spawn));
  } catch (error) {
    draining = true;
    for (const worker of workers.values()) worker.terminate();
    throw error;
  }
  return {
    async drain(deadline) {
      draining = true;
      const drain: FromPrimary = { kind: "drain" };
      for (const worker of workers.values()) worker.postMessage(drain);
      const all = Promise.all([...stopped.values()]).then(() => true);
      const done = await Promise.race([all, deadline.then(() => false)]);
      for (const worker of workers.values()) worker.terminate();
      workers.clear();
      return done;
    },
  };
}
