/** Unit tests of `calendarView`: which days a month or week shows, and each day's entries. */
import assert from "node:assert/strict";
import type { CalendarItem } from "../../../domain/planning/calendar.ts";
import { calendarView, type ViewQuery } from "../../../domain/planning/calendar_view.ts";
import { DomainError } from "../../../domain/kernel/errors.ts";

const TODAY = "2026-11-22"; // a Sunday

/** The view of `query` with `items`, and the range it asked them for. */
function viewOf(query: ViewQuery, items: CalendarItem[] = [], today = TODAY) {
  const asked: { from: string; to: string }[] = [];
  const view = calendarView(query, today, (range) => {
    asked.push(range);
    return items;
  });
  return { view, asked };
}

const dates = (week: { date: string }[]) => week.map((day) => day.date);
const event = (id: number, start: string, end: string, allDay = false): CalendarItem => ({
  type: "event",
  id,
  title: `event ${id}`,
  start,
  end,
  allDay,
});

Deno.test("calendarView: a month shows its weeks from the Monday on or before the 1st to the Sunday on or after its last day", () => {
  const { view, asked } = viewOf({ view: "month", month: "2026-11" });
  assert.equal(view.month, "2026-11");
  assert.equal(view.weeks.length, 6);
  assert.deepEqual(dates(view.weeks[0]!), [
    "2026-10-26",
    "2026-10-27",
    "2026-10-28",
    "2026-10-29",
    "2026-10-30",
    "2026-10-31",
    "2026-11-01",
  ]);
  assert.equal(view.weeks.at(-1)!.at(-1)!.date, "2026-12-06");
  assert.deepEqual(asked, [{ from: "2026-10-26T00:00:00.000Z", to: "2026-12-07T00:00:00.000Z" }]);
  assert.equal(view.prev, "2026-10");
  assert.equal(view.next, "2026-12");
});

Deno.test("calendarView: a month starting on a Monday and ending on a Sunday shows exactly its days", () => {
  // February 2027 starts on a Monday and has 28 days.
  const { view } = viewOf({ view: "month", month: "2027-02" });
  assert.equal(view.weeks.length, 4);
  assert.equal(view.weeks[0]![0]!.date, "2027-02-01");
  assert.equal(view.weeks[3]![6]!.date, "2027-02-28");
});

Deno.test("calendarView: the months before January and after December are in the next and previous years", () => {
  assert.equal(viewOf({ view: "month", month: "2026-01" }).view.prev, "2025-12");
  assert.equal(viewOf({ view: "month", month: "2026-12" }).view.next, "2027-01");
  // A leap February ends on the 29th.
  const leap = viewOf({ view: "month", month: "2028-02" }).view;
  assert.ok(leap.weeks.flat().some((day) => day.date === "2028-02-29"));
  assert.ok(leap.weeks.flat().some((day) => day.date === "2028-03-01"));
});

Deno.test("calendarView: no month means today's, and the week to switch to is today's when today is in the month", () => {
  const current = viewOf({ view: "month" }).view;
  assert.equal(current.month, "2026-11");
  assert.equal(current.week, "2026-11-16");
  assert.equal(current.thisWeek, "2026-11-16");
  const other = viewOf({ view: "month", month: "2027-03" }).view;
  assert.equal(other.week, "2027-03-01", "the Monday on or before the 1st");
  assert.equal(other.thisWeek, "2026-11-16");
});

