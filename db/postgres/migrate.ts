/**
 * The migration runner on PostgreSQL: the same `NNN_name.sql` rules as on SQLite (`../migrate.ts`:
 * checksums recorded, an edited or missing file refused, all pending files or none), for the
 * engine's own sequence of files with the same version numbers. Several instances may start at
 * once: a transaction-level advisory lock lets one migrate while the others wait for it, then
 * find nothing pending. PostgreSQL's DDL is transactional, so one transaction holds every
 * pending file, each in a savepoint.
 */
import { join } from "node:path";
import postgres from "postgres";
import {
  type AppliedMigration,
  cannotApply,
  pendingMigrations,
  readMigrations,
} from "../sqlite/migrate.ts";

/** The folder of the PostgreSQL migrations, next to the SQLite ones (compile-ready). */
export const POSTGRES_MIGRATIONS_DIR = join(
  import.meta.dirname ?? ".",
  "..",
  "..",
  "migrations",
  "postgres",
);

/** The advisory lock taken while migrating: two keys, the same for every instance. */
const LOCK_KEYS = [0x636f6c6c, /* "coll" */ 1] as const;

/** Lists the applied migrations in order (an empty list before the first run). */
export async function appliedPostgresMigrations(
  sql: postgres.Sql | postgres.TransactionSql,
): Promise<AppliedMigration[]> {
  await ensureTable(sql);
  const rows = await sql<
    Array<{ version: number; name: string; checksum: string; applied_at: string }>
  >`
    SELECT version, name, checksum, applied_at FROM schema_migrations ORDER BY version`;
  return rows.map((r) => ({
    version: r.version,
    name: r.name,
    checksum: r.checksum,
    appliedAt: r.applied_at,
  }));
}

async function ensureTable(sql: postgres.Sql | postgres.TransactionSql): Promise<void> {
  await sql`CREATE TABLE IF NOT EXISTS schema_migrations (
    version integer PRIMARY KEY,
    name text NOT NULL,
    checksum text NOT NULL,
    applied_at text NOT NULL
  )`;
}

/**
 * Applies the pending migrations of `dir` under the advisory lock, all or none; returns the
 * versions applied now (none when another instance applied them first).
 */
export async function migratePostgres(
  sql: postgres.Sql,
  dir: string,
  now: () => Date,
): Promise<number[]> {
  const files = readMigrations(dir);
  return await sql.begin(async (tx) => {
    // Held to the end of this transaction; the other instances wait here.
    await tx`SELECT pg_advisory_xact_lock(${LOCK_KEYS[0]}, ${LOCK_KEYS[1]})`;
    const pending = pendingMigrations(files, await appliedPostgresMigrations(tx));
    const appliedAt = now().toISOString();
    for (const file of pending) {
      try {
        await tx.savepoint(async (sp) => {
          // The simple protocol: a file holds several statements.
          await sp.unsafe(file.sql).simple();
          await sp`INSERT INTO schema_migrations (version, name, checksum, applied_at)
            VALUES (${file.version}, ${file.name}, ${file.checksum}, ${appliedAt})`;
        });
      } catch (error) {
        throw cannotApply(file, error);
      }
    }
    return pending.map((f) => f.version);
  });
}

/** The database at `DATABASE_URL` could not be reached (or refused the connection). */
export class PostgresUnreachableError extends Error {
  override name = "PostgresUnreachableError";
}

/**
 * Connects to `url` on a connection of its own, applies the pending migrations of `dir`, and
 * disconnects; returns the versions applied now. Fails with `PostgresUnreachableError` when
 * the database cannot be reached, and with the runner's `MigrationError` otherwise.
 */
export async function migratePostgresAt(
  url: string,
  dir: string,
  now: () => Date,
): Promise<number[]> {
  const sql = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 10 });
  try {
    try {
      await sql`SELECT 1`;
    } catch (error) {
      throw new PostgresUnreachableError(error instanceof Error ? error.message : String(error), {
        cause: error,
      });
    }
    return await migratePostgres(sql, dir, now);
  } finally {
    await sql.end({ timeout: 5 });
  }
}
