/**
 * `WORKERS=2`: the server process serves on two isolates sharing the port. Each request here
 * goes over a connection of its own, so Linux spreads them among the isolates (`SO_REUSEPORT`).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { SseReader } from "../helpers/api.ts";
import { pythonModule, runPython } from "../helpers/python.ts";
import { application, envelope, faultString } from "../helpers/soap.ts";
import { hostileShapes } from "../soap/hostile_shapes.ts";
import {
  engineEnv,
  removeDataDir,
  spawnMain,
  startServer,
  storedEngine,
} from "../helpers/main_process.ts";

const WORKERS = { WORKERS: "2" };
const TOKEN = "workers-test-metrics-token";
const zeep = await pythonModule("zeep", "the zeep test against WORKERS=2");

/** A response read off a connection of its own (closed after it). */
interface Answer {
  status: number;
  headers: Headers;
  body: string;
}

/** Sends one request over a new connection (`Connection: close`) and reads the whole answer. */
async function fresh(
  baseUrl: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  const { hostname, port } = new URL(baseUrl);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  try {
    const body = new TextEncoder().encode(options.body ?? "");
    const head = [
      `${method} ${path} HTTP/1.1`,
      `Host: ${hostname}:${port}`,
      "Connection: close",
      ...Object.entries(options.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
      ...(options.body !== undefined ? [`Content-Length: ${body.length}`] : []),
    ].join("\r\n");
    await conn.write(new TextEncoder().encode(`${head}\r\n\r\n`));
    if (body.length > 0) await conn.write(body);
    const chunks: Uint8Array<ArrayBuffer>[] = [];
    const buf = new Uint8Array(65536);
    for (;;) {
      const n = await conn.read(buf);
      if (n === null) break;
      chunks.push(buf.slice(0, n));
    }
    const text = new TextDecoder().decode(await new Blob(chunks).bytes());
    const [headText, ...rest] = text.split("\r\n\r\n");
    const [statusLine, ...headerLines] = headText!.split("\r\n");
    const headers = new Headers(
      headerLines.map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 1).trim()]),
    );
    let raw = rest.join("\r\n\r\n");
    if (headers.get("transfer-encoding") === "chunked") raw = unchunk(raw);
    return { status: Number(statusLine!.split(" ")[1]), headers, body: raw };
  } finally {
    try {
      conn.close();
    } catch { /* closed by the server */ }
  }
}

/** A chunked body's content. */
function unchunk(raw: string): string {
  let out = "";
  let rest = raw;
  for (;;) {
    const eol = rest.indexOf("\r\n");
    const size = parseInt(rest.slice(0, eol), 16);
    if (!size) return out;
    out += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 2 + size + 2);
  }
}

/**
 * How many streams a test opens, each on a connection of its own. Linux spreads connections
 * among the isolates by a hash of their ports; that all 16 land on one of the two has a chance
 * of 2 in 65,536, and then a test would pass without showing what it tests, never fail wrongly.
 * (`/metrics` cannot tell the isolates apart: it answers for the whole process.)
 */
const STREAMS = 16;

/**
 * Opens `STREAMS` event streams of `path` as the holder of `cookie`, each on a connection of its
 * own (fetch keeps a busy one to itself); each one's controller goes into `controllers`, for the
 * test to abort whatever happens.
 */
async function openStreams(
  baseUrl: string,
  path: string,
  cookie: string,
  controllers: AbortController[],
): Promise<SseReader[]> {
  const streams: SseReader[] = [];
  for (let i = 0; i < STREAMS; i++) {
    const controller = new AbortController();
    controllers.push(controller);
    const res = await fetch(`${baseUrl}${path}`, {
      headers: { cookie },
      signal: controller.signal,
    });
    assert.equal(res.status, 200, res.status === 200 ? "" : await res.text());
    streams.push(new SseReader(res.body!));
  }
  return streams;
}

async function register(baseUrl: string, email: string): Promise<string> {
  const res = await fresh(baseUrl, "POST", "/api/auth/register", {
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password: "correct horse battery", displayName: "Ann" }),
  });
  assert.equal(res.status, 201, res.body);
  return res.headers.get("set-cookie")!.split(";")[0]!;
}

