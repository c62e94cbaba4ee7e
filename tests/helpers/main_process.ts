/**
 * Test helpers for `main.ts` as a process: a real server, and its commands. When the suite runs
 * on PostgreSQL (`DATABASE_URL`, tests/helpers/test_database.ts), a server started for a data
 * directory runs on a database of that directory's own (`engineEnv`), made empty so that the
 * server migrates it at start-up as in production, and dropped by `removeDataDir`. A child
 * never inherits the test process's own `DATABASE_URL`: only what a test gives it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Engine } from "../../db/kernel/engine.ts";
import { openPostgresEngine } from "../../db/postgres/engine.ts";
import { openSqliteEngine } from "../../db/sqlite/sqlite_engine.ts";
import { createTestDatabase, ON_POSTGRES, type TestDatabase } from "./test_database.ts";

/** The entry point the tests run. */
export const MAIN = join(import.meta.dirname!, "..", "..", "main.ts");

/** What `deno task start` grants, and so what the commands get in these tests. */
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
 * How many isolates a server process serves on (`WORKERS`): `TEST_WORKERS` when set (the CI
 * runs the SOAP, stream and background tests with 2 as well), else 1.
 */
export const TEST_WORKERS = Deno.env.get("TEST_WORKERS") ?? "1";

const BASE_ENV = { HOST: "127.0.0.1", PORT: "0", NO_COLOR: "1", WORKERS: TEST_WORKERS };

/**
 * The environment of a child process: the test process's own less `DATABASE_URL` (the suite's
 * server, not a database of the child's), then `env`. Pass it with `clearEnv: true`.
 */
export function childEnv(env: Record<string, string>): Record<string, string> {
  const inherited = Deno.env.toObject();
  delete inherited.DATABASE_URL;
  return { ...inherited, ...BASE_ENV, ...env };
}

const databases = new Map<string, Promise<TestDatabase>>();

/**
 * What puts a server process of `dataDir` on the suite's engine: on PostgreSQL, `DATABASE_URL`
 * naming the directory's own database (made empty on first use, kept across restarts); on
 * SQLite nothing (the database is the directory's file).
 */
export async function engineEnv(dataDir: string): Promise<Record<string, string>> {
  if (!ON_POSTGRES) return {};
  let database = databases.get(dataDir);
  if (!database) {
    database = createTestDatabase({ migrated: false });
    databases.set(dataDir, database);
  }
  return { DATABASE_URL: (await database).url };
}

/** Removes a server's data directory and, on PostgreSQL, drops its database. */
export async function removeDataDir(dataDir: string): Promise<void> {
  const database = databases.get(dataDir);
  databases.delete(dataDir);
  try {
    await (await database)?.drop();
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
}

/**
 * The storage a stopped server of `dataDir` wrote, to check what it stored: its SQLite file,
 * or on PostgreSQL its database. Close it after use.
 */
export async function storedEngine(dataDir: string): Promise<Engine> {
  if (!ON_POSTGRES) return openSqliteEngine(join(dataDir, "collab.db"));
  return openPostgresEngine((await engineEnv(dataDir)).DATABASE_URL!, { max: 1 });
}

/** Standard output and error of a process as lines, read as they come. */
function lines(stream: ReadableStream<Uint8Array>, into: string[], onLine?: () => void) {
  return (async () => {
    let rest = "";
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      rest += chunk;
      const parts = rest.split("\n");
      rest = parts.pop()!;
      into.push(...parts);
      onLine?.();
    }
    if (rest) into.push(rest);
  })();
}

/** A command of `main.ts` that has ended. */
export interface Finished {
  code: number;
  stdout: string[];
  stderr: string[];
}

/** A command of `main.ts` still running. */
export interface RunningCommand {
  child: Deno.ChildProcess;
  stdout: string[];
  stderr: string[];
  /** Resolves once a line of standard output matches `pattern`. */
  waitFor(pattern: RegExp): Promise<void>;
  done: Promise<Finished>;
}

