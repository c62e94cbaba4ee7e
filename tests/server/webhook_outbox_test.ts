/**
 * The webhook outbox across process deaths: a delivery committed before a `kill -9` is sent
 * after the restart, and SIGTERM does not wait for a receiver that never answers.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Json } from "../helpers/api.ts";
import { childEnv, engineEnv, removeDataDir, storedEngine } from "../helpers/main_process.ts";
import { type Receiver, receiver } from "../helpers/receiver.ts";

const MAIN = join(import.meta.dirname!, "..", "..", "main.ts");

interface Running {
  child: Deno.ChildProcess;
  baseUrl: string;
  /** stdout and stderr lines so far. */
  lines: string[];
  /** Resolves with the exit code once the process ended and its output was read. */
  done: Promise<number>;
}

/** Starts main.ts on a free loopback port and waits until it listens. */
async function start(env: Record<string, string>): Promise<Running> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      "--allow-sys",
      MAIN,
    ],
    clearEnv: true,
    env: childEnv({ ...await engineEnv(env.DATA_DIR!), ...env }),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines: string[] = [];
  let listening: (url: string) => void = () => {};
  const ready = new Promise<string>((resolve) => listening = resolve);
  const read = async (stream: ReadableStream<Uint8Array>) => {
    let rest = "";
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      const parts = (rest + chunk).split("\n");
      rest = parts.pop()!;
      for (const line of parts) {
        lines.push(line);
        const match = /^listening on (http:\/\/\S+)/.exec(line);
        if (match) listening(match[1]!);
      }
    }
  };
  const output = Promise.all([read(child.stdout), read(child.stderr)]);
  const done = (async () => {
    const status = await child.status;
    await output;
    listening("");
    return status.code;
  })();
  const baseUrl = await ready;
  assert.ok(baseUrl, `the server did not start:\n${lines.join("\n")}`);
  return { child, baseUrl, lines, done };
}

/** Sends a JSON request to the server and returns the status and parsed body. */
async function call(
  server: Running,
  method: string,
  path: string,
  options: { cookie?: string; body?: unknown } = {},
): Promise<
  { status: number; json: Json; cookie: string }
> {
  const headers: Record<string, string> = {};
  if (options.cookie) headers.cookie = options.cookie;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const text = await res.text();
  const session = res.headers.getSetCookie().find((c) => c.startsWith("session="));
  return {
    status: res.status,
    json: text ? JSON.parse(text) : {},
    cookie: session ? session.split(";")[0]! : "",
  };
}

/** Registers an owner, creates a project and a webhook to `url`, and posts a chat message. */
async function causeDelivery(server: Running, url: string) {
  const user = await call(server, "POST", "/api/auth/register", {
    body: { email: "olga@example.com", password: "correct horse battery", displayName: "Olga" },
  });
  assert.equal(user.status, 201);
  const cookie = user.cookie;
  const project = await call(server, "POST", "/api/projects", { cookie, body: { name: "Apollo" } });
  const projectId = project.json.project.id as number;
  const hook = await call(server, "POST", `/api/projects/${projectId}/webhooks`, {
    cookie,
    body: { url, events: ["chat.message.created"] },
  });
  assert.equal(hook.status, 201, JSON.stringify(hook.json));
  const message = await call(server, "POST", `/api/projects/${projectId}/chat/messages`, {
    cookie,
    body: { text: "survive this" },
  });
  assert.equal(message.status, 201);
  return { cookie, projectId, webhookId: hook.json.webhook.id as number };
}

/**
 * Runs `fn` with a data directory, a webhook receiver and `start()`, which starts the server on
 * them (again after a kill); at the end whatever still runs is killed and everything removed.
 */
async function withOutbox(
  fn: (o: { dataDir: string; rx: Receiver; start: () => Promise<Running> }) => Promise<void>,
): Promise<void> {
  const dataDir = await Deno.makeTempDir({ prefix: "webhook-outbox-" });
  const rx = receiver();
  const env = { DATA_DIR: dataDir, WEBHOOK_ALLOW_HOSTS: "127.0.0.1" };
  const servers: Running[] = [];
  try {
    await fn({
      dataDir,
      rx,
      start: async () => {
        const server = await start(env);
        servers.push(server);
        return server;
      },
    });
  } finally {
    for (const server of servers) {
      try {
        server.child.kill("SIGKILL");
      } catch {
        // it had ended
      }
      await server.done;
    }
    await rx.close();
    await removeDataDir(dataDir);
  }
}

/** The webhook's delivery log once its newest delivery has succeeded (polled, at most 5 s). */
async function deliveredLog(
  server: Parameters<typeof call>[0],
  cookie: string,
  projectId: number,
  webhookId: number,
) {
  const path = `/api/projects/${projectId}/webhooks/${webhookId}/deliveries`;
  let log = await call(server, "GET", path, { cookie });
  for (let i = 0; i < 100 && log.json.items?.[0]?.status !== "succeeded"; i++) {
    await new Promise((r) => setTimeout(r, 50));
    log = await call(server, "GET", path, { cookie });
  }
  return log;
}

