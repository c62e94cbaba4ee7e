/**
 * What a backup costs the server it copies (`deno run --allow-all bench/backup_bench.ts`).
 *
 * Generates a project of BACKUP_BENCH_ITEMS items (100,000) with the search benchmark's
 * generator, gives its file rows BACKUP_BENCH_FILE_MIB (2048) MiB of incompressible bytes,
 * starts the server as `deno task start` does, and measures:
 *
 * 1. write stalls: a probe sends one SOAP loan decision (a durable insert) at a time, first
 *    with no backup, then while `deno task backup` runs; the longest answer is the longest
 *    write stall (target < 100 ms);
 * 2. throughput: rounds of the SOAP loan load (`wrk`, as bench/soap_bench.ts) without and
 *    with a concurrent backup; the median of the per-round ratios is the throughput kept
 *    during a backup (target >= 0.7);
 * 3. the last archive: `backup --verify` and `restore` times; loan rows and integrity.
 *
 * Environment: BACKUP_BENCH_ITEMS (100000), BACKUP_BENCH_FILE_MIB (2048), BENCH_ROUNDS (3),
 * BENCH_SECONDS (20: longest wrk run), BENCH_CONNECTIONS (64), BENCH_THREADS (2). Needs `wrk`. Exits 1 when a target or check
 * fails, 2 when the benchmark itself cannot run.
 */
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import {
  BenchError,
  cpuSeconds,
  envNumber,
  freePort,
  readClockTicks,
  runMain,
  running,
  spawn,
  startTaskArgs,
  stop,
  tempDirs,
  waitUntilReady,
} from "./harness.ts";
import { sqliteOf } from "../tests/helpers/app.ts";
import { buildFixture } from "./search_bench.ts";
import { parseWrkOutput } from "./soap_bench.ts";

const TARGET_RATIO = 0.7;
const TARGET_STALL_MS = 100;
const SEED = 20261122;
const NS = 'xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" ' +
  'xmlns:soap="http://soap.example.com/"';
const loanEnvelope = (name: string) =>
  `<soapenv:Envelope ${NS}><soapenv:Body><soap:processLoanApplication><arg0>` +
  `<applicantName>${name}</applicantName><requestedAmount>1000</requestedAmount>` +
  "</arg0></soap:processLoanApplication></soapenv:Body></soapenv:Envelope>";

const mib = (bytes: number) => (bytes / 1024 ** 2).toFixed(0);

/** Builds the data directory: the generated project, and bytes for each of its file rows. */
export async function buildData(items: number, fileBytes: number): Promise<
  { dataDir: string; files: number; dbBytes: number; seconds: number }
