/** The server process: start-up on defaults, configuration errors, health, graceful stop. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { testApp } from "../helpers/app.ts";
import {
  childEnv,
  concat,
  engineEnv,
  removeDataDir,
  SlowRequest,
  storedEngine,
  TEST_WORKERS,
} from "../helpers/main_process.ts";
import { ON_POSTGRES } from "../helpers/test_database.ts";

const MAIN = join(import.meta.dirname!, "..", "..", "main.ts");

interface Running {
  child: Deno.ChildProcess;
  baseUrl: string;
  lines: string[];
  /** Resolves with the first output line (past or future) matching `pattern`. */
  waitFor(pattern: RegExp): Promise<string>;
  /** Resolves with all stdout+stderr lines and the status once the process ends. */
  done: Promise<{ code: number; lines: string[] }>;
}

const DENO_RUN = [
  "run",
  "--allow-net",
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-sys",
  MAIN,
];

/**
 * Runs main.ts; with `maxFileBytes`, no file it writes may grow past that size (as on a full
 * disk: writes beyond it fail). The limit is set by `prlimit` in a shell that ignores
 * SIGXFSZ, so a write past it fails instead of killing the process.
 */
function spawn(env: Record<string, string>, maxFileBytes?: number): Deno.ChildProcess {
  const deno = [Deno.execPath(), ...DENO_RUN];
  const [command, ...args] = maxFileBytes === undefined ? deno : [
    "sh",
    "-c",
    `trap '' XFSZ; exec prlimit --fsize=${maxFileBytes} "$@"`,
    "sh",
    ...deno.slice(0, 2),
    "--no-code-cache", // Deno's own cache files must not meet the limit
    ...deno.slice(2),
  ];
  return new Deno.Command(command!, {
    args,
    clearEnv: true,
    env: childEnv(env),
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

/** Starts the server (on PostgreSQL, on the database of its `DATA_DIR`: see `engineEnv`). */
async function start(env: Record<string, string>, maxFileBytes?: number): Promise<Running> {
  const child = spawn({ ...await engineEnv(env.DATA_DIR!), ...env }, maxFileBytes);
  const lines: string[] = [];
  const waiters: Array<{ pattern: RegExp; resolve: (line: string) => void }> = [];
  const onLine = (line: string) => {
    for (const w of waiters.filter((w) => w.pattern.test(line))) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(line);
    }
  };
  const waitFor = (pattern: RegExp) => {
    const seen = lines.find((line) => pattern.test(line));
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise<string>((resolve) => waiters.push({ pattern, resolve }));
  };
  const ready = waitFor(/^listening on http:\/\/\S+/);
  const out = collect(child.stdout, lines, onLine);
  const err = collect(child.stderr, lines, onLine);
  const done = (async () => {
    const status = await child.status;
    await Promise.all([out, err]);
    for (const w of waiters.splice(0)) w.resolve("");
    return { code: status.code, lines };
  })();
  const baseUrl = (await ready).replace(/^listening on /, "");
  return { child, baseUrl, lines, waitFor, done };
}

async function run(env: Record<string, string>): Promise<{ code: number; output: string }> {
  // Start-ups that fail before the database: no database of their own.
  const result = await new Deno.Command(Deno.execPath(), {
    args: DENO_RUN,
    clearEnv: true,
    env: childEnv(env),
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
    assert.ok(
      lines.includes(
        "migrations applied: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38",
      ),
      lines.join("\n"),
    );
    const log = lines.find((l) => l.startsWith("GET /healthz "));
    assert.match(log ?? "", /^GET \/healthz 200 \d+\.\dms$/);
    assert.ok(!lines.some((l) => l.includes("secret-value")), "no query strings in logs");
    assert.ok(lines.includes("stopped"));
    // The secret was generated once, private to the owner.
    const info = await Deno.stat(join(dataDir, "session_secret"));
    assert.equal(info.mode! & 0o777, 0o600);
    if (!ON_POSTGRES) {
      // The SQLite database was checkpointed and closed cleanly.
      const db = new DatabaseSync(join(dataDir, "collab.db"));
      assert.deepEqual({ ...db.prepare("PRAGMA integrity_check").get() }, {
        integrity_check: "ok",
      });
      db.close();
    }
  } finally {
    await removeDataDir(dataDir);
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
    await removeDataDir(dataDir);
  }
});

Deno.test("SMTP_URL without BASE_URL, or an invalid SMTP_URL, stops start-up with one line naming them", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "main-test-" });
  try {
    let { code, output } = await run({ DATA_DIR: dataDir, SMTP_URL: "smtp://127.0.0.1:2525" });
    assert.equal(code, 1);
    assert.deepEqual(output.trim().split("\n").length, 1, output);
    assert.match(output, /^Cannot start: .*SMTP_URL.*BASE_URL/);
    ({ code, output } = await run({
      DATA_DIR: dataDir,
      BASE_URL: "https://collab.example.org",
      SMTP_URL: "smtp://mailer:hunter2@mail.example.org/path",
    }));
    assert.equal(code, 1);
    assert.deepEqual(output.trim().split("\n").length, 1, output);
    assert.match(output, /^Cannot start: .*SMTP_URL: expected smtp:\/\//);
    assert.doesNotMatch(output, /hunter2/);
    assert.deepEqual([...Deno.readDirSync(dataDir)], []);
  } finally {
    await removeDataDir(dataDir);
  }
});

