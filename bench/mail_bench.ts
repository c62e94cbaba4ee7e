/**
 * Mail benchmark: a backlog of queued mails drains to a local SMTP server while the API is
 * under load.
 *
 * It starts the real server (`main.ts` as `deno task start` runs it, fresh data directory,
 * `SMTP_URL` to a receiver on a worker thread of this process, `bench/mail_receiver.ts`: a
 * minimal SMTP sink, or npm smtp-server with BENCH_RECEIVER=smtp-server)
 * and registers an owner with a project of 200 chat messages. Then, per round:
 *
 * 1. **With mail**: BENCH_MAILS mails (about the size of a notification mail: a text and an
 *    HTML part, 3 KB) are queued into the outbox in one transaction, through the domain's own
 *    `queueMail` on the server's database file, and a test mail through the API wakes the
 *    sender. While they drain, API requests arrive at BENCH_RATE a second, on time whether
 *    or not the earlier ones were answered (an open load, as from many people: four
 *    `GET …/chat/messages` to one `POST …/chat/messages`, the writes contending with the
 *    sender's for the database), until the receiver has every mail; each request's latency is
 *    recorded, and the server's RSS every 100 ms. (A closed load of clients that each send
 *    their next request at once keeps the server 100% busy, and then any work beside the
 *    requests, mail or not, shows in their latency and waits for its turn: it measures
 *    saturation, not the cost of mail.)
 * 2. **Without mail**: the same number of the same requests, with the outbox empty.
 *
 * Targets: the drain at 200 mails/s or more (mails over the time from the wake to the last
 * mail's arrival); the median over rounds of p99(with mail) / p99(without) at most 1.20; the
 * sender's memory flat: the RSS at the end of each drain at most 32 MiB above the RSS before
 * it; no mail received twice, every mail `sent`.
 *
 * Environment: BENCH_MAILS (10000), BENCH_ROUNDS (3), BENCH_RATE (200 requests/s),
 * BENCH_RECEIVER (sink). Linux only
 * (/proc). Exits 1 when a target or check fails, 2 when the benchmark cannot run.
 */
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { openSqliteEngine } from "../db/sqlite/sqlite_engine.ts";
import { queueMail } from "../domain/mail/outbox.ts";
import {
  BenchError,
  envNumber,
  onCleanup,
  procStatusKib,
  runMain,
  startServer,
  stop,
} from "./harness.ts";
import type { ReceiverMessage } from "./mail_receiver.ts";

const TARGET_RATE = 200;
const TARGET_P99_RATIO = 1.2;
const TARGET_RSS_GROWTH_MIB = 32;
const HOST = "bench.example";

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The receiver on its worker: its port, and a way to ask for its counts. */
async function startReceiver() {
  const worker = new Worker(new URL("./mail_receiver.ts", import.meta.url).href, {
    type: "module",
  });
  onCleanup(() => worker.terminate());
  let answer: ((m: ReceiverMessage & { type: "count" }) => void) | null = null;
  const port = await new Promise<number>((resolve) => {
    worker.onmessage = ({ data }: MessageEvent<ReceiverMessage>) => {
      if (data.type === "ready") resolve(data.port);
      else answer?.(data);
    };
  });
  const count = () =>
    new Promise<ReceiverMessage & { type: "count" }>((resolve) => {
      answer = resolve;
      worker.postMessage("count");
    });
  return { port, count };
}

/** A mail about as big as a notification mail. */
function draft(i: number) {
  const line = `Ann mentioned you in "Release checklist ${i}": please look at the rollout plan. `;
  return {
    to: `person${i % 500}@bench.example`,
    kind: "bench",
    subject: `[Bench] Ann mentioned you in Release checklist ${i}`,
    text: line.repeat(12),
    html: `<html><body>${`<p>${line}</p>`.repeat(18)}</body></html>`,
    headers: { "List-Id": `<project-1.${HOST}>` },
  };
}

