/** Kept statements: each SQL text compiled once per connection, bounded, safe to reuse. */
import assert from "node:assert/strict";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { openDatabase } from "../../../db/sqlite/sqlite.ts";
import { keepStatements } from "../../../db/sqlite/statement_cache.ts";

Deno.test("an opened database compiles each SQL text once and hands the same statement back", async () => {
  const db = openDatabase(":memory:");
  db.sql.exec("CREATE TABLE t (x INTEGER UNIQUE)");
  const insert = db.sql.prepare("INSERT INTO t (x) VALUES (?)");
  insert.run(1);
  assert.equal(db.sql.prepare("INSERT INTO t (x) VALUES (?)"), insert);
  assert.notEqual(db.sql.prepare("SELECT x FROM t"), insert);
  await db.close();
});

Deno.test("a kept statement runs again after a run of it failed, and a read of it ends its reading", async () => {
  const db = openDatabase(":memory:");
  db.sql.exec("CREATE TABLE t (x INTEGER UNIQUE)");
  db.sql.prepare("INSERT INTO t (x) VALUES (?)").run(1);
  assert.throws(() => db.sql.prepare("INSERT INTO t (x) VALUES (?)").run(1), /UNIQUE/);
  db.sql.prepare("INSERT INTO t (x) VALUES (?)").run(2);
  // `get` reads one row of two; the same statement then starts from the beginning again.
  assert.deepEqual({ ...db.sql.prepare("SELECT x FROM t ORDER BY x").get() }, { x: 1 });
  assert.deepEqual(
    db.sql.prepare("SELECT x FROM t ORDER BY x").all().map((r) => r.x),
    [1, 2],
  );
  await db.close();
});

Deno.test("beyond its limit a connection drops the least recently used statement", () => {
  const sql = new DatabaseSync(":memory:");
  keepStatements(sql, 2);
  const a = sql.prepare("SELECT 1");
  const b = sql.prepare("SELECT 2");
  assert.equal(sql.prepare("SELECT 1"), a); // now the most recently used
  sql.prepare("SELECT 3"); // the third: "SELECT 2" goes
  assert.equal(sql.prepare("SELECT 1"), a);
  assert.notEqual(sql.prepare("SELECT 2"), b);
  sql.close();
});

Deno.test("a statement prepared with options is its own, and the kept one keeps its settings", () => {
  const sql = new DatabaseSync(":memory:");
  keepStatements(sql);
  const kept = sql.prepare("SELECT 1 AS x");
  // Deno's typings list no options yet; the runtime takes them.
  const withOptions = (sql.prepare as (text: string, options: object) => StatementSync)(
    "SELECT 1 AS x",
    { returnArrays: true },
  );
  assert.notEqual(withOptions, kept);
  assert.deepEqual(withOptions.get(), [1]);
  assert.deepEqual({ ...sql.prepare("SELECT 1 AS x").get() }, { x: 1 });
  sql.close();
});
