/**
 * What the benchmark scripts share: environment settings, subprocess servers with cleanup
 * on every exit path, and readings from /proc.
 */

import { join } from "node:path";

/** A failure of the benchmark machinery itself (not of a target). */
export class BenchError extends Error {
  override name = "BenchError";
}

/** A whole-number setting from the environment, at least `min`. */
export function envNumber(name: string, fallback: number, min: number): number {
  const raw = Deno.env.get(name)?.trim();
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) {
    throw new BenchError(`${name}=${JSON.stringify(raw)}: expected a whole number >= ${min}`);
  }
  return n;
}

// ---------------------------------------------------------------------------------------
// Subprocesses and cleanup

/** Child processes still running; killed by `cleanup`. */
export const running = new Set<Deno.ChildProcess>();
/** Temporary directories; removed by `cleanup`. */
export const tempDirs: string[] = [];
const hooks: Array<() => void | Promise<void>> = [];
let cleaning: Promise<void> | undefined;

/** Runs `fn` first when cleaning up (e.g. closing sockets, stopping a database), in order. */
export function onCleanup(fn: () => void | Promise<void>): void {
  hooks.push(fn);
}

/** Kills what is still running and removes the temporary directories (once). */
export function cleanup(): Promise<void> {
  return cleaning ??= (async () => {
    for (const hook of hooks) {
      try {
        await hook();
      } catch { /* the rest is cleaned up all the same */ }
    }
    for (const child of running) {
      try {
        child.kill("SIGKILL");
      } catch { /* already gone */ }
      await child.status.catch(() => {});
    }
    running.clear();
    for (const dir of tempDirs.splice(0)) {
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  })();
}

/** Keeps the last `limit` characters of a stream, reading it to the end so it never blocks. */
function drainTail(stream: ReadableStream<Uint8Array>, limit = 8192): () => string {
  let tail = "";
  void (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of stream) {
        tail = (tail + decoder.decode(chunk, { stream: true })).slice(-limit);
      }
    } catch { /* the process went away */ }
  })();
  return () => tail;
}

/** A server started as a subprocess on a loopback port. */
export interface Server {
  name: string;
  child: Deno.ChildProcess;
  port: number;
  url: string;
  stderr: () => string;
  exited: () => boolean;
}

/** A loopback port that was free a moment ago. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Starts `deno <args>` listening on `port`; its standard output is discarded. */
export function spawn(
  name: string,
  args: string[],
  options: { env: Record<string, string>; cwd: string; port: number },
): Server {
  const child = new Deno.Command(Deno.execPath(), {
    args,
    env: options.env,
    cwd: options.cwd,
    stdin: "null",
    // The real server logs a line per request: discard it rather than let a pipe fill up.
    stdout: "null",
    stderr: "piped",
  }).spawn();
  running.add(child);
  let done = false;
  child.status.then(() => done = true, () => done = true);
  const url = `http://127.0.0.1:${options.port}`;
  return {
    name,
    child,
    port: options.port,
    url,
    stderr: drainTail(child.stderr),
    exited: () => done,
  };
}

/** Waits until `path` answers 200 (or the process dies, or `timeoutMs` passes). */
export async function waitUntilReady(
  server: Server,
  path: string,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server.exited()) {
      const status = await server.child.status;
      throw new BenchError(
        `${server.name} exited during start-up (code ${status.code}):\n${server.stderr()}`,
      );
    }
    try {
      const response = await fetch(server.url + path);
      await response.body?.cancel();
      if (response.status === 200) return;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new BenchError(`${server.name} did not answer ${path} within ${timeoutMs} ms`);
}

/** Sends SIGTERM and waits for the exit (SIGKILL after `timeoutMs`). */
export async function stop(server: Server, timeoutMs = 20_000): Promise<Deno.CommandStatus> {
  try {
    server.child.kill("SIGTERM");
  } catch { /* already gone */ }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((r) => timer = setTimeout(() => r("timeout"), timeoutMs));
  const outcome = await Promise.race([server.child.status, timeout]);
  clearTimeout(timer);
  if (outcome === "timeout") server.child.kill("SIGKILL");
  const status = await server.child.status;
  running.delete(server.child);
  return status;
}

/**
 * Runs a benchmark's `run` and exits: 0 when every target passed, 1 when one failed, 2 when
 * the benchmark itself failed, 130 when interrupted; cleans up in every case.
 */
export async function runMain(run: () => Promise<boolean>): Promise<never> {
  let interrupted = false;
  const onSignal = () => {
    if (interrupted) return;
    interrupted = true;
    console.error("interrupted: cleaning up");
    void cleanup().finally(() => Deno.exit(130));
  };
  Deno.addSignalListener("SIGINT", onSignal);
  Deno.addSignalListener("SIGTERM", onSignal);
  let code: number;
  try {
    code = await run() ? 0 : 1;
  } catch (error) {
    if (!interrupted) console.error(error instanceof BenchError ? error.message : error);
    code = 2;
  } finally {
    await cleanup();
  }
  Deno.exit(interrupted ? 130 : code);
}

