/**
 * The migration runner: applies `NNN_name.sql` files in order and records each with its
 * checksum. It refuses to run, changing nothing, when an applied file was edited or
 * removed, or when a pending migration fails.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Database } from "./sqlite.ts";

/** One migration file. */
export interface MigrationFile {
  version: number;
  name: string;
  fileName: string;
  sql: string;
  checksum: string;
}

/** One applied migration as recorded in the database. */
export interface AppliedMigration {
  version: number;
  name: string;
  checksum: string;
  appliedAt: string;
}

/** A migration problem that must stop start-up. */
export class MigrationError extends Error {
  override name = "MigrationError";
}

/** The folder of this server's own migrations, found next to the code (compile-ready). */
export const MIGRATIONS_DIR = join(import.meta.dirname ?? ".", "..", "..", "migrations");

const FILE_PATTERN = /^(\d{3})_([a-z0-9_]+)\.sql$/;

/** Reads and validates the migration files of `dir`, ordered by version. */
export function readMigrations(dir: string): MigrationFile[] {
  const files: MigrationFile[] = [];
  for (const fileName of readdirSync(dir).sort()) {
    if (!fileName.endsWith(".sql")) continue;
    const match = FILE_PATTERN.exec(fileName);
    if (!match) {
      throw new MigrationError(
        `Cannot read migrations: ${fileName} is not named NNN_name.sql`,
      );
    }
    const sql = readFileSync(join(dir, fileName), "utf8");
    files.push({
      version: Number(match[1]),
      name: match[2]!,
      fileName,
      sql,
      checksum: createHash("sha256").update(sql).digest("hex"),
    });
  }
  for (let i = 1; i < files.length; i++) {
    if (files[i]!.version === files[i - 1]!.version) {
      throw new MigrationError(
        `Cannot read migrations: ${files[i - 1]!.fileName} and ${
          files[i]!.fileName
        } share a version`,
      );
    }
  }
  return files;
}

/** Lists the applied migrations in order (an empty list before the first run). */
export function appliedMigrations(db: Database): AppliedMigration[] {
  ensureTable(db);
  const rows = db.sql.prepare(
    "SELECT version, name, checksum, applied_at FROM schema_migrations ORDER BY version",
  ).all() as Array<{ version: number; name: string; checksum: string; applied_at: string }>;
  return rows.map((r) => ({
    version: r.version,
    name: r.name,
    checksum: r.checksum,
    appliedAt: r.applied_at,
  }));
}

function ensureTable(db: Database): void {
  db.sql.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    checksum TEXT NOT NULL,
    applied_at TEXT NOT NULL
  ) STRICT`);
}

/**
 * Applies the pending migrations of `dir`. All pending files are applied in one
 * transaction, each inside its own savepoint: either all of them land or none does.
 * Returns the versions applied now.
 */
export function migrate(db: Database, dir: string, now: () => Date): number[] {
  const pending = pendingMigrations(readMigrations(dir), appliedMigrations(db));
  if (pending.length === 0) return [];
  const appliedAt = now().toISOString();
  db.tx(() => {
    const record = db.sql.prepare(
      "INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)",
    );
    for (const file of pending) {
      try {
        db.tx(() => {
          db.sql.exec(file.sql);
          record.run(file.version, file.name, file.checksum, appliedAt);
        });
      } catch (error) {
        throw cannotApply(file, error);
      }
    }
  });
  return pending.map((f) => f.version);
}

/** The error that stops start-up when a pending migration fails. */
export function cannotApply(file: MigrationFile, error: unknown): MigrationError {
  const reason = error instanceof Error ? error.message : String(error);
  return new MigrationError(`Cannot apply migration ${file.fileName}: ${reason}`);
}

/**
 * The files of `files` not applied yet, in order, after checking every applied migration
 * against its file (the same rules on every engine): a file that is missing or was edited
 * after it was applied stops start-up.
 */
export function pendingMigrations(
  files: MigrationFile[],
  applied: Array<Omit<AppliedMigration, "appliedAt">>,
): MigrationFile[] {
  const byVersion = new Map(files.map((f) => [f.version, f]));
  for (const row of applied) {
    const file = byVersion.get(row.version);
    const label = `${String(row.version).padStart(3, "0")}_${row.name}.sql`;
    if (!file) {
      throw new MigrationError(
        `Cannot start: migration ${label} was applied but its file is missing`,
      );
    }
    if (file.checksum !== row.checksum) {
      throw new MigrationError(
        `Cannot start: migration ${file.fileName} was edited after it was applied ` +
          `(recorded checksum ${row.checksum.slice(0, 12)}, file ${
            file.checksum.slice(0, 12)
          }); add a new migration instead`,
      );
    }
  }
  const done = new Set(applied.map((r) => r.version));
  return files.filter((f) => !done.has(f.version));
}
