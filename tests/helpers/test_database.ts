/**
 * The suite on PostgreSQL: when the test process has `DATABASE_URL`, every test app and every
 * server process the tests start gets a database of its own on that server, made for it and
 * dropped afterwards. A migrated app database is a copy of a template (`CREATE DATABASE …
 * TEMPLATE`, much quicker than migrating), migrated once per set of migration files: its name
 * carries their checksum, and an advisory lock lets one process build it while the others
 * (test files run in parallel) wait and then use it. Each test file makes its next copy while
 * a test runs (`appDatabase`). Copies a run left behind (one cut short) are dropped by the next
 * run. The role in `DATABASE_URL` needs `CREATEDB`; the database it names is only connected
 * to, never changed.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import postgres from "postgres";
import { readMigrations } from "../../db/sqlite/migrate.ts";
import { migratePostgresAt, POSTGRES_MIGRATIONS_DIR } from "../../db/postgres/migrate.ts";
import { postgresBin } from "./postgres.ts";

/** The PostgreSQL server the suite runs on, or null on SQLite (the default). */
export const TEST_DATABASE_URL: string | null = Deno.env.get("DATABASE_URL") || null;

/**
 * Whether the suite runs on PostgreSQL. A test that cannot (it is about SQLite itself) says
 * why next to `ignore: ON_POSTGRES`.
 */
export const ON_POSTGRES = TEST_DATABASE_URL !== null;

/** The advisory lock held while a template is built or leftovers are dropped. */
const LOCK_KEYS = [0x636f6c6c, /* "coll" */ 2] as const;

/** Every database this helper makes starts with this; a test database adds `<pid>_`. */
const PREFIX = "collab_test_";

/** A database made for one test app or one server process. */
export interface TestDatabase {
  name: string;
  /** `DATABASE_URL` with this database's name. */
  url: string;
  /** Drops the database, ending any connection still open to it. */
  drop(): Promise<void>;
}

/** `url` naming the database `name` instead. */
function urlOf(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.href;
}

/** The URL of the suite's server; throws on SQLite. */
function serverUrl(): string {
  if (TEST_DATABASE_URL === null) throw new Error("The suite does not run on PostgreSQL");
  return TEST_DATABASE_URL;
}

