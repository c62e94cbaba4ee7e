/**
 * Throughput, memory and correctness benchmark of the SOAP services (`deno task bench`).
 *
 * Starts a bare Deno HTTP server (the ceiling, `bench/ceiling_server.ts`) and the real
 * server (`main.ts` as `deno task start` runs it, V8 flags included, with a fresh data
 * directory), drives both with `wrk` on loopback, and checks:
 * hello/ceiling and loan/ceiling throughput ratios, the server's peak RSS, and that every
 * loan decision answered 2xx is in `loan_history` of an intact database.
 *
 * Environment: BENCH_SECONDS (10: measured seconds per target), BENCH_ROUNDS (5: those
 * seconds are split into rounds that take the targets in turn), BENCH_WARMUP_SECONDS (2),
 * BENCH_CONNECTIONS (64), BENCH_THREADS (2), BENCH_VERBOSE (1: print wrk's own output).
 * Needs `wrk` on PATH.
 * Exits 1 when a target or check fails, 2 when the benchmark itself cannot run.
 */
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import {
  BenchError,
  cpuSeconds,
  envNumber,
  freePort,
  procStatusKib,
  readClockTicks,
  runMain,
  running,
  spawn,
  startTaskArgs,
  stop,
  tempDirs,
  waitUntilReady,
} from "./harness.ts";

const TARGET_HELLO_RATIO = 0.45;
const TARGET_LOAN_RATIO = 0.10;
const TARGET_RSS_MIB = 120;

const NS_ENV = "http://schemas.xmlsoap.org/soap/envelope/";
/** The `getHelloWorld` request every hello run sends. */
export const HELLO_ENVELOPE = `<soapenv:Envelope xmlns:soapenv="${NS_ENV}" ` +
  'xmlns:soap="http://soap.example.com/"><soapenv:Header/><soapenv:Body><soap:getHelloWorld>' +
  "<arg0>Alice</arg0></soap:getHelloWorld></soapenv:Body></soapenv:Envelope>";
/** A `processLoanApplication` request of 1000 for `name` (an unregistered applicant). */
export const loanEnvelope = (name: string) =>
  `<soapenv:Envelope xmlns:soapenv="${NS_ENV}" xmlns:soap="http://soap.example.com/">` +
  "<soapenv:Body><soap:processLoanApplication><arg0>" +
  `<applicantName>${name}</applicantName><requestedAmount>1000</requestedAmount>` +
  "</arg0></soap:processLoanApplication></soapenv:Body></soapenv:Envelope>";
/** The measured loan run's applicant; the warm-up uses another name so rows can be told apart. */
export const LOAN_APPLICANT = "Bench";
/** The loan warm-up's applicant. */
export const WARMUP_APPLICANT = "Warmup";

/** Samples VmRSS of `pid` every `everyMs` and remembers the largest value. */
function rssSampler(pid: number, everyMs = 100): { stop: () => void; peakKib: () => number } {
  let peak = 0;
  const sample = () => {
    const kib = procStatusKib(pid, "VmRSS");
    if (kib !== null && kib > peak) peak = kib;
  };
  sample();
  const id = setInterval(sample, everyMs);
  return { stop: () => clearInterval(id), peakKib: () => peak };
}

// ---------------------------------------------------------------------------------------
// wrk

/** One wrk run, read from its report. */
export interface WrkResult {
  label: string;
  requestsPerSec: number;
  /** Completed responses (any status). */
  requests: number;
  durationSec: number;
  /** Latency percentiles in milliseconds. */
  latencyMs: { p50: number; p75: number; p90: number; p99: number; max: number };
  /** Responses with a status of 400 or more ("Non-2xx or 3xx responses"). */
  non2xx: number;
  socketErrors: { connect: number; read: number; write: number; timeout: number };
  /** CPU use of the server under test during the run, in cores (1.0 = one core busy). */
  serverCpuCores: number | null;
  raw: string;
}

