/**
 * Starts the server: reads the environment, checks the data directory and the database,
 * applies migrations, builds the app, serves, and shuts down gracefully on SIGTERM or SIGINT.
 * With arguments, runs a command instead (`backup`, `restore`: see cli/commands.ts).
 */
import { mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { runCommand } from "./cli/commands.ts";
import { removeLeftoverParts } from "./db/kernel/file_store.ts";
import { migrate, MigrationError, MIGRATIONS_DIR } from "./db/sqlite/migrate.ts";
import { loadOrCreateSecret, SecretError } from "./db/kernel/secret.ts";
import { keepClientTimerErrors, openPostgresEngine } from "./db/postgres/engine.ts";
import {
  migratePostgresAt,
  POSTGRES_MIGRATIONS_DIR,
  PostgresUnreachableError,
} from "./db/postgres/migrate.ts";
import { type Database, isDamaged, openDatabase, quickCheck } from "./db/sqlite/sqlite.ts";
import { sqliteEngine } from "./db/sqlite/sqlite_engine.ts";
import { writeLock, writeLockBuffer } from "./db/sqlite/write_lock.ts";
import { removeLeftoverBackupWork } from "./domain/archives/backup.ts";
import { type Config, ConfigError, parseConfig } from "./domain/config.ts";
import { isolateBus } from "./domain/kernel/isolate_bus.ts";
import type { Lifecycle } from "./routes/app.ts";
import { signalGate } from "./routes/drain.ts";
import {
  buildApp,
  lifecycleBuffer,
  serve,
  sharedLifecycle,
  SHUTDOWN_DEADLINE_MS,
  stopServing,
  type Storage,
  timeout,
} from "./server/isolate.ts";
import { startWorkers, type WorkerPool } from "./server/workers.ts";

const env = Deno.env.toObject();
if (Deno.args.length > 0) Deno.exit(await runCommand(Deno.args, env));

/** Stop signals this soon after the first are copies of it (operations: "Signals"). */
const SIGNAL_ECHO_MS = 1_000;
/** How long webhook attempts in flight may finish at shutdown before they are abandoned. */
const WEBHOOK_GRACE_MS = 2_000;
const clock = { now: () => new Date() };

/** Stops start-up with one line (no stack trace) and status 1. */
function fail(message: string): never {
  console.error(message);
  Deno.exit(1);
}

const reason = (error: unknown) => error instanceof Error ? error.message : String(error);

let config: Config;
try {
  config = parseConfig(env);
} catch (error) {
  if (error instanceof ConfigError) fail(error.message);
  throw error;
}

/**
 * Creates `dir` when missing, then writes and removes a file in it: a directory that cannot be
 * written stops start-up here, with its reason, rather than at the first write.
 */
function requireWritable(dir: string, variable: string): void {
  try {
    mkdirSync(dir, { recursive: true });
    const probe = join(dir, `.write-check-${crypto.randomUUID()}`);
    Deno.writeFileSync(probe, new Uint8Array(), { createNew: true });
    rmSync(probe);
  } catch (error) {
    fail(`Cannot start: ${variable} ${dir} cannot be created or written: ${reason(error)}`);
  }
}

requireWritable(config.dataDir, "DATA_DIR");
// A FILES_DIR set apart is checked the same way (inside DATA_DIR it is made on first upload).
if (resolve(config.filesDir) !== resolve(config.dataDir, "files")) {
  requireWritable(config.filesDir, "FILES_DIR");
}

let sessionSecret: string;
try {
  sessionSecret = config.sessionSecret ?? loadOrCreateSecret(config.dataDir);
} catch (error) {
  if (error instanceof SecretError) fail(error.message);
  throw error;
}

/**
 * With `WORKERS` above 1: the SQLite write lock every isolate's connection holds while it
 * writes (this one is the primary's, number 1), and the bus the isolates talk on.
 */
const isolates = config.workers > 1
  ? {
    lockBuffer: writeLockBuffer(),
    lifecycleBuffer: lifecycleBuffer(),
    busName: `collab-isolates-${crypto.randomUUID()}`,
  }
  : null;

/** SQLite in `DATA_DIR`: opened, checked and migrated, or start-up stops. */
async function openSqlite(): Promise<Storage> {
  const dbPath = join(config.dataDir, "collab.db");
  const damaged = `Cannot start: database is damaged: restore from a backup (${dbPath})`;
  let db: Database;
  try {
    db = openDatabase(
      dbPath,
      isolates
        ? { writeLock: writeLock(isolates.lockBuffer, 1), checkpointOnClose: true }
        : undefined,
    );
  } catch (error) {
    if (isDamaged(error)) fail(damaged);
    fail(`Cannot start: cannot open the database in ${config.dataDir}: ${reason(error)}`);
  }
  // A damaged database is neither served nor written to. It is not closed either: closing
  // checkpoints, which would copy a leftover WAL into the damaged file.
  let problems: string[];
  try {
    problems = quickCheck(db);
  } catch (error) {
    fail(`Cannot start: cannot check the database ${dbPath}: ${reason(error)}`);
  }
  // One line, whatever SQLite reports: its first problem can span several lines (a heading
  // such as "*** in database main ***", then one line per damaged page).
  const first = problems.flatMap((p) => p.split("\n")).map((l) => l.trim())
    .find((l) => l !== "" && !l.startsWith("***"));
  if (problems.length > 0) fail(`${damaged}: ${first ?? "integrity check failed"}`);
  try {
    const applied = migrate(db, MIGRATIONS_DIR, clock.now);
    if (applied.length > 0) console.log(`migrations applied: ${applied.join(", ")}`);
  } catch (error) {
    await db.close();
    if (error instanceof MigrationError) fail(error.message);
    throw error;
  }
  return {
    engine: sqliteEngine(db),
    db,
    async close() {
      const { checkpointError } = await db.close();
      if (checkpointError) {
        // Not data loss: every committed write is in the WAL, replayed at the next start.
        console.error(
          `cannot checkpoint the database (${checkpointError.message}): ` +
            "nothing is lost, the write-ahead log keeps every write for the next start",
        );
      }
    },
  };
}

/** PostgreSQL at `DATABASE_URL`: reached and migrated (under an advisory lock), or start-up stops. */
async function openPostgres(url: string): Promise<Storage> {
  try {
    const applied = await migratePostgresAt(url, POSTGRES_MIGRATIONS_DIR, clock.now);
    if (applied.length > 0) console.log(`migrations applied: ${applied.join(", ")}`);
  } catch (error) {
    if (error instanceof PostgresUnreachableError) {
      fail(`Cannot start: DATABASE_URL cannot be reached: ${error.message}`);
    }
    if (error instanceof MigrationError) fail(error.message);
    throw error;
  }
  const engine = openPostgresEngine(url);
  keepClientTimerErrors((line) => console.error(line));
  return { engine, close: () => engine.close() };
}

const storage = config.databaseUrl ? await openPostgres(config.databaseUrl) : await openSqlite();
await removeLeftoverParts(config.filesDir); // uploads a crash cut short
await removeLeftoverBackupWork(config.dataDir); // backup downloads a crash cut short

// With workers, shared with them: a shutdown here refuses new requests in every isolate.
const lifecycle: Lifecycle = isolates
  ? sharedLifecycle(isolates.lifecycleBuffer)
  : { shuttingDown: false };
const bus = isolates ? isolateBus(isolates.busName, config.workers - 1) : undefined;
const app = buildApp({
  storage,
  config,
  clock,
  lifecycle,
  sessionSecret,
  ...(bus ? { bus } : {}),
});
// Single sign-on: the address to register at the provider; and LOCAL_LOGIN=off only once an
// admin can sign in by SSO (else nobody could administer the server).
if (app.services.sso) {
  console.log(`single sign-on: redirect URI ${app.services.sso.redirectUri}`);
  let ssoAdmin: boolean;
  try {
    ssoAdmin = await app.services.sso.adminHasIdentity();
  } catch (error) {
    fail(`Cannot start: cannot read the single sign-on identities: ${reason(error)}`);
  }
  if (config.localLogin === "off" && !ssoAdmin) {
    fail(
      "Cannot start: LOCAL_LOGIN=off but no admin has a single sign-on identity yet: start " +
        "with LOCAL_LOGIN=admins, let an admin sign in by SSO once, then switch to off",
    );
  }
}
// On PostgreSQL this instance holds a number of its own while it runs, which marks what it
// takes (webhook deliveries, imports): when it stops, however it stops, others take them over.
try {
  await app.services.presence.start();
} catch (error) {
  fail(`Cannot start: cannot take an instance number: ${reason(error)}`);
}
// On PostgreSQL, events committed through any instance reach this one's streams.
try {
  await app.services.relay.start();
} catch (error) {
  fail(`Cannot start: cannot listen for the other instances' events: ${reason(error)}`);
}
// The trash is purged now and hourly, in short batches between requests (domain/projects/trash.ts).
const sweeps = app.services.trash.startSweeps({
  onSwept: ({ items, projects, auditRows }) => {
    if (items > 0 || projects > 0) {
      console.log(`trash sweep: purged ${items} items and ${projects} projects`);
    }
    if (auditRows > 0) console.log(`audit sweep: removed ${auditRows} rows older than AUDIT_DAYS`);
  },
  onError: (error) => console.error(`Cannot sweep the trash: ${reason(error)}`),
});

async function shutdown(signal: string): Promise<void> {
  if (lifecycle.shuttingDown) {
    app.flushLog();
    console.error(`${signal} again: exiting at once`);
    Deno.exit(1);
  }
  lifecycle.shuttingDown = true;
  console.log(`${signal}: shutting down`);
  let code = 0;
  try {
    const deadline = timeout(SHUTDOWN_DEADLINE_MS);
    // The workers drain as this isolate does, within the same deadline.
    const workersStopped = pool?.drain(deadline.done);
    // Webhook attempts get a short grace, then are abandoned and sent again after restart:
    // a slow receiver never holds the shutdown past the deadline.
    const senderStopped = app.services.webhookSender.stop(WEBHOOK_GRACE_MS);
    // The mail under way gets the same grace; the others stay pending for the next start.
    const mailStopped = app.services.mailSender.stop(WEBHOOK_GRACE_MS);
    // Event streams end (they never end on their own), requests in flight finish first,
    // bodies included (see routes/drain.ts), then the server stops; within the one deadline.
    await stopServing(app, serving, deadline.done);
    if (workersStopped && !await workersStopped) {
      console.error("workers still busy at the shutdown deadline: ended");
    }
    deadline.cancel();
    await sweeps.stop(); // a sweep in progress stops at its next batch
    await leftoverRemoval.stop();
    await senderStopped;
    await mailStopped;
    await app.services.relay.stop();
    await app.services.presence.stop();
    bus?.close();
    await storage.close();
  } catch (error) {
    console.error(`Cannot shut down cleanly: ${reason(error)}`);
    code = 1;
  }
  app.flushLog(); // the request log is buffered
  console.log("stopped");
  Deno.exit(code);
}

// Listen for signals before serving, so a signal right after start-up is never lost. One
// Ctrl-C or `systemctl stop` signals the whole process group, and `npx` and `deno task` pass
// it on as well: signals within SIGNAL_ECHO_MS of the first are that one stop.
const stopSignals = signalGate(SIGNAL_ECHO_MS, () => performance.now());
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  Deno.addSignalListener(signal, () => {
    if (stopSignals.counts()) void shutdown(signal);
  });
}
// With workers the port is shared (SO_REUSEPORT), which would also share it with another server
// started on it by mistake: a port another process holds stops start-up here instead.
if (isolates && config.port !== 0) {
  try {
    Deno.listen({ port: config.port, hostname: config.host }).close();
  } catch (error) {
    fail(`Cannot start: cannot listen on ${config.host}:${config.port}: ${reason(error)}`);
  }
}
const listening = (addr: Deno.NetAddr) =>
  console.log(`listening on http://${addr.hostname}:${addr.port}`);