Deno.test({
  name: "start-up is refused, changing nothing, when an applied migration was edited",
  // Edits SQLite's file; on PostgreSQL: tests/db/postgres/migrate_test.ts.
  ignore: ON_POSTGRES,
}, async () => {
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
    await removeDataDir(dataDir);
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
    await removeDataDir(dataDir);
  }
});

/** Registers an account on a running server and returns its `Cookie` header. */
async function registerAt(baseUrl: string, email = "ann@example.com"): Promise<string> {
  const res = await fetch(`${baseUrl}/api/auth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password: "correct horse battery", displayName: "Ann" }),
  });
  assert.equal(res.status, 201, await res.text());
  return res.headers.getSetCookie()[0]!.split(";")[0]!;
}

/** Creates a project on a running server; returns the response's status and body. */
async function createProjectAt(
  baseUrl: string,
  cookie: string,
  body: { name: string; description?: string },
): Promise<{ status: number; json: { project: { id: number } } }> {
  const res = await fetch(`${baseUrl}/api/projects`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

/** A one-pixel PNG. */
const PNG = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  ),
  (c) => c.charCodeAt(0),
);

Deno.test("SIGTERM while request bodies are still arriving: each is answered as usual, then exit 0", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "main-test-" });
  try {
    const server = await start({ DATA_DIR: dataDir });
    const { baseUrl } = server;
    const cookie = await registerAt(baseUrl);
    const project = await createProjectAt(baseUrl, cookie, { name: "Files" });
    assert.equal(project.status, 201);
    const head = (path: string, type: string) =>
      `POST ${path} HTTP/1.1\r\nHost: ${new URL(baseUrl).host}\r\nOrigin: ${baseUrl}\r\n` +
      `Cookie: ${cookie}\r\nContent-Type: ${type}`;
    const json = new TextEncoder().encode(JSON.stringify({ name: "Slow" }));
    const post = await SlowRequest.begin(
      baseUrl,
      head("/api/projects", "application/json"),
      json,
      5,
    );
    const boundary = "slow-boundary";
    const multipart = concat(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n`,
      "Content-Type: image/png\r\n\r\n",
      PNG,
      `\r\n--${boundary}--\r\n`,
    );
    const upload = await SlowRequest.begin(
      baseUrl,
      head(
        `/api/projects/${project.json.project.id}/files`,
        `multipart/form-data; boundary=${boundary}`,
      ),
      multipart,
      60,
    );
    server.child.kill("SIGTERM");
    await server.waitFor(/^SIGTERM: shutting down$/);
    // A request that comes now is refused, as a closed listener would refuse it; each on a
    // connection of its own, so that with WORKERS they reach every isolate (SO_REUSEPORT).
    // There a worker with nothing left to finish may have closed its listener already: its
    // connection is then closed, never answered with anything but the 503.
    for (let i = 0; i < 6; i++) {
      using client = Deno.createHttpClient({});
      let late: Response;
      try {
        late = await fetch(`${baseUrl}/api/projects`, { headers: { cookie }, client });
      } catch (error) {
        if (TEST_WORKERS !== "1" && error instanceof TypeError) continue;
        throw error;
      }
      assert.equal(late.status, 503);
      assert.equal((await late.json()).error.code, "unavailable");
    }

    const posted = await post.finish();
    assert.match(posted, /^HTTP\/1\.1 201 /, posted);
    assert.match(posted, /"name":"Slow"/);
    const uploaded = await upload.finish();
    assert.match(uploaded, /^HTTP\/1\.1 201 /, uploaded);
    assert.match(uploaded, /"name":"a\.png"/);
    const { code, lines } = await server.done;
    assert.equal(code, 0, lines.join("\n"));
    assert.ok(!lines.some((l) => l.startsWith("error")), lines.join("\n"));
    assert.ok(lines.includes("stopped"), lines.join("\n"));
  } finally {
    await removeDataDir(dataDir);
  }
});

