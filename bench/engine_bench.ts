/**
 * What the asynchronous storage interface (issue 18, `db/kernel/engine.ts`) costs the busiest write,
 * a SOAP loan decision (one durable insert of a history row after a customer lookup), against
 * the synchronous group commit the server runs today (`Database.commit` in `db/sqlite/sqlite.ts`),
 * in process, on the real schema (every migration applied).
 *
 *   deno run --allow-all bench/engine_bench.ts
 *   BENCH_OPS=40000 BENCH_CONCURRENCY=64 deno run --allow-all bench/engine_bench.ts
 *
 * Variants, each BENCH_OPS (20,000) decisions, BENCH_CONCURRENCY (64) in flight, alternated
 * over BENCH_ROUNDS (3) rounds:
 * - `Database.commit`: today's path (a synchronous job joining the next group commit);
 * - `SQLite engine`: `engine.transaction(async (tx) => …)`, the same two statements awaited;
 * - `PostgreSQL engine` (when PostgreSQL is installed): the same on a throwaway cluster with its
 *   durable defaults, through a pool of BENCH_POOL (10) connections.
 * Reported: decisions a second and p99 latency.
 */
import { join } from "node:path";
import postgres from "postgres";
import type { Engine } from "../db/kernel/engine.ts";
import { migrate, MIGRATIONS_DIR } from "../db/sqlite/migrate.ts";
import { openPostgresEngine } from "../db/postgres/engine.ts";
import { migratePostgres, POSTGRES_MIGRATIONS_DIR } from "../db/postgres/migrate.ts";
import { openDatabase } from "../db/sqlite/sqlite.ts";
import { openSqliteEngine } from "../db/sqlite/sqlite_engine.ts";
import { postgresBin, startPostgres } from "../tests/helpers/postgres.ts";
import { envNumber } from "./harness.ts";

const OPS = envNumber("BENCH_OPS", 20_000, 100);
const CONCURRENCY = envNumber("BENCH_CONCURRENCY", 64, 1);
const ROUNDS = envNumber("BENCH_ROUNDS", 3, 1);
const POOL = envNumber("BENCH_POOL", 10, 1);

const LOOKUP = "SELECT is_blacklisted FROM customers WHERE customer_name = ?";
const INSERT = "INSERT INTO loan_history (applicant_name, requested_amount, approved, " +
  "approved_rate, rejection_reason, processed_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id";

type Decide = (i: number) => Promise<unknown>;

async function measure(decide: Decide): Promise<{ perSecond: number; p99: number }> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < OPS) {
      const i = next++;
      const t = performance.now();
      await decide(i);
      latencies.push(performance.now() - t);
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    perSecond: OPS / seconds,
    p99: latencies[Math.floor(latencies.length * 0.99)]!,
  };
}

const params = (
  i: number,
) => [`Applicant ${i % 500}`, 1000 + i, 1, 5.5, null, new Date().toISOString()];

const temp = await Deno.makeTempDir({ prefix: "engine-bench-" });
const closers: Array<() => Promise<unknown>> = [];
try {
  const db = openDatabase(join(temp, "sync.db"));
  migrate(db, MIGRATIONS_DIR, () => new Date());
  closers.push(() => db.close());
  const lookup = db.sql.prepare(LOOKUP);
  const insert = db.sql.prepare(INSERT);
  const variants: Array<[string, Decide]> = [[
    "Database.commit",
    (i) =>
      db.commit(() => {
        const p = params(i);
        lookup.get(p[0]!);
        return insert.get(...p);
      }),
  ]];

  const migrated = openDatabase(join(temp, "engine.db"));
  migrate(migrated, MIGRATIONS_DIR, () => new Date());
  await migrated.close();
  const lite = openSqliteEngine(join(temp, "engine.db"));
  closers.push(() => lite.close());
  const viaEngine = (engine: Engine): Decide => (i) =>
    engine.transaction(async (tx) => {
      const p = params(i);
      await tx.get(LOOKUP, [p[0]!]);
      return await tx.get(INSERT, p);
    });
  variants.push(["SQLite engine", viaEngine(lite)]);

  if (postgresBin()) {
    const cluster = await startPostgres();
    closers.push(() => cluster.stop());
    const admin = postgres(cluster.url, { max: 1, onnotice: () => {} });
    await migratePostgres(admin, POSTGRES_MIGRATIONS_DIR, () => new Date());
    await admin.end();
    const pg = openPostgresEngine(cluster.url, { max: POOL });
    closers.unshift(() => pg.close());
    variants.push(["PostgreSQL engine", viaEngine(pg)]);
  }

  const load = (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ");
  console.log(
    `engine bench: ${OPS} loan decisions per run, ${CONCURRENCY} in flight, ${ROUNDS} rounds; ` +
      `${navigator.hardwareConcurrency} cores, Deno ${Deno.version.deno}, load ${load}`,
  );
  const results = new Map<string, number[]>();
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 ? variants : [...variants].reverse();
    for (const [name, decide] of order) {
      const r = await measure(decide);
      results.set(name, [...(results.get(name) ?? []), r.perSecond]);
      console.log(
        `round ${round}: ${name.padEnd(18)} ${r.perSecond.toFixed(0).padStart(6)}/s, ` +
          `p99 ${r.p99.toFixed(1)} ms`,
      );
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const base = median(results.get("Database.commit")!);
  for (const [name, xs] of results) {
    console.log(
      `${name.padEnd(18)} median ${median(xs).toFixed(0).padStart(6)}/s, ` +
        `${(median(xs) / base).toFixed(3)} of Database.commit`,
    );
  }
} finally {
  for (const close of closers) await close().catch(() => {});
  await Deno.remove(temp, { recursive: true });
}