Deno.test("WORKERS=2: chat messages posted through either isolate reach streams on both, and Last-Event-ID replay is whole", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "workers-test-" });
  const server = await startServer(dataDir, {
    ...WORKERS,
    METRICS_TOKEN: TOKEN,
    SSE_MAX_STREAMS_PER_USER: "100",
  });
  const controllers: AbortController[] = [];
  try {
    const cookie = await register(server.baseUrl, "ann@example.com");
    const created = await fresh(server.baseUrl, "POST", "/api/projects", {
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify({ name: "P" }),
    });
    const projectId = JSON.parse(created.body).project.id as number;
    // Streams, each on a connection of its own, so on both isolates.
    const streams = await openStreams(
      server.baseUrl,
      `/api/projects/${projectId}/chat/stream`,
      cookie,
      controllers,
    );

    // Messages posted over connections of their own, so through both isolates.
    const ids: number[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await fresh(server.baseUrl, "POST", `/api/projects/${projectId}/chat/messages`, {
        headers: { cookie, "content-type": "application/json" },
        body: JSON.stringify({ text: `message ${i}` }),
      });
      assert.equal(res.status, 201, res.body);
      ids.push(JSON.parse(res.body).message.id);
    }
    let lastEventId = "";
    for (const stream of streams) {
      const texts: string[] = [];
      while (texts.length < ids.length) {
        const frame = await stream.nextEvent(10_000);
        assert.ok(frame !== null, "a stream ended");
        if (frame.event !== "chat.message.created") continue;
        texts.push(JSON.parse(frame.data!).text);
        lastEventId = frame.id!;
      }
      // In commit order, each once, on every stream.
      assert.deepEqual(texts, ids.map((_, i) => `message ${i}`));
    }
    // A reconnect after the fourth message's event replays the last four, whichever isolate.
    const replays = new Set<string>();
    const fourth = Number(lastEventId) - 4;
    for (let i = 0; i < 4; i++) {
      const controller = new AbortController();
      const res = await fetch(`${server.baseUrl}/api/projects/${projectId}/chat/stream`, {
        headers: { cookie, "last-event-id": String(fourth) },
        signal: controller.signal,
      });
      const reader = new SseReader(res.body!);
      const texts: string[] = [];
      while (texts.length < 4) {
        const frame = await reader.nextEvent(10_000);
        assert.ok(frame !== null);
        if (frame.event === "chat.message.created") texts.push(JSON.parse(frame.data!).text);
      }
      replays.add(texts.join(","));
      controller.abort();
      await reader.ended(10_000).catch(() => {});
    }
    assert.deepEqual([...replays], ["message 4,message 5,message 6,message 7"]);
  } finally {
    for (const controller of controllers) controller.abort();
    await server.stop();
    await removeDataDir(dataDir);
  }
});

Deno.test("WORKERS=2: a sign-out through one isolate ends the session's streams on both", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "workers-test-" });
  const server = await startServer(dataDir, {
    ...WORKERS,
    METRICS_TOKEN: TOKEN,
    SSE_MAX_STREAMS_PER_USER: "100",
  });
  const controllers: AbortController[] = [];
  try {
    const cookie = await register(server.baseUrl, "ann@example.com");
    const streams = await openStreams(server.baseUrl, "/api/me/stream", cookie, controllers);
    const out = await fresh(server.baseUrl, "POST", "/api/auth/logout", {
      headers: { cookie, origin: server.baseUrl },
    });
    assert.equal(out.status, 204, out.body);
    for (const stream of streams) assert.ok(await stream.ended(10_000), "a stream stayed open");
  } finally {
    for (const controller of controllers) controller.abort();
    await server.stop();
    await removeDataDir(dataDir);
  }
});

Deno.test("WORKERS=2: /metrics answers for the whole process, whichever isolate a scrape reaches", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "workers-test-" });
  const server = await startServer(dataDir, {
    ...WORKERS,
    METRICS_TOKEN: TOKEN,
    SSE_MAX_STREAMS_PER_USER: "100",
  });
  const controllers: AbortController[] = [];
  try {
    const cookie = await register(server.baseUrl, "ann@example.com");
    const calls = 24;
    for (let i = 0; i < calls; i++) {
      const res = await fresh(server.baseUrl, "POST", "/hello", {
        headers: { "content-type": "text/xml; charset=utf-8" },
        body: envelope(`<soap:getHelloWorld><arg0>n${i}</arg0></soap:getHelloWorld>`),
      });
      assert.equal(res.status, 200);
    }
    await openStreams(server.baseUrl, "/api/me/stream", cookie, controllers);
    // Each scrape, on a connection of its own, sums both isolates' series (each isolate alone
    // answered about half the calls and holds about half the streams); what the process has
    // once (its start, its memory) is there once.
    for (let i = 0; i < 8; i++) {
      const res = await fresh(server.baseUrl, "GET", "/metrics", {
        headers: { Authorization: `Bearer ${TOKEN}` },
      });
      assert.equal(res.status, 200, res.body);
      const value = (series: string) =>
        res.body.split("\n").filter((l) => l.startsWith(`${series} `)).map((l) =>
          Number(l.slice(series.length + 1))
        );
      assert.deepEqual(value('soap_requests_total{operation="getHelloWorld",outcome="ok"}'), [
        calls,
      ]);
      assert.deepEqual(
        value('http_requests_total{method="POST",route="/hello",status="200"}'),
        [calls],
      );
      assert.deepEqual(value("sse_streams_open"), [STREAMS]);
      assert.equal(value("process_start_time_seconds").length, 1);
      assert.equal(
        res.body.split("\n").filter((l) => l.startsWith("collab_build_info{")).length,
        1,
      );
    }
  } finally {
    for (const controller of controllers) controller.abort();
    await server.stop();
    await removeDataDir(dataDir);
  }
});

