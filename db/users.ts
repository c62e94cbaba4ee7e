/** Storage of user accounts. */
import type { Database } from "./sqlite.ts";

/** A user's theme: dark, light, or whichever the device's colour scheme is (`system`). */
export type Theme = "dark" | "light" | "system";

/** A stored user, hash included (never leaves `domain/`). */
export interface UserRow {
  id: number;
  email: string;
  displayName: string;
  passwordHash: string;
  role: "admin" | "member";
  status: "active" | "disabled";
  theme: Theme;
  locale: "en" | "ja";
  /** An IANA zone name; null when the person never chose one. */
  timeZone: string | null;
  createdAt: string;
  updatedAt: string;
}

interface RawUser {
  id: number;
  email: string;
  display_name: string;
  password_hash: string;
  role: "admin" | "member";
  status: "active" | "disabled";
  theme: Theme;
  locale: "en" | "ja";
  time_zone: string | null;
  created_at: string;
  updated_at: string;
}

const COLUMNS =
  "id, email, display_name, password_hash, role, status, theme, locale, time_zone, created_at, " +
  "updated_at";

function toUser(r: RawUser): UserRow {
  return {
    id: r.id,
    email: r.email,
    displayName: r.display_name,
    passwordHash: r.password_hash,
    role: r.role,
    status: r.status,
    theme: r.theme,
    locale: r.locale,
    timeZone: r.time_zone,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Counts all users. */
export function countUsers(db: Database): number {
  return (db.sql.prepare("SELECT count(*) AS n FROM users").get() as { n: number }).n;
}

/** Counts active admins. */
export function countActiveAdmins(db: Database): number {
  return (db.sql.prepare(
    "SELECT count(*) AS n FROM users WHERE role = 'admin' AND status = 'active'",
  ).get() as { n: number }).n;
}

/** Inserts a user; returns null when the email is taken. */
export function insertUser(
  db: Database,
  u: Pick<UserRow, "email" | "displayName" | "passwordHash" | "role" | "createdAt">,
): UserRow | null {
  const row = db.sql.prepare(
    `INSERT INTO users (email, display_name, password_hash, role, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (email) DO NOTHING RETURNING ${COLUMNS}`,
  ).get(u.email, u.displayName, u.passwordHash, u.role, u.createdAt, u.createdAt) as
    | RawUser
    | undefined;
  return row ? toUser(row) : null;
}

/** Finds a user by id. */
export function findUserById(db: Database, id: number): UserRow | null {
  const row = db.sql.prepare(`SELECT ${COLUMNS} FROM users WHERE id = ?`).get(id) as
    | RawUser
    | undefined;
  return row ? toUser(row) : null;
}

/** Finds a user by (normalised) email. */
export function findUserByEmail(db: Database, email: string): UserRow | null {
  const row = db.sql.prepare(`SELECT ${COLUMNS} FROM users WHERE email = ?`).get(email) as
    | RawUser
    | undefined;
  return row ? toUser(row) : null;
}

/** Lists every user by id. */
export function listUsers(db: Database): UserRow[] {
  return (db.sql.prepare(`SELECT ${COLUMNS} FROM users ORDER BY created_at, id`)
    .all() as unknown as RawUser[]).map(toUser);
}

/** The fields of a user that can be changed. */
export interface UserChanges {
  displayName?: string;
  theme?: Theme;
  locale?: "en" | "ja";
  timeZone?: string;
  role?: "admin" | "member";
  status?: "active" | "disabled";
}

const CHANGE_COLUMNS: Record<keyof UserChanges, string> = {
  displayName: "display_name",
  theme: "theme",
  locale: "locale",
  timeZone: "time_zone",
  role: "role",
  status: "status",
};

/** Applies `changes` to user `id` and returns the updated row. */
export function updateUser(
  db: Database,
  id: number,
  changes: UserChanges,
  updatedAt: string,
): UserRow | null {
  const keys = (Object.keys(changes) as Array<keyof UserChanges>).filter((k) =>
    changes[k] !== undefined
  );
  const sets = keys.map((k) => `${CHANGE_COLUMNS[k]} = ?`).concat("updated_at = ?");
  const row = db.sql.prepare(
    `UPDATE users SET ${sets.join(", ")} WHERE id = ? RETURNING ${COLUMNS}`,
  ).get(...keys.map((k) => changes[k] as string), updatedAt, id) as RawUser | undefined;
  return row ? toUser(row) : null;
}

/** Replaces a user's password hash. */
export function setPasswordHash(db: Database, id: number, hash: string, updatedAt: string): void {
  db.sql.prepare("UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ?")
    .run(hash, updatedAt, id);
}

/** A user's chosen time zone, or null when they never chose one (or do not exist). */
export function userTimeZone(db: Database, id: number): string | null {
  const row = db.sql.prepare("SELECT time_zone FROM users WHERE id = ?").get(id) as
    | { time_zone: string | null }
    | undefined;
  return row?.time_zone ?? null;
}
