/**
 * The database opens in the operator's own tools: Debian 12's `sqlite3` shell (SQLite 3.40)
 * and Python's `sqlite3` module read the schema with every migration applied, and rows that
 * the shell writes fire the search triggers, so the server finds them. Migration 023 made
 * this so (016's triggers used an ordered aggregate that only SQLite 3.44 parses).
 *
 * Outside CI a missing `sqlite3` shell skips the shell cases loudly; in CI it is a failure.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { migrate, MIGRATIONS_DIR } from "../../../db/sqlite/migrate.ts";
import { type Database, openDatabase } from "../../../db/sqlite/sqlite.ts";
import { api, createProject, expectJson, signUp, todoColumns } from "../../helpers/api.ts";
import { sqliteOf, testApp } from "../../helpers/app.ts";
import { PYTHON } from "../../helpers/python.ts";
import { ON_POSTGRES } from "../../helpers/test_database.ts";

const SHELL = "/usr/bin/sqlite3";
const NOW = () => new Date("2026-11-28T09:00:00.000Z");
const inCi = Deno.env.get("CI") === "true";

async function found(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}

const shellMissing = !(await found(SHELL));
if (shellMissing && !inCi && !ON_POSTGRES) {
  console.warn(
    `\n!!! WARNING: ${SHELL} is not installed: the operator's-tools tests are SKIPPED. ` +
      "Install Debian's sqlite3. !!!\n",
  );
}

async function run(command: string, args: string[], stdin = ""): Promise<string> {
  const child = new Deno.Command(command, {
    args,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(stdin));
  await writer.close();
  const { code, stdout, stderr } = await child.output();
  const out = new TextDecoder().decode(stdout);
  const err = new TextDecoder().decode(stderr);
  assert.equal(code, 0, `${command} ${args.join(" ")} exited with ${code}\n${out}\n${err}`);
  assert.equal(err, "", `${command} wrote to stderr: ${err}`);
  return out;
}

/** The text the full-text index holds for a to-do (title, then its searchable body). */
function indexedBody(db: Database, itemId: number): string {
  const row = db.sql.prepare(
    `SELECT body FROM search_index WHERE rowid =
       (SELECT id FROM search_docs WHERE type = 'todo' AND item_id = ?)`,
  ).get(itemId) as { body: string } | undefined;
  assert.ok(row, `to-do ${itemId} is not in the search index`);
  return row.body;
}

/** A user, a project, a column and to-do 1 with tags, written straight into `db`. */
function seedTodo(db: Database): void {
  const at = NOW().toISOString();
  db.sql.exec(`
    INSERT INTO users (id, email, password_hash, display_name, created_at, updated_at)
      VALUES (1, 'ops@example.com', 'x', 'Ops', '${at}', '${at}');
    INSERT INTO projects (id, name, created_by, created_at, updated_at)
      VALUES (1, 'Ops', 1, '${at}', '${at}');
    INSERT INTO todo_columns (id, project_id, name, key, position, created_at, updated_at)
      VALUES (1, 1, 'To do', 'todo', 0, '${at}', '${at}');
    INSERT INTO todo_items (id, project_id, column_id, creator_id, title, description,
      order_index, tags, created_at, updated_at)
      VALUES (1, 1, 1, 1, 'Rotate keys', 'quarterly', 0, '["security"]', '${at}', '${at}');
  `);
  // Ids and positions in opposite orders: the text follows the ids.
  const entry = db.sql.prepare(
    `INSERT INTO todo_checklist_entries (id, project_id, item_id, text, position, created_at,
       updated_at) VALUES (?, 1, 1, ?, ?, ?, ?)`,
  );
  entry.run(11, "alpha", 2, at, at);
  entry.run(12, "bravo", 1, at, at);
  entry.run(13, "charlie", 0, at, at);
}

