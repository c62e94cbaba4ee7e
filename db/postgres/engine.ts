/**
 * The PostgreSQL engine of the asynchronous storage interface (`../engine.ts`), on the
 * `postgres` client (docs/decisions/0006-postgresql-client.md). Each transaction holds a
 * connection of the pool, and so does each snapshot until it is closed; queries outside one
 * take any. `bigint` values come back as numbers (ids and counts stay far below 2^53), as
 * SQLite's integers do.
 */
import postgres from "postgres";
import {
  type Engine,
  type ListenHandlers,
  type Listening,
  type Queries,
  refuseWrite,
  type Row,
  runRead,
  type Snapshot,
  type SqlValue,
  toPostgresParams,
  transactionGuard,
} from "../kernel/engine.ts";

/**
 * Whether `error` is the `postgres` client's write to a connection already closed
 * (porsager/postgres#1154, #1208, still in 3.4.9): a small write is deferred to a
 * `setImmediate`, and when the connection closes first the timer writes to a socket that is
 * gone. It is thrown from the client's own timer, where no caller can catch it, and would end
 * the process while the database restarts. The close already failed the queries it carried
 * (`CONNECTION_CLOSED`), so nothing is lost by going on: see `keepClientTimerErrors`.
 */
export function isClosedSocketWrite(error: unknown): boolean {
  return error instanceof TypeError && /\(reading 'write'\)/.test(error.message) &&
    /\bnextWrite\b/.test(error.stack ?? "") &&
    /[\\/]postgres\b[^\n]*[\\/]src[\\/]connection\.js/.test(error.stack ?? "");
}

/**
 * Whether `error` is a connection reset read from a socket that no one listens to any more:
 * the `postgres` client takes its listeners off a connection when it closes, and when the
 * database restarts, Deno's Node layer was seen (once in a CI run, two instances over a
 * restarting cluster) to deliver the reset after that. With no listener the error is thrown
 * and would end the process. The close already failed the connection's queries.
 */
export function isUnheardReset(error: unknown): boolean {
  const e = error as { code?: unknown; syscall?: unknown } | null;
  return error instanceof Error && e?.code === "ECONNRESET" && e?.syscall === "read";
}

/**
 * Keeps the process running through the client errors `isClosedSocketWrite` and
 * `isUnheardReset` name (thrown, or a promise's), reported through `log`; every other uncaught
 * error ends the process as before. The server's entry point installs it when it runs on
 * PostgreSQL, and so do the tests' PostgreSQL servers.
 */
export function keepClientTimerErrors(log: (line: string) => void): void {
  const kept = (error: unknown): string | null =>
    isClosedSocketWrite(error)
      ? "PostgreSQL client wrote to a closed connection (its queries had failed): going on"
      : isUnheardReset(error)
      ? "a closed connection was reset by its peer (its queries had failed): going on"
      : null;
  globalThis.addEventListener("error", (event) => {
    const line = kept(event.error);
    if (line === null) return;
    event.preventDefault();
    log(line);
  });
  globalThis.addEventListener("unhandledrejection", (event) => {
    const line = kept(event.reason);
    if (line === null) return;
    event.preventDefault();
    log(line);
  });
}

/**
 * How long a connection of its own (listening, holding a lock) waits before it is made again
 * after it was lost or could not be made: the first wait, doubled after each failed attempt up
 * to the most, and back to the first once ready. Not shorter: the client, when connections
 * are made and ended every 0.1 s while the server shuts down or starts, was seen to throw out
 * of a timer of its own (writing to a socket gone), which ends the process.
 */
const SESSION_RETRY_MS = 500;
const SESSION_RETRY_MAX_MS = 4000;
/**
 * How often a ready connection of its own is asked `SELECT 1`, and how long it may take to
 * answer: a connection lost without being closed (a network gone silent) is found so.
 */
const SESSION_CHECK_MS = 10_000;

/** What a connection of its own calls. */
interface SessionHandlers {
  /** Each time the connection is ready (after `setup`). */
  onReady(): void;
  /** Each time the ready connection is lost (it is made again). */
  onLost?(): void;
  onNotify?(name: string, payload: string): void;
}

