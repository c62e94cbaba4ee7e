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

/** Inserts one notification per recipient. */
export function insertNotifications(
  db: Database,
  recipients: number[],
  n: Omit<NotificationRow, "id" | "userId" | "readAt">,
): void {
  const stmt = db.sql.prepare(
    `INSERT INTO notifications (user_id, kind, project_id, actor_id, subject_type, subject_id, text, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const userId of recipients) {
    stmt.run(
      userId,
      n.kind,
      n.projectId,
      n.actorId,
      n.subjectType,
      n.subjectId,
      n.text,
      n.createdAt,
    );
  }
}

/** A page of a user's unread notifications in live projects, newest first, and the total. */
export function listUnread(
  db: Database,
  userId: number,
  limit: number,
  offset: number,
): { items: NotificationRow[]; total: number } {
  const visible = `n.user_id = ? AND n.read_at IS NULL AND (n.project_id IS NULL OR EXISTS
    (SELECT 1 FROM projects p WHERE p.id = n.project_id AND p.deleted_at IS NULL))
    AND ${subjectAlive("n")}`;
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
