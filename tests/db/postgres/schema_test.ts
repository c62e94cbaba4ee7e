/**
 * The PostgreSQL migrations (`migrations/postgres/`) build the schema the SQLite ones build:
 * the same tables, the same columns (NOT NULL alike) and the same index names, so the storage
 * port can run the same queries on both. The search tables are the one difference, by design
 * (FTS5 on SQLite, a pg_trgm table on PostgreSQL): `search_engines_test.ts` compares their
 * answers instead. Ignored without PostgreSQL installed; `.ci/run` installs it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import postgres from "postgres";
import { migrate, MIGRATIONS_DIR, readMigrations } from "../../../db/sqlite/migrate.ts";
import { migratePostgres, POSTGRES_MIGRATIONS_DIR } from "../../../db/postgres/migrate.ts";
import { openDatabase } from "../../../db/sqlite/sqlite.ts";
import { postgresTest } from "../../helpers/postgres.ts";

/** The search tables and their indexes, which differ between the engines by design. */
const SEARCH = /^search_/;
const NOW = () => new Date("2026-11-25T04:00:00.000Z");

interface Shape {
  /** table → sorted "column" or "column NOT NULL" */
  tables: Map<string, string[]>;
  indexes: string[];
}

function sqliteShape(db: ReturnType<typeof openDatabase>): Shape {
  const names = (db.sql.prepare(
    "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
  ).all() as Array<{ name: string }>).map((r) => r.name).filter((n) => !SEARCH.test(n));
  const tables = new Map<string, string[]>();
  for (const name of names) {
    // table_xinfo lists generated columns too (hidden 2 and 3), which table_info leaves out.
    const columns = db.sql.prepare(`PRAGMA table_xinfo(${name})`).all() as Array<
      { name: string; notnull: number; pk: number; hidden: number }
    >;
    tables.set(
      name,
      columns.filter((c) => c.hidden !== 1)
        .map((c) => `${c.name}${c.notnull || c.pk ? " NOT NULL" : ""}`).sort(),
    );
  }
  const indexes = (db.sql.prepare(
    "SELECT name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL ORDER BY name",
  ).all() as Array<{ name: string }>).map((r) => r.name).filter((n) => !SEARCH.test(n));
  return { tables, indexes };
}

async function postgresShape(sql: postgres.Sql): Promise<Shape> {
  const columns = await sql<Array<{ table: string; column: string; nullable: string }>>`
    SELECT c.table_name AS table, c.column_name AS column, c.is_nullable AS nullable
    FROM information_schema.columns c JOIN information_schema.tables t
      ON t.table_schema = c.table_schema AND t.table_name = c.table_name
    WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'`;
  const tables = new Map<string, string[]>();
  for (const c of columns) {
    if (SEARCH.test(c.table)) continue;
    const list = tables.get(c.table) ?? [];
    list.push(`${c.column}${c.nullable === "NO" ? " NOT NULL" : ""}`);
    tables.set(c.table, list);
  }
  for (const list of tables.values()) list.sort();
  // Indexes of our own, not those behind a primary key or UNIQUE constraint (SQLite's
  // equivalents are its nameless autoindexes).
  const indexes = (await sql<Array<{ name: string }>>`
    SELECT i.indexname AS name FROM pg_indexes i
    WHERE i.schemaname = 'public' AND NOT EXISTS (
      SELECT 1 FROM pg_constraint k WHERE k.conindid = (quote_ident(i.indexname))::regclass)
    ORDER BY i.indexname`).map((r) => r.name).filter((n) => !SEARCH.test(n));
  return { tables: new Map([...tables].sort(([a], [b]) => a < b ? -1 : 1)), indexes };
}

Deno.test(postgresTest("the PostgreSQL migrations build the SQLite schema", async (_pg, sql) => {
  // Every SQLite migration has its PostgreSQL counterpart, of the same name.
  const versions = (dir: string) => readMigrations(dir).map((m) => m.fileName);
  assert.deepEqual(versions(POSTGRES_MIGRATIONS_DIR), versions(MIGRATIONS_DIR));

  const dir = await Deno.makeTempDir({ prefix: "schema-parity-" });
  const db = openDatabase(join(dir, "collab.db"));
  try {
    migrate(db, MIGRATIONS_DIR, NOW);
    await migratePostgres(sql, POSTGRES_MIGRATIONS_DIR, NOW);
    const lite = sqliteShape(db);
    const pgs = await postgresShape(sql);
    assert.deepEqual([...pgs.tables.keys()], [...lite.tables.keys()]);
    for (const [table, columns] of lite.tables) {
      assert.deepEqual(pgs.tables.get(table), columns, `columns of ${table}`);
    }
    assert.deepEqual(pgs.indexes, lite.indexes);
  } finally {
    await db.close();
    await Deno.remove(dir, { recursive: true });
  }
}));
