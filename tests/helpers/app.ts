/** Test helpers: a fresh app over a temporary database, and a real server on a free port. */
import type { MailSenderOptions } from "../../domain/mail/sender.ts";
import { join } from "node:path";
import type { Engine, Row, SqlValue } from "../../db/kernel/engine.ts";
import { migrate, MIGRATIONS_DIR } from "../../db/sqlite/migrate.ts";
import { openPostgresEngine } from "../../db/postgres/engine.ts";
import { sqliteEngine } from "../../db/sqlite/sqlite_engine.ts";
import { type Database, openDatabase } from "../../db/sqlite/sqlite.ts";
import { FixedClock } from "../../domain/kernel/clock.ts";
import { type Config, parseConfig } from "../../domain/config.ts";
import type { CreditScoreLookup } from "../../domain/loan/loan.ts";
import { type PasswordHasher, scryptHasher } from "../../domain/accounts/passwords.ts";
import type { ImportOptions } from "../../domain/archives/project_import.ts";
import type { WebhookSenderOptions } from "../../domain/integrations/webhook_sender.ts";
import { type App, createApp, type Lifecycle } from "../../routes/app.ts";
import { isDocumentedArea, sharedValidator } from "./openapi_validator.ts";
import { appDatabase, ON_POSTGRES } from "./test_database.ts";
import { keepPostgresClientErrors } from "./postgres.ts";

/**
 * SQL for tests that look at (or arrange) what is stored, on whichever engine the app runs:
 * the engine's own queries, so one text serves both (`?` parameters).
 */
export interface TestSql {
  readonly kind: Engine["kind"];
  /** The first row, or undefined. */
  get<T = Row>(text: string, params?: SqlValue[]): Promise<T | undefined>;
  /** Every row. */
  all<T = Row>(text: string, params?: SqlValue[]): Promise<T[]>;
  /** A write, committed in a transaction of its own. */
  run(text: string, params?: SqlValue[]): Promise<{ changes: number }>;
  /** A write that returns a row (`RETURNING`), in a transaction of its own: that row. */
  returning<T = Row>(text: string, params?: SqlValue[]): Promise<T>;
  /** `SELECT count(*) FROM <from>` as a number: `count("todo_items WHERE project_id = ?", [1])`. */
  count(from: string, params?: SqlValue[]): Promise<number>;
}

/** `TestSql` over `engine`, kept apart from it: a test may stand in for the engine's methods. */
function testSql(engine: Engine): TestSql {
  const { get, all, transaction } = engine;
  const read = <T>(text: string, params?: SqlValue[]) =>
    get.call(engine, text, params) as Promise<T | undefined>;
  return {
    kind: engine.kind,
    get: read,
    all: <T = Row>(text: string, params?: SqlValue[]) =>
      all.call(engine, text, params) as Promise<T[]>,
    run: (text, params) =>
      transaction.call(engine, (tx) => tx.run(text, params)) as Promise<{ changes: number }>,
    returning: async <T = Row>(text: string, params?: SqlValue[]) => {
      const row = await transaction.call(engine, (tx) => tx.get<T>(text, params));
      if (row === undefined) throw new Error(`No row returned by: ${text}`);
      return row as T;
    },
    count: async (from, params) =>
      Number((await read<{ n: unknown }>(`SELECT count(*) AS n FROM ${from}`, params))?.n),
  };
}

/** A test application and what it was built from. */
export interface TestApp {
  app: ReturnType<typeof createApp>;
  /**
   * The engine the services use: SQLite's over `db`, or PostgreSQL's when the test process
   * has `DATABASE_URL` (tests/helpers/test_database.ts).
   */
  engine: Engine;
  /** Reads and writes what is stored, on either engine. */
  sql: TestSql;
  /** The SQLite database under `engine`; absent on PostgreSQL (SQLite-only tests use it). */
  db?: Database;
  /** On PostgreSQL, the URL of the app's own database (a second instance may open it too). */
  databaseUrl?: string;
  clock: FixedClock;
  config: Config;
  dataDir: string;
  lifecycle: Lifecycle;
  logs: string[];
  /**
   * Where responses disagreed with the OpenAPI document (see `checkedApp`); `close()` fails
   * the test when any did.
   */
  openApiProblems: string[];
  /** Closes the database (on PostgreSQL: drops it) and removes the temporary directory. */
  close(): Promise<void>;
}

