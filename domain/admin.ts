/** System administration beyond users: the migration listing. */
import { appliedMigrations } from "../db/migrate.ts";
import type { Database } from "../db/sqlite.ts";
import type { Actor } from "./accounts.ts";
import { DomainError } from "./errors.ts";

/** An applied migration as the API shows it. */
export interface MigrationInfo {
  version: number;
  name: string;
  appliedAt: string;
}

/**
 * The applied migrations in order (admins only). The listing belongs to the migration runner,
 * which stays on the synchronous SQLite `Database` (it runs at start-up); this only reads.
 */
export function listMigrations(db: Database, actor: Actor): Promise<MigrationInfo[]> {
  if (actor.role !== "admin") {
    return Promise.reject(new DomainError("forbidden", "Administrators only"));
  }
  return Promise.resolve(
    appliedMigrations(db).map((m) => ({
      version: m.version,
      name: m.name,
      appliedAt: m.appliedAt,
    })),
  );
}

/** System administration beyond users, for routes (which never hold the database). */
export function createAdmin(db: Database) {
  return {
    /** The applied migrations in order (admins only). */
    migrations: (actor: Actor): Promise<MigrationInfo[]> => listMigrations(db, actor),
  };
}
