/** Storage of notifications. */
import type { Database } from "./sqlite.ts";
import { subjectAlive } from "./subjects.ts";

/** A stored notification. */
export interface NotificationRow {
  id: number;
  userId: number;
  kind: string;
  projectId: number | null;
  actorId: number | null;
  subjectType: string;
  subjectId: number;
  text: string;
  readAt: string | null;
  createdAt: string;
}

interface RawNotification {
  id: number;
  user_id: number;
  kind: string;
  project_id: number | null;
  actor_id: number | null;
  subject_type: string;
  subject_id: number;
  text: string;
  read_at: string | null;
  created_at: string;
}

const COLUMNS =
  "id, user_id, kind, project_id, actor_id, subject_type, subject_id, text, read_at, created_at";

function toNotification(r: RawNotification): NotificationRow {
  return {
    id: r.id,
    userId: r.user_id,
    kind: r.kind,
    projectId: r.project_id,
    actorId: r.actor_id,
    subjectType: r.subject_type,
    subjectId: r.subject_id,
    text: r.text,
    readAt: r.read_at,
    createdAt: r.created_at,
  };
}

/** Inserts one notification per recipient and returns them. */
export function insertNotifications(
  db: Database,
  recipients: number[],
  n: Omit<NotificationRow, "id" | "userId" | "readAt">,
): NotificationRow[] {
  const stmt = db.sql.prepare(
    `INSERT INTO notifications (user_id, kind, project_id, actor_id, subject_type, subject_id, text, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
  );
  return recipients.map((userId) =>
    toNotification(stmt.get(
      userId,
      n.kind,
      n.projectId,
      n.actorId,
      n.subjectType,
      n.subjectId,
      n.text,
      n.createdAt,
    ) as unknown as RawNotification)
  );
}

/** A user's unread notifications that are shown: in live projects, about live subjects. */
const VISIBLE_UNREAD = `n.user_id = ? AND n.read_at IS NULL AND (n.project_id IS NULL OR EXISTS
  (SELECT 1 FROM projects p WHERE p.id = n.project_id AND p.deleted_at IS NULL))
  AND ${subjectAlive("n")}`;

/** A page of a user's unread notifications in live projects, newest first, and the total. */
export function listUnread(
  db: Database,
  userId: number,
  limit: number,
  offset: number,
): { items: NotificationRow[]; total: number } {
  const visible = VISIBLE_UNREAD;
  const items = (db.sql.prepare(
    `SELECT ${COLUMNS.split(", ").map((c) => `n.${c}`).join(", ")} FROM notifications n
     WHERE ${visible} ORDER BY n.created_at DESC, n.id DESC LIMIT ? OFFSET ?`,
  ).all(userId, limit, offset) as unknown as RawNotification[]).map(toNotification);
  const total = (db.sql.prepare(`SELECT count(*) AS n FROM notifications n WHERE ${visible}`)
    .get(userId) as { n: number }).n;
  return { items, total };
}

/** Finds a notification of `userId`. */
export function findNotification(db: Database, id: number, userId: number): NotificationRow | null {
  const r = db.sql.prepare(`SELECT ${COLUMNS} FROM notifications WHERE id = ? AND user_id = ?`)
    .get(id, userId) as RawNotification | undefined;
  return r ? toNotification(r) : null;
}

/** Marks a notification read (keeps the first read time). */
export function markNotificationRead(db: Database, id: number, at: string): NotificationRow {
  const r = db.sql.prepare(
    `UPDATE notifications SET read_at = coalesce(read_at, ?) WHERE id = ? RETURNING ${COLUMNS}`,
  ).get(at, id) as unknown as RawNotification;
  return toNotification(r);
}

/** The users already sent `kind` about a subject. */
export function recipientsOf(
  db: Database,
  subject: { kind: string; subjectType: string; subjectId: number },
): Set<number> {
  return new Set((db.sql.prepare(
    "SELECT DISTINCT user_id FROM notifications WHERE kind = ? AND subject_type = ? AND subject_id = ?",
  ).all(subject.kind, subject.subjectType, subject.subjectId) as Array<{ user_id: number }>)
    .map((r) => r.user_id));
}

/** Marks every shown unread notification of a user read; returns their ids. */
export function markAllRead(db: Database, userId: number, at: string): number[] {
  return (db.sql.prepare(
    `UPDATE notifications SET read_at = ? WHERE id IN
     (SELECT n.id FROM notifications n WHERE ${VISIBLE_UNREAD}) RETURNING id`,
  ).all(at, userId) as Array<{ id: number }>).map((r) => r.id).sort((a, b) => a - b);
}

/** How much of a project's notifications reach a member. */
export type NotificationLevel = "all" | "mentions" | "none";

/** The members of a project whose level is not `all`, with their level. */
export function quietMembers(db: Database, projectId: number): Map<number, NotificationLevel> {
  return new Map((db.sql.prepare(
    `SELECT user_id, notification_level FROM project_members
     WHERE project_id = ? AND notification_level <> 'all'`,
  ).all(projectId) as Array<{ user_id: number; notification_level: NotificationLevel }>)
    .map((r) => [r.user_id, r.notification_level]));
}

/** Sets a member's notification level; false when they are not a member. */
export function setNotificationLevel(
  db: Database,
  projectId: number,
  userId: number,
  level: NotificationLevel,
): boolean {
  return db.sql.prepare(
    "UPDATE project_members SET notification_level = ? WHERE project_id = ? AND user_id = ?",
  ).run(level, projectId, userId).changes > 0;
}

/** A member's notification level, or null when they are not a member. */
export function notificationLevel(
  db: Database,
  projectId: number,
  userId: number,
): NotificationLevel | null {
  const r = db.sql.prepare(
    "SELECT notification_level FROM project_members WHERE project_id = ? AND user_id = ?",
  ).get(projectId, userId) as { notification_level: NotificationLevel } | undefined;
  return r?.notification_level ?? null;
}
