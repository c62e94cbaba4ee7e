/**
 * The one writer among isolates: with `WORKERS` above 1 every isolate has a connection of its own
 * to the one SQLite file, and each group commit (`sqlite.ts`) holds this lock from its
 * `BEGIN IMMEDIATE` to its `COMMIT`. SQLite would serialise the writers anyway, but its busy
 * handler sleeps in steps of up to 100 ms and gives up after `busy_timeout` with SQLITE_BUSY; this
 * lock hands over the moment the holder lets go (`Atomics.notify`), and a waiting isolate keeps
 * serving meanwhile (`Atomics.waitAsync`), gathering more jobs for its next group commit.
 *
 * The lock is one 32-bit word of a `SharedArrayBuffer` every isolate is given: 0 when free, else
 * the number of the isolate holding it, so that the primary can free it for a worker that died
 * holding it (`releaseFor`).
 */

/** A lock shared by the isolates of one process. */
export interface WriteLock {
  /** This isolate's number (1 for the primary). */
  readonly holder: number;
  /** Takes the lock if it is free; true when taken. */
  tryAcquire(): boolean;
  /** Resolves once this isolate holds the lock; the event loop runs meanwhile. */
  acquire(): Promise<void>;
  /** Waits, blocking this isolate, until it holds the lock (start-up and tests only). */
  acquireBlocking(): void;
  /** Lets go of the lock and wakes one waiter. */
  release(): void;
}

/** How long a waiter sleeps before it looks again, should a wake-up be missed. */
const RECHECK_MS = 50;

/** The shared word a lock lives in: create it once, hand it to every isolate. */
export function writeLockBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer(4);
}

/** The lock in `buffer`, as the isolate numbered `holder` (1 and up) takes it. */
export function writeLock(buffer: SharedArrayBuffer, holder: number): WriteLock {
  if (!Number.isSafeInteger(holder) || holder < 1) throw new Error(`bad lock holder ${holder}`);
  const word = new Int32Array(buffer, 0, 1);
  const tryAcquire = () => Atomics.compareExchange(word, 0, 0, holder) === 0;
  return {
    holder,
    tryAcquire,
    async acquire() {
      while (!tryAcquire()) {
        const seen = Atomics.load(word, 0);
        if (seen === 0) continue;
        const waiting = Atomics.waitAsync(word, 0, seen, RECHECK_MS);
        if (waiting.async) await waiting.value;
      }
    },
    acquireBlocking() {
      while (!tryAcquire()) {
        const seen = Atomics.load(word, 0);
        if (seen !== 0) Atomics.wait(word, 0, seen, RECHECK_MS);
      }
    },
    release() {
      if (Atomics.compareExchange(word, 0, holder, 0) !== holder) {
        throw new Error("Cannot release the write lock: this isolate does not hold it");
      }
      Atomics.notify(word, 0, 1);
    },
  };
}

/**
 * Frees the lock in `buffer` if the isolate numbered `holder` holds it (it died holding it);
 * true when it did.
 */
export function releaseFor(buffer: SharedArrayBuffer, holder: number): boolean {
  const word = new Int32Array(buffer, 0, 1);
  if (Atomics.compareExchange(word, 0, holder, 0) !== holder) return false;
  Atomics.notify(word, 0, 1);
  return true;
}
