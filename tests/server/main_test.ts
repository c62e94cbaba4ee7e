/** The server process: start-up on defaults, configuration errors, health, graceful stop. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { testApp } from "../helpers/app.ts";

const MAIN = join(import.meta.dirname!, "..", "..", "main.ts");

interface Running {
  child: Deno.ChildProcess;
  baseUrl: string;
  lines: string[];
  /** Resolves with all stdout+stderr lines and the status once the process ends. */
  done: Promise<{ code: number; lines: string[] }>;
}

function spawn(env: Record<string, string>): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      "--allow-sys",
      MAIN,
    ],
    env: { HOST: "127.0.0.1", PORT: "0", NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

async function collect(
  stream: ReadableStream<Uint8Array>,
  lines: string[],
  onLine?: (l: string) => void,
) {
  let rest = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    rest += chunk;
    const parts = rest.split("\n");
    rest = parts.pop()!;
    for (const line of parts) {
      lines.push(line);
      onLine?.(line);
    }
  }
  if (rest) lines.push(rest);
}

async function start(env: Record<string, string>): Promise<Running> {
  const child = spawn(env);
  const lines: string[] = [];
  let listening: (url: string) => void = () => {};
  const ready = new Promise<string>((resolve) => listening = resolve);
  const out = collect(child.stdout, lines, (line) => {
    const m = /^listening on (http:\/\/\S+)/.exec(line);
    if (m) listening(m[1]!);
  });
  const err = collect(child.stderr, lines);
  const done = (async () => {
    const status = await child.status;
    await Promise.all([out, err]);
    listening("");
    return { code: status.code, lines };
  })();
  const baseUrl = await ready;
  return { child, baseUrl, lines, done };
}

async function run(env: Record<string, string>): Promise<{ code: number; output: string }> {
  const result = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      "--allow-sys",
      MAIN,
    ],
    env: { HOST: "127.0.0.1", PORT: "0", NO_COLOR: "1", ...env },
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: result.code, output: decode(result.stdout) + decode(result.stderr) };
}