Deno.test({
  name:
    "SIGTERM on a full disk: the failed checkpoint is one line, exit 0, and every write is there next start",
  ignore: ON_POSTGRES, // SQLite's checkpoint of its write-ahead log
}, async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "main-test-" });
  const path = join(dataDir, "collab.db");
  try {
    const first = await start({ DATA_DIR: dataDir });
    const cookie = await registerAt(first.baseUrl);
    first.child.kill("SIGTERM");
    assert.equal((await first.done).code, 0);
    // Room for the WAL to take new writes, none for the database file to grow into when
    // the checkpoint copies them over.
    const { size } = await Deno.stat(path);
    const full = await start({ DATA_DIR: dataDir }, size + 8192);
    assert.ok(full.baseUrl, full.lines.join("\n"));
    for (const name of ["One", "Two", "Three"]) {
      const res = await createProjectAt(full.baseUrl, cookie, {
        name,
        description: "x".repeat(10_000),
      });
      assert.equal(res.status, 201);
    }
    full.child.kill("SIGTERM");
    const { code, lines } = await full.done;
    assert.equal(code, 0, lines.join("\n"));
    const warnings = lines.filter((l) => l.startsWith("cannot checkpoint the database"));
    assert.equal(warnings.length, 1, lines.join("\n"));
    assert.match(warnings[0]!, /nothing is lost/);
    assert.ok(lines.includes("stopped"), lines.join("\n"));
    assert.ok(!lines.some((l) => /^\s+at /.test(l)), "no stack trace");

    // With room again, the next start replays the WAL: every acknowledged write is there.
    const again = await start({ DATA_DIR: dataDir });
    const list = await fetch(`${again.baseUrl}/api/projects`, { headers: { cookie } });
    const names = (await list.json()).items.map((p: { name: string }) => p.name).sort();
    assert.deepEqual(names, ["One", "Three", "Two"]);
    again.child.kill("SIGTERM");
    assert.equal((await again.done).code, 0);
    const db = new DatabaseSync(path);
    assert.deepEqual({ ...db.prepare("PRAGMA integrity_check").get() }, { integrity_check: "ok" });
    db.close();
  } finally {
    await removeDataDir(dataDir);
  }
});

