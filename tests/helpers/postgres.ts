/**
 * A throwaway PostgreSQL cluster for tests and benchmarks: `initdb` into a new temporary
 * directory, the server on a free loopback port with its socket in that directory, stopped and
 * removed by `stop()`. Needs Debian's `postgresql` package (or `PG_BIN` naming the folder of
 * `initdb` and `pg_ctl`). PostgreSQL refuses to run as root, so as root the cluster runs as the
 * `postgres` user (`runuser`), which owns the directory.
 */
import { keepClientTimerErrors } from "../../db/postgres/engine.ts";
import { join } from "node:path";
import postgres from "postgres";

/** A running throwaway cluster. */
export interface Postgres {
  /** `postgres://<user>@127.0.0.1:<port>/<database>` */
  url: string;
  port: number;
  /** Stops the server (fast shutdown) and removes its directory. */
  stop(): Promise<void>;
  /** Stops the server but keeps its data (a database outage), until `restart`. */
  halt(): Promise<void>;
  /** Starts the halted server again, on the same port and data. */
  restart(): Promise<void>;
  /**
   * `pg_ctl restart -m fast`: the running server ends every session and starts again on the
   * same port and data, as an operator's restart does; resolves once it accepts connections.
   */
  restartFast(): Promise<void>;
  /** The cluster's data directory (`pg_ctl --pgdata`). */
  dataDir: string;
}

/** Where `initdb` and `pg_ctl` are, or null when PostgreSQL is not installed. */
export function postgresBin(): string | null {
  const named = Deno.env.get("PG_BIN");
  if (named) return named;
  try {
    const versions = [...Deno.readDirSync("/usr/lib/postgresql")]
      .map((e) => e.name).filter((n) => /^\d+$/.test(n)).sort((a, b) => Number(b) - Number(a));
    for (const v of versions) {
      const bin = `/usr/lib/postgresql/${v}/bin`;
      try {
        Deno.statSync(join(bin, "initdb"));
        return bin;
      } catch {
        // not this one
      }
    }
  } catch {
    // no Debian layout
  }
  return null;
}

/** A loopback port nothing listens on (free when asked). */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

async function run(argv: string[], asUser: string | null): Promise<void> {
  const [cmd, ...args] = asUser ? ["runuser", "-u", asUser, "--", ...argv] : argv;
  const out = await new Deno.Command(cmd!, { args, stdout: "piped", stderr: "piped" }).output();
  if (!out.success) {
    const text = new TextDecoder().decode(out.stderr) || new TextDecoder().decode(out.stdout);
    throw new Error(`${argv.join(" ")} failed (${out.code}): ${text.trim()}`);
  }
}

/**
 * Starts a cluster. `settings` are extra server settings (`-c name=value`); tests may turn
 * `fsync` off, benchmarks keep the defaults.
 */
