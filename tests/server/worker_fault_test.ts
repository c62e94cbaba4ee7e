/**
 * `WORKERS`: a worker isolate that an uncaught error ends is logged and replaced, and no
 * acknowledged loan decision is lost. This test is the primary itself (`startWorkers`, on
 * SQLite): its one worker is the server's own worker module with a fault the test sets off
 * (tests/server/fixtures/faulty_worker.ts), which dies holding the write lock and an open write
 * transaction. Loan applications keep arriving throughout; the replacement must be able to
 * write (the lock and SQLite's own lock were let go), and the dead worker's uncommitted write
 * must not be there.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { migrate, MIGRATIONS_DIR } from "../../db/sqlite/migrate.ts";
import { openDatabase } from "../../db/sqlite/sqlite.ts";
import { writeLock, writeLockBuffer } from "../../db/sqlite/write_lock.ts";
import { lifecycleBuffer } from "../../server/isolate.ts";
import { startWorkers } from "../../server/workers.ts";
import { UNCOMMITTED } from "./fixtures/faulty_worker.ts";
import { application } from "../helpers/soap.ts";
import { removeDataDir } from "../helpers/main_process.ts";
import { freePort } from "../helpers/postgres.ts";

const FAULTY_WORKER = new URL("./fixtures/faulty_worker.ts", import.meta.url);

/** Sends one loan application; the applicant's name when it was answered with a decision. */
async function apply(baseUrl: string, name: string): Promise<string | null> {
  try {
    const res = await fetch(`${baseUrl}/loan`, {
      method: "POST",
      headers: { "content-type": "text/xml; charset=utf-8" },
      body: application(name, 1000),
      // A worker that cannot write (a lock never let go) would hold the request for ever.
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    return res.status === 200 && text.includes("<approved>") ? name : null;
  } catch {
    return null; // no isolate listening, or the connection ended with the worker
  }
}

Deno.test("WORKERS: a worker an uncaught error ends is logged and replaced; no acknowledged decision is lost", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "worker-fault-test-" });
  // The worker reads its configuration from the environment, as it does in the server.
  const saved = { DATA_DIR: Deno.env.get("DATA_DIR"), DATABASE_URL: Deno.env.get("DATABASE_URL") };
  Deno.env.set("DATA_DIR", dataDir);
  Deno.env.delete("DATABASE_URL");
  const lock = writeLockBuffer();
  const db = openDatabase(join(dataDir, "collab.db"), {
    writeLock: writeLock(lock, 1),
    checkpointOnClose: true,
  });
  const busName = `worker-fault-test-${crypto.randomUUID()}`;
  const faults = new BroadcastChannel(`${busName}-faults`);
  const logged: string[] = [];
  const port = freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    migrate(db, MIGRATIONS_DIR, () => new Date());
    const pool = await startWorkers({
      count: 1,
      port,
      hostname: "127.0.0.1",
      sessionSecret: "s".repeat(64),
      writeLock: lock,
      lifecycle: lifecycleBuffer(),
      busName,
      log: (line) => logged.push(line),
      module: FAULTY_WORKER,
    });
    try {
      const acknowledged: string[] = [];
      let sent = 0;
      // Applications before the fault, while the worker dies, and after its replacement.
      const send = async () => {
        const name = await apply(baseUrl, `applicant ${sent++}`);
        if (name !== null) acknowledged.push(name);
      };
      for (let i = 0; i < 20; i++) await send();
      assert.equal(acknowledged.length, 20);
      faults.postMessage("fail");
      const deadline = Date.now() + 30_000;
      let afterReplacement = 0;
      while (afterReplacement < 20) {
        assert.ok(Date.now() < deadline, `nothing acknowledged after: ${logged.join("\n")}`);
        const replaced = logged.length > 0;
        const before = acknowledged.length;
        await send();
        if (replaced && acknowledged.length > before) afterReplacement++;
        if (!replaced) await new Promise((resolve) => setTimeout(resolve, 5));
      }
      assert.equal(logged.length, 1, logged.join("\n"));
      assert.match(
        logged[0]!,
        /^worker 2 ended \(.*a fault the test set off.*\): starting another$/,
      );
      // Every acknowledged decision is stored; the dead worker's uncommitted one is not.
      const stored = new Set(
        (db.reader().prepare("SELECT applicant_name FROM loan_history").all() as Array<
          { applicant_name: string }
        >).map((r) => r.applicant_name),
      );
      const lost = acknowledged.filter((name) => !stored.has(name));
      assert.deepEqual(lost, [], `${lost.length} of ${acknowledged.length} acknowledged lost`);
      assert.ok(!stored.has(UNCOMMITTED));
    } finally {
      await pool.drain(new Promise((resolve) => setTimeout(resolve, 10_000)));
    }
  } finally {
    faults.close();
    await db.close();
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) Deno.env.delete(name);
      else Deno.env.set(name, value);
    }
    await removeDataDir(dataDir);
  }
});