const TIME_UNITS_MS: Record<string, number> = {
  us: 0.001,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

function parseDurationMs(text: string): number {
  const match = text.match(/^([\d.]+)(us|ms|s|m|h)$/);
  if (!match) throw new BenchError(`cannot read wrk duration ${JSON.stringify(text)}`);
  return Number(match[1]) * TIME_UNITS_MS[match[2]!]!;
}

/** Reads wrk's (4.x) text report. */
export function parseWrkOutput(label: string, raw: string): Omit<WrkResult, "serverCpuCores"> {
  const need = (re: RegExp, what: string): RegExpMatchArray => {
    const match = raw.match(re);
    if (!match) throw new BenchError(`cannot find ${what} in wrk's output:\n${raw}`);
    return match;
  };
  const rps = need(/^Requests\/sec:\s+([\d.]+)/m, "Requests/sec");
  const total = need(/^\s*(\d+) requests in ([\d.]+\w+)/m, "the request count");
  const percentile = (p: string) =>
    parseDurationMs(need(new RegExp(`^[ \\t]+${p}%[ \\t]+(\\S+)`, "m"), `the ${p}% latency`)[1]!);
  const max = need(/^[ \t]+Latency[ \t]+\S+[ \t]+\S+[ \t]+(\S+)/m, "the latency line");
  const non2xx = raw.match(/Non-2xx or 3xx responses:\s+(\d+)/);
  const socket = raw.match(
    /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/,
  );
  return {
    label,
    requestsPerSec: Number(rps[1]),
    requests: Number(total[1]),
    durationSec: parseDurationMs(total[2]!) / 1000,
    latencyMs: {
      p50: percentile("50"),
      p75: percentile("75"),
      p90: percentile("90"),
      p99: percentile("99"),
      max: parseDurationMs(max[1]!),
    },
    non2xx: non2xx ? Number(non2xx[1]) : 0,
    socketErrors: {
      connect: socket ? Number(socket[1]) : 0,
      read: socket ? Number(socket[2]) : 0,
      write: socket ? Number(socket[3]) : 0,
      timeout: socket ? Number(socket[4]) : 0,
    },
    raw,
  };
}

/** Writes a wrk script that POSTs `body` as SOAP 1.1. */
export async function luaScript(dir: string, name: string, body: string): Promise<string> {
  if (body.includes("]==]")) throw new BenchError("body cannot be quoted for Lua");
  const path = join(dir, `${name}.lua`);
  await Deno.writeTextFile(
    path,
    [
      'wrk.method = "POST"',
      `wrk.body = [==[${body}]==]`,
      'wrk.headers["Content-Type"] = "text/xml; charset=utf-8"',
      'wrk.headers["SOAPAction"] = \'""\'',
      "",
    ].join("\n"),
  );
  return path;
}

/** How a wrk run is made. */
export interface WrkOptions {
  seconds: number;
  connections: number;
  threads: number;
  script: string;
  /** The process whose CPU use is recorded. */
  pid: number;
}

/** Runs wrk against `url` and reads its report, with the CPU use of `options.pid` meanwhile. */
export async function wrk(label: string, url: string, options: WrkOptions): Promise<WrkResult> {
  const args = [
    `-t${options.threads}`,
    `-c${options.connections}`,
    `-d${options.seconds}s`,
    "--latency",
    "-s",
    options.script,
    url,
  ];
  const cpuBefore = cpuSeconds(options.pid);
  const started = performance.now();
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command("wrk", { args, stdin: "null", stdout: "piped", stderr: "piped" })
      .spawn();
  } catch (error) {
    throw new BenchError(`cannot run wrk (is it installed?): ${(error as Error).message}`);
  }
  running.add(child);
  const output = await child.output();
  running.delete(child);
  const elapsed = (performance.now() - started) / 1000;
  const cpuAfter = cpuSeconds(options.pid);
  const decoder = new TextDecoder();
  const raw = decoder.decode(output.stdout);
  if (!output.success) {
    throw new BenchError(`wrk ${args.join(" ")} failed:\n${raw}${decoder.decode(output.stderr)}`);
  }
  const used = (cpuAfter - cpuBefore) / elapsed;
  const serverCpuCores = Number.isFinite(used) ? used : null;
  return { ...parseWrkOutput(label, raw), serverCpuCores };
}

// ---------------------------------------------------------------------------------------
// The run