Deno.test("the server starts, applies migrations, answers /healthz, logs requests and stops on SIGTERM", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "main-test-" });
  try {
    const server = await start({ DATA_DIR: dataDir });
    assert.ok(server.baseUrl, server.lines.join("\n"));
    const res = await fetch(`${server.baseUrl}/healthz?token=secret-value`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/json");
    assert.deepEqual(await res.json(), { status: "ok" });
    server.child.kill("SIGTERM");
    const { code, lines } = await server.done;
    assert.equal(code, 0, lines.join("\n"));
    assert.ok(lines.includes("migrations applied: 1, 2, 3, 4, 5, 6, 7, 8, 9"), lines.join("\n"));
    const log = lines.find((l) => l.startsWith("GET /healthz "));
    assert.match(log ?? "", /^GET \/healthz 200 \d+\.\dms$/);
    assert.ok(!lines.some((l) => l.includes("secret-value")), "no query strings in logs");
    assert.ok(lines.includes("stopped"));
    // The secret was generated once, private to the owner.
    const info = await Deno.stat(join(dataDir, "session_secret"));
    assert.equal(info.mode! & 0o777, 0o600);
    // The database was checkpointed and closed cleanly.
    const db = new DatabaseSync(join(dataDir, "collab.db"));
    assert.deepEqual({ ...db.prepare("PRAGMA integrity_check").get() }, { integrity_check: "ok" });
    db.close();
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("invalid configuration stops start-up with a message naming each variable", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "main-test-" });
  try {
    const { code, output } = await run({
      DATA_DIR: dataDir,
      PORT: "eighty",
      SESSION_TTL_HOURS: "0",
      BASE_URL: "ftp://x",
      SESSION_SECRET: "short",
    });
    assert.equal(code, 1);
    assert.match(output, /Cannot start: invalid configuration/);
    assert.match(output, /PORT="eighty": expected a whole number from 0 to 65535/);
    assert.match(output, /SESSION_TTL_HOURS="0": expected a whole number from 1/);
    assert.match(output, /BASE_URL="ftp:\/\/x": expected an absolute http\(s\) address/);
    assert.match(output, /SESSION_SECRET: expected at least 32 characters/);
    assert.doesNotMatch(output, /short/);
    assert.deepEqual([...Deno.readDirSync(dataDir)], []);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("start-up is refused, changing nothing, when an applied migration was edited", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "main-test-" });
  try {
    const first = await start({ DATA_DIR: dataDir });
    first.child.kill("SIGTERM");
    assert.equal((await first.done).code, 0);
    // Simulate an edited file: the recorded checksum no longer matches the file.
    const path = join(dataDir, "collab.db");
    const db = new DatabaseSync(path);
    db.exec("UPDATE schema_migrations SET checksum = 'f00d' WHERE version = 3");
    db.close();
    const before = await Deno.readFile(path);
    const { code, output } = await run({ DATA_DIR: dataDir });
    assert.equal(code, 1);
    assert.match(
      output,
      /Cannot start: migration 003_todo_tags\.sql was edited after it was applied/,
    );
    assert.deepEqual(await Deno.readFile(path), before);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("/healthz answers 503 while the server shuts down", async () => {
  const t = await testApp();
  try {
    t.lifecycle.shuttingDown = true;
    const res = await t.app.request("/healthz");
    assert.equal(res.status, 503);
    assert.deepEqual(await res.json(), { status: "shutting_down" });
  } finally {
    await t.close();
  }
});

Deno.test("every response carries the security headers", async () => {
  const t = await testApp();
  try {
    for (const path of ["/healthz", "/hello?wsdl", "/nowhere"]) {
      const res = await t.app.request(path);
      await res.body?.cancel();
      assert.equal(res.headers.get("x-content-type-options"), "nosniff", path);
      assert.equal(res.headers.get("referrer-policy"), "no-referrer", path);
      assert.equal(res.headers.get("x-frame-options"), "DENY", path);
    }
  } finally {
    await t.close();
  }
});

Deno.test("SIGTERM with event streams open ends the streams and exits 0", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "main-test-" });
  try {
    const server = await start({ DATA_DIR: dataDir });
    const register = await fetch(`${server.baseUrl}/api/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        email: "ann@example.com",
        password: "correct horse battery",
        displayName: "Ann",
      }),
    });
    assert.equal(register.status, 201, await register.text());
    const cookie = register.headers.getSetCookie()[0]!.split(";")[0]!;
    const project = await fetch(`${server.baseUrl}/api/projects`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie },
      body: JSON.stringify({ name: "Shutdown" }),
    });
    assert.equal(project.status, 201);
    const { id } = (await project.json()).project;
    const readers = [];
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${server.baseUrl}/api/projects/${id}/chat/stream`, {
        headers: { cookie },
      });
      assert.equal(res.status, 200);
      const reader = res.body!.getReader();
      const first = await reader.read();
      assert.equal(new TextDecoder().decode(first.value), "retry: 3000\n\n");
      readers.push(reader);
    }
    server.child.kill("SIGTERM");
    // Each stream ends (the server closes it rather than waiting for the client).
    for (const reader of readers) {
      for (;;) {
        const { done } = await reader.read();
        if (done) break;
      }
    }
    const { code, lines } = await server.done;
    assert.equal(code, 0, lines.join("\n"));
    assert.ok(lines.includes("stopped"), lines.join("\n"));
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("start-up removes the temporary files of uploads a crash cut short, and nothing else", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "main-test-" });
  try {
    const tmp = join(dataDir, "files", "tmp");
    await Deno.mkdir(tmp, { recursive: true });
    await Deno.mkdir(join(dataDir, "files", "1"));
    await Deno.writeTextFile(join(tmp, "0b8e-left-by-kill.part"), "half an upload");
    await Deno.writeTextFile(join(tmp, "another.part"), "");
    await Deno.writeTextFile(join(dataDir, "files", "1", "kept.txt"), "a stored file");
    const server = await start({ DATA_DIR: dataDir });
    try {
      assert.ok(server.baseUrl, server.lines.join("\n"));
      assert.deepEqual([...Deno.readDirSync(tmp)], []);
      assert.equal(
        await Deno.readTextFile(join(dataDir, "files", "1", "kept.txt")),
        "a stored file",
      );
    } finally {
      server.child.kill("SIGTERM");
      assert.equal((await server.done).code, 0);
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
