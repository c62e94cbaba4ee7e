/**
 * SOAP throughput side by side with the service we replace
 * (`REFERENCE_URL=http://127.0.0.1:18080 deno run -A bench/reference_bench.ts`).
 *
 * The reference is the JAX-WS implementation of the same `/hello` and `/loan` services (the
 * JAX-WS Reference Implementation on OpenJDK, storing its decisions in SQLite with
 * `synchronous=FULL`), started by you before the run at REFERENCE_URL; this repository does not
 * ship it. The benchmark starts this server once per WORKERS value (BENCH_WORKERS, "1,2": each as
 * `deno task start` runs it, on a fresh data directory), then, per round, drives every server
 * with `wrk -t1 -c32` for BENCH_SECONDS on `getHelloWorld` and then on a durable
 * `processLoanApplication`, the servers' order rotating with the round so that none always goes
 * first on a machine whose speed drifts. Before the rounds each server is warmed up for
 * BENCH_WARMUP_SECONDS (the JVM's JIT needs about 8 s).
 *
 * Reported: requests/s and p99 per server, operation and round; per round the ratio of each of
 * ours to the reference's; the median of those ratios. Targets (with the default WORKERS, the
 * last of BENCH_WORKERS): hello and loan at least 2.0x the reference; the hello p99 no worse than
 * WORKERS=1's (today's server) when both were measured. Every loan answer must be 2xx.
 *
 * Environment: REFERENCE_URL (required), BENCH_WORKERS ("1,2"), BENCH_ROUNDS (3),
 * BENCH_SECONDS (6), BENCH_WARMUP_SECONDS (8), BENCH_CONNECTIONS (32), BENCH_THREADS (1).
 * Needs `wrk`. Exits 1 when a target is missed, 2 when the benchmark cannot run.
 */
import {
  BenchError,
  envNumber,
  readClockTicks,
  runMain,
  type Server,
  startServer,
  tempDirs,
} from "./harness.ts";
import { HELLO_ENVELOPE, luaScript, median, wrk, type WrkResult } from "./soap_bench.ts";

const TARGET_RATIO = 2.0;

/** A loan application of a registered-nowhere applicant with a good score: approved, stored. */
const LOAN_ENVELOPE =
  '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" ' +
  'xmlns:soap="http://soap.example.com/"><soapenv:Header/><soapenv:Body>' +
  "<soap:processLoanApplication><arg0><applicantName>Alice</applicantName>" +
  "<requestedAmount>25000</requestedAmount><creditScore>720</creditScore></arg0>" +
  "</soap:processLoanApplication></soapenv:Body></soapenv:Envelope>";

interface Target {
  label: string;
  url: string;
  /** The process whose CPU use wrk's runs record (ours; the reference's is unknown: 0). */
  pid: number;
}

