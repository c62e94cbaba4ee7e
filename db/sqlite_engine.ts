/**
 * The SQLite engine of the asynchronous storage interface (`engine.ts`). Writes are serialized
 * on one connection, and the transactions waiting when one batch starts share it: one
 * `BEGIN IMMEDIATE … COMMIT` (one fsync) for the batch, each transaction in a savepoint of its
 * own, so a failing one rolls back alone (group commit, as `Database.commit` does for
 * synchronous work). Queries outside a transaction go to a read-only connection of their own,
 * which in WAL mode sees the last commit and never a transaction still open on the writer.
 */
import { DatabaseSync } from "node:sqlite";
import type { Engine, Queries, Row, SqlValue } from "./engine.ts";
import { openDatabase } from "./sqlite.ts";
import { keepStatements } from "./statement_cache.ts";

interface Job {
  fn: (tx: Queries) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** The queries of one connection (its `prepare` keeps statements: `keepStatements`). */
function queriesOf(db: DatabaseSync): Queries {
  return {
    get: <T extends Row>(text: string, params: SqlValue[] = []) =>
      Promise.resolve(db.prepare(text).get(...params) as T | undefined),
    all: <T extends Row>(text: string, params: SqlValue[] = []) =>
      Promise.resolve(db.prepare(text).all(...params) as T[]),
    run: (text: string, params: SqlValue[] = []) =>
      Promise.resolve({ changes: Number(db.prepare(text).run(...params).changes) }),
  };
}

/** Opens the SQLite database at `path` (created when missing) as an engine. */
export function openSqliteEngine(path: string): Engine {
  const database = openDatabase(path);
  const writer = database.sql;
  const writes = queriesOf(writer);
  const readerDb = new DatabaseSync(path, { readOnly: true });
  readerDb.exec("PRAGMA busy_timeout = 5000");
  keepStatements(readerDb);
  const reads = queriesOf(readerDb);
  let queue: Job[] = [];
  let running: Promise<void> | null = null;

  /**
   * Runs the jobs of `batch` from `start` in one transaction and settles them; returns where
   * the next transaction must start. When a job's failure made SQLite end the whole
   * transaction (a full disk, a `RAISE(ROLLBACK)`), that job and those before it fail with
   * its error (their work is gone) and the rest run in a new transaction.
   */
  async function runFrom(batch: Job[], start: number): Promise<number> {
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    let end = batch.length;
    try {
      writer.exec("BEGIN IMMEDIATE");
      for (let i = start; i < batch.length; i++) {
        writer.exec(`SAVEPOINT t${i}`);
        try {
          outcomes.push({ ok: true, value: await batch[i]!.fn(writes) });
          writer.exec(`RELEASE t${i}`);
        } catch (error) {
          outcomes.push({ ok: false, error });
          if (!writer.isTransaction) {
            end = i + 1;
            throw error;
          }
          writer.exec(`ROLLBACK TO t${i}`);
          writer.exec(`RELEASE t${i}`);
        }
      }
      writer.exec("COMMIT");
    } catch (error) {
      try {
        if (writer.isTransaction) writer.exec("ROLLBACK");
      } catch {
        // the connection is past saving; the error below is what the callers learn
      }
      for (let i = start; i < end; i++) batch[i]!.reject(error);
      return end;
    }
    outcomes.forEach((o, i) =>
      o.ok ? batch[start + i]!.resolve(o.value) : batch[start + i]!.reject(o.error)
    );
    return end;
  }

  async function runBatch(batch: Job[]): Promise<void> {
    for (let next = 0; next < batch.length;) next = await runFrom(batch, next);
  }

  function drain(): void {
    if (running) return;
    running = (async () => {
      // A macrotask first: transactions started meanwhile join the batch.
      await new Promise((r) => setTimeout(r, 0));
      while (queue.length > 0) {
        const batch = queue;
        queue = [];
        await runBatch(batch);
      }
    })().catch((error) => {
      // runBatch settles every job itself; this is only a last guard against a stuck queue.
      for (const job of queue.splice(0)) job.reject(error);
    }).finally(() => {
      running = null;
      if (queue.length > 0) drain();
    });
  }

  function transaction<T>(fn: (tx: Queries) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      drain();
    });
  }

  return {
    kind: "sqlite",
    get: reads.get,
    all: reads.all,
    run: (text: string, params: SqlValue[] = []) => transaction((tx) => tx.run(text, params)),
    transaction,
    async close() {
      while (running) await running;
      readerDb.close();
      await database.close();
    },
  };
}
