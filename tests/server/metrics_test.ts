/**
 * Running it like a service (operations: "Metrics", "Logs and request ids"): `GET /metrics`
 * behind METRICS_TOKEN in the Prometheus text format that `promtool check metrics` accepts,
 * with route templates as labels and values that move with requests; a real Prometheus
 * scrapes it; X-Request-Id on every response and in JSON log lines; no secret in any line.
 *
 * Outside CI a missing `promtool` or `prometheus` (Debian's `prometheus`) skips those cases
 * loudly; in CI it is a failure.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type TestApp, testApp, testServer } from "../helpers/app.ts";
import {
  api,
  createProject,
  eventually,
  expectJson,
  openSse,
  PASSWORD,
  signUp,
} from "../helpers/api.ts";
import { application, envelope, post } from "../helpers/soap.ts";
import { isoNow, requestLog } from "../../routes/middleware/request_log.ts";

const TOKEN = "metrics-token-0123456789abcdef";
const PROMTOOL = "/usr/bin/promtool";
const PROMETHEUS = "/usr/bin/prometheus";
const inCi = Deno.env.get("CI") === "true";

function installed(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}
const promtoolMissing = !installed(PROMTOOL);
const prometheusMissing = !installed(PROMETHEUS);
if ((promtoolMissing || prometheusMissing) && !inCi) {
  console.warn(
    `\n!!! WARNING: ${PROMTOOL} or ${PROMETHEUS} is not installed: the Prometheus tests are ` +
      "SKIPPED. Install Debian's prometheus. !!!\n",
  );
}

/** The scrape as text. */
async function scrape(t: TestApp): Promise<string> {
  const res = await t.app.request("/metrics", { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(res.status, 200);
  return await res.text();
}

/** The value of the sample `name{labels}` exactly as written, or 0 when absent. */
function sample(text: string, series: string): number {
  for (const line of text.split("\n")) {
    if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1));
  }
  return 0;
}

