/**
 * Two instances over one database count logins, password changes and registrations together:
 * the throttles live in the database, not in either process. Here both instances are apps in
 * this process, each with its own connections to the same database (the same SQLite file, as
 * two processes on one host would have, or the same PostgreSQL database);
 * `tests/db/accounts/throttle_engines_test.ts` checks the throttle's queries on both engines.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { openPostgresEngine } from "../../db/postgres/engine.ts";
import { openDatabase } from "../../db/sqlite/sqlite.ts";
import { sqliteEngine } from "../../db/sqlite/sqlite_engine.ts";
import { scryptHasher } from "../../domain/accounts/passwords.ts";
import { createApp } from "../../routes/app.ts";
import { checkedApp, type TestApp, testApp } from "../helpers/app.ts";
import { api, expectError, expectJson, login, PASSWORD, register } from "../helpers/api.ts";

const SECRET = "test-secret-0123456789abcdef0123456789abcdef";

/**
 * A second instance beside `t`: another app, with its own connections to `t`'s database (its
 * SQLite file, or its PostgreSQL database) and the same clock and configuration. Close it
 * before `t`.
 */
function secondInstance(t: TestApp): TestApp {
  const db = t.databaseUrl ? undefined : openDatabase(join(t.dataDir, "collab.db"));
  const engine = db ? sqliteEngine(db) : openPostgresEngine(t.databaseUrl!, { max: 4 });
  const problems: string[] = [];
  const app = checkedApp(
    createApp({
      ...(db ? { db } : {}),
      engine,
      config: t.config,
      clock: t.clock,
      sessionSecret: SECRET,
      hasher: scryptHasher({ N: 1024, r: 8, p: 1 }),
      log: () => {},
    }),
    problems,
  );
  return {
    ...t,
    app,
    ...(db ? { db } : {}),
    engine,
    openApiProblems: problems,
    async close() {
      await app.services.webhookSender.stop();
      await engine.close();
      assert.deepEqual(problems, []);
    },
  };
}

/** Runs `fn` with two instances over one new database. */
async function withTwoInstances(
  env: Record<string, string>,
  fn: (a: TestApp, b: TestApp) => Promise<void>,
): Promise<void> {
  const a = await testApp({ env });
  try {
    const b = secondInstance(a);
    try {
      await fn(a, b);
    } finally {
      await b.close();
    }
  } finally {
    await a.close();
  }
}

const loginVia = (t: TestApp, email: string, password: string) =>
  api(t, "POST", "/api/auth/login", { body: { email, password } });

Deno.test("two instances: failed logins through A and B together lock the email on both", async () => {
  await withTwoInstances({}, async (a, b) => {
    await register(a, "ada@example.com");
    for (let i = 0; i < 3; i++) {
      expectError(await loginVia(a, "ada@example.com", "nope"), 401, "unauthenticated");
    }
    for (let i = 0; i < 2; i++) {
      expectError(await loginVia(b, "ada@example.com", "nope"), 401, "unauthenticated");
    }
    // Five failures in all: the right password is refused through either instance.
    for (const t of [b, a]) {
      const locked = await loginVia(t, "ada@example.com", PASSWORD);
      expectError(locked, 429, "rate_limited");
      assert.equal(locked.headers.get("retry-after"), String(15 * 60));
    }
    a.clock.advance(15 * 60_000);
    await login(b, "ada@example.com");
  });
});

Deno.test("two instances: wrong passwords sent at once through both hash at most 5 in all", async () => {
  await withTwoInstances({}, async (a, b) => {
    await register(a, "ada@example.com");
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => loginVia(i % 2 ? a : b, "ada@example.com", "nope")),
    );
    const statuses = answers.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 401).length, 5, statuses.join(","));
    assert.equal(statuses.filter((s) => s === 429).length, 35, statuses.join(","));
    expectError(await loginVia(a, "ada@example.com", PASSWORD), 429, "rate_limited");
    expectError(await loginVia(b, "ada@example.com", PASSWORD), 429, "rate_limited");
  });
});

Deno.test("two instances: registrations through A and B count against one hourly limit", async () => {
  await withTwoInstances({ REGISTER_LIMIT_PER_HOUR: "3" }, async (a, b) => {
    const registerVia = (t: TestApp, email: string) =>
      api(t, "POST", "/api/auth/register", {
        body: { email, password: PASSWORD, displayName: "Someone" },
      });
    expectJson(await registerVia(a, "a@example.com"), 201);
    expectJson(await registerVia(b, "b@example.com"), 201);
    expectJson(await registerVia(a, "c@example.com"), 201);
    for (const t of [b, a]) {
      const refused = await registerVia(t, "d@example.com");
      expectError(refused, 429, "rate_limited");
      assert.equal(refused.headers.get("retry-after"), "3600");
    }
    a.clock.advance(60 * 60_000);
    expectJson(await registerVia(b, "d@example.com"), 201);
  });
});

Deno.test("two instances: wrong current passwords through A and B lock the password change on both", async () => {
  await withTwoInstances({}, async (a, b) => {
    const cookie = await register(a, "ada@example.com");
    const change = (t: TestApp, currentPassword: string) =>
      api(t, "POST", "/api/auth/password", {
        cookie,
        body: { currentPassword, newPassword: "a brand new password" },
      });
    for (const t of [a, b, a, b, a]) expectError(await change(t, "nope"), 400, "validation");
    expectError(await change(b, PASSWORD), 429, "rate_limited");
    // The login is not locked by it, through either instance.
    await login(b, "ada@example.com");
  });
});

Deno.test("password-reset limits hold across instances: 3 mails per address, 20 requests per client", async () => {
  // Mail on (the sender never runs here): a reset mail is a row of the outbox.
  const env = { BASE_URL: "https://collab.example.org", SMTP_URL: "smtp://127.0.0.1:9" };
  await withTwoInstances(env, async (a, b) => {
    await register(a, "root@example.com");
    await register(a, "ada@example.com");
    await register(a, "bob@example.com");
    const mails = () => a.sql.count("mail_outbox WHERE kind = 'password_reset'");
    const ask = (t: TestApp, email: string) =>
      api(t, "POST", "/api/auth/password-reset", { body: { email } });
    for (const t of [a, b, a, b]) expectJson(await ask(t, "ada@example.com"), 202);
    assert.equal(await mails(), 3, "the 4th request, through the other instance, mails nothing");
    for (let i = 0; i < 15; i++) await ask(i % 2 ? a : b, `nobody${i}@example.com`);
    expectJson(await ask(b, "bob@example.com"), 202);
    assert.equal(await mails(), 4, "the 20th request of the client still mails");
    expectJson(await ask(a, "bob@example.com"), 202);
    assert.equal(await mails(), 4, "the 21st, on either instance, does not");
  });
});