Deno.test("a delivery committed before a kill -9 arrives after the restart, with the same delivery id", async () => {
  await withOutbox(async ({ rx, start }) => {
    let server: Running;
    // The receiver holds the first attempt open: the delivery is committed but not sent.
    rx.answer = () => "hang";
    server = await start();
    const { cookie, projectId, webhookId } = await causeDelivery(server, rx.url);
    await rx.waitFor(1, 10_000);
    server.child.kill("SIGKILL");
    assert.notEqual(await server.done, 0);

    rx.answer = () => 200;
    server = await start();
    await rx.waitFor(2, 10_000);
    const [first, second] = rx.received;
    assert.equal(second!.headers.get("x-collab-delivery"), first!.headers.get("x-collab-delivery"));
    assert.equal(second!.body, first!.body);
    assert.equal(JSON.parse(second!.body).data.text, "survive this");

    // The log shows it delivered; the attempt the kill cut short left no trace.
    const log = await deliveredLog(server, cookie, projectId, webhookId);
    assert.equal(log.json.items.length, 1);
    assert.equal(log.json.items[0].status, "succeeded");
    assert.equal(log.json.items[0].attempts, 1);

    server.child.kill("SIGTERM");
    assert.equal(await server.done, 0, server.lines.join("\n"));
  });
});

Deno.test("SIGTERM does not wait for a receiver that never answers; the attempt goes out after restart", async () => {
  await withOutbox(async ({ rx, start }) => {
    let server: Running;
    rx.answer = () => "hang";
    server = await start();
    const { cookie, projectId, webhookId } = await causeDelivery(server, rx.url);
    await rx.waitFor(1, 10_000);
    const stopping = Date.now();
    server.child.kill("SIGTERM");
    assert.equal(await server.done, 0, server.lines.join("\n"));
    // Well under the receiver's 10 s timeout: the shutdown abandoned the attempt.
    const took = Date.now() - stopping;
    assert.ok(took < 8_000, `shutdown took ${took} ms`);
    assert.ok(server.lines.includes("stopped"));

    rx.answer = () => 200;
    server = await start();
    await rx.waitFor(2, 10_000);
    assert.equal(
      rx.received[1]!.headers.get("x-collab-delivery"),
      rx.received[0]!.headers.get("x-collab-delivery"),
    );
    // The abandoned attempt left no trace.
    const log = await deliveredLog(server, cookie, projectId, webhookId);
    assert.equal(log.json.items[0].status, "succeeded");
    assert.equal(log.json.items[0].attempts, 1);
    server.child.kill("SIGTERM");
    assert.equal(await server.done, 0);
  });
});

Deno.test("an event still in the outbox when the server died is fanned out and delivered after the restart", async () => {
  await withOutbox(async ({ dataDir, rx, start }) => {
    let server: Running;
    server = await start();
    const { cookie, projectId, webhookId } = await causeDelivery(server, rx.url);
    await rx.waitFor(1, 10_000);
    server.child.kill("SIGKILL");
    await server.done;
    // What a change's transaction leaves when the process dies right after its commit, before
    // the sender took the event up: its outbox row, and no delivery yet.
    const db = await storedEngine(dataDir);
    const at = new Date().toISOString();
    const body = JSON.stringify({
      id: 4242,
      event: "chat.message.created",
      projectId,
      occurredAt: at,
      data: { text: "committed, then killed" },
    });
    await db.run(
      `INSERT INTO webhook_outbox (project_id, event_id, event, body, created_at)
       VALUES (?, 4242, 'chat.message.created', ?, ?)`,
      [projectId, body, at],
    );
    await db.close();

    server = await start();
    // (The first delivery may arrive twice: the kill may have come before its success was
    // written. At least once is the promise.)
    for (let i = 0; i < 200 && !rx.received.some((r) => r.body === body); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(rx.received.some((r) => r.body === body), "the outbox event was not delivered");
    const path = `/api/projects/${projectId}/webhooks/${webhookId}/deliveries`;
    let log = await call(server, "GET", path, { cookie });
    for (let i = 0; i < 100 && log.json.items.some((d: Json) => d.status !== "succeeded"); i++) {
      await new Promise((r) => setTimeout(r, 50));
      log = await call(server, "GET", path, { cookie });
    }
    assert.deepEqual(
      log.json.items.map((d: Json) => `${d.eventId === 4242 ? "outbox" : "first"} ${d.status}`)
        .sort(),
      ["first succeeded", "outbox succeeded"],
    );
    server.child.kill("SIGTERM");
    assert.equal(await server.done, 0);
    const check = await storedEngine(dataDir);
    const left = await check.get<{ n: number }>("SELECT count(*) AS n FROM webhook_outbox");
    await check.close();
    assert.equal(Number(left?.n), 0);
  });
});
