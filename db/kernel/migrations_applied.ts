/**
 * Reading the migrations table that both runners keep (`migrate.ts` on SQLite at start-up,
 * `postgres/migrate.ts` on PostgreSQL), through the storage interface.
 */
import type { Queries } from "./engine.ts";

/** An applied migration. */
export interface AppliedMigrationRow {
  version: number;
  name: string;
  appliedAt: string;
}

/** The applied migrations in order. */
export async function listAppliedMigrations(q: Queries): Promise<AppliedMigrationRow[]> {
  return await q.all<AppliedMigrationRow>(
    `SELECT version, name, applied_at AS "appliedAt" FROM schema_migrations ORDER BY version`,
  );
}
