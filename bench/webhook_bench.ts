/**
 * Webhook benchmark: bursts of chat messages in a project with 5 webhooks, one of which
 * goes to a receiver that accepts the connection and never answers.
 *
 * It starts the real server (`main.ts` as `deno task start` runs it, fresh data directory,
 * `WEBHOOK_ALLOW_HOSTS=127.0.0.1`), four healthy receivers (`Deno.serve`, 204 at once) and
 * one dead receiver (a TCP listener that never reads) in this process, registers an owner
 * and makes two projects: `plain` without webhooks and `hooked` with the 5 webhooks (all
 * events). Then, per round, it sends a burst of BENCH_EVENTS `POST .../chat/messages` to
 * `plain`, then the same burst to `hooked`, BENCH_CONCURRENCY requests at a time, and
 * records each request's latency; it waits until the healthy receivers have every delivery
 * of the round, recording for each the time from the POST's answer (the commit) to its
 * arrival. The server's RSS is sampled every 100 ms.
 *
 * Targets: the median over rounds of p99(hooked) / p99(plain) at most 1.10; every delivery to
 * a healthy receiver within 5 s; peak RSS at most 400 MiB, and a plateau: the RSS at the end
 * of the last round at most 32 MiB above the highest of the earlier rounds (the dead
 * receiver's backlog lives in the database, not in memory). Afterwards: SIGTERM exits 0 without waiting for the dead
 * receiver, every acknowledged message has its 5 delivery rows, the healthy ones succeeded,
 * `PRAGMA integrity_check` is ok.
 *
 * Environment: BENCH_EVENTS (1000 per burst), BENCH_ROUNDS (3), BENCH_CONCURRENCY (16),
 * BENCH_WARMUP (200 unmeasured messages to each project first). Linux only (/proc). Exits 1
 * when a target or check fails, 2 when the benchmark itself cannot run, 130 when interrupted.
 */
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import {
  BenchError,
  cpuSeconds,
  envNumber,
  onCleanup,
  procStatusKib,
  readClockTicks,
  runMain,
  startServer,
  stop,
} from "./harness.ts";
import type { ReceiversMessage } from "./webhook_receivers.ts";

const TARGET_P99_RATIO = 1.10;
const TARGET_DELIVERY_MS = 5_000;
const TARGET_PEAK_RSS_MIB = 400;
const TARGET_RSS_GROWTH_MIB = 32;
const HEALTHY = 4;

/** When each healthy receiver got each message (by chat message id), in ms. */
const arrivals: Array<Map<number, number>> = Array.from({ length: HEALTHY }, () => new Map());
let duplicates = 0;

async function startReceivers(): Promise<{ urls: string[]; deadUrl: string }> {
  // The healthy receivers run on a worker thread (see webhook_receivers.ts).
  const worker = new Worker(new URL("./webhook_receivers.ts", import.meta.url).href, {
    type: "module",
  });
  onCleanup(() => worker.terminate());
  const urls = await new Promise<string[]>((resolve) => {
    worker.onmessage = ({ data }: MessageEvent<ReceiversMessage>) => {
      if (data.type === "ready") resolve(data.urls);
      else {
        duplicates = data.duplicates;
        // On this thread's clock, as the answers' times are.
        for (const [i, id, at] of data.list) arrivals[i]!.set(id, at - performance.timeOrigin);
      }
    };
    worker.postMessage({ count: HEALTHY });
  });
  // The dead receiver: accepts connections, never reads, never answers.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held = new Set<Deno.Conn>();
  void (async () => {
    try {
      for await (const conn of listener) held.add(conn);
    } catch { /* closed */ }
  })();
  onCleanup(() => {
    listener.close();
    for (const conn of held) {
      try {
        conn.close();
      } catch { /* gone */ }
    }
  });
  return { urls, deadUrl: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}/hook` };
}

async function call(
  url: string,
  method: string,
  body: unknown,
  cookie: string | null,
  expect: number,
): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (cookie) headers.cookie = cookie;
  const res = await fetch(url, { method, headers, body: JSON.stringify(body) });
  if (res.status !== expect) {
    throw new BenchError(
      `${method} ${url}: expected ${expect}, got ${res.status}: ${await res.text()}`,
    );
  }
  return res;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Sends `count` chat messages, `concurrency` at a time; latencies and answer times by message id. */
async function burst(
  base: string,
  cookie: string,
  projectId: number,
  options: { count: number; concurrency: number; label: string },
): Promise<{ latencies: number[]; answered: Map<number, number>; errors: number }> {
  const latencies: number[] = [];
  const answered = new Map<number, number>();
  let next = 0;
  let errors = 0;
  const worker = async () => {
    while (next < options.count) {
      const i = next++;
      const started = performance.now();
      const res = await fetch(`${base}/api/projects/${projectId}/chat/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", cookie },
        body: JSON.stringify({ text: `${options.label} ${i}` }),
      });
      const text = await res.text();
      const done = performance.now();
      if (res.status !== 201) {
        errors++;
        continue;
      }
      latencies.push(done - started);
      answered.set((JSON.parse(text) as { message: { id: number } }).message.id, done);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  latencies.sort((a, b) => a - b);
  return { latencies, answered, errors };
}

