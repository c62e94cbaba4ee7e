/**
 * Fan-out benchmark of the project event stream: one chat message to N stream clients.
 *
 * For each N (100, 1,000 and 5,000 by default) it starts the real server (`main.ts`, fresh
 * data directory, `SSE_MAX_STREAMS` and `SSE_MAX_STREAMS_PER_USER` raised just enough for
 * N), registers an owner (who posts) and `BENCH_READERS` members (whose session cookies open
 * the streams), opens N streams with raw TCP clients, then sends chat messages one at a
 * time. Per message it records the time from sending `POST .../chat/messages` to the
 * moment the LAST of the N clients has read that `chat.message.created` event, and reports
 * p50/p95/p99 over the measured messages with the server's peak RSS (`VmHWM`).
 *
 * A ceiling is measured in the same run: a bare `Deno.serve` in this file (`--ceiling`) that
 * writes the same kind of event to N `ReadableStream`s, driven by the same clients. It is the
 * most Deno plus this load generator can do on this machine; it has no target.
 *
 * With BENCH_INSTANCES=2 (needs Debian's postgresql) each N runs instead against two `main.ts`
 * processes on one throwaway PostgreSQL cluster (`startPostgres()`): the same DATABASE_URL,
 * FILES_DIR and SESSION_SECRET, each its own PORT and DATA_DIR. The N streams are split
 * between them, the POSTs alternate between them, and the latency is until the last client on
 * either has the event; also printed by the instance that took the POST, for its own clients
 * and the other's. N defaults to 1,000 and the ceiling is off (BENCH_CEILING=1 adds it).
 * Every client must read every message exactly once, in order, in both modes.
 *
 * Environment: BENCH_N ("100,1000,5000"; "1000" with two instances), BENCH_INSTANCES (1, or
 * 2), BENCH_MESSAGES (200 measured per N), BENCH_WARMUP (20 unmeasured messages per N first),
 * BENCH_INTERVAL_MS (20: least time from one POST to the next), BENCH_READERS (10 member
 * accounts sharing the N streams), BENCH_CEILING (1, or 0 with two instances; 0 skips the
 * ceiling), BENCH_TIMEOUT_MS (30000 per message), BENCH_SERVER_ARGS (extra `deno run` flags
 * for the servers).
 * Linux only (/proc). Exits 1 when a target or check fails, 2 when the benchmark itself
 * cannot run, 130 when interrupted.
 */
import { join } from "node:path";
import { postgresBin, startPostgres } from "../tests/helpers/postgres.ts";
import {
  BenchError,
  cpuSeconds,
  envNumber,
  freePort,
  onCleanup,
  procStatusKib,
  readClockTicks,
  runMain,
  type Server,
  spawn,
  startTaskArgs,
  stop,
  tempDirs,
  waitUntilReady,
} from "./harness.ts";

/** Targets: last-client latency p99 and server peak RSS, by N. */
const TARGETS: Record<number, { p99Ms: number; rssMib?: number }> = {
  1000: { p99Ms: 50 },
  5000: { p99Ms: 150, rssMib: 500 },
};

/** Targets with two instances on PostgreSQL (BENCH_INSTANCES=2): the last client on either. */
const INSTANCE_TARGETS: Record<number, { p99Ms: number; rssMib?: number }> = {
  1000: { p99Ms: 100 },
};

/** Marks a benchmark message in the event's data line: `~fo~<seq>~<send µs>~`. */
const MARKER = new TextEncoder().encode("~fo~");
const HEAD_END = new TextEncoder().encode("\r\n\r\n");
const TILDE = 0x7e;
const ZERO = 0x30;
const NINE = 0x39;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function envList(name: string, fallback: number[]): number[] {
  const raw = Deno.env.get(name)?.trim();
  if (raw === undefined || raw === "") return fallback;
  const list = raw.split(",").map((s) => Number(s.trim()));
  if (list.some((n) => !Number.isInteger(n) || n < 1)) {
    throw new BenchError(`${name}=${JSON.stringify(raw)}: expected positive whole numbers`);
  }
  return list;
}

// ---------------------------------------------------------------------------------------
// Sockets

const sockets = new Set<Deno.TcpConn>();

onCleanup(() => {
  for (const conn of sockets) {
    try {
      conn.close();
    } catch { /* already closed */ }
  }
  sockets.clear();
});

// ---------------------------------------------------------------------------------------
// /proc

/** Microseconds in which some task waited for a CPU, machine-wide (PSI), or NaN. */
function cpuStallUs(): number {
  try {
    const text = Deno.readTextFileSync("/proc/pressure/cpu");
    return Number(text.match(/^some .*total=(\d+)/m)?.[1] ?? NaN);
  } catch {
    return NaN;
  }
}

/** The one-minute load average, or NaN. */
function loadAverage(): number {
  try {
    return Number(Deno.readTextFileSync("/proc/loadavg").split(" ")[0]);
  } catch {
    return NaN;
  }
}

