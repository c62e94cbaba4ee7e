/**
 * Prepared statements kept per connection, by SQL text.
 *
 * Why: a `StatementSync` holds SQLite's compiled program (a few KiB of native memory) until
 * V8 collects its wrapper, and V8 only does that in a full collection, which it schedules by
 * the size of its own heap: it does not see the native memory. A request runs a dozen
 * statements, so a server that prepares each one afresh grew by ~50 KiB per request, to
 * hundreds of MiB between full collections (bench/README.md, "Webhook benchmark"). Kept
 * statements are also cheaper: compiling a query costs more than running it.
 *
 * Sharing a statement is safe because every use runs to completion before the next one
 * starts (`get`, `all` and `run` reset it, the connection is single-threaded). The one
 * exception is `iterate`: the same SQL text must not run again before its rows are read to
 * the end. Settings made on a statement (e.g. `setReturnArrays`) stay with its SQL text.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";

/**
 * How many statements a connection keeps. The code has about 200 fixed SQL texts; texts
 * built with a list of `?` per id (`IN (?, ?, ?)`) add one per length. The least recently
 * used goes first, so such variants cannot grow the cache without bound.
 */
export const KEPT_STATEMENTS = 512;

/**
 * Makes `sql.prepare(text)` return the statement kept for `text` (preparing it on first use,
 * and again after it was dropped as the least recently used of `limit`).
 */
export function keepStatements(sql: DatabaseSync, limit = KEPT_STATEMENTS): void {
  const prepare = sql.prepare.bind(sql) as (text: string, ...rest: unknown[]) => StatementSync;
  const kept = new Map<string, StatementSync>();
  sql.prepare = ((text: string, ...rest: unknown[]): StatementSync => {
    // Options given at preparing (newer runtimes accept some) make a statement of its own.
    if (rest.length > 0) return prepare(text, ...rest);
    let statement = kept.get(text);
    if (statement) {
      // Most recently used last: a Map iterates in insertion order.
      kept.delete(text);
    } else {
      statement = prepare(text);
      if (kept.size >= limit) kept.delete(kept.keys().next().value!);
    }
    kept.set(text, statement);
    return statement;
  }) as DatabaseSync["prepare"];
}
