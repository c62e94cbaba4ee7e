/** Test helpers for `main.ts` as a process: a real server, and its commands. */
import assert from "node:assert/strict";
import { join } from "node:path";

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

const BASE_ENV = { HOST: "127.0.0.1", PORT: "0", NO_COLOR: "1" };

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
    env: { ...BASE_ENV, ...env },
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

/** Starts the server on `dataDir` and waits until it listens. */
export async function startServer(
  dataDir: string,
  env: Record<string, string> = {},
): Promise<MainServer> {
  const running = spawnMain([], { DATA_DIR: dataDir, ...env });
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