async function run(): Promise<boolean> {
  const events = envNumber("BENCH_EVENTS", 1000, 1);
  const rounds = envNumber("BENCH_ROUNDS", 3, 1);
  const concurrency = envNumber("BENCH_CONCURRENCY", 16, 1);
  const warmup = envNumber("BENCH_WARMUP", 200, 0);
  await readClockTicks();
  const { urls, deadUrl } = await startReceivers();

  const { server, dataDir } = await startServer("webhook-bench-", {
    WEBHOOK_ALLOW_HOSTS: "127.0.0.1",
  });
  const pid = server.child.pid;
  let peakRss = 0;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, procStatusKib(pid, "VmRSS") ?? 0);
  }, 100);
  onCleanup(() => clearInterval(sampler));

  const base = server.url;
  const registered = await call(
    `${base}/api/auth/register`,
    "POST",
    {
      email: "owner@bench.example",
      password: "webhook-benchmark-password",
      displayName: "Owner",
    },
    null,
    201,
  );
  const cookie = registered.headers.getSetCookie().find((c) => c.startsWith("session="))!
    .split(";")[0]!;
  await registered.body?.cancel();
  const project = async (name: string) =>
    ((await (await call(`${base}/api/projects`, "POST", { name }, cookie, 201)).json()) as {
      project: { id: number };
    }).project.id;
  const plain = await project("plain");
  const hooked = await project("hooked");
  for (const url of [...urls, deadUrl]) {
    const res = await call(
      `${base}/api/projects/${hooked}/webhooks`,
      "POST",
      { url, events: ["*"] },
      cookie,
      201,
    );
    await res.body?.cancel();
  }

  const waitForDeliveries = async (ids: Iterable<number>, ms: number) => {
    const wanted = [...ids];
    const deadline = performance.now() + ms;
    while (performance.now() < deadline) {
      if (arrivals.every((seen) => wanted.every((id) => seen.has(id)))) return true;
      await new Promise((r) => setTimeout(r, 50));
    }
    return false;
  };

  if (warmup > 0) {
    await burst(base, cookie, plain, { count: warmup, concurrency, label: "warm-up" });
    const w = await burst(base, cookie, hooked, { count: warmup, concurrency, label: "warm-up" });
    await waitForDeliveries(w.answered.keys(), 30_000);
  }

  const ratios: number[] = [];
  let worstDelivery = 0;
  let missing = 0;
  let errors = 0;
  let acknowledged = 0;
  /** RSS at the end of each round (MiB). */
  const rssByRound: number[] = [];
  const lines: string[] = [];
  for (let round = 1; round <= rounds; round++) {
    const cpu0 = cpuSeconds(pid);
    const t0 = performance.now();
    const a = await burst(base, cookie, plain, { count: events, concurrency, label: "plain" });
    const cpu1 = cpuSeconds(pid);
    const t1 = performance.now();
    const b = await burst(base, cookie, hooked, { count: events, concurrency, label: "hooked" });
    const cpu2 = cpuSeconds(pid);
    const t2 = performance.now();
    errors += a.errors + b.errors;
    acknowledged += b.answered.size;
    const complete = await waitForDeliveries(b.answered.keys(), 30_000);
    const cpu3 = cpuSeconds(pid);
    const t3 = performance.now();
    const delays: number[] = [];
    for (const seen of arrivals) {
      for (const [id, answeredAt] of b.answered) {
        const at = seen.get(id);
        if (at === undefined) missing++;
        else delays.push(at - answeredAt);
      }
    }
    delays.sort((x, y) => x - y);
    const worst = delays.at(-1) ?? NaN;
    worstDelivery = Math.max(worstDelivery, worst);
    const p99a = percentile(a.latencies, 99);
    const p99b = percentile(b.latencies, 99);
    ratios.push(p99b / p99a);
    const rss = (procStatusKib(pid, "VmRSS") ?? 0) / 1024;
    rssByRound.push(rss);
    lines.push(
      `round ${round}: request p50/p99 plain ${percentile(a.latencies, 50).toFixed(1)}/` +
        `${p99a.toFixed(1)} ms, hooked ${percentile(b.latencies, 50).toFixed(1)}/` +
        `${p99b.toFixed(1)} ms (ratio ${(p99b / p99a).toFixed(3)}); delivery p50/p99/max ` +
        `${percentile(delays, 50).toFixed(0)}/${percentile(delays, 99).toFixed(0)}/` +
        `${worst.toFixed(0)} ms${complete ? "" : " (INCOMPLETE)"}; RSS ${rss.toFixed(1)} MiB; ` +
        `server CPU s / wall s: plain burst ${(cpu1 - cpu0).toFixed(2)}/${
          ((t1 - t0) / 1000).toFixed(2)
        }, hooked burst ${(cpu2 - cpu1).toFixed(2)}/${((t2 - t1) / 1000).toFixed(2)}, ` +
        `rest of delivery ${(cpu3 - cpu2).toFixed(2)}/${((t3 - t2) / 1000).toFixed(2)}`,
    );
    console.log(lines.at(-1));
  }
  clearInterval(sampler);
  const hwm = Math.max(peakRss, procStatusKib(pid, "VmHWM") ?? 0) / 1024;

  const stopping = performance.now();
  const status = await stop(server);
  const stopMs = performance.now() - stopping;

  const db = new DatabaseSync(join(dataDir, "collab.db"), { readOnly: true });
  const integrity = (db.prepare("PRAGMA integrity_check").get() as { integrity_check: string })
    .integrity_check;
  const rows = db.prepare(
    `SELECT w.url AS url, d.status AS status, count(*) AS n FROM webhook_deliveries d
     JOIN webhooks w ON w.id = d.webhook_id GROUP BY w.url, d.status`,
  ).all() as Array<{ url: string; status: string; n: number }>;
  db.close();
  const total = rows.reduce((sum, r) => sum + r.n, 0);
  const healthyNotDone = rows.filter((r) => r.url !== deadUrl && r.status !== "succeeded")
    .reduce((sum, r) => sum + r.n, 0);
  const expectedRows = 5 * (acknowledged + (warmup > 0 ? warmup : 0));

  const median = [...ratios].sort((x, y) => x - y)[Math.floor(ratios.length / 2)]!;
  // Bounded means a plateau: the last round ends no higher than the rounds before it did
  // (give or take 32 MiB). The first rounds grow the heap and SQLite's cache to their
  // working size; that step is reported, not judged.
  const growth = rssByRound.length < 2
    ? 0
    : rssByRound.at(-1)! - Math.max(...rssByRound.slice(0, -1));
  const checks: Array<[string, boolean, string]> = [
    [
      `median p99 ratio <= ${TARGET_P99_RATIO}`,
      median <= TARGET_P99_RATIO,
      median.toFixed(3),
    ],
    [
      `every healthy delivery within ${TARGET_DELIVERY_MS} ms`,
      missing === 0 && worstDelivery <= TARGET_DELIVERY_MS,
      `worst ${worstDelivery.toFixed(0)} ms, missing ${missing}, duplicates ${duplicates}`,
    ],
    [`peak RSS <= ${TARGET_PEAK_RSS_MIB} MiB`, hwm <= TARGET_PEAK_RSS_MIB, `${hwm.toFixed(1)} MiB`],
    [
      `RSS plateau: last round at most ${TARGET_RSS_GROWTH_MIB} MiB above every earlier round`,
      growth <= TARGET_RSS_GROWTH_MIB,
      `${growth.toFixed(1)} MiB`,
    ],
    ["no failed requests", errors === 0, String(errors)],
    ["SIGTERM exits 0", status.code === 0, `code ${status.code} after ${stopMs.toFixed(0)} ms`],
    [
      "delivery rows = 5 per acknowledged message",
      total === expectedRows,
      `${total}/${expectedRows}`,
    ],
    ["healthy deliveries all succeeded", healthyNotDone === 0, `${healthyNotDone} not`],
    ["integrity_check ok", integrity === "ok", integrity],
  ];
  console.log(
    `RSS at the end of each round: ${rssByRound.map((r) => r.toFixed(1)).join(", ")} MiB`,
  );
  console.log(
    `\n${events} events per burst, ${rounds} rounds, ${concurrency} at a time, ` +
      `5 webhooks (1 never answers)`,
  );
  let ok = true;
  for (const [name, pass, value] of checks) {
    console.log(`${pass ? "ok  " : "FAIL"} ${name}: ${value}`);
    ok &&= pass;
  }
  return ok;
}

if (import.meta.main) await runMain(run);