// ---------------------------------------------------------------------------------------
// /proc

/** A `kB` field of /proc/<pid>/status, or null. */
export function procStatusKib(pid: number, field: "VmRSS" | "VmHWM"): number | null {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    const match = status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

let clockTicks = 100;

/** Reads the kernel's clock ticks per second (for `cpuSeconds`); 100 when unknown. */
export async function readClockTicks(): Promise<void> {
  try {
    const out = await new Deno.Command("getconf", { args: ["CLK_TCK"] }).output();
    const n = Number(new TextDecoder().decode(out.stdout).trim());
    if (out.success && Number.isInteger(n) && n > 0) clockTicks = n;
  } catch { /* keep 100 */ }
}

/** User plus system CPU seconds used so far by all threads of `pid` ("self": this one), or NaN. */
export function cpuSeconds(pid: number | "self"): number {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / clockTicks;
  } catch {
    return NaN;
  }
}

/**
 * User plus system CPU seconds used so far by the children this process has waited for (its
 * ended `wrk` runs, say), or NaN.
 */
export function childrenCpuSeconds(): number {
  try {
    const stat = Deno.readTextFileSync("/proc/self/stat");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[13]) + Number(fields[14])) / clockTicks;
  } catch {
    return NaN;
  }
}

/** CPU seconds the whole machine has been busy so far, all cores together (/proc/stat), or NaN. */
export function machineCpuSeconds(): number {
  try {
    const line = Deno.readTextFileSync("/proc/stat").split("\n", 1)[0]!;
    // cpu user nice system idle iowait irq softirq steal ...: busy is all but idle and iowait.
    const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number);
    const busy = ticks.reduce((a, b) => a + b, 0) - ticks[3]! - ticks[4]!;
    return busy / clockTicks;
  } catch {
    return NaN;
  }
}

/**
 * CPU nanoseconds used so far by all threads of `pid` (from each thread's
 * /proc/<pid>/task/<tid>/schedstat: nanosecond resolution, unlike /proc/<pid>/stat's clock
 * ticks), or NaN. Threads that have ended are not counted.
 */
export function cpuNanos(pid: number): number {
  return schedstatSum(pid, 0);
}

/**
 * Nanoseconds the threads of `pid` have spent so far ready to run but waiting for a CPU
 * (the second field of schedstat): how much other processes held the machine. NaN if
 * unknown.
 */
export function runQueueNanos(pid: number): number {
  return schedstatSum(pid, 1);
}

function schedstatSum(pid: number, field: number): number {
  let total = 0;
  try {
    for (const task of Deno.readDirSync(`/proc/${pid}/task`)) {
      try {
        const stat = Deno.readTextFileSync(`/proc/${pid}/task/${task.name}/schedstat`);
        total += Number(stat.split(" ")[field]);
      } catch { /* the thread ended meanwhile */ }
    }
  } catch {
    return NaN;
  }
  return total;
}

/**
 * The `deno` arguments of `deno task start` (from deno.json), with `main.ts` made absolute:
 * the benchmark measures the server as it is started in production, V8 flags included.
 */
export function startTaskArgs(denoJson: string, root: string): string[] {
  let task: unknown;
  try {
    task = (JSON.parse(denoJson) as { tasks?: Record<string, unknown> }).tasks?.start;
  } catch (error) {
    throw new BenchError(`cannot read deno.json: ${(error as Error).message}`);
  }
  const words = typeof task === "string" ? task.trim().split(/\s+/) : [];
  if (words[0] !== "deno" || words[1] !== "run" || words.at(-1) !== "main.ts") {
    throw new BenchError(
      `expected the start task in deno.json to be "deno run ... main.ts", got ${
        JSON.stringify(task)
      }`,
    );
  }
  return [...words.slice(1, -1), join(root, "main.ts")];
}

/**
 * Starts the server as `deno task start` runs it, on a fresh `DATA_DIR` in a new temporary
 * folder (removed at clean-up) and a free port, with `env` added, and waits until it is ready.
 * It serves on one isolate (the figures recorded in bench/README.md) unless `WORKERS` is set in
 * the environment or in `env`.
 */
export async function startServer(
  prefix: string,
  env: Record<string, string> = {},
): Promise<{ server: Server; temp: string; dataDir: string }> {
  const root = join(import.meta.dirname!, "..");
  const temp = await Deno.makeTempDir({ prefix });
  tempDirs.push(temp);
  const dataDir = join(temp, "data");
  const port = freePort();
  const server = spawn(
    "server",
    startTaskArgs(await Deno.readTextFile(join(root, "deno.json")), root),
    {
      env: {
        DATA_DIR: dataDir,
        PORT: String(port),
        HOST: "127.0.0.1",
        WORKERS: Deno.env.get("WORKERS") ?? "1",
        ...env,
      },
      cwd: root,
      port,
    },
  );
  await waitUntilReady(server, "/healthz");
  return { server, temp, dataDir };
}
