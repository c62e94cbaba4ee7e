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

/** The applied migrations in order (admins only). */
export function listMigrations(db: Database, actor: Actor): MigrationInfo[] {
  if (actor.role !== "admin") throw new DomainError("forbidden", "Administrators only");
  return appliedMigrations(db).map((m) => ({
    version: m.version,
    name: m.name,
    appliedAt: m.appliedAt,
  }));
}

/** System administration beyond users, for routes (which never hold the database). */
export function createAdmin(db: Database) {
  return {
    /** The applied migrations in order (admins only). */
    migrations: (actor: Actor): MigrationInfo[] => listMigrations(db, actor),
  };
}
