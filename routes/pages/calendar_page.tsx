/**
 * The project calendar: a month grid (`?month=2026-11`) and a week agenda
 * (`?view=week&week=2026-11-16`) of the events, milestones and to-dos that
 * `services.calendar.range` returns for the shown UTC days, with the new-event form; and an
 * event's page with its edit and delete forms. Every time is shown and entered in UTC, the
 * zone calendar dates count in. Forms work without JavaScript: POST, then 303.
 *
 * Also the time helpers the planning pages share (milestones, meetings, dashboards).
 */
import { parseForm } from "./forms.ts";
import { type Context, Hono } from "hono";
import { addDays, type CalendarEvent, type CalendarItem, utcDay } from "../../domain/calendar.ts";
import { DomainError } from "../../domain/errors.ts";
import type { Services } from "../../domain/services.ts";
import type { AppEnv } from "../api/openapi.ts";
import { formatDateTime, type Locale, type Translate } from "../i18n/i18n.ts";
import { FormCard, MarkdownField, TitleField } from "./components.tsx";
import { Alert, FieldError } from "./layout.tsx";
import { notFound } from "./project_pages.tsx";
import {
  attempt,
  checkText,
  type FormState,
  frameRunner,
  Markdown,
  nameOf,
  paramId,
  type ProjectFrame,
  renderArea,
  splitBody,
  submitForm,
  Time,
} from "./project_nav.tsx";

type Ctx = Context<AppEnv>;

// ---------------------------------------------------------------------------------------
// Time helpers shared by the planning pages. Instants are ISO 8601 UTC with `Z`; calendar
// dates are `YYYY-MM-DD`; a date counts as a whole UTC day.

/** A calendar date, `YYYY-MM-DD`. */
export const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** What `<input type="datetime-local">` sends: no zone (read as UTC here). */
const LOCAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/;

/** The `Intl` locale of an interface language. */
export function intlLocale(locale: Locale | string): string {
  return locale === "ja" ? "ja-JP" : "en-GB";
}

/** A calendar date (`YYYY-MM-DD`) in the reader's language. */
export function formatDay(date: string, locale: Locale | string): string {
  return new Intl.DateTimeFormat(intlLocale(locale), { dateStyle: "medium", timeZone: "UTC" })
    .format(new Date(`${date}T00:00:00Z`));
}

/** The UTC time of day of an instant, `09:30`. */
export function formatTime(iso: string, locale: Locale | string): string {
  return new Intl.DateTimeFormat(intlLocale(locale), { timeStyle: "short", timeZone: "UTC" })
    .format(new Date(iso));
}

/** The last UTC day an instant range reaches (`end` is exclusive; an empty range is its start). */
export function lastDayOf(start: string, end: string): string {
  const endMs = Date.parse(end);
  return endMs > Date.parse(start) ? utcDay(new Date(endMs - 1).toISOString()) : utcDay(start);
}

/** A span for people: dates, an all-day range, or times (UTC). */
export function formatSpan(
  span: { start: string; end: string; allDay: boolean },
  locale: Locale,
): string {
  const { start, end } = span;
  if (start.length === 10 || span.allDay) {
    const first = start.slice(0, 10);
    const last = end.length === 10 ? end : lastDayOf(start, end);
    return first === last
      ? formatDay(first, locale)
      : `${formatDay(first, locale)} – ${formatDay(last, locale)}`;
  }
  if (start === end) return formatDateTime(start, locale);
  return utcDay(start) === utcDay(end)
    ? `${formatDateTime(start, locale)} – ${formatTime(end, locale)}`
    : `${formatDateTime(start, locale)} – ${formatDateTime(end, locale)}`;
}

/** An instant as the value of a `datetime-local` input (UTC). */
export function inputValue(iso: string): string {
  return iso.slice(0, 16);
}

/** A `datetime-local` value read as UTC; other text is passed on for the domain to judge. */
export function readInstant(raw: string | undefined): string | null {
  const value = (raw ?? "").trim();
  if (value === "") return null;
  return LOCAL.test(value) ? `${value}Z` : value;
}

/** Whether an instant text parses. */
function parses(value: string): boolean {
  return !Number.isNaN(Date.parse(value));
}

/**
 * Reads a start and end pair of `datetime-local` fields into UTC instants, recording
 * messages under `startAt` and `endAt`.
 */
