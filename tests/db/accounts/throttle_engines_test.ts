/**
 * The throttles (`domain/accounts/throttle.ts` over `db/accounts/throttle.ts`) on PostgreSQL: the same answers
 * and rows as on SQLite for the same attempts, attempts sent at once through two instances
 * (two connection pools) that pass no limit together, and two app instances over one database
 * that count logins and registrations together. Needs Debian's postgresql (`.ci/run`
 * installs it).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Engine } from "../../../db/kernel/engine.ts";
import { migrate, MIGRATIONS_DIR } from "../../../db/sqlite/migrate.ts";
import { openPostgresEngine } from "../../../db/postgres/engine.ts";
import { migratePostgres, POSTGRES_MIGRATIONS_DIR } from "../../../db/postgres/migrate.ts";
import { openDatabase } from "../../../db/sqlite/sqlite.ts";
import { sqliteEngine } from "../../../db/sqlite/sqlite_engine.ts";
import { listThrottleEntries, pruneThrottleEntries } from "../../../db/accounts/throttle.ts";
import { FixedClock } from "../../../domain/kernel/clock.ts";
import { parseConfig } from "../../../domain/config.ts";
import { DomainError } from "../../../domain/kernel/errors.ts";
import { scryptHasher } from "../../../domain/accounts/passwords.ts";
import { LoginThrottle, RegistrationThrottle } from "../../../domain/accounts/throttle.ts";
import { type App, createApp } from "../../../routes/app.ts";
import { PASSWORD } from "../../helpers/api.ts";
import { postgresTest } from "../../helpers/postgres.ts";

const START = "2026-11-25T09:00:00.000Z";
const NOW = () => new Date(START);

/** What an admission gave: admitted, or refused with its wait in seconds. */
async function tryBegin<T>(begin: () => Promise<T>): Promise<T | string> {
  try {
    return await begin();
  } catch (error) {
    if (error instanceof DomainError && error.code === "rate_limited") {
      return `rate_limited ${error.retryAfter}`;
    }
    throw error;
  }
}

/**
 * The same attempts on `engine`: in flight, failed, succeeded, locks of an account and of an
 * address, a password-change throttle apart from the login's, a sliding registration window,
 * and the pruning. Returns every answer and the rows left at some points.
 */
async function script(engine: Engine): Promise<unknown[]> {
  const clock = new FixedClock(START);
  const logins = new LoginThrottle(engine, clock);
  const passwords = new LoginThrottle(engine, clock, "password");
  const registrations = new RegistrationThrottle(engine, clock, 2);
  const trace: unknown[] = [];
  const note = (x: unknown) => trace.push(typeof x === "string" ? x : "admitted");
  const rows = async () =>
    (await listThrottleEntries(engine, [
      { rule: "login_account", subject: "ada@example.com" },
      { rule: "login_address", subject: "10.0.0.1" },
      { rule: "login_address", subject: "10.0.0.2" },
      { rule: "password_account", subject: "user:1" },
      { rule: "registration_address", subject: "10.0.0.3" },
    ], clock.now().toISOString())).map(({ id: _id, ...rest }) => rest);

  const inFlight = [];
  for (let i = 0; i < 5; i++) {
    inFlight.push(await logins.begin("ada@example.com", "10.0.0.1"));
  }
  note(await tryBegin(() => logins.begin("ada@example.com", "10.0.0.1")));
  note(await tryBegin(() => passwords.begin("user:1", "10.0.0.1")));
  trace.push(await rows());
  await inFlight[0]!.succeeded();
  clock.advance(1000);
  for (const attempt of inFlight.slice(1)) await attempt.failed();
  trace.push(await rows());
  clock.advance(1000);
  const last = await logins.begin("ada@example.com", "10.0.0.1");
  await last.failed();
  note(await tryBegin(() => logins.begin("ada@example.com", "10.0.0.9")));
  trace.push(await rows());

  for (let i = 0; i < 20; i++) {
    await (await logins.begin(`user${i}@example.com`, "10.0.0.2")).failed();
    clock.advance(100);
  }
  note(await tryBegin(() => logins.begin("bob@example.com", "10.0.0.2")));
  clock.advance(60_000);
  const bob = await tryBegin(() => logins.begin("bob@example.com", "10.0.0.2"));
  note(bob);
  if (typeof bob !== "string") await bob.succeeded();
  trace.push(await rows());

  await (await registrations.begin("10.0.0.3")).accepted();
  clock.advance(60_000);
  const second = await registrations.begin("10.0.0.3");
  note(await tryBegin(() => registrations.begin("10.0.0.3")));
  await second.accepted();
  note(await tryBegin(() => registrations.begin("10.0.0.3")));
  trace.push(await rows());

  clock.advance(2 * 3_600_000);
  const at = clock.now().toISOString();
  trace.push(await pruneThrottleEntries(engine, at, 10));
  trace.push(await pruneThrottleEntries(engine, at, 1000));
  trace.push(await pruneThrottleEntries(engine, at, 1000));
  trace.push((await engine.get<{ n: number }>("SELECT count(*) AS n FROM throttle_entries"))!.n);
  return trace;
}