interface Check {
  name: string;
  value: string;
  target: string;
  pass: boolean;
}

interface Aggregate {
  label: string;
  runs: WrkResult[];
  /** All completed responses over all measured seconds. */
  requestsPerSec: number;
  requests: number;
  non2xx: number;
  socketErrors: number;
}

function aggregate(label: string, runs: WrkResult[]): Aggregate {
  const sum = (pick: (r: WrkResult) => number) => runs.reduce((a, r) => a + pick(r), 0);
  const requests = sum((r) => r.requests);
  return {
    label,
    runs,
    requestsPerSec: requests / sum((r) => r.durationSec),
    requests,
    non2xx: sum((r) => r.non2xx),
    socketErrors: sum((r) =>
      r.socketErrors.connect + r.socketErrors.read + r.socketErrors.write + r.socketErrors.timeout
    ),
  };
}

/** The median of `values` (not empty). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function describe(a: Aggregate): string {
  const m = (pick: (r: WrkResult) => number) => median(a.runs.map(pick)).toFixed(2);
  const max = Math.max(...a.runs.map((r) => r.latencyMs.max));
  const cpus = a.runs.flatMap((r) => r.serverCpuCores === null ? [] : [r.serverCpuCores]);
  const cpu = cpus.length ? (cpus.reduce((x, y) => x + y, 0) / cpus.length).toFixed(2) : "?";
  return `${a.label.padEnd(8)} ${a.requestsPerSec.toFixed(0).padStart(7)} req/s  ` +
    `latency p50 ${m((r) => r.latencyMs.p50)} p90 ${m((r) => r.latencyMs.p90)} ` +
    `p99 ${m((r) => r.latencyMs.p99)} max ${max.toFixed(1)} ms  ` +
    `responses ${a.requests}  non-2xx ${a.non2xx}  socket errors ${a.socketErrors}  ` +
    `server CPU ${cpu} cores`;
}

/** Per-round ratios of `runs` to the ceiling's runs of the same round. */
function ratios(runs: WrkResult[], ceiling: WrkResult[]): number[] {
  return runs.map((r, i) => r.requestsPerSec / ceiling[i]!.requestsPerSec);
}

function ratioText(values: number[], a: Aggregate, ceiling: Aggregate): string {
  return `${median(values).toFixed(3)} median (rounds ${Math.min(...values).toFixed(3)}-` +
    `${Math.max(...values).toFixed(3)}; ${a.requestsPerSec.toFixed(0)} / ` +
    `${ceiling.requestsPerSec.toFixed(0)} req/s)`;
}