Deno.test({
  name: "a damaged database stops start-up with one line, exit 1, and is not written to",
  ignore: ON_POSTGRES, // bytes overwritten in SQLite's file
}, async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "main-test-" });
  const path = join(dataDir, "collab.db");
  try {
    const first = await start({ DATA_DIR: dataDir });
    const cookie = await registerAt(first.baseUrl);
    for (const name of ["One", "Two", "Three", "Four"]) {
      assert.equal((await createProjectAt(first.baseUrl, cookie, { name })).status, 201);
    }
    first.child.kill("SIGTERM");
    assert.equal((await first.done).code, 0);
    // Bytes overwritten in the middle of the file, as a bad disk or a stray write would.
    const bytes = await Deno.readFile(path);
    const middle = Math.floor(bytes.length / 2 / 4096) * 4096;
    bytes.fill(0xa5, middle - 4 * 4096, middle + 4 * 4096);
    await Deno.writeFile(path, bytes);
    const check = new DatabaseSync(path, { readOnly: true });
    let verdict;
    try {
      verdict = check.prepare("PRAGMA integrity_check").all().map((r) => r.integrity_check);
    } catch (error) {
      verdict = [(error as Error).message];
    }
    check.close();
    assert.notDeepEqual(verdict, ["ok"]);

    const { code, output } = await run({ DATA_DIR: dataDir });
    assert.equal(code, 1, output);
    assert.match(output, /^Cannot start: database is damaged: restore from a backup \(/);
    assert.equal(output.trim().split("\n").length, 1, output);
    assert.deepEqual(await Deno.readFile(path), bytes);
  } finally {
    await removeDataDir(dataDir);
  }
});

Deno.test("a FILES_DIR that cannot be created or written stops start-up with one line and exit 1", async () => {
  const dir = await Deno.makeTempDir({ prefix: "main-test-" });
  try {
    const file = join(dir, "a-file");
    await Deno.writeTextFile(file, "not a directory");
    for (const filesDir of [file, join(file, "files"), "/proc/files"]) {
      const { code, output } = await run({ DATA_DIR: join(dir, "data"), FILES_DIR: filesDir });
      assert.equal(code, 1, output);
      assert.match(output, /^Cannot start: FILES_DIR \S+ cannot be created or written: /);
      assert.equal(output.trim().split("\n").length, 1, output);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a DATA_DIR that cannot be created or written stops start-up with one line and exit 1", async () => {
  const dir = await Deno.makeTempDir({ prefix: "main-test-" });
  try {
    const file = join(dir, "a-file");
    await Deno.writeTextFile(file, "not a directory");
    // Below a plain file nothing can be created; in /proc no file can be (root included).
    for (const dataDir of [join(file, "data"), "/proc"]) {
      const { code, output } = await run({ DATA_DIR: dataDir });
      assert.equal(code, 1, output);
      assert.match(output, /^Cannot start: DATA_DIR \S+ cannot be created or written: /);
      assert.equal(output.trim().split("\n").length, 1, output);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an empty or short session-secret file stops start-up with one line saying what to do", async () => {
  for (const [content, problem] of [["", "is empty"], ["abc\n", "is shorter than 32"]]) {
    const dataDir = await Deno.makeTempDir({ prefix: "main-test-" });
    try {
      await Deno.writeTextFile(join(dataDir, "session_secret"), content!);
      const { code, output } = await run({ DATA_DIR: dataDir });
      assert.equal(code, 1, output);
      assert.match(output, new RegExp(`^Cannot start: the session secret \\S+ ${problem}`));
      assert.match(output, /restore it from a backup, or delete it/);
      assert.equal(output.trim().split("\n").length, 1, output);
      // Refused before anything was written: no database, the file as it was.
      assert.deepEqual([...Deno.readDirSync(dataDir)].map((e) => e.name), ["session_secret"]);
      assert.equal(await Deno.readTextFile(join(dataDir, "session_secret")), content);
    } finally {
      await removeDataDir(dataDir);
    }
  }
});

Deno.test("the generated session secret is written whole, kept across restarts, with no temporary left", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "main-test-" });
  try {
    for (let i = 0; i < 2; i++) {
      const server = await start({ DATA_DIR: dataDir });
      server.child.kill("SIGTERM");
      assert.equal((await server.done).code, 0);
    }
    const secret = await Deno.readTextFile(join(dataDir, "session_secret"));
    assert.match(secret, /^[0-9a-f]{64}\n$/);
    const names = [...Deno.readDirSync(dataDir)].map((e) => e.name).sort();
    assert.deepEqual(names, ON_POSTGRES ? ["session_secret"] : ["collab.db", "session_secret"]);
  } finally {
    await removeDataDir(dataDir);
  }
});

Deno.test("start-up removes the temporary files of uploads and imports a crash cut short, and nothing else", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "main-test-" });
  try {
    const tmp = join(dataDir, "files", "tmp");
    await Deno.mkdir(tmp, { recursive: true });
    await Deno.mkdir(join(dataDir, "files", "1"));
    await Deno.writeTextFile(join(tmp, "0b8e-left-by-kill.part"), "half an upload");
    await Deno.writeTextFile(join(tmp, "another.part"), "");
    await Deno.mkdir(join(tmp, "7f3a-left-by-kill.import"));
    await Deno.writeTextFile(join(tmp, "7f3a-left-by-kill.import", "file-1"), "half an import");
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
    await removeDataDir(dataDir);
  }
});

