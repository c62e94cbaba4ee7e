/** The transaction helpers: nesting, rollback, and group commit's per-job isolation. */
import assert from "node:assert/strict";
import { openDatabase } from "../../db/sqlite.ts";

function memory() {
  const db = openDatabase(":memory:");
  db.sql.exec("CREATE TABLE t (x INTEGER UNIQUE)");
  return db;
}

const values = (db: ReturnType<typeof memory>) =>
  (db.sql.prepare("SELECT x FROM t ORDER BY x").all() as Array<{ x: number }>).map((r) => r.x);

Deno.test("tx commits on success and rolls back everything on a throw, nested ones too", async () => {
  const db = memory();
  db.tx(() => db.sql.exec("INSERT INTO t VALUES (1)"));
  assert.throws(() =>
    db.tx(() => {
      db.sql.exec("INSERT INTO t VALUES (2)");
      db.tx(() => db.sql.exec("INSERT INTO t VALUES (3)"));
      throw new Error("boom");
    }), /boom/);
  assert.deepEqual(values(db), [1]);
  db.tx(() => {
    db.sql.exec("INSERT INTO t VALUES (4)");
    assert.throws(() => db.tx(() => db.sql.exec("INSERT INTO t VALUES (1)")), /UNIQUE/);
  });
  assert.deepEqual(values(db), [1, 4]);
  await db.close();
});

Deno.test("group commit shares one transaction yet a failing job rolls back alone", async () => {
  const db = memory();
  const results = await Promise.allSettled([
    db.commit(() => db.sql.exec("INSERT INTO t VALUES (10)")),
    db.commit(() => {
      db.sql.exec("INSERT INTO t VALUES (11)");
      db.sql.exec("INSERT INTO t VALUES (10)"); // duplicate: this job fails
    }),
    db.commit(() => {
      db.sql.exec("INSERT INTO t VALUES (12)");
      return 12;
    }),
  ]);
  assert.deepEqual(results.map((r) => r.status), ["fulfilled", "rejected", "fulfilled"]);
  assert.equal((results[2] as PromiseFulfilledResult<number>).value, 12);
  assert.deepEqual(values(db), [10, 12]);
  await db.close();
});

Deno.test("close waits for queued jobs and later writes are refused", async () => {
  const db = memory();
  const pending = db.commit(() => db.sql.exec("INSERT INTO t VALUES (5)"));
  await db.close();
  await pending;
  await assert.rejects(db.commit(() => 1), /database is closed/);
});