async function run(): Promise<boolean> {
  const seconds = envNumber("BENCH_SECONDS", 10, 1);
  const rounds = Math.min(envNumber("BENCH_ROUNDS", 5, 1), seconds);
  const warmup = envNumber("BENCH_WARMUP_SECONDS", 2, 0);
  const connections = envNumber("BENCH_CONNECTIONS", 64, 1);
  const threads = Math.min(envNumber("BENCH_THREADS", 2, 1), connections);
  const verbose = Deno.env.get("BENCH_VERBOSE") === "1";
  const perRun = Math.max(1, Math.round(seconds / rounds));

  const benchDir = import.meta.dirname;
  if (benchDir === undefined) throw new BenchError("run this script from a local file");
  const root = join(benchDir, "..");
  await readClockTicks();

  const temp = await Deno.makeTempDir({ prefix: "soap-bench-" });
  tempDirs.push(temp);
  const dataDir = join(temp, "data");
  const scripts = {
    hello: await luaScript(temp, "hello", HELLO_ENVELOPE),
    loan: await luaScript(temp, "loan", loanEnvelope(LOAN_APPLICANT)),
    loanWarmup: await luaScript(temp, "loan_warmup", loanEnvelope(WARMUP_APPLICANT)),
  };

  const ceilingPort = freePort();
  const ceiling = spawn(
    "ceiling server",
    ["run", "--allow-net", join(benchDir, "ceiling_server.ts"), String(ceilingPort)],
    { env: {}, cwd: root, port: ceilingPort },
  );
  const serverPort = freePort();
  const serverArgs = startTaskArgs(await Deno.readTextFile(join(root, "deno.json")), root);
  const server = spawn(
    "server",
    serverArgs,
    {
      env: { DATA_DIR: dataDir, PORT: String(serverPort), HOST: "127.0.0.1" },
      cwd: root,
      port: serverPort,
    },
  );
  await Promise.all([waitUntilReady(ceiling, "/"), waitUntilReady(server, "/healthz")]);
  const serverPid = server.child.pid;
  const ceilingPid = ceiling.child.pid;

  console.log(
    `wrk -t${threads} -c${connections}, ${rounds} round(s) of ${perRun}s per target ` +
      `(ceiling, hello, loan in turn), warm-up ${warmup}s each; ` +
      `${navigator.hardwareConcurrency} cores, Deno ${Deno.version.deno}`,
  );
  const v8Flags = serverArgs.filter((arg) => arg.startsWith("--v8-flags"));
  const envFlags = Deno.env.get("DENO_V8_FLAGS");
  console.log(
    `server: deno task start (${v8Flags.length ? v8Flags.join(" ") : "no --v8-flags"}` +
      `${envFlags ? `, DENO_V8_FLAGS=${envFlags}` : ""})`,
  );
  const startKib = procStatusKib(serverPid, "VmRSS") ?? 0;
  const rss = rssSampler(serverPid);

  // The ceiling gets the same request as /hello, so both read the same bytes.
  const targets = [
    { label: "ceiling", url: `${ceiling.url}/hello`, script: scripts.hello, pid: ceilingPid },
    { label: "hello", url: `${server.url}/hello`, script: scripts.hello, pid: serverPid },
    {
      label: "loan",
      url: `${server.url}/loan`,
      script: scripts.loan,
      pid: serverPid,
      warmupScript: scripts.loanWarmup,
    },
  ];
  const options = (script: string, pid: number, s: number): WrkOptions => ({
    seconds: s,
    connections,
    threads,
    script,
    pid,
  });
  if (warmup > 0) {
    for (const t of targets) {
      await wrk(`${t.label}-warm`, t.url, options(t.warmupScript ?? t.script, t.pid, warmup));
    }
  }
  // Rounds alternate the targets, so a slow patch of the machine hits all of them alike.
  const results = new Map<string, WrkResult[]>(targets.map((t) => [t.label, []]));
  for (let round = 1; round <= rounds; round++) {
    const line: string[] = [];
    for (const t of targets) {
      const result = await wrk(t.label, t.url, options(t.script, t.pid, perRun));
      results.get(t.label)!.push(result);
      line.push(`${t.label} ${result.requestsPerSec.toFixed(0)}`);
      if (verbose) console.log(result.raw);
    }
    console.log(`round ${round}: ${line.join("  ")} req/s`);
  }

  rss.stop();
  const hwmKib = procStatusKib(serverPid, "VmHWM");
  const peakKib = Math.max(hwmKib ?? 0, rss.peakKib());
  const ceilingKib = procStatusKib(ceilingPid, "VmHWM") ?? 0;

  const ceilingRuns = results.get("ceiling")!;
  const helloRuns = results.get("hello")!;
  const loanRuns = results.get("loan")!;
  const ceilingAll = aggregate("ceiling", ceilingRuns);
  const helloAll = aggregate("hello", helloRuns);
  const loanAll = aggregate("loan", loanRuns);
  for (const a of [ceilingAll, helloAll, loanAll]) console.log(describe(a));
  console.log(
    `server RSS: ${(startKib / 1024).toFixed(1)} MiB after start, ` +
      `${(peakKib / 1024).toFixed(1)} MiB peak; ceiling server peak ` +
      `${(ceilingKib / 1024).toFixed(1)} MiB`,
  );

  await stop(ceiling);
  const serverStatus = await stop(server);

  // The database, read after the server has checkpointed and closed it.
  let loanRows = -1;
  let warmupRows = -1;
  let integrity = "not checked";
  if (serverStatus.code === 0) {
    const db = new DatabaseSync(join(dataDir, "collab.db"), { readOnly: true });
    try {
      const count = db.prepare("SELECT count(*) AS n FROM loan_history WHERE applicant_name = ?");
      loanRows = Number((count.get(LOAN_APPLICANT) as { n: number }).n);
      warmupRows = Number((count.get(WARMUP_APPLICANT) as { n: number }).n);
      const rows = db.prepare("PRAGMA integrity_check").all() as Array<Record<string, unknown>>;
      integrity = rows.map((row) => String(Object.values(row)[0])).join("; ");
    } finally {
      db.close();
    }
  }

  const helloRatios = ratios(helloRuns, ceilingRuns);
  const loanRatios = ratios(loanRuns, ceilingRuns);
  const loan2xx = loanAll.requests - loanAll.non2xx;
  // Each connection may have had one request in flight, stored but unread, when a run ended.
  const slack = connections * rounds;
  const mib = peakKib / 1024;
  const checks: Check[] = [
    {
      name: "hello / ceiling",
      value: ratioText(helloRatios, helloAll, ceilingAll),
      target: `>= ${TARGET_HELLO_RATIO.toFixed(2)}`,
      pass: median(helloRatios) >= TARGET_HELLO_RATIO,
    },
    {
      name: "loan / ceiling",
      value: ratioText(loanRatios, loanAll, ceilingAll),
      target: `>= ${TARGET_LOAN_RATIO.toFixed(2)}`,
      pass: median(loanRatios) >= TARGET_LOAN_RATIO,
    },
    {
      name: "server peak RSS",
      value: `${mib.toFixed(1)} MiB (VmHWM ${((hwmKib ?? 0) / 1024).toFixed(1)}, ` +
        `sampled VmRSS ${(rss.peakKib() / 1024).toFixed(1)})`,
      target: `< ${TARGET_RSS_MIB} MiB`,
      pass: peakKib > 0 && mib < TARGET_RSS_MIB,
    },
    {
      name: "hello errors",
      value: `non-2xx ${helloAll.non2xx}, socket ${helloAll.socketErrors}`,
      target: "0, 0",
      pass: helloAll.non2xx === 0 && helloAll.socketErrors === 0,
    },
    {
      name: "loan errors",
      value: `non-2xx ${loanAll.non2xx}, socket ${loanAll.socketErrors}`,
      target: "0, 0",
      pass: loanAll.non2xx === 0 && loanAll.socketErrors === 0,
    },
    {
      name: "server stop (SIGTERM)",
      value: `exit code ${serverStatus.code}${
        serverStatus.signal ? ` ${serverStatus.signal}` : ""
      }`,
      target: "0",
      pass: serverStatus.code === 0,
    },
    {
      name: "loan rows vs 2xx",
      value: `${loanRows} rows, ${loan2xx} completed 2xx (+${loanRows - loan2xx}); ` +
        `warm-up ${warmupRows} rows`,
      target: `rows - 2xx in [0, ${slack}]`,
      pass: loanRows >= loan2xx && loanRows - loan2xx <= slack,
    },
    {
      name: "integrity_check",
      value: integrity,
      target: "ok",
      pass: integrity === "ok",
    },
  ];

  const width = (pick: (c: Check) => string, title: string) =>
    Math.max(title.length, ...checks.map((c) => pick(c).length));
  const w = [
    width((c) => c.name, "check"),
    width((c) => c.value, "value"),
    width((c) => c.target, "target"),
  ];
  const line = (a: string, b: string, c: string, d: string) =>
    `${a.padEnd(w[0]!)}  ${b.padEnd(w[1]!)}  ${c.padEnd(w[2]!)}  ${d}`;
  console.log("\nSummary");
  console.log(line("check", "value", "target", "result"));
  console.log(line("-".repeat(w[0]!), "-".repeat(w[1]!), "-".repeat(w[2]!), "------"));
  for (const c of checks) console.log(line(c.name, c.value, c.target, c.pass ? "PASS" : "FAIL"));
  const failed = checks.filter((c) => !c.pass).length;
  console.log(failed === 0 ? "\nALL PASS" : `\n${failed} FAILED`);
  if (serverStatus.code !== 0) console.log(`server stderr:\n${server.stderr()}`);
  return failed === 0;
}

if (import.meta.main) await runMain(run);
