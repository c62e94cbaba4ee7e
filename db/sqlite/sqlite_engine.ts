/**
 * The SQLite engine of the asynchronous storage interface (`engine.ts`), over the server's one
 * `Database`. Its transactions are jobs of that database's group commit, next to the
 * synchronous ones (`Database.commit`): one writer connection, the transactions waiting when a
 * batch starts share one `BEGIN IMMEDIATE … COMMIT` (one fsync), each in a savepoint of its own
 * so a failing one rolls back alone, and a job whose failure ends the whole transaction (a full
 * disk, a `RAISE(ROLLBACK)`) fails with the jobs before it while the rest run again. Queries
 * outside a transaction go to the database's read-only connection (`Database.reader`), and a
 * snapshot is a read transaction on a connection of its own.
 */
import { DatabaseSync } from "node:sqlite";
import {
  type Engine,
  type Queries,
  refuseWrite,
  type Row,
  runRead,
  type Snapshot,
  type SqlValue,
  transactionGuard,
} from "../kernel/engine.ts";
import { type Database, openDatabase } from "./sqlite.ts";
import { keepStatements } from "./statement_cache.ts";

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
 * Takes a snapshot of `database`: a second, read-only connection of its file holding one read
 * transaction, which in WAL mode keeps seeing the commit it started at while writers carry on.
 * A database without a file (in memory) has no second connection: its snapshot reads the live
 * connection, without isolation.
 */
function openSnapshot(database: Database): Snapshot {
  const path = database.sql.location();
  if (path === null) {
    return { ...queriesOf(() => database.sql), run: refuseWrite, close: () => Promise.resolve() };
  }
  const sql = new DatabaseSync(path, { readOnly: true });
  try {
    sql.exec("PRAGMA busy_timeout = 5000");
    // An export runs the same few page queries thousands of times.
    keepStatements(sql);
    sql.exec("BEGIN");
    // A WAL read transaction takes its snapshot at its first read.
    sql.prepare("SELECT count(*) FROM sqlite_schema").get();
  } catch (error) {
    sql.close();
    throw error;
  }
  let open = true;
  return {
    ...queriesOf(() => sql),
    run: refuseWrite,
    close() {
      if (!open) return Promise.resolve();
      open = false;
      try {
        if (sql.isTransaction) sql.exec("ROLLBACK");
      } catch {
        // Closing the connection ends its read transaction all the same.
      } finally {
        sql.close();
      }
      return Promise.resolve();
    },
  };
}

/** `database` as an engine; closing the engine closes the database. */
export function sqliteEngine(database: Database): Engine {
  const writes = queriesOf(() => database.sql);
  const reads = queriesOf(() => database.reader());
  const { within, outside } = transactionGuard(database);
  const transaction = <T>(fn: (tx: Queries) => Promise<T>): Promise<T> => {
    outside();
    return database.commit(() => within(() => fn(writes)));
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
    read: <T>(fn: (reads: Queries) => Promise<T>): Promise<T> => {
      outside();
      return within(() => runRead(reads, fn));
    },
    snapshot: () =>
      new Promise<Snapshot>((resolve) => {
        outside();
        resolve(openSnapshot(database));
      }),
    async close() {
      await database.close();
    },
  };
}

/** Opens the SQLite database at `path` (created when missing) as an engine. */
export function openSqliteEngine(path: string): Engine {
  return sqliteEngine(openDatabase(path));
}
