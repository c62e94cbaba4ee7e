/**
 * How long migration 029 (`search_typed` on SQLite, `search_text` partitioned by type on
 * PostgreSQL) takes on an existing database of SEARCH_BENCH_ITEMS items
 * (`deno run --allow-all bench/migration_029_bench.ts`; bench/search.md, section I).
 *
 * Needs the fixtures `search_pg_bench.ts` keeps in SEARCH_BENCH_FIXTURE_DIR (built there first:
 * `SEARCH_BENCH_FIXTURE_DIR=… SEARCH_BENCH_ITEMS=1000000 deno run -A bench/search_pg_bench.ts`).
 * Those are past 029, so each measurement starts from a copy put back to what 029 starts from:
 *
 * - SQLite: the database file copied, `search_typed` and the view `search_entries` dropped (what
 *   029 creates; its triggers stay, each replaced by 029 again at the same cost), then the file
 *   of 029 run in one transaction, as `migrate` runs it, by Debian's `sqlite3` (when installed)
 *   on one copy and by this server's SQLite (`node:sqlite`, `openDatabase`) on another.
 * - PostgreSQL: a copy of the database (`CREATE DATABASE … TEMPLATE`, file copy), whose
 *   `search_text` is made one plain table again with 022's key (not its other four indexes, which
 *   029 only drops), then the file of 029 in one transaction with the server's default settings
 *   (`maintenance_work_mem` 64 MB).
 *
 * The copies are removed afterwards. Environment: SEARCH_BENCH_FIXTURE_DIR (required),
 * SEARCH_BENCH_ITEMS (1000000), SEARCH_BENCH_SEED (20261122), MIGRATION_BENCH_ENGINES
 * ("sqlite,postgres"), MIGRATION_BENCH_SQLITE ("both"; "cli": Debian's sqlite3 only, "server": the
 * server's SQLite only). Prints each duration; exits 2 when it cannot run.
 */
import { join } from "node:path";
import postgres from "postgres";
import { MIGRATIONS_DIR } from "../db/sqlite/migrate.ts";
import { POSTGRES_MIGRATIONS_DIR } from "../db/postgres/migrate.ts";
import { openDatabase } from "../db/sqlite/sqlite.ts";
import { startPostgres } from "../tests/helpers/postgres.ts";
import { BenchError, envNumber } from "./harness.ts";
import { keptFixtureDir } from "./search_bench.ts";

