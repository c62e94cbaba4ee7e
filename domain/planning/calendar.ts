/**
 * Calendar events, the project calendar (events, milestones and to-dos in a range), and
 * the time rules the planning modules share: instants are stored as ISO 8601 UTC with
 * `Z`, calendar dates as `YYYY-MM-DD`, and a date counts as a whole UTC day.
 */
import {
  calendarRange,
  type CalendarRow,
  deleteEvent,
  type EventRecord,
  findEvent,
  insertEvent,
  listEvents,
  updateEvent,
} from "../../db/planning/calendar.ts";
import type { Queries } from "../../db/kernel/engine.ts";
import { userTimeZone } from "../../db/accounts/users.ts";
import { projectAccess, requireWrite } from "../accounts/access.ts";
import type { Actor } from "../accounts/accounts.ts";
import { type DomainContext, emits, runAction } from "../projects/actions.ts";
import { type CalendarView, calendarView, shownRange, type ViewQuery } from "./calendar_view.ts";
import { utcDay } from "../kernel/days.ts";
import { DomainError, invalid, outOfOrder } from "../kernel/errors.ts";
import type { TrashRef } from "../projects/trash.ts";
import { DEFAULT_TIME_ZONE, todayInZone } from "../kernel/time_zones.ts";

/** A calendar event as the API shows it. */
export type CalendarEvent = EventRecord;
/** One entry of the project calendar. */
export type CalendarItem = CalendarRow;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([+-])(\d{2}):?(\d{2}))$/i;

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : MONTH_DAYS[month - 1]!;
}

/** Milliseconds since the epoch of a valid UTC date-time, or null. */
function utcMs(
  parts: { year: number; month: number; day: number; hour: number; minute: number },
  seconds: number,
  ms: number,
): number | null {
  const { year, month, day, hour, minute } = parts;
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null;
  if (hour > 23 || minute > 59 || seconds > 59) return null;
  // Date.UTC maps years 0..99 to 1900..1999; set the year separately.
  const date = new Date(Date.UTC(2000, month - 1, day, hour, minute, seconds, ms));
  date.setUTCFullYear(year);
  return date.getTime();
}

/** Checks a `YYYY-MM-DD` calendar date, or throws `validation` for `field`. */
export function parseDate(field: string, value: string): string {
  const m = DATE.exec(value);
  if (
    !m || utcMs({ year: +m[1]!, month: +m[2]!, day: +m[3]!, hour: 0, minute: 0 }, 0, 0) === null
  ) {
    throw invalid(field, "Use a calendar date as YYYY-MM-DD");
  }
  return value;
}

/**
 * Reads an ISO 8601 timestamp with `Z` or an offset (or a `YYYY-MM-DD` date, meaning its
 * UTC midnight) and returns it in UTC with `Z`; throws `validation` for `field`. A time
 * without an offset is refused: which zone it means is unknowable.
 */
export function parseInstant(field: string, value: string): string {
  const date = DATE.exec(value);
  if (date) return `${parseDate(field, value)}T00:00:00.000Z`;
  const m = INSTANT.exec(value);
  const fail = () => invalid(field, "Use an ISO 8601 timestamp with Z or an offset");
  if (!m) throw fail();
  const fraction = Math.floor(Number(`0.${m[7] ?? "0"}`) * 1000);
  const local = utcMs(
    { year: +m[1]!, month: +m[2]!, day: +m[3]!, hour: +m[4]!, minute: +m[5]! },
    +(m[6] ?? "0"),
    fraction,
  );
  if (local === null) throw fail();
  let offsetMinutes = 0;
  if (!m[8]) {
    const hours = +m[10]!;
    const minutes = +m[11]!;
    if (hours > 23 || minutes > 59) throw fail();
    offsetMinutes = (m[9] === "-" ? -1 : 1) * (hours * 60 + minutes);
  }
  const at = new Date(local - offsetMinutes * 60_000);
  const year = at.getUTCFullYear();
  if (year < 1 || year > 9999) throw fail();
  return at.toISOString();
}

/** Throws `validation` on `endAt` when it lies before `startAt` (both in UTC with `Z`). */
export function requireOrdered(startAt: string, endAt: string): void {
  if (Date.parse(endAt) < Date.parse(startAt)) {
    throw outOfOrder("endAt", "before_start", "Cannot save: the end lies before the start");
  }
}

/** A trimmed, non-blank text, or `validation` for `field`. */
export function nonBlank(field: string, value: string): string {
  const trimmed = value.trim();
  if (!trimmed) throw invalid(field, "Cannot be blank");
  return trimmed;
}