/**
 * The table with one row per searchable item (its `type`, `item_id`, `project_id`): SQLite's
 * `search_docs` (beside its full-text index), PostgreSQL's `search_index`.
 */
export function searchRowsTable(t: TestApp): string {
  return t.sql.kind === "sqlite" ? "search_docs" : "search_index";
}

/**
 * On PostgreSQL, how far `search_text` (migration 022) is from the text of the live rows of
 * `search_index`: its rows without such a row, and such rows without text or with other text
 * (0 when in step). 0 on SQLite, which has no such table.
 */
export async function searchTextOutOfStep(t: TestApp): Promise<number> {
  if (t.sql.kind === "sqlite") return 0;
  const { n } = (await t.sql.get<{ n: number }>(
    `SELECT count(*) AS n FROM search_text s FULL JOIN
       (SELECT * FROM search_index WHERE live) i ON i.seq = s.seq
     WHERE s.seq IS NULL OR i.seq IS NULL OR s.project_id <> i.project_id OR s.type <> i.type
       OR s.created_at <> i.created_at OR s.doc <> lower(i.title || E'\\n' || i.body)`,
  ))!;
  return Number(n);
}

/**
 * The SQLite database of a test app, for what only SQLite has (its files, pragmas, group
 * commit); throws when the app runs on PostgreSQL, where such a test is ignored.
 */
export function sqliteOf(t: TestApp): Database {
  if (!t.db) {
    throw new Error("Cannot use the SQLite database: this app runs on PostgreSQL (DATABASE_URL)");
  }
  return t.db;
}

/**
 * `app` with every `/api` response checked against the OpenAPI document: an in-process
 * `request` that disagrees throws at once, and a served one (`fetch`) is recorded in
 * `problems` (the client gets its answer; the test fails at `close()`). The document is read
 * from the first app and compiled once per process.
 */
export function checkedApp(app: App, problems: string[]): App {
  const inspect = async (method: string, url: string, res: Response): Promise<string[]> => {
    // A URL the server itself cannot parse (a bad Host, say) is no operation of the document.
    const path = URL.parse(url, "http://localhost")?.pathname ?? "";
    if (!isDocumentedArea(path)) return [];
    const validator = await sharedValidator(async () =>
      await (await app.request("/api/openapi.json")).json()
    );
    const type = res.headers.get("content-type") ?? "";
    const body = type.includes("json") ? await res.clone().text() : null;
    return validator.check({ method, path, status: res.status, headers: res.headers, body });
  };
  const request: App["request"] = async (input, init, ...rest) => {
    const res = await app.request(input, init, ...rest);
    const method = init?.method ?? (input instanceof Request ? input.method : "GET");
    const url = input instanceof Request ? input.url : String(input);
    const found = await inspect(method.toUpperCase(), url, res);
    if (found.length > 0) {
      problems.push(...found);
      throw new Error(`The response disagrees with the OpenAPI document:\n${found.join("\n")}`);
    }
    return res;
  };
  const fetch: App["fetch"] = async (req, ...rest) => {
    const res = await app.fetch(req, ...rest);
    problems.push(...await inspect(req.method, req.url, res));
    return res;
  };
  return { ...app, request, fetch };
}

/** Options for `testApp`. */
export interface TestAppOptions {
  env?: Record<string, string>;
  /** Replaces the (cheap) scrypt hasher. */
  hasher?: PasswordHasher;
  creditScore?: CreditScoreLookup;
  now?: string;
  /** The webhook sender's tuning. */
  webhooks?: WebhookSenderOptions;
  /** How project imports run their batches (a test can hold one between two). */
  imports?: ImportOptions;
  /** The mail sender's tuning (a trusted throwaway certificate, short timeouts). */
  mail?: MailSenderOptions;
  /**
   * The data directory to use instead of a new temporary one, kept by `close()` (benchmarks
   * reuse a big database built once; its migrations still run). SQLite only.
   */
  dataDir?: string;
}

/** The storage of one test app, and how it is closed. */
interface TestStorage {
  engine: Engine;
  db?: Database;
  url?: string;
  close(): Promise<void>;
}

/**
 * SQLite in `dataDir` (migrated now), or on PostgreSQL a database of the app's own, copied
 * from the migrated template and dropped at `close()`.
 */