/** Starts `main.ts <args>` with `env` added to the test environment. */
export function spawnMain(args: string[], env: Record<string, string> = {}): RunningCommand {
  const child = new Deno.Command(Deno.execPath(), {
    args: [...DENO_RUN, ...args],
    clearEnv: true,
    env: childEnv(env),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout: string[] = [];
  const stderr: string[] = [];
  const waiters: Array<{ pattern: RegExp; resolve: () => void }> = [];
  const check = () => {
    for (const w of [...waiters]) {
      if (stdout.some((l) => w.pattern.test(l))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  };
  const reading = Promise.all([lines(child.stdout, stdout, check), lines(child.stderr, stderr)]);
  const done = (async () => {
    const status = await child.status;
    await reading;
    check();
    return { code: status.code, stdout, stderr };
  })();
  const waitFor = (pattern: RegExp) =>
    new Promise<void>((resolve, reject) => {
      waiters.push({ pattern, resolve });
      check();
      done.then(() => {
        if (waiters.some((w) => w.resolve === resolve)) {
          reject(
            new Error(`ended before printing ${pattern}: ${[...stdout, ...stderr].join("\n")}`),
          );
        }
      });
    });
  return { child, stdout, stderr, waitFor, done };
}

/** Runs `main.ts <args>` to its end. */
export function runMain(args: string[], env: Record<string, string> = {}): Promise<Finished> {
  return spawnMain(args, env).done;
}

/** A server process serving `dataDir`. */
export interface MainServer {
  baseUrl: string;
  /** Stops it with SIGTERM and checks that it exited 0. */
  stop(): Promise<void>;
}

/**
 * Starts the server on `dataDir` (and on PostgreSQL its database, unless `env` names one) and
 * waits until it listens.
 */
export async function startServer(
  dataDir: string,
  env: Record<string, string> = {},
): Promise<MainServer> {
  const database = env.DATABASE_URL ? {} : await engineEnv(dataDir);
  const running = spawnMain([], { DATA_DIR: dataDir, ...database, ...env });
  try {
    await running.waitFor(/^listening on http:\/\/\S+/);
  } catch (error) {
    throw new Error(`the server did not start: ${(error as Error).message}`);
  }
  const line = running.stdout.find((l) => l.startsWith("listening on "))!;
  return {
    baseUrl: line.replace(/^listening on /, ""),
    async stop() {
      try {
        running.child.kill("SIGTERM");
      } catch { /* already gone */ }
      const { code, stderr } = await running.done;
      assert.equal(code, 0, stderr.join("\n"));
    },
  };
}

/** Concatenates byte arrays. */
export function concat(...parts: Array<Uint8Array | string>): Uint8Array {
  const chunks = parts.map((p) => typeof p === "string" ? new TextEncoder().encode(p) : p);
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/**
 * A request sent by hand over TCP: the head with `Expect: 100-continue`, then the body in
 * two parts, so a test can act between them.
 */
export class SlowRequest {
  readonly #conn: Deno.Conn;
  readonly #body: Uint8Array;

  private constructor(conn: Deno.Conn, body: Uint8Array) {
    this.#conn = conn;
    this.#body = body;
  }

  /** Sends the head and the first `sent` bytes of `body` once the server asks for it. */
  static async begin(
    baseUrl: string,
    head: string,
    body: Uint8Array,
    sent: number,
  ): Promise<SlowRequest> {
    const { hostname, port } = new URL(baseUrl);
    const conn = await Deno.connect({ hostname, port: Number(port) });
    await conn.write(new TextEncoder().encode(
      `${head}\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n` +
        "Connection: close\r\n\r\n",
    ));
    // "100 Continue" comes once the handler reads the body: the request is in flight.
    const buf = new Uint8Array(256);
    const n = await conn.read(buf);
    assert.match(new TextDecoder().decode(buf.subarray(0, n ?? 0)), /^HTTP\/1\.1 100 Continue/);
    await conn.write(body.subarray(0, sent));
    const request = new SlowRequest(conn, body);
    request.#sent = sent;
    return request;
  }

  #sent = 0;

  /** Sends the rest of the body and reads the whole answer. */
  async finish(): Promise<string> {
    await this.#conn.write(this.#body.subarray(this.#sent));
    let text = "";
    const buf = new Uint8Array(16384);
    for (;;) {
      const n = await this.#conn.read(buf);
      if (n === null) break;
      text += new TextDecoder().decode(buf.subarray(0, n));
    }
    this.#conn.close();
    return text;
  }
}