/** The calendar operations. */
export function createCalendar(ctx: DomainContext) {
  const { db } = ctx;
  const event = async (q: Queries, projectId: number, id: number): Promise<EventRecord> => {
    const row = await findEvent(q, projectId, id);
    if (!row) throw new DomainError("not_found", "No such event");
    return row;
  };

  const operations = {
    /**
     * Events, milestones and to-dos whose spans intersect [`from`, `to`): each an ISO
     * timestamp or a `YYYY-MM-DD` date (its UTC midnight). Sorted by start, type, id.
     */
    async range(
      actor: Actor,
      projectId: number,
      query: { from?: string | undefined; to?: string | undefined; include?: string | undefined },
    ): Promise<CalendarItem[]> {
      await projectAccess(db, actor, projectId);
      // `include` names what else to show; meetings are the one thing there is.
      if (query.include !== undefined && query.include !== "meetings") {
        throw invalid("include", "Use include=meetings");
      }
      if (query.from === undefined || query.from === "") throw invalid("from", "Required");
      if (query.to === undefined || query.to === "") throw invalid("to", "Required");
      const from = parseInstant("from", query.from);
      const to = parseInstant("to", query.to);
      if (Date.parse(from) >= Date.parse(to)) {
        throw outOfOrder("to", "not_after_start", "Cannot read the range: to must be after from");
      }
      return await calendarRange(db, projectId, {
        from,
        to,
        firstDay: utcDay(from),
        // The last day the range reaches: `to` is exclusive.
        lastDay: utcDay(new Date(Date.parse(to) - 1).toISOString()),
        meetings: query.include === "meetings",
      });
    },

    /**
     * The project calendar as a month or a week, seen today by the clock in the caller's time
     * zone (see `calendarView`); a month or date that is not valid is refused with `validation`.
     */
    async view(actor: Actor, projectId: number, query: ViewQuery): Promise<CalendarView> {
      const zone = (await userTimeZone(db, actor.id)) ?? DEFAULT_TIME_ZONE;
      const today = todayInZone(ctx.clock.now(), zone);
      // The entries of the range the view shows are loaded first (`calendarView` is
      // synchronous); an invalid month or date is refused before they are, as before.
      const range = shownRange(query, today, zone);
      // The pages show one schedule: meetings with the events.
      const items = await operations.range(actor, projectId, { ...range, include: "meetings" });
      return calendarView(query, today, () => items, zone);
    },

    /** A project's events, oldest first. */
    async list(actor: Actor, projectId: number): Promise<CalendarEvent[]> {
      await projectAccess(db, actor, projectId);
      return await listEvents(db, projectId);
    },

    /** Creates an event (members). */
    create(
      actor: Actor,
      projectId: number,
      input: {
        title: string;
        description?: string | null | undefined;
        startAt: string;
        endAt: string;
        allDay?: boolean | undefined;
      },
    ): Promise<CalendarEvent> {
      return runAction(ctx, emits("calendar.event.created"), async (tx, fx) => {
        requireWrite(await projectAccess(tx, actor, projectId));
        const startAt = parseInstant("startAt", input.startAt);
        const endAt = parseInstant("endAt", input.endAt);
        requireOrdered(startAt, endAt);
        const id = await insertEvent(tx, {
          projectId,
          creatorId: actor.id,
          title: nonBlank("title", input.title),
          description: input.description ?? null,
          startAt,
          endAt,
          allDay: input.allDay ?? false,
          createdAt: fx.now,
        });
        const created = await event(tx, projectId, id);
        fx.event(projectId, "calendar.event.created", created);
        return created;
      });
    },

    /** One event. */
    async get(actor: Actor, projectId: number, eventId: number): Promise<CalendarEvent> {
      await projectAccess(db, actor, projectId);
      return await event(db, projectId, eventId);
    },

    /** Edits an event (members): absent fields stay, `null` clears the description. */
    update(
      actor: Actor,
      projectId: number,
      input: {
        eventId: number;
        title?: string | undefined;
        description?: string | null | undefined;
        startAt?: string | undefined;
        endAt?: string | undefined;
        allDay?: boolean | undefined;
      },
    ): Promise<CalendarEvent> {
      return runAction(ctx, emits("calendar.event.updated"), async (tx, fx) => {
        requireWrite(await projectAccess(tx, actor, projectId));
        const row = await event(tx, projectId, input.eventId);
        const startAt = input.startAt === undefined
          ? row.startAt
          : parseInstant("startAt", input.startAt);
        const endAt = input.endAt === undefined ? row.endAt : parseInstant("endAt", input.endAt);
        requireOrdered(startAt, endAt);
        await updateEvent(tx, row.id, {
          title: input.title === undefined ? row.title : nonBlank("title", input.title),
          description: input.description === undefined ? row.description : input.description,
          startAt,
          endAt,
          allDay: input.allDay ?? row.allDay,
          updatedAt: fx.now,
        });
        const updated = await event(tx, projectId, row.id);
        fx.event(projectId, "calendar.event.updated", updated);
        return updated;
      });
    },

    /** Moves an event to the trash (members); returns the trash entry. */
    remove(actor: Actor, projectId: number, eventId: number): Promise<TrashRef> {
      return runAction(ctx, emits("calendar.event.deleted"), async (tx, fx) => {
        requireWrite(await projectAccess(tx, actor, projectId));
        const id = (await event(tx, projectId, eventId)).id;
        await deleteEvent(tx, id, { at: fx.now, by: actor.id });
        fx.event(projectId, "calendar.event.deleted", { id, projectId });
        return { type: "event", id };
      });
    },
  };
  return operations;
}

/** The calendar operations' type. */
export type Calendar = ReturnType<typeof createCalendar>;