export function readRange(
  fields: Record<string, string>,
  errors: Record<string, string>,
  t: Translate,
): { startAt: string; endAt: string } {
  const startAt = readInstant(fields.startAt);
  const endAt = readInstant(fields.endAt);
  if (startAt === null) errors.startAt = t("content.required");
  else if (!parses(startAt)) errors.startAt = t("planning.timeInvalid");
  if (endAt === null) errors.endAt = t("content.required");
  else if (!parses(endAt)) errors.endAt = t("planning.timeInvalid");
  if (
    startAt !== null && endAt !== null && errors.startAt === undefined &&
    errors.endAt === undefined && Date.parse(endAt) < Date.parse(startAt)
  ) {
    errors.endAt = t("planning.endBeforeStart");
  }
  return { startAt: startAt ?? "", endAt: endAt ?? "" };
}

/** The field messages of a domain validation error, in the reader's language. */
export function domainFieldErrors(error: unknown, t: Translate): Record<string, string> {
  if (!(error instanceof DomainError) || error.code !== "validation") return {};
  const errors: Record<string, string> = {};
  for (const [field, message] of Object.entries(error.details ?? {})) {
    if (field === "endAt" && message.includes("before")) {
      errors.endAt = t("planning.endBeforeStart");
    } else if (field === "startAt" || field === "endAt") errors[field] = t("planning.timeInvalid");
    else if (field === "dueDate") errors.dueDate = t("planning.dateInvalid");
    else if (field === "title") errors.title = t("content.required");
    else errors[field] = t("form.invalid");
  }
  return errors;
}

/** Today's UTC date by the services' clock. */
export function todayOf(services: Services): string {
  return services.clock.now().toISOString().slice(0, 10);
}

// ---------------------------------------------------------------------------------------
// The calendar.

const TITLE_MAX = 200;
const DESCRIPTION_MAX = 10_000;
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

function monthLabel(month: string, locale: Locale): string {
  return new Intl.DateTimeFormat(intlLocale(locale), {
    year: "numeric",
    month: "long",
    timeZone: "UTC",
  }).format(new Date(`${month}-01T00:00:00Z`));
}

function weekdayLabel(date: string, locale: Locale, style: "short" | "long"): string {
  return new Intl.DateTimeFormat(intlLocale(locale), { weekday: style, timeZone: "UTC" })
    .format(new Date(`${date}T00:00:00Z`));
}

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