// ---------------------------------------------------------------------------------------
// Stream clients: raw HTTP/1.1 over TCP, scanning the bytes for the marker

/**
 * Per message: how many clients have it, when the first and the last read it, and when the
 * last of each group (the clients of one server instance) read it.
 */
interface Arrival {
  sentAt: number;
  count: number;
  first: number;
  last: number;
  lastBy: number[];
  done: () => void;
}

/** All clients of one run, and the messages in flight. */
class Fleet {
  readonly clients: StreamClient[] = [];
  readonly arrivals = new Map<number, Arrival>();
  /** Messages whose marker did not parse, and sequence gaps or repeats, over all clients. */
  malformed = 0;
  gaps = 0;
  closedEarly = 0;
  measuring = true;

  receive(seq: number, sentUs: number, at: number, group: number): void {
    const arrival = this.arrivals.get(seq);
    if (!arrival) return void this.malformed++;
    if (Math.abs(sentUs / 1000 - arrival.sentAt) > 0.01) this.malformed++;
    if (arrival.count === 0 || at < arrival.first) arrival.first = at;
    if (at > arrival.last) arrival.last = at;
    if (at > (arrival.lastBy[group] ?? 0)) arrival.lastBy[group] = at;
    if (++arrival.count === this.clients.length) arrival.done();
  }

  /** Clients that did not read exactly messages 1 to `total`, once each and in order. */
  incomplete(total: number): number {
    return this.clients.filter((c) => c.received !== total || c.lastSeq !== total).length;
  }

  closeAll(): void {
    this.measuring = false;
    for (const client of this.clients) client.close();
  }
}

class StreamClient {
  readonly #conn: Deno.TcpConn;
  readonly #fleet: Fleet;
  /** Which server instance it reads from (0 with one server). */
  readonly #group: number;
  readonly #buf = new Uint8Array(8192);
  /** The unfinished start of a marker at the end of the last read. */
  #carry: Uint8Array | null = null;
  /** The newest message read, and how many were read (each counted once, in order). */
  lastSeq = 0;
  received = 0;
  #closed = false;

  constructor(conn: Deno.TcpConn, fleet: Fleet, group: number) {
    this.#conn = conn;
    this.#fleet = fleet;
    this.#group = group;
  }

  /** Connects, sends the GET and reads the response head; then reads in the background. */
  static async open(
    fleet: Fleet,
    port: number,
    path: string,
    cookie: string,
    group = 0,
  ): Promise<void> {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    sockets.add(conn);
    const client = new StreamClient(conn, fleet, group);
    let rest: Uint8Array;
    try {
      conn.setNoDelay(true);
      rest = await client.#head(port, path, cookie, fleet.clients.length + 1);
    } catch (error) {
      client.close();
      throw error;
    }
    fleet.clients.push(client);
    client.#scan(rest, performance.now());
    void client.#readLoop();
  }