/** Runs `fn` on a connection of its own to the database of `server`, then closes it. */
async function admin<T>(server: string, fn: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(server, { max: 1, onnotice: () => {}, connect_timeout: 10 });
  try {
    return await fn(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** The name of the template for the migration files as they are now. */
export function templateName(): string {
  const hash = createHash("sha256");
  for (const file of readMigrations(POSTGRES_MIGRATIONS_DIR)) {
    hash.update(`${file.version}:${file.checksum}\n`);
  }
  return `collab_template_${hash.digest("hex").slice(0, 16)}`;
}

/** Whether a process of this machine is running (a leftover's owner may be gone). */
function running(pid: number): boolean {
  try {
    Deno.statSync(`/proc/${pid}`);
    return true;
  } catch {
    return false;
  }
}

/** Per server (tests of this helper use a cluster of their own). */
const templates = new Map<string, Promise<string>>();

/**
 * The migrated template, built at most once per set of migration files. Under the lock, this
 * process also drops what earlier runs left: test databases of processes that are gone (a
 * test run cut short; processes are looked up on this machine, so a server's test databases
 * are one machine's), and a template half built by one.
 */
function migratedTemplate(server: string): Promise<string> {
  const known = templates.get(server);
  if (known) return known;
  const template = (async () => {
    const name = templateName();
    const exists = (sql: postgres.Sql, datname: string) =>
      sql`SELECT 1 FROM pg_database WHERE datname = ${datname}`.then((rows) => rows.length > 0);
    await admin(server, async (sql) => {
      await sql`SELECT pg_advisory_lock(${LOCK_KEYS[0]}, ${LOCK_KEYS[1]})`;
      try {
        const leftovers = await sql<Array<{ datname: string }>>`
          SELECT datname FROM pg_database WHERE datname LIKE ${PREFIX + "%"}`;
        for (const { datname } of leftovers) {
          const pid = Number(/^collab_test_(\d+)_/.exec(datname)?.[1]);
          if (pid && !running(pid)) {
            await sql.unsafe(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
          }
        }
        if (await exists(sql, name)) return; // another process built it while this one waited
        // Built under another name and renamed when whole: a run cut short mid-way leaves no
        // template that looks finished.
        const building = `${name}_building`;
        await sql.unsafe(`DROP DATABASE IF EXISTS "${building}" WITH (FORCE)`);
        await sql.unsafe(`CREATE DATABASE "${building}" TEMPLATE template0`);
        await migratePostgresAt(
          urlOf(server, building),
          POSTGRES_MIGRATIONS_DIR,
          () => new Date(),
        );
        await sql.unsafe(`ALTER DATABASE "${building}" RENAME TO "${name}"`);
        // Nobody connects to it any more: a copy cannot be made while anyone is connected.
        await sql.unsafe(`ALTER DATABASE "${name}" WITH ALLOW_CONNECTIONS false`);
      } finally {
        await sql`SELECT pg_advisory_unlock(${LOCK_KEYS[0]}, ${LOCK_KEYS[1]})`;
      }
    });
    return name;
  })();
  templates.set(server, template);
  // A failure is not kept: the next test tries again (and reports its own error).
  template.catch(() => templates.delete(server));
  return template;
}

let made = 0;

/**
 * Makes a database of its own for a test on `server` (default: the suite's `DATABASE_URL`): a
 * copy of the migrated template, or with `migrated: false` an empty one (a server process
 * migrates it at start-up, as in production).
 */
export async function createTestDatabase(
  options: { migrated?: boolean; server?: string } = {},
): Promise<TestDatabase> {
  const server = options.server ?? serverUrl();
  const source = options.migrated === false ? "template0" : await migratedTemplate(server);
  const name = `${PREFIX}${Deno.pid}_${++made}_${crypto.randomUUID().slice(0, 8)}`;
  await admin(server, (sql) => sql.unsafe(`CREATE DATABASE "${name}" TEMPLATE "${source}"`));
  let dropped = false;
  return {
    name,
    url: urlOf(server, name),
    async drop() {
      if (dropped) return;
      dropped = true;
      await admin(server, (sql) => sql.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}

/** The copy made ahead for the next test app of this test file, and its name once made. */
let spare: { made: Promise<TestDatabase>; name?: string } | undefined;
let dropSpareAtUnload = false;

/**
 * A copy of the template for a test app, and the next one made meanwhile: making a copy takes
 * longer than many tests, so the test's own work hides it. `ready` settles once the next copy
 * is made; the app's `close()` awaits it, so that nothing is left under way after the test.
 * The copy nobody took is dropped when the test file ends.
 */
export async function appDatabase(): Promise<{ database: TestDatabase; ready: Promise<void> }> {
  const taken = spare;
  spare = undefined;
  const database = await (taken?.made ?? createTestDatabase()).catch(() => createTestDatabase());
  // One spare at a time: apps made side by side share the one made next.
  if (!spare) {
    const next: { made: Promise<TestDatabase>; name?: string } = { made: createTestDatabase() };
    spare = next;
    next.made.then(
      (made) => void (next.name = made.name),
      () => void (spare === next && (spare = undefined)),
    );
  }
  if (!dropSpareAtUnload) {
    dropSpareAtUnload = true;
    globalThis.addEventListener("unload", dropSpare);
  }
  return { database, ready: spare.made.then(() => {}, () => {}) };
}

/**
 * Drops the spare copy when the test file ends. Only synchronous work runs then, so this runs
 * `psql` of the PostgreSQL binaries when they are here (otherwise the copy is left to the
 * sweep of a later run).
 */
function dropSpare(): void {
  const bin = postgresBin();
  const name = spare?.name;
  if (!bin || name === undefined) return;
  try {
    new Deno.Command(join(bin, "psql"), {
      args: [serverUrl(), "-q", "-c", `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`],
      stdout: "null",
      stderr: "null",
    }).outputSync();
  } catch {
    // left to the sweep
  }
}
