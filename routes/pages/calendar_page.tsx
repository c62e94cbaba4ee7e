/**
 * The project calendar: a month grid (`?month=2026-11`) and a week agenda
 * (`?view=week&week=2026-11-16`) of the events, milestones and to-dos that
 * `services.calendar.range` returns for the shown UTC days, with the new-event form; and an
 * event's page with its edit and delete forms. Every time is shown and entered in UTC, the
 * zone calendar dates count in. Forms work without JavaScript: POST, then 303.
 */
import type { Context } from "hono";
import { addDays, type CalendarEvent, type CalendarItem, utcDay } from "../../domain/calendar.ts";
import type { Services } from "../../domain/services.ts";
import type { AppEnv } from "../api/openapi.ts";
import { CalendarEventInput } from "../api/planning.ts";
import { formatDay, formatSpan, formatTime, formatUtc, lastDayOf } from "../i18n/format.ts";
import type { Locale, Translate } from "../i18n/i18n.ts";
import { type AreaPage, areaRoutes, nameOf, paramId, type ProjectFrame } from "./kit/area.tsx";
import { BackLink, Markdown, subjectHref, Time } from "./kit/content.tsx";
import { DATE, inputValue, readInstant, todayOf } from "./kit/dates.ts";
import {
  Checkbox,
  DateTimeField,
  EditAndDelete,
  type FormState,
  formState,
  MarkdownField,
  NewForm,
  TextField,
} from "./kit/fields.tsx";
import { checked, type Fields, orNull } from "./kit/forms.ts";
import { Alert } from "./kit/layout.tsx";
import { afterDelete } from "./kit/notices.tsx";

type Ctx = Context<AppEnv>;

/** Entries shown in one day of the month grid before "+N more". */
const DAY_LIMIT = 4;
const MONTH = /^(\d{4})-(\d{2})$/;

/** The Monday on or before a date. */
function mondayOf(date: string): string {
  const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
  return addDays(date, -((weekday + 6) % 7));
}

/** A valid `YYYY-MM` (years 1970..9999), or null. */
function readMonth(raw: string | undefined): string | null {
  const m = MONTH.exec(raw ?? "");
  if (!m) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  return year >= 1970 && year <= 9999 && month >= 1 && month <= 12 ? raw! : null;
}

/** A valid date (years 1970..9999), or null. */
function readDate(raw: string | undefined): string | null {
  if (!raw || !DATE.test(raw)) return null;
  const ms = Date.parse(`${raw}T00:00:00Z`);
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== raw) return null;
  const year = Number(raw.slice(0, 4));
  return year >= 1970 && year <= 9999 ? raw : null;
}

function monthAdd(month: string, delta: number): string {
  const [y, m] = month.split("-").map(Number) as [number, number];
  const index = y * 12 + (m - 1) + delta;
  return `${String(Math.floor(index / 12)).padStart(4, "0")}-${
    String(index % 12 + 1).padStart(2, "0")
  }`;
}

const monthLabel = (month: string, locale: Locale) =>
  formatUtc(`${month}-01`, locale, { year: "numeric", month: "long" });
const weekdayLabel = (date: string, locale: Locale, weekday: "short" | "long") =>
  formatUtc(date, locale, { weekday });

/** The first and last UTC day an entry reaches. */
function daysOf(item: CalendarItem): { first: string; last: string } {
  if (item.start.length === 10) return { first: item.start, last: item.end.slice(0, 10) };
  return { first: utcDay(item.start), last: lastDayOf(item.start, item.end) };
}

