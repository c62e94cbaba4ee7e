/**
 * Write throughput with a subscribed webhook: a thread create (whose `board.thread.created`
 * is new with issue 33) against a chat message (`chat.message.created`, as before), each in a
 * project with one webhook subscribed to every event, its receiver in this process
 * answering 204 at once.
 *
 * It starts the real server (`main.ts` as `deno task start` runs it, fresh data directory,
 * `WEBHOOK_ALLOW_HOSTS=127.0.0.1`), registers an owner, makes the project and its webhook,
 * then per round sends BENCH_WRITES chat messages and BENCH_WRITES threads, BENCH_CONCURRENCY
 * requests at a time, alternating which goes first, and reports requests per second and p50/p99
 * latency of each, and the ratio threads/chat. The deliveries are checked at the end (every
 * write delivered once). No target: a comparison, recorded in bench/README.md.
 *
 * Environment: BENCH_WRITES (500), BENCH_ROUNDS (3), BENCH_CONCURRENCY (8), BENCH_WARMUP (100).
 */
import { BenchError, envNumber, onCleanup, runMain, startServer, stop } from "./harness.ts";

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

async function call(url: string, body: unknown, cookie: string | null, expect: number) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (cookie) headers.cookie = cookie;
  const res = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
  if (res.status !== expect) {
    throw new BenchError(`POST ${url}: expected ${expect}, got ${res.status}: ${await res.text()}`);
  }
  return res;
}

type Kind = "chat" | "thread";

/** Sends `count` writes of `kind`, `concurrency` at a time: per second and latencies. */
async function burst(
  base: string,
  cookie: string,
  projectId: number,
  kind: Kind,
  count: number,
  concurrency: number,
): Promise<{ perSecond: number; p50: number; p99: number }> {
  const url = kind === "chat"
    ? `${base}/api/projects/${projectId}/chat/messages`
    : `${base}/api/projects/${projectId}/board/threads`;
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const body = kind === "chat"
        ? { text: `message ${i}` }
        : { title: `thread ${i}`, body: "body", category: "general" };
      const t0 = performance.now();
      const res = await call(url, body, cookie, 201);
      await res.body?.cancel();
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    perSecond: count / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

async function run(): Promise<boolean> {
  const writes = envNumber("BENCH_WRITES", 500, 1);
  const rounds = envNumber("BENCH_ROUNDS", 3, 1);
  const concurrency = envNumber("BENCH_CONCURRENCY", 8, 1);
  const warmup = envNumber("BENCH_WARMUP", 100, 0);
  let delivered = 0;
  const receiver = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (req) => {
      await req.body?.cancel();
      delivered++;
      return new Response(null, { status: 204 });
    },
  );
  onCleanup(() => receiver.shutdown());
  const { server } = await startServer("event-write-bench-", { WEBHOOK_ALLOW_HOSTS: "127.0.0.1" });
  const base = server.url;
  const registered = await call(
    `${base}/api/auth/register`,
    {
      email: "owner@bench.example",
      password: "event-write-benchmark",
      displayName: "Owner",
    },
    null,
    201,
  );
  const cookie = registered.headers.getSetCookie().find((c) => c.startsWith("session="))!
    .split(";")[0]!;
  await registered.body?.cancel();
  const project =
    ((await (await call(`${base}/api/projects`, { name: "p" }, cookie, 201)).json()) as {
      project: { id: number };
    }).project.id;
  const hook = await call(
    `${base}/api/projects/${project}/webhooks`,
    {
      url: `http://127.0.0.1:${receiver.addr.port}/hook`,
      events: ["*"],
    },
    cookie,
    201,
  );
  await hook.body?.cancel();

  for (const kind of ["chat", "thread"] as const) {
    await burst(base, cookie, project, kind, warmup, concurrency);
  }
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const order: Kind[] = round % 2 === 0 ? ["chat", "thread"] : ["thread", "chat"];
    const result = new Map<Kind, Awaited<ReturnType<typeof burst>>>();
    for (const kind of order) {
      result.set(kind, await burst(base, cookie, project, kind, writes, concurrency));
    }
    const chat = result.get("chat")!;
    const thread = result.get("thread")!;
    ratios.push(thread.perSecond / chat.perSecond);
    const f = (n: number) => n.toFixed(1);
    console.log(
      `round ${round + 1}: chat ${f(chat.perSecond)}/s (p50 ${f(chat.p50)} ms, p99 ${
        f(chat.p99)
      } ms), thread ${f(thread.perSecond)}/s (p50 ${f(thread.p50)} ms, p99 ${
        f(thread.p99)
      } ms), threads/chat ${ratios.at(-1)!.toFixed(3)}`,
    );
  }
  const expected = (warmup + writes * rounds) * 2;
  const deadline = performance.now() + 30_000;
  while (delivered < expected && performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
  }
  ratios.sort((a, b) => a - b);
  console.log(
    `median threads/chat ${
      ratios[Math.floor(ratios.length / 2)]!.toFixed(3)
    }; deliveries ${delivered} of ${expected}`,
  );
  const status = await stop(server);
  return delivered === expected && status.success;
}

await runMain(run);
