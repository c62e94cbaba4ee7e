/**
 * Memory of concurrent uploads: N unfinished multipart uploads of M MiB each, held open.
 *
 * For each route (the API's `POST /api/projects/{id}/files` and the files page's form
 * `POST /projects/{id}/files`) it starts a fresh real server (`deno task start`'s command,
 * fresh data directory, default `MAX_UPLOAD_MB`), registers an owner with a project, makes a
 * few small uploads (so loading code is not counted as upload memory), then:
 *
 * 1. reads the server's idle `VmRSS` (after a second of quiet) and resets its peak RSS
 *    (`/proc/<pid>/clear_refs`);
 * 2. opens N raw TCP connections and on each sends the request head (with `Content-Length`,
 *    or `Transfer-Encoding: chunked` when BENCH_CHUNKED=1), the multipart head and M MiB of
 *    file bytes, but not the closing boundary: N uploads stay unfinished at once;
 * 3. waits BENCH_HOLD_MS and reads the peak RSS (`VmHWM`); peak minus idle is the figure
 *    checked;
 * 4. sends the closing boundaries and checks every upload was stored (201 / 303).
 *
 * First, the same is measured against a floor: a bare `Deno.serve` in this file (`--floor`)
 * that reads each body into one reused buffer and writes it to a file, parsing nothing. It
 * is what the runtime itself costs for these uploads; it has no target.
 *
 * Environment: BENCH_UPLOADS (16), BENCH_UPLOAD_MIB (24), BENCH_HOLD_MS (2000),
 * BENCH_CHUNKED (0), BENCH_LIMIT_MIB (64: the target for peak minus idle).
 * Linux only (/proc). Exits 1 when a target or check fails, 2 when the benchmark itself
 * cannot run, 130 when interrupted.
 */
import { join } from "node:path";
import {
  BenchError,
  envNumber,
  freePort,
  onCleanup,
  procStatusKib,
  runMain,
  spawn,
  startTaskArgs,
  stop,
  tempDirs,
  waitUntilReady,
} from "./harness.ts";

const MIB = 1024 * 1024;
const encoder = new TextEncoder();

/** The session cookie (`session=...`) set by a response. */
function sessionCookieOf(response: Response): string {
  for (const line of response.headers.getSetCookie()) {
    const pair = line.split(";")[0]!;
    if (pair.startsWith("session=")) return pair;
  }
  throw new BenchError(`no session cookie in the answer to ${response.url}`);
}

async function json(url: string, body: unknown, cookie: string | null, want: number) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...(cookie ? { cookie } : {}) },
    body: JSON.stringify(body),
  });
  if (response.status !== want) {
    throw new BenchError(`POST ${url} answered ${response.status}: ${await response.text()}`);
  }
  return response;
}

/** Writes all of `bytes` to `conn`. */
async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += await conn.write(bytes.subarray(written));
}

/** Reads a whole HTTP/1.1 answer's status line (the connection is closed after). */
async function readStatus(conn: Deno.Conn): Promise<number> {
  const buffer = new Uint8Array(4096);
  let text = "";
  while (!text.includes("\r\n")) {
    const n = await conn.read(buffer);
    if (n === null) break;
    text += new TextDecoder().decode(buffer.subarray(0, n));
  }
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
}

/** One unfinished upload: everything but the closing boundary, then the rest on `finish`. */
class Upload {
  readonly #conn: Deno.Conn;
  readonly #chunked: boolean;
  readonly #tail: Uint8Array;

  private constructor(conn: Deno.Conn, chunked: boolean, tail: Uint8Array) {
    this.#conn = conn;
    this.#chunked = chunked;
    this.#tail = tail;
  }

