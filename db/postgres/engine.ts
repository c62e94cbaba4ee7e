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
} from "../engine.ts";

/** How long a lost connection of its own (listening, holding a lock) waits before trying again. */
const SESSION_RETRY_MS = 500;

/**
 * A connection of its own to `url` that `setup` prepares (answers false when it could not:
 * the connection is ended and tried again later), and that is made again whenever it is lost,
 * until closed; `onReady` is called each time it is ready. The client's own `listen` re-listens
 * after a lost connection only once, and gives up silently when the server is still down: this
 * keeps trying. Resolves once the first attempt ended, with whether it got ready.
 */
async function sessionAt(
  url: string,
  setup: (client: postgres.Sql) => Promise<boolean>,
  onReady: () => void,
  onNotify?: (name: string, payload: string) => void,
): Promise<{ ready: boolean; session: Listening }> {
  let closed = false;
  let current: postgres.Sql | null = null;
  let retry: ReturnType<typeof setTimeout> | undefined;
  const again = () => {
    if (!closed && retry === undefined) {
      retry = setTimeout(() => {
        retry = undefined;
        void connect();
      }, SESSION_RETRY_MS);
    }
  };
  const connect = async (): Promise<boolean> => {
    const client = postgres(url, {
      max: 1,
      idle_timeout: 0,
      max_lifetime: null,
      onnotice: () => {},
      onclose: () => {
        if (current === client) {
          current = null;
          void client.end({ timeout: 0 });
          again();
        }
      },
      // Undeclared in the client's types, but the option its own `listen` uses.
      ...(onNotify ? { onnotify: onNotify } : {}),
    } as postgres.Options<Record<string, postgres.PostgresType>>);
    current = client;
    let ready = false;
    try {
      ready = await setup(client);
    } catch {
      // Not reached, or lost on the way: tried again below.
    }
    if (!ready) {
      if (current === client) current = null;
      void client.end({ timeout: 0 });
      again();
      return false;
    }
    if (closed) {
      void client.end({ timeout: 0 });
      return false;
    }
    onReady();
    return true;
  };
  const ready = await connect();
  return {
    ready,
    session: {
      async close() {
        closed = true;
        clearTimeout(retry);
        const client = current;
        current = null;
        await client?.end({ timeout: 1 });
      },
    },
  };
}

/** Listens on `channel` over a connection of its own, listening again after it is lost. */
async function listenAt(url: string, channel: string, on: ListenHandlers): Promise<Listening> {
  const { session } = await sessionAt(
    url,
    async (client) => {
      await client.unsafe(`LISTEN "${channel.replaceAll('"', '""')}"`);
      return true;
    },
    () => on.onListening(),
    (name, payload) => name === channel && on.onPayload(payload),
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
    async (client) => {
      const [row] = await client.unsafe(
        `SELECT pg_try_advisory_lock(${classId}, ${objId}) AS got`,
      );
      return row?.got === true;
    },
    () => {},
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
