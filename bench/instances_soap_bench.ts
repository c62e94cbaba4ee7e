/**
 * SOAP throughput of two server instances on PostgreSQL against one instance on SQLite, on
 * the same machine (issue 18, "Measured"): `deno run --allow-all bench/instances_soap_bench.ts`.
 *
 * Starts a throwaway PostgreSQL cluster with its default (durable) settings
 * (`tests/helpers/postgres.ts`; needs Debian's postgresql), two servers on it (`main.ts` as
 * `deno task start` runs it, the same `DATABASE_URL` and `SESSION_SECRET`, a shared `FILES_DIR`,
 * each its own `DATA_DIR` and port) and one server on SQLite (a fresh `DATA_DIR`). Then it drives
 * `getHelloWorld` and `processLoanApplication` with `wrk`, as `bench/soap_bench.ts` does: on
 * SQLite one wrk with every connection and two threads; on PostgreSQL two wrk at once, one per
 * instance, each with half the connections and one thread, their requests/s summed. The
 * measured seconds are split into rounds that take the configurations in turn (the first of a
 * round alternating), so the machine's drift hits both; the ratio PostgreSQL×2 / SQLite is
 * taken per round and its median reported. The CPU use of each server, of the PostgreSQL
 * cluster, of wrk and of the whole machine is read around every run: wrk shares the cores.
 *
 * Checks afterwards that every loan decision answered 2xx is stored (the `loan_history` rows
 * of the measured applicant, on each engine, against wrk's 2xx count), that no run had errors,
 * and that every server stopped cleanly on SIGTERM. No throughput target is set: the issue asks
 * for the ratio.
 *
 * Environment: BENCH_SECONDS (10: measured seconds per operation and configuration),
 * BENCH_ROUNDS (5), BENCH_WARMUP_SECONDS (2), BENCH_CONNECTIONS (64, at least 2), BENCH_VERBOSE
 * (1: print wrk's own output). Needs `wrk` on PATH and Linux (/proc).
 * Exits 1 when a check fails, 2 when the benchmark itself cannot run.
 */
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import postgres from "postgres";
import { postgresBin, startPostgres } from "../tests/helpers/postgres.ts";
import {
  BenchError,
  childrenCpuSeconds,
  cpuSeconds,
  envNumber,
  freePort,
  machineCpuSeconds,
  onCleanup,
  readClockTicks,
  runMain,
  type Server,
  spawn,
  startTaskArgs,
  stop,
  tempDirs,
  waitUntilReady,
} from "./harness.ts";
import {
  HELLO_ENVELOPE,
  LOAN_APPLICANT,
  loanEnvelope,
  luaScript,
  median,
  WARMUP_APPLICANT,
  wrk,
  type WrkResult,
} from "./soap_bench.ts";

const SQLITE = "sqlite";
const PG = "pg×2";
type Config = typeof SQLITE | typeof PG;
type Operation = "hello" | "loan";

/** CPU use during one run, in cores (1.0 = one core busy all the time). */
interface Cpu {
  /** Per server, in the order of `servers` (SQLite, PostgreSQL #1, #2). */
  servers: number[];
  /** Every process of the PostgreSQL cluster (postmaster, backends, background workers). */
  postgres: number;
  /** The wrk processes of the run (the load generator). */
  wrk: number;
  /** The whole machine, all processes (other users' included). */
  machine: number;
}

/** One measured run of a configuration: one wrk report, or two run at once. */
interface Run {
  parts: WrkResult[];
  /** Requests/s of the parts, summed. */
  requestsPerSec: number;
  cpu: Cpu;
}

/** The pids of the cluster listening on `port`: its postmaster and the postmaster's children. */
function clusterPids(port: number): number[] {
  const parents = new Map<number, number>();
  let postmaster: number | null = null;
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const pid = Number(entry.name);
    try {
      const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
      parents.set(pid, Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
      if (postmaster === null && stat.includes("(postgres)")) {
        const argv = Deno.readTextFileSync(`/proc/${pid}/cmdline`).split("\0");
        if (argv.includes(`port=${port}`)) postmaster = pid;
      }
    } catch { /* the process ended meanwhile */ }
  }
  if (postmaster === null) return [];
  return [postmaster, ...[...parents].filter(([, ppid]) => ppid === postmaster).map(([p]) => p)];
}