Deno.test("calendarView: a week starts on the Monday of the asked date and runs to Sunday", () => {
  for (const date of ["2026-11-23", "2026-11-25", "2026-11-29"]) {
    const { view, asked } = viewOf({ view: "week", date });
    assert.equal(view.week, "2026-11-23", date);
    assert.equal(view.weeks.length, 1);
    assert.deepEqual(dates(view.weeks[0]!), [
      "2026-11-23",
      "2026-11-24",
      "2026-11-25",
      "2026-11-26",
      "2026-11-27",
      "2026-11-28",
      "2026-11-29",
    ]);
    assert.deepEqual(asked, [{ from: "2026-11-23T00:00:00.000Z", to: "2026-11-30T00:00:00.000Z" }]);
    assert.equal(view.prev, "2026-11-16");
    assert.equal(view.next, "2026-11-30");
  }
  // A week across a month's end belongs to its Monday's month.
  const across = viewOf({ view: "week", date: "2026-12-02" }).view;
  assert.equal(across.week, "2026-11-30");
  assert.equal(across.month, "2026-11");
  // No date means today's week; today is a Sunday, so the week began six days before.
  assert.equal(viewOf({ view: "week" }).view.week, "2026-11-16");
});

Deno.test("calendarView: a month or date that is not valid is refused with validation", () => {
  const refused = (query: ViewQuery, field: string) =>
    assert.throws(
      () => viewOf(query),
      (error: unknown) =>
        error instanceof DomainError && error.code === "validation" &&
        error.details?.[field] !== undefined,
      JSON.stringify(query),
    );
  for (const month of ["2026-13", "2026-00", "1969-12", "2026-1", "november", "2026-11-01"]) {
    refused({ view: "month", month }, "month");
  }
  for (const date of ["2026-02-30", "2026-13-01", "1969-12-31", "2026-11", "yesterday"]) {
    refused({ view: "week", date }, "date");
  }
});

Deno.test("calendarView: a timed event reaches each UTC day it runs into, and its end is exclusive", () => {
  const items = [
    event(1, "2026-11-20T22:00:00.000Z", "2026-11-21T01:00:00.000Z"),
    event(2, "2026-11-24T09:00:00.000Z", "2026-11-25T00:00:00.000Z"),
  ];
  const week = (date: string) =>
    viewOf({ view: "week", date }, items).view.weeks[0]!.map((day) => ({
      date: day.date,
      entries: day.entries.map((e) => `${e.item.id}:${e.part}`),
    })).filter((day) => day.entries.length > 0);
  assert.deepEqual(week("2026-11-20"), [
    { date: "2026-11-20", entries: ["1:starts"] },
    { date: "2026-11-21", entries: ["1:continues"] },
  ]);
  assert.deepEqual(week("2026-11-24"), [{ date: "2026-11-24", entries: ["2:within"] }]);
});

Deno.test("calendarView: all-day events, milestones and to-dos cover whole days and come first", () => {
  const items: CalendarItem[] = [
    event(1, "2026-11-24T08:00:00.000Z", "2026-11-24T09:00:00.000Z"),
    event(2, "2026-11-23T00:00:00.000Z", "2026-11-26T00:00:00.000Z", true),
    {
      type: "milestone",
      id: 3,
      title: "Beta",
      start: "2026-11-24",
      end: "2026-11-24",
      allDay: true,
    },
    {
      type: "todo",
      id: 4,
      title: "Docs",
      start: "2026-11-23",
      end: "2026-11-25",
      allDay: true,
      completed: false,
      priority: "normal",
      assigneeId: null,
    } as CalendarItem,
    event(5, "2026-11-24T07:00:00.000Z", "2026-11-24T07:00:00.000Z"),
  ];
  const days = viewOf({ view: "week", date: "2026-11-23" }, items).view.weeks[0]!;
  const on = (date: string) =>
    days.find((day) => day.date === date)!.entries.map((e) =>
      `${e.item.type}${e.item.id}:${e.part}`
    );
  assert.deepEqual(on("2026-11-23"), ["event2:all_day", "todo4:all_day"]);
  // Whole-day entries in the range's order, then the timed ones by their start.
  assert.deepEqual(on("2026-11-24"), [
    "event2:all_day",
    "milestone3:all_day",
    "todo4:all_day",
    "event5:within",
    "event1:within",
  ]);
  assert.deepEqual(on("2026-11-25"), ["event2:all_day", "todo4:all_day"]);
  assert.deepEqual(
    on("2026-11-26"),
    [],
    "an all-day event ends at the midnight after its last day",
  );
});