const serving = serve(app, lifecycle, {
  port: config.port,
  hostname: config.host,
  reusePort: isolates !== null,
  // With workers, "listening" once every isolate listens.
  onListen: isolates ? () => {} : listening,
});
// Deliveries queued before this start (or left in flight by a crash) go out now.
app.services.webhookSender.start();
// So does mail queued before (or cut short by a crash), when mail is on.
app.services.mailSender.start();
// An import a crash cut short left a hidden project: removed now, in short batches between
// requests (domain/archives/project_import.ts), and hourly after, for those of another instance that
// stopped (their lease runs out first).
const leftoverRemoval = app.services.projectImport.startLeftoverRemoval({
  onRemoved: (removed) => {
    if (removed > 0) console.log(`import leftovers: removed ${removed} unfinished projects`);
  },
  onError: (error) =>
    console.error(`Cannot remove the leftovers of unfinished imports: ${reason(error)}`),
  // On SQLite an import has no lease the other isolates would honour: the leftovers are those
  // listed now, before any worker serves (the list is read at once, synchronously, on SQLite),
  // and none later (PostgreSQL's workers are instances with leases, looked at hourly).
  ...(isolates && !config.databaseUrl ? { once: true } : {}),
});

// The workers serve beside this isolate, on its port, once the checks above are done.
let pool: WorkerPool | undefined;
if (isolates) {
  try {
    pool = await startWorkers({
      count: config.workers - 1,
      port: serving.server.addr.port,
      hostname: config.host,
      sessionSecret,
      writeLock: isolates.lockBuffer,
      lifecycle: isolates.lifecycleBuffer,
      busName: isolates.busName,
      log: (line) => console.error(line),
    });
  } catch (error) {
    fail(`Cannot start: a worker cannot start: ${reason(error)}`);
  }
  if (!lifecycle.shuttingDown) listening(serving.server.addr);
}
