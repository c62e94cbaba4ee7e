/**
 * The settings a dashboard's read gives its statements on PostgreSQL (no JIT, generic plans)
 * hold for that read only: the pooled connection goes back with the server's defaults.
 */
import assert from "node:assert/strict";
import { withGenericPlans, withoutJit } from "../../../db/projects/activity.ts";
import type { Queries } from "../../../db/kernel/engine.ts";
import { openDatabase } from "../../../db/sqlite/sqlite.ts";
import { sqliteEngine } from "../../../db/sqlite/sqlite_engine.ts";
import { openPostgresEngine } from "../../../db/postgres/engine.ts";
import { postgresTest } from "../../helpers/postgres.ts";

async function settings(q: Queries): Promise<{ jit: string; plans: string }> {
  return (await q.get<{ jit: string; plans: string }>(
    "SELECT current_setting('jit') AS jit, current_setting('plan_cache_mode') AS plans",
  ))!;
}

Deno.test(postgresTest(
  "on PostgreSQL a read's generic plans and JIT off last until its end, not past it",
  async (pg) => {
    // One connection: the next read is sure to get the same one back.
    const engine = openPostgresEngine(pg.url, { max: 1 });
    try {
      const before = await engine.read(settings);
      assert.equal(before.plans, "auto");
      const during = await engine.read(async (q) => {
        await withoutJit(q);
        await withGenericPlans(q);
        return await settings(q);
      });
      assert.deepEqual(during, { jit: "off", plans: "force_generic_plan" });
      assert.deepEqual(await engine.read(settings), before);
      // A write that fails after setting them leaves nothing behind either.
      await assert.rejects(engine.transaction(async (q) => {
        await withGenericPlans(q);
        throw new Error("refused");
      }));
      assert.deepEqual(await engine.read(settings), before);
    } finally {
      await engine.close();
    }
  },
));

Deno.test("on SQLite the read settings change nothing", async () => {
  const engine = sqliteEngine(openDatabase(":memory:"));
  try {
    const answer = await engine.read(async (q) => {
      await withoutJit(q);
      await withGenericPlans(q);
      return (await q.get<{ one: number }>("SELECT 1 AS one"))!.one;
    });
    assert.equal(answer, 1);
  } finally {
    await engine.close();
  }
});
