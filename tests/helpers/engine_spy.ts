/**
 * Counts what a test app asks of its storage engine, on either engine: the engine object the
 * services hold is patched in place, so every query they make is seen.
 */
import type { Engine, Queries, Row, SqlValue } from "../../db/engine.ts";

/** What was asked of the engine since the spy started (or since `reset`). */
export interface EngineCounts {
  /** Statements run, inside transactions or not. */
  queries: number;
  /** Write transactions: `transaction` calls, and `run` outside one (its own transaction). */
  transactions: number;
}

/** A spy on an engine: its counts, and how to stop it. */
export interface EngineSpy {
  counts: EngineCounts;
  reset(): void;
  /** Puts the engine's own methods back. */
  restore(): void;
}

/** Starts counting the queries and transactions of `engine` (patched in place). */
export function spyOnEngine(engine: Engine): EngineSpy {
  const counts: EngineCounts = { queries: 0, transactions: 0 };
  const { get, all, run, transaction } = engine;
  const counted = (q: Queries): Queries => ({
    kind: q.kind,
    get: <T = Row>(text: string, params?: SqlValue[]) => (counts.queries++, q.get<T>(text, params)),
    all: <T = Row>(text: string, params?: SqlValue[]) => (counts.queries++, q.all<T>(text, params)),
    run: (text: string, params?: SqlValue[]) => (counts.queries++, q.run(text, params)),
  });
  Object.assign(engine, {
    get: <T = Row>(text: string, params?: SqlValue[]) => (counts.queries++, get<T>(text, params)),
    all: <T = Row>(text: string, params?: SqlValue[]) => (counts.queries++, all<T>(text, params)),
    run: (text: string, params?: SqlValue[]) => (
      counts.queries++, counts.transactions++, run(text, params)
    ),
    transaction: <T>(fn: (tx: Queries) => Promise<T>) => (
      counts.transactions++, transaction<T>((tx) => fn(counted(tx)))
    ),
  });
  return {
    counts,
    reset() {
      counts.queries = 0;
      counts.transactions = 0;
    },
    restore() {
      Object.assign(engine, { get, all, run, transaction });
    },
  };
}
