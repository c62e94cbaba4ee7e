/** Storage of user accounts. */
import type { Queries } from "../kernel/engine.ts";

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
  /** Which notifications are mailed: none, personal ones at once (plus a digest), or a digest. */
  emailNotifications: EmailNotifications;
  /** The hour (0–23, in the user's zone) the daily digest goes. */
  digestHour: number;
  /** Whether the owner has shown they read this address's mail (or an invitation made it). */
  emailVerified: boolean;
  /** Whether an admin lets this user run the loan console (admins may without it). */
  loanOfficer: boolean;
  createdAt: string;
  updatedAt: string;
}

/** How a user's notifications are mailed. */
export type EmailNotifications = "off" | "immediate" | "daily";

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
  email_notifications: EmailNotifications;
  digest_hour: number | bigint;
  email_verified: number | bigint;
  loan_officer: number | bigint;
  created_at: string;
  updated_at: string;
}

const COLUMNS = "id, email, display_name, password_hash, role, status, theme, locale, time_zone, " +
  "email_notifications, digest_hour, email_verified, loan_officer, created_at, updated_at";

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
    emailNotifications: r.email_notifications,
    digestHour: Number(r.digest_hour),
    emailVerified: Number(r.email_verified) === 1,
    loanOfficer: Number(r.loan_officer) === 1,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Counts all users. */
export async function countUsers(q: Queries): Promise<number> {
  return ((await q.get<{ n: number }>("SELECT count(*) AS n FROM users"))!).n;
}

/** Counts active admins. */
export async function countActiveAdmins(q: Queries): Promise<number> {
  return ((await q.get<{ n: number }>(
    "SELECT count(*) AS n FROM users WHERE role = 'admin' AND status = 'active'",
  ))!).n;
}

/** Inserts a user; returns null when the email is taken. */
export async function insertUser(
  q: Queries,
  u:
    & Pick<UserRow, "email" | "displayName" | "passwordHash" | "role" | "createdAt">
    & { emailVerified?: boolean },
): Promise<UserRow | null> {
  const row = (await q.get(
    `INSERT INTO users (email, display_name, password_hash, role, email_verified, created_at,
       updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (email) DO NOTHING RETURNING ${COLUMNS}`,
    [
      u.email,
      u.displayName,
      u.passwordHash,
      u.role,
      u.emailVerified ? 1 : 0,
      u.createdAt,
      u.createdAt,
    ],
  )) as
    | RawUser
    | undefined;
  return row ? toUser(row) : null;
}

/** Finds a user by id. */
export async function findUserById(q: Queries, id: number): Promise<UserRow | null> {
  const row = (await q.get(`SELECT ${COLUMNS} FROM users WHERE id = ?`, [id])) as
    | RawUser
    | undefined;
  return row ? toUser(row) : null;
}

/** Finds a user by (normalised) email. */
export async function findUserByEmail(q: Queries, email: string): Promise<UserRow | null> {
  const row = (await q.get(`SELECT ${COLUMNS} FROM users WHERE email = ?`, [email])) as
    | RawUser
    | undefined;
  return row ? toUser(row) : null;
}

/** Lists every user by id. */
export async function listUsers(q: Queries): Promise<UserRow[]> {
  return (await q.all<RawUser>(`SELECT ${COLUMNS} FROM users ORDER BY created_at, id`)).map(toUser);
}

/** The fields of a user that can be changed. */
export interface UserChanges {
  displayName?: string;
  theme?: Theme;
  locale?: "en" | "ja";
  timeZone?: string;
  emailNotifications?: EmailNotifications;
  digestHour?: number;
  role?: "admin" | "member";
  status?: "active" | "disabled";
  loanOfficer?: boolean;
}

const CHANGE_COLUMNS: Record<keyof UserChanges, string> = {
  displayName: "display_name",
  theme: "theme",
  locale: "locale",
  timeZone: "time_zone",
  emailNotifications: "email_notifications",
  digestHour: "digest_hour",
  role: "role",
  status: "status",
  loanOfficer: "loan_officer",
};

/** Changes that move the next digest (it is scheduled again from the new values). */
const RESCHEDULES: ReadonlySet<keyof UserChanges> = new Set([
  "timeZone",
  "emailNotifications",
  "digestHour",
]);

/**
 * Applies `changes` to user `id` and returns the updated row. A change of zone, mail choice
 * or digest hour unschedules the next digest (the mailer schedules it again).
 */
export async function updateUser(
  q: Queries,
  id: number,
  changes: UserChanges,
  updatedAt: string,
): Promise<UserRow | null> {
  const keys = (Object.keys(changes) as Array<keyof UserChanges>).filter((k) =>
    changes[k] !== undefined
  );
  const sets = keys.map((k) => `${CHANGE_COLUMNS[k]} = ?`).concat("updated_at = ?");
  if (keys.some((k) => RESCHEDULES.has(k))) sets.push("digest_at = NULL");
  const row = await q.get<RawUser>(
    `UPDATE users SET ${sets.join(", ")} WHERE id = ? RETURNING ${COLUMNS}`,
    [...keys.map((k) => flagAsNumber(changes[k]!)), updatedAt, id],
  );
  return row ? toUser(row) : null;
}

/** A change's value as stored: a flag is 0 or 1. */
function flagAsNumber(value: string | number | boolean): string | number {
  return typeof value === "boolean" ? (value ? 1 : 0) : value;
}

/** Replaces a user's password hash. */
export async function setPasswordHash(
  q: Queries,
  id: number,
  hash: string,
  updatedAt: string,
): Promise<void> {
  await q.run("UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ?", [
    hash,
    updatedAt,
    id,
  ]);
}

/** Sets whether user `userId`'s email address is verified (`emailVerified`). */
export async function setEmailVerified(
  q: Queries,
  userId: number,
  verified: boolean,
  updatedAt: string,
): Promise<void> {
  await q.run("UPDATE users SET email_verified = ?, updated_at = ? WHERE id = ?", [
    verified ? 1 : 0,
    updatedAt,
    userId,
  ]);
}

/** A user's chosen time zone, or null when they never chose one (or do not exist). */
export async function userTimeZone(q: Queries, id: number): Promise<string | null> {
  const row = (await q.get("SELECT time_zone FROM users WHERE id = ?", [id])) as
    | { time_zone: string | null }
    | undefined;
  return row?.time_zone ?? null;
}

/**
 * Marks every notification of `userId` not mailed yet as dealt with, and starts the digest's
 * "since" now: a user who turns mail on is not sent what arrived before.
 */
export async function mailNothingBefore(q: Queries, userId: number, at: string): Promise<void> {
  await q.run("UPDATE notifications SET mailed_at = ? WHERE user_id = ? AND mailed_at IS NULL", [
    at,
    userId,
  ]);
  await q.run("UPDATE users SET last_digest_at = ? WHERE id = ?", [at, userId]);
}
