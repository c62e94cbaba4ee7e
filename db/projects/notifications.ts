/** Storage of notifications. */
import type { Queries } from "../kernel/engine.ts";
import { subjectAlive } from "../kernel/subjects.ts";

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

export interface RawNotification {
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

/** The columns `toNotification` reads. */
export const COLUMNS =
  "id, user_id, kind, project_id, actor_id, subject_type, subject_id, text, read_at, created_at";

/** A notification row as read with `COLUMNS`. */
export function toNotification(r: RawNotification): NotificationRow {
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
export async function insertNotifications(
  q: Queries,
  recipients: number[],
  n: Omit<NotificationRow, "id" | "userId" | "readAt">,
): Promise<NotificationRow[]> {
  const rows: NotificationRow[] = [];
  for (const userId of recipients) {
    const r = await q.get<RawNotification>(
      `INSERT INTO notifications (user_id, kind, project_id, actor_id, subject_type, subject_id, text, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
      [userId, n.kind, n.projectId, n.actorId, n.subjectType, n.subjectId, n.text, n.createdAt],
    );
    rows.push(toNotification(r!));
  }
  return rows;
}

/** A user's unread notifications that are shown: in live projects, about live subjects. */
const VISIBLE_UNREAD = `n.user_id = ? AND n.read_at IS NULL AND (n.project_id IS NULL OR EXISTS
  (SELECT 1 FROM projects p WHERE p.id = n.project_id AND p.deleted_at IS NULL))
  AND ${subjectAlive("n")}`;

/** A page of a user's unread notifications in live projects, newest first, and the total. */
export async function listUnread(
  q: Queries,
  userId: number,
  limit: number,
  offset: number,
): Promise<{ items: NotificationRow[]; total: number }> {
  const visible = VISIBLE_UNREAD;
  const items = (await q.all<RawNotification>(
    `SELECT ${COLUMNS.split(", ").map((c) => `n.${c}`).join(", ")} FROM notifications n
     WHERE ${visible} ORDER BY n.created_at DESC, n.id DESC LIMIT ? OFFSET ?`,
    [userId, limit, offset],
  )).map(toNotification);
  const total =
    ((await q.get<{ n: number }>(`SELECT count(*) AS n FROM notifications n WHERE ${visible}`, [
      userId,
    ]))!).n;
  return { items, total };
}

/** Finds a notification of `userId`. */
export async function findNotification(
  q: Queries,
  id: number,
  userId: number,
): Promise<NotificationRow | null> {
  const r = await q.get<RawNotification>(
    `SELECT ${COLUMNS} FROM notifications WHERE id = ? AND user_id = ?`,
    [id, userId],
  );
  return r ? toNotification(r) : null;
}

/** Marks a notification read (keeps the first read time). */
export async function markNotificationRead(
  q: Queries,
  id: number,
  at: string,
): Promise<NotificationRow> {
  const r = (await q.get<RawNotification>(
    `UPDATE notifications SET read_at = coalesce(read_at, ?) WHERE id = ? RETURNING ${COLUMNS}`,
    [at, id],
  ))!;
  return toNotification(r);
}

/** The users already sent `kind` about a subject. */
export async function recipientsOf(
  q: Queries,
  subject: { kind: string; subjectType: string; subjectId: number },
): Promise<Set<number>> {
  return new Set(
    (await q.all<{ user_id: number }>(
      "SELECT DISTINCT user_id FROM notifications WHERE kind = ? AND subject_type = ? AND subject_id = ?",
      [subject.kind, subject.subjectType, subject.subjectId],
    ))
      .map((r) => r.user_id),
  );
}

/** Marks every shown unread notification of a user read; returns their ids. */
export async function markAllRead(q: Queries, userId: number, at: string): Promise<number[]> {
  return (await q.all<{ id: number }>(
    `UPDATE notifications SET read_at = ? WHERE id IN
     (SELECT n.id FROM notifications n WHERE ${VISIBLE_UNREAD}) RETURNING id`,
    [at, userId],
  )).map((r) => r.id).sort((a, b) => a - b);
}

/** How much of a project's notifications reach a member. */
export type NotificationLevel = "all" | "mentions" | "none";

/** The members of a project whose level is not `all`, with their level. */
export async function quietMembers(
  q: Queries,
  projectId: number,
): Promise<Map<number, NotificationLevel>> {
  return new Map(
    (await q.all<{ user_id: number; notification_level: NotificationLevel }>(
      `SELECT user_id, notification_level FROM project_members
     WHERE project_id = ? AND notification_level <> 'all'`,
      [projectId],
    ))
      .map((r) => [r.user_id, r.notification_level]),
  );
}

/** Sets a member's notification level; false when they are not a member. */
export async function setNotificationLevel(
  q: Queries,
  projectId: number,
  userId: number,
  level: NotificationLevel,
): Promise<boolean> {
  return (await q.run(
    "UPDATE project_members SET notification_level = ? WHERE project_id = ? AND user_id = ?",
    [level, projectId, userId],
  )).changes > 0;
}

/** A member's notification level, or null when they are not a member. */
export async function notificationLevel(
  q: Queries,
  projectId: number,
  userId: number,
): Promise<NotificationLevel | null> {
  const r = await q.get<{ notification_level: NotificationLevel }>(
    "SELECT notification_level FROM project_members WHERE project_id = ? AND user_id = ?",
    [projectId, userId],
  );
  return r?.notification_level ?? null;
}