async function openTestStorage(dataDir: string, now: () => Date): Promise<TestStorage> {
  if (ON_POSTGRES) {
    const { database, ready } = await appDatabase();
    keepPostgresClientErrors();
    // Few connections: tests run one request at a time, and the server's are shared by all.
    const engine = openPostgresEngine(database.url, { max: 4 });
    const close = async () => {
      try {
        await engine.close();
      } finally {
        await database.drop();
        await ready;
      }
    };
    try {
      // As if migrated now, as SQLite's are (the template was migrated at its own time).
      await engine.run("UPDATE schema_migrations SET applied_at = ?", [now().toISOString()]);
    } catch (error) {
      await close();
      throw error;
    }
    return { engine, url: database.url, close };
  }
  const db = openDatabase(join(dataDir, "collab.db"));
  migrate(db, MIGRATIONS_DIR, now);
  return { engine: sqliteEngine(db), db, close: async () => void await db.close() };
}

/** Builds the app over a migrated database (and a new temporary directory). */
export async function testApp(options: TestAppOptions = {}): Promise<TestApp> {
  const kept = options.dataDir !== undefined;
  const dataDir = options.dataDir ?? await Deno.makeTempDir({ prefix: "collab-test-" });
  const config = parseConfig({ DATA_DIR: dataDir, PORT: "0", ...options.env });
  const clock = new FixedClock(options.now ?? "2026-11-22T08:30:00.000Z");
  let storage: TestStorage;
  try {
    storage = await openTestStorage(dataDir, () => clock.now());
  } catch (error) {
    if (!kept) await Deno.remove(dataDir, { recursive: true });
    throw error;
  }
  const { engine, db, url } = storage;
  const logs: string[] = [];
  const openApiProblems: string[] = [];
  const lifecycle: Lifecycle = { shuttingDown: false };
  const app = checkedApp(
    createApp({
      ...(db ? { db } : {}),
      engine,
      config,
      clock,
      lifecycle,
      sessionSecret: "test-secret-0123456789abcdef0123456789abcdef",
      // Cheap scrypt parameters keep tests fast; production uses N=2^17.
      hasher: options.hasher ?? scryptHasher({ N: 1024, r: 8, p: 1 }),
      log: (line) => logs.push(line),
      ...(options.creditScore ? { creditScore: options.creditScore } : {}),
      ...(options.webhooks ? { webhooks: options.webhooks } : {}),
      ...(options.imports ? { imports: options.imports } : {}),
      ...(options.mail ? { mail: options.mail } : {}),
    }),
    openApiProblems,
  );
  // On PostgreSQL the streams hear committed events through the relay, and the instance holds
  // its number, as in main.ts.
  try {
    await app.services.presence.start();
    await app.services.relay.start();
  } catch (error) {
    await app.services.presence.stop();
    await storage.close();
    if (!kept) await Deno.remove(dataDir, { recursive: true });
    throw error;
  }
  return {
    app,
    engine,
    sql: testSql(engine),
    ...(db ? { db } : {}),
    ...(url ? { databaseUrl: url } : {}),
    clock,
    config,
    dataDir,
    lifecycle,
    logs,
    openApiProblems,
    async close() {
      try {
        await app.services.webhookSender.stop();
        await app.services.mailSender.stop();
        await app.services.relay.stop();
        await app.services.presence.stop();
      } finally {
        await storage.close();
        if (!kept) await Deno.remove(dataDir, { recursive: true });
      }
      if (openApiProblems.length > 0) {
        throw new Error(
          `Responses disagreed with the OpenAPI document:\n${openApiProblems.join("\n")}`,
        );
      }
    },
  };
}

/** A test app served by a real `Deno.serve` on a free loopback port. */
export interface TestServer extends TestApp {
  baseUrl: string;
}

/**
 * Serves a test app on 127.0.0.1 with a free port (or `port`, when its BASE_URL must be known
 * beforehand); `close()` stops it and cleans up.
 */
export async function testServer(options: TestAppOptions = {}, port = 0): Promise<TestServer> {
  const t = await testApp(options);
  const server = Deno.serve({ hostname: "127.0.0.1", port, onListen: () => {} }, t.app.fetch);
  const addr = server.addr as Deno.NetAddr;
  return {
    ...t,
    baseUrl: `http://127.0.0.1:${addr.port}`,
    async close() {
      await server.shutdown();
      await t.close();
    },
  };
}
