/**
 * A project used for years: 100,000 to-do items (with 5,000 threads, 10,000 comments, 5,000
 * notes, 20,000 chat messages, 2,000 events, 1,000 meetings; bench/archive_seed.ts) in one
 * project, then every project page and list route timed over HTTP, warm: each must answer in
 * under 100 ms at p95 and weigh under 300 KB.
 *
 *   deno run -A bench/project_scale_bench.ts
 *
 * BENCH_ITEMS (100000), BENCH_RUNS (30 timed requests per route, after 3 warm-up ones).
 * Exits 1 when a route misses either target, or answers anything but 200.
 */
import { seed } from "./archive_seed.ts";
import { BenchError, envNumber, runMain, startServer } from "./harness.ts";

const P95_MS = 100;
const MAX_BYTES = 300 * 1000;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
}

await runMain(async () => {
  const items = envNumber("BENCH_ITEMS", 100_000, 1);
  const runs = envNumber("BENCH_RUNS", 30, 5);
  const { server, dataDir } = await startServer("project-scale-bench-");
  const base = server.url;
  const registered = await fetch(`${base}/api/auth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      email: "owner@bench.example",
      password: "project-scale-pw",
      displayName: "Owner",
    }),
  });
  if (registered.status !== 201) throw new BenchError(`register: ${registered.status}`);
  const cookie = registered.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const ownerId = ((await registered.json()) as { user: { id: number } }).user.id;
  const created = await fetch(`${base}/api/projects`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie },
    body: JSON.stringify({ name: "Years" }),
  });
  if (created.status !== 201) throw new BenchError(`create project: ${created.status}`);
  const p = ((await created.json()) as { project: { id: number } }).project.id;

  console.log(`seeding ${items} to-do items and the rest into project ${p} ...`);
  const started = performance.now();
  const counts = seed(dataDir, { projectId: p, ownerId, items, fileMib: 0, fileSizeMib: 1 });
  console.log(
    `seeded in ${((performance.now() - started) / 1000).toFixed(0)} s: ${JSON.stringify(counts)}`,
  );
  const columns = ((await (await fetch(`${base}/api/projects/${p}/todos/columns`, {
    headers: { cookie },
  })).json()) as { items: Array<{ id: number }> }).items;

  const routes = [
    "/",
    `/projects/${p}`,
    `/projects/${p}/board`,
    `/projects/${p}/notes`,
    `/projects/${p}/chat`,
    `/projects/${p}/todos`,
    `/projects/${p}/calendar`,
    `/projects/${p}/milestones`,
    `/projects/${p}/meetings`,
    `/projects/${p}/files`,
    `/projects/${p}/activity`,
    `/projects/${p}/trash`,
    `/projects/${p}/search?q=design`,
    `/search?q=design`,
    "/api/dashboard",
    `/api/projects/${p}/dashboard`,
    `/api/projects/${p}/board/threads`,
    `/api/projects/${p}/notes`,
    `/api/projects/${p}/chat/messages`,
    `/api/projects/${p}/todos/columns`,
    ...columns.map((c) => `/api/projects/${p}/todos/items?columnId=${c.id}`),
    `/api/projects/${p}/calendar?from=2025-01-01T00:00:00.000Z&to=2025-02-01T00:00:00.000Z`,
    `/api/projects/${p}/milestones`,
    `/api/projects/${p}/meetings`,
    `/api/projects/${p}/files`,
    `/api/projects/${p}/activity`,
    `/api/projects/${p}/members`,
    `/api/projects/${p}/trash`,
    `/api/projects/${p}/search?q=design`,
    "/api/search?q=design",
    "/api/notifications",
  ];

  let failed = false;
  console.log("\nroute | status | bytes | p50 ms | p95 ms | verdict");
  for (const route of routes) {
    const times: number[] = [];
    let bytes = 0;
    let status = 0;
    for (let i = 0; i < runs + 3; i++) {
      const t0 = performance.now();
      const res = await fetch(`${base}${route}`, { headers: { cookie } });
      const body = await res.arrayBuffer();
      const ms = performance.now() - t0;
      status = res.status;
      bytes = body.byteLength;
      if (i >= 3) times.push(ms);
    }
    times.sort((a, b) => a - b);
    const p95 = percentile(times, 0.95);
    const ok = status === 200 && p95 < P95_MS && bytes < MAX_BYTES;
    if (!ok) failed = true;
    console.log(
      `${route} | ${status} | ${bytes} | ${percentile(times, 0.5).toFixed(1)} | ${
        p95.toFixed(1)
      } | ${ok ? "PASS" : "FAIL"}`,
    );
  }
  return !failed;
});