  static async send(
    port: number,
    path: string,
    cookie: string,
    bytes: number,
    chunked: boolean,
  ): Promise<Upload> {
    const boundary = `bench-${crypto.randomUUID()}`;
    const head = encoder.encode(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.txt"\r\n` +
        `Content-Type: text/plain\r\n\r\n`,
    );
    const tail = encoder.encode(`\r\n--${boundary}--\r\n`);
    const length = head.length + bytes + tail.length;
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    onCleanup(() => {
      try {
        conn.close();
      } catch { /* closed */ }
    });
    const request = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nCookie: ${cookie}\r\n` +
      `Content-Type: multipart/form-data; boundary=${boundary}\r\nConnection: close\r\n` +
      (chunked ? "Transfer-Encoding: chunked\r\n\r\n" : `Content-Length: ${length}\r\n\r\n`);
    const upload = new Upload(conn, chunked, tail);
    await writeAll(conn, encoder.encode(request));
    await upload.#body(head);
    const block = new Uint8Array(256 * 1024).fill(0x61);
    for (let sent = 0; sent < bytes; sent += block.length) {
      await upload.#body(block.subarray(0, Math.min(block.length, bytes - sent)));
    }
    return upload;
  }

  async #body(bytes: Uint8Array): Promise<void> {
    if (!this.#chunked) return await writeAll(this.#conn, bytes);
    await writeAll(this.#conn, encoder.encode(`${bytes.length.toString(16)}\r\n`));
    await writeAll(this.#conn, bytes);
    await writeAll(this.#conn, encoder.encode("\r\n"));
  }

  /** Sends the closing boundary and reads the answer's status. */
  async finish(): Promise<number> {
    await this.#body(this.#tail);
    if (this.#chunked) await writeAll(this.#conn, encoder.encode("0\r\n\r\n"));
    const status = await readStatus(this.#conn);
    this.#conn.close();
    return status;
  }
}

interface Outcome {
  route: string;
  idleMib: number;
  peakMib: number;
  statuses: number[];
  seconds: number;
  exitCode: number;
}

/** Resets the peak RSS (`VmHWM`) of `pid` to its current RSS (Linux: clear_refs 5). */
function resetPeak(pid: number): void {
  try {
    Deno.writeTextFileSync(`/proc/${pid}/clear_refs`, "5");
  } catch (error) {
    throw new BenchError(`cannot reset the peak RSS of ${pid}: ${(error as Error).message}`);
  }
}

/** One route against a fresh server: idle RSS, then N unfinished uploads, then their end. */
async function measure(
  root: string,
  route: Route,
  options: { uploads: number; bytes: number; holdMs: number; chunked: boolean },
): Promise<Outcome> {
  const temp = await Deno.makeTempDir({ prefix: "upload-bench-" });
  tempDirs.push(temp);
  const port = freePort();
  const start = startTaskArgs(await Deno.readTextFile(join(root, "deno.json")), root);
  const server = spawn(
    route.name,
    // The floor runs with the start task's flags too, in place of main.ts.
    route.name === "floor" ? [...start.slice(0, -1), import.meta.filename!, "--floor"] : start,
    {
      env: { DATA_DIR: join(temp, "data"), PORT: String(port), HOST: "127.0.0.1" },
      cwd: root,
      port,
    },
  );
  await waitUntilReady(server, "/healthz");
  const pid = server.child.pid;
  let cookie = "none=0";
  let projectId = 0;
  if (route.name !== "floor") {
    cookie = sessionCookieOf(
      await json(
        `${server.url}/api/auth/register`,
        { email: "owner@bench.example", password: "upload-benchmark-pw", displayName: "Owner" },
        null,
        201,
      ),
    );
    const created = await json(`${server.url}/api/projects`, { name: "Uploads" }, cookie, 201);
    projectId = (await created.json() as { project: { id: number } }).project.id;
  }
  const path = route.path(projectId);
  // Warm-up: a few small uploads, so loading code is not counted as upload memory.
  for (let i = 0; i < 3; i++) {
    const status = await (await Upload.send(port, path, cookie, 256 * 1024, options.chunked))
      .finish();
    if (status !== route.status) throw new BenchError(`warm-up upload answered ${status}`);
  }
  await new Promise((r) => setTimeout(r, 1000));
  const idle = procStatusKib(pid, "VmRSS") ?? NaN;
  resetPeak(pid);
  const started = performance.now();
  const uploads = await Promise.all(
    Array.from(
      { length: options.uploads },
      () => Upload.send(port, path, cookie, options.bytes, options.chunked),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  await new Promise((r) => setTimeout(r, options.holdMs));
  const peak = procStatusKib(pid, "VmHWM") ?? NaN;
  const statuses = await Promise.all(uploads.map((u) => u.finish()));
  const stopped = await stop(server);
  return {
    route: route.name,
    idleMib: idle / 1024,
    peakMib: peak / 1024,
    statuses,
    seconds,
    exitCode: stopped.code,
  };
}

interface Route {
  name: string;
  path: (projectId: number) => string;
  /** The status of a stored upload. */
  status: number;
}

const ROUTES: Route[] = [
  { name: "floor", path: () => "/upload", status: 200 },
  { name: "api", path: (id) => `/api/projects/${id}/files`, status: 201 },
  { name: "page", path: (id) => `/projects/${id}/files`, status: 303 },
];

/**
 * The floor: a bare `Deno.serve` that reads each body into one reused 64 KiB buffer and
 * writes it to a file, parsing nothing. What the runtime itself costs; it has no target.
 */
function serveFloor(): void {
  const dir = join(Deno.env.get("DATA_DIR")!, "floor");
  Deno.mkdirSync(dir, { recursive: true });
  Deno.serve({
    hostname: "127.0.0.1",
    port: Number(Deno.env.get("PORT")),
    onListen: () => {},
  }, async (request) => {
    if (!request.body) return new Response("ok");
    const file = await Deno.open(join(dir, crypto.randomUUID()), { write: true, createNew: true });
    const reader = request.body.getReader({ mode: "byob" });
    let buffer = new ArrayBuffer(64 * 1024);
    for (;;) {
      const { done, value } = await reader.read(new Uint8Array(buffer));
      if (done) break;
      let written = 0;
      while (written < value.byteLength) written += await file.write(value.subarray(written));
      buffer = value.buffer as ArrayBuffer;
    }
    file.close();
    return new Response("ok");
  });
}

async function run(): Promise<boolean> {
  const uploads = envNumber("BENCH_UPLOADS", 16, 1);
  const mib = envNumber("BENCH_UPLOAD_MIB", 24, 1);
  const holdMs = envNumber("BENCH_HOLD_MS", 2000, 0);
  const chunked = envNumber("BENCH_CHUNKED", 0, 0) === 1;
  const limitMib = envNumber("BENCH_LIMIT_MIB", 64, 1);
  const root = join(import.meta.dirname!, "..");
  console.log(
    `${uploads} concurrent unfinished uploads of ${mib} MiB (${
      chunked ? "chunked" : "Content-Length"
    }), held ${holdMs} ms; a fresh server (deno task start) per route; Deno ${Deno.version.deno}`,
  );
  let ok = true;
  for (const route of ROUTES) {
    const outcome = await measure(root, route, { uploads, bytes: mib * MIB, holdMs, chunked });
    const growth = outcome.peakMib - outcome.idleMib;
    const stored = outcome.statuses.filter((s) => s === route.status).length;
    // The floor is a reference, with no target of its own.
    const pass = stored === uploads && (route.name === "floor" ||
      (growth <= limitMib && outcome.exitCode === 0));
    ok &&= pass;
    console.log(
      `${route.name.padEnd(5)} idle ${outcome.idleMib.toFixed(1)} MiB  peak ${
        outcome.peakMib.toFixed(1)
      } MiB  growth ${growth.toFixed(1)} MiB (${
        route.name === "floor" ? "no target" : `target <= ${limitMib}`
      })  stored ${stored}/${uploads} ` +
        `(statuses ${[...new Set(outcome.statuses)].join(",")})  sent in ${
          outcome.seconds.toFixed(1)
        } s  exit ${outcome.exitCode}  ${pass ? "PASS" : "FAIL"}`,
    );
  }
  console.log(ok ? "all targets met" : "FAILED");
  return ok;
}

if (import.meta.main) {
  if (Deno.args.includes("--floor")) serveFloor();
  else await runMain(run);
}
