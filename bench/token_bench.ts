/**
 * API tokens and calendar feeds (`deno run --allow-all bench/token_bench.ts`; see
 * bench/README.md, "API tokens and calendar feeds").
 *
 * 1. Bearer vs cookie, in process: the same GET routes (`/api/auth/me`, the cheapest, where
 *    authentication weighs most; `/api/projects/{id}`) through `app.request`, in batches taken
 *    in turn (cookie, bearer, then bearer, cookie), over TOKEN_BENCH_ROUNDS rounds. Ratio per
 *    round = bearer throughput / cookie throughput; the median is compared with the target.
 *    Also the cost of the check alone: `apiTokens.authenticate` vs `sessions.resolve`.
 * 2. Bearer vs cookie over HTTP: the server as `deno task start` runs it (temporary DATA_DIR,
 *    production scrypt for the one registration), `wrk` with the `Authorization` or `Cookie`
 *    header on `GET /api/projects/{id}`, rounds in turn, median ratio.
 * 3. all.ics of a user in 20 projects holding 10,000 dated items (events timed and all-day,
 *    milestones, to-do spans, meetings with invitees; English and Japanese titles with commas,
 *    semicolons and line breaks), inserted with SQL; GET through `app.request` and over HTTP
 *    from the server of (2): p50/p95 of TOKEN_BENCH_FEED_RUNS requests, and the 304 answer.
 *
 * Targets: bearer/cookie >= 0.95 (median, in process and over HTTP); all.ics p95 < 200 ms.
 * Environment: TOKEN_BENCH_ROUNDS (9), TOKEN_BENCH_BATCH (2000 requests per batch),
 * TOKEN_BENCH_SECONDS (2 per wrk run), TOKEN_BENCH_CONNECTIONS (32), TOKEN_BENCH_ITEMS
 * (10000), TOKEN_BENCH_FEED_RUNS (30), TOKEN_BENCH_ONLY (`tokens` for 1 and 2, `feed` for 3).
 * Needs `wrk` on PATH. Exits 1 when a target fails, 2 when the benchmark itself cannot run.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import process from "node:process";
import { openDatabase } from "../db/sqlite/sqlite.ts";
import { sqliteOf, type TestApp, testApp } from "../tests/helpers/app.ts";
import { api, createProject, expectJson, sessionFrom } from "../tests/helpers/api.ts";
import {
  BenchError,
  cpuNanos,
  envNumber,
  readClockTicks,
  running,
  startServer,
  stop,
} from "./harness.ts";
import { parseWrkOutput } from "./soap_bench.ts";
import { prng } from "./search_bench.ts";
import { runMain } from "./harness.ts";

const TARGET_RATIO = 0.95;
const TARGET_FEED_P95_MS = 200;
const NOW = "2026-11-22T08:30:00.000Z";
const DAY_MS = 86_400_000;
const PROJECTS = 20;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

interface Check {
  name: string;
  value: string;
  target: string;
  pass: boolean;
}

// ---------------------------------------------------------------------------------------
// 1. In process

/** Milliseconds for `count` sequential GETs of `path` with `headers`; fails on a non-200. */
async function batch(t: TestApp, path: string, headers: HeadersInit, count: number) {
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const res = await t.app.request(path, { headers });
    if (res.status !== 200) throw new BenchError(`${path}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  }
  return performance.now() - started;
}

async function inProcess(checks: Check[], rounds: number, size: number): Promise<void> {
  const t = await testApp({ now: NOW });
  try {
    const reg = await api(t, "POST", "/api/auth/register", {
      body: { email: "ada@example.com", password: "correct horse battery", displayName: "Ada" },
    });
    const cookie = sessionFrom(reg);
    const project = await createProject(t, cookie, "Apollo");
    const { secret } = expectJson(
      await api(t, "POST", "/api/tokens", { cookie, body: { name: "bench", scope: "read" } }),
      201,
    );
    const cookieHeaders = { cookie };
    const bearerHeaders = { authorization: `Bearer ${secret}` };
    console.log(`\n1. In process: ${rounds} rounds of ${size} sequential GETs per side`);
    for (const path of ["/api/auth/me", `/api/projects/${project.id}`]) {
      await batch(t, path, cookieHeaders, size / 4); // warm-up
      await batch(t, path, bearerHeaders, size / 4);
      const ratios: number[] = [];
      const cookieRates: number[] = [];
      const bearerRates: number[] = [];
      for (let r = 0; r < rounds; r++) {
        let cookieMs: number;
        let bearerMs: number;
        if (r % 2 === 0) {
          cookieMs = await batch(t, path, cookieHeaders, size);
          bearerMs = await batch(t, path, bearerHeaders, size);
        } else {
          bearerMs = await batch(t, path, bearerHeaders, size);
          cookieMs = await batch(t, path, cookieHeaders, size);
        }
        cookieRates.push(size / cookieMs * 1000);
        bearerRates.push(size / bearerMs * 1000);
        ratios.push(cookieMs / bearerMs);
      }
      const ratio = median(ratios);
      console.log(
        `   GET ${path}: cookie ${median(cookieRates).toFixed(0)} req/s, bearer ` +
          `${median(bearerRates).toFixed(0)} req/s; bearer/cookie per round ` +
          `${ratios.map((x) => x.toFixed(3)).join(" ")}`,
      );
      checks.push({
        name: `in process GET ${path.replace(/\d+$/, "{id}")} bearer/cookie`,
        value: ratio.toFixed(3),
        target: `>= ${TARGET_RATIO}`,
        pass: ratio >= TARGET_RATIO,
      });
    }

    // The check alone, without routing or the handler.
    const cookieValue = cookie.replace(/^session=/, "");
    const n = 20_000;
    for (let i = 0; i < 2_000; i++) {
      await t.app.services.sessions.resolve(cookieValue);
      await t.app.services.apiTokens.authenticate(secret);
    }
    let started = performance.now();
    for (let i = 0; i < n; i++) await t.app.services.sessions.resolve(cookieValue);
    const sessionUs = (performance.now() - started) / n * 1000;
    started = performance.now();
    for (let i = 0; i < n; i++) await t.app.services.apiTokens.authenticate(secret);
    const tokenUs = (performance.now() - started) / n * 1000;
    console.log(
      `   the check alone: session cookie ${sessionUs.toFixed(1)} µs (HMAC verify, 2 lookups), ` +
        `API token ${tokenUs.toFixed(1)} µs (SHA-256, 1 lookup)`,
    );
    // The token's hash: node:crypto (synchronous) or Web Crypto (a promise per digest).
    const bytes = new TextEncoder().encode(secret);
    started = performance.now();
    for (let i = 0; i < n; i++) createHash("sha256").update(secret).digest("hex");
    const nodeUs = (performance.now() - started) / n * 1000;
    started = performance.now();
    for (let i = 0; i < n; i++) await crypto.subtle.digest("SHA-256", bytes);
    const webUs = (performance.now() - started) / n * 1000;
    console.log(
      `   SHA-256 of a secret: node:crypto createHash ${nodeUs.toFixed(2)} µs, ` +
        `crypto.subtle.digest ${webUs.toFixed(2)} µs`,
    );
  } finally {
    await t.close();
  }
}

// ---------------------------------------------------------------------------------------
// 3. The feed's data

const EN = ["Review", "Launch", "Planning", "Sync", "Release", "Retro", "Design", "Budget"];
const JA = ["会議", "レビュー", "計画", "締め切り", "リリース", "打ち合わせ", "設計", "予算"];

/** Inserts `total` dated items over `projectIds` (creator `userId`); returns counts per kind. */
export function seedItems(
  sql: ReturnType<typeof openDatabase>["sql"],
  userId: number,
  inviteeIds: number[],
  projectIds: number[],
  total: number,
): Record<string, number> {
  const random = prng(20261122);
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)]!;
  const title = () =>
    `${pick(EN)} ${pick(JA)}, ${pick(EN).toLowerCase()}; ${pick(JA)} #${
      Math.floor(random() * 1000)
    }${random() < 0.3 ? " とても長いタイトルの続き、カンマ付き" : ""}`;
  const description = () => random() < 0.3 ? `${title()}\n${title()}\n説明, 詳細; 以上` : null;
  const start = Date.parse(NOW) - 365 * DAY_MS;
  const day = () => new Date(start + Math.floor(random() * 730) * DAY_MS).toISOString();
  const stamp = new Date(start).toISOString();
  const column = sql.prepare(
    "SELECT id FROM todo_columns WHERE project_id = ? ORDER BY position LIMIT 1",
  );
  const ins = {
    event: sql.prepare(
      `INSERT INTO calendar_events (project_id, creator_id, title, description, start_at, end_at,
       all_day, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    milestone: sql.prepare(
      `INSERT INTO milestones (project_id, creator_id, title, description, due_date, created_at,
       updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    todo: sql.prepare(
      `INSERT INTO todo_items (project_id, column_id, creator_id, title, description, start_date,
       due_date, order_index, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    meeting: sql.prepare(
      `INSERT INTO meetings (project_id, creator_id, title, start_at, end_at, location,
       created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    ),
    invitee: sql.prepare("INSERT INTO meeting_invitees (meeting_id, user_id) VALUES (?, ?)"),
  };
  const columns = new Map(
    projectIds.map((p) => [p, (column.get(p) as { id: number }).id]),
  );
  const counts: Record<string, number> = { event: 0, milestone: 0, todo: 0, meeting: 0 };
  sql.exec("BEGIN");
  for (let i = 0; i < total; i++) {
    const p = projectIds[i % projectIds.length]!;
    const at = day();
    const kind = random();
    if (kind < 0.4) {
      const allDay = random() < 0.3;
      const begin = allDay
        ? at
        : at.slice(0, 11) + `${String(8 + (i % 9)).padStart(2, "0")}:00:00.000Z`;
      const end = allDay
        ? new Date(Date.parse(at) + (1 + Math.floor(random() * 3)) * DAY_MS).toISOString()
        : new Date(Date.parse(begin) + 3_600_000).toISOString();
      ins.event.run(p, userId, title(), description(), begin, end, allDay ? 1 : 0, stamp, stamp);
      counts.event!++;
    } else if (kind < 0.5) {
      ins.milestone.run(p, userId, title(), description(), at.slice(0, 10), stamp, stamp);
      counts.milestone!++;
    } else if (kind < 0.9) {
      const due = at.slice(0, 10);
      const first = random() < 0.5
        ? new Date(Date.parse(at) - Math.floor(random() * 5) * DAY_MS).toISOString().slice(0, 10)
        : null;
      ins.todo.run(p, columns.get(p)!, userId, title(), description(), first, due, i, stamp, stamp);
      counts.todo!++;
    } else {
      const begin = at.slice(0, 11) + "10:00:00.000Z";
      const end = at.slice(0, 11) + "11:00:00.000Z";
      const { id } = ins.meeting.get(
        p,
        userId,
        title(),
        begin,
        end,
        "会議室 3, 2F",
        stamp,
        stamp,
      ) as {
        id: number;
      };
      for (const invitee of inviteeIds) ins.invitee.run(id, invitee);
      counts.meeting!++;
    }
  }
  sql.exec("COMMIT");
  return counts;
}

/** Registers the feed's user (and three invitees) through `call`, makes 20 projects. */
export async function feedWorld(
  call: (method: string, path: string, body?: unknown, cookie?: string) => Promise<Response>,
): Promise<{ cookie: string; userId: number; inviteeIds: number[]; projectIds: number[] }> {
  const register = async (email: string) => {
    const res = await call("POST", "/api/auth/register", {
      email,
      password: "correct horse battery",
      displayName: email.split("@")[0],
    });
    if (res.status !== 201) throw new BenchError(`register: ${res.status} ${await res.text()}`);
    const { user } = await res.json();
    const line = res.headers.getSetCookie().find((c) => c.startsWith("session="))!;
    return { cookie: line.split(";")[0]!, userId: user.id as number };
  };
  const ada = await register("feed@example.com");
  const inviteeIds: number[] = [];
  for (const name of ["bob", "carol", "dave"]) {
    inviteeIds.push((await register(`${name}@example.com`)).userId);
  }
  const projectIds: number[] = [];
  for (let i = 0; i < PROJECTS; i++) {
    const res = await call("POST", "/api/projects", { name: `Project ${i}, 計画` }, ada.cookie);
    if (res.status !== 201) throw new BenchError(`project: ${res.status} ${await res.text()}`);
    const id = (await res.json()).project.id as number;
    // The to-do columns are made on first use.
    await (await call("GET", `/api/projects/${id}/todos/columns`, undefined, ada.cookie)).body
      ?.cancel();
    projectIds.push(id);
  }
  return { ...ada, inviteeIds, projectIds };
}

/**
 * Times `runs` GETs of a feed; returns the wall times, the CPU milliseconds per request that
 * `cpuNow` (a reading of the serving process's CPU time in ms) saw, the last body's size, and
 * the times of revalidations (304). The CPU figure is what the machine's other load cannot
 * inflate.
 */
async function timeFeed(
  get: (headers: HeadersInit) => Promise<Response>,
  runs: number,
  cpuNow: () => number,
) {
  for (let i = 0; i < 3; i++) await (await get({})).arrayBuffer();
  const times: number[] = [];
  const cpu: number[] = [];
  let bytes = 0;
  let etag = "";
  for (let i = 0; i < runs; i++) {
    const cpuBefore = cpuNow();
    const started = performance.now();
    const res = await get({});
    const body = await res.arrayBuffer();
    times.push(performance.now() - started);
    cpu.push(cpuNow() - cpuBefore);
    if (res.status !== 200) throw new BenchError(`feed: ${res.status}`);
    bytes = body.byteLength;
    etag = res.headers.get("etag") ?? "";
  }
  const notModified: number[] = [];
  for (let i = 0; i < Math.min(runs, 10); i++) {
    const started = performance.now();
    const res = await get({ "if-none-match": etag });
    await res.arrayBuffer();
    if (res.status !== 304) throw new BenchError(`feed revalidation: ${res.status}`);
    notModified.push(performance.now() - started);
  }
  return { times, cpu, bytes, notModified };
}

// ---------------------------------------------------------------------------------------
// 2. Over HTTP, and the run

async function wrkRun(
  url: string,
  header: string,
  seconds: number,
  connections: number,
  pid: number,
) {
  const args = ["-t2", `-c${connections}`, `-d${seconds}s`, "--latency", "-H", header, url];
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command("wrk", { args, stdin: "null", stdout: "piped", stderr: "piped" })
      .spawn();
  } catch (error) {
    throw new BenchError(`cannot run wrk (is it installed?): ${(error as Error).message}`);
  }
  running.add(child);
  const cpuBefore = cpuNanos(pid);
  const output = await child.output();
  const cpu = cpuNanos(pid) - cpuBefore;
  running.delete(child);
  const raw = new TextDecoder().decode(output.stdout);
  if (!output.success) throw new BenchError(`wrk failed:\n${raw}`);
  const result = parseWrkOutput(header.split(":")[0]!, raw);
  if (result.non2xx > 0) throw new BenchError(`wrk saw ${result.non2xx} non-2xx answers`);
  return { ...result, serverCpuUsPerRequest: cpu / 1000 / result.requests };
}

async function run(): Promise<boolean> {
  const rounds = envNumber("TOKEN_BENCH_ROUNDS", 9, 1);
  const size = envNumber("TOKEN_BENCH_BATCH", 2000, 4);
  const seconds = envNumber("TOKEN_BENCH_SECONDS", 2, 1);
  const connections = envNumber("TOKEN_BENCH_CONNECTIONS", 32, 1);
  const items = envNumber("TOKEN_BENCH_ITEMS", 10_000, 1);
  const feedRuns = envNumber("TOKEN_BENCH_FEED_RUNS", 30, 1);
  await readClockTicks();
  const checks: Check[] = [];
  console.log(
    `${navigator.hardwareConcurrency} cores, Deno ${Deno.version.deno}, ` +
      `load average ${Deno.loadavg().map((x) => x.toFixed(2)).join(" ")}`,
  );

  const only = Deno.env.get("TOKEN_BENCH_ONLY") ?? "";
  if (only !== "" && only !== "tokens" && only !== "feed") {
    throw new BenchError(`TOKEN_BENCH_ONLY=${JSON.stringify(only)}: expected tokens or feed`);
  }
  if (only !== "feed") await inProcess(checks, rounds, size);

  // 2. Over HTTP.
  const { server, dataDir } = await startServer("token-bench-");
  const call = (method: string, path: string, body?: unknown, cookie?: string) =>
    fetch(server.url + path, {
      method,
      headers: {
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...(cookie ? { cookie } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const world = await feedWorld(call);
  const tokenRes = await call(
    "POST",
    "/api/tokens",
    { name: "bench", scope: "read" },
    world.cookie,
  );
  const { secret } = await tokenRes.json();
  const pid = server.child.pid;
  if (only !== "feed") {
    const target = `${server.url}/api/projects/${world.projectIds[0]}`;
    console.log(
      `\n2. Over HTTP: deno task start, wrk -t2 -c${connections}, ${rounds} rounds of ${seconds}s ` +
        `per side, GET /api/projects/{id}`,
    );
    const cookieHeader = `Cookie: ${world.cookie}`;
    const bearerHeader = `Authorization: Bearer ${secret}`;
    await wrkRun(target, cookieHeader, 1, connections, pid);
    await wrkRun(target, bearerHeader, 1, connections, pid);
    const ratios: number[] = [];
    const rates = { cookie: [] as number[], bearer: [] as number[] };
    const cpu = { cookie: [] as number[], bearer: [] as number[] };
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? ["cookie", "bearer"] as const : ["bearer", "cookie"] as const;
      const got: Record<string, number> = {};
      for (const side of order) {
        const result = await wrkRun(
          target,
          side === "cookie" ? cookieHeader : bearerHeader,
          seconds,
          connections,
          pid,
        );
        got[side] = result.requestsPerSec;
        rates[side].push(result.requestsPerSec);
        cpu[side].push(result.serverCpuUsPerRequest);
      }
      ratios.push(got.bearer! / got.cookie!);
    }
    const httpRatio = median(ratios);
    console.log(
      `   cookie ${median(rates.cookie).toFixed(0)} req/s, bearer ${
        median(rates.bearer).toFixed(0)
      } req/s; bearer/cookie per round ${ratios.map((x) => x.toFixed(3)).join(" ")}; ` +
        `server CPU per request: cookie ${median(cpu.cookie).toFixed(0)} µs, bearer ${
          median(cpu.bearer).toFixed(0)
        } µs`,
    );
    checks.push({
      name: "over HTTP GET /api/projects/{id} bearer/cookie",
      value: httpRatio.toFixed(3),
      target: `>= ${TARGET_RATIO}`,
      pass: httpRatio >= TARGET_RATIO,
    });
  }

  if (only === "tokens") {
    const status = await stop(server);
    if (status.code !== 0) throw new BenchError(`server exit ${status.code}: ${server.stderr()}`);
    return report(checks);
  }

  // 3. The feed, over HTTP (the same server) and in process (a copy of its data).
  const db = openDatabase(join(dataDir, "collab.db"));
  let counts: Record<string, number>;
  try {
    counts = seedItems(db.sql, world.userId, world.inviteeIds, world.projectIds, items);
  } finally {
    await db.close();
  }
  const feedRes = await call("GET", "/api/me/calendar-feed", undefined, world.cookie);
  const feedPath = new URL((await feedRes.json()).urls.all).pathname;
  console.log(
    `\n3. all.ics of a user in ${PROJECTS} projects with ${items} dated items ` +
      `(${Object.entries(counts).map(([k, v]) => `${v} ${k}s`).join(", ")}), ${feedRuns} runs`,
  );
  const http = await timeFeed(
    (headers) => fetch(server.url + feedPath, { headers }),
    feedRuns,
    () => cpuNanos(pid) / 1e6,
  );
  const status = await stop(server);
  if (status.code !== 0) throw new BenchError(`server exit ${status.code}: ${server.stderr()}`);

  const t = await testApp({ now: NOW });
  let local;
  try {
    const w = await feedWorld(async (method, path, body, cookie) =>
      await t.app.request(path, {
        method,
        headers: {
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          ...(cookie ? { cookie } : {}),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
    );
    seedItems(sqliteOf(t).sql, w.userId, w.inviteeIds, w.projectIds, items);
    const res = await api(t, "GET", "/api/me/calendar-feed", { cookie: w.cookie });
    const path = new URL(expectJson(res, 200).urls.all).pathname;
    local = await timeFeed(
      async (headers) => await t.app.request(path, { headers }),
      feedRuns,
      () => {
        const usage = process.cpuUsage();
        return (usage.user + usage.system) / 1000;
      },
    );
  } finally {
    await t.close();
  }
  for (const [label, r] of [["over HTTP", http], ["in process", local]] as const) {
    const p50 = percentile(r.times, 50);
    const p95 = percentile(r.times, 95);
    console.log(
      `   ${label}: ${(r.bytes / 1024 / 1024).toFixed(2)} MiB, p50 ${p50.toFixed(1)} ms, ` +
        `p95 ${p95.toFixed(1)} ms, max ${Math.max(...r.times).toFixed(1)} ms; CPU per request ` +
        `p50 ${percentile(r.cpu, 50).toFixed(1)} ms; ` +
        `304 p50 ${percentile(r.notModified, 50).toFixed(1)} ms`,
    );
    checks.push({
      name: `all.ics p95 (${label})`,
      value: `${p95.toFixed(1)} ms`,
      target: `< ${TARGET_FEED_P95_MS} ms`,
      pass: p95 < TARGET_FEED_P95_MS,
    });
  }

  return report(checks);
}

/** Prints the checks; whether all passed. */
function report(checks: Check[]): boolean {
  console.log("\nSummary");
  for (const c of checks) {
    console.log(
      `${c.name.padEnd(48)} ${c.value.padEnd(10)} ${c.target.padEnd(10)} ${
        c.pass ? "PASS" : "FAIL"
      }`,
    );
  }
  const failed = checks.filter((c) => !c.pass).length;
  console.log(failed === 0 ? "\nALL PASS" : `\n${failed} FAILED`);
  return failed === 0;
}

if (import.meta.main) await runMain(run);
