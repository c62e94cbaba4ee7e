/**
 * Opening SQLite with the pragmas this server relies on, and the transaction helpers.
 *
 * Durability is `synchronous=FULL` in WAL mode: an acknowledged write survives a power
 * cut. Throughput comes from group commit (`commit`), where the writes of several
 * concurrent requests share one transaction and so one fsync.
 */
import { DatabaseSync } from "node:sqlite";
import { type SqlValue, StorageFullError } from "../kernel/engine.ts";
import { keepStatements } from "./statement_cache.ts";
import type { WriteLock } from "./write_lock.ts";

export { type SqlValue, StorageFullError };

/** The opened database with its transaction helpers. */
export interface Database {
  /**
   * The underlying connection; only `db/` modules use it. Its `prepare` hands back the
   * statement kept for the SQL text (`statement_cache.ts`).
   */
  readonly sql: DatabaseSync;
  /**
   * A read-only connection of its own (opened on first use, closed with the database), for
   * reads outside any transaction: in WAL mode it sees the last commit, never a transaction
   * still open on the writer. An in-memory database has no second connection; its reads go
   * to the writer.
   */
  reader(): DatabaseSync;
  /**
   * Runs `fn` in one `BEGIN IMMEDIATE` transaction (a savepoint when nested). For the start-up
   * (migrations) and tests only: the server writes through the engine's transactions.
   */
  tx<T>(fn: () => T): T;
  /**
   * Queues `fn` to run inside the next group commit and resolves once that commit is
   * durable. Each job runs in its own savepoint, so a failing job rolls back alone.
   *
   * `fn` may be asynchronous (the SQLite engine's transactions are), but then it must await
   * only queries of this connection, which settle at once: the batch must end within the
   * macrotask it began in, as nothing else may run while its transaction is open. A batch
   * that outlasts its macrotask is rolled back whole and its jobs fail, and a `tx` started
   * meanwhile (from outside the batch) is refused rather than joining it.
   *
   * Under Deno, other requests' promise continuations (a password hash's callback, for one)
   * run between the awaits of an asynchronous job, so a synchronous `tx` of theirs would be
   * refused: that is why every writer of the server goes through the engine
   * (`sqlite_engine.ts`), whose transactions are jobs of this commit.
   */
  commit<T>(fn: () => T | Promise<T>): Promise<T>;
  /**
   * Records that a write failed for lack of space. True for the first such failure since
   * a write last succeeded, so that the cause is logged once, not once per request.
   */
  noteStorageFull(): boolean;
  /**
   * Waits for queued group-commit jobs, checkpoints the WAL and closes. A failed
   * checkpoint (a full disk) loses nothing: every committed write is in the WAL, which
   * the next open replays; it is reported, not thrown.
   */
  close(): Promise<{ checkpointError: Error | null }>;
}

/** SQLite's message for SQLITE_FULL (node:sqlite exposes no result code). */
const SQLITE_FULL_MESSAGE = "database or disk is full";

/** SQLite's messages for SQLITE_CORRUPT and SQLITE_NOTADB. */
const DAMAGED_MESSAGES = new Set(["database disk image is malformed", "file is not a database"]);

