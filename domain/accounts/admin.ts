/** System administration beyond users: the migration listing. */
import type { Engine } from "../../db/kernel/engine.ts";
import { listAppliedMigrations } from "../../db/kernel/migrations_applied.ts";
import type { Actor } from "./accounts.ts";
import { DomainError } from "../kernel/errors.ts";

/** An applied migration as the API shows it. */
export interface MigrationInfo {
  version: number;
  name: string;
  appliedAt: string;
}

/** The applied migrations in order (admins only), as the engine's migration runner left them. */
export async function listMigrations(db: Engine, actor: Actor): Promise<MigrationInfo[]> {
  if (actor.role !== "admin") throw new DomainError("forbidden", "Administrators only");
  return (await listAppliedMigrations(db)).map((m) => ({
    version: m.version,
    name: m.name,
    appliedAt: m.appliedAt,
  }));
}

/** System administration beyond users, for routes (which never hold the database). */
export function createAdmin(db: Engine) {
  return {
    /** The applied migrations in order (admins only). */
    migrations: (actor: Actor): Promise<MigrationInfo[]> => listMigrations(db, actor),
  };
}
