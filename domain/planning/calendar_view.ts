/**
 * The project calendar as a month or a week: which days a view shows (a month's weeks, Monday
 * to Sunday, or one week), which day each entry falls on, and the views before and after. The
 * days are the viewer's: a timed event or meeting falls on the days it reaches in the viewer's
 * time zone, and the shown days begin at the zone's midnights; whole-day entries (milestones,
 * to-dos, all-day events) stay on their dates.
 */
import type { CalendarRow } from "../../db/planning/calendar.ts";
import { addDays, mondayOf } from "../kernel/days.ts";
import { invalid } from "../kernel/errors.ts";
import { dateInZone, DEFAULT_TIME_ZONE, startOfDayInZone } from "../kernel/time_zones.ts";

/** What a caller asks to see: a month (`YYYY-MM`), or the week of a date; absent means today's. */
export interface ViewQuery {
  view: "month" | "week";
  month?: string | undefined;
  date?: string | undefined;
}

/**
 * How an entry meets a day: a whole-day entry (`all_day`), a timed event starting that day and
 * ending on a later one (`starts`), starting and ending that day (`within`), or running on from
 * an earlier day (`continues`).
 */
export type DayPart = "all_day" | "starts" | "within" | "continues";

/** One entry of one shown day. */
export interface DayEntry {
  item: CalendarRow;
  part: DayPart;
}

/** A shown day and its entries. */
export interface CalendarDay {
  date: string;
  entries: DayEntry[];
}

/** The days a calendar view shows and their entries. */
export interface CalendarView {
  view: "month" | "week";
  /** The shown month (`YYYY-MM`); in the week view, its Monday's month. */
  month: string;
  /**
   * The shown week's Monday; in the month view, the week a switch to the week view shows:
   * today's when today lies in the month, else the month's first.
   */
  week: string;
  /** Today's date in the viewer's zone, and its week's Monday. */
  today: string;
  thisWeek: string;
  /** The month (`YYYY-MM`) or the week's Monday before and after the shown one. */
  prev: string;
  next: string;
  /** The shown weeks, each Monday to Sunday: a month's, or the one week. */
  weeks: CalendarDay[][];
}

const MONTH = /^(\d{4})-(\d{2})$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A valid `YYYY-MM` (years 1970..9999), or null. */
function monthOrNull(raw: string): string | null {
  const m = MONTH.exec(raw);
  if (!m) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  return year >= 1970 && year <= 9999 && month >= 1 && month <= 12 ? raw : null;
}

/** A valid calendar date (years 1970..9999), or null. */
export function dateOrNull(raw: string | undefined): string | null {
  if (!raw || !DATE.test(raw)) return null;
  const ms = Date.parse(`${raw}T00:00:00Z`);
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== raw) return null;
  const year = Number(raw.slice(0, 4));
  return year >= 1970 && year <= 9999 ? raw : null;
}

/** `month` (`YYYY-MM`) moved by `delta` months. */
export function monthAdd(month: string, delta: number): string {
  const [y, m] = month.split("-").map(Number) as [number, number];
  const index = y * 12 + (m - 1) + delta;
  return `${String(Math.floor(index / 12)).padStart(4, "0")}-${
    String(index % 12 + 1).padStart(2, "0")
  }`;
}

/** The last day in `zone` an instant range reaches (`end` is exclusive; empty: its start's). */
function lastDayIn(start: string, end: string, zone: string): string {
  const endMs = Date.parse(end);
  return endMs > Date.parse(start)
    ? dateInZone(new Date(endMs - 1), zone)
    : dateInZone(start, zone);
}

/** The first and last day an entry reaches: its dates, or for times, the days in `zone`. */
function daysOf(item: CalendarRow, zone: string): { first: string; last: string } {
  if (item.start.length === 10) return { first: item.start, last: item.end.slice(0, 10) };
  if (item.allDay) {
    // An all-day event stored as instants keeps the UTC dates it was given.
    return { first: item.start.slice(0, 10), last: lastDayIn(item.start, item.end, "UTC") };
  }
  return { first: dateInZone(item.start, zone), last: lastDayIn(item.start, item.end, zone) };
}

/** An entry with the days it reaches, worked out once per view. */
interface Placed {
  item: CalendarRow;
  first: string;
  last: string;
  /** Whether it has times (events and meetings not all day), not just dates. */
  timed: boolean;
}

