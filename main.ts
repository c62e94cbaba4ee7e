/**
 * Starts the server: reads the environment, opens the database, applies migrations,
 * builds the app, serves, and shuts down gracefully on SIGTERM or SIGINT.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { filesRoot, removeLeftoverParts } from "./db/file_store.ts";
import { migrate, MigrationError, MIGRATIONS_DIR } from "./db/migrate.ts";
import { loadOrCreateSecret } from "./db/secret.ts";
import { type Database, openDatabase } from "./db/sqlite.ts";
import { ConfigError, parseConfig } from "./domain/config.ts";
import { createApp, type Lifecycle } from "./routes/app.ts";
import { flushStdoutLog } from "./routes/middleware/request_log.ts";

const SHUTDOWN_DEADLINE_MS = 10_000;
const clock = { now: () => new Date() };

function fail(message: string): never {
  console.error(message);
  Deno.exit(1);
}

let config;
try {
  config = parseConfig(Deno.env.toObject());
} catch (error) {
  if (error instanceof ConfigError) fail(error.message);
  throw error;
}

mkdirSync(config.dataDir, { recursive: true });
let db: Database;
try {
  db = openDatabase(join(config.dataDir, "collab.db"));
} catch (error) {
  fail(`Cannot start: cannot open the database in ${config.dataDir}: ${(error as Error).message}`);
}
try {
  const applied = migrate(db, MIGRATIONS_DIR, clock.now);
  if (applied.length > 0) console.log(`migrations applied: ${applied.join(", ")}`);
} catch (error) {
  await db.close();
  if (error instanceof MigrationError) fail(error.message);
  throw error;
}
const sessionSecret = config.sessionSecret ?? loadOrCreateSecret(config.dataDir);
await removeLeftoverParts(filesRoot(config.dataDir)); // uploads a crash cut short

const lifecycle: Lifecycle = { shuttingDown: false };
const app = createApp({ db, config, clock, lifecycle, sessionSecret });
async function shutdown(signal: string): Promise<void> {
  if (lifecycle.shuttingDown) {
    flushStdoutLog();
    console.error(`${signal} again: exiting at once`);
    Deno.exit(1);
  }
  lifecycle.shuttingDown = true;
  console.log(`${signal}: shutting down`);
  // Event streams never end on their own: close them so in-flight requests can drain.
  app.services.hub.closeAll();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<void>((resolve) =>
    timer = setTimeout(resolve, SHUTDOWN_DEADLINE_MS)
  );
  await Promise.race([server.shutdown(), deadline]);
  clearTimeout(timer);
  await db.close();
  flushStdoutLog(); // the request log is buffered
  console.log("stopped");
  Deno.exit(0);
}

// Listen for signals before serving, so a signal right after start-up is never lost.
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  Deno.addSignalListener(signal, () => void shutdown(signal));
}
const server = Deno.serve({
  port: config.port,
  hostname: config.host,
  onListen: ({ hostname, port }) => console.log(`listening on http://${hostname}:${port}`),
}, app.fetch);