interface Job {
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** How an isolate's connection shares the file with the other isolates' (`WORKERS`). */
export interface SharedWriting {
  /** Held by each transaction of this connection, from `BEGIN IMMEDIATE` to its end. */
  writeLock: WriteLock;
  /**
   * Whether `close` checkpoints the WAL (the primary's, which closes last), or only closes
   * (a worker's: the others may still be writing).
   */
  checkpointOnClose: boolean;
}

/**
 * Opens (creating when missing) the database file at `path`; `shared` when other isolates of
 * this process write to it too.
 */
export function openDatabase(path: string, shared?: SharedWriting): Database {
  const sql = new DatabaseSync(path);
  sql.exec("PRAGMA journal_mode = WAL");
  sql.exec("PRAGMA synchronous = FULL");
  sql.exec("PRAGMA foreign_keys = ON");
  sql.exec("PRAGMA busy_timeout = 5000");
  sql.exec("PRAGMA temp_store = MEMORY");
  // Each SQL text is compiled once: statements prepared afresh per request hold native
  // memory that V8 does not see, until a full collection it has no reason to run.
  keepStatements(sql);
  return createDatabase(sql, path, shared);
}

/**
 * Runs `PRAGMA quick_check`: the problems it finds, none when the database is sound. Reads
 * only, so a damaged database is left exactly as it was.
 */
export function quickCheck(db: Database): string[] {
  let rows;
  try {
    rows = db.sql.prepare("PRAGMA quick_check").all() as Array<{ quick_check: string }>;
  } catch (error) {
    if (isDamaged(error)) return [(error as Error).message];
    throw error;
  }
  const problems = rows.map((row) => row.quick_check);
  return problems.length === 1 && problems[0] === "ok" ? [] : problems;
}

/** Whether `error` is SQLite saying the file is damaged or not a database at all. */
export function isDamaged(error: unknown): boolean {
  return error instanceof Error && DAMAGED_MESSAGES.has(error.message);
}

/** `error` as a `StorageFullError` when SQLite reported a full disk, else unchanged. */
function storageError(error: unknown): unknown {
  if (error instanceof Error && error.message === SQLITE_FULL_MESSAGE) {
    return new StorageFullError(`Cannot write: ${SQLITE_FULL_MESSAGE}`, { cause: error });
  }
  return error;
}

function createDatabase(sql: DatabaseSync, path: string, shared?: SharedWriting): Database {
  const lock = shared?.writeLock;
  let readOnly: DatabaseSync | null = null;
  function reader(): DatabaseSync {
    if (path === ":memory:") return sql;
    if (!readOnly) {
      readOnly = new DatabaseSync(path, { readOnly: true });
      readOnly.exec("PRAGMA busy_timeout = 5000");
      keepStatements(readOnly);
    }
    return readOnly;
  }
  let depth = 0;
  let queue: Job[] = [];
  let scheduled: ReturnType<typeof setTimeout> | undefined;
  let idle: Promise<void> = Promise.resolve();
  let markIdle: () => void = () => {};
  let closed = false;
  // True from a write failing for lack of space until a write succeeds.
  let storageFull = false;
  // Why the current transaction vanished under a savepoint (see `savepoint`).
  let lost: unknown = undefined;
  // True while a group commit's transaction is open, and while a job's own synchronous part
  // runs (a `tx` then is the job's own, nested in its savepoint).
  let batchOpen = false;
  let inJobCall = false;
  // True while a flush runs its transactions (jobs queued meanwhile wait for the next one).
  let flushing = false;
  // While the next flush waits for another isolate's transaction to end (`lockThenFlush`).
  let waitingLock: Promise<void> | null = null;
  const totalChanges = sql.prepare("SELECT total_changes() AS n");
  const changes = () => (totalChanges.get() as { n: number }).n;

  function tx<T>(fn: () => T): T {
    if (batchOpen && !inJobCall) {
      throw new Error(
        "Cannot start a transaction: a group commit's transaction is open (one of its jobs " +
          "awaited something other than its own queries)",
      );
    }
    if (depth > 0) return savepoint(fn);
    // Only while writes are failing: did this transaction write something?
    const before = storageFull ? changes() : 0;
    lock?.acquireBlocking();
    try {
      sql.exec("BEGIN IMMEDIATE");
    } catch (error) {
      lock?.release();
      throw error;
    }
    depth++;
    lost = undefined;
    try {
      const result = fn();
      if (!sql.isTransaction) throw lost ?? new Error("Cannot commit: the transaction ended early");
      sql.exec("COMMIT");
      if (storageFull && changes() > before) storageFull = false;
      return result;
    } catch (error) {
      // On some errors (a full disk among them) SQLite has already rolled the whole
      // transaction back; a ROLLBACK then would fail and hide the cause.
      if (sql.isTransaction) sql.exec("ROLLBACK");
      throw storageError(error);
    } finally {
      depth--;
      lock?.release();
    }
  }

  /** After `error` inside savepoint `name`: undoes the savepoint's work. */
  function undoSavepoint(name: string, error: unknown): void {
    if (sql.isTransaction) {
      sql.exec(`ROLLBACK TO ${name}`);
      sql.exec(`RELEASE ${name}`);
    } else {
      // SQLite rolled back the whole transaction: the savepoint is gone, and so is
      // everything the enclosing transaction did.
      lost ??= storageError(error);
    }
  }

  function savepoint<T>(fn: () => T): T {
    const name = `sp${depth}`;
    sql.exec(`SAVEPOINT ${name}`);
    depth++;
    try {
      const result = fn();
      sql.exec(`RELEASE ${name}`);
      return result;
    } catch (error) {
      undoSavepoint(name, error);
      throw storageError(error);
    } finally {
      depth--;
    }
  }

  type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };
  /** Steps of a flush: each yield is a promise an asynchronous job returned (see `drive`). */
  type Steps<T> = Generator<Promise<unknown>, T, unknown>;