/** Each shown day's entries, in the range's order. */
function byDay(items: CalendarItem[], days: string[]): Map<string, CalendarItem[]> {
  const map = new Map<string, CalendarItem[]>(days.map((d) => [d, []]));
  for (const item of items) {
    const { first, last } = daysOf(item);
    for (const day of days) {
      if (day >= first && day <= last) map.get(day)!.push(item);
    }
  }
  // Within a day: whole-day entries (and events going on since an earlier day) first, then
  // the events starting that day by their time; otherwise in the range's order.
  for (const [day, list] of map) {
    const key = (item: CalendarItem) => startsOn(item, day) ? item.start : "";
    list.sort((a, b) => key(a).localeCompare(key(b)));
  }
  return map;
}

/** Whether an entry is a timed event starting on `day`. */
function startsOn(item: CalendarItem, day: string): boolean {
  return item.type === "event" && !item.allDay && item.start.length > 10 &&
    utcDay(item.start) === day;
}

/** An entry's time on `day` in the agenda: its times, its span, or "all day". */
function agendaWhen(item: CalendarItem, day: string, t: Translate, locale: Locale): string {
  if (item.type !== "event" || item.allDay || item.start.length === 10) return t("calendar.allDay");
  if (startsOn(item, day) && lastDayOf(item.start, item.end) === day) {
    return item.start === item.end
      ? formatTime(item.start, locale)
      : `${formatTime(item.start, locale)} – ${formatTime(item.end, locale)}`;
  }
  return formatSpan(item, locale);
}

function CalendarEntry(props: { frame: ProjectFrame; item: CalendarItem; day: string }) {
  const { frame, item, day } = props;
  const { t, locale } = frame.ctx;
  const done = item.type === "todo" && item.completed;
  const startsToday = startsOn(item, day);
  return (
    <li
      class={`cal-item cal-${item.type}${done ? " done" : ""}`}
      data-cal-item={`${item.type}-${item.id}`}
    >
      <span class="cal-kind">{t(`calendar.kind.${item.type}`)}</span>{" "}
      {startsToday ? <span class="cal-time">{formatTime(item.start, locale)}</span> : null}{" "}
      <a href={subjectHref(frame.project.id, item.type, item.id)!}>{item.title}</a>
    </li>
  );
}

interface CalendarView {
  view: "month" | "week";
  /** The shown month (`YYYY-MM`), for the month view. */
  month: string;
  /** The shown week's Monday, for the week view. */
  week: string;
  /** Every shown day, in order. */
  days: string[];
  items: CalendarItem[];
  today: string;
}

function CalendarNav(props: { frame: ProjectFrame; view: CalendarView }) {
  const { frame, view } = props;
  const { t, locale } = frame.ctx;
  const base = `/projects/${frame.project.id}/calendar`;
  const monthHref = (m: string) => `${base}?month=${m}`;
  const weekHref = (w: string) => `${base}?view=week&week=${w}`;
  const isMonth = view.view === "month";
  const title = isMonth
    ? monthLabel(view.month, locale)
    : t("calendar.weekOf", { date: formatDay(view.week, locale) });
  // The week to switch to: today's when it is in the shown month, else the month's first.
  const weekForMonth = view.today.startsWith(view.month)
    ? mondayOf(view.today)
    : mondayOf(`${view.month}-01`);
  return (
    <div class="calendar-nav row">
      <h2 class="calendar-title" data-calendar-title>{title}</h2>
      <span class="spacer"></span>
      <nav class="row" aria-label={t("calendar.navigation")}>
        <a
          href={isMonth ? monthHref(monthAdd(view.month, -1)) : weekHref(addDays(view.week, -7))}
          rel="prev"
          data-calendar-prev
        >
          {isMonth ? t("calendar.prevMonth") : t("calendar.prevWeek")}
        </a>
        <a href={isMonth ? base : weekHref(mondayOf(view.today))}>{t("calendar.today")}</a>
        <a
          href={isMonth ? monthHref(monthAdd(view.month, 1)) : weekHref(addDays(view.week, 7))}
          rel="next"
          data-calendar-next
        >
          {isMonth ? t("calendar.nextMonth") : t("calendar.nextWeek")}
        </a>
      </nav>
      <nav class="filters row" aria-label={t("calendar.views")}>
        <a
          href={monthHref(isMonth ? view.month : view.week.slice(0, 7))}
          aria-current={isMonth ? "page" : undefined}
        >
          {t("calendar.month")}
        </a>
        <a
          href={weekHref(isMonth ? weekForMonth : view.week)}
          aria-current={isMonth ? undefined : "page"}
        >
          {t("calendar.week")}
        </a>
      </nav>
    </div>
  );
}

