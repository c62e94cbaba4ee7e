/** Storage of meetings and their invitees, and the schedule queries behind conflict checks. */
import type { Database } from "./sqlite.ts";
import type { Deletion } from "./subjects.ts";

/** A live meeting with its invitees (ascending user ids). */
export interface MeetingRow {
  id: number;
  projectId: number;
  creatorId: number;
  title: string;
  startAt: string;
  endAt: string;
  location: string | null;
  minutes: string | null;
  inviteeIds: number[];
  createdAt: string;
  updatedAt: string;
}

interface RawMeeting {
  id: number;
  project_id: number;
  creator_id: number;
  title: string;
  start_at: string;
  end_at: string;
  location: string | null;
  minutes: string | null;
  invitee_ids: string;
  created_at: string;
  updated_at: string;
}

/** The invitees come along as a JSON array, so a list is still one statement. */
const SELECT = `SELECT m.id, m.project_id, m.creator_id, m.title, m.start_at, m.end_at,
  m.location, m.minutes, (SELECT json_group_array(user_id) FROM (SELECT i.user_id
    FROM meeting_invitees i WHERE i.meeting_id = m.id ORDER BY i.user_id)) AS invitee_ids,
  m.created_at, m.updated_at FROM meetings m`;

function toMeeting(r: RawMeeting): MeetingRow {
  return {
    id: r.id,
    projectId: r.project_id,
    creatorId: r.creator_id,
    title: r.title,
    startAt: r.start_at,
    endAt: r.end_at,
    location: r.location,
    minutes: r.minutes,
    inviteeIds: JSON.parse(r.invitee_ids) as number[],
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Inserts a meeting (without invitees; see `setInvitees`). */
export function insertMeeting(
  db: Database,
  m: Omit<MeetingRow, "id" | "inviteeIds" | "updatedAt">,
): number {
  return (db.sql.prepare(
    `INSERT INTO meetings (project_id, creator_id, title, start_at, end_at, location, minutes,
     created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  ).get(
    m.projectId,
    m.creatorId,
    m.title,
    m.startAt,
    m.endAt,
    m.location,
    m.minutes,
    m.createdAt,
    m.createdAt,
  ) as { id: number }).id;
}

/** Replaces a meeting's invitees. */
export function setInvitees(db: Database, meetingId: number, userIds: number[]): void {
  db.sql.prepare("DELETE FROM meeting_invitees WHERE meeting_id = ?").run(meetingId);
  db.sql.prepare(
    `INSERT INTO meeting_invitees (meeting_id, user_id)
     SELECT ?, value FROM json_each(?) WHERE true ON CONFLICT DO NOTHING`,
  ).run(meetingId, JSON.stringify(userIds));
}

/** A live meeting of a project. */
export function findMeeting(db: Database, projectId: number, id: number): MeetingRow | null {
  const r = db.sql.prepare(`${SELECT} WHERE m.id = ? AND m.project_id = ? AND m.deleted_at IS NULL`)
    .get(id, projectId) as RawMeeting | undefined;
  return r ? toMeeting(r) : null;
}

/** A project's live meetings, oldest first. */
export function listMeetings(db: Database, projectId: number): MeetingRow[] {
  return (db.sql.prepare(
    `${SELECT} WHERE m.project_id = ? AND m.deleted_at IS NULL ORDER BY m.created_at, m.id`,
  ).all(projectId) as unknown as RawMeeting[]).map(toMeeting);
}

/** Changes a meeting's fields (not its invitees). */
export function updateMeeting(
  db: Database,
  id: number,
  c: {
    title: string;
    startAt: string;
    endAt: string;
    location: string | null;
    minutes: string | null;
    updatedAt: string;
  },
): void {
  db.sql.prepare(
    `UPDATE meetings SET title = ?, start_at = ?, end_at = ?, location = ?, minutes = ?,
     updated_at = ? WHERE id = ?`,
  ).run(c.title, c.startAt, c.endAt, c.location, c.minutes, c.updatedAt, id);
}

/** Moves a meeting to the trash (its `updated_at` stays as it was). */
export function deleteMeeting(db: Database, id: number, d: Deletion): void {
  db.sql.prepare("UPDATE meetings SET deleted_at = ?, deleted_by = ? WHERE id = ?").run(
    d.at,
    d.by,
    id,
  );
}

/** Which of `userIds` are members of a project. */
export function membersAmong(db: Database, projectId: number, userIds: number[]): Set<number> {
  return new Set(
    (db.sql.prepare(
      `SELECT user_id FROM project_members
       WHERE project_id = ? AND user_id IN (SELECT value FROM json_each(?))`,
    ).all(projectId, JSON.stringify(userIds)) as Array<{ user_id: number }>).map((r) => r.user_id),
  );
}

/** A meeting a participant is busy with. */
export interface BusyMeeting {
  id: number;
  projectId: number;
  title: string;
  startAt: string;
  endAt: string;
  /** The participant who organises it or is invited to it. */
  userId: number;
}

/**
 * Live meetings of live projects, in any project, that one of `userIds` organises or is
 * invited to and that overlap the open range (`startAt`, `endAt`), one row per (meeting,
 * participant); touching meetings do not overlap. `excludeIds` are left out.
 */
export function busyMeetings(
  db: Database,
  q: { userIds: number[]; startAt: string; endAt: string; excludeIds: number[] },
): BusyMeeting[] {
  if (q.userIds.length === 0) return [];
  // Both arms use an index: meetings_creator and meeting_invitees_user.
  return (db.sql.prepare(
    `WITH who(id) AS (SELECT value FROM json_each(:users)),
     pairs(meeting_id, user_id) AS (
       SELECT m.id, m.creator_id FROM meetings m
       WHERE m.creator_id IN (SELECT id FROM who) AND m.deleted_at IS NULL
         AND m.start_at < :end
       UNION
       SELECT i.meeting_id, i.user_id FROM meeting_invitees i WHERE i.user_id IN (SELECT id FROM who)
     )
     SELECT m.id, m.project_id, m.title, m.start_at, m.end_at, pairs.user_id
     FROM pairs JOIN meetings m ON m.id = pairs.meeting_id
     JOIN projects p ON p.id = m.project_id AND p.deleted_at IS NULL
     WHERE m.deleted_at IS NULL AND m.start_at < :end AND m.end_at > :start
       AND m.id NOT IN (SELECT value FROM json_each(:exclude))
     ORDER BY m.start_at, m.id, pairs.user_id`,
  ).all({
    users: JSON.stringify(q.userIds),
    start: q.startAt,
    end: q.endAt,
    exclude: JSON.stringify(q.excludeIds),
  }) as Array<{
    id: number;
    project_id: number;
    title: string;
    start_at: string;
    end_at: string;
    user_id: number;
  }>).map((r) => ({
    id: r.id,
    projectId: r.project_id,
    title: r.title,
    startAt: r.start_at,
    endAt: r.end_at,
    userId: r.user_id,
  }));
}

/** A to-do item that needs a participant around a meeting's time. */
export interface PressingTodo {
  id: number;
  projectId: number;
  title: string;
  startDate: string | null;
  dueDate: string;
  assigneeId: number;
}

/**
 * Live, incomplete, `high` priority to-do items of live projects, in any project,
 * assigned to one of `userIds` and due from `firstDay` to `lastDay` (inclusive).
 */
export function pressingTodos(
  db: Database,
  q: { userIds: number[]; firstDay: string; lastDay: string },
): PressingTodo[] {
  if (q.userIds.length === 0) return [];
  return (db.sql.prepare(
    `SELECT i.id, i.project_id, i.title, i.start_date, i.due_date, i.assignee_id
     FROM todo_items i JOIN projects p ON p.id = i.project_id AND p.deleted_at IS NULL
     WHERE i.assignee_id IN (SELECT value FROM json_each(?)) AND i.completed = 0
       AND i.deleted_at IS NULL AND i.priority = 'high'
       AND i.due_date >= ? AND i.due_date <= ?
     ORDER BY i.due_date, i.id`,
  ).all(JSON.stringify(q.userIds), q.firstDay, q.lastDay) as Array<{
    id: number;
    project_id: number;
    title: string;
    start_date: string | null;
    due_date: string;
    assignee_id: number;
  }>).map((r) => ({
    id: r.id,
    projectId: r.project_id,
    title: r.title,
    startDate: r.start_date,
    dueDate: r.due_date,
    assigneeId: r.assignee_id,
  }));
}

/** Live meetings by id, in the order of `ids` (one statement, for dashboards). */
export function meetingsByIds(db: Database, ids: number[]): MeetingRow[] {
  if (ids.length === 0) return [];
  const rows = (db.sql.prepare(
    `${SELECT} WHERE m.deleted_at IS NULL AND m.id IN (${ids.map(() => "?").join(",")})`,
  ).all(...ids) as unknown as RawMeeting[]).map(toMeeting);
  return rows.sort((a, b) => ids.indexOf(a.id) - ids.indexOf(b.id));
}