/** The view of `query` seen from `zone`, and the range it asked for. */
function viewIn(zone: string, query: ViewQuery, items: CalendarItem[], today = TODAY) {
  const asked: { from: string; to: string }[] = [];
  const view = calendarView(query, today, (range) => {
    asked.push(range);
    return items;
  }, zone);
  return { view, asked };
}

const dayOf = (
  view: { weeks: { date: string; entries: { item: CalendarItem; part: string }[] }[][] },
  date: string,
) =>
  view.weeks.flat().find((day) => day.date === date)!.entries.map((e) => `${e.item.id}:${e.part}`);

Deno.test("calendarView: a timed event falls on the day it starts in the viewer's zone", () => {
  // 20:00 UTC on Sunday the 22nd is 05:00 on Monday the 23rd in Tokyo.
  const evening = event(1, "2026-11-22T20:00:00.000Z", "2026-11-22T21:00:00.000Z");
  const utc = viewIn("UTC", { view: "week", date: "2026-11-16" }, [evening]).view;
  assert.deepEqual(dayOf(utc, "2026-11-22"), ["1:within"]);
  const tokyo = viewIn("Asia/Tokyo", { view: "week", date: "2026-11-23" }, [evening]).view;
  assert.deepEqual(dayOf(tokyo, "2026-11-23"), ["1:within"]);
  const before = viewIn("Asia/Tokyo", { view: "week", date: "2026-11-16" }, [evening]).view;
  assert.deepEqual(dayOf(before, "2026-11-22"), []);
});

Deno.test("calendarView: an event crossing the viewer's midnight starts one day and continues the next", () => {
  // 22:00–02:00 in New York (EST) is 03:00–07:00 UTC: one UTC day, two New York days.
  const late = event(2, "2026-11-20T03:00:00.000Z", "2026-11-20T07:00:00.000Z");
  const ny = viewIn("America/New_York", { view: "week", date: "2026-11-16" }, [late]).view;
  assert.deepEqual(dayOf(ny, "2026-11-19"), ["2:starts"]);
  assert.deepEqual(dayOf(ny, "2026-11-20"), ["2:continues"]);
  const utc = viewIn("UTC", { view: "week", date: "2026-11-16" }, [late]).view;
  assert.deepEqual(dayOf(utc, "2026-11-20"), ["2:within"]);
  assert.deepEqual(dayOf(utc, "2026-11-19"), []);
});

Deno.test("calendarView: all-day items stay on their dates in every zone", () => {
  const holiday = event(3, "2026-11-18", "2026-11-18", true);
  for (const zone of ["UTC", "Asia/Tokyo", "America/New_York"]) {
    const { view } = viewIn(zone, { view: "week", date: "2026-11-16" }, [holiday]);
    assert.deepEqual(dayOf(view, "2026-11-18"), ["3:all_day"], zone);
    assert.deepEqual(dayOf(view, "2026-11-17"), [], zone);
    assert.deepEqual(dayOf(view, "2026-11-19"), [], zone);
  }
});

Deno.test("calendarView: the shown days are asked for from the viewer's midnights", () => {
  const { asked } = viewIn("Asia/Tokyo", { view: "week", date: "2026-11-23" }, []);
  assert.deepEqual(asked, [{ from: "2026-11-22T15:00:00.000Z", to: "2026-11-29T15:00:00.000Z" }]);
  // Berlin's week of its autumn change is an hour longer than seven days.
  const berlin = viewIn("Europe/Berlin", { view: "week", date: "2026-10-21" }, []).asked;
  assert.deepEqual(berlin, [{ from: "2026-10-18T22:00:00.000Z", to: "2026-10-25T23:00:00.000Z" }]);
});