  /** Sends the request and checks the response head; returns the bytes after it. */
  async #head(port: number, path: string, cookie: string, nth: number): Promise<Uint8Array> {
    const request = `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
      `Accept: text/event-stream\r\n${cookie ? `Cookie: ${cookie}\r\n` : ""}\r\n`;
    await writeAll(this.#conn, encoder.encode(request));
    let head: Uint8Array = new Uint8Array(0);
    let end = -1;
    while (end < 0) {
      const n = await this.#conn.read(this.#buf);
      if (n === null) throw new BenchError(`stream ${path}: connection closed before the head`);
      head = concat(head, this.#buf.subarray(0, n));
      end = indexOf(head, HEAD_END, 0);
      if (end < 0 && head.length > 16_384) throw new BenchError("stream: response head too long");
    }
    const text = decoder.decode(head.subarray(0, end));
    const status = Number(text.match(/^HTTP\/1\.1 (\d{3})/)?.[1]);
    if (status !== 200) {
      throw new BenchError(
        `stream ${path} (client ${nth}) answered ${status}:\n` +
          decoder.decode(head).slice(0, 600) +
          (status === 429
            ? "\n(the server's stream limits: are SSE_MAX_STREAMS and " +
              "SSE_MAX_STREAMS_PER_USER read by domain/config.ts?)"
            : ""),
      );
    }
    if (!/content-type: text\/event-stream/i.test(text)) {
      throw new BenchError(`stream ${path}: not an event stream:\n${text}`);
    }
    return head.subarray(end + 4);
  }

  async #readLoop(): Promise<void> {
    const buf = this.#buf;
    while (true) {
      let n: number | null;
      try {
        n = await this.#conn.read(buf);
      } catch {
        n = null;
      }
      if (n === null) {
        if (!this.#closed && this.#fleet.measuring) this.#fleet.closedEarly++;
        this.close();
        return;
      }
      this.#scan(buf.subarray(0, n), performance.now());
    }
  }

  /** Finds `~fo~<seq>~<µs>~` in the bytes read (chunk-size lines and all). */
  #scan(bytes: Uint8Array, at: number): void {
    if (this.#carry) {
      bytes = concat(this.#carry, bytes);
      this.#carry = null;
    }
    let i = 0;
    while (true) {
      const start = indexOf(bytes, MARKER, i);
      if (start < 0) {
        // Keep a possible start of the marker cut off by the end of the read.
        for (let k = Math.max(i, bytes.length - MARKER.length + 1); k < bytes.length; k++) {
          if (startsMarker(bytes, k)) {
            this.#carry = bytes.slice(k);
            break;
          }
        }
        return;
      }
      let p = start + MARKER.length;
      let seq = 0;
      while (p < bytes.length && bytes[p]! >= ZERO && bytes[p]! <= NINE) {
        seq = seq * 10 + bytes[p++]! - ZERO;
      }
      let sentUs = 0;
      const afterSeq = p;
      if (p < bytes.length && bytes[p] === TILDE) {
        p++;
        while (p < bytes.length && bytes[p]! >= ZERO && bytes[p]! <= NINE) {
          sentUs = sentUs * 10 + bytes[p++]! - ZERO;
        }
      }
      if (p >= bytes.length) {
        this.#carry = bytes.slice(start);
        return;
      }
      if (bytes[p] !== TILDE || afterSeq === start + MARKER.length) {
        this.#fleet.malformed++;
      } else {
        if (seq !== this.lastSeq + 1) this.#fleet.gaps++;
        if (seq > this.lastSeq) {
          if (seq === this.lastSeq + 1) this.received++;
          this.lastSeq = seq;
          this.#fleet.receive(seq, sentUs, at, this.#group);
        }
      }
      i = p + 1;
    }
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    sockets.delete(this.#conn);
    try {
      this.#conn.close();
    } catch { /* already closed */ }
  }
}

function startsMarker(bytes: Uint8Array, k: number): boolean {
  for (let j = 0; k + j < bytes.length; j++) if (bytes[k + j] !== MARKER[j]) return false;
  return true;
}

function indexOf(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0]!;
  const last = haystack.length - needle.length;
  for (
    let i = haystack.indexOf(first, from);
    i >= 0 && i <= last;
    i = haystack.indexOf(first, i + 1)
  ) {
    let j = 1;
    while (j < needle.length && haystack[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  while (bytes.length > 0) bytes = bytes.subarray(await conn.write(bytes));
}

/**
 * Opens `count` streams, `parallel` at a time; `cookieOf(i)` picks each one's session; `group`
 * names the server instance they read from.
 */
async function openStreams(
  fleet: Fleet,
  port: number,
  path: string,
  count: number,
  cookieOf: (i: number) => string,
  group = 0,
  parallel = 50,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      await StreamClient.open(fleet, port, path, cookieOf(i), group);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, count) }, worker));
}

// ---------------------------------------------------------------------------------------
// Sending and measuring

interface RunResult {
  label: string;
  n: number;
  /** Per measured message, milliseconds from sending the POST. */
  lastMs: number[];
  firstMs: number[];
  postMs: number[];
  /** Per measured message, per server instance: until the last of its clients read it. */
  lastByMs: number[][];
  rssAfterOpenMib: number;
  peakRssMib: number;
  /** CPU time used per measured message (all threads), in milliseconds. */
  serverCpuMs: number;
  benchCpuMs: number;
  /** Share of the measured time some task waited for a CPU (/proc/pressure/cpu), and the load. */
  cpuPressure: number;
  loadAvg: number;
  gaps: number;
  malformed: number;
  closedEarly: number;
  postErrors: number;
  /** Clients that did not read every message exactly once, in order. */
  incomplete: number;
  stopCode: number | null;
  /** With several instances: each one's peak RSS (MiB) and clients, and the POSTs' instance. */
  instances?: { peakRssMib: number[]; clients: number[]; postVia: (seq: number) => number };
}

interface RunOptions {
  messages: number;
  warmup: number;
  intervalMs: number;
  timeoutMs: number;
}

/**
 * Sends warm-up then measured messages one at a time; each waits until all N have it.
 * `post(text, seq)` sends message `seq` (from 1); `serverPids` are the server processes whose
 * CPU time is counted.
 */
async function measure(
  fleet: Fleet,
  post: (text: string, seq: number) => Promise<boolean>,
  options: RunOptions,
  serverPids: number[],
): Promise<
  Pick<
    RunResult,
    | "lastMs"
    | "firstMs"
    | "postMs"
    | "lastByMs"
    | "incomplete"
    | "serverCpuMs"
    | "benchCpuMs"
    | "cpuPressure"
    | "loadAvg"
    | "postErrors"
  >
> {
  const lastMs: number[] = [];
  const firstMs: number[] = [];
  const postMs: number[] = [];
  const lastByMs: number[][] = [];
  const serverCpu = () => serverPids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  let postErrors = 0;
  let cpuServer0 = 0;
  let cpuSelf0 = 0;
  let wall0 = 0;
  let stall0 = 0;
  let previous = -Infinity;
  const total = options.warmup + options.messages;
  for (let seq = 1; seq <= total; seq++) {
    if (seq === options.warmup + 1) {
      cpuServer0 = serverCpu();
      cpuSelf0 = cpuSeconds("self");
      wall0 = performance.now();
      stall0 = cpuStallUs();
    }
    const wait = previous + options.intervalMs - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    let done!: () => void;
    const all = new Promise<void>((resolve) => done = resolve);
    const sentAt = performance.now();
    previous = sentAt;
    const arrival: Arrival = { sentAt, count: 0, first: 0, last: 0, lastBy: [], done };
    fleet.arrivals.set(seq, arrival);
    const sentUs = Math.round(sentAt * 1000);
    arrival.sentAt = sentUs / 1000;
    let postFailed!: () => void;
    const failed = new Promise<"post failed">((r) => postFailed = () => r("post failed"));
    const text = `~fo~${seq}~${sentUs}~ fan-out benchmark message ${seq}`;
    const posted = post(text, seq).then((ok) => {
      if (!ok) {
        postErrors++;
        postFailed();
      }
      return performance.now() - sentAt;
    });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<"timeout">((r) =>
      timer = setTimeout(() => r("timeout"), options.timeoutMs)
    );
    const outcome = await Promise.race([all, timeout, failed]);
    clearTimeout(timer);
    const postTook = await posted;
    if (outcome === "post failed") {
      throw new BenchError(`message ${seq}: the POST was not answered 201`);
    }
    if (outcome === "timeout") {
      throw new BenchError(
        `message ${seq}: ${arrival.count} of ${fleet.clients.length} clients had it after ` +
          `${options.timeoutMs} ms (streams closed early: ${fleet.closedEarly}, ` +
          `POST errors: ${postErrors})`,
      );
    }
    fleet.arrivals.delete(seq);
    if (seq > options.warmup) {
      lastMs.push(arrival.last - arrival.sentAt);
      firstMs.push(arrival.first - arrival.sentAt);
      postMs.push(postTook);
      lastByMs.push(arrival.lastBy.map((at) => at - arrival.sentAt));
    }
  }
  const wallMs = performance.now() - wall0;
  return {
    lastMs,
    firstMs,
    postMs,
    lastByMs,
    postErrors,
    incomplete: fleet.incomplete(total),
    serverCpuMs: (serverCpu() - cpuServer0) * 1000 / options.messages,
    benchCpuMs: (cpuSeconds("self") - cpuSelf0) * 1000 / options.messages,
    cpuPressure: (cpuStallUs() - stall0) / 1000 / wallMs,
    loadAvg: loadAverage(),
  };
}

/** The session cookie (`session=...`) set by a response. */
function sessionCookieOf(response: Response): string {
  for (const line of response.headers.getSetCookie()) {
    const pair = line.split(";")[0]!;
    if (pair.startsWith("session=")) return pair;
  }
  throw new BenchError(`no session cookie in the answer to ${response.url}`);
}

async function api(
  url: string,
  method: string,
  body: unknown,
  cookie: string | null,
  want: number,
): Promise<Response> {
  const response = await fetch(url, {
    method,
    headers: { "content-type": "application/json", ...(cookie ? { cookie } : {}) },
    body: JSON.stringify(body),
  });
  if (response.status !== want) {
    throw new BenchError(
      `${method} ${url} answered ${response.status} (expected ${want}): ${await response.text()}`,
    );
  }
  return response;
}

/** Extra `deno run` flags for the server (BENCH_SERVER_ARGS, e.g. `--cpu-prof`). */
function serverArgs(): string[] {
  return (Deno.env.get("BENCH_SERVER_ARGS") ?? "").split(/\s+/).filter((a) => a !== "");
}

/**
 * Starts `main.ts` as `deno task start` runs it (V8 flags included, plus BENCH_SERVER_ARGS) on
 * a free port with `env` added, and waits for `/healthz`.
 */
async function startBenchServer(
  name: string,
  root: string,
  env: Record<string, string>,
): Promise<Server> {
  const port = freePort();
  const start = startTaskArgs(await Deno.readTextFile(join(root, "deno.json")), root);
  const server = spawn(name, [...start.slice(0, -1), ...serverArgs(), ...start.slice(-1)], {
    env: { ...env, PORT: String(port), HOST: "127.0.0.1" },
    cwd: root,
    port,
  });
  await waitUntilReady(server, "/healthz");
  return server;
}

/** The stream limits of a server that is to hold `streams` streams of `readers` members. */
function streamLimits(streams: number, readers: number): Record<string, string> {
  // Just enough for this run: the limits themselves are exercised, not switched off.
  return {
    SSE_MAX_STREAMS: String(streams),
    SSE_MAX_STREAMS_PER_USER: String(Math.ceil(streams / readers)),
  };
}

/** The project, its owner (who posts) and its members' session cookies (who read). */
interface Audience {
  owner: string;
  projectId: number;
  readerCookies: string[];
}

/** Registers the owner (the first account, an admin), the project and `readers` members. */
async function setUpProject(baseUrl: string, readers: number): Promise<Audience> {
  const password = "fan-out-benchmark-password";
  const register = async (email: string, displayName: string) =>
    sessionCookieOf(
      await api(
        `${baseUrl}/api/auth/register`,
        "POST",
        { email, password, displayName },
        null,
        201,
      ),
    );
  const owner = await register("owner@bench.example", "Owner");
  const project = await (await api(
    `${baseUrl}/api/projects`,
    "POST",
    { name: "Fan-out" },
    owner,
    201,
  )).json() as { project: { id: number } };
  const projectId = project.project.id;
  // Registration hashes with scrypt (two at a time on the server): a few seconds in all.
  const readerCookies = await Promise.all(
    Array.from({ length: readers }, async (_, i) => {
      const email = `reader${i + 1}@bench.example`;
      const cookie = await register(email, `Reader ${i + 1}`);
      await (await api(
        `${baseUrl}/api/projects/${projectId}/members`,
        "POST",
        { email, role: "member" },
        owner,
        201,
      )).body?.cancel();
      return cookie;
    }),
  );
  return { owner, projectId, readerCookies };
}

/** Checks that a server holding `open` streams refuses one more with 429. */
async function expectLimit(server: Server, path: string, cookie: string, open: number) {
  const extraFleet = new Fleet();
  let limitHeld = false;
  try {
    await StreamClient.open(extraFleet, server.port, path, cookie);
  } catch (error) {
    limitHeld = error instanceof BenchError && / answered 429:/.test(error.message);
  }
  extraFleet.closeAll();
  if (!limitHeld) {
    throw new BenchError(`${server.name}: stream ${open + 1} was not refused with 429`);
  }
}

/** Sends a chat message as `cookie` to the chat of `projectId` at `baseUrl`; true on 201. */
async function postChat(
  baseUrl: string,
  projectId: number,
  cookie: string,
  text: string,
): Promise<boolean> {
  try {
    const response = await fetch(`${baseUrl}/api/projects/${projectId}/chat/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie },
      body: JSON.stringify({ text }),
    });
    await response.body?.cancel();
    return response.status === 201;
  } catch {
    return false;
  }
}

