/**
 * The project calendar: a month grid (`?month=2026-11`) and a week agenda
 * (`?view=week&week=2026-11-16`) of the events, milestones and to-dos that
 * `services.calendar.range` returns for the shown days, with the new-event form; and an
 * event's page with its edit and delete forms. Days, "today" and every time are the viewer's,
 * in their time zone (`services.calendar.view` places timed entries); all-day items keep their
 * dates. Forms work without JavaScript: POST, then 303.
 */
import type { Context } from "hono";
import type { CalendarEvent } from "../../domain/planning/calendar.ts";
import {
  type CalendarDay,
  type CalendarView,
  dateOrNull,
  type DayEntry,
  type ViewQuery,
} from "../../domain/planning/calendar_view.ts";
import { addDays, lastDayOf } from "../../domain/kernel/days.ts";
import { DomainError } from "../../domain/kernel/errors.ts";
import type { Services } from "../../domain/services.ts";
import { dateInZone } from "../../domain/kernel/time_zones.ts";
import type { AppEnv } from "../api/openapi.ts";
import { CalendarEventInput } from "../api/planning.ts";
import { formatDay, formatSpan, formatTime, formatUtc } from "../i18n/format.ts";
import type { Locale, Translate } from "../i18n/i18n.ts";
import {
  type AreaPage,
  areaRoutes,
  mentionsOf,
  nameOf,
  paramId,
  type ProjectFrame,
} from "./kit/area.tsx";
import { BackLink, Markdown, subjectHref, Time } from "./kit/content.tsx";
import { inputValue, readInstant } from "./kit/dates.ts";
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
import { afterCreate, afterDelete, afterSave } from "./kit/notices.tsx";
import { live } from "./kit/live.tsx";

type Ctx = Context<AppEnv>;

/** Entries shown in one day of the month grid before "+N more". */
const DAY_LIMIT = 4;

const monthLabel = (month: string, locale: Locale) =>
  formatUtc(`${month}-01`, locale, { year: "numeric", month: "long" });
const weekdayLabel = (date: string, locale: Locale, weekday: "short" | "long") =>
  formatUtc(date, locale, { weekday });

/** An entry's time on its day in the agenda: its times, its span, or "all day". */
function agendaWhen({ item, part }: DayEntry, t: Translate, locale: Locale, zone: string): string {
  if (part === "all_day") return t("calendar.allDay");
  if (part === "within") {
    return item.start === item.end
      ? formatTime(item.start, locale, zone)
      : `${formatTime(item.start, locale, zone)} – ${formatTime(item.end, locale, zone)}`;
  }
  return formatSpan(item, locale, zone);
}

function CalendarEntry(props: { frame: ProjectFrame; entry: DayEntry }) {
  const { frame, entry: { item, part } } = props;
  const { t, locale, timeZone } = frame.ctx;
  const done = item.type === "todo" && item.completed;
  const startsToday = part === "starts" || part === "within";
  return (
    <li
      class={`cal-item cal-${item.type}${done ? " done" : ""}`}
      data-cal-item={`${item.type}-${item.id}`}
    >
      <span class="cal-kind">{t(`calendar.kind.${item.type}`)}</span>{" "}
      {startsToday
        ? <span class="cal-time">{formatTime(item.start, locale, timeZone)}</span>
        : null} <a href={subjectHref(frame.project.id, item.type, item.id)!}>{item.title}</a>
    </li>
  );
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
  const href = isMonth ? monthHref : weekHref;
  return (
    <div class="calendar-nav row">
      <h2 class="calendar-title" data-calendar-title>{title}</h2>
      <span class="spacer"></span>
      <nav class="row" aria-label={t("calendar.navigation")}>
        <a href={href(view.prev)} rel="prev" data-calendar-prev>
          {isMonth ? t("calendar.prevMonth") : t("calendar.prevWeek")}
        </a>
        <a href={isMonth ? base : weekHref(view.thisWeek)}>{t("calendar.today")}</a>
        <a href={href(view.next)} rel="next" data-calendar-next>
          {isMonth ? t("calendar.nextMonth") : t("calendar.nextWeek")}
        </a>
      </nav>
      <nav class="filters row" aria-label={t("calendar.views")}>
        <a href={monthHref(view.month)} aria-current={isMonth ? "page" : undefined}>
          {t("calendar.month")}
        </a>
        <a href={weekHref(view.week)} aria-current={isMonth ? undefined : "page"}>
          {t("calendar.week")}
        </a>
      </nav>
    </div>
  );
}

