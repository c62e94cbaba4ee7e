/**
 * The migration runner on PostgreSQL (issue 18): order and checksums, two instances starting at
 * once under the advisory lock, an edited or missing file refused, all pending files or none.
 * Runs against a throwaway cluster (`tests/helpers/postgres.ts`); `.ci/run` installs Debian's
 * `postgresql` for it. Without PostgreSQL installed it is ignored, and says so in its name.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import postgres from "postgres";
import { MigrationError } from "../../../db/sqlite/migrate.ts";
import { appliedPostgresMigrations, migratePostgres } from "../../../db/postgres/migrate.ts";
import { type Postgres, postgresBin, startPostgres } from "../../helpers/postgres.ts";

const NOW = () => new Date("2026-11-25T03:30:00.000Z");

const FILES: Record<string, string> = {
  "001_people.sql": "CREATE TABLE people (id bigserial PRIMARY KEY, name text NOT NULL);\n" +
    "CREATE INDEX people_name ON people (name);\n",
  "002_pets.sql": "CREATE TABLE pets (id bigserial PRIMARY KEY,\n" +
    "  owner_id bigint NOT NULL REFERENCES people);\n",
  "003_seed.sql": "INSERT INTO people (name) VALUES ('Ann'), ('Bo');\n",
};

/** A new database of the cluster for one step, and a folder of migration files. */
async function setup(
  pg: Postgres,
  name: string,
  files: Record<string, string>,
): Promise<{ url: string; dir: string; cleanup: () => Promise<void> }> {
  const admin = postgres(pg.url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  const dir = await Deno.makeTempDir({ prefix: "pg-migrations-" });
  for (const [file, text] of Object.entries(files)) await Deno.writeTextFile(join(dir, file), text);
  return {
    url: pg.url.replace(/\/[^/]+$/, `/${name}`),
    dir,
    cleanup: () => Deno.remove(dir, { recursive: true }),
  };
}

function client(url: string): postgres.Sql {
  return postgres(url, { max: 2, onnotice: () => {} });
}

async function tables(sql: postgres.Sql): Promise<string[]> {
  const rows = await sql<Array<{ name: string }>>`SELECT table_name AS name
    FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`;
  return rows.map((r) => r.name);
}

Deno.test({
  name: "PostgreSQL migrations (needs Debian's postgresql; ignored without it)",
  ignore: postgresBin() === null,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    const pg = await startPostgres({ settings: { fsync: "off" } });
    try {
      await t.step(
        "applies the files in order, records their checksums, and then nothing",
        async () => {
          const { url, dir, cleanup } = await setup(pg, "in_order", FILES);
          const sql = client(url);
          try {
            assert.deepEqual(await migratePostgres(sql, dir, NOW), [1, 2, 3]);
            assert.deepEqual(await tables(sql), ["people", "pets", "schema_migrations"]);
            const applied = await appliedPostgresMigrations(sql);
            assert.deepEqual(applied.map((m) => [m.version, m.name]), [
              [1, "people"],
              [2, "pets"],
              [3, "seed"],
            ]);
            assert.ok(applied.every((m) => /^[0-9a-f]{64}$/.test(m.checksum)));
            assert.ok(applied.every((m) => m.appliedAt === NOW().toISOString()));
            assert.deepEqual(await migratePostgres(sql, dir, NOW), []);
            const [{ n }] = await sql<[{ n: number }]>`SELECT count(*)::int AS n FROM people`;
            assert.equal(n, 2);
          } finally {
            await sql.end();
            await cleanup();
          }
        },
      );

      await t.step(
        "two instances starting at once: one applies each file, the other waits and applies nothing",
        async () => {
          const { url, dir, cleanup } = await setup(pg, "at_once", FILES);
          const a = client(url);
          const b = client(url);
          try {
            const [fromA, fromB] = await Promise.all([
              migratePostgres(a, dir, NOW),
              migratePostgres(b, dir, NOW),
            ]);
            assert.deepEqual([...fromA, ...fromB].sort(), [1, 2, 3]);
            assert.ok(fromA.length === 0 || fromB.length === 0, `${fromA} and ${fromB}`);
            // The seed ran once.
            const [{ n }] = await a<[{ n: number }]>`SELECT count(*)::int AS n FROM people`;
            assert.equal(n, 2);
          } finally {
            await a.end();
            await b.end();
            await cleanup();
          }
        },
      );

      await t.step(
        "a file edited after it was applied is refused, and nothing more is applied",
        async () => {
          const { url, dir, cleanup } = await setup(pg, "edited", {
            "001_people.sql": FILES["001_people.sql"]!,
          });
          const sql = client(url);
          try {
            await migratePostgres(sql, dir, NOW);
            await Deno.writeTextFile(
              join(dir, "001_people.sql"),
              "CREATE TABLE people (id int);\n",
            );
            await Deno.writeTextFile(join(dir, "002_pets.sql"), FILES["002_pets.sql"]!);
            await assert.rejects(
              () => migratePostgres(sql, dir, NOW),
              (error: unknown) =>
                error instanceof MigrationError &&
                /001_people\.sql was edited after it was applied/.test(error.message),
            );
            assert.deepEqual(await tables(sql), ["people", "schema_migrations"]);
            await Deno.remove(join(dir, "001_people.sql"));
            await assert.rejects(
              () => migratePostgres(sql, dir, NOW),
              /001_people\.sql was applied but its file is missing/,
            );
          } finally {
            await sql.end();
            await cleanup();
          }
        },
      );

      await t.step(
        "a failing file applies none of the pending ones, and names itself",
        async () => {
          const { url, dir, cleanup } = await setup(pg, "failing", {
            ...FILES,
            "003_seed.sql":
              "INSERT INTO people (name) VALUES ('Ann');\nINSERT INTO nowhere VALUES (1);\n",
          });
          const sql = client(url);
          try {
            await assert.rejects(
              () => migratePostgres(sql, dir, NOW),
              (error: unknown) =>
                error instanceof MigrationError &&
                /Cannot apply migration 003_seed\.sql: .*nowhere/.test(error.message),
            );
            // Not even 001 and 002, which ran before it, nor the record table, made in the
            // same transaction.
            assert.deepEqual(await tables(sql), []);
          } finally {
            await sql.end();
            await cleanup();
          }
        },
      );
    } finally {
      await pg.stop();
    }
  },
});
