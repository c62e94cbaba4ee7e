/**
 * The suite's databases on PostgreSQL (tests/helpers/test_database.ts): copies of one migrated
 * template, built once however many test processes ask at the same time, and leftovers of
 * processes that are gone dropped by the next one.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import postgres from "postgres";
import { createTestDatabase, templateName } from "../../helpers/test_database.ts";
import { postgresTest } from "../../helpers/postgres.ts";

const HELPER = join(import.meta.dirname!, "..", "..", "helpers", "test_database.ts");

/** The databases of the cluster whose names start with `prefix`. */
async function named(sql: postgres.Sql, prefix: string): Promise<string[]> {
  const rows = await sql<Array<{ datname: string }>>`
    SELECT datname FROM pg_database WHERE datname LIKE ${prefix + "%"} ORDER BY datname`;
  return rows.map((r) => r.datname);
}

/** A client of the database `name` of the cluster at `url`. */
function connectTo(url: string, name: string): postgres.Sql {
  const target = new URL(url);
  target.pathname = `/${name}`;
  return postgres(target.href, { max: 1, onnotice: () => {} });
}

/** A test process of its own that makes one database on `server` and ends without dropping it. */
async function makeInAnotherProcess(server: string): Promise<string> {
  const code = `import { createTestDatabase } from ${JSON.stringify(HELPER)};
    const made = await createTestDatabase({ server: ${JSON.stringify(server)} });
    console.log(made.name);`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--ext=ts", code],
    cwd: join(import.meta.dirname!, "..", "..", ".."),
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout).trim();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return text;
}

Deno.test(postgresTest(
  "test databases are copies of one migrated template, built once when several processes ask at once; a gone process's copies are dropped later",
  async (pg, sql) => {
    // Three processes start on a cluster without the template, at the same time.
    const names = await Promise.all([1, 2, 3].map(() => makeInAnotherProcess(pg.url)));
    assert.equal(new Set(names).size, 3);
    assert.deepEqual(await named(sql, "collab_template_"), [templateName()]);
    assert.deepEqual(await named(sql, "collab_test_"), names.toSorted());

    // A copy has every migration, and what is written to it stays in it.
    const copy = await createTestDatabase({ server: pg.url });
    try {
      const inCopy = connectTo(pg.url, copy.name);
      try {
        const [applied] = await inCopy<[{ n: number }]>`
          SELECT count(*)::int AS n FROM schema_migrations`;
        assert.ok(applied.n >= 19, `${applied.n} migrations`);
        await inCopy`INSERT INTO customers (customer_name, registered_at) VALUES ('Ann', 'now')`;
      } finally {
        await inCopy.end();
      }
      // The processes that made the three copies are gone: this one's first use dropped them.
      assert.deepEqual(await named(sql, "collab_test_"), [copy.name]);
    } finally {
      await copy.drop();
    }
    assert.deepEqual(await named(sql, "collab_test_"), []);
    // The template was not changed by what the copy got.
    const another = await createTestDatabase({ server: pg.url });
    try {
      const inAnother = connectTo(pg.url, another.name);
      try {
        const [customers] = await inAnother<[{ n: number }]>`
          SELECT count(*)::int AS n FROM customers`;
        assert.equal(customers.n, 0);
      } finally {
        await inAnother.end();
      }
    } finally {
      await another.drop();
    }
  },
));
