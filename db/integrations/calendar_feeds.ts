/**
 * Storage of calendar feed tokens (a salt and the token's SHA-256, never the token), and the
 * feed's queries: every dated item of a set of projects, and their meetings with people.
 */
import { dialect, type PerEngine, pgJsonArray } from "../kernel/dialect.ts";
import type { Queries } from "../kernel/engine.ts";

/** A user's feed: the salt its token is derived from, and the token's hash. */
export interface FeedRow {
  userId: number;
  salt: string;
  tokenHash: string;
  createdAt: string;
}

type RawFeed = {
  user_id: number;
  salt: string;
  token_hash: string;
  created_at: string;
};

function toFeed(r: RawFeed): FeedRow {
  return { userId: r.user_id, salt: r.salt, tokenHash: r.token_hash, createdAt: r.created_at };
}

/** A user's feed, or null. */
export async function findFeedOfUser(q: Queries, userId: number): Promise<FeedRow | null> {
  const r = await q.get<RawFeed>(
    "SELECT user_id, salt, token_hash, created_at FROM calendar_feeds WHERE user_id = ?",
    [userId],
  );
  return r ? toFeed(r) : null;
}

/** The feed whose token hashes to `tokenHash`, or null. */
export async function findFeedByHash(q: Queries, tokenHash: string): Promise<FeedRow | null> {
  const r = await q.get<RawFeed>(
    "SELECT user_id, salt, token_hash, created_at FROM calendar_feeds WHERE token_hash = ?",
    [tokenHash],
  );
  return r ? toFeed(r) : null;
}

/** Stores a user's feed, replacing the one they had. */
export async function saveFeed(q: Queries, f: FeedRow): Promise<void> {
  await q.run(
    `INSERT INTO calendar_feeds (user_id, salt, token_hash, created_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (user_id) DO UPDATE SET salt = excluded.salt, token_hash = excluded.token_hash,
     created_at = excluded.created_at`,
    [f.userId, f.salt, f.tokenHash, f.createdAt],
  );
}

/** Replaces the stored hash of a feed's token (the server secret changed). */
export async function setFeedHash(q: Queries, userId: number, tokenHash: string): Promise<void> {
  await q.run("UPDATE calendar_feeds SET token_hash = ? WHERE user_id = ?", [tokenHash, userId]);
}

/**
 * A dated item of the feed. The spans are those of the project calendar (`calendarRange`):
 * events from `start` to `end` (instants), milestones on their due date, to-dos from
 * `coalesce(startDate, dueDate)` to `coalesce(dueDate, startDate)` (dates, inclusive).
 */
export interface FeedItemRow {
  type: "event" | "milestone" | "todo";
  id: number;
  title: string;
  description: string | null;
  start: string;
  end: string;
  allDay: boolean;
  updatedAt: string;
}

type RawFeedItem = {
  type: "event" | "milestone" | "todo";
  id: number;
  title: string;
  description: string | null;
  start: string;
  end: string;
  all_day: number;
  updated_at: string;
};

/** Every live dated event, milestone and to-do of `projectIds`, by start, type and id. */
export async function feedItems(q: Queries, projectIds: number[]): Promise<FeedItemRow[]> {
  const projects = JSON.stringify(projectIds);
  const d = dialect(q);
  // `end` is a reserved word on PostgreSQL: quoted where it names a column.
  const rows = await q.all<RawFeedItem>(
    `SELECT type, id, title, description, start, "end", all_day, updated_at FROM (
      SELECT 'event' AS type, e.id, e.title, e.description, e.start_at AS start,
        e.end_at AS end, e.all_day, e.updated_at, e.start_at AS sort_key
      FROM calendar_events e
      WHERE e.project_id IN (${d.intsOf("?1")}) AND e.deleted_at IS NULL
      UNION ALL
      SELECT 'milestone', m.id, m.title, m.description, m.due_date, m.due_date, 1,
        m.updated_at, m.due_date || 'T00:00:00.000Z'
      FROM milestones m
      WHERE m.project_id IN (${d.intsOf("?1")}) AND m.deleted_at IS NULL
        AND m.due_date IS NOT NULL
      UNION ALL
      SELECT 'todo', i.id, i.title, i.description, coalesce(i.start_date, i.due_date),
        coalesce(i.due_date, i.start_date), 1, i.updated_at,
        coalesce(i.start_date, i.due_date) || 'T00:00:00.000Z'
      FROM todo_items i
      WHERE i.project_id IN (${d.intsOf("?1")}) AND i.deleted_at IS NULL
        AND coalesce(i.start_date, i.due_date) IS NOT NULL
    ) AS x ORDER BY sort_key, type, id`,
    [projects],
  );
  return rows.map((r) => ({
    type: r.type,
    id: r.id,
    title: r.title,
    description: r.description,
    start: r.start,
    end: r.end,
    allDay: r.all_day === 1,
    updatedAt: r.updated_at,
  }));
}

/** A person on a meeting. */
export interface FeedPerson {
  id: number;
  displayName: string;
  email: string;
}

/** A live meeting of the feed, with its organiser (creator) and invitees (by user id). */
export interface FeedMeetingRow {
  id: number;
  projectId: number;
  title: string;
  startAt: string;
  endAt: string;
  location: string | null;
  organizer: FeedPerson;
  invitees: FeedPerson[];
  updatedAt: string;
}

type RawFeedMeeting = {
  id: number;
  project_id: number;
  title: string;
  start_at: string;
  end_at: string;
  location: string | null;
  organizer_id: number;
  organizer_name: string;
  organizer_email: string;
  invitees: string;
  updated_at: string;
};

/** A meeting's invitees as a JSON array (text) of `[id, display name, email]`, by user id. */
const INVITEES: PerEngine = {
  sqlite: `(SELECT json_group_array(json_array(id, display_name, email)) FROM (
          SELECT u.id, u.display_name, u.email FROM meeting_invitees i
          JOIN users u ON u.id = i.user_id WHERE i.meeting_id = m.id ORDER BY u.id))`,
  postgres: `(SELECT ${pgJsonArray("json_build_array(u.id, u.display_name, u.email)", "u.id")}
          FROM meeting_invitees i JOIN users u ON u.id = i.user_id WHERE i.meeting_id = m.id)`,
};

/** Every live meeting of `projectIds`, by start and id, in one statement. */
export async function feedMeetings(
  q: Queries,
  projectIds: number[],
): Promise<FeedMeetingRow[]> {
  const rows = await q.all<RawFeedMeeting>(
    `SELECT m.id, m.project_id, m.title, m.start_at, m.end_at, m.location,
       o.id AS organizer_id, o.display_name AS organizer_name, o.email AS organizer_email,
       ${INVITEES[q.kind]} AS invitees,
       m.updated_at
     FROM meetings m JOIN users o ON o.id = m.creator_id
     WHERE m.project_id IN (${dialect(q).intsOf("?")}) AND m.deleted_at IS NULL
     ORDER BY m.start_at, m.id`,
    [JSON.stringify(projectIds)],
  );
  return rows.map((r) => ({
    id: r.id,
    projectId: r.project_id,
    title: r.title,
    startAt: r.start_at,
    endAt: r.end_at,
    location: r.location,
    organizer: { id: r.organizer_id, displayName: r.organizer_name, email: r.organizer_email },
    invitees: (JSON.parse(r.invitees) as Array<[number, string, string]>).map((
      [id, displayName, email],
    ) => ({ id, displayName, email })),
    updatedAt: r.updated_at,
  }));
}
