/**
 * Login and registration throttling over the database: reservations for attempts in flight,
 * locks, sliding windows, and expired rows pruned while live locks stay.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Engine } from "../../../db/kernel/engine.ts";
import { migrate, MIGRATIONS_DIR } from "../../../db/sqlite/migrate.ts";
import { openDatabase } from "../../../db/sqlite/sqlite.ts";
import { sqliteEngine } from "../../../db/sqlite/sqlite_engine.ts";
import { FixedClock } from "../../../domain/kernel/clock.ts";
import { DomainError } from "../../../domain/kernel/errors.ts";
import { LoginThrottle, RegistrationThrottle } from "../../../domain/accounts/throttle.ts";

const isRateLimited = (error: unknown) =>
  error instanceof DomainError && error.code === "rate_limited";

/** Runs `fn` with an engine over a new migrated database, removed afterwards. */
async function withEngine(fn: (engine: Engine) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "throttle-test-" });
  const db = openDatabase(join(dir, "collab.db"));
  try {
    migrate(db, MIGRATIONS_DIR, () => new Date("2026-11-23T00:00:00Z"));
    await fn(sqliteEngine(db));
  } finally {
    await db.close();
    await Deno.remove(dir, { recursive: true });
  }
}

async function rowCount(engine: Engine): Promise<number> {
  return (await engine.get<{ n: number }>("SELECT count(*) AS n FROM throttle_entries"))!.n;
}

Deno.test("attempts in flight count against the limit; ending them frees or spends the allowance", async () => {
  await withEngine(async (engine) => {
    const throttle = new LoginThrottle(engine, new FixedClock("2026-11-23T00:00:00Z"));
    const attempts = [];
    for (let i = 0; i < 5; i++) attempts.push(await throttle.begin("ada@example.com", "a"));
    await assert.rejects(throttle.begin("ada@example.com", "b"), isRateLimited);
    await attempts[0]!.succeeded(); // a success clears the failures, not the other reservations
    const sixth = await throttle.begin("ada@example.com", "b");
    for (const attempt of [...attempts.slice(1), sixth]) await attempt.failed();
    // Five failures: locked, whatever the address.
    await assert.rejects(throttle.begin("ada@example.com", "c"), isRateLimited);
    // Ending an attempt twice changes nothing: a late `succeeded()` does not lift the lock.
    await sixth.failed();
    await sixth.succeeded();
    await assert.rejects(throttle.begin("ada@example.com", "c"), isRateLimited);
  });
});

Deno.test("an abandoned attempt (the hasher was busy) frees its place and counts as no failure", async () => {
  await withEngine(async (engine) => {
    const throttle = new LoginThrottle(engine, new FixedClock("2026-11-23T00:00:00Z"));
    for (let round = 0; round < 10; round++) {
      const attempts = [];
      for (let i = 0; i < 5; i++) attempts.push(await throttle.begin("ada@example.com", "a"));
      for (const attempt of attempts) await attempt.abandoned();
    }
    // Fifty abandoned attempts later, the account has its whole allowance.
    const five = [];
    for (let i = 0; i < 5; i++) five.push(await throttle.begin("ada@example.com", "a"));
    await assert.rejects(throttle.begin("ada@example.com", "a"), isRateLimited);
    for (const attempt of five) await attempt.succeeded();
    await (await throttle.begin("ada@example.com", "a")).succeeded();
  });
});

Deno.test("expired rows are pruned by later attempts; a live lock is not, until it ends", async () => {
  await withEngine(async (engine) => {
    const clock = new FixedClock("2026-11-23T00:00:00Z");
    const throttle = new LoginThrottle(engine, clock);
    for (let i = 0; i < 5; i++) {
      await (await throttle.begin("victim@example.com", `10.0.0.${i}`)).failed();
    }
    // 100 other emails fail once each, from addresses that stay under their own limit.
    for (let i = 0; i < 100; i++) {
      await (await throttle.begin(`user${i}@example.com`, `addr${i % 10}`)).failed();
    }
    // The victim's lock, 100 emails' failures, and 105 failures of addresses.
    assert.equal(await rowCount(engine), 1 + 100 + 105);

    // Two minutes on, the addresses' failures have left their one-minute window; enough
    // attempts later they are gone, and the lock and the emails' failures are still there.
    clock.advance(2 * 60_000);
    for (let i = 0; i < 64; i++) {
      await (await throttle.begin(`new${i}@example.com`, "10.1.1.1")).succeeded();
    }
    assert.equal(await rowCount(engine), 1 + 100);
    await assert.rejects(throttle.begin("victim@example.com", "10.9.9.9"), isRateLimited);

    // Past the lock and the windows, nothing is left once attempts have pruned it.
    clock.advance(14 * 60_000);
    for (let i = 0; i < 64; i++) {
      await (await throttle.begin(`later${i}@example.com`, "10.1.1.1")).succeeded();
    }
    assert.equal(await rowCount(engine), 0);
    await (await throttle.begin("victim@example.com", "10.9.9.9")).succeeded();
  });
});

Deno.test("registrations: a limit per address within a sliding hour; addresses are counted apart", async () => {
  await withEngine(async (engine) => {
    const clock = new FixedClock("2026-11-23T00:00:00Z");
    const throttle = new RegistrationThrottle(engine, clock, 2);
    await (await throttle.begin("a")).accepted();
    clock.advance(60_000);
    await (await throttle.begin("a")).accepted();
    await assert.rejects(throttle.begin("a"), (error: unknown) => {
      assert.ok(isRateLimited(error));
      assert.equal((error as DomainError).retryAfter, 3600 - 60);
      return true;
    });
    await (await throttle.begin("b")).accepted();
    clock.advance(3600_000 - 60_000);
    await (await throttle.begin("a")).accepted();
    await assert.rejects(throttle.begin("a"), isRateLimited);
  });
});

Deno.test("registrations in flight hold a place; abandoned ones give it back and count nothing", async () => {
  await withEngine(async (engine) => {
    const throttle = new RegistrationThrottle(engine, new FixedClock("2026-11-23T00:00:00Z"), 2);
    const first = await throttle.begin("a");
    const second = await throttle.begin("a");
    await assert.rejects(throttle.begin("a"), isRateLimited);
    await first.abandoned();
    await first.accepted(); // ending twice changes nothing
    const third = await throttle.begin("a");
    await second.accepted();
    await third.accepted();
    await assert.rejects(throttle.begin("a"), isRateLimited);
  });
});