Deno.test(
  postgresTest(
    "the throttles answer the same attempts alike on SQLite and PostgreSQL",
    async (pg, sql) => {
      await migratePostgres(sql, POSTGRES_MIGRATIONS_DIR, NOW);
      const dir = await Deno.makeTempDir({ prefix: "throttle-engines-" });
      const db = openDatabase(join(dir, "collab.db"));
      const postgresEngine = openPostgresEngine(pg.url);
      try {
        migrate(db, MIGRATIONS_DIR, NOW);
        const onSqlite = await script(sqliteEngine(db));
        const onPostgres = await script(postgresEngine);
        assert.deepEqual(onPostgres, onSqlite);
        // The script's answers, as the in-memory throttles gave them.
        assert.deepEqual(onSqlite.filter((x) => typeof x === "string"), [
          "rate_limited 1",
          "admitted",
          "rate_limited 900",
          "rate_limited 60",
          "admitted",
          "rate_limited 1",
          "rate_limited 3540",
        ]);
      } finally {
        await postgresEngine.close();
        await db.close();
        await Deno.remove(dir, { recursive: true });
      }
    },
  ),
);

Deno.test(
  postgresTest(
    "two instances on PostgreSQL: attempts sent at once through both pass no limit together",
    async (pg, sql) => {
      await migratePostgres(sql, POSTGRES_MIGRATIONS_DIR, NOW);
      const engines = [openPostgresEngine(pg.url), openPostgresEngine(pg.url)];
      try {
        const clock = new FixedClock(START);
        const logins = engines.map((e) => new LoginThrottle(e, clock));
        const registrations = engines.map((e) => new RegistrationThrottle(e, clock, 3));
        const answers = await Promise.all(
          Array.from(
            { length: 40 },
            (_, i) => tryBegin(() => logins[i % 2]!.begin("ada@example.com", `10.0.0.${i}`)),
          ),
        );
        const admitted = answers.filter((a) => typeof a !== "string");
        assert.equal(admitted.length, 5, JSON.stringify(answers));
        for (const attempt of admitted) await attempt.failed();
        for (const throttle of logins) {
          assert.equal(
            await tryBegin(() => throttle.begin("ada@example.com", "10.1.1.1")),
            "rate_limited 900",
          );
        }

        const registered = await Promise.all(
          Array.from(
            { length: 20 },
            (_, i) => tryBegin(() => registrations[i % 2]!.begin("10.0.0.3")),
          ),
        );
        const places = registered.filter((r) => typeof r !== "string");
        assert.equal(places.length, 3, JSON.stringify(registered));
        for (const place of places) await place.accepted();
        for (const throttle of registrations) {
          assert.equal(await tryBegin(() => throttle.begin("10.0.0.3")), "rate_limited 3600");
        }
      } finally {
        for (const e of engines) await e.close();
      }
    },
  ),
);

/** An app instance on the PostgreSQL database at `url`. */
function postgresInstance(url: string, clock: FixedClock, dataDir: string) {
  const engine = openPostgresEngine(url);
  const app = createApp({
    engine,
    config: parseConfig({ DATA_DIR: dataDir, PORT: "0", REGISTER_LIMIT_PER_HOUR: "2" }),
    clock,
    sessionSecret: "test-secret-0123456789abcdef0123456789abcdef",
    hasher: scryptHasher({ N: 1024, r: 8, p: 1 }),
    log: () => {},
  });
  return {
    app,
    async close() {
      await app.services.webhookSender.stop();
      await engine.close();
    },
  };
}

async function post(app: App, path: string, body: unknown): Promise<Response> {
  return await app.request(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

Deno.test(
  postgresTest(
    "two app instances on PostgreSQL count failed logins and registrations together",
    async (pg, sql) => {
      await migratePostgres(sql, POSTGRES_MIGRATIONS_DIR, NOW);
      const dataDir = await Deno.makeTempDir({ prefix: "throttle-pg-apps-" });
      const clock = new FixedClock(START);
      const [a, b] = [
        postgresInstance(pg.url, clock, dataDir),
        postgresInstance(pg.url, clock, dataDir),
      ];
      try {
        const register = (app: App, email: string) =>
          post(app, "/api/auth/register", { email, password: PASSWORD, displayName: "Someone" });
        const login = (app: App, password: string) =>
          post(app, "/api/auth/login", { email: "ada@example.com", password });
        assert.equal((await register(a.app, "ada@example.com")).status, 201);
        assert.equal((await register(b.app, "bob@example.com")).status, 201);
        // Two registrations in all reach the limit of two, through either instance.
        for (const app of [a.app, b.app]) {
          const refused = await register(app, "cy@example.com");
          assert.equal(refused.status, 429);
          assert.equal(refused.headers.get("retry-after"), "3600");
        }
        for (const app of [a.app, b.app, a.app, b.app, a.app]) {
          assert.equal((await login(app, "nope")).status, 401);
        }
        for (const app of [b.app, a.app]) {
          const locked = await login(app, PASSWORD);
          assert.equal(locked.status, 429);
          assert.equal(locked.headers.get("retry-after"), String(15 * 60));
        }
        clock.advance(15 * 60_000);
        assert.equal((await login(b.app, PASSWORD)).status, 200);
      } finally {
        await a.close();
        await b.close();
        await Deno.remove(dataDir, { recursive: true });
      }
    },
  ),
);