/**
 * A connection of its own to `url` (named `name` to the server) that `setup` prepares (answers false when it could not:
 * the connection is ended and tried again later), and that is made again whenever it is lost,
 * until closed, with a growing wait between failed attempts. The client's own `listen`
 * re-listens after a lost connection only once, and gives up silently when the server is
 * still down: this keeps trying. It notices a loss by the connection's close, or by a check
 * that goes unanswered. Resolves once the first attempt ended, with whether it got ready.
 */
async function sessionAt(
  url: string,
  name: string,
  setup: (client: postgres.Sql) => Promise<boolean>,
  handlers: SessionHandlers,
): Promise<{ ready: boolean; session: Listening }> {
  let closed = false;
  // The connection being made or ready, and the ready one.
  let current: postgres.Sql | null = null;
  let live: postgres.Sql | null = null;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let check: ReturnType<typeof setTimeout> | undefined;
  let wait = SESSION_RETRY_MS;
  const again = () => {
    if (!closed && retry === undefined) {
      retry = setTimeout(() => {
        retry = undefined;
        void connect();
      }, wait);
      wait = Math.min(wait * 2, SESSION_RETRY_MAX_MS);
    }
  };
  // `client` is lost or refused: ended, told when it was ready, and made again.
  const drop = (client: postgres.Sql) => {
    if (current !== client) return;
    current = null;
    const wasLive = live === client;
    live = null;
    clearTimeout(check);
    void client.end({ timeout: 0 });
    if (wasLive) handlers.onLost?.();
    again();
  };
  const answers = async (client: postgres.Sql): Promise<boolean> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<false>((resolve) =>
      timer = setTimeout(resolve, SESSION_CHECK_MS, false)
    );
    try {
      return await Promise.race([client.unsafe("SELECT 1").then(() => true, () => false), late]);
    } finally {
      clearTimeout(timer);
    }
  };
  const watch = (client: postgres.Sql) => {
    check = setTimeout(async () => {
      const ok = await answers(client);
      if (live !== client) return;
      if (ok) watch(client);
      else drop(client);
    }, SESSION_CHECK_MS);
  };
  const connect = async (): Promise<boolean> => {
    const client = postgres(url, {
      max: 1,
      idle_timeout: 0,
      max_lifetime: null,
      // Seen in pg_stat_activity (unless the URL names one).
      connection: { application_name: name },
      onnotice: () => {},
      onclose: () => drop(client),
      // Undeclared in the client's types, but the option its own `listen` uses.
      ...(handlers.onNotify ? { onnotify: handlers.onNotify } : {}),
    } as postgres.Options<Record<string, postgres.PostgresType>>);
    current = client;
    let ready = false;
    try {
      ready = await setup(client);
    } catch {
      // Not reached, or lost on the way: tried again below.
    }
    if (closed) {
      void client.end({ timeout: 0 });
      return false;
    }
    if (current !== client) return false; // lost on the way: being made again
    if (!ready) {
      drop(client);
      return false;
    }
    live = client;
    wait = SESSION_RETRY_MS;
    watch(client);
    handlers.onReady();
    return true;
  };
  const ready = await connect();
  return {
    ready,
    session: {
      async close() {
        closed = true;
        clearTimeout(retry);
        clearTimeout(check);
        const client = current;
        current = live = null;
        await client?.end({ timeout: 1 });
      },
    },
  };
}

/** Listens on `channel` over a connection of its own, listening again after it is lost. */
async function listenAt(url: string, channel: string, on: ListenHandlers): Promise<Listening> {
  const { session } = await sessionAt(
    url,
    "collab listen",
    async (client) => {
      await client.unsafe(`LISTEN "${channel.replaceAll('"', '""')}"`);
      return true;
    },
    {
      onReady: () => on.onListening(),
      onLost: () => on.onLost?.(),
      onNotify: (name, payload) => name === channel && on.onPayload(payload),
    },
  );
  return session;
}