Deno.test({
  name: "023 indexes a to-do's checklist as 016 did: the same text, entries in id order",
  ignore: ON_POSTGRES,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "sqlite-shell-" });
    const upTo022 = join(dir, "migrations-022");
    await Deno.mkdir(upTo022);
    for await (const entry of Deno.readDir(MIGRATIONS_DIR)) {
      if (entry.name.endsWith(".sql") && Number(entry.name.slice(0, 3)) <= 22) {
        await Deno.copyFile(join(MIGRATIONS_DIR, entry.name), join(upTo022, entry.name));
      }
    }
    const db = openDatabase(join(dir, "collab.db"));
    try {
      migrate(db, upTo022, NOW);
      seedTodo(db);
      const by016 = indexedBody(db, 1);
      assert.equal(by016, "quarterly security alpha bravo charlie");
      assert.equal(migrate(db, MIGRATIONS_DIR, NOW)[0], 23, "023 is the first applied after 022");
      // Re-index through each of 023's triggers and compare with 016's text.
      db.sql.exec("UPDATE todo_checklist_entries SET text = text WHERE id = 12");
      assert.equal(indexedBody(db, 1), by016);
      db.sql.exec("UPDATE todo_items SET description = description WHERE id = 1");
      assert.equal(indexedBody(db, 1), by016);
      db.sql.exec(
        `INSERT INTO todo_checklist_entries (id, project_id, item_id, text, position, created_at,
           updated_at) VALUES (10, 1, 1, 'zulu', 9, '${NOW().toISOString()}', 'x')`,
      );
      assert.equal(indexedBody(db, 1), "quarterly security zulu alpha bravo charlie");
      db.sql.exec("DELETE FROM todo_checklist_entries WHERE id = 10");
      assert.equal(indexedBody(db, 1), by016);
      // No schema object still uses the ordered aggregate.
      const newer = db.sql.prepare(
        "SELECT name FROM sqlite_schema WHERE sql LIKE '%ORDER BY c.id)%' AND sql NOT LIKE '%ORDER BY c.id))%'",
      ).all();
      assert.deepEqual(newer, []);
    } finally {
      await db.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "the sqlite3 shell and Python open the database; a to-do the shell writes is found by a checklist word",
  ignore: ON_POSTGRES || (shellMissing && !inCi),
  async fn() {
    assert.ok(!shellMissing, `${SHELL} is required in CI (install Debian's sqlite3)`);
    const t = await testApp();
    try {
      const path = join(t.dataDir, "collab.db");
      sqliteOf(t); // SQLite only
      const version = await run(SHELL, ["-batch", path], "SELECT sqlite_version();\n");
      assert.match(version, /^3\.\d+\.\d+/);
      assert.equal(await run(SHELL, ["-batch", path], "PRAGMA integrity_check;\n"), "ok\n");
      assert.equal(
        await run(PYTHON, [
          "-c",
          "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); " +
          "print(c.execute('PRAGMA integrity_check').fetchone()[0]); " +
          "print(c.execute('SELECT count(*) FROM sqlite_schema').fetchone()[0] > 0)",
          path,
        ]),
        "ok\nTrue\n",
      );

      const { cookie, user } = await signUp(t, "ops@example.com");
      const project = await createProject(t, cookie, "Operations");
      const [column] = await todoColumns(t, cookie, project.id);
      const at = t.clock.now().toISOString();
      // The operator's shell writes a to-do and its checklist while the server has the file open.
      await run(
        SHELL,
        ["-batch", path],
        `.timeout 5000
BEGIN;
INSERT INTO todo_items (project_id, column_id, creator_id, title, order_index, created_at, updated_at)
  VALUES (${project.id}, ${column.id}, ${user.id}, 'Renew certificates', 0, '${at}', '${at}');
INSERT INTO todo_checklist_entries (project_id, item_id, text, position, created_at, updated_at)
  VALUES (${project.id}, last_insert_rowid(), 'kumquat inventory', 0, '${at}', '${at}');
COMMIT;
PRAGMA integrity_check;
`,
      );
      const res = await api(t, "GET", `/api/projects/${project.id}/search?q=kumquat`, { cookie });
      const hits = expectJson(res, 200).items;
      assert.deepEqual(
        hits.map((h: { type: string; title: string }) => [h.type, h.title]),
        [["todo", "Renew certificates"]],
      );
    } finally {
      await t.close();
    }
  },
});