async function run(): Promise<boolean> {
  const reference = Deno.env.get("REFERENCE_URL")?.replace(/\/+$/, "");
  if (!reference) throw new BenchError("set REFERENCE_URL to the JAX-WS service's base URL");
  const workers = (Deno.env.get("BENCH_WORKERS") ?? "1,2").split(",").map((w) => w.trim());
  if (workers.some((w) => !/^[1-9][0-9]?$/.test(w))) {
    throw new BenchError(`BENCH_WORKERS: expected numbers like "1,2", got ${workers.join(",")}`);
  }
  const rounds = envNumber("BENCH_ROUNDS", 3, 1);
  const seconds = envNumber("BENCH_SECONDS", 6, 1);
  const warmup = envNumber("BENCH_WARMUP_SECONDS", 8, 0);
  const connections = envNumber("BENCH_CONNECTIONS", 32, 1);
  const threads = Math.min(envNumber("BENCH_THREADS", 1, 1), connections);
  await readClockTicks();
  for (const op of ["hello", "loan"]) {
    const probe = await fetch(`${reference}/${op}?wsdl`).catch(() => null);
    await probe?.body?.cancel();
    if (!probe?.ok) throw new BenchError(`the reference does not answer ${reference}/${op}?wsdl`);
  }
  const temp = await Deno.makeTempDir({ prefix: "reference-bench-" });
  tempDirs.push(temp);
  const scripts = {
    hello: await luaScript(temp, "hello", HELLO_ENVELOPE),
    loan: await luaScript(temp, "loan", LOAN_ENVELOPE),
  };
  const servers: Server[] = [];
  const targets: Target[] = [];
  for (const w of workers) {
    const { server } = await startServer(`reference-bench-w${w}-`, { WORKERS: w });
    servers.push(server);
    targets.push({ label: `ours WORKERS=${w}`, url: server.url, pid: server.child.pid });
  }
  targets.push({ label: "JAX-WS", url: reference, pid: Deno.pid });
  console.log(
    `wrk -t${threads} -c${connections}, ${rounds} round(s) of ${seconds}s per server and ` +
      `operation after ${warmup}s of warm-up; ${navigator.hardwareConcurrency} cores, ` +
      `Deno ${Deno.version.deno}; load average ${loadAverage()}`,
  );
  const ops = ["hello", "loan"] as const;
  for (const op of ops) {
    for (const t of targets) {
      if (warmup > 0) {
        await wrk(`${op} ${t.label} warm-up`, `${t.url}/${op}`, {
          seconds: warmup,
          connections,
          threads,
          script: scripts[op],
          pid: t.pid,
        });
      }
    }
  }
  const results = new Map<string, WrkResult[]>();
  const key = (op: string, label: string) => `${op} ${label}`;
  for (let round = 0; round < rounds; round++) {
    // Rotate the order: each server goes first in some round.
    const order = targets.map((_, i) => targets[(i + round) % targets.length]!);
    for (const op of ops) {
      const line: string[] = [];
      for (const t of order) {
        const r = await wrk(key(op, t.label), `${t.url}/${op}`, {
          seconds,
          connections,
          threads,
          script: scripts[op],
          pid: t.pid,
        });
        if (r.non2xx > 0) throw new BenchError(`${op} ${t.label}: ${r.non2xx} non-2xx answers`);
        const list = results.get(key(op, t.label)) ?? [];
        list.push(r);
        results.set(key(op, t.label), list);
        line.push(
          `${t.label} ${r.requestsPerSec.toFixed(0)}/s p99 ${r.latencyMs.p99.toFixed(1)} ms`,
        );
      }
      console.log(`round ${round + 1} ${op}: ${line.join("; ")}`);
    }
  }
  let ok = true;
  const ours = targets.slice(0, -1);
  const main = ours.at(-1)!;
  for (const op of ops) {
    const ref = results.get(key(op, "JAX-WS"))!;
    for (const t of ours) {
      const mine = results.get(key(op, t.label))!;
      const ratios = mine.map((r, i) => r.requestsPerSec / ref[i]!.requestsPerSec);
      const ratio = median(ratios);
      const judged = t === main;
      const fits = ratio >= TARGET_RATIO;
      if (judged) ok &&= fits;
      console.log(
        `${op} ${t.label}: median ${median(mine.map((r) => r.requestsPerSec)).toFixed(0)}/s ` +
          `(p99 ${median(mine.map((r) => r.latencyMs.p99)).toFixed(1)} ms, CPU ` +
          `${median(mine.map((r) => r.serverCpuCores ?? 0)).toFixed(2)} cores); JAX-WS ` +
          `${median(ref.map((r) => r.requestsPerSec)).toFixed(0)}/s (p99 ` +
          `${median(ref.map((r) => r.latencyMs.p99)).toFixed(1)} ms); ratio per round ` +
          `${ratios.map((x) => x.toFixed(2)).join(", ")}, median ${ratio.toFixed(2)}` +
          (judged ? ` (target >= ${TARGET_RATIO}: ${fits ? "PASS" : "FAIL"})` : ""),
      );
    }
  }
  const today = ours.find((t) => t.label === "ours WORKERS=1");
  if (today && today !== main) {
    const p99 = (t: Target) =>
      median(results.get(key("hello", t.label))!.map((r) => r.latencyMs.p99));
    const fits = p99(main) <= p99(today);
    ok &&= fits;
    console.log(
      `hello p99: ${main.label} ${p99(main).toFixed(1)} ms against WORKERS=1's ` +
        `${p99(today).toFixed(1)} ms (target: no worse): ${fits ? "PASS" : "FAIL"}`,
    );
  }
  console.log(`load average at the end ${loadAverage()}`);
  return ok;
}

function loadAverage(): string {
  try {
    return Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(", ");
  } catch {
    return "unknown";
  }
}

if (import.meta.main) await runMain(run);