const FILE = "029_search_typed.sql";

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function loadAverage(): Promise<string> {
  return (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(", ");
}

/** A copy of the kept SQLite database as it was before 029. */
async function sqliteBefore029(kept: string, to: string): Promise<void> {
  await Deno.copyFile(join(kept, "collab.db"), to);
  // What the last run wrote and no checkpoint moved into the file yet (no run is writing now).
  await Deno.copyFile(join(kept, "collab.db-wal"), `${to}-wal`).catch(() => {});
  const db = openDatabase(to);
  try {
    db.sql.exec("DROP VIEW search_entries");
    db.sql.exec("DROP TABLE search_typed");
    db.sql.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  } finally {
    await db.close();
  }
}

async function sqlite(items: number, seed: number): Promise<void> {
  const kept = keptFixtureDir("sqlite", items, seed)!;
  await Deno.stat(join(kept, "fixture.json")).catch(() => {
    throw new BenchError(`no SQLite fixture kept in ${kept}: build it with search_pg_bench.ts`);
  });
  const work = await Deno.makeTempDir({ dir: join(kept, ".."), prefix: "m029-" });
  const migration = await Deno.readTextFile(join(MIGRATIONS_DIR, FILE));
  try {
    const cli = await new Deno.Command("sqlite3", { args: ["--version"], stdout: "piped" })
      .output().then((o) => new TextDecoder().decode(o.stdout).split(" ")[0], () => null);
    const which = Deno.env.get("MIGRATION_BENCH_SQLITE") ?? "both";
    if (cli && which !== "server") {
      const file = join(work, "cli.db");
      await sqliteBefore029(kept, file);
      const load = await loadAverage();
      const t0 = performance.now();
      const child = new Deno.Command("sqlite3", {
        args: [file],
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const writer = child.stdin.getWriter();
      await writer.write(
        new TextEncoder().encode(`.bail on\nBEGIN;\n${migration}\nCOMMIT;\n`),
      );
      await writer.close();
      const out = await child.output();
      const ms = performance.now() - t0;
      if (!out.success) {
        throw new BenchError(`sqlite3 failed: ${new TextDecoder().decode(out.stderr)}`);
      }
      console.log(`SQLite, Debian's sqlite3 ${cli}: ${seconds(ms)} (load ${load})`);
      await Deno.remove(file);
    }
    if (which === "cli") return;
    const file = join(work, "server.db");
    await sqliteBefore029(kept, file);
    const load = await loadAverage();
    const t0 = performance.now();
    const db = openDatabase(file);
    let version = "";
    try {
      db.tx(() => db.sql.exec(migration));
      version = (db.sql.prepare("SELECT sqlite_version() AS v").get() as { v: string }).v;
    } finally {
      await db.close();
    }
    console.log(
      `SQLite, this server's (node:sqlite ${version}): ${seconds(performance.now() - t0)} ` +
        `(load ${load})`,
    );
  } finally {
    await Deno.remove(work, { recursive: true });
  }
}

async function postgresql(items: number, seed: number): Promise<void> {
  const kept = keptFixtureDir("postgres", items, seed)!;
  await Deno.stat(join(kept, "copied")).catch(() => {
    throw new BenchError(`no PostgreSQL fixture kept in ${kept}: build it with search_pg_bench.ts`);
  });
  const pg = await startPostgres({ keptDir: kept });
  const admin = postgres(pg.url.replace(/\/collab$/, "/postgres"), { max: 1, onnotice: () => {} });
  try {
    await admin`DROP DATABASE IF EXISTS m029`;
    const c0 = performance.now();
    await admin.unsafe("CREATE DATABASE m029 TEMPLATE collab STRATEGY FILE_COPY");
    console.log(`PostgreSQL: the database copied in ${seconds(performance.now() - c0)}`);
    const sql = postgres(pg.url.replace(/\/collab$/, "/m029"), { max: 1, onnotice: () => {} });
    try {
      // search_text as 022 left it: one table keyed by seq. Not its four other indexes: 029 only
      // drops them with the table (a file each), and their GIN builds took longer than 029.
      const p0 = performance.now();
      await sql.unsafe(`
        CREATE TABLE search_text_plain (
          seq bigint PRIMARY KEY, project_id bigint NOT NULL, type text NOT NULL,
          created_at text NOT NULL, doc text NOT NULL);
        INSERT INTO search_text_plain SELECT seq, project_id, type, created_at, doc
          FROM search_text ORDER BY seq;
        DROP TABLE search_text;
        ALTER TABLE search_text_plain RENAME TO search_text;
        ALTER INDEX search_text_plain_pkey RENAME TO search_text_pkey;`).simple();
      await sql`VACUUM ANALYZE search_text`;
      console.log(`PostgreSQL: put back to 028 in ${seconds(performance.now() - p0)}`);
      const migration = await Deno.readTextFile(join(POSTGRES_MIGRATIONS_DIR, FILE));
      const load = await loadAverage();
      const t0 = performance.now();
      await sql.begin((tx) => tx.unsafe(migration).simple());
      const version = (await sql`SHOW server_version`)[0]!.server_version;
      console.log(
        `PostgreSQL ${version}: ${seconds(performance.now() - t0)} (load ${load})`,
      );
    } finally {
      await sql.end();
    }
    await admin`DROP DATABASE m029`;
  } finally {
    await admin.end();
    await pg.stop();
  }
}

if (import.meta.main) {
  try {
    if (!Deno.env.get("SEARCH_BENCH_FIXTURE_DIR")) {
      throw new BenchError("set SEARCH_BENCH_FIXTURE_DIR to where search_pg_bench.ts kept them");
    }
    const items = envNumber("SEARCH_BENCH_ITEMS", 1_000_000, 1);
    const seed = envNumber("SEARCH_BENCH_SEED", 20261122, 0);
    const engines = (Deno.env.get("MIGRATION_BENCH_ENGINES") ?? "sqlite,postgres").split(",");
    console.log(`migration 029 on ${items} items; load ${await loadAverage()}`);
    if (engines.includes("sqlite")) await sqlite(items, seed);
    if (engines.includes("postgres")) await postgresql(items, seed);
  } catch (error) {
    if (!(error instanceof BenchError)) throw error;
    console.error(`migration_029_bench: ${error.message}`);
    Deno.exit(2);
  }
}