  /**
   * Runs `steps` synchronously until one yields a promise, and from there as that promise
   * settles: a flush of synchronous jobs runs start to end in one go, so nothing else runs
   * while its transaction is open. Only an asynchronous job makes the flush wait.
   */
  function drive<T>(steps: Steps<T>, resume = () => steps.next()): T | Promise<T> {
    const step = resume();
    if (step.done) return step.value;
    return step.value.then(
      (value) => drive(steps, () => steps.next(value)),
      (error) => drive(steps, () => steps.throw(error)),
    );
  }

  /** Runs one job in a savepoint of the open batch; a promise it returns is waited for. */
  function* runJob(job: Job, index: number): Steps<Outcome> {
    const name = `job${index}`;
    sql.exec(`SAVEPOINT ${name}`);
    depth++;
    try {
      let value: unknown;
      inJobCall = true;
      try {
        value = job.fn();
      } finally {
        inJobCall = false;
      }
      if (value instanceof Promise) value = yield value;
      if (!sql.isTransaction) throw lost ?? new Error("Cannot commit: the transaction ended early");
      sql.exec(`RELEASE ${name}`);
      return { ok: true, value };
    } catch (error) {
      undoSavepoint(name, error);
      return { ok: false, error: storageError(error) };
    } finally {
      depth--;
    }
  }

  /**
   * Runs the jobs of `batch` from `start` in one transaction and adds how each ended to
   * `settle` (called once the whole flush is over); returns where the next transaction must
   * start (before the end when a job's failure made SQLite roll back the whole transaction,
   * undoing the jobs before it too).
   */
  function* commitFrom(batch: Job[], start: number, settle: Array<() => void>): Steps<number> {
    const outcomes: Outcome[] = [];
    let end = batch.length;
    // Only while writes are failing: did this transaction write something?
    const before = storageFull ? changes() : 0;
    // Fires only if the batch outlasts its macrotask (a job awaited something else).
    let outlasted = false;
    const watch = setTimeout(() => outlasted = true, 0);
    depth++;
    batchOpen = true;
    lost = undefined;
    try {
      // Inside: a BEGIN that fails (a busy or full database) fails the jobs, not the flush.
      sql.exec("BEGIN IMMEDIATE");
      for (let i = start; i < batch.length; i++) {
        const outcome = yield* runJob(batch[i]!, i);
        outcomes.push(outcome);
        if (!outcome.ok && !sql.isTransaction) {
          end = i + 1;
          throw outcome.error;
        }
      }
      if (outlasted) {
        throw new Error(
          "Cannot commit: a job of the group commit awaited something other than its own " +
            "queries, so the batch outlasted its macrotask; nothing of it was kept",
        );
      }
      sql.exec("COMMIT");
      if (storageFull && changes() > before) storageFull = false;
    } catch (error) {
      // On some errors (a full disk among them) SQLite has already rolled the whole
      // transaction back; a ROLLBACK then would fail and hide the cause.
      try {
        if (sql.isTransaction) sql.exec("ROLLBACK");
      } catch {
        // the connection is past saving; the error below is what the callers learn
      }
      // Nothing of these jobs is durable.
      const cause = storageError(error);
      for (let i = start; i < end; i++) {
        const job = batch[i]!;
        settle.push(() => job.reject(cause));
      }
      return end;
    } finally {
      clearTimeout(watch);
      batchOpen = false;
      depth--;
    }
    outcomes.forEach((outcome, i) => {
      const job = batch[start + i]!;
      settle.push(outcome.ok ? () => job.resolve(outcome.value) : () => job.reject(outcome.error));
    });
    return end;
  }