function itemHref(projectId: number, item: CalendarItem): string {
  switch (item.type) {
    case "event":
      return `/projects/${projectId}/calendar/events/${item.id}`;
    case "milestone":
      return `/projects/${projectId}/milestones#milestone-${item.id}`;
    case "todo":
      return `/projects/${projectId}/todos/${item.id}`;
  }
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
      <a href={itemHref(frame.project.id, item)}>{item.title}</a>
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
                      <a href={itemHref(frame.project.id, item)}>{item.title}</a>
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
function EventFields(
  props: { frame: ProjectFrame; values: Record<string, string>; errors: Record<string, string> },
) {
  const { t } = props.frame.ctx;
  const { values, errors } = props;
  return (
    <>
      <TitleField
        label={t("content.title")}
        max={TITLE_MAX}
        value={values.title ?? ""}
        error={errors.title}
      />
      <div class="form-grid">
        <label>
          {t("planning.start")}
          <input
            type="datetime-local"
            name="startAt"
            required
            value={values.startAt ?? ""}
            aria-describedby="event-utc-hint"
          />
          <FieldError message={errors.startAt} />
        </label>
        <label>
          {t("planning.end")}
          <input
            type="datetime-local"
            name="endAt"
            value={values.endAt ?? ""}
            aria-describedby="event-utc-hint"
          />
          <FieldError message={errors.endAt} />
        </label>
      </div>
      <label class="check">
        <input type="checkbox" name="allDay" value="on" checked={values.allDay === "on"} />
        {t("calendar.allDay")}
      </label>
      <span class="hint" id="event-utc-hint">{t("calendar.timesHint")}</span>
      <MarkdownField
        t={t}
        label={t("field.description")}
        name="description"
        value={values.description}
        max={DESCRIPTION_MAX}
        rows={4}
        error={errors.description}
      />
    </>
  );
}

function CalendarPage(
  props: { frame: ProjectFrame; view: CalendarView; message: string | null; state: FormState },
) {
  const { frame, view } = props;
  const { t } = frame.ctx;
  return (
    <>
      <h1>{t("calendar.title")}</h1>
      <Alert message={props.message} />
      {frame.canWrite
        ? (
          <FormCard
            open={props.state.values !== undefined}
            summary={t("calendar.newEvent")}
            action={`/projects/${frame.project.id}/calendar/events`}
            submit={t("calendar.createEvent")}
            attrs={{ "data-event-create": true }}
          >
            <EventFields
              frame={frame}
              values={props.state.values ?? {}}
              errors={props.state.errors ?? {}}
            />
          </FormCard>
        )
        : null}
      <section class="card calendar" data-calendar data-view={view.view}>
        <CalendarNav frame={frame} view={view} />
        {view.view === "month"
          ? <MonthGrid frame={frame} view={view} />
          : <WeekAgenda frame={frame} view={view} />}
        <p class="hint">{t("calendar.utcNote")}</p>
      </section>
    </>
  );
}

/** The values an event's edit form starts from. */
function eventValues(event: CalendarEvent): Record<string, string> {
  return {
    title: event.title,
    description: event.description ?? "",
    startAt: inputValue(event.startAt),
    endAt: event.allDay
      ? `${lastDayOf(event.startAt, event.endAt)}T00:00`
      : inputValue(event.endAt),
    allDay: event.allDay ? "on" : "",
  };
}

function EventPage(
  props: { frame: ProjectFrame; event: CalendarEvent; message: string | null; edit: FormState },
) {
  const { frame, event } = props;
  const { t, locale } = frame.ctx;
  const base = `/projects/${frame.project.id}/calendar/events/${event.id}`;
  return (
    <>
      <p>
        <a href={`/projects/${frame.project.id}/calendar?month=${event.startAt.slice(0, 7)}`}>
          {t("calendar.back")}
        </a>
      </p>
      <article data-event={event.id}>
        <h1>{event.title}</h1>
        <Alert message={props.message} />
        <div class="card">
          <dl class="facts">
            <dt>{t("calendar.when")}</dt>
            <dd data-event-when>
              {formatSpan({ start: event.startAt, end: event.endAt, allDay: event.allDay }, locale)}
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
        {frame.canWrite
          ? (
            <>
              <h2>{t("calendar.editEvent")}</h2>
              <form class="stack card" method="post" action={base} data-event-edit>
                <EventFields
                  frame={frame}
                  values={props.edit.values ?? eventValues(event)}
                  errors={props.edit.errors ?? {}}
                />
                <div>
                  <button type="submit">{t("content.save")}</button>
                </div>
              </form>
              <form
                method="post"
                action={`${base}/delete`}
                data-confirm={t("calendar.deleteConfirm")}
              >
                <button class="danger" type="submit">{t("calendar.deleteEvent")}</button>
              </form>
            </>
          )
          : null}
      </article>
    </>
  );
}

/** A checked event form: the domain input, or the message of each bad field. */
type EventForm =
  | {
    ok: true;
    input: {
      title: string;
      description: string | null;
      startAt: string;
      endAt: string;
      allDay: boolean;
    };
  }
  | { ok: false; errors: Record<string, string> };

/**
 * Reads the event form. An all-day event covers whole UTC days: it starts at its first
 * day's midnight and ends at the midnight after its last day (an empty end means one day).
 */
function readEventForm(fields: Record<string, string>, t: Translate): EventForm {
  const errors: Record<string, string> = {};
  checkText(errors, t, { name: "title", value: fields.title, max: TITLE_MAX, required: true });
  checkText(errors, t, {
    name: "description",
    value: fields.description,
    max: DESCRIPTION_MAX,
    required: false,
  });
  const allDay = fields.allDay === "on";
  let startAt = "";
  let endAt = "";
  if (allDay) {
    const first = readDate((fields.startAt ?? "").trim().slice(0, 10));
    const rawEnd = (fields.endAt ?? "").trim();
    const last = rawEnd === "" ? first : readDate(rawEnd.slice(0, 10));
    if ((fields.startAt ?? "").trim() === "") errors.startAt = t("content.required");
    else if (first === null) errors.startAt = t("planning.dateInvalid");
    if (rawEnd !== "" && last === null) errors.endAt = t("planning.dateInvalid");
    if (first !== null && last !== null) {
      if (last < first) errors.endAt = t("planning.endBeforeStart");
      startAt = `${first}T00:00:00.000Z`;
      endAt = `${addDays(last, 1)}T00:00:00.000Z`;
    }
  } else {
    ({ startAt, endAt } = readRange(fields, errors, t));
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const description = (fields.description ?? "").trim() === "" ? null : fields.description!;
  return {
    ok: true,
    input: { title: fields.title!.trim(), description, startAt, endAt, allDay },
  };
}

/** The calendar pages. */
export function calendarPages(services: Services) {
  const app = new Hono<AppEnv>();
  const { calendar } = services;
  const run = frameRunner(services, { notFound });
  const P = "/projects/:projectId{[0-9]+}/calendar";
  const E = `${P}/events/:eventId{[0-9]+}`;

  const viewOf = (c: Ctx, frame: ProjectFrame): CalendarView => {
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
    const items = calendar.range(frame.ctx.actor!, frame.project.id, {
      from: `${days[0]}T00:00:00.000Z`,
      to: `${addDays(days[days.length - 1]!, 1)}T00:00:00.000Z`,
    });
    return { view: isWeek ? "week" : "month", month, week, days, items, today };
  };

  const showCalendar = (
    c: Ctx,
    frame: ProjectFrame,
    extra: { status?: number; message?: string; state?: FormState } = {},
  ) =>
    renderArea(c, frame, {
      area: "calendar",
      title: frame.ctx.t("calendar.title"),
      status: extra.status ?? 200,
      body: (
        <CalendarPage
          frame={frame}
          view={viewOf(c, frame)}
          message={extra.message ?? null}
          state={extra.state ?? {}}
        />
      ),
    });

  const showEvent = (
    c: Ctx,
    frame: ProjectFrame,
    extra: { status?: number; message?: string; edit?: FormState } = {},
  ) => {
    const event = calendar.get(frame.ctx.actor!, frame.project.id, paramId(c, "eventId"));
    return renderArea(c, frame, {
      area: "calendar",
      title: event.title,
      status: extra.status ?? 200,
      body: (
        <EventPage
          frame={frame}
          event={event}
          message={extra.message ?? null}
          edit={extra.edit ?? {}}
        />
      ),
    });
  };

  app.get(P, (c) => run(c, (frame) => showCalendar(c, frame)));

  app.post(`${P}/events`, (c) =>
    run(c, async (frame) => {
      const { t, actor } = frame.ctx;
      const { fields } = splitBody(await parseForm(c));
      return submitForm(c, frame, {
        form: readEventForm(fields, t),
        values: fields,
        change: (input) => {
          const event = calendar.create(actor!, frame.project.id, input);
          return `/projects/${frame.project.id}/calendar?month=${event.startAt.slice(0, 7)}`;
        },
        fieldErrors: domainFieldErrors,
        show: (failure, state) => showCalendar(c, frame, { ...failure, state }),
      });
    }));

  app.get(E, (c) => run(c, (frame) => showEvent(c, frame)));

  app.post(E, (c) =>
    run(c, async (frame) => {
      const { t, actor } = frame.ctx;
      const { fields } = splitBody(await parseForm(c));
      const eventId = paramId(c, "eventId");
      return submitForm(c, frame, {
        form: readEventForm(fields, t),
        values: fields,
        change: (input) => {
          calendar.update(actor!, frame.project.id, { eventId, ...input });
          return `/projects/${frame.project.id}/calendar/events/${eventId}`;
        },
        fieldErrors: domainFieldErrors,
        show: (failure, edit) => showEvent(c, frame, { ...failure, edit }),
      });
    }));

  app.post(`${E}/delete`, (c) =>
    run(c, (frame) => {
      const { actor } = frame.ctx;
      const eventId = paramId(c, "eventId");
      return attempt(c, frame, {
        change: () => {
          const event = calendar.get(actor!, frame.project.id, eventId);
          calendar.remove(actor!, frame.project.id, eventId);
          return `/projects/${frame.project.id}/calendar?month=${event.startAt.slice(0, 7)}`;
        },
        fail: (failure) => showEvent(c, frame, failure),
      });
    }));

  return app;
}
