/**
 * The event relay (PostgreSQL) stopped while it reads the logs and another notification is due:
 * the stop ends the reading, and nothing is read or woken after it. Before, the read that ended
 * after the stop woke another, which ended at once with the logs still due and woke the next,
 * forever, in promise callbacks: the process spun at 100% CPU and its timers never ran again
 * (seen twice as a test file that never finished in the PostgreSQL pass).
 */
import assert from "node:assert/strict";
import { testApp } from "../../helpers/app.ts";
import { createProject, sendChat, signUp } from "../../helpers/api.ts";
import { ON_POSTGRES } from "../../helpers/test_database.ts";

Deno.test({
  name: "a relay stopped while a read is under way and another is due stops for good",
  ignore: !ON_POSTGRES,
  async fn() {
    const t = await testApp();
    const engine = t.engine;
    const all = engine.all;
    try {
      const owner = await signUp(t, "olga@example.com");
      const project = await createProject(t, owner.cookie, "Apollo");
      // Hold the relay's next read of the project log until the stop has begun.
      let release!: () => void;
      const held = new Promise<void>((resolve) => release = resolve);
      let reads = 0;
      let reading!: () => void;
      const started = new Promise<void>((resolve) => reading = resolve);
      engine.all = (async (sql: string, params?: unknown[]) => {
        if (sql.includes("FROM project_events WHERE id >")) {
          reads++;
          if (reads === 1) {
            reading();
            await held;
          }
        }
        return await all.call(engine, sql, params as never);
      }) as typeof engine.all;
      await sendChat(t, owner.cookie, project.id, "first");
      await started;
      // Heard while the first read is held: the logs are due again.
      await sendChat(t, owner.cookie, project.id, "second");
      await new Promise((resolve) => setTimeout(resolve, 200));
      const stopping = t.app.services.relay.stop();
      release();
      await stopping;
      const readsAtStop = reads;
      // Timers still run (a spin of promise callbacks would starve them), and nothing more is read.
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(reads, readsAtStop);
    } finally {
      engine.all = all;
      await t.close();
    }
  },
});
