/**
 * The SQLite engine of the asynchronous storage interface (`engine.ts`), over the server's one
 * `Database`. Its transactions are jobs of that database's group commit, next to the
 * synchronous ones (`Database.commit`): one writer connection, the transactions waiting when a
 * batch starts share one `BEGIN IMMEDIATE … COMMIT` (one fsync), each in a savepoint of its own
 * so a failing one rolls back alone, and a job whose failure ends the whole transaction (a full
 * disk, a `RAISE(ROLLBACK)`) fails with the jobs before it while the rest run again. Queries
 * outside a transaction go to the database's read-only connection (`Database.reader`).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { DatabaseSync } from "node:sqlite";
import type { Engine, Queries, Row, SqlValue } from "./engine.ts";
import { type Database, openDatabase } from "./sqlite.ts";

/** The queries of one connection (its `prepare` keeps statements: `keepStatements`). */
function queriesOf(connection: () => DatabaseSync): Queries {
  return {
    kind: "sqlite",
    get: <T = Row>(text: string, params: SqlValue[] = []) =>
      Promise.resolve(connection().prepare(text).get(...params) as T | undefined),
    all: <T = Row>(text: string, params: SqlValue[] = []) =>
      Promise.resolve(connection().prepare(text).all(...params) as T[]),
    run: (text: string, params: SqlValue[] = []) =>
      Promise.resolve({ changes: Number(connection().prepare(text).run(...params).changes) }),
  };
}

/**
 * Set while a transaction's callback (and whatever it awaits) runs. Using the engine itself
 * there is a mistake this engine cannot serve: a read would not see the transaction's own
 * writes, and a write would wait for the transaction it is part of, forever.
 */
const insideTransaction = new AsyncLocalStorage<true>();

function outside(): void {
  if (insideTransaction.getStore()) {
    throw new Error(
      "Cannot use the engine inside one of its transactions: use the transaction's queries",
    );
  }
}

/** `database` as an engine; closing the engine closes the database. */
export function sqliteEngine(database: Database): Engine {
  const writes = queriesOf(() => database.sql);
  const reads = queriesOf(() => database.reader());
  const transaction = <T>(fn: (tx: Queries) => Promise<T>): Promise<T> => {
    outside();
    return database.commit(() => insideTransaction.run(true, () => fn(writes)));
  };
  return {
    kind: "sqlite",
    get: <T = Row>(text: string, params: SqlValue[] = []) => {
      outside();
      return reads.get<T>(text, params);
    },
    all: <T = Row>(text: string, params: SqlValue[] = []) => {
      outside();
      return reads.all<T>(text, params);
    },
    run: (text: string, params: SqlValue[] = []) => transaction((tx) => tx.run(text, params)),
    transaction,
    async close() {
      await database.close();
    },
  };
}

/** Opens the SQLite database at `path` (created when missing) as an engine. */
export function openSqliteEngine(path: string): Engine {
  return sqliteEngine(openDatabase(path));
}