Deno.test("WORKERS=2: hostile SOAP bodies keep neither isolate from answering", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "workers-test-" });
  const server = await startServer(dataDir, { ...WORKERS, METRICS_TOKEN: TOKEN });
  try {
    const shapes = hostileShapes();
    const greeting = await fresh(server.baseUrl, "POST", "/hello", {
      headers: { "content-type": "text/xml; charset=utf-8" },
      body: envelope("<soap:getHelloWorld><arg0>Bo</arg0></soap:getHelloWorld>"),
    });
    assert.equal(greeting.status, 200);
    // Every hostile shape twice, two at a time, each on a connection of its own (so through
    // both isolates), while greetings keep being asked for beside them.
    const hostile = [...shapes, ...shapes];
    let greeted = 0;
    let attacking = true;
    const greetings = (async () => {
      while (attacking) {
        const res = await fresh(server.baseUrl, "POST", "/hello", {
          headers: { "content-type": "text/xml; charset=utf-8" },
          body: envelope("<soap:getHelloWorld><arg0>Bo</arg0></soap:getHelloWorld>"),
        });
        assert.equal(`${res.status}\n${res.body}`, `${greeting.status}\n${greeting.body}`);
        greeted++;
      }
    })();
    const attackers = [0, 1].map(async (lane) => {
      for (let i = lane; i < hostile.length; i += 2) {
        const { name, body, message } = hostile[i]!;
        const res = await fresh(server.baseUrl, "POST", "/hello", {
          headers: { "content-type": "text/xml; charset=utf-8" },
          body,
        });
        if (message === null) continue; // a shape that crosses no limit: a plain parse
        assert.equal(res.status, 500, name);
        const fault = faultString(res.body) ?? "";
        assert.ok(fault.startsWith("Cannot read SOAP message: "), `${name}: ${fault}`);
        assert.match(fault.slice("Cannot read SOAP message: ".length), message, name);
      }
    });
    await Promise.all([greetings, Promise.all(attackers).finally(() => attacking = false)]);
    assert.ok(greeted > 0);
    // Both isolates still answer: the scrape gathers every isolate's series or fails.
    const scrape = await fresh(server.baseUrl, "GET", "/metrics", {
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    assert.equal(scrape.status, 200);
    const line = scrape.body.split("\n").find((l) =>
      l.startsWith('http_requests_total{method="POST",route="/hello",status="200"} ') ||
      l.startsWith('http_requests_total{method="POST",route="/hello",status="500"} ')
    );
    assert.ok(line, scrape.body);
  } finally {
    await server.stop();
    await removeDataDir(dataDir);
  }
});

Deno.test({
  name: "WORKERS=2: a zeep client calls every operation, and every isolate answers the same bytes",
  ignore: zeep.ignore,
  async fn() {
    zeep.require();
    const dataDir = await Deno.makeTempDir({ prefix: "workers-test-" });
    const server = await startServer(dataDir, WORKERS);
    try {
      const r = JSON.parse(
        await runPython(join(import.meta.dirname!, "..", "soap", "zeep_client.py"), [
          server.baseUrl,
        ]),
      );
      assert.equal(r.hello, "Hello World, Alice!");
      assert.equal(r.registerZed, "Registration Successful");
      assert.equal(r.registerZedAgain, "Error: Customer already exists");
      assert.equal(r.loanAnn.message.value, "Loan approved with excellent rate");
      assert.equal(r.loanZed.rejectionReason.value, "Applicant is blacklisted");
      // The WSDL, a greeting and a fault over 16 connections: one answer each, whoever serves.
      const answers = new Map<string, Set<string>>();
      const calls: Array<[string, string, string | undefined]> = [
        ["GET", "/hello?wsdl", undefined],
        ["GET", "/loan?xsd=1", undefined],
        ["POST", "/hello", envelope("<soap:getHelloWorld><arg0>Bo</arg0></soap:getHelloWorld>")],
        ["POST", "/loan", application("", 10)],
      ];
      for (let i = 0; i < 16; i++) {
        for (const [method, path, body] of calls) {
          const res = await fresh(server.baseUrl, method, path, {
            headers: body === undefined ? {} : { "content-type": "text/xml; charset=utf-8" },
            ...(body === undefined ? {} : { body }),
          });
          const key = `${method} ${path}`;
          if (!answers.has(key)) answers.set(key, new Set());
          answers.get(key)!.add(`${res.status} ${res.headers.get("content-type")}\n${res.body}`);
        }
      }
      for (const [key, set] of answers) assert.equal(set.size, 1, `${key}: ${[...set].join("\n")}`);
    } finally {
      await server.stop();
      await removeDataDir(dataDir);
    }
    const stored = await storedEngine(dataDir).catch(() => null);
    await stored?.close();
  },
});

