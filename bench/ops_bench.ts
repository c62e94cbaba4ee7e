/**
 * What metrics and JSON logs cost (`deno run -A bench/ops_bench.ts`), in two parts:
 *
 * 1. SOAP throughput: `getHelloWorld` and `processLoanApplication` against a server with
 *    `METRICS_TOKEN` set and `LOG_FORMAT=json` ("on") and one with neither ("off"), driven
 *    by `wrk` in alternating rounds (off, on, off, on…) so a slow patch of a shared machine
 *    hits both alike. The target: "on" within 5 % of "off", judged on the geometric mean of
 *    the per-round ratios (which cancels a bias for whichever server goes first in a round). Metrics are collected whether or
 *    not the token is set (it only opens `GET /metrics`), so "off" still counts; with
 *    BENCH_BASELINE_ROOT set to an exported tree of the commit before metrics
 *    (`git archive ee0421e | tar -x -C DIR`), a third server from there ("base") runs in
 *    the same rounds, to show what collecting costs at all.
 * 2. `GET /metrics` answer time with 1,000 open event streams (`/api/me/stream`): the median
 *    and the largest of BENCH_SCRAPES scrapes. The target: under 20 ms.
 *
 * Environment: BENCH_SECONDS (30: measured seconds per target), BENCH_ROUNDS (6),
 * BENCH_WARMUP_SECONDS (2), BENCH_CONNECTIONS (64), BENCH_THREADS (2), BENCH_STREAMS (1000),
 * BENCH_SCRAPES (50), BENCH_PART (`soap`, `metrics` or both), BENCH_WORKERS (1: the servers'
 * `WORKERS`). Needs `wrk` on PATH.
 * Exits 1 when a target is missed, 2 when the benchmark itself cannot run.
 */
import { join } from "node:path";
import {
  BenchError,
  envNumber,
  freePort,
  readClockTicks,
  runMain,
  type Server,
  spawn,
  startServer,
  startTaskArgs,
  tempDirs,
  waitUntilReady,
} from "./harness.ts";
import {
  HELLO_ENVELOPE,
  loanEnvelope,
  luaScript,
  median,
  wrk,
  type WrkResult,
} from "./soap_bench.ts";

const TARGET_OVERHEAD = 0.05;
const TARGET_SCRAPE_MS = 20;
const TOKEN = "bench-metrics-token-0123456789";

/** A server started from `root` (this tree or the baseline's) with `env`. */
async function serverFrom(root: string, env: Record<string, string>): Promise<Server> {
  const temp = await Deno.makeTempDir({ prefix: "ops-bench-" });
  tempDirs.push(temp);
  const port = freePort();
  const server = spawn(
    "server",
    startTaskArgs(await Deno.readTextFile(join(root, "deno.json")), root),
    {
      env: {
        DATA_DIR: join(temp, "data"),
        PORT: String(port),
        HOST: "127.0.0.1",
        // One isolate by default: the cost of a request's metrics and log line, undiluted by
        // two isolates taking turns on the cores with the load generator.
        WORKERS: Deno.env.get("BENCH_WORKERS") ?? "1",
        ...env,
      },
      cwd: root,
      port,
    },
  );
  await waitUntilReady(server, "/healthz");
  return server;
}