/**
 * Holds the session-level advisory lock (`classId`, `objId`) on a connection of its own,
 * taking it again after the connection is lost; null (and nothing held) when another session
 * holds it now.
 */
async function holdAt(url: string, classId: number, objId: number): Promise<Listening | null> {
  const { ready, session } = await sessionAt(
    url,
    "collab lock",
    async (client) => {
      const [row] = await client.unsafe(
        `SELECT pg_try_advisory_lock(${classId}, ${objId}) AS got`,
      );
      return row?.got === true;
    },
    { onReady: () => {} },
  );
  if (ready) return session;
  await session.close();
  return null;
}

/** `?`/`?N` texts rewritten once each. */
const rewritten = new Map<string, string>();
function rewrite(text: string): string {
  let out = rewritten.get(text);
  if (out === undefined) {
    out = toPostgresParams(text);
    if (rewritten.size < 4096) rewritten.set(text, out);
  }
  return out;
}

function queriesOf(sql: postgres.Sql | postgres.TransactionSql | postgres.ReservedSql): Queries {
  const query = (text: string, params: SqlValue[]) =>
    sql.unsafe(rewrite(text), params as postgres.ParameterOrJSON<never>[], { prepare: true });
  return {
    kind: "postgres",
    get: async <T = Row>(text: string, params: SqlValue[] = []) =>
      (await query(text, params))[0] as T | undefined,
    all: async <T = Row>(text: string, params: SqlValue[] = []) =>
      [...await query(text, params)] as unknown as T[],
    run: async (text: string, params: SqlValue[] = []) => ({
      changes: (await query(text, params)).count,
    }),
  };
}

/** Connects to the database at `url` (a pool of at most `max` connections) as an engine. */
export function openPostgresEngine(url: string, options: { max?: number } = {}): Engine {
  const sql = postgres(url, {
    max: options.max ?? 10,
    onnotice: () => {},
    types: {
      bigint: {
        to: 20,
        from: [20],
        serialize: (value: number | bigint) => String(value),
        parse: (value: string) => Number(value),
      },
    },
  });
  const pool = queriesOf(sql);
  const { within, outside } = transactionGuard(sql);
  return {
    kind: "postgres",
    get: <T = Row>(text: string, params: SqlValue[] = []) => {
      outside();
      return pool.get<T>(text, params);
    },
    all: <T = Row>(text: string, params: SqlValue[] = []) => {
      outside();
      return pool.all<T>(text, params);
    },
    run: (text: string, params: SqlValue[] = []) => {
      outside();
      return pool.run(text, params);
    },
    async transaction<T>(fn: (tx: Queries) => Promise<T>): Promise<T> {
      outside();
      return await sql.begin((tx) => within(() => fn(queriesOf(tx)))) as T;
    },
    async read<T>(fn: (reads: Queries) => Promise<T>): Promise<T> {
      outside();
      return await sql.begin(
        "ISOLATION LEVEL REPEATABLE READ READ ONLY",
        (tx) => within(() => runRead(queriesOf(tx), fn)),
      ) as T;
    },
    async snapshot(): Promise<Snapshot> {
      outside();
      const connection = await sql.reserve();
      try {
        await connection.unsafe("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
        // The transaction's snapshot is taken at its first statement, not at BEGIN.
        await connection.unsafe("SELECT 1");
      } catch (error) {
        await connection.unsafe("ROLLBACK").catch(() => {});
        connection.release();
        throw error;
      }
      let open = true;
      return {
        ...queriesOf(connection),
        run: refuseWrite,
        async close() {
          if (!open) return;
          open = false;
          try {
            // Back in the pool, the connection must be out of the transaction.
            await connection.unsafe("ROLLBACK");
          } catch {
            // The connection is lost, and its transaction with it.
          } finally {
            connection.release();
          }
        },
      };
    },
    listen: (channel, handlers) => listenAt(url, channel, handlers),
    hold: (classId, objId) => holdAt(url, classId, objId),
    async close() {
      await sql.end({ timeout: 5 });
    },
  };
}
