/**
 * The asynchronous storage interface, with its two implementations: SQLite (`sqlite_engine.ts`)
 * and PostgreSQL (`postgres/engine.ts`). Every `db/` module that the services use takes its
 * `Queries`: the engine outside a transaction, the transaction's inside one (or a snapshot's,
 * for a long read). Only the start-up (migrations, checks) and the SQLite-only tools (backup,
 * admin) use the synchronous `Database`.
 *
 * One SQL text serves both engines: parameters are written `?` (in order) or `?N` (by number),
 * as SQLite takes them, and the PostgreSQL engine rewrites them to `$N` (`toPostgresParams`).
 * Rows come back alike: integers (SQLite `INTEGER`, PostgreSQL `bigint`) as numbers, text as
 * strings.
 */
import { AsyncLocalStorage } from "node:async_hooks";
/** A value either engine can bind. */
export type SqlValue = string | number | bigint | null | Uint8Array;

/** A write failed because the disk, or the database's size limit, is full. */
export class StorageFullError extends Error {
  override name = "StorageFullError";
}

/** A result row. */
export type Row = Record<string, unknown>;

/**
 * The queries of an engine, or of a transaction. The row type `T` is the caller's word for
 * what the SQL selects (as a cast is): name the columns as the SQL does.
 */
export interface Queries {
  /** The engine the queries run on: where SQL must differ, the `db/` module asks this. */
  readonly kind: "sqlite" | "postgres";
  /** The first row, or undefined. */
  get<T = Row>(text: string, params?: SqlValue[]): Promise<T | undefined>;
  /** Every row. */
  all<T = Row>(text: string, params?: SqlValue[]): Promise<T[]>;
  /** Runs a statement and tells how many rows it changed. */
  run(text: string, params?: SqlValue[]): Promise<{ changes: number }>;
}

/**
 * A consistent read-only view of the database, as queries: for its whole life it sees what
 * was committed when it was taken and nothing committed after. Unlike a transaction it may
 * stay open across any wait (a download's), as it holds no writer; it does hold a connection
 * of its own until `close`.
 */
export interface Snapshot extends Queries {
  /** Ends the view and gives its connection back; never rejects, and a second call does nothing. */
  close(): Promise<void>;
}

/**
 * A storage engine. Outside a transaction, `get` and `all` are for reads only and see only
 * committed data, and `run` is a write that commits on its own; a write that returns rows
 * (`RETURNING`) goes in a `transaction`.
 */
export interface Engine extends Queries {
  /**
   * Runs `fn` in a transaction: committed once it resolves (and the commit is durable), rolled
   * back when it throws, and then the promise rejects with that error. Nothing outside the
   * transaction sees its writes before the commit. `fn` must await only its own queries: on
   * SQLite the transactions run one after another (several share one commit), so a
   * transaction waiting on anything else holds up the others, and one that starts another
   * transaction (or an engine-level `run`) from inside waits for itself forever.
   */
  transaction<T>(fn: (tx: Queries) => Promise<T>): Promise<T>;
  /**
   * Runs `fn`, reads that belong together (started at once, say), over `reads`, which refuse to
   * write. On PostgreSQL they go down one connection of the pool in a `REPEATABLE READ READ
   * ONLY` transaction: those started at once are sent together (a round trip for the lot, not a
   * connection each), and all of them see the same committed data. On SQLite they are the
   * engine's own reads, on its read connection, where one round of reads costs no wait; a write
   * may commit between two awaits. Like a transaction, `fn` awaits only its own queries.
   */
  read<T>(fn: (reads: Queries) => Promise<T>): Promise<T>;
  /**
   * PostgreSQL only: hears the notifications sent on `channel` (`pg_notify`, by any instance)
   * on a connection of its own, reconnecting when it is lost. Notifications sent while it was
   * lost are gone: `onListening`, called each time listening (re)starts, is when to catch up.
   */
  listen?(channel: string, handlers: ListenHandlers): Promise<Listening>;
  /**
   * PostgreSQL only: holds the session-level advisory lock (`classId`, `objId`, two int4) on a
   * connection of its own until closed, taking it again after that connection is lost (others
   * see it free meanwhile); null when another session holds it now.
   */
  hold?(classId: number, objId: number): Promise<Listening | null>;
  /**
   * Takes a snapshot (for an export, read page by page while the client downloads): on SQLite a
   * read transaction on a second read-only connection, on PostgreSQL a `REPEATABLE READ READ
   * ONLY` transaction on a connection taken from the pool. Close every snapshot taken.
   */
  snapshot(): Promise<Snapshot>;
  /** Waits for the transactions under way and closes. */
  close(): Promise<void>;
}

