/** The transaction helpers: nesting, rollback, and group commit's per-job isolation. */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type Database,
  openDatabase,
  quickCheck,
  StorageFullError,
} from "../../../db/sqlite/sqlite.ts";

function memory() {
  const db = openDatabase(":memory:");
  db.sql.exec("CREATE TABLE t (x INTEGER UNIQUE)");
  return db;
}

const values = (db: Database) =>
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

/** A database file whose size is capped at its current pages: SQLite then answers SQLITE_FULL. */
async function cappedFile() {
  const dir = await Deno.makeTempDir({ prefix: "sqlite-test-" });
  const db = openDatabase(join(dir, "t.db"));
  db.sql.exec("CREATE TABLE t (x INTEGER UNIQUE, pad BLOB)");
  const fill = (on: boolean) => {
    const { page_count } = db.sql.prepare("PRAGMA page_count").get() as { page_count: number };
    db.sql.exec(`PRAGMA max_page_count = ${on ? page_count : 1_000_000}`);
  };
  fill(true);
  return {
    db,
    dir,
    /** Caps the file at its current size (true) or lifts the cap (false). */
    fill,
    async close() {
      await db.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

const big = "INSERT INTO t VALUES (?, randomblob(100000))";
const small = "INSERT INTO t (x) VALUES (?)";

Deno.test("a full disk inside tx throws the real cause, rolls back and leaves the database usable", async () => {
  const f = await cappedFile();
  try {
    const { db } = f;
    assert.throws(
      () => db.tx(() => db.sql.prepare(big).run(1)),
      (error: unknown) =>
        error instanceof StorageFullError && /database or disk is full/.test(error.message),
    );
    // Nested: SQLite rolls the whole transaction back, savepoint and all.
    assert.throws(() =>
      db.tx(() => {
        db.sql.prepare(small).run(2);
        db.tx(() => db.sql.prepare(big).run(3));
      }), StorageFullError);
    assert.deepEqual(values(db), []);
    assert.equal(db.sql.isTransaction, false);
    f.fill(false);
    db.tx(() => db.sql.prepare(big).run(4));
    assert.deepEqual(values(db), [4]);
  } finally {
    await f.close();
  }
});

Deno.test("a full disk in group commit fails the jobs it undid and commits the later ones apart", async () => {
  const f = await cappedFile();
  try {
    const { db } = f;
    const results = await Promise.allSettled([
      db.commit(() => db.sql.prepare(small).run(10)),
      db.commit(() => db.sql.prepare(big).run(11)),
      db.commit(() => db.sql.prepare(small).run(12)),
    ]);
    assert.deepEqual(results.map((r) => r.status), ["rejected", "rejected", "fulfilled"]);
    for (const r of results.slice(0, 2)) {
      assert.ok((r as PromiseRejectedResult).reason instanceof StorageFullError);
    }
    // The first job's row went with the transaction the second one's failure undid.
    assert.deepEqual(values(db), [12]);
  } finally {
    await f.close();
  }
});

Deno.test("noteStorageFull is true once per episode: again only after a write succeeded", async () => {
  const f = await cappedFile();
  try {
    const { db } = f;
    assert.equal(db.noteStorageFull(), true);
    assert.equal(db.noteStorageFull(), false);
    db.tx(() => db.sql.prepare("SELECT count(*) FROM t").get()); // a read is not a write
    assert.equal(db.noteStorageFull(), false);
    await db.commit(() => db.sql.prepare(small).run(20));
    assert.equal(db.noteStorageFull(), true);
    db.tx(() => db.sql.prepare(small).run(21));
    assert.equal(db.noteStorageFull(), true);
  } finally {
    await f.close();
  }
});

Deno.test("close reports a failed checkpoint instead of throwing, and the WAL keeps every write", async () => {
  const f = await cappedFile();
  const path = join(f.dir, "t.db");
  try {
    const { db } = f;
    db.tx(() => db.sql.prepare(small).run(30));
    // An open read keeps the checkpoint from running, as a full disk would.
    const reading = db.sql.prepare("SELECT x FROM t").iterate();
    reading.next();
    const { checkpointError } = await db.close();
    assert.match(checkpointError?.message ?? "", /locked/);
    const again = openDatabase(path);
    assert.deepEqual(values(again), [30]);
    await again.close();
  } finally {
    await Deno.remove(f.dir, { recursive: true });
  }
});

Deno.test("quickCheck finds nothing in a sound database", async () => {
  const db = memory();
  assert.deepEqual(quickCheck(db), []);
  await db.close();
});

Deno.test("commit takes synchronous and asynchronous jobs into one transaction, in order", async () => {
  const db = memory();
  let commits = 0;
  const exec = db.sql.exec.bind(db.sql);
  db.sql.exec = (text: string) => {
    if (text === "COMMIT") commits++;
    return exec(text);
  };
  try {
    const seen: number[][] = [];
    const results = await Promise.all([
      db.commit(() => db.sql.exec("INSERT INTO t VALUES (1)")),
      db.commit(async () => {
        await Promise.resolve();
        db.sql.exec("INSERT INTO t VALUES (2)");
        await Promise.resolve();
        seen.push(values(db)); // the batch's earlier job is visible: one transaction
        return "async";
      }),
      db.commit(() => seen.push(values(db))),
    ]);
    assert.equal(results[1], "async");
    assert.deepEqual(seen, [[1, 2], [1, 2]]);
    assert.equal(commits, 1);
    assert.deepEqual(values(db), [1, 2]);
  } finally {
    db.sql.exec = exec;
    await db.close();
  }
});

Deno.test("a job that awaits anything but its queries fails its whole batch, and a tx from outside meanwhile is refused", async () => {
  const db = memory();
  try {
    let outsider: unknown = null;
    const slow = db.commit(async () => {
      db.sql.exec("INSERT INTO t VALUES (1)");
      setTimeout(() => {
        try {
          db.tx(() => db.sql.exec("INSERT INTO t VALUES (9)"));
        } catch (error) {
          outsider = error;
        }
      }, 0);
      await new Promise((r) => setTimeout(r, 5)); // a macrotask: not allowed
    });
    const other = db.commit(() => db.sql.exec("INSERT INTO t VALUES (2)"));
    const results = await Promise.allSettled([slow, other]);
    assert.deepEqual(results.map((r) => r.status), ["rejected", "rejected"]);
    assert.match((results[0] as PromiseRejectedResult).reason.message, /outlasted its macrotask/);
    assert.match(String(outsider), /a group commit's transaction is open/);
    assert.deepEqual(values(db), [], "nothing of the batch, nothing of the outsider");
    await db.commit(() => db.sql.exec("INSERT INTO t VALUES (3)"));
    db.tx(() => db.sql.exec("INSERT INTO t VALUES (4)"));
    assert.deepEqual(values(db), [3, 4], "the database works on afterwards");
  } finally {
    await db.close();
  }
});

Deno.test("commit settles its jobs only after the flush's last transaction: a caller's next tx runs outside it", async () => {
  const db = memory();
  try {
    db.sql.exec(`CREATE TRIGGER refuse_99 BEFORE INSERT ON t WHEN new.x = 99
      BEGIN SELECT RAISE(ROLLBACK, 'refused'); END`);
    // The second job ends the whole transaction: the first fails with it, the third runs in a
    // second transaction. The first one's caller writes on at once when it learns of it.
    // (It writes at each of its next promise steps, as a handler's code would run.)
    const refused: unknown[] = [];
    const first = db.commit(() => db.sql.exec("INSERT INTO t VALUES (1)")).catch(async () => {
      for (let i = 0; i < 10; i++) {
        try {
          db.tx(() => db.sql.exec(`INSERT INTO t VALUES (${10 + i})`));
        } catch (error) {
          refused.push(error);
        }
        await null;
      }
    });
    const second = db.commit(() => db.sql.exec("INSERT INTO t VALUES (99)"));
    const third = db.commit(async () => {
      for (let i = 0; i < 5; i++) await null;
      db.sql.exec("INSERT INTO t VALUES (3)");
    });
    const results = await Promise.allSettled([first, second, third]);
    assert.deepEqual(results.map((r) => r.status), ["fulfilled", "rejected", "fulfilled"]);
    assert.deepEqual(refused, []);
    assert.deepEqual(values(db), [3, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
  } finally {
    await db.close();
  }
});

Deno.test("a flush of synchronous jobs runs in one go: no promise continuation runs while its transaction is open", async () => {
  const db = memory();
  try {
    // A continuation queued by a job (as another request's would be) writes with its own tx.
    let refused: unknown = null;
    const first = db.commit(() => {
      db.sql.exec("INSERT INTO t VALUES (1)");
      queueMicrotask(() => {
        try {
          db.tx(() => db.sql.exec("INSERT INTO t VALUES (10)"));
        } catch (error) {
          refused = error;
        }
      });
    });
    const second = db.commit(() => db.sql.exec("INSERT INTO t VALUES (2)"));
    await Promise.all([first, second]);
    assert.equal(refused, null);
    assert.deepEqual(values(db), [1, 2, 10]);
  } finally {
    await db.close();
  }
});
