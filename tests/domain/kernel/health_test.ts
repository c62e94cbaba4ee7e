/** Readiness: the database check behind /healthz. */
import assert from "node:assert/strict";
import type { Engine } from "../../../db/kernel/engine.ts";
import { createHealth } from "../../../domain/kernel/health.ts";
import { testApp } from "../../helpers/app.ts";

/** An engine whose every read is `answer()`. */
function engineAnswering(answer: () => Promise<unknown>): Engine {
  const get = <T>() => answer() as Promise<T | undefined>;
  return {
    kind: "postgres",
    get,
    all: () => Promise.resolve([]),
    run: () => Promise.resolve({ changes: 0 }),
    transaction: () => Promise.reject(new Error("not used")),
    close: () => Promise.resolve(),
  } as unknown as Engine;
}

Deno.test("the database is reachable when it answers the check", async () => {
  const health = createHealth(engineAnswering(() => Promise.resolve({ ok: 1 })));
  assert.equal(await health.databaseReachable(), true);
});

Deno.test("the database is unreachable when the check fails", async () => {
  const health = createHealth(engineAnswering(() => Promise.reject(new Error("ECONNREFUSED"))));
  assert.equal(await health.databaseReachable(), false);
});

Deno.test("the database is unreachable when the check does not answer in time", async () => {
  const health = createHealth(engineAnswering(() => new Promise(() => {})), 5);
  assert.equal(await health.databaseReachable(), false);
});

Deno.test("/healthz answers 503 database_unreachable while the database does not answer", async () => {
  const t = await testApp();
  try {
    assert.deepEqual(await (await t.app.request("/healthz")).json(), { status: "ok" });
    const get = t.engine.get;
    t.engine.get = () => Promise.reject(new Error("the database is gone"));
    try {
      const res = await t.app.request("/healthz");
      assert.equal(res.status, 503);
      assert.deepEqual(await res.json(), { status: "database_unreachable" });
    } finally {
      t.engine.get = get;
    }
    assert.equal((await t.app.request("/healthz")).status, 200);
  } finally {
    await t.close();
  }
});