/** What a `listen` calls. */
export interface ListenHandlers {
  onPayload(payload: string): void;
  onListening(): void;
  /** Called each time listening stops (its connection lost), until `onListening` again. */
  onLost?(): void;
}

/** A `listen` under way. */
export interface Listening {
  close(): Promise<void>;
}

/** The transactions the running code is inside (through any awaits), innermost first. */
interface Inside {
  owner: object;
  outer: Inside | undefined;
}
const inside = new AsyncLocalStorage<Inside>();

/**
 * An engine's refusal of its own calls made inside one of its transactions (the code `within`
 * runs and whatever that awaits): there such a call is a mistake the engine cannot serve. On
 * SQLite a read would not see the transaction's writes, and a write or a transaction would wait
 * for the transaction it is part of, forever; on PostgreSQL it would run on another connection
 * of the pool, outside the transaction, unseen by it and committed apart from it. `owner`
 * stands for the database: engines over the same one share it.
 */
export function transactionGuard(owner: object): {
  within<T>(fn: () => T): T;
  outside(): void;
} {
  return {
    within: (fn) => inside.run({ owner, outer: inside.getStore() }, fn),
    outside() {
      for (let at = inside.getStore(); at; at = at.outer) {
        if (at.owner === owner) {
          throw new Error(
            "Cannot use the engine inside one of its transactions: use the transaction's queries",
          );
        }
      }
    },
  };
}

/**
 * Runs `fn` over `q` as a read (`Engine.read`): `run` refused, and once `fn` has settled any
 * query through it refused too. Reads started at once may outlive a sibling that failed, and
 * their later queries would otherwise reach the connection after the read gave it back.
 */
export async function runRead<T>(q: Queries, fn: (reads: Queries) => Promise<T>): Promise<T> {
  let over = false;
  const open = <R>(call: () => Promise<R>): Promise<R> =>
    over ? Promise.reject(new Error("Cannot read through a read that is over")) : call();
  try {
    return await fn({
      kind: q.kind,
      get: <R = Row>(text: string, params?: SqlValue[]) => open(() => q.get<R>(text, params)),
      all: <R = Row>(text: string, params?: SqlValue[]) => open(() => q.all<R>(text, params)),
      run: refuseWrite,
    });
  } finally {
    over = true;
  }
}

/** A snapshot's `run`: it writes nothing. */
export function refuseWrite(): Promise<never> {
  return Promise.reject(new Error("Cannot write through a snapshot: it is read-only"));
}

/**
 * SQLite's `?` and `?N` parameters as PostgreSQL's `$N`. Quoted strings, quoted names and
 * comments (`--` and block) are left alone. A text mixing `?` and `?N` is refused, as it is ambiguous.
 */
export function toPostgresParams(text: string): string {
  let out = "";
  let next = 1;
  let numbered = false;
  let bare = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1);
      const stop = end < 0 ? text.length : end + 1;
      out += text.slice(i, stop);
      i = stop - 1;
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      const stop = end < 0 ? text.length : end + 2;
      out += text.slice(i, stop);
      i = stop - 1;
    } else if (c === "-" && text[i + 1] === "-") {
      const end = text.indexOf("\n", i);
      const stop = end < 0 ? text.length : end;
      out += text.slice(i, stop);
      i = stop - 1;
    } else if (c === "?") {
      const digits = /^\d+/.exec(text.slice(i + 1))?.[0];
      if (digits) {
        numbered = true;
        out += `$${digits}`;
        i += digits.length;
      } else {
        bare = true;
        out += `$${next++}`;
      }
      if (numbered && bare) throw new Error("Cannot mix ? and ?N parameters in one statement");
    } else {
      out += c;
    }
  }
  return out;
}