/** `item` with the days it reaches in `zone`. */
function place(item: CalendarRow, zone: string): Placed {
  // Events and meetings have times; milestones and to-dos are whole days.
  const timed = (item.type === "event" || item.type === "meeting") && !item.allDay &&
    item.start.length !== 10;
  return { item, timed, ...daysOf(item, zone) };
}

/** How a placed entry meets `day`, a day it reaches. */
function partOf({ timed, first, last }: Placed, day: string): DayPart {
  if (!timed) return "all_day";
  if (first !== day) return "continues";
  return last === day ? "within" : "starts";
}

/**
 * Each shown day's entries. Within a day: whole-day entries (and events going on since an
 * earlier day) first, then the events starting that day by their time; otherwise in the
 * order of `items`.
 */
function entriesOf(placed: Placed[], day: string): DayEntry[] {
  const entries = placed.filter(({ first, last }) => day >= first && day <= last)
    .map((p) => ({ item: p.item, part: partOf(p, day) }));
  const key = ({ item, part }: DayEntry) =>
    part === "starts" || part === "within" ? item.start : "";
  return entries.sort((a, b) => key(a).localeCompare(key(b)));
}

/** The shown month and week of a view, and its first and last shown days. */
interface Frame {
  month: string;
  week: string;
  first: string;
  last: string;
}

/** Which days `query` shows on `today`; a month or date that is not valid is `validation`. */
function frameOf(query: ViewQuery, today: string): Frame {
  const thisWeek = mondayOf(today);
  let month: string;
  let week: string;
  let first: string;
  let last: string;
  if (query.view === "week") {
    const asked = query.date ? dateOrNull(query.date) : today;
    if (asked === null) throw invalid("date", "Use a calendar date as YYYY-MM-DD");
    week = mondayOf(asked);
    month = week.slice(0, 7);
    first = week;
    last = addDays(week, 6);
  } else {
    const asked = query.month ? monthOrNull(query.month) : today.slice(0, 7);
    if (asked === null) throw invalid("month", "Use a month as YYYY-MM");
    month = asked;
    week = today.startsWith(month) ? thisWeek : mondayOf(`${month}-01`);
    first = mondayOf(`${month}-01`);
    last = addDays(mondayOf(addDays(`${monthAdd(month, 1)}-01`, -1)), 6);
  }
  return { month, week, first, last };
}

/** The instants a view shows: from its first day's midnight to the midnight after its last. */
function rangeOf({ first, last }: Frame, zone: string): { from: string; to: string } {
  return { from: startOfDayInZone(first, zone), to: startOfDayInZone(addDays(last, 1), zone) };
}

/**
 * The range of instants the calendar `query` shows, seen on `today` by a viewer in `zone` (what
 * `calendarView` asks `itemsIn` for), so that a caller can load the entries beforehand. A month
 * or date that is not valid is refused with `validation`.
 */
export function shownRange(
  query: ViewQuery,
  today: string,
  zone: string = DEFAULT_TIME_ZONE,
): { from: string; to: string } {
  return rangeOf(frameOf(query, today), zone);
}

/**
 * The calendar `query` asks for, seen on `today` (the viewer's date) by a viewer in `zone`,
 * with the entries `itemsIn` gives for the shown days (from the first day's midnight to the
 * midnight after the last, in `zone`; see `shownRange`). A month or date that is not valid is
 * refused with `validation`.
 */
export function calendarView(
  query: ViewQuery,
  today: string,
  itemsIn: (range: { from: string; to: string }) => CalendarRow[],
  zone: string = DEFAULT_TIME_ZONE,
): CalendarView {
  const thisWeek = mondayOf(today);
  const frame = frameOf(query, today);
  const { month, week, first, last } = frame;
  const items = itemsIn(rangeOf(frame, zone));
  const placed = items.map((item) => place(item, zone));
  const weeks: CalendarDay[][] = [];
  for (let monday = first; monday <= last; monday = addDays(monday, 7)) {
    weeks.push(Array.from({ length: 7 }, (_, i) => {
      const date = addDays(monday, i);
      return { date, entries: entriesOf(placed, date) };
    }));
  }
  const isWeek = query.view === "week";
  return {
    view: query.view,
    month,
    week,
    today,
    thisWeek,
    prev: isWeek ? addDays(week, -7) : monthAdd(month, -1),
    next: isWeek ? addDays(week, 7) : monthAdd(month, 1),
    weeks,
  };
}