async function run(): Promise<boolean> {
  const mails = envNumber("BENCH_MAILS", 10_000, 1);
  const rounds = envNumber("BENCH_ROUNDS", 3, 1);
  const requestRate = envNumber("BENCH_RATE", 200, 1);
  const receiver = await startReceiver();
  const { server, dataDir } = await startServer("mail-bench-", {
    SMTP_URL: `smtp://127.0.0.1:${receiver.port}`,
    BASE_URL: `http://${HOST}`,
  });
  const pid = server.child.pid;
  const base = server.url;
  const registered = await fetch(`${base}/api/auth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      email: "owner@bench.example",
      password: "mail-benchmark-password",
      displayName: "Owner",
    }),
  });
  if (registered.status !== 201) throw new BenchError(`register: ${registered.status}`);
  const cookie = registered.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  await registered.body?.cancel();
  const json = { "content-type": "application/json", cookie };
  const created = await fetch(`${base}/api/projects`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({ name: "Mail bench" }),
  });
  const projectId = ((await created.json()) as { project: { id: number } }).project.id;
  const messages = `${base}/api/projects/${projectId}/chat/messages`;
  for (let i = 0; i < 200; i++) {
    const res = await fetch(messages, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ text: `seed ${i}` }),
    });
    await res.body?.cancel();
  }

  /** One API request of the mix; its latency in ms. */
  let sent = 0;
  const request = async (): Promise<number> => {
    const write = sent++ % 5 === 4;
    const t0 = performance.now();
    const res = await fetch(write ? messages : `${messages}?limit=50`, {
      method: write ? "POST" : "GET",
      headers: json,
      ...(write ? { body: JSON.stringify({ text: `load ${sent}` }) } : {}),
    });
    await res.arrayBuffer();
    if (res.status !== (write ? 201 : 200)) throw new BenchError(`load: ${res.status}`);
    return performance.now() - t0;
  };
  /**
   * An open load: a request every `1 / requestRate` s, sent on time whether or not the earlier ones
   * were answered (a slower server gets more requests in flight, as from many users), until
   * `done()` (or `count` requests); the sorted latencies.
   */
  const load = async (until: { done?: () => boolean; count?: number }) => {
    const latencies: number[] = [];
    const inFlight = new Set<Promise<void>>();
    const start = performance.now();
    for (let i = 0; until.done ? !until.done() : i < until.count!; i++) {
      const wait = start + (i * 1000) / requestRate - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const p: Promise<void> = request().then((ms) => {
        latencies.push(ms);
      }).finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
    await Promise.all(inFlight);
    return latencies.sort((a, b) => a - b);
  };
  await load({ count: 500 });

  const engine = openSqliteEngine(join(dataDir, "collab.db"));
  onCleanup(() => engine.close());
  const ratios: number[] = [];
  const rates: number[] = [];
  let growthWorst = 0;
  let expected = 1; // the warm-up's test mail below
  const wakeMail = async () => {
    const res = await fetch(`${base}/api/admin/mail/test`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ to: "wake@bench.example" }),
    });
    if (res.status !== 202) throw new BenchError(`test mail: ${res.status}`);
    await res.body?.cancel();
  };
  await wakeMail();
  while ((await receiver.count()).received < expected) {
    await new Promise((r) => setTimeout(r, 50));
  }

  for (let round = 1; round <= rounds; round++) {
    const now = new Date();
    await engine.transaction(async (tx) => {
      for (let i = 0; i < mails; i++) {
        await queueMail(tx, draft(round * mails + i), { now, host: HOST });
      }
    });
    expected += mails + 1;
    // The queued rows go from the write-ahead log into the database file now: left there, the
    // server's first checkpoint during the drain would copy them (70 MB for 10,000 mails) on
    // the requests' thread, and the bench would time the bulk insert, not the sending.
    const file = new DatabaseSync(join(dataDir, "collab.db"));
    try {
      file.exec("PRAGMA busy_timeout = 5000");
      file.prepare("PRAGMA wal_checkpoint(TRUNCATE)").get();
    } finally {
      file.close();
    }
    const rssBefore = (procStatusKib(pid, "VmRSS") ?? 0) / 1024;
    let peak = rssBefore;
    const sampler = setInterval(() => {
      peak = Math.max(peak, (procStatusKib(pid, "VmRSS") ?? 0) / 1024);
    }, 100);
    let drained = false;
    let received = 0;
    const t0 = performance.timeOrigin + performance.now();
    await wakeMail();
    const watcher = (async () => {
      while (!drained) {
        const c = await receiver.count();
        received = c.received;
        if (c.duplicates > 0) throw new BenchError(`${c.duplicates} mails received twice`);
        if (received >= expected) {
          drained = true;
          return c.lastAt;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      return NaN;
    })();
    const withMail = await load({ done: () => drained });
    const lastAt = await watcher;
    clearInterval(sampler);
    const rssAfter = (procStatusKib(pid, "VmRSS") ?? 0) / 1024;
    const seconds = (lastAt - t0) / 1000;
    const rate = (mails + 1) / seconds;
    const without = await load({ count: withMail.length });
    const ratio = percentile(withMail, 99) / percentile(without, 99);
    ratios.push(ratio);
    rates.push(rate);
    growthWorst = Math.max(growthWorst, rssAfter - rssBefore);
    console.log(
      `round ${round}: ${mails + 1} mails in ${seconds.toFixed(1)} s = ${rate.toFixed(0)}/s; ` +
        `${withMail.length} requests, p50/p99 with mail ${percentile(withMail, 50).toFixed(1)}/` +
        `${percentile(withMail, 99).toFixed(1)} ms, without ${
          percentile(without, 50).toFixed(1)
        }/` +
        `${percentile(without, 99).toFixed(1)} ms (ratio ${ratio.toFixed(2)}); RSS ` +
        `${rssBefore.toFixed(0)} -> peak ${peak.toFixed(0)} -> ${rssAfter.toFixed(0)} MiB`,
    );
  }

  const left = await engine.read((q) =>
    q.get<{ n: number }>("SELECT count(*) AS n FROM mail_outbox WHERE status <> 'sent'")
  );
  const stopped = await stop(server);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const rate = median(rates);
  const ratio = median(ratios);
  const checks: Array<[string, boolean]> = [
    [`drain rate (median) ${rate.toFixed(0)}/s >= ${TARGET_RATE}/s`, rate >= TARGET_RATE],
    [
      `p99 with mail / without (median) ${ratio.toFixed(2)} <= ${TARGET_P99_RATIO}`,
      ratio <= TARGET_P99_RATIO,
    ],
    [
      `RSS growth over a drain (worst) ${growthWorst.toFixed(1)} MiB <= ${TARGET_RSS_GROWTH_MIB}`,
      growthWorst <= TARGET_RSS_GROWTH_MIB,
    ],
    [`every mail sent (left: ${Number(left!.n)})`, Number(left!.n) === 0],
    [`SIGTERM exits 0 (${stopped.code})`, stopped.code === 0],
  ];
  for (const [what, ok] of checks) console.log(`${ok ? "PASS" : "FAIL"} ${what}`);
  return checks.every(([, ok]) => ok);
}

await runMain(run);