export async function startPostgres(
  options: {
    settings?: Record<string, string>;
    database?: string;
    /**
     * A directory to keep the cluster in instead of a new temporary one: created (with the
     * cluster and its database) when it holds none, otherwise the cluster there is started
     * again. `stop()` then halts the server and keeps the directory (benchmarks reuse a big
     * database built once).
     */
    keptDir?: string;
  } = {},
): Promise<Postgres> {
  const bin = postgresBin();
  if (!bin) throw new Error("PostgreSQL is not installed (apt-get install postgresql)");
  const asUser = Deno.uid() === 0 ? "postgres" : null;
  const kept = options.keptDir !== undefined;
  const dir = options.keptDir ?? await Deno.makeTempDir({ prefix: "pg-" });
  if (kept) await Deno.mkdir(dir, { recursive: true });
  if (asUser) await run(["chown", asUser, dir], null);
  const data = join(dir, "data");
  const user = asUser ?? Deno.env.get("USER") ?? "postgres";
  const existing = kept && await Deno.stat(join(data, "PG_VERSION")).then(() => true, () => false);
  if (!existing) {
    await run([
      join(bin, "initdb"),
      "--pgdata",
      data,
      "--username",
      user,
      "--auth",
      "trust",
      "--encoding",
      "UTF8",
      "--locale",
      "C.UTF-8",
      "--no-sync",
    ], asUser);
  }
  let port = 0;
  let serverOptions = "";
  const start = () =>
    run([
      join(bin, "pg_ctl"),
      "--pgdata",
      data,
      "--log",
      join(dir, "server.log"),
      "--options",
      serverOptions,
      "--wait",
      "start",
    ], asUser);
  // A port free when asked may be taken before the server binds it (other clusters of the
  // suite start at the same time): then the start fails, and another port is tried.
  for (let attempt = 1;; attempt++) {
    port = freePort();
    const settings = {
      listen_addresses: "127.0.0.1",
      port: String(port),
      unix_socket_directories: dir,
      max_connections: "200",
      ...options.settings,
    };
    serverOptions = Object.entries(settings).map(([k, v]) => `-c ${k}=${v}`).join(" ");
    try {
      await start();
      break;
    } catch (error) {
      if (attempt >= 3) {
        if (!kept) await Deno.remove(dir, { recursive: true }).catch(() => {});
        throw error;
      }
    }
  }
  const halt = () =>
    run([join(bin, "pg_ctl"), "--pgdata", data, "--mode", "fast", "--wait", "stop"], asUser);
  const database = options.database ?? "collab";
  if (!existing) {
    await run([join(bin, "createdb"), "-h", dir, "-p", String(port), "-U", user, database], asUser);
  }
  let stopped = false;
  return {
    url: `postgres://${user}@127.0.0.1:${port}/${database}`,
    port,
    async stop() {
      if (stopped) return;
      stopped = true;
      await halt().catch(() => {});
      if (!kept) await Deno.remove(dir, { recursive: true });
    },
    halt,
    restart: start,
    restartFast: () =>
      run([
        join(bin, "pg_ctl"),
        "--pgdata",
        data,
        "--log",
        join(dir, "server.log"),
        "--options",
        serverOptions,
        "--mode",
        "fast",
        "--wait",
        "restart",
      ], asUser),
    dataDir: data,
  };
}

/**
 * A test that needs PostgreSQL: ignored (and so named) where it is not installed, otherwise
 * given a fresh cluster (fsync off) and a client of it, both stopped afterwards. The cluster's
 * client pool and timers outlive single awaits, so the sanitizers are off.
 */
export function postgresTest(
  name: string,
  fn: (pg: Postgres, sql: postgres.Sql, t: Deno.TestContext) => Promise<void>,
): Deno.TestDefinition {
  return {
    name: `${name} (needs Debian's postgresql)`,
    ignore: postgresBin() === null,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async (t) => {
      const pg = await startPostgres({ settings: { fsync: "off" } });
      const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
      try {
        await fn(pg, sql, t);
      } finally {
        await sql.end();
        await pg.stop();
      }
    },
  };
}

/**
 * Resolves once `work` has settled or some session of the cluster waits for a lock (whichever
 * comes first), and tells which: how a test sees that a statement of one transaction waits for
 * another transaction's commit. Polls `pg_locks` through `admin`; gives up after 10 s.
 */
export async function settledOrWaiting(
  admin: postgres.Sql,
  work: Promise<unknown>,
): Promise<"settled" | "waiting"> {
  let settled = false;
  work.then(() => settled = true, () => settled = true);
  for (let i = 0; i < 2000; i++) {
    if (settled) return "settled";
    const [row] = await admin<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_locks
      WHERE NOT granted`;
    if (row!.n > 0) return "waiting";
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error("Cannot tell: the work neither settled nor waited for a lock within 10 s");
}

let clientErrorsKept = false;

/**
 * Installs, once per test process, what the server's entry point installs on PostgreSQL
 * (`keepClientTimerErrors`): the client's errors that no caller can catch, when the database
 * restarts, are logged instead of ending the test run.
 */
export function keepPostgresClientErrors(): void {
  if (clientErrorsKept) return;
  clientErrorsKept = true;
  keepClientTimerErrors((line) => console.warn(`(test process) ${line}`));
}