> {
  const started = performance.now();
  const fixture = await buildFixture(items, SEED);
  const { t } = fixture;
  tempDirs.push(t.dataDir);
  const rows = sqliteOf(t).sql.prepare("SELECT id, name, stored_name, size FROM files")
    .all() as Array<
      { id: number; name: string; stored_name: string; size: number }
    >;
  const rowTotal = rows.reduce((n, r) => n + r.size, 0);
  // Files are what their names say: photos, PDFs, office files and archives are compressed
  // data (random bytes, as far as gzip can tell), text and CSV are text. Each is cut from a
  // pool at an offset of its own.
  const pool = new Uint8Array(16 * 1024 * 1024);
  for (let i = 0; i < pool.length; i += 65536) crypto.getRandomValues(pool.subarray(i, i + 65536));
  const words = ["total", "budget", "議事録", "review", "2026", "approved", "design", "notes"];
  const textPool = new TextEncoder().encode(
    Array.from(pool.subarray(0, 3_000_000), (b) => words[b % words.length]).join(" "),
  ).subarray(0, pool.length);
  const root = join(t.dataDir, "files");
  await Deno.mkdir(root, { recursive: true });
  const update = sqliteOf(t).sql.prepare("UPDATE files SET size = ?, stored_name = ? WHERE id = ?");
  let written = 0;
  sqliteOf(t).sql.exec("BEGIN");
  for (const [i, row] of rows.entries()) {
    const size = i === rows.length - 1
      ? fileBytes - written
      : Math.round((row.size / rowTotal) * fileBytes);
    const ext = row.name.slice(row.name.lastIndexOf(".") + 1);
    const source = ext === "txt" || ext === "csv" ? textPool : pool;
    const bytes = new Uint8Array(size);
    const half = Math.floor(source.length / 2);
    for (let o = 0; o < size; o += half) {
      const start = (i * 7919 + o) % half;
      bytes.set(source.subarray(start, start + Math.min(half, size - o)), o);
    }
    const storedName = `${row.stored_name}.${ext}`;
    // Flushed as the server flushes an upload: left in the page cache, 2 GiB written just
    // before the measurement reached the disk during the first backup (the kernel writes
    // dirty pages back some 30 s after they were written) and stalled the probe's commits.
    using file = await Deno.open(join(root, storedName), { write: true, createNew: true });
    for (let o = 0; o < bytes.length;) o += await file.write(bytes.subarray(o));
    await file.syncData();
    update.run(size, storedName, row.id);
    written += size;
  }
  sqliteOf(t).sql.exec("COMMIT");
  await sqliteOf(t).close();
  const dbBytes = (await Deno.stat(join(t.dataDir, "collab.db"))).size;
  return {
    dataDir: t.dataDir,
    files: rows.length,
    dbBytes,
    seconds: (performance.now() - started) / 1000,
  };
}

/** The `deno` arguments of a deno.json task that runs `main.ts <command>`. */
function taskArgs(denoJson: string, root: string, name: string): string[] {
  const task = (JSON.parse(denoJson) as { tasks: Record<string, string> }).tasks[name];
  const words = task?.trim().split(/\s+/) ?? [];
  const main = words.indexOf("main.ts");
  if (words[0] !== "deno" || main < 0) throw new BenchError(`unexpected task ${name}: ${task}`);
  return [...words.slice(1, main), join(root, "main.ts"), ...words.slice(main + 1)];
}

interface CommandRun {
  ok: boolean;
  seconds: number;
  /** CPU seconds the command used (sampled while it ran). */
  cpu: number;
  output: string;
  lines: Array<{ at: number; text: string }>;
  started: number;
  ended: number;
}

/** Runs a command of main.ts to its end, timing it, its output lines and its CPU time. */
async function runCommand(args: string[], env: Record<string, string>): Promise<CommandRun> {
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  running.add(child);
  let cpu = 0;
  const sampler = setInterval(() => {
    const seconds = cpuSeconds(child.pid);
    if (Number.isFinite(seconds)) cpu = seconds;
  }, 100);
  const lines: Array<{ at: number; text: string }> = [];
  const read = async (stream: ReadableStream<Uint8Array>) => {
    let rest = "";
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      const parts = (rest + chunk).split("\n");
      rest = parts.pop()!;
      for (const text of parts) lines.push({ at: performance.now(), text });
    }
    if (rest) lines.push({ at: performance.now(), text: rest });
  };
  const [status] = await Promise.all([child.status, read(child.stdout), read(child.stderr)]);
  clearInterval(sampler);
  running.delete(child);
  const ended = performance.now();
  return {
    ok: status.success,
    seconds: (ended - started) / 1000,
    cpu,
    output: lines.map((l) => l.text).join("\n"),
    lines,
    started,
    ended,
  };
}

/** The worst probe writes: when, in the backup's time, and in which of its stages. */
function worstWrites(writes: ProbeWrite[], run: CommandRun, count = 3): string {
  return [...writes].sort((a, b) => b.ms - a.ms).slice(0, count).map((w) => {
    const stage = run.lines.filter((l) => l.at <= w.at).at(-1)?.text.split(":")[0] ?? "start";
    return `${w.ms.toFixed(0)} ms at +${((w.at - run.started) / 1000).toFixed(1)} s (${stage})`;
  }).join(", ");
}

