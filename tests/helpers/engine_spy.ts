/**
 * Counts what a test app asks of its storage engine, on either engine: the engine object the
 * services hold is patched in place, so every query they make is seen.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Engine, Queries, Row, SqlValue } from "../../db/kernel/engine.ts";

/** What was asked of the engine since the spy started (or since `reset`). */
export interface EngineCounts {
  /** Statements run, inside transactions or not. */
  queries: number;
  /** Write transactions: `transaction` calls, and `run` outside one (its own transaction). */
  transactions: number;
  /** `read` calls, and the statements run inside them (counted in `queries` too). */
  reads: number;
  queriesInReads: number;
}

/** A spy on an engine: its counts, and how to stop it. */
export interface EngineSpy {
  counts: EngineCounts;
  reset(): void;
  /**
   * Counts only what `fn` asks (through any awaits), from zero: background work of the app
   * meanwhile (PostgreSQL's event relay reading the logs) is left out. Answers the counts.
   */
  during(fn: () => Promise<unknown>): Promise<EngineCounts>;
  /** Puts the engine's own methods back. */
  restore(): void;
}

/** Starts counting the queries and transactions of `engine` (patched in place). */
export function spyOnEngine(engine: Engine): EngineSpy {
  const counts: EngineCounts = { queries: 0, transactions: 0, reads: 0, queriesInReads: 0 };
  const { get, all, run, transaction, read } = engine;
  // While `during` runs, only calls made inside its function count.
  const scope = new AsyncLocalStorage<true>();
  let scoped = false;
  const counting = () => !scoped || scope.getStore() !== undefined;
  const query = (inRead = false) => {
    if (!counting()) return;
    counts.queries++;
    if (inRead) counts.queriesInReads++;
  };
  const write = () => {
    if (counting()) counts.transactions++;
  };
  const counted = (q: Queries, inRead = false): Queries => ({
    kind: q.kind,
    get: <T = Row>(text: string, params?: SqlValue[]) => (query(inRead), q.get<T>(text, params)),
    all: <T = Row>(text: string, params?: SqlValue[]) => (query(inRead), q.all<T>(text, params)),
    run: (text: string, params?: SqlValue[]) => (query(inRead), q.run(text, params)),
  });
  Object.assign(engine, {
    get: <T = Row>(text: string, params?: SqlValue[]) => (query(), get<T>(text, params)),
    all: <T = Row>(text: string, params?: SqlValue[]) => (query(), all<T>(text, params)),
    run: (text: string, params?: SqlValue[]) => (query(), write(), run(text, params)),
    transaction: <T>(fn: (tx: Queries) => Promise<T>) => (
      write(), transaction<T>((tx) => fn(counted(tx)))
    ),
    read: <T>(fn: (reads: Queries) => Promise<T>) => {
      if (counting()) counts.reads++;
      return read<T>((reads) => fn(counted(reads, true)));
    },
  });
  return {
    counts,
    reset() {
      Object.assign(counts, { queries: 0, transactions: 0, reads: 0, queriesInReads: 0 });
    },
    async during(fn) {
      Object.assign(counts, { queries: 0, transactions: 0, reads: 0, queriesInReads: 0 });
      scoped = true;
      try {
        await scope.run(true, fn);
      } finally {
        scoped = false;
      }
      return { ...counts };
    },
    restore() {
      Object.assign(engine, { get, all, run, transaction, read });
    },
  };
}
