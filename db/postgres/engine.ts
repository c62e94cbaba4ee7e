/**
 * The PostgreSQL engine of the asynchronous storage interface (`../engine.ts`), on the
 * `postgres` client (docs/decisions/0006-postgresql-client.md). Each transaction holds a
 * connection of the pool; queries outside one take any. `bigint` values come back as numbers
 * (ids and counts stay far below 2^53), as SQLite's integers do.
 */
import postgres from "postgres";
import { type Engine, type Queries, type Row, type SqlValue, toPostgresParams } from "../engine.ts";

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
    async close() {
      await sql.end({ timeout: 5 });
    },
  };
}