Deno.test("WORKERS=2: the trash is swept once at start-up, not once per isolate", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "workers-test-" });
  try {
    const env = { DATA_DIR: dataDir, TRASH_DAYS: "0", ...WORKERS };
    const first = await startServer(dataDir, env);
    const cookie = await register(first.baseUrl, "ann@example.com");
    const project = JSON.parse(
      (await fresh(first.baseUrl, "POST", "/api/projects", {
        headers: { cookie, "content-type": "application/json" },
        body: JSON.stringify({ name: "P" }),
      })).body,
    ).project;
    for (let i = 0; i < 5; i++) {
      const note = JSON.parse(
        (await fresh(first.baseUrl, "POST", `/api/projects/${project.id}/notes`, {
          headers: { cookie, "content-type": "application/json" },
          body: JSON.stringify({ title: `Gone ${i}`, body: "" }),
        })).body,
      ).note;
      const deleted = await fresh(
        first.baseUrl,
        "DELETE",
        `/api/projects/${project.id}/notes/${note.id}`,
        { headers: { cookie } },
      );
      assert.equal(deleted.status, 204);
    }
    await first.stop();
    // The five notes wait in the trash for the sweep at the next start.
    const second = spawnMain([], { ...env, ...await engineEnv(dataDir) });
    await second.waitFor(/^listening on /);
    await second.waitFor(/^trash sweep:/);
    second.child.kill("SIGTERM");
    const { code, stdout, stderr } = await second.done;
    assert.equal(code, 0, stderr.join("\n"));
    assert.deepEqual(stdout.filter((l) => l.startsWith("trash sweep:")), [
      "trash sweep: purged 5 items and 0 projects",
    ]);
  } finally {
    await removeDataDir(dataDir);
  }
});

Deno.test("WORKERS=2: kill -9 under load loses no acknowledged loan decision", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "workers-test-" });
  try {
    const running = spawnMain([], { DATA_DIR: dataDir, ...WORKERS, ...await engineEnv(dataDir) });
    await running.waitFor(/^listening on /);
    const baseUrl = running.stdout.find((l) => l.startsWith("listening on "))!
      .replace(/^listening on /, "");
    const acknowledged: string[] = [];
    let killed = false;
    // 16 clients, each posting decisions over connections of their own until the kill.
    const client = async (c: number) => {
      for (let i = 0; !killed; i++) {
        const name = `applicant-${c}-${i}`;
        try {
          const res = await fresh(baseUrl, "POST", "/loan", {
            headers: { "content-type": "text/xml; charset=utf-8" },
            body: application(name, 1000),
          });
          if (res.status === 200 && res.body.includes("<approved>true</approved>")) {
            acknowledged.push(name);
          }
        } catch {
          // the server is gone: no answer, no acknowledgement
        }
      }
    };
    const clients = Array.from({ length: 16 }, (_, c) => client(c));
    while (acknowledged.length < 300) await new Promise((r) => setTimeout(r, 10));
    running.child.kill("SIGKILL");
    const { code } = await running.done;
    killed = true;
    await Promise.all(clients);
    assert.notEqual(code, 0);
    const stored = await storedEngine(dataDir);
    try {
      const rows = await stored.all<{ applicant_name: string }>(
        "SELECT applicant_name FROM loan_history",
      );
      const names = new Set(rows.map((r) => r.applicant_name));
      const lost = acknowledged.filter((name) => !names.has(name));
      assert.deepEqual(lost, [], `${lost.length} of ${acknowledged.length} acknowledged lost`);
    } finally {
      await stored.close();
    }
  } finally {
    await removeDataDir(dataDir);
  }
});
