/**
 * The SQLite engine of the asynchronous storage interface (`engine.ts`). Writes are serialized
 * on one connection, and the transactions waiting when one batch starts share it: one
 * `BEGIN IMMEDIATE … COMMIT` (one fsync) for the batch, each transaction in a savepoint of its
 * own, so a failing one rolls back alone (group commit, as `Database.commit` does for
 * synchronous work). Queries outside a transaction go to a read-only connection of their own,
 * which in WAL mode sees the last commit and never a transaction still open on the writer.
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";
import type { Engine, Queries, Row, SqlValue } from "./engine.ts";
import { openDatabase } from "./sqlite.ts";

interface Job {
  fn: (tx: Queries) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** The queries of one connection, its statements prepared once per SQL text. */
function queriesOf(db: DatabaseSync): Queries {
  const statements = new Map<string, StatementSync>();
  const statement = (text: string) => {
    let s = statements.get(text);
    if (!s) statements.set(text, s = db.prepare(text));
    return s;
  };
  return {
    get: <T extends Row>(text: string, params: SqlValue[] = []) =>
      Promise.resolve(statement(text).get(...params) as T | undefined),
    all: <T extends Row>(text: string, params: SqlValue[] = []) =>
      Promise.resolve(statement(text).all(...params) as T[]),
    run: (text: string, params: SqlValue[] = []) =>
      Promise.resolve({ changes: Number(statement(text).run(...params).changes) }),
  };
}

/** Opens the SQLite database at `path` (created when missing) as an engine. */
export function openSqliteEngine(path: string): Engine {
  const database = openDatabase(path);
  const writer = database.sql;
  const writes = queriesOf(writer);
  const readerDb = new DatabaseSync(path, { readOnly: true });
  readerDb.exec("PRAGMA busy_timeout = 5000");
  const reads = queriesOf(readerDb);
  let queue: Job[] = [];
  let running: Promise<void> | null = null;

  async function runBatch(batch: Job[]): Promise<void> {
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      writer.exec("BEGIN IMMEDIATE");
      for (const [i, job] of batch.entries()) {
        writer.exec(`SAVEPOINT t${i}`);
        try {
          outcomes.push({ ok: true, value: await job.fn(writes) });
          writer.exec(`RELEASE t${i}`);
        } catch (error) {
          outcomes.push({ ok: false, error });
          if (!writer.isTransaction) throw error; // SQLite ended it: nothing of the batch holds
          writer.exec(`ROLLBACK TO t${i}`);
          writer.exec(`RELEASE t${i}`);
        }
      }
      writer.exec("COMMIT");
    } catch (error) {
      if (writer.isTransaction) writer.exec("ROLLBACK");
      for (const job of batch) job.reject(error);
      return;
    }
    outcomes.forEach((o, i) => o.ok ? batch[i]!.resolve(o.value) : batch[i]!.reject(o.error));
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
    })().finally(() => {
      running = null;
      if (queue.length > 0) drain();
    });
  }

  return {
    kind: "sqlite",
    get: reads.get,
    all: reads.all,
    run(text: string, params: SqlValue[] = []) {
      return this.transaction((tx) => tx.run(text, params));
    },
    transaction<T>(fn: (tx: Queries) => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
        drain();
      });
    },
    async close() {
      while (running) await running;
      readerDb.close();
      await database.close();
    },
  };
}