/** One probe write: when it was sent (performance.now()) and how long its answer took. */
interface ProbeWrite {
  at: number;
  ms: number;
}

/** Sends one loan decision at a time until `until` resolves. */
async function probe(url: string, until: Promise<unknown>): Promise<ProbeWrite[]> {
  let done = false;
  until.finally(() => done = true);
  const times: ProbeWrite[] = [];
  for (let n = 0; !done; n++) {
    const started = performance.now();
    const res = await fetch(`${url}/loan`, {
      method: "POST",
      headers: { "content-type": "text/xml; charset=utf-8", soapaction: '""' },
      body: loanEnvelope(`Probe${n}`),
    });
    const text = await res.text();
    if (res.status !== 200 || !text.includes("<approved>true</approved>")) {
      throw new BenchError(`probe: ${res.status} ${text.slice(0, 200)}`);
    }
    times.push({ at: started, ms: performance.now() - started });
  }
  return times;
}

interface Wrk {
  requestsPerSec: number;
  requests: number;
  non2xx: number;
  maxMs: number;
  p99Ms: number;
  started: number;
  ended: number;
}

async function wrk(url: string, script: string, seconds: number, c: number, t: number) {
  const started = performance.now();
  const child = new Deno.Command("wrk", {
    args: [`-t${t}`, `-c${c}`, `-d${seconds}s`, "--latency", "-s", script, url],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  running.add(child);
  const out = await child.output();
  running.delete(child);
  const ended = performance.now();
  const raw = new TextDecoder().decode(out.stdout);
  if (!out.success) throw new BenchError(`wrk failed: ${raw}`);
  const r = parseWrkOutput("loan", raw);
  return {
    requestsPerSec: r.requestsPerSec,
    requests: r.requests,
    non2xx: r.non2xx,
    maxMs: r.latencyMs.max,
    p99Ms: r.latencyMs.p99,
    started,
    ended,
  } satisfies Wrk;
}

const median = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const pct = (values: number[], p: number) => {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
const summary = (writes: ProbeWrite[]) => {
  const times = writes.map((w) => w.ms);
  return `${times.length} writes, p50 ${pct(times, 50).toFixed(1)} p99 ${
    pct(times, 99).toFixed(1)
  } ` +
    `max ${Math.max(...times).toFixed(1)} ms`;
};

async function run(): Promise<boolean> {
  const items = envNumber("BACKUP_BENCH_ITEMS", 100_000, 100);
  const fileMib = envNumber("BACKUP_BENCH_FILE_MIB", 2048, 1);
  const rounds = envNumber("BENCH_ROUNDS", 3, 1);
  const maxSeconds = envNumber("BENCH_SECONDS", 20, 3);
  const connections = envNumber("BENCH_CONNECTIONS", 64, 1);
  const threads = envNumber("BENCH_THREADS", 2, 1);
  const benchDir = import.meta.dirname!;
  const root = join(benchDir, "..");
  await readClockTicks();
  const denoJson = await Deno.readTextFile(join(root, "deno.json"));
  const temp = await Deno.makeTempDir({ prefix: "backup-bench-" });
  tempDirs.push(temp);

  const data = await buildData(items, fileMib * 1024 * 1024);
  const load = await Deno.readTextFile("/proc/loadavg").catch(() => "?");
  console.log(
    `backup bench: ${items} items, ${data.files} files holding ${fileMib} MiB, database ` +
      `${mib(data.dbBytes)} MiB (built in ${data.seconds.toFixed(0)} s); ` +
      `${navigator.hardwareConcurrency} cores, Deno ${Deno.version.deno}, load ${
        load.split(" ").slice(0, 3).join(" ")
      }`,
  );

  const port = freePort();
  const server = spawn("server", startTaskArgs(denoJson, root), {
    env: { DATA_DIR: data.dataDir, PORT: String(port), HOST: "127.0.0.1" },
    cwd: root,
    port,
  });
  await waitUntilReady(server, "/healthz");
  const backupArgs = taskArgs(denoJson, root, "backup");
  let archives = 0;
  const backup = () =>
    runCommand([...backupArgs, join(temp, `b${++archives}.tar.gz`)], { DATA_DIR: data.dataDir });
  const dropArchive = () => Deno.remove(join(temp, `b${archives}.tar.gz`)).catch(() => {});

  // 1. Write stalls: one write at a time, without and with a backup running.
  const quiet = await probe(server.url, new Promise((r) => setTimeout(r, 10_000)));
  const backupRun = backup();
  const during = await probe(server.url, backupRun);
  const idle = await backupRun;
  if (!idle.ok) throw new BenchError(`backup failed:\n${idle.output}`);
  const archiveBytes = (await Deno.stat(join(temp, `b${archives}.tar.gz`))).size;
  console.log(
    `backup with no load: ${idle.seconds.toFixed(1)} s, ${idle.cpu.toFixed(1)} CPU s, archive ` +
      `${mib(archiveBytes)} MiB (${(fileMib / idle.seconds).toFixed(0)} MiB/s of files)`,
  );
  console.log(`probe writes, no backup:     ${summary(quiet)}`);
  console.log(`probe writes, during backup: ${summary(during)}`);
  console.log(`  slowest: ${worstWrites(during, idle)} of ${idle.seconds.toFixed(1)} s`);
  await dropArchive();

  // 2. Throughput under the loan load, rounds of (without, with) a backup. wrk runs for 80%
  // of the quiet backup's time (at most BENCH_SECONDS), so that the backup (slower under
  // load) outlasts it: the with-backup run measures only while a backup runs.
  const script = join(temp, "loan.lua");
  await Deno.writeTextFile(
    script,
    [
      'wrk.method = "POST"',
      `wrk.body = [==[${loanEnvelope("Bench")}]==]`,
      'wrk.headers["Content-Type"] = "text/xml; charset=utf-8"',
      'wrk.headers["SOAPAction"] = \'""\'',
      "",
    ].join("\n"),
  );
  const seconds = Math.max(3, Math.min(maxSeconds, Math.floor(idle.seconds * 0.8)));
  const url = `${server.url}/loan`;
  await wrk(url, script, 2, connections, threads); // warm-up
  const ratios: number[] = [];
  const covered: number[] = [];
  let loanResponses = 0;
  let non2xx = 0;
  let worst = { base: 0, backup: 0 };
  for (let r = 1; r <= rounds; r++) {
    const base = await wrk(url, script, seconds, connections, threads);
    const job = backup();
    const loaded = await wrk(url, script, seconds, connections, threads);
    const b = await job;
    if (!b.ok) throw new BenchError(`backup failed:\n${b.output}`);
    await dropArchive();
    const overlap = (Math.min(b.ended, loaded.ended) - Math.max(b.started, loaded.started)) /
      (loaded.ended - loaded.started);
    ratios.push(loaded.requestsPerSec / base.requestsPerSec);
    covered.push(overlap);
    loanResponses += base.requests + loaded.requests;
    non2xx += base.non2xx + loaded.non2xx;
    worst = {
      base: Math.max(worst.base, base.maxMs),
      backup: Math.max(worst.backup, loaded.maxMs),
    };
    console.log(
      `round ${r}: loan ${base.requestsPerSec.toFixed(0)} req/s without, ` +
        `${loaded.requestsPerSec.toFixed(0)} with a backup (ratio ${
          ratios.at(-1)!.toFixed(3)
        }; the backup took ${b.seconds.toFixed(1)} s, ${b.cpu.toFixed(1)} CPU s, and ran ` +
        `through ${(overlap * 100).toFixed(0)}% of the wrk run); p99 ${base.p99Ms.toFixed(1)} / ` +
        `${loaded.p99Ms.toFixed(1)} ms, max ${base.maxMs.toFixed(1)} / ${
          loaded.maxMs.toFixed(1)
        } ms`,
    );
  }

  // 3. The last archive: verify, restore; then the server's rows and integrity.
  const last = backup();
  const lastRun = await last;
  if (!lastRun.ok) throw new BenchError(`backup failed:\n${lastRun.output}`);
  const archive = join(temp, `b${archives}.tar.gz`);
  const verify = await runCommand([...backupArgs, "--verify", archive], {});
  const restored = join(temp, "restored");
  const restore = await runCommand(
    [...taskArgs(denoJson, root, "restore"), archive, "--data-dir", restored],
    {},
  );
  console.log(
    `verify: ${verify.ok ? "ok" : "FAILED"} in ${verify.seconds.toFixed(1)} s; restore: ${
      restore.ok ? "ok" : "FAILED"
    } in ${restore.seconds.toFixed(1)} s`,
  );
  const status = await stop(server);
  const db = new DatabaseSync(join(data.dataDir, "collab.db"), { readOnly: true });
  const rows = (db.prepare("SELECT count(*) AS n FROM loan_history WHERE applicant_name = 'Bench'")
    .get() as { n: number }).n;
  const integrity = (db.prepare("PRAGMA integrity_check").get() as { integrity_check: string })
    .integrity_check;
  db.close();

  const ratio = median(ratios);
  const stall = Math.max(...during.map((w) => w.ms));
  const checks = [
    [
      "loan throughput during a backup",
      `${ratio.toFixed(3)} median of rounds (${ratios.map((x) => x.toFixed(3)).join(", ")})`,
      `>= ${TARGET_RATIO}`,
      ratio >= TARGET_RATIO,
    ],
    [
      "longest write stall",
      `${stall.toFixed(1)} ms (no backup: ${Math.max(...quiet.map((w) => w.ms)).toFixed(1)} ms)`,
      `< ${TARGET_STALL_MS} ms`,
      stall < TARGET_STALL_MS,
    ],
    [
      "backup outlasted each wrk run",
      covered.map((c) => `${(c * 100).toFixed(0)}%`).join(", "),
      ">= 95%",
      covered.every((c) => c >= 0.95),
    ],
    [
      "loan responses all 2xx",
      `${non2xx} non-2xx of ${loanResponses}`,
      "0",
      non2xx === 0,
    ],
    [
      "loan rows >= 2xx answers",
      `${rows} rows`,
      `>= ${loanResponses - non2xx}`,
      rows >= loanResponses - non2xx,
    ],
    ["verify and restore", `${verify.ok} / ${restore.ok}`, "ok", verify.ok && restore.ok],
    [
      "server exit, integrity",
      `${status.code}, ${integrity}`,
      "0, ok",
      status.code === 0 && integrity === "ok",
    ],
  ] as const;
  console.log(
    `wrk -t${threads} -c${connections}, ${seconds} s per run; max latency ${
      worst.base.toFixed(1)
    } ms without, ${worst.backup.toFixed(1)} ms with a backup`,
  );
  console.log("\nSummary");
  for (const [name, value, target, pass] of checks) {
    console.log(
      `${name.padEnd(32)} ${value.padEnd(60)} ${target.padEnd(10)} ${pass ? "PASS" : "FAIL"}`,
    );
  }
  if (!verify.ok) console.log(verify.output);
  if (!restore.ok) console.log(restore.output);
  const failed = checks.filter((c) => !c[3]).length;
  console.log(failed === 0 ? "\nALL PASS" : `\n${failed} FAILED`);
  return failed === 0;
}

if (import.meta.main) await runMain(run);