/** Reads the CPU counters now; the returned function reads them again and gives the use since. */
function cpuMeter(servers: Server[], pgPort: number): () => Cpu {
  const read = () => ({
    at: performance.now(),
    servers: servers.map((s) => cpuSeconds(s.child.pid)),
    cluster: new Map(clusterPids(pgPort).map((pid) => [pid, cpuSeconds(pid)])),
    wrk: childrenCpuSeconds(),
    machine: machineCpuSeconds(),
  });
  const before = read();
  return () => {
    const after = read();
    const seconds = (after.at - before.at) / 1000;
    let cluster = 0;
    // A backend started during the run counts from zero; one that ended is lost (rare: the
    // servers keep their pools open).
    for (const [pid, used] of after.cluster) cluster += used - (before.cluster.get(pid) ?? 0);
    return {
      servers: after.servers.map((used, i) => (used - before.servers[i]!) / seconds),
      postgres: cluster / seconds,
      wrk: (after.wrk - before.wrk) / seconds,
      machine: (after.machine - before.machine) / seconds,
    };
  };
}

function mean(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

function errorsOf(r: WrkResult): number {
  const s = r.socketErrors;
  return s.connect + s.read + s.write + s.timeout;
}

async function run(): Promise<boolean> {
  if (postgresBin() === null) throw new BenchError("PostgreSQL is not installed");
  const seconds = envNumber("BENCH_SECONDS", 10, 1);
  const rounds = Math.min(envNumber("BENCH_ROUNDS", 5, 1), seconds);
  const warmup = envNumber("BENCH_WARMUP_SECONDS", 2, 0);
  // Two instances need a connection each; SQLite's wrk has two threads.
  const connections = envNumber("BENCH_CONNECTIONS", 64, 2);
  const verbose = Deno.env.get("BENCH_VERBOSE") === "1";
  const perRun = Math.max(1, Math.round(seconds / rounds));

  const benchDir = import.meta.dirname;
  if (benchDir === undefined) throw new BenchError("run this script from a local file");
  const root = join(benchDir, "..");
  await readClockTicks();

  const temp = await Deno.makeTempDir({ prefix: "instances-soap-bench-" });
  tempDirs.push(temp);
  const scripts = {
    hello: await luaScript(temp, "hello", HELLO_ENVELOPE),
    loan: await luaScript(temp, "loan", loanEnvelope(LOAN_APPLICANT)),
    loanWarmup: await luaScript(temp, "loan_warmup", loanEnvelope(WARMUP_APPLICANT)),
  };

  const cluster = await startPostgres().catch((error: Error) => {
    throw new BenchError(`cannot start PostgreSQL: ${error.message}`);
  });
  let admin: postgres.Sql | undefined;
  onCleanup(async () => {
    await admin?.end({ timeout: 1 }).catch(() => {});
    await cluster.stop().catch(() => {});
  });

  const serverArgs = startTaskArgs(await Deno.readTextFile(join(root, "deno.json")), root);
  const start = (name: string, env: Record<string, string>): Server => {
    const port = freePort();
    return spawn(name, serverArgs, {
      env: { ...env, PORT: String(port), HOST: "127.0.0.1" },
      cwd: root,
      port,
    });
  };
  const sqliteDataDir = join(temp, "sqlite-data");
  // Empty values count as unset: a DATABASE_URL of the caller's environment must not leak in.
  const sqlite = start("SQLite server", {
    DATA_DIR: sqliteDataDir,
    DATABASE_URL: "",
    FILES_DIR: "",
  });
  const secret = [...crypto.getRandomValues(new Uint8Array(32))]
    .map((b) => b.toString(16).padStart(2, "0")).join("");
  const shared = {
    DATABASE_URL: cluster.url,
    FILES_DIR: join(temp, "files"),
    SESSION_SECRET: secret,
  };
  // Started together: one applies the migrations under the advisory lock, the other waits.
  const pg1 = start("PostgreSQL server #1", { ...shared, DATA_DIR: join(temp, "pg1-data") });
  const pg2 = start("PostgreSQL server #2", { ...shared, DATA_DIR: join(temp, "pg2-data") });
  const servers = [sqlite, pg1, pg2];
  await Promise.all(servers.map((s) => waitUntilReady(s, "/healthz")));

  const sql = admin = postgres(cluster.url, { max: 1, onnotice: () => {} });
  const [version] = await sql<{ server_version: string }[]>`SHOW server_version`;

  const half = Math.ceil(connections / 2);
  console.log(
    `${rounds} round(s) of ${perRun}s per operation and configuration, warm-up ${warmup}s each; ` +
      `${SQLITE}: wrk -t2 -c${connections}; ${PG}: wrk -t1 -c${half} + wrk -t1 ` +
      `-c${connections - half} at once; ${navigator.hardwareConcurrency} cores, ` +
      `Deno ${Deno.version.deno}, PostgreSQL ${version?.server_version} on port ` +
      `${cluster.port} (default settings), ` +
      `load average ${Deno.loadavg().map((l) => l.toFixed(2)).join(" ")}`,
  );

  const scriptOf = (op: Operation, warm: boolean) =>
    op === "hello" ? scripts.hello : warm ? scripts.loanWarmup : scripts.loan;
  const measure = async (op: Operation, config: Config, s: number, warm: boolean) => {
    const path = `/${op}`;
    const script = scriptOf(op, warm);
    const label = `${op} ${config}${warm ? " warm-up" : ""}`;
    const done = cpuMeter(servers, cluster.port);
    const parts = config === SQLITE
      ? [
        await wrk(label, sqlite.url + path, {
          seconds: s,
          connections,
          threads: 2,
          script,
          pid: sqlite.child.pid,
        }),
      ]
      : await Promise.all([
        wrk(`${label} #1`, pg1.url + path, {
          seconds: s,
          connections: half,
          threads: 1,
          script,
          pid: pg1.child.pid,
        }),
        wrk(`${label} #2`, pg2.url + path, {
          seconds: s,
          connections: connections - half,
          threads: 1,
          script,
          pid: pg2.child.pid,
        }),
      ]);
    const cpu = done();
    if (verbose) { for (const p of parts) console.log(`${p.label}\n${p.raw}`); }
    return { parts, requestsPerSec: parts.reduce((a, p) => a + p.requestsPerSec, 0), cpu };
  };

  const operations: Operation[] = ["hello", "loan"];
  const configs: Config[] = [SQLITE, PG];
  if (warmup > 0) {
    for (const op of operations) for (const c of configs) await measure(op, c, warmup, true);
  }
  const runs = new Map<string, Run[]>();
  for (let round = 1; round <= rounds; round++) {
    const line: string[] = [];
    for (const op of operations) {
      const order = round % 2 === 1 ? configs : [...configs].reverse();
      for (const config of order) {
        const r = await measure(op, config, perRun, false);
        runs.set(`${op} ${config}`, [...runs.get(`${op} ${config}`) ?? [], r]);
      }
      const [l, p] = [runs.get(`${op} ${SQLITE}`)!.at(-1)!, runs.get(`${op} ${PG}`)!.at(-1)!];
      line.push(
        `${op} ${SQLITE} ${l.requestsPerSec.toFixed(0)} ${PG} ${p.requestsPerSec.toFixed(0)} ` +
          `(${p.parts.map((x) => x.requestsPerSec.toFixed(0)).join(" + ")})`,
      );
    }
    console.log(`round ${round}: ${line.join("  ")} req/s`);
  }

  const statuses: Deno.CommandStatus[] = [];
  for (const s of servers) statuses.push(await stop(s));

  // Every loan decision answered 2xx must be stored; read after the servers have stopped.
  const count2xx = (config: Config) =>
    runs.get(`loan ${config}`)!.flatMap((r) => r.parts)
      .reduce((a, p) => a + p.requests - p.non2xx, 0);
  let sqliteRows = -1;
  if (statuses[0]!.code === 0) {
    const db = new DatabaseSync(join(sqliteDataDir, "collab.db"), { readOnly: true });
    try {
      const row = db.prepare("SELECT count(*) AS n FROM loan_history WHERE applicant_name = ?")
        .get(LOAN_APPLICANT) as { n: number };
      sqliteRows = Number(row.n);
    } finally {
      db.close();
    }
  }
  const [pgRow] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM loan_history
    WHERE applicant_name = ${LOAN_APPLICANT}`;
  const pgRows = pgRow?.n ?? -1;

  // Per operation and configuration.
  console.log(
    "\nmean of the rounds; p99 is the median of the rounds, per wrk; CPU in cores " +
      `(servers ${SQLITE} / pg#1 / pg#2, PostgreSQL cluster, wrk, whole machine)`,
  );
  for (const op of operations) {
    for (const config of configs) {
      const rs = runs.get(`${op} ${config}`)!;
      const parts = rs.flatMap((r) => r.parts);
      const p99 = rs[0]!.parts.map((_, i) =>
        median(rs.map((r) => r.parts[i]!.latencyMs.p99)).toFixed(2)
      );
      const cpu = (pick: (c: Cpu) => number) => mean(rs.map((r) => pick(r.cpu))).toFixed(2);
      console.log(
        `${op.padEnd(5)} ${config.padEnd(6)} ${
          mean(rs.map((r) => r.requestsPerSec)).toFixed(0).padStart(6)
        } req/s  p99 ${p99.join(" / ")} ms  responses ${
          parts.reduce((a, p) => a + p.requests, 0)
        }  non-2xx ${parts.reduce((a, p) => a + p.non2xx, 0)}  socket errors ${
          parts.reduce((a, p) => a + errorsOf(p), 0)
        }  CPU servers ${[0, 1, 2].map((i) => cpu((c) => c.servers[i]!)).join(" / ")}  ` +
          `postgres ${cpu((c) => c.postgres)}  wrk ${cpu((c) => c.wrk)}  ` +
          `machine ${cpu((c) => c.machine)}`,
      );
    }
  }
  console.log(`\nratio ${PG} / ${SQLITE} (median of the rounds, range)`);
  for (const op of operations) {
    const l = runs.get(`${op} ${SQLITE}`)!;
    const p = runs.get(`${op} ${PG}`)!;
    const ratios = p.map((r, i) => r.requestsPerSec / l[i]!.requestsPerSec);
    console.log(
      `${op.padEnd(5)} ${median(ratios).toFixed(3)} (${Math.min(...ratios).toFixed(3)}-` +
        `${Math.max(...ratios).toFixed(3)}; ${mean(p.map((r) => r.requestsPerSec)).toFixed(0)} / ${
          mean(l.map((r) => r.requestsPerSec)).toFixed(0)
        } req/s)`,
    );
  }
  console.log(
    "wrk runs on the same 2 cores as the servers and PostgreSQL: see its CPU above.",
  );

  // Each connection may have had one request in flight, stored but unread, when a run ended.
  const slack = connections * rounds;
  const checks: Array<{ name: string; value: string; pass: boolean }> = [];
  for (const [config, rows] of [[SQLITE, sqliteRows], [PG, pgRows]] as const) {
    const ok = count2xx(config);
    checks.push({
      name: `${config} loan rows vs 2xx`,
      value: `${rows} rows, ${ok} completed 2xx (+${rows - ok}); allowed [0, ${slack}]`,
      pass: rows >= ok && rows - ok <= slack,
    });
  }
  for (const [key, rs] of runs) {
    const parts = rs.flatMap((r) => r.parts);
    const non2xx = parts.reduce((a, p) => a + p.non2xx, 0);
    const socket = parts.reduce((a, p) => a + errorsOf(p), 0);
    checks.push({
      name: `${key} errors`,
      value: `non-2xx ${non2xx}, socket ${socket}`,
      pass: non2xx === 0 && socket === 0,
    });
  }
  servers.forEach((s, i) =>
    checks.push({
      name: `${s.name} stop (SIGTERM)`,
      value: `exit code ${statuses[i]!.code}`,
      pass: statuses[i]!.code === 0,
    })
  );
  const width = Math.max(...checks.map((c) => c.name.length));
  const valueWidth = Math.max(...checks.map((c) => c.value.length));
  console.log("\nChecks");
  for (const c of checks) {
    console.log(
      `${c.name.padEnd(width)}  ${c.value.padEnd(valueWidth)}  ${c.pass ? "PASS" : "FAIL"}`,
    );
  }
  const failed = checks.filter((c) => !c.pass).length;
  console.log(failed === 0 ? "\nALL PASS" : `\n${failed} FAILED`);
  servers.forEach((s, i) => {
    if (statuses[i]!.code !== 0) console.log(`${s.name} stderr:\n${s.stderr()}`);
  });
  return failed === 0;
}

if (import.meta.main) await runMain(run);