/** Peak RSS of a process in MiB (VmHWM, or VmRSS if larger). */
function peakRssMib(pid: number): number {
  return Math.max(procStatusKib(pid, "VmHWM") ?? 0, procStatusKib(pid, "VmRSS") ?? 0) / 1024;
}

/** One N against the real server. */
async function runServer(
  root: string,
  n: number,
  readers: number,
  options: RunOptions,
): Promise<RunResult> {
  const temp = await Deno.makeTempDir({ prefix: "fanout-bench-" });
  tempDirs.push(temp);
  const server = await startBenchServer("server", root, {
    DATA_DIR: join(temp, "data"),
    ...streamLimits(n, readers),
  });
  const pid = server.child.pid;
  const { owner, projectId, readerCookies } = await setUpProject(server.url, readers);

  const fleet = new Fleet();
  const path = `/api/projects/${projectId}/chat/stream`;
  const opened = performance.now();
  await openStreams(fleet, server.port, path, n, (i) => readerCookies[i % readers]!);
  await expectLimit(server, path, readerCookies[0]!, n);
  console.log(
    `  server: ${n} streams open in ${((performance.now() - opened) / 1000).toFixed(1)} s ` +
      `(${readers} members, at most ${Math.ceil(n / readers)} each; stream ${n + 1} got 429)`,
  );
  const rssAfterOpenMib = (procStatusKib(pid, "VmRSS") ?? 0) / 1024;

  const post = (text: string) => postChat(server.url, projectId, owner, text);
  const measured = await measure(fleet, post, options, [pid]);
  const peak = peakRssMib(pid);
  fleet.measuring = false;
  // Shut down with the streams open: the server must close them all and exit 0.
  const status = await stop(server);
  fleet.closeAll();
  return {
    label: "server",
    n,
    ...measured,
    rssAfterOpenMib,
    peakRssMib: peak,
    gaps: fleet.gaps,
    malformed: fleet.malformed,
    closedEarly: fleet.closedEarly,
    stopCode: status.code,
  };
}

