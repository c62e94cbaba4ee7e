/**
 * Storage of calendar events, and the calendar's range query over events, milestones, to-dos
 * (and meetings, when asked).
 */
import type { Database } from "./sqlite.ts";
import type { Deletion } from "./subjects.ts";

/** A live calendar event; times are ISO 8601 UTC with `Z`. */
export interface EventRecord {
  id: number;
  projectId: number;
  creatorId: number;
  title: string;
  description: string | null;
  startAt: string;
  endAt: string;
  allDay: boolean;
  createdAt: string;
  updatedAt: string;
}

interface RawEvent {
  id: number;
  project_id: number;
  creator_id: number;
  title: string;
  description: string | null;
  start_at: string;
  end_at: string;
  all_day: number;
  created_at: string;
  updated_at: string;
}

const SELECT = `SELECT e.id, e.project_id, e.creator_id, e.title, e.description, e.start_at,
  e.end_at, e.all_day, e.created_at, e.updated_at FROM calendar_events e`;

function toEvent(r: RawEvent): EventRecord {
  return {
    id: r.id,
    projectId: r.project_id,
    creatorId: r.creator_id,
    title: r.title,
    description: r.description,
    startAt: r.start_at,
    endAt: r.end_at,
    allDay: r.all_day === 1,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Inserts a calendar event. */
export function insertEvent(db: Database, e: Omit<EventRecord, "id" | "updatedAt">): number {
  return (db.sql.prepare(
    `INSERT INTO calendar_events (project_id, creator_id, title, description, start_at, end_at,
     all_day, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  ).get(
    e.projectId,
    e.creatorId,
    e.title,
    e.description,
    e.startAt,
    e.endAt,
    e.allDay ? 1 : 0,
    e.createdAt,
    e.createdAt,
  ) as { id: number }).id;
}

/** A live event of a project. */
export function findEvent(db: Database, projectId: number, id: number): EventRecord | null {
  const r = db.sql.prepare(`${SELECT} WHERE e.id = ? AND e.project_id = ? AND e.deleted_at IS NULL`)
    .get(id, projectId) as RawEvent | undefined;
  return r ? toEvent(r) : null;
}

/** A project's live events, oldest first. */
export function listEvents(db: Database, projectId: number): EventRecord[] {
  return (db.sql.prepare(
    `${SELECT} WHERE e.project_id = ? AND e.deleted_at IS NULL ORDER BY e.created_at, e.id`,
  ).all(projectId) as unknown as RawEvent[]).map(toEvent);
}

/** Changes an event's fields. */
export function updateEvent(
  db: Database,
  id: number,
  c: {
    title: string;
    description: string | null;
    startAt: string;
    endAt: string;
    allDay: boolean;
    updatedAt: string;
  },
): void {
  db.sql.prepare(
    `UPDATE calendar_events SET title = ?, description = ?, start_at = ?, end_at = ?, all_day = ?,
     updated_at = ? WHERE id = ?`,
  ).run(c.title, c.description, c.startAt, c.endAt, c.allDay ? 1 : 0, c.updatedAt, id);
}

/** Moves an event to the trash (its `updated_at` stays as it was). */
export function deleteEvent(db: Database, id: number, d: Deletion): void {
  db.sql.prepare("UPDATE calendar_events SET deleted_at = ?, deleted_by = ? WHERE id = ?").run(
    d.at,
    d.by,
    id,
  );
}

/**
 * A project's live events that overlap the open range (`startAt`, `endAt`): touching ones
 * (ending at `startAt` or starting at `endAt`) do not overlap.
 */
export function eventsOverlapping(
  db: Database,
  projectId: number,
  range: { startAt: string; endAt: string },
): EventRecord[] {
  return (db.sql.prepare(
    `${SELECT} WHERE e.project_id = ? AND e.deleted_at IS NULL AND e.start_at < ? AND e.end_at > ?
     ORDER BY e.start_at, e.id`,
  ).all(projectId, range.endAt, range.startAt) as unknown as RawEvent[]).map(toEvent);
}

/** One entry of the calendar. */
export type CalendarRow =
  | {
    type: "event";
    id: number;
    title: string;
    start: string;
    end: string;
    allDay: boolean;
  }
  | {
    type: "milestone";
    id: number;
    title: string;
    start: string;
    end: string;
    allDay: true;
  }
  | {
    type: "todo";
    id: number;
    title: string;
    start: string;
    end: string;
    allDay: true;
    completed: boolean;
    priority: "low" | "normal" | "high";
    assigneeId: number | null;
  }
  | {
    type: "meeting";
    id: number;
    title: string;
    start: string;
    end: string;
    allDay: false;
    location: string | null;
  };

interface RawCalendar {
  type: "event" | "milestone" | "todo" | "meeting";
  id: number;
  title: string;
  start: string;
  end: string;
  all_day: number;
  completed: number | null;
  priority: "low" | "normal" | "high" | null;
  assignee_id: number | null;
  location: string | null;
}

/**
 * The live events, milestones and to-do items of a project whose spans intersect
 * [`from`, `to`), sorted by start (a date counting as its UTC midnight), type and id.
 *
 * An event spans [startAt, endAt); one of no length counts as its instant, so it is in
 * when `from` <= startAt < `to`. Dates are whole UTC days: a milestone spans its due
 * date, a to-do its start date to its due date (either alone when the other is missing);
 * they intersect when they reach a day from `firstDay` to `lastDay` (inclusive), the UTC
 * days the range touches. With `meetings`, live meetings are in as events are.
 */
export function calendarRange(
  db: Database,
  projectId: number,
  range: { from: string; to: string; firstDay: string; lastDay: string; meetings?: boolean },
): CalendarRow[] {
  const rows = db.sql.prepare(
    `SELECT * FROM (
      SELECT 'event' AS type, e.id, e.title, e.start_at AS start, e.end_at AS end,
        e.all_day, NULL AS completed, NULL AS priority, NULL AS assignee_id, NULL AS location,
        e.start_at AS sort_key
      FROM calendar_events e
      WHERE e.project_id = :project AND e.deleted_at IS NULL AND e.start_at < :to
        AND (e.end_at > :from OR e.start_at >= :from)
      UNION ALL
      SELECT 'milestone', m.id, m.title, m.due_date, m.due_date, 1, NULL, NULL, NULL, NULL,
        m.due_date || 'T00:00:00.000Z'
      FROM milestones m
      WHERE m.project_id = :project AND m.deleted_at IS NULL
        AND m.due_date >= :firstDay AND m.due_date <= :lastDay
      UNION ALL
      SELECT 'todo', i.id, i.title, coalesce(i.start_date, i.due_date),
        coalesce(i.due_date, i.start_date), 1, i.completed, i.priority, i.assignee_id, NULL,
        coalesce(i.start_date, i.due_date) || 'T00:00:00.000Z'
      FROM todo_items i
      WHERE i.project_id = :project AND i.deleted_at IS NULL
        AND coalesce(i.start_date, i.due_date) <= :lastDay
        AND coalesce(i.due_date, i.start_date) >= :firstDay
      UNION ALL
      SELECT 'meeting', mt.id, mt.title, mt.start_at, mt.end_at, 0, NULL, NULL, NULL,
        mt.location, mt.start_at
      FROM meetings mt
      WHERE :meetings = 1 AND mt.project_id = :project AND mt.deleted_at IS NULL
        AND mt.start_at < :to AND (mt.end_at > :from OR mt.start_at >= :from)
    ) ORDER BY sort_key, type, id`,
  ).all({
    project: projectId,
    from: range.from,
    to: range.to,
    firstDay: range.firstDay,
    lastDay: range.lastDay,
    meetings: range.meetings ? 1 : 0,
  }) as unknown as RawCalendar[];
  return rows.map((r): CalendarRow => {
    const base = { id: r.id, title: r.title, start: r.start, end: r.end };
    if (r.type === "event") return { type: "event", ...base, allDay: r.all_day === 1 };
    if (r.type === "milestone") return { type: "milestone", ...base, allDay: true };
    if (r.type === "meeting") {
      return { type: "meeting", ...base, allDay: false, location: r.location };
    }
    return {
      type: "todo",
      ...base,
      allDay: true,
      completed: r.completed === 1,
      priority: r.priority ?? "normal",
      assigneeId: r.assignee_id,
    };
  });
}