Deno.test("the server sweeps the trash at start-up, and stops its sweeps on SIGTERM", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "main-test-" });
  try {
    const env = { DATA_DIR: dataDir, TRASH_DAYS: "0" };
    const first = await start(env);
    let noteId: number;
    try {
      const post = (path: string, body: unknown, cookie = "") =>
        fetch(`${first.baseUrl}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", cookie },
          body: JSON.stringify(body),
        });
      const registered = await post("/api/auth/register", {
        email: "ann@example.com",
        password: "correct horse battery",
        displayName: "Ann",
      });
      await registered.body?.cancel();
      const cookie = registered.headers.getSetCookie().find((c) => c.startsWith("session="))!
        .split(";")[0]!;
      const project = (await (await post("/api/projects", { name: "P" }, cookie)).json()).project;
      const note = (await (await post(
        `/api/projects/${project.id}/notes`,
        { title: "Gone", body: "" },
        cookie,
      )).json()).note;
      noteId = note.id;
      const deleted = await fetch(`${first.baseUrl}/api/projects/${project.id}/notes/${note.id}`, {
        method: "DELETE",
        headers: { cookie },
      });
      assert.equal(deleted.status, 204);
    } finally {
      first.child.kill("SIGTERM");
      assert.equal((await first.done).code, 0);
    }
    // The note waits in the trash for the next sweep: the one at the next start.
    const second = await start(env);
    try {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const none = new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve("(no sweep within 10 s)"), 10_000);
      });
      const line = await Promise.race([second.waitFor(/^trash sweep:/), none]);
      clearTimeout(timer);
      assert.equal(line, "trash sweep: purged 1 items and 0 projects");
    } finally {
      second.child.kill("SIGTERM");
      const { code, lines } = await second.done;
      assert.equal(code, 0, lines.join("\n"));
      assert.ok(lines.includes("stopped"));
    }
    const stored = await storedEngine(dataDir);
    try {
      const row = await stored.get<{ n: number }>(
        "SELECT count(*) AS n FROM notes WHERE id = ?",
        [noteId],
      );
      assert.equal(Number(row?.n), 0);
    } finally {
      await stored.close();
    }
  } finally {
    await removeDataDir(dataDir);
  }
});

Deno.test("LOCAL_LOGIN=off while no admin has an SSO identity stops start-up with one line; OIDC_ISSUER needs BASE_URL", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "main-test-" });
  try {
    const sso = {
      DATA_DIR: dataDir,
      OIDC_ISSUER: "http://127.0.0.1:9/",
      OIDC_CLIENT_ID: "collab",
      OIDC_CLIENT_SECRET: "secret",
    };
    let { code, output } = await run(sso);
    assert.equal(code, 1);
    assert.match(output, /OIDC_ISSUER is set but BASE_URL is not/);
    ({ code, output } = await run({ ...sso, BASE_URL: "http://127.0.0.1:8", LOCAL_LOGIN: "off" }));
    assert.equal(code, 1);
    assert.match(output, /redirect URI http:\/\/127\.0\.0\.1:8\/auth\/oidc\/callback/);
    const refusals = output.split("\n").filter((l) => l.startsWith("Cannot start"));
    assert.deepEqual(refusals, [
      "Cannot start: LOCAL_LOGIN=off but no admin has a single sign-on identity yet: start " +
      "with LOCAL_LOGIN=admins, let an admin sign in by SSO once, then switch to off",
    ]);
  } finally {
    await removeDataDir(dataDir);
  }
});