/**
 * One N against two server instances on one throwaway PostgreSQL cluster: the same
 * DATABASE_URL, FILES_DIR and SESSION_SECRET, each its own PORT and DATA_DIR. The N streams are
 * split between them (the first takes the odd one), and the POSTs alternate between them, so
 * every message reaches half the clients through the other instance (LISTEN/NOTIFY).
 */
async function runInstances(
  root: string,
  n: number,
  readers: number,
  options: RunOptions,
): Promise<RunResult> {
  const temp = await Deno.makeTempDir({ prefix: "fanout-bench-pg-" });
  tempDirs.push(temp);
  const started = performance.now();
  // Default settings, as the other PostgreSQL benchmarks (fsync on).
  const pg = await startPostgres();
  onCleanup(() => pg.stop());
  const servers: Server[] = [];
  try {
    const secret = Array.from(
      crypto.getRandomValues(new Uint8Array(24)),
      (b) => b.toString(16).padStart(2, "0"),
    ).join("");
    const shares = [Math.ceil(n / 2), Math.floor(n / 2)];
    // One after the other: the first applies the migrations.
    for (const [k, share] of shares.entries()) {
      servers.push(
        await startBenchServer(`instance ${k + 1}`, root, {
          DATABASE_URL: pg.url,
          DATA_DIR: join(temp, `data${k + 1}`),
          FILES_DIR: join(temp, "files"),
          SESSION_SECRET: secret,
          ...streamLimits(Math.max(share, 1), readers),
        }),
      );
    }
    const pids = servers.map((s) => s.child.pid);
    // Set up through the first instance; the sessions are in the database, good on both.
    const { owner, projectId, readerCookies } = await setUpProject(servers[0]!.url, readers);
    console.log(
      `  PostgreSQL and 2 instances up, project set up in ` +
        `${((performance.now() - started) / 1000).toFixed(1)} s`,
    );

    const fleet = new Fleet();
    const path = `/api/projects/${projectId}/chat/stream`;
    const opened = performance.now();
    for (const [k, server] of servers.entries()) {
      const share = shares[k]!;
      await openStreams(fleet, server.port, path, share, (i) => readerCookies[i % readers]!, k);
      if (share > 0) await expectLimit(server, path, readerCookies[0]!, share);
    }
    console.log(
      `  2 instances: ${shares.join(" + ")} streams open in ` +
        `${((performance.now() - opened) / 1000).toFixed(1)} s (${readers} members; one more ` +
        `on each got 429)`,
    );
    const rssAfterOpenMib = Math.max(...pids.map((pid) => procStatusKib(pid, "VmRSS") ?? 0)) /
      1024;

    const postVia = (seq: number) => (seq - 1) % shares.length;
    const post = (text: string, seq: number) =>
      postChat(servers[postVia(seq)]!.url, projectId, owner, text);
    const measured = await measure(fleet, post, options, pids);
    const peaks = pids.map(peakRssMib);
    fleet.measuring = false;
    // Shut down with the streams open: each instance must close its own and exit 0.
    const codes: Array<number | null> = [];
    for (const server of servers.splice(0)) codes.push((await stop(server)).code);
    fleet.closeAll();
    return {
      label: "2 instances",
      n,
      ...measured,
      rssAfterOpenMib,
      peakRssMib: Math.max(...peaks),
      gaps: fleet.gaps,
      malformed: fleet.malformed,
      closedEarly: fleet.closedEarly,
      stopCode: codes.find((code) => code !== 0) ?? 0,
      instances: { peakRssMib: peaks, clients: shares, postVia },
    };
  } finally {
    // Instances before their database, so that they do not log its disappearance; a failure to
    // remove the cluster is reported without hiding the run's own error.
    for (const server of servers) await stop(server);
    await pg.stop().catch((error) =>
      console.error(`Cannot remove the PostgreSQL cluster: ${(error as Error).message}`)
    );
  }
}