  /** All of a flush's transactions, one after another. */
  function* commitAll(batch: Job[], settle: Array<() => void>): Steps<void> {
    for (let next = 0; next < batch.length;) next = yield* commitFrom(batch, next, settle);
  }

  /**
   * Commits the queued jobs: synchronously when every job is (see `drive`). Their promises
   * are settled only after the last transaction has ended: what their callers do next must
   * not run while one is open.
   */
  function flush(): void | Promise<void> {
    scheduled = undefined;
    const batch = queue;
    queue = [];
    const settle: Array<() => void> = [];
    flushing = true;
    const ended = () => {
      flushing = false;
      for (const s of settle) s();
      if (queue.length > 0) schedule();
      else markIdle();
    };
    let done: void | Promise<void>;
    try {
      done = drive(commitAll(batch, settle));
    } catch (error) {
      flushing = false;
      throw error;
    }
    if (done instanceof Promise) {
      return done.then(ended, (error) => {
        flushing = false;
        throw error;
      });
    }
    ended();
  }

  /**
   * `flush` while holding the write lock shared with other isolates (when there are any),
   * released once the flush's last transaction ended.
   */
  function flushHeld(): void | Promise<void> {
    if (!lock) return flush();
    let done: void | Promise<void>;
    try {
      done = flush();
    } catch (error) {
      lock.release();
      throw error;
    }
    if (done instanceof Promise) return done.finally(() => lock.release());
    lock.release();
  }

  /**
   * Takes the write lock, at once when it is free; otherwise the event loop runs while another
   * isolate commits, and the jobs queued meanwhile join this isolate's next flush.
   */
  function lockThenFlush(): void | Promise<void> {
    if (!lock || lock.tryAcquire()) return flushHeld();
    waitingLock = lock.acquire().then(() => {
      waitingLock = null;
      return flushHeld();
    });
    return waitingLock;
  }

  function schedule(): void {
    // A macrotask, not a microtask: requests that arrive meanwhile join this batch.
    scheduled = setTimeout(() => void lockThenFlush(), 0);
  }

  function commit<T>(fn: () => T | Promise<T>): Promise<T> {
    if (closed) return Promise.reject(new Error("Cannot write: the database is closed"));
    return new Promise<T>((resolve, reject) => {
      queue.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      if (scheduled === undefined && !flushing) {
        idle = new Promise((r) => markIdle = r);
        schedule();
      }
    });
  }

  function noteStorageFull(): boolean {
    const first = !storageFull;
    storageFull = true;
    return first;
  }

  async function close(): Promise<{ checkpointError: Error | null }> {
    if (closed) return { checkpointError: null };
    closed = true;
    if (waitingLock) await waitingLock;
    else if (scheduled !== undefined) {
      clearTimeout(scheduled);
      await lockThenFlush();
    }
    await idle;
    readOnly?.close();
    let checkpointError: Error | null = null;
    // A worker leaves the WAL to the primary, which closes last (the others may be writing).
    if (shared?.checkpointOnClose ?? true) {
      try {
        sql.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      } catch (error) {
        checkpointError = error instanceof Error ? error : new Error(String(error));
      }
    }
    sql.close();
    return { checkpointError };
  }

  return { sql, reader, tx, commit, noteStorageFull, close };
}