function MonthGrid(props: { frame: ProjectFrame; view: CalendarView }) {
  const { frame, view } = props;
  const { t, locale } = frame.ctx;
  const base = `/projects/${frame.project.id}/calendar`;
  return (
    <div class="table-wrap cal-month-grid">
      <table class="calendar-month" data-calendar-month={view.month}>
        <thead>
          <tr>
            {view.weeks[0]!.map(({ date }) => (
              <th scope="col" abbr={weekdayLabel(date, locale, "long")}>
                {weekdayLabel(date, locale, "short")}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {view.weeks.map((week) => (
            <tr>
              {week.map(({ date: day, entries }) => {
                const weekHref = `${base}?view=week&week=${week[0]!.date}`;
                const classes = [
                  "cal-day",
                  day.startsWith(view.month) ? "" : "other-month",
                  day === view.today ? "today" : "",
                ].filter(Boolean).join(" ");
                return (
                  <td class={classes} data-day={day}>
                    <a
                      class="cal-date"
                      href={weekHref}
                      aria-current={day === view.today ? "date" : undefined}
                    >
                      {/* The name starts with the number shown, so speech control finds it. */}
                      {String(Number(day.slice(8)))}
                      <span class="visually-hidden">{` (${formatDay(day, locale)})`}</span>
                    </a>
                    {entries.length > 0
                      ? (
                        <ul class="plain cal-items">
                          {entries.slice(0, DAY_LIMIT).map((entry) => (
                            <CalendarEntry frame={frame} entry={entry} />
                          ))}
                        </ul>
                      )
                      : null}
                    {entries.length > DAY_LIMIT
                      ? (
                        <a class="cal-more" href={weekHref}>
                          {t("calendar.more", { count: entries.length - DAY_LIMIT })}
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

/** One day of an agenda: its heading and its entries, or "nothing" when it has none. */
function AgendaDay(props: { frame: ProjectFrame; view: CalendarView; day: CalendarDay }) {
  const { frame, view, day: { date: day, entries } } = props;
  const { t, locale } = frame.ctx;
  return (
    <li class={day === view.today ? "cal-agenda-day today" : "cal-agenda-day"} data-day={day}>
      <h3>
        {weekdayLabel(day, locale, "long")} · {formatDay(day, locale)}
      </h3>
      {entries.length === 0
        ? <p class="muted">{t("calendar.nothing")}</p>
        : (
          <ul class="plain cal-agenda">
            {entries.map((entry) => {
              const { item } = entry;
              const done = item.type === "todo" && item.completed;
              return (
                <li
                  class={`cal-agenda-item cal-${item.type}${done ? " done" : ""}`}
                  data-cal-item={`${item.type}-${item.id}`}
                >
                  <span class="cal-when muted">
                    {agendaWhen(entry, t, locale, frame.ctx.timeZone)}
                  </span>
                  <span class="tag">{t(`calendar.kind.${item.type}`)}</span>
                  <a href={subjectHref(frame.project.id, item.type, item.id)!}>{item.title}</a>
                  {done ? <span class="tag done">{t("todos.completed")}</span> : null}
                </li>
              );
            })}
          </ul>
        )}
    </li>
  );
}

function WeekAgenda(props: { frame: ProjectFrame; view: CalendarView }) {
  const { frame, view } = props;
  return (
    <ol class="plain calendar-week" data-calendar-week={view.week}>
      {view.weeks[0]!.map((day) => (
        <AgendaDay
          key={day.date}
          frame={frame}
          view={view}
          day={day}
        />
      ))}
    </ol>
  );
}

/**
 * The month as a list for a phone's width (the stylesheet shows it instead of the grid): the
 * month's days that have entries, in order, from the same view as the grid.
 */
function MonthAgenda(props: { frame: ProjectFrame; view: CalendarView }) {
  const { frame, view } = props;
  const days = view.weeks.flat().filter((day) =>
    day.date.startsWith(view.month) && day.entries.length > 0
  );
  return (
    <div class="cal-month-agenda" data-calendar-month-agenda={view.month}>
      {days.length === 0
        ? <p class="muted">{frame.ctx.t("calendar.nothingThisMonth")}</p>
        : (
          <ol class="plain calendar-week">
            {days.map((day) => <AgendaDay key={day.date} frame={frame} view={view} day={day} />)}
          </ol>
        )}
    </div>
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
      <span class="hint" id="event-utc-hint">
        {t("calendar.timesHint", { zone: props.frame.ctx.timeZone })}
      </span>
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
 * The event form's fields read into the input of a create or update: times are wall-clock
 * times in the viewer's zone. An all-day event covers whole dates, stored as UTC days: from its first day's midnight to the midnight after its last day (an empty
 * end means one day; a last day before the first is an end before the start).
 */
function readEvent(fields: Fields, frame: ProjectFrame) {
  const allDay = checked(fields.allDay);
  const zone = frame.ctx.timeZone;
  let startAt = readInstant(fields.startAt, zone);
  let endAt = readInstant(fields.endAt, zone);
  const first = dateOrNull(fields.startAt?.trim().slice(0, 10));
  const last = endAt === undefined ? first : dateOrNull(fields.endAt?.trim().slice(0, 10));
  if (allDay && first !== null && last !== null) {
    startAt = `${first}T00:00:00.000Z`;
    endAt = `${last < first ? last : addDays(last, 1)}T00:00:00.000Z`;
  }
  return { ...fields, description: orNull(fields.description), startAt, endAt, allDay };
}

const calendarPage: AreaPage<CalendarView> = {
  area: "calendar",
  load: async (c, frame) => await viewOf(c, frame),
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
            ? (
              <>
                <MonthGrid frame={frame} view={view} />
                <MonthAgenda frame={frame} view={view} />
              </>
            )
            : <WeekAgenda frame={frame} view={view} />}
          <p class="hint" data-time-zone={frame.ctx.timeZone}>
            {t("calendar.zoneNote", { zone: frame.ctx.timeZone })}
          </p>
        </section>
      </>
    );
  },
};

/**
 * The month or week the query asks for; a malformed month or week shows the current one, as
 * an old or hand-made link may carry one.
 */
async function viewOf(c: Ctx, { services, ctx, project }: ProjectFrame): Promise<CalendarView> {
  const query: ViewQuery = c.req.query("view") === "week"
    ? { view: "week", date: c.req.query("week") }
    : { view: "month", month: c.req.query("month") };
  const view = (q: ViewQuery) => services.calendar.view(ctx.actor!, project.id, q);
  try {
    // Awaited here, so that a refused month or week is caught below.
    return await view(query);
  } catch (error) {
    if (!(error instanceof DomainError && error.code === "validation")) throw error;
    return await view({ view: query.view });
  }
}

const eventPage: AreaPage<CalendarEvent> = {
  area: "calendar",
  load: async (c, { services, ctx, project }) =>
    await services.calendar.get(ctx.actor!, project.id, paramId(c, "eventId")),
  title: (event) => event.title,
  view: ({ frame, data: event, shown }) => {
    const { t, locale, timeZone } = frame.ctx;
    const base = `/projects/${frame.project.id}/calendar/events/${event.id}`;
    const form = formState(shown, "edit", {
      title: event.title,
      description: event.description ?? "",
      // An all-day event's dates are the same everywhere: its form shows them as they are.
      startAt: event.allDay
        ? `${event.startAt.slice(0, 10)}T00:00`
        : inputValue(event.startAt, timeZone),
      endAt: event.allDay
        ? `${lastDayOf(event.startAt, event.endAt)}T00:00`
        : inputValue(event.endAt, timeZone),
      allDay: event.allDay ? "on" : "",
    });
    return (
      <>
        <BackLink
          href={`/projects/${frame.project.id}/calendar?month=${monthOf(event, timeZone)}`}
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
                  timeZone,
                  true,
                )}
                {event.allDay ? ` · ${t("calendar.allDay")}` : ""}
              </dd>
              <dt>{t("common.created")}</dt>
              <dd>
                {t("content.by", { name: nameOf(frame, event.creatorId) })} ·{" "}
                <Time ctx={frame.ctx} iso={event.createdAt} />
              </dd>
            </dl>
            {event.description
              ? <Markdown source={event.description} mentions={mentionsOf(frame)} />
              : null}
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

/** The month (`YYYY-MM`) an event starts in for a viewer in `zone` (all-day: its first date). */
function monthOf(event: CalendarEvent, zone: string): string {
  return event.allDay ? event.startAt.slice(0, 7) : dateInZone(event.startAt, zone).slice(0, 7);
}

/** The calendar pages. */
export function calendarPages(services: Services) {
  const monthPage = (frame: ProjectFrame, event: CalendarEvent) =>
    `/projects/${frame.project.id}/calendar?month=${monthOf(event, frame.ctx.timeZone)}`;
  const { calendar } = services;
  const area = areaRoutes(services);
  const P = "/projects/:projectId{[0-9]+}/calendar";
  const E = `${P}/events/:eventId{[0-9]+}`;

  area.things({
    list: [P, live(calendarPage, ["calendar", "milestones", "todos", "meetings"])],
    item: [E, eventPage],
    createAt: `${P}/events`,
    form: { schema: CalendarEventInput, read: readEvent, fields: FIELDS },
    create: async ({ frame, actor, projectId, input }) => {
      const event = await calendar.create(actor, projectId, input);
      return afterCreate(monthPage(frame, event), { type: "event", id: event.id });
    },
    update: async ({ c, actor, projectId, input }) => {
      const eventId = paramId(c, "eventId");
      await calendar.update(actor, projectId, { eventId, ...input });
      return afterSave(`/projects/${projectId}/calendar/events/${eventId}`, {
        type: "event",
        id: eventId,
      });
    },
    remove: async ({ c, frame, actor, projectId }) => {
      const event = await calendar.get(actor, projectId, paramId(c, "eventId"));
      return afterDelete(
        monthPage(frame, event),
        await calendar.remove(actor, projectId, event.id),
      );
    },
  });
  return area.app;
}