/** One N against the ceiling (a bare Deno.serve fan-out in this file). */
async function runCeiling(script: string, n: number, options: RunOptions): Promise<RunResult> {
  const port = freePort();
  const server = spawn(
    "ceiling",
    ["run", "--allow-net", script, "--ceiling", String(port)],
    { env: {}, cwd: Deno.cwd(), port },
  );
  await waitUntilReady(server, "/healthz");
  const pid = server.child.pid;
  const fleet = new Fleet();
  await openStreams(fleet, port, "/stream", n, () => "");
  const rssAfterOpenMib = (procStatusKib(pid, "VmRSS") ?? 0) / 1024;
  const post = async (text: string) => {
    try {
      const response = await fetch(`${server.url}/publish`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ text }),
      });
      await response.body?.cancel();
      return response.status === 201;
    } catch {
      return false;
    }
  };
  const measured = await measure(fleet, post, options, [pid]);
  const peakRssMib = (procStatusKib(pid, "VmHWM") ?? 0) / 1024;
  fleet.measuring = false;
  const status = await stop(server);
  fleet.closeAll();
  return {
    label: "ceiling",
    n,
    ...measured,
    rssAfterOpenMib,
    peakRssMib,
    gaps: fleet.gaps,
    malformed: fleet.malformed,
    closedEarly: fleet.closedEarly,
    stopCode: status.code,
  };
}

// ---------------------------------------------------------------------------------------
// The ceiling server (`--ceiling <port>`)