function MonthGrid(props: { frame: ProjectFrame; view: CalendarView }) {
  const { frame, view } = props;
  const { t, locale } = frame.ctx;
  const perDay = byDay(view.items, view.days);
  const weeks: string[][] = [];
  for (let i = 0; i < view.days.length; i += 7) weeks.push(view.days.slice(i, i + 7));
  const base = `/projects/${frame.project.id}/calendar`;
  return (
    <div class="table-wrap">
      <table class="calendar-month" data-calendar-month={view.month}>
        <thead>
          <tr>
            {weeks[0]!.map((day) => (
              <th scope="col" abbr={weekdayLabel(day, locale, "long")}>
                {weekdayLabel(day, locale, "short")}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {weeks.map((week) => (
            <tr>
              {week.map((day) => {
                const items = perDay.get(day) ?? [];
                const classes = [
                  "cal-day",
                  day.startsWith(view.month) ? "" : "other-month",
                  day === view.today ? "today" : "",
                ].filter(Boolean).join(" ");
                return (
                  <td class={classes} data-day={day}>
                    <a
                      class="cal-date"
                      href={`${base}?view=week&week=${mondayOf(day)}`}
                      aria-label={formatDay(day, locale)}
                      aria-current={day === view.today ? "date" : undefined}
                    >
                      {String(Number(day.slice(8)))}
                    </a>
                    {items.length > 0
                      ? (
                        <ul class="plain cal-items">
                          {items.slice(0, DAY_LIMIT).map((item) => (
                            <CalendarEntry frame={frame} item={item} day={day} />
                          ))}
                        </ul>
                      )
                      : null}
                    {items.length > DAY_LIMIT
                      ? (
                        <a class="cal-more" href={`${base}?view=week&week=${mondayOf(day)}`}>
                          {t("calendar.more", { count: items.length - DAY_LIMIT })}
                        </a>
                      )
                      : null}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function WeekAgenda(props: { frame: ProjectFrame; view: CalendarView }) {
  const { frame, view } = props;
  const { t, locale } = frame.ctx;
  const perDay = byDay(view.items, view.days);
  return (
    <ol class="plain calendar-week" data-calendar-week={view.week}>
      {view.days.map((day) => {
        const items = perDay.get(day) ?? [];
        return (
          <li class={day === view.today ? "cal-agenda-day today" : "cal-agenda-day"} data-day={day}>
            <h3>
              {weekdayLabel(day, locale, "long")} · {formatDay(day, locale)}
            </h3>
            {items.length === 0
              ? <p class="muted">{t("calendar.nothing")}</p>
              : (
                <ul class="plain cal-agenda">
                  {items.map((item) => (
                    <li
                      class={`cal-agenda-item cal-${item.type}${
                        item.type === "todo" && item.completed ? " done" : ""
                      }`}
                      data-cal-item={`${item.type}-${item.id}`}
                    >
                      <span class="cal-when muted">{agendaWhen(item, day, t, locale)}</span>
                      <span class="tag">{t(`calendar.kind.${item.type}`)}</span>
                      <a href={subjectHref(frame.project.id, item.type, item.id)!}>{item.title}</a>
                      {item.type === "todo" && item.completed
                        ? <span class="tag done">{t("todos.completed")}</span>
                        : null}
                    </li>
                  ))}
                </ul>
              )}
          </li>
        );
      })}
    </ol>
  );
}

/** The event fields shared by the create and edit forms. */
function EventFields(props: { frame: ProjectFrame; form: FormState }) {
  const { t } = props.frame.ctx;
  const { form } = props;
  return (
    <>
      <TextField label={t("content.title")} schema={CalendarEventInput} name="title" form={form} />
      <div class="form-grid">
        <DateTimeField
          label={t("planning.start")}
          name="startAt"
          form={form}
          required
          hint="event-utc-hint"
        />
        <DateTimeField label={t("planning.end")} name="endAt" form={form} hint="event-utc-hint" />
      </div>
      <Checkbox label={t("calendar.allDay")} name="allDay" form={form} />
      <span class="hint" id="event-utc-hint">{t("calendar.timesHint")}</span>
      <MarkdownField
        t={t}
        label={t("field.description")}
        schema={CalendarEventInput}
        name="description"
        form={form}
        rows={4}
      />
    </>
  );
}

/** How the domain's refusals of an event's fields are said. */
const FIELDS = {
  startAt: "planning.timeInvalid",
  endAt: "planning.timeInvalid",
  "endAt:before_start": "planning.endBeforeStart",
  title: "content.required",
} as const;

/**
 * The event form's fields read into the input of a create or update. An all-day event covers
 * whole UTC days: from its first day's midnight to the midnight after its last day (an empty
 * end means one day; a last day before the first is an end before the start).
 */
function readEvent(fields: Fields) {
  const allDay = checked(fields.allDay);
  let startAt = readInstant(fields.startAt);
  let endAt = readInstant(fields.endAt);
  const first = readDate(fields.startAt?.trim().slice(0, 10));
  const last = endAt === undefined ? first : readDate(fields.endAt?.trim().slice(0, 10));
  if (allDay && first !== null && last !== null) {
    startAt = `${first}T00:00:00.000Z`;
    endAt = `${last < first ? last : addDays(last, 1)}T00:00:00.000Z`;
  }
  return { ...fields, description: orNull(fields.description), startAt, endAt, allDay };
}

const calendarPage: AreaPage<CalendarView> = {
  area: "calendar",
  load: (c, frame) => viewOf(c, frame),
  title: (_, t) => t("calendar.title"),
  view: ({ frame, data: view, shown }) => {
    const { t } = frame.ctx;
    const form = formState(shown, "create");
    return (
      <>
        <h1>{t("calendar.title")}</h1>
        <Alert message={shown.message} />
        <NewForm
          canWrite={frame.canWrite}
          form={form}
          summary={t("calendar.newEvent")}
          action={`/projects/${frame.project.id}/calendar/events`}
          submit={t("calendar.createEvent")}
          attrs={{ "data-event-create": true }}
        >
          <EventFields frame={frame} form={form} />
        </NewForm>
        <section class="card calendar" data-calendar data-view={view.view}>
          <CalendarNav frame={frame} view={view} />
          {view.view === "month"
            ? <MonthGrid frame={frame} view={view} />
            : <WeekAgenda frame={frame} view={view} />}
          <p class="hint">{t("calendar.utcNote")}</p>
        </section>
      </>
    );
  },
};

/** The days and entries the calendar shows: a month's weeks, or one week. */
function viewOf(c: Ctx, { services, ctx, project }: ProjectFrame): CalendarView {
  const today = todayOf(services);
  const isWeek = c.req.query("view") === "week";
  let first: string;
  let count: number;
  let month = today.slice(0, 7);
  let week = mondayOf(today);
  if (isWeek) {
    const asked = readDate(c.req.query("week"));
    week = asked ? mondayOf(asked) : mondayOf(today);
    month = week.slice(0, 7);
    first = week;
    count = 7;
  } else {
    month = readMonth(c.req.query("month")) ?? month;
    first = mondayOf(`${month}-01`);
    const lastOfMonth = addDays(`${monthAdd(month, 1)}-01`, -1);
    const end = addDays(mondayOf(lastOfMonth), 6);
    count = Math.round((Date.parse(end) - Date.parse(first)) / 86_400_000) + 1;
  }
  const days = Array.from({ length: count }, (_, i) => addDays(first, i));
  const items = services.calendar.range(ctx.actor!, project.id, {
    from: `${days[0]}T00:00:00.000Z`,
    to: `${addDays(days[days.length - 1]!, 1)}T00:00:00.000Z`,
  });
  return { view: isWeek ? "week" : "month", month, week, days, items, today };
}

const eventPage: AreaPage<CalendarEvent> = {
  area: "calendar",
  load: (c, { services, ctx, project }) =>
    services.calendar.get(ctx.actor!, project.id, paramId(c, "eventId")),
  title: (event) => event.title,
  view: ({ frame, data: event, shown }) => {
    const { t, locale } = frame.ctx;
    const base = `/projects/${frame.project.id}/calendar/events/${event.id}`;
    const form = formState(shown, "edit", {
      title: event.title,
      description: event.description ?? "",
      startAt: inputValue(event.startAt),
      endAt: event.allDay
        ? `${lastDayOf(event.startAt, event.endAt)}T00:00`
        : inputValue(event.endAt),
      allDay: event.allDay ? "on" : "",
    });
    return (
      <>
        <BackLink
          href={`/projects/${frame.project.id}/calendar?month=${event.startAt.slice(0, 7)}`}
          label={t("calendar.back")}
        />
        <article data-event={event.id}>
          <h1>{event.title}</h1>
          <Alert message={shown.message} />
          <div class="card">
            <dl class="facts">
              <dt>{t("calendar.when")}</dt>
              <dd data-event-when>
                {formatSpan(
                  { start: event.startAt, end: event.endAt, allDay: event.allDay },
                  locale,
                )}
                {event.allDay ? ` · ${t("calendar.allDay")}` : ""}
              </dd>
              <dt>{t("common.created")}</dt>
              <dd>
                {t("content.by", { name: nameOf(frame, event.creatorId) })} ·{" "}
                <Time ctx={frame.ctx} iso={event.createdAt} />
              </dd>
            </dl>
            {event.description ? <Markdown source={event.description} /> : null}
          </div>
          <EditAndDelete
            show={frame.canWrite}
            form={form}
            action={base}
            heading={t("calendar.editEvent")}
            submit={t("content.save")}
            attrs={{ "data-event-edit": true }}
            remove={{ label: t("calendar.deleteEvent"), confirm: t("calendar.deleteConfirm") }}
          >
            <EventFields frame={frame} form={form} />
          </EditAndDelete>
        </article>
      </>
    );
  },
};

/** The calendar pages. */
export function calendarPages(services: Services) {
  const { calendar } = services;
  const area = areaRoutes(services);
  const P = "/projects/:projectId{[0-9]+}/calendar";
  const E = `${P}/events/:eventId{[0-9]+}`;
  const monthOf = (projectId: number, event: CalendarEvent) =>
    `/projects/${projectId}/calendar?month=${event.startAt.slice(0, 7)}`;

  area.things({
    list: [P, calendarPage],
    item: [E, eventPage],
    createAt: `${P}/events`,
    form: { schema: CalendarEventInput, read: readEvent, fields: FIELDS },
    create: ({ actor, projectId, input }) =>
      monthOf(projectId, calendar.create(actor, projectId, input)),
    update: ({ c, actor, projectId, input }) => {
      const eventId = paramId(c, "eventId");
      calendar.update(actor, projectId, { eventId, ...input });
      return `/projects/${projectId}/calendar/events/${eventId}`;
    },
    remove: ({ c, actor, projectId }) => {
      const event = calendar.get(actor, projectId, paramId(c, "eventId"));
      return afterDelete(monthOf(projectId, event), calendar.remove(actor, projectId, event.id));
    },
  });
  return area.app;
}
