/**
 * Opening SQLite with the pragmas this server relies on, and the transaction helpers.
 *
 * Durability is `synchronous=FULL` in WAL mode: an acknowledged write survives a power
 * cut. Throughput comes from group commit (`commit`), where the writes of several
 * concurrent requests share one transaction and so one fsync.
 */
import { DatabaseSync } from "node:sqlite";

/** A value SQLite can bind. */
export type SqlValue = string | number | bigint | null | Uint8Array;

/** The opened database with its transaction helpers. */
export interface Database {
  /** The underlying connection; only `db/` modules use it. */
  readonly sql: DatabaseSync;
  /** Runs `fn` in one `BEGIN IMMEDIATE` transaction (a savepoint when nested). */
  tx<T>(fn: () => T): T;
  /**
   * Queues `fn` to run inside the next group commit and resolves once that commit is
   * durable. Each job runs in its own savepoint, so a failing job rolls back alone.
   */
  commit<T>(fn: () => T): Promise<T>;
  /** Waits for queued group-commit jobs, checkpoints the WAL and closes. */
  close(): Promise<void>;
}

interface Job {
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Opens (creating when missing) the database file at `path`. */
export function openDatabase(path: string): Database {
  const sql = new DatabaseSync(path);
  sql.exec("PRAGMA journal_mode = WAL");
  sql.exec("PRAGMA synchronous = FULL");
  sql.exec("PRAGMA foreign_keys = ON");
  sql.exec("PRAGMA busy_timeout = 5000");
  sql.exec("PRAGMA temp_store = MEMORY");
  return createDatabase(sql);
}

function createDatabase(sql: DatabaseSync): Database {
  let depth = 0;
  let queue: Job[] = [];
  let scheduled: ReturnType<typeof setTimeout> | undefined;
  let idle: Promise<void> = Promise.resolve();
  let markIdle: () => void = () => {};
  let closed = false;

  function tx<T>(fn: () => T): T {
    if (depth > 0) return savepoint(fn);
    sql.exec("BEGIN IMMEDIATE");
    depth++;
    try {
      const result = fn();
      sql.exec("COMMIT");
      return result;
    } catch (error) {
      sql.exec("ROLLBACK");
      throw error;
    } finally {
      depth--;
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
      sql.exec(`ROLLBACK TO ${name}`);
      sql.exec(`RELEASE ${name}`);
      throw error;
    } finally {
      depth--;
    }
  }

  function flush(): void {
    scheduled = undefined;
    const batch = queue;
    queue = [];
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      tx(() => {
        for (const job of batch) {
          try {
            outcomes.push({ ok: true, value: savepoint(job.fn) });
          } catch (error) {
            outcomes.push({ ok: false, error });
          }
        }
      });
    } catch (error) {
      // The commit itself failed: nothing of the batch is durable.
      for (const job of batch) job.reject(error);
      markIdle();
      return;
    }
    batch.forEach((job, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) job.resolve(outcome.value);
      else job.reject(outcome.error);
    });
    markIdle();
  }

  function commit<T>(fn: () => T): Promise<T> {
    if (closed) return Promise.reject(new Error("Cannot write: the database is closed"));
    return new Promise<T>((resolve, reject) => {
      queue.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      if (scheduled === undefined) {
        idle = new Promise((r) => markIdle = r);
        // A macrotask, not a microtask: requests that arrive meanwhile join this batch.
        scheduled = setTimeout(flush, 0);
      }
    });
  }

  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    if (scheduled !== undefined) {
      clearTimeout(scheduled);
      flush();
    }
    await idle;
    sql.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    sql.close();
  }

  return { sql, tx, commit, close };
}