function ceilingServer(port: number): void {
  const streams = new Set<ReadableStreamDefaultController<Uint8Array>>();
  let id = 0;
  Deno.serve({ port, hostname: "127.0.0.1", onListen: () => {} }, async (request) => {
    const path = new URL(request.url).pathname;
    if (path === "/healthz") return new Response("ok");
    if (path === "/stream") {
      let me: ReadableStreamDefaultController<Uint8Array>;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          me = controller;
          streams.add(controller);
          controller.enqueue(encoder.encode("retry: 3000\n\n"));
        },
        cancel() {
          streams.delete(me);
        },
      });
      return new Response(body, {
        headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
      });
    }
    if (path === "/publish" && request.method === "POST") {
      const { text } = await request.json() as { text: string };
      // About the size of a real chat.message.created event, encoded once.
      const now = new Date().toISOString();
      const data = JSON.stringify({
        id: ++id,
        projectId: 1,
        authorId: 1,
        text,
        createdAt: now,
        updatedAt: now,
        attachments: [],
      });
      const bytes = encoder.encode(`id: ${id}\nevent: chat.message.created\ndata: ${data}\n\n`);
      for (const controller of streams) controller.enqueue(bytes);
      return new Response(data, { status: 201, headers: { "content-type": "application/json" } });
    }
    return new Response("not found", { status: 404 });
  });
}

// ---------------------------------------------------------------------------------------
// Report

/** Nearest-rank percentile. */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const ms = (v: number) => v.toFixed(1);

function printTable(rows: string[][]): void {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join(" | ").trimEnd();
  console.log(line(rows[0]!));
  console.log(widths.map((w) => "-".repeat(w)).join("-|-"));
  for (const r of rows.slice(1)) console.log(line(r));
}

/**
 * With several instances: latencies by the instance the POST went through, for the clients
 * of that instance and of the other one (whose events came through PostgreSQL's
 * notifications).
 */
function printInstances(r: RunResult, warmup: number): void {
  const { peakRssMib, clients, postVia } = r.instances!;
  console.log(
    `\n${r.label}, N = ${r.n} (${clients.join(" + ")} clients, peak RSS ` +
      `${peakRssMib.map((m) => `${m.toFixed(0)} MiB`).join(" / ")}): ms from sending the POST ` +
      "until the last client read the event: of all N, of the instance that took the POST " +
      "(same), of the other instance (other)",
  );
  const rows: string[][] = [[
    "POST via",
    "messages",
    "last p50",
    "last p95",
    "last p99",
    "same p50",
    "same p99",
    "other p50",
    "other p99",
  ]];
  const via = r.lastMs.map((_, j) => postVia(warmup + 1 + j));
  for (const k of [...clients.keys(), -1]) {
    const picked = r.lastMs.flatMap((_, j) => (k === -1 || via[j] === k) ? [j] : []);
    if (picked.length === 0) continue;
    const same = picked.flatMap((j) => r.lastByMs[j]?.[via[j]!] ?? []);
    const other = picked.flatMap((j) => r.lastByMs[j]?.[1 - via[j]!] ?? []);
    const q = (values: number[], p: number) => values.length ? ms(percentile(values, p)) : "-";
    const last = picked.map((j) => r.lastMs[j]!);
    rows.push([
      k === -1 ? "both" : `instance ${k + 1}`,
      String(picked.length),
      q(last, 50),
      q(last, 95),
      q(last, 99),
      q(same, 50),
      q(same, 99),
      q(other, 50),
      q(other, 99),
    ]);
  }
  printTable(rows);
}