Deno.test("GET /metrics is 404 without METRICS_TOKEN, 401 without or with a wrong token", async () => {
  const off = await testApp();
  try {
    const res = await off.app.request("/metrics", {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    assert.equal(res.status, 404);
    await res.body?.cancel();
  } finally {
    await off.close();
  }
  const t = await testApp({ env: { METRICS_TOKEN: TOKEN } });
  try {
    for (
      const authorization of [null, `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(1)}`, TOKEN, "Bearer"]
    ) {
      const res = await t.app.request("/metrics", {
        headers: authorization === null ? {} : { authorization },
      });
      assert.equal(res.status, 401, `${authorization}`);
      await res.body?.cancel();
    }
    const res = await t.app.request("/metrics", {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
    const text = await res.text();
    for (
      const name of [
        "http_requests_total",
        "http_request_duration_seconds",
        "soap_requests_total",
        "loan_decisions_total",
        "sse_streams_open",
        "events_published_total",
        "webhook_deliveries_total",
        "webhook_outbox_pending",
        "mail_sent_total",
        "mail_outbox_pending",
        "db_transaction_duration_seconds",
        "process_cpu_seconds_total",
        "process_resident_memory_bytes",
        "process_open_fds",
        "process_start_time_seconds",
        "collab_build_info",
      ]
    ) {
      assert.match(text, new RegExp(`^# TYPE ${name} `, "m"), name);
    }
    assert.match(
      text,
      new RegExp(`^collab_build_info\\{version="[^"]+",engine="${t.sql.kind}"\\} 1$`, "m"),
    );
  } finally {
    await t.close();
  }
});

Deno.test("metrics move with requests: SOAP calls and loan decisions, route templates (never ids), unmatched paths, events and transactions", async () => {
  const t = await testApp({ env: { METRICS_TOKEN: TOKEN } });
  try {
    const before = await scrape(t);
    const approved =
      'loan_decisions_total{approved="true",reason="Loan approved with excellent rate"}';
    assert.equal(sample(before, approved), 0);
    assert.equal((await post(t, "/loan", application("Ada", 1000))).status, 200);
    const fault = await post(t, "/loan", application("", 1000));
    assert.equal(fault.status, 500);
    const hello = envelope("<soap:getHelloWorld><arg0>Ada</arg0></soap:getHelloWorld>");
    assert.equal((await post(t, "/hello", hello)).status, 200);

    const { cookie } = await signUp(t, "ada@example.com");
    const project = await createProject(t, cookie, "Apollo");
    expectJson(
      await api(t, "POST", `/api/projects/${project.id}/chat/messages`, {
        cookie,
        body: { text: "hello" },
      }),
      201,
    );
    await api(t, "GET", "/no/such/path/12345");
    await api(t, "GET", `/api/projects/${project.id}/notes`);

    const after = await scrape(t);
    assert.equal(sample(after, approved), 1);
    assert.equal(
      sample(after, 'soap_requests_total{operation="processLoanApplication",outcome="ok"}'),
      1,
    );
    assert.equal(
      sample(after, 'soap_requests_total{operation="processLoanApplication",outcome="fault"}'),
      1,
    );
    assert.equal(sample(after, 'soap_requests_total{operation="getHelloWorld",outcome="ok"}'), 1);
    assert.equal(sample(after, 'http_requests_total{method="POST",route="/loan",status="200"}'), 1);
    assert.equal(
      sample(
        after,
        'http_requests_total{method="POST",route="/api/projects/:projectId/chat/messages",status="201"}',
      ),
      1,
    );
    // Refused before its route ran (no session): still counted under the route's template.
    assert.equal(
      sample(
        after,
        'http_requests_total{method="GET",route="/api/projects/:projectId/notes",status="401"}',
      ),
      1,
    );
    // (Anonymous: the pages send a sign-in redirect rather than their 404.)
    assert.match(after, /^http_requests_total\{method="GET",route="unmatched",status="\d+"\} 1$/m);
    assert.ok(!after.includes("12345"), "no raw path in a label");
    assert.ok(!after.includes(`/api/projects/${project.id}/`), "no id in a label");
    assert.ok(sample(after, "events_published_total") >= 1);
    assert.ok(
      sample(after, "db_transaction_duration_seconds_count") >
        sample(before, "db_transaction_duration_seconds_count"),
    );
  } finally {
    await t.close();
  }
});

Deno.test("an open event stream shows in sse_streams_open", async () => {
  const t = await testServer({ env: { METRICS_TOKEN: TOKEN } });
  try {
    const { cookie } = await signUp(t, "ada@example.com");
    const project = await createProject(t, cookie, "Apollo");
    assert.equal(sample(await scrape(t), "sse_streams_open"), 0);
    const stream = await openSse(t.baseUrl, cookie, project.id);
    try {
      assert.equal(stream.res.status, 200);
      assert.equal(sample(await scrape(t), "sse_streams_open"), 1);
    } finally {
      await stream.close();
    }
  } finally {
    await t.close();
  }
});

Deno.test({
  name: "the metrics pass promtool check metrics",
  ignore: promtoolMissing && !inCi,
  async fn() {
    const t = await testApp({ env: { METRICS_TOKEN: TOKEN } });
    try {
      await post(t, "/loan", application("Ada", 1000));
      await api(t, "GET", "/healthz");
      const child = new Deno.Command(PROMTOOL, {
        args: ["check", "metrics"],
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode(await scrape(t)));
      await writer.close();
      const { code, stdout, stderr } = await child.output();
      const said = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
      assert.equal(code, 0, said);
      assert.equal(said.trim(), "", "no lint problem either");
    } finally {
      await t.close();
    }
  },
});

/** A free TCP port on loopback. */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

Deno.test({
  name: "a real Prometheus scrapes the server with the token and answers a query",
  ignore: prometheusMissing && !inCi,
  async fn() {
    const t = await testServer({ env: { METRICS_TOKEN: TOKEN } });
    const dir = await Deno.makeTempDir({ prefix: "collab-prometheus-" });
    let child: Deno.ChildProcess | null = null;
    try {
      await api(t, "GET", "/healthz");
      const target = new URL(t.baseUrl).host;
      await Deno.writeTextFile(join(dir, "token"), TOKEN);
      await Deno.writeTextFile(
        join(dir, "prometheus.yml"),
        [
          "global:",
          "  scrape_interval: 1s",
          "scrape_configs:",
          "  - job_name: collab",
          "    authorization:",
          `      credentials_file: ${join(dir, "token")}`,
          "    static_configs:",
          `      - targets: ["${target}"]`,
          "",
        ].join("\n"),
      );
      const port = freePort();
      child = new Deno.Command(PROMETHEUS, {
        args: [
          `--config.file=${join(dir, "prometheus.yml")}`,
          `--storage.tsdb.path=${join(dir, "data")}`,
          `--web.listen-address=127.0.0.1:${port}`,
        ],
        stdout: "null",
        stderr: "null",
      }).spawn();
      const query = `http://127.0.0.1:${port}/api/v1/query?query=` +
        encodeURIComponent('http_requests_total{job="collab",route="/healthz"}');
      let answer: { data?: { result?: unknown[] } } = {};
      await eventually(
        async () => {
          try {
            const res = await fetch(query);
            answer = await res.json();
          } catch {
            return false;
          }
          return (answer.data?.result?.length ?? 0) > 0;
        },
        "Prometheus has scraped http_requests_total",
        30_000,
      );
      const up = await (await fetch(
        `http://127.0.0.1:${port}/api/v1/query?query=${encodeURIComponent('up{job="collab"}')}`,
      )).json();
      assert.equal(up.data.result[0].value[1], "1");
    } finally {
      if (child) {
        child.kill("SIGTERM");
        await child.status;
      }
      await Deno.remove(dir, { recursive: true });
      await t.close();
    }
  },
});

Deno.test("LOG_FORMAT=json: one JSON object per request line, carrying the response's request id; a sane X-Request-Id is kept, a forged one replaced", async () => {
  const t = await testApp({ env: { LOG_FORMAT: "json" } });
  try {
    const kept = await api(t, "GET", "/healthz", { headers: { "x-request-id": "abc-123" } });
    assert.equal(kept.headers.get("x-request-id"), "abc-123");
    const forged = "x\u0001y" + "z".repeat(10_000);
    const long = await t.app.request("/healthz", {
      headers: { "x-request-id": "a".repeat(10_240) },
    });
    await long.body?.cancel();
    const controlled = await t.app.request("/api/nothing", {
      headers: { "x-request-id": "bad\tid" },
    });
    const body = await controlled.json();
    const soap = await post(t, "/loan", application("Ada", 1000), { "x-request-id": "soap-1" });
    assert.equal(soap.headers.get("x-request-id"), "soap-1");
    for (const res of [long, controlled]) {
      const id = res.headers.get("x-request-id")!;
      assert.match(id, /^[0-9a-f-]{36}$/, "a new id replaces a forged one");
    }
    assert.equal(body.error.requestId, controlled.headers.get("x-request-id"));

    const lines = t.logs.map((line) => JSON.parse(line));
    for (const line of lines) {
      assert.match(line.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.ok(Math.abs(Date.parse(line.time) - Date.now()) < 60_000, line.time);
      assert.equal(typeof line.level, "string");
      assert.equal(typeof line.msg, "string");
    }
    // (The test helper's own fetch of the OpenAPI document, to check answers, aside.)
    const requests = lines.filter((l) => l.msg === "request" && l.route !== "/api/openapi.json");
    assert.deepEqual(requests.map((l) => l.requestId), [
      "abc-123",
      long.headers.get("x-request-id"),
      controlled.headers.get("x-request-id"),
      "soap-1",
    ]);
    assert.deepEqual(
      requests.map((l) => [l.method, l.route, l.status, typeof l.ms, l.userId]),
      [
        ["GET", "/healthz", 200, "number", null],
        ["GET", "/healthz", 200, "number", null],
        ["GET", "unmatched", 401, "number", null],
        ["POST", "/loan", 200, "number", null],
      ],
    );
    const text = t.logs.join("\n");
    assert.ok(!text.includes("aaaaaaaaaa") && !text.includes("bad\\tid") && !text.includes(forged));
  } finally {
    await t.close();
  }
});

Deno.test("no secret reaches a log line, in either format: passwords, cookies, bearer tokens, tokens in paths", async () => {
  for (const format of ["text", "json"]) {
    const t = await testApp({ env: { LOG_FORMAT: format } });
    try {
      const { cookie, user } = await signUp(t, "ada@example.com");
      const login = await api(t, "POST", "/api/auth/login", {
        body: { email: "ada@example.com", password: PASSWORD },
      });
      assert.equal(login.status, 200);
      const token = expectJson(
        await api(t, "POST", "/api/tokens", { cookie, body: { name: "ci", scope: "read" } }),
        201,
      ).secret;
      await api(t, "GET", "/api/auth/me", { headers: { authorization: `Bearer ${token}` } });
      const feedToken = "feedtoken0123456789abcdef";
      const linkToken = "linktoken0123456789abcdef";
      for (
        const path of [
          `/ics/${feedToken}/calendar.ics`,
          `/invite/${linkToken}`,
          `/api/invitations/${linkToken}/accept`,
          `/reset-password/${linkToken}`,
          `/verify-email/${linkToken}`,
          `/unsubscribe/${linkToken}`,
          `/api/auth/password-reset/${linkToken}`,
        ]
      ) {
        const res = await t.app.request(path, { headers: { cookie } });
        await res.body?.cancel();
      }
      const text = t.logs.join("\n");
      const sessionValue = cookie.split("=")[1]!;
      for (const secret of [PASSWORD, sessionValue, token, feedToken, linkToken]) {
        assert.ok(!text.includes(secret), `${format}: ${secret} is not logged`);
      }
      if (format === "json") {
        const me = t.logs.map((l) => JSON.parse(l)).find((l) =>
          l.route === "/api/auth/me" && l.status === 200
        );
        assert.equal(me?.userId, user.id, `the bearer request's user: ${text}`);
      }
    } finally {
      await t.close();
    }
  }
});

Deno.test("a log line's time is Date#toISOString's text, across milliseconds and seconds", () => {
  const at = Date.parse("2026-11-29T06:00:59.000Z");
  for (const offset of [0, 1, 9, 10, 99, 100, 999, 1000, 1005, 61_042, -1, 86_400_000]) {
    assert.equal(isoNow(at + offset), new Date(at + offset).toISOString(), String(offset));
  }
  // Going back in time (a clock set back) rebuilds the second as well.
  assert.equal(isoNow(at - 5000), new Date(at - 5000).toISOString());
});

Deno.test("a JSON request line is the text JSON.stringify writes: ids with quotes and backslashes, one route answering several methods and statuses", () => {
  const lines: string[] = [];
  const log = requestLog("json", (line) => lines.push(line));
  const records = [
    { method: "POST", route: "/hello", status: 200, requestId: "plain-1", userId: null },
    { method: "POST", route: "/hello", status: 500, requestId: 'quo"te', userId: null },
    { method: "GET", route: "/hello", status: 200, requestId: "back\\slash", userId: 7 },
    { method: "POST", route: "/hello", status: 200, requestId: "plain-2", userId: null },
    { method: "GET", route: "/api/projects/:projectId", status: 404, requestId: "x", userId: 3 },
  ];
  for (const r of records) log.request({ ...r, path: "/p", started: performance.now() });
  assert.equal(lines.length, records.length);
  lines.forEach((line, i) => {
    const parsed = JSON.parse(line);
    const r = records[i]!;
    const expected = {
      time: parsed.time,
      level: r.status >= 500 ? "error" : "info",
      msg: "request",
      method: r.method,
      route: r.route,
      status: r.status,
      ms: parsed.ms,
      requestId: r.requestId,
      userId: r.userId,
    };
    assert.equal(typeof parsed.ms, "number");
    assert.equal(line, JSON.stringify(expected));
  });
});
