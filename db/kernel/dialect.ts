/**
 * The SQL that differs between the two engines (`Queries.kind`), one fragment per recurring
 * thing. Most statements in `db/` are one text that SQLite and PostgreSQL both run; one that
 * needs a fragment takes it from `dialect(q)` where it is written (or, for a module constant,
 * is built for both engines once with `perEngine` and picked as `TEXT[q.kind]`). Either way
 * each engine sees the same text every time, as its statement cache (SQLite) and prepared
 * statements (PostgreSQL) want.
 *
 * A list of values travels as one parameter holding a JSON array (`JSON.stringify(ids)`): one
 * statement text whatever its length, which a list of `?` would not be.
 *
 * Written once for both (the forms `tests/db/kernel/engine_parity_test.ts` holds both engines to):
 * - a parameter only tested for NULL gets a type, `CAST(? AS text) IS NULL`: PostgreSQL cannot
 *   tell the type of a bare `? IS NULL`;
 * - a flag parameter is compared, `? = 1`: PostgreSQL would type a bare `?` boolean (and the
 *   client send the number 1 as false); conditions are booleans (`ELSE true`, not `ELSE 1`);
 * - a `sum` of integers is cast back, `CAST(sum(x) AS bigint)`: PostgreSQL's is a numeric, a
 *   string to the client, on which `/` divides exactly;
 * - a subquery in FROM has an alias; a UNION's first branch types its NULL columns
 *   (`CAST(NULL AS bigint)`); the column `end` is quoted (`"end"`);
 * - a multi-row read whose order is seen has an ORDER BY down to a unique key (the engines
 *   return ties and unordered rows differently; a read into a Set or Map needs none); NULLs
 *   are kept out of an order where they could come first (SQLite puts them first, PostgreSQL
 *   last); text whose order depends on the collation (case, non-ASCII: emails, names) is
 *   ordered with `byteOrder`;
 * - no jsonb `?` operators: the PostgreSQL engine reads every `?` as a parameter.
 */
import type { Queries } from "./engine.ts";

/** The engines. */
export type Kind = Queries["kind"];

/** A statement's text on each engine. */
export type PerEngine = Readonly<Record<Kind, string>>;

/** The fragments of one engine. */
export interface Dialect {
  readonly kind: Kind;
  /**
   * The integers of a JSON array parameter (`?` or `?N`) as a query of one column, `value`:
   * `id IN (${d.intsOf("?")})`.
   */
  intsOf(param: string): string;
  /** The strings of a JSON array parameter, as `intsOf` gives integers. */
  textsOf(param: string): string;
  /**
   * The strings of the JSON array held in a text column, as a FROM item with one column,
   * `value` (PostgreSQL names it through the alias, `j` unless given).
   */
  elementsOf(column: string, alias?: string): string;
  /**
   * A text expression to ORDER BY in code-point order: SQLite's only order, and on PostgreSQL
   * not the database's collation (under `en_US`, `Carol` sorts after `bob`).
   */
  byteOrder(expr: string): string;
}

const SQLITE: Dialect = {
  kind: "sqlite",
  intsOf: (param) => `SELECT value FROM json_each(${param})`,
  textsOf: (param) => `SELECT value FROM json_each(${param})`,
  elementsOf: (column, alias) => alias ? `json_each(${column}) ${alias}` : `json_each(${column})`,
  byteOrder: (expr) => expr,
};

// The parameter is cast to text first: left to infer, PostgreSQL types it `json`, and the
// client then sends the string JSON-encoded once more (a JSON string, not an array).
const POSTGRES: Dialect = {
  kind: "postgres",
  intsOf: (param) =>
    `SELECT value::bigint AS value FROM json_array_elements_text(CAST(${param} AS text)::json)`,
  textsOf: (param) => `SELECT value FROM json_array_elements_text(CAST(${param} AS text)::json)`,
  elementsOf: (column, alias = "j") =>
    `json_array_elements_text(${column}::json) AS ${alias}(value)`,
  byteOrder: (expr) => `${expr} COLLATE "C"`,
};

/**
 * PostgreSQL's JSON array (as text) of `value` over the rows of the query it is selected in,
 * ordered by `order`: `[]` when there are none (the aggregate alone gives NULL), text because a
 * `json` value comes back parsed, and written without spaces, as SQLite writes it. SQLite's
 * counterpart is `json_group_array` over an ordered subquery, whose columns its value names, so
 * each use writes that one out.
 */
export function pgJsonArray(value: string, order: string): string {
  return `coalesce(array_to_json(array_agg(${value} ORDER BY ${order}))::text, '[]')`;
}

/** The fragments of the engine that `q` runs on. */
export function dialect(q: Pick<Queries, "kind">): Dialect {
  return q.kind === "postgres" ? POSTGRES : SQLITE;
}

/** A statement built for each engine from its fragments (once, at module load). */
export function perEngine(build: (d: Dialect) => string): PerEngine {
  return { sqlite: build(SQLITE), postgres: build(POSTGRES) };
}