async function run(): Promise<boolean> {
  const instances = envNumber("BENCH_INSTANCES", 1, 1);
  if (instances > 2) throw new BenchError(`BENCH_INSTANCES=${instances}: expected 1 or 2`);
  if (instances === 2 && postgresBin() === null) {
    throw new BenchError("BENCH_INSTANCES=2 needs PostgreSQL (Debian's postgresql package)");
  }
  const ns = envList("BENCH_N", instances === 2 ? [1000] : [100, 1000, 5000]);
  const options: RunOptions = {
    messages: envNumber("BENCH_MESSAGES", 200, 1),
    warmup: envNumber("BENCH_WARMUP", 20, 0),
    intervalMs: envNumber("BENCH_INTERVAL_MS", 20, 0),
    timeoutMs: envNumber("BENCH_TIMEOUT_MS", 30_000, 1),
  };
  const readers = envNumber("BENCH_READERS", 10, 1);
  // The ceiling is one bare process: with two instances it is there only when asked for.
  const withCeiling = instances === 2
    ? Deno.env.get("BENCH_CEILING") === "1"
    : Deno.env.get("BENCH_CEILING") !== "0";
  const benchDir = import.meta.dirname;
  if (benchDir === undefined) throw new BenchError("run this script from a local file");
  const root = join(benchDir, "..");
  const script = join(benchDir, "fanout_bench.ts");
  await readClockTicks();
  console.log(
    `fan-out${instances === 2 ? " over 2 instances on PostgreSQL" : ""}: N = ` +
      `${ns.join(", ")}; ${options.messages} measured messages per N after ` +
      `${options.warmup} warm-up, one at a time (each waits for all N, >= ` +
      `${options.intervalMs} ms apart); ${navigator.hardwareConcurrency} cores, ` +
      `Deno ${Deno.version.deno}`,
  );

  const results: RunResult[] = [];
  for (const n of ns) {
    if (withCeiling) {
      console.log(`N = ${n}: ceiling`);
      results.push(await runCeiling(script, n, options));
    }
    if (instances === 2) {
      console.log(`N = ${n}: 2 instances on PostgreSQL`);
      results.push(await runInstances(root, n, readers, options));
    } else {
      console.log(`N = ${n}: server`);
      results.push(await runServer(root, n, readers, options));
    }
  }

  console.log(
    "\nDetail: ms from sending the POST (last/first = last/first client read the event, " +
      "POST = its 201 arrived); CPU ms used per message; CPU stall = share of the time some " +
      "task on the machine waited for a CPU (PSI), load = 1-minute load average at the end",
  );
  printTable([
    [
      "run",
      "N",
      "last p50",
      "last p95",
      "last p99",
      "last max",
      "first p50",
      "POST p50",
      "RSS open",
      "RSS peak",
      "server CPU/msg",
      "bench CPU/msg",
      "CPU stall",
      "load",
    ],
    ...results.map((r) => [
      r.label,
      String(r.n),
      ms(percentile(r.lastMs, 50)),
      ms(percentile(r.lastMs, 95)),
      ms(percentile(r.lastMs, 99)),
      ms(Math.max(...r.lastMs)),
      ms(percentile(r.firstMs, 50)),
      ms(percentile(r.postMs, 50)),
      `${r.rssAfterOpenMib.toFixed(0)} MiB`,
      `${r.peakRssMib.toFixed(0)} MiB`,
      ms(r.serverCpuMs),
      ms(r.benchCpuMs),
      `${(r.cpuPressure * 100).toFixed(0)}%`,
      r.loadAvg.toFixed(1),
    ]),
  ]);
  for (const r of results) if (r.instances) printInstances(r, options.warmup);

  let failed = 0;
  const rows: string[][] = [["N", "p50", "p95", "p99", "server peak RSS", "target", "result"]];
  for (const r of results.filter((r) => r.label !== "ceiling")) {
    const p99 = percentile(r.lastMs, 99);
    const target = (r.instances ? INSTANCE_TARGETS : TARGETS)[r.n];
    const problems: string[] = [];
    if (r.gaps || r.malformed || r.closedEarly || r.postErrors || r.incomplete) {
      problems.push(
        `gaps ${r.gaps}, malformed ${r.malformed}, closed early ${r.closedEarly}, ` +
          `POST errors ${r.postErrors}, clients without every message once ${r.incomplete}`,
      );
    }
    if (r.stopCode !== 0) problems.push(`SIGTERM exit code ${r.stopCode}`);
    let result = problems.length ? "FAIL" : "PASS";
    let targetText = "-";
    if (target) {
      targetText = `p99 < ${target.p99Ms} ms` +
        (target.rssMib ? `, RSS < ${target.rssMib} MiB` : "");
      if (p99 >= target.p99Ms || (target.rssMib && r.peakRssMib >= target.rssMib)) {
        result = "FAIL";
      }
    } else if (!problems.length) {
      result = "(no target)";
    }
    if (result === "FAIL") failed++;
    rows.push([
      r.n.toLocaleString("en-US"),
      `${ms(percentile(r.lastMs, 50))} ms`,
      `${ms(percentile(r.lastMs, 95))} ms`,
      `${ms(p99)} ms`,
      `${r.peakRssMib.toFixed(0)} MiB`,
      targetText,
      result + (problems.length ? ` (${problems.join("; ")})` : ""),
    ]);
  }
  const busiest = Math.max(...results.map((r) => r.cpuPressure));
  if (busiest > 0.2) {
    console.log(
      `\nNote: the machine was busy (some task waited for a CPU ${(busiest * 100).toFixed(0)}% ` +
        "of the time in the busiest run): latencies are inflated; compare with the ceiling " +
        "rows, and CPU/msg, which busy neighbours affect less.",
    );
  }
  console.log(
    "\nSummary: time from sending the POST until the LAST of N clients read the event" +
      (instances === 2 ? " (on either instance)" : "") +
      " (server peak RSS = VmHWM over the server's life, registration's scrypt included" +
      (instances === 2 ? "; the larger instance's" : "") + ")",
  );
  printTable(rows);
  console.log(failed === 0 ? "\nALL PASS" : `\n${failed} FAILED`);
  return failed === 0;
}

if (import.meta.main) {
  if (Deno.args[0] === "--ceiling") ceilingServer(Number(Deno.args[1]));
  else await runMain(run);
}
