/**
 * The PostgreSQL engine of the asynchronous storage interface (`../engine.ts`), on the
 * `postgres` client (docs/decisions/0006-postgresql-client.md). Each transaction holds a
 * connection of the pool; queries outside one take any. `bigint` values come back as numbers
 * (ids and counts stay far below 2^53), as SQLite's integers do.
 */
import postgres from "postgres";
import {
  type Engine,
  type ListenHandlers,
  type Listening,
  type Queries,
  type Row,
  type SqlValue,
  toPostgresParams,
} from "../engine.ts";

/** How long a lost listening connection waits before trying again. */
const LISTEN_RETRY_MS = 500;

/**
 * Listens on `channel` over a connection of its own. The client's own `listen` re-listens
 * after a lost connection only once, and gives up silently when the server is still down;
 * this one keeps trying until it listens again, and says so (`onListening`).
 */
async function listenAt(url: string, channel: string, on: ListenHandlers): Promise<Listening> {
  let closed = false;
  let current: postgres.Sql | null = null;
  let retry: ReturnType<typeof setTimeout> | undefined;
  const again = () => {
    if (!closed && retry === undefined) {
      retry = setTimeout(() => {
        retry = undefined;
        void connect();
      }, LISTEN_RETRY_MS);
    }
  };
  const connect = async () => {
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
      ...{ onnotify: (name: string, payload: string) => name === channel && on.onPayload(payload) },
    } as postgres.Options<Record<string, postgres.PostgresType>>);
    current = client;
    try {
      await client.unsafe(`LISTEN "${channel.replaceAll('"', '""')}"`);
    } catch {
      if (current === client) current = null;
      void client.end({ timeout: 0 });
      return again();
    }
    if (closed) return void client.end({ timeout: 0 });
    on.onListening();
  };
  await connect();
  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      const client = current;
      current = null;
      await client?.end({ timeout: 1 });
    },
  };
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

function queriesOf(sql: postgres.Sql | postgres.TransactionSql): Queries {
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
  return {
    ...queriesOf(sql),
    async transaction<T>(fn: (tx: Queries) => Promise<T>): Promise<T> {
      return await sql.begin((tx) => fn(queriesOf(tx))) as T;
    },
    listen: (channel, handlers) => listenAt(url, channel, handlers),
    async close() {
      await sql.end({ timeout: 5 });
    },
  };
}
