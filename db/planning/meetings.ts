/** Storage of meetings and their invitees, and the schedule queries behind conflict checks. */
import { dialect, type PerEngine, perEngine, pgJsonArray } from "../kernel/dialect.ts";
import type { Queries } from "../kernel/engine.ts";
import type { Deletion } from "../kernel/subjects.ts";

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

type RawMeeting = {
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
};

/** A meeting's invitees as a JSON array (text) of ascending user ids. */
const INVITEE_IDS: PerEngine = {
  sqlite: `(SELECT json_group_array(user_id) FROM (SELECT i.user_id
    FROM meeting_invitees i WHERE i.meeting_id = m.id ORDER BY i.user_id))`,
  postgres: `(SELECT ${pgJsonArray("i.user_id", "i.user_id")}
    FROM meeting_invitees i WHERE i.meeting_id = m.id)`,
};

/** The invitees come along as a JSON array, so a list is still one statement. */
const SELECT = perEngine((d) =>
  `SELECT m.id, m.project_id, m.creator_id, m.title, m.start_at, m.end_at,
  m.location, m.minutes, ${INVITEE_IDS[d.kind]} AS invitee_ids,
  m.created_at, m.updated_at FROM meetings m`
);

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
export async function insertMeeting(
  q: Queries,
  m: Omit<MeetingRow, "id" | "inviteeIds" | "updatedAt">,
): Promise<number> {
  return (await q.get<{ id: number }>(
    `INSERT INTO meetings (project_id, creator_id, title, start_at, end_at, location, minutes,
     created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    [
      m.projectId,
      m.creatorId,
      m.title,
      m.startAt,
      m.endAt,
      m.location,
      m.minutes,
      m.createdAt,
      m.createdAt,
    ],
  ))!.id;
}

/** Replaces a meeting's invitees. */
export async function setInvitees(
  q: Queries,
  meetingId: number,
  userIds: number[],
): Promise<void> {
  await q.run("DELETE FROM meeting_invitees WHERE meeting_id = ?", [meetingId]);
  // `WHERE true`: without a WHERE, SQLite would read ON CONFLICT as a join's ON.
  await q.run(
    `INSERT INTO meeting_invitees (meeting_id, user_id)
     SELECT ?, v.value FROM (${dialect(q).intsOf("?")}) AS v WHERE true ON CONFLICT DO NOTHING`,
    [meetingId, JSON.stringify(userIds)],
  );
}

/** A live meeting of a project. */
export async function findMeeting(
  q: Queries,
  projectId: number,
  id: number,
): Promise<MeetingRow | null> {
  const r = await q.get<RawMeeting>(
    `${SELECT[q.kind]} WHERE m.id = ? AND m.project_id = ? AND m.deleted_at IS NULL`,
    [id, projectId],
  );
  return r ? toMeeting(r) : null;
}

/** A project's live meetings, oldest first. */
export async function listMeetings(q: Queries, projectId: number): Promise<MeetingRow[]> {
  return (await q.all<RawMeeting>(
    `${SELECT[q.kind]} WHERE m.project_id = ? AND m.deleted_at IS NULL ORDER BY m.created_at, m.id`,
    [projectId],
  )).map(toMeeting);
}

/**
 * `limit` of a project's live meetings from `offset`, upcoming first: those not over at `now`
 * (end after it) soonest first, then those over, latest first (start, then id, both ways).
 */
export async function pageMeetings(
  q: Queries,
  projectId: number,
  now: string,
  page: { limit: number; offset: number },
): Promise<MeetingRow[]> {
  // For a past meeting both CASEs are null alike, so the last two keys order the past ones.
  return (await q.all<RawMeeting>(
    `${SELECT[q.kind]} WHERE m.project_id = ? AND m.deleted_at IS NULL
     ORDER BY CASE WHEN m.end_at > ? THEN 0 ELSE 1 END,
       CASE WHEN m.end_at > ? THEN m.start_at END, CASE WHEN m.end_at > ? THEN m.id END,
       m.start_at DESC, m.id DESC
     LIMIT ? OFFSET ?`,
    [projectId, now, now, now, page.limit, page.offset],
  )).map(toMeeting);
}

/** How many live meetings a project has. */
export async function countMeetings(q: Queries, projectId: number): Promise<number> {
  return Number(
    (await q.get<{ n: number }>(
      "SELECT count(*) AS n FROM meetings WHERE project_id = ? AND deleted_at IS NULL",
      [projectId],
    ))!.n,
  );
}

/** Changes a meeting's fields (not its invitees). */
export async function updateMeeting(
  q: Queries,
  id: number,
  c: {
    title: string;
    startAt: string;
    endAt: string;
    location: string | null;
    minutes: string | null;
    updatedAt: string;
  },
): Promise<void> {
  await q.run(
    `UPDATE meetings SET title = ?, start_at = ?, end_at = ?, location = ?, minutes = ?,
     updated_at = ? WHERE id = ?`,
    [c.title, c.startAt, c.endAt, c.location, c.minutes, c.updatedAt, id],
  );
}

/** Moves a meeting to the trash (its `updated_at` stays as it was). */
export async function deleteMeeting(q: Queries, id: number, d: Deletion): Promise<void> {
  await q.run("UPDATE meetings SET deleted_at = ?, deleted_by = ? WHERE id = ?", [d.at, d.by, id]);
}

/** Which of `userIds` are members of a project. */
export async function membersAmong(
  q: Queries,
  projectId: number,
  userIds: number[],
): Promise<Set<number>> {
  return new Set(
    (await q.all<{ user_id: number }>(
      `SELECT user_id FROM project_members
       WHERE project_id = ? AND user_id IN (${dialect(q).intsOf("?")})`,
      [projectId, JSON.stringify(userIds)],
    )).map((r) => r.user_id),
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
export async function busyMeetings(
  q: Queries,
  of: { userIds: number[]; startAt: string; endAt: string; excludeIds: number[] },
): Promise<BusyMeeting[]> {
  if (of.userIds.length === 0) return [];
  // Both arms use an index: meetings_creator and meeting_invitees_user.
  // ?1 users (JSON), ?2 start, ?3 end, ?4 excluded ids (JSON).
  const d = dialect(q);
  return (await q.all<{
    id: number;
    project_id: number;
    title: string;
    start_at: string;
    end_at: string;
    user_id: number;
  }>(
    `WITH who(id) AS (${d.intsOf("?1")}),
     pairs(meeting_id, user_id) AS (
       SELECT m.id, m.creator_id FROM meetings m
       WHERE m.creator_id IN (SELECT id FROM who) AND m.deleted_at IS NULL
         AND m.start_at < ?3
       UNION
       SELECT i.meeting_id, i.user_id FROM meeting_invitees i WHERE i.user_id IN (SELECT id FROM who)
     )
     SELECT m.id, m.project_id, m.title, m.start_at, m.end_at, pairs.user_id
     FROM pairs JOIN meetings m ON m.id = pairs.meeting_id
     JOIN projects p ON p.id = m.project_id AND p.deleted_at IS NULL
     WHERE m.deleted_at IS NULL AND m.start_at < ?3 AND m.end_at > ?2
       AND m.id NOT IN (${d.intsOf("?4")})
     ORDER BY m.start_at, m.id, pairs.user_id`,
    [JSON.stringify(of.userIds), of.startAt, of.endAt, JSON.stringify(of.excludeIds)],
  )).map((r) => ({
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
export async function pressingTodos(
  q: Queries,
  of: { userIds: number[]; firstDay: string; lastDay: string },
): Promise<PressingTodo[]> {
  if (of.userIds.length === 0) return [];
  return (await q.all<{
    id: number;
    project_id: number;
    title: string;
    start_date: string | null;
    due_date: string;
    assignee_id: number;
  }>(
    `SELECT i.id, i.project_id, i.title, i.start_date, i.due_date, i.assignee_id
     FROM todo_items i JOIN projects p ON p.id = i.project_id AND p.deleted_at IS NULL
     WHERE i.assignee_id IN (${dialect(q).intsOf("?")}) AND i.completed = 0
       AND i.deleted_at IS NULL AND i.priority = 'high'
       AND i.due_date >= ? AND i.due_date <= ?
     ORDER BY i.due_date, i.id`,
    [JSON.stringify(of.userIds), of.firstDay, of.lastDay],
  )).map((r) => ({
    id: r.id,
    projectId: r.project_id,
    title: r.title,
    startDate: r.start_date,
    dueDate: r.due_date,
    assigneeId: r.assignee_id,
  }));
}

/** Live meetings by id, in the order of `ids` (one statement, for dashboards). */
export async function meetingsByIds(q: Queries, ids: number[]): Promise<MeetingRow[]> {
  if (ids.length === 0) return [];
  const rows = (await q.all<RawMeeting>(
    `${SELECT[q.kind]} WHERE m.deleted_at IS NULL AND m.id IN (${dialect(q).intsOf("?")})`,
    [JSON.stringify(ids)],
  )).map(toMeeting);
  return rows.sort((a, b) => ids.indexOf(a.id) - ids.indexOf(b.id));
}
