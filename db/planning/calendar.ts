/**
 * Storage of calendar events, and the calendar's range query over events, milestones, to-dos
 * (and meetings, when asked).
 */
import type { Queries } from "../kernel/engine.ts";
import type { Deletion } from "../kernel/subjects.ts";

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

type RawEvent = {
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
};

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
export async function insertEvent(
  q: Queries,
  e: Omit<EventRecord, "id" | "updatedAt">,
): Promise<number> {
  return (await q.get<{ id: number }>(
    `INSERT INTO calendar_events (project_id, creator_id, title, description, start_at, end_at,
     all_day, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    [
      e.projectId,
      e.creatorId,
      e.title,
      e.description,
      e.startAt,
      e.endAt,
      e.allDay ? 1 : 0,
      e.createdAt,
      e.createdAt,
    ],
  ))!.id;
}

/** A live event of a project. */
export async function findEvent(
  q: Queries,
  projectId: number,
  id: number,
): Promise<EventRecord | null> {
  const r = await q.get<RawEvent>(
    `${SELECT} WHERE e.id = ? AND e.project_id = ? AND e.deleted_at IS NULL`,
    [id, projectId],
  );
  return r ? toEvent(r) : null;
}

/** A project's live events, oldest first. */
export async function listEvents(q: Queries, projectId: number): Promise<EventRecord[]> {
  return (await q.all<RawEvent>(
    `${SELECT} WHERE e.project_id = ? AND e.deleted_at IS NULL ORDER BY e.created_at, e.id`,
    [projectId],
  )).map(toEvent);
}

/** Changes an event's fields. */
export async function updateEvent(
  q: Queries,
  id: number,
  c: {
    title: string;
    description: string | null;
    startAt: string;
    endAt: string;
    allDay: boolean;
    updatedAt: string;
  },
): Promise<void> {
  await q.run(
    `UPDATE calendar_events SET title = ?, description = ?, start_at = ?, end_at = ?, all_day = ?,
     updated_at = ? WHERE id = ?`,
    [c.title, c.description, c.startAt, c.endAt, c.allDay ? 1 : 0, c.updatedAt, id],
  );
}

/** Moves an event to the trash (its `updated_at` stays as it was). */
export async function deleteEvent(q: Queries, id: number, d: Deletion): Promise<void> {
  await q.run("UPDATE calendar_events SET deleted_at = ?, deleted_by = ? WHERE id = ?", [
    d.at,
    d.by,
    id,
  ]);
}

/**
 * A project's live events that overlap the open range (`startAt`, `endAt`): touching ones
 * (ending at `startAt` or starting at `endAt`) do not overlap.
 */
export async function eventsOverlapping(
  q: Queries,
  projectId: number,
  range: { startAt: string; endAt: string },
): Promise<EventRecord[]> {
  return (await q.all<RawEvent>(
    `${SELECT} WHERE e.project_id = ? AND e.deleted_at IS NULL AND e.start_at < ? AND e.end_at > ?
     ORDER BY e.start_at, e.id`,
    [projectId, range.endAt, range.startAt],
  )).map(toEvent);
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

type RawCalendar = {
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
};

/**
 * The live to-dos of a project (`i`) matching `where`, as calendar rows: one of the three
 * parts of the calendar's to-dos, each a range of an index of migration 027 (due date only,
 * start date only, both), so a month costs what it shows, not the project's size.
 */
const todoPart = (where: string) =>
  `SELECT 'todo', i.id, i.title, coalesce(i.start_date, i.due_date),
        coalesce(i.due_date, i.start_date), 1, i.completed, i.priority, i.assignee_id, NULL,
        coalesce(i.start_date, i.due_date) || 'T00:00:00.000Z'
      FROM todo_items i
      WHERE i.project_id = ?1 AND i.deleted_at IS NULL AND ${where}`;

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
export async function calendarRange(
  q: Queries,
  projectId: number,
  range: { from: string; to: string; firstDay: string; lastDay: string; meetings?: boolean },
): Promise<CalendarRow[]> {
  // ?1 project, ?2 from, ?3 to, ?4 first day, ?5 last day, ?6 meetings (1 or 0). The first
  // branch types the columns the others fill (PostgreSQL takes a bare NULL there for text).
  const rows = await q.all<RawCalendar>(
    `SELECT * FROM (
      SELECT 'event' AS type, e.id, e.title, e.start_at AS start, e.end_at AS end,
        e.all_day, CAST(NULL AS bigint) AS completed, CAST(NULL AS text) AS priority,
        CAST(NULL AS bigint) AS assignee_id, CAST(NULL AS text) AS location,
        e.start_at AS sort_key
      FROM calendar_events e
      WHERE e.project_id = ?1 AND e.deleted_at IS NULL AND e.start_at < ?3
        AND (e.end_at > ?2 OR e.start_at >= ?2)
      UNION ALL
      SELECT 'milestone', m.id, m.title, m.due_date, m.due_date, 1, NULL, NULL, NULL, NULL,
        m.due_date || 'T00:00:00.000Z'
      FROM milestones m
      WHERE m.project_id = ?1 AND m.deleted_at IS NULL
        AND m.due_date >= ?4 AND m.due_date <= ?5
      UNION ALL
      ${
      todoPart("i.start_date IS NULL AND i.due_date IS NOT NULL AND i.due_date BETWEEN ?4 AND ?5")
    }
      UNION ALL
      ${
      todoPart("i.due_date IS NULL AND i.start_date IS NOT NULL AND i.start_date BETWEEN ?4 AND ?5")
    }
      UNION ALL
      ${
      todoPart(
        "i.start_date IS NOT NULL AND i.due_date IS NOT NULL AND i.due_date >= ?4 AND i.start_date <= ?5",
      )
    }
      UNION ALL
      SELECT 'meeting', mt.id, mt.title, mt.start_at, mt.end_at, 0, NULL, NULL, NULL,
        mt.location, mt.start_at
      FROM meetings mt
      WHERE ?6 = 1 AND mt.project_id = ?1 AND mt.deleted_at IS NULL
        AND mt.start_at < ?3 AND (mt.end_at > ?2 OR mt.start_at >= ?2)
    ) AS x ORDER BY sort_key, type, id`,
    [projectId, range.from, range.to, range.firstDay, range.lastDay, range.meetings ? 1 : 0],
  );
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
