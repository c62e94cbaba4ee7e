/** Test helpers: a fresh app over a temporary database, and a real server on a free port. */
import { join } from "node:path";
import type { Engine } from "../../db/engine.ts";
import { migrate, MIGRATIONS_DIR } from "../../db/migrate.ts";
import { sqliteEngine } from "../../db/sqlite_engine.ts";
import { type Database, openDatabase } from "../../db/sqlite.ts";
import { FixedClock } from "../../domain/clock.ts";
import { type Config, parseConfig } from "../../domain/config.ts";
import type { CreditScoreLookup } from "../../domain/loan.ts";
import { type PasswordHasher, scryptHasher } from "../../domain/passwords.ts";
import type { ImportOptions } from "../../domain/project_import.ts";
import type { WebhookSenderOptions } from "../../domain/webhook_sender.ts";
import { type App, createApp, type Lifecycle } from "../../routes/app.ts";
import { isDocumentedArea, sharedValidator } from "./openapi_validator.ts";

/** A test application and what it was built from. */
export interface TestApp {
  app: ReturnType<typeof createApp>;
  db: Database;
  /** The engine the services use, over `db`. */
  engine: Engine;
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
  /** Closes the database and removes the temporary directory. */
  close(): Promise<void>;
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
}

/** Builds the app over a migrated database in a new temporary directory. */
export async function testApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = await Deno.makeTempDir({ prefix: "collab-test-" });
  const config = parseConfig({ DATA_DIR: dataDir, PORT: "0", ...options.env });
  const db = openDatabase(join(dataDir, "collab.db"));
  const engine = sqliteEngine(db);
  const clock = new FixedClock(options.now ?? "2026-11-22T08:30:00.000Z");
  migrate(db, MIGRATIONS_DIR, () => clock.now());
  const logs: string[] = [];
  const openApiProblems: string[] = [];
  const lifecycle: Lifecycle = { shuttingDown: false };
  const app = checkedApp(
    createApp({
      db,
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
    }),
    openApiProblems,
  );
  return {
    app,
    db,
    engine,
    clock,
    config,
    dataDir,
    lifecycle,
    logs,
    openApiProblems,
    async close() {
      await app.services.webhookSender.stop();
      await db.close();
      await Deno.remove(dataDir, { recursive: true });
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

/** Serves a test app on 127.0.0.1 with a free port; `close()` stops it and cleans up. */
export async function testServer(options: TestAppOptions = {}): Promise<TestServer> {
  const t = await testApp(options);
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, t.app.fetch);
  const { port } = server.addr as Deno.NetAddr;
  return {
    ...t,
    baseUrl: `http://127.0.0.1:${port}`,
    async close() {
      await server.shutdown();
      await t.close();
    },
  };
}