async function soapPart(root: string): Promise<boolean> {
  const seconds = envNumber("BENCH_SECONDS", 30, 1);
  const rounds = Math.min(envNumber("BENCH_ROUNDS", 6, 1), seconds);
  const warmup = envNumber("BENCH_WARMUP_SECONDS", 2, 0);
  const connections = envNumber("BENCH_CONNECTIONS", 64, 1);
  const threads = Math.min(envNumber("BENCH_THREADS", 2, 1), connections);
  const perRun = Math.max(1, Math.round(seconds / rounds));
  const temp = await Deno.makeTempDir({ prefix: "ops-bench-scripts-" });
  tempDirs.push(temp);
  const scripts = {
    hello: await luaScript(temp, "hello", HELLO_ENVELOPE),
    loan: await luaScript(temp, "loan", loanEnvelope("Bench")),
  };
  const servers: Array<{ label: string; server: Server }> = [
    { label: "off", server: await serverFrom(root, {}) },
    { label: "on", server: await serverFrom(root, { METRICS_TOKEN: TOKEN, LOG_FORMAT: "json" }) },
  ];
  const baseline = Deno.env.get("BENCH_BASELINE_ROOT");
  if (baseline) servers.push({ label: "base", server: await serverFrom(baseline, {}) });
  console.log(
    `wrk -t${threads} -c${connections}, ${rounds} round(s) of ${perRun}s per target ` +
      `(${servers.map((s) => s.label).join(", ")} in turn); ` +
      `${navigator.hardwareConcurrency} cores, Deno ${Deno.version.deno}`,
  );
  const results = new Map<string, WrkResult[]>();
  for (const op of ["hello", "loan"] as const) {
    for (const { label, server } of servers) {
      const options = { seconds: warmup, connections, threads, script: scripts[op] };
      if (warmup > 0) {
        await wrk(`${op}-${label}-warm`, `${server.url}/${op}`, {
          ...options,
          pid: server.child.pid,
        });
      }
      results.set(`${op}-${label}`, []);
    }
  }
  for (let round = 1; round <= rounds; round++) {
    const line: string[] = [];
    for (const op of ["hello", "loan"] as const) {
      // The order alternates with the round: neither server always goes first.
      const order = round % 2 === 1 ? servers : [...servers].reverse();
      for (const { label, server } of order) {
        const result = await wrk(`${op}-${label}`, `${server.url}/${op}`, {
          seconds: perRun,
          connections,
          threads,
          script: scripts[op],
          pid: server.child.pid,
        });
        if (result.non2xx > 0) throw new BenchError(`${op}-${label}: ${result.non2xx} non-2xx`);
        results.get(`${op}-${label}`)!.push(result);
        line.push(`${op}-${label} ${result.requestsPerSec.toFixed(0)}`);
      }
    }
    console.log(`round ${round}: ${line.join("  ")} req/s`);
  }
  let ok = true;
  for (const op of ["hello", "loan"] as const) {
    const rate = (label: string) =>
      median(results.get(`${op}-${label}`)!.map((r) => r.requestsPerSec));
    const p99 = (label: string) =>
      median(results.get(`${op}-${label}`)!.map((r) => r.latencyMs.p99));
    // Round by round, on against off (the same patch of the machine), then the median.
    const perRound = results.get(`${op}-on`)!.map((r, i) =>
      r.requestsPerSec / results.get(`${op}-off`)![i]!.requestsPerSec
    );
    // The geometric mean of the per-round ratios: the order alternates, so a bias for the
    // server measured first in a round (x b one round, x 1/b the next) cancels out of it, which
    // it does not out of the median.
    const ratio = Math.exp(perRound.reduce((sum, r) => sum + Math.log(r), 0) / perRound.length);
    const overhead = 1 - ratio;
    const fits = overhead <= TARGET_OVERHEAD;
    ok &&= fits;
    const parts = servers.map((s) =>
      `${s.label} ${rate(s.label).toFixed(0)} req/s (p99 ${p99(s.label).toFixed(1)} ms)`
    );
    console.log(
      `${op}: ${parts.join(", ")}; on/off per round ` +
        `${perRound.map((r) => r.toFixed(3)).join(" ")}, median ${median(perRound).toFixed(3)}, ` +
        `geometric mean ${ratio.toFixed(3)} ` +
        `(${(overhead * 100).toFixed(1)} % overhead; target <= ${TARGET_OVERHEAD * 100} %) ` +
        (fits ? "ok" : "MISSED"),
    );
    if (baseline) {
      const vsBase = median(
        results.get(`${op}-on`)!.map((r, i) =>
          r.requestsPerSec / results.get(`${op}-base`)![i]!.requestsPerSec
        ),
      );
      const offBase = median(
        results.get(`${op}-off`)!.map((r, i) =>
          r.requestsPerSec / results.get(`${op}-base`)![i]!.requestsPerSec
        ),
      );
      console.log(
        `${op}: against the commit before metrics, off/base ${offBase.toFixed(3)}, ` +
          `on/base ${vsBase.toFixed(3)} (medians of per-round ratios)`,
      );
    }
  }
  return ok;
}

async function metricsPart(): Promise<boolean> {
  const streams = envNumber("BENCH_STREAMS", 1000, 1);
  const scrapes = envNumber("BENCH_SCRAPES", 50, 1);
  const { server } = await startServer("ops-bench-metrics-", {
    METRICS_TOKEN: TOKEN,
    SSE_MAX_STREAMS: String(streams + 10),
    SSE_MAX_STREAMS_PER_USER: String(streams + 10),
  });
  const registered = await fetch(`${server.url}/api/auth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      email: "bench@example.com",
      password: "a bench passphrase",
      displayName: "Bench",
    }),
  });
  if (registered.status !== 201) {
    throw new BenchError(`register: ${registered.status} ${await registered.text()}`);
  }
  await registered.body?.cancel();
  const cookie = registered.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const controller = new AbortController();
  const opened: Array<ReadableStreamDefaultReader<Uint8Array>> = [];
  for (let i = 0; i < streams; i++) {
    const res = await fetch(`${server.url}/api/me/stream`, {
      headers: { cookie, accept: "text/event-stream" },
      signal: controller.signal,
    });
    if (res.status !== 200) throw new BenchError(`stream ${i}: ${res.status}`);
    const reader = res.body!.getReader();
    await reader.read(); // the stream's first bytes: it is open on the server
    opened.push(reader);
  }
  const scrape = async () => {
    const started = performance.now();
    const res = await fetch(`${server.url}/metrics`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const text = await res.text();
    const ms = performance.now() - started;
    if (res.status !== 200) throw new BenchError(`/metrics: ${res.status}`);
    return { ms, text };
  };
  const first = await scrape();
  const open = /^sse_streams_open(?:\{[^}]*\})? (\d+)/m.exec(first.text)?.[1];
  if (Number(open) !== streams) {
    throw new BenchError(`sse_streams_open says ${open}, expected ${streams}`);
  }
  const times: number[] = [];
  for (let i = 0; i < scrapes; i++) times.push((await scrape()).ms);
  times.sort((a, b) => a - b);
  const med = median(times);
  const max = times.at(-1)!;
  const fits = max < TARGET_SCRAPE_MS;
  console.log(
    `GET /metrics with ${streams} open event streams (sse_streams_open ${open}), ` +
      `${scrapes} scrapes: median ${med.toFixed(2)} ms, p90 ` +
      `${times[Math.floor(times.length * 0.9)]!.toFixed(2)} ms, max ${max.toFixed(2)} ms, ` +
      `${first.text.length} bytes (target < ${TARGET_SCRAPE_MS} ms) ${fits ? "ok" : "MISSED"}`,
  );
  controller.abort();
  for (const reader of opened) await reader.cancel().catch(() => {});
  return fits;
}

async function run(): Promise<boolean> {
  const root = join(import.meta.dirname!, "..");
  await readClockTicks();
  const part = Deno.env.get("BENCH_PART");
  let ok = true;
  if (part !== "metrics") ok = await soapPart(root) && ok;
  if (part !== "soap") ok = await metricsPart() && ok;
  return ok;
}

if (import.meta.main) await runMain(run);
