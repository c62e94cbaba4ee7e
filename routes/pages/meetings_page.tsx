/**
 * The meeting pages: the list, paged (upcoming soonest first, then past ones, latest first;
 * each page split under the two headings), with the new-meeting form, and a meeting's page with its minutes (Markdown), its schedule
 * conflicts, and its edit and delete forms. Conflicts never block saving: after a save the
 * meeting's page says so and lists them. `static/meetings.js` checks conflicts live while
 * the time and invitees change (GET /api/projects/{id}/meetings/check). Times are shown and typed in
 * the viewer's time zone, with the zone's name beside a meeting's time.
 */
import { agendaOf, type Conflict, type Meeting } from "../../domain/planning/meetings.ts";
import { type Page, pageRequest } from "../../domain/kernel/paging.ts";
import type { Services } from "../../domain/services.ts";
import { MeetingInput } from "../api/planning.ts";
import {
  type AreaPage,
  areaRoutes,
  mentionsOf,
  nameOf,
  paramId,
  type ProjectFrame,
} from "./kit/area.tsx";
import { BackLink, Facts, Markdown, Pager, subjectHref, Time } from "./kit/content.tsx";
import { formatSpan } from "../i18n/format.ts";
import { inputValue, readInstant } from "./kit/dates.ts";
import {
  DateTimeField,
  EditAndDelete,
  type FormState,
  formState,
  MarkdownField,
  NewForm,
  TextField,
} from "./kit/fields.tsx";
import { type Fields, idOrNull, orNull } from "./kit/forms.ts";
import { Alert, FieldError } from "./kit/layout.tsx";
import { afterDelete } from "./kit/notices.tsx";

/** The conflicts as a list; `meetings.js` renders the same markup from the check API. */
function ConflictItems(props: { frame: ProjectFrame; conflicts: Conflict[] }) {
  const { frame } = props;
  const { t, locale } = frame.ctx;
  return (
    <>
      {props.conflicts.map((c) => (
        <li class="conflict" data-conflict={`${c.type}-${c.id}`} data-user={c.userId}>
          <span class="tag">{t(`meetings.conflict.${c.type}`)}</span> {c.title === null
            ? <span class="private">{t("meetings.privateItem")}</span>
            : <a href={subjectHref(c.projectId, c.type, c.id)!}>{c.title}</a>}{" "}
          <span class="muted">
            {formatSpan({ start: c.start, end: c.end, allDay: false }, locale, frame.ctx.timeZone)}
          </span>{" "}
          <span class="muted">{t("meetings.conflictFor", { name: nameOf(frame, c.userId) })}</span>
        </li>
      ))}
    </>
  );
}

/** The live conflict panel of a form; filled by the server when it knows the conflicts. */
function ConflictPanel(props: { frame: ProjectFrame; conflicts: Conflict[] | null }) {
  const { frame, conflicts } = props;
  const { t } = frame.ctx;
  const found = conflicts !== null && conflicts.length > 0;
  return (
    <div class="conflicts" data-meeting-conflicts data-state={found ? "found" : "idle"}>
      <p
        class={found ? "notice conflict-status" : "muted conflict-status"}
        role="status"
        data-conflict-status
      >
        {conflicts === null
          ? t("meetings.checkHint")
          : found
          ? t("meetings.conflictCount", { count: conflicts.length })
          : t("meetings.noConflicts")}
      </p>
      <ul class="plain conflict-list" data-conflict-list>
        {conflicts ? <ConflictItems frame={frame} conflicts={conflicts} /> : null}
      </ul>
    </div>
  );
}

/** The meeting fields shared by the create and edit forms. */
function MeetingFields(
  props: {
    frame: ProjectFrame;
    form: FormState;
    /** The organiser, who is not listed among the invitees. */
    organiserId: number;
    conflicts: Conflict[] | null;
  },
) {
  const { frame, form } = props;
  const { t } = frame.ctx;
  const chosen = new Set((form.values.inviteeIds ?? "").split(",").filter(Boolean));
  const candidates = frame.members.filter((m) => m.userId !== props.organiserId);
  return (
    <>
      <TextField label={t("content.title")} schema={MeetingInput} name="title" form={form} />
      <div class="form-grid">
        <DateTimeField
          label={t("planning.start")}
          name="startAt"
          form={form}
          required
        />
        <DateTimeField
          label={t("planning.end")}
          name="endAt"
          form={form}
          required
        />
      </div>
      <span class="hint">{t("planning.zoneHint", { zone: frame.ctx.timeZone })}</span>
      <fieldset class="invitees">
        <legend>{t("meetings.invitees")}</legend>
        {candidates.length === 0
          ? <p class="muted">{t("meetings.noCandidates")}</p>
          : (
            <ul class="plain invitee-list">
              {candidates.map((m) => (
                <li>
                  <label class="check">
                    <input
                      type="checkbox"
                      name="inviteeIds"
                      value={m.userId}
                      checked={chosen.has(String(m.userId))}
                      data-invitee={m.userId}
                    />
                    {m.displayName} <span class="muted">{m.email}</span>
                  </label>
                </li>
              ))}
            </ul>
          )}
        <FieldError message={form.errors.inviteeIds} />
      </fieldset>
      <ConflictPanel frame={frame} conflicts={props.conflicts} />
      <TextField label={t("meetings.location")} schema={MeetingInput} name="location" form={form} />
      <MarkdownField
        t={t}
        label={t("meetings.minutes")}
        schema={MeetingInput}
        name="minutes"
        form={form}
        rows={6}
      />
    </>
  );
}

/** The data attributes `meetings.js` reads from a meeting form. */
function formData(frame: ProjectFrame, options: { exclude?: number; organiserId?: number }) {
  const { t, locale } = frame.ctx;
  const members: Record<string, string> = {};
  for (const m of frame.members) members[m.userId] = m.displayName;
  return {
    "data-meeting-form": true,
    "data-project": frame.project.id,
    "data-exclude": options.exclude ?? "",
    "data-organiser": options.organiserId ?? "",
    "data-locale": locale,
    "data-time-zone": frame.ctx.timeZone,
    "data-members": JSON.stringify(members),
    "data-strings": JSON.stringify({
      hint: t("meetings.checkHint"),
      checking: t("meetings.checking"),
      none: t("meetings.noConflicts"),
      count: t("meetings.conflictCount", { count: "{count}" }),
      failed: t("meetings.checkFailed"),
      private: t("meetings.privateItem"),
      forName: t("meetings.conflictFor", { name: "{name}" }),
      unknown: t("content.unknownUser"),
      meeting: t("meetings.conflict.meeting"),
      event: t("meetings.conflict.event"),
      todo: t("meetings.conflict.todo"),
    }),
  };
}

function MeetingSummary(props: { frame: ProjectFrame; meeting: Meeting }) {
  const { frame, meeting: m } = props;
  const { t, locale, timeZone } = frame.ctx;
  return (
    <li class="card meeting" data-meeting={m.id}>
      <div class="row">
        <a href={`/projects/${frame.project.id}/meetings/${m.id}`}>
          <strong>{m.title}</strong>
        </a>
        <span class="spacer"></span>
        <span class="muted">
          {formatSpan({ start: m.startAt, end: m.endAt, allDay: false }, locale, timeZone, true)}
        </span>
      </div>
      <p class="meta muted">
        {t("meetings.organiser", { name: nameOf(frame, m.creatorId) })}
        {" · "}
        {t("meetings.inviteeCount", { count: m.inviteeIds.length })}
        {m.location ? ` · ${m.location}` : ""}
      </p>
    </li>
  );
}

/** How the domain's refusals of a meeting's fields are said. */
const FIELDS = {
  startAt: "planning.timeInvalid",
  endAt: "planning.timeInvalid",
  "endAt:before_start": "planning.endBeforeStart",
  inviteeIds: "meetings.inviteesInvalid",
  title: "content.required",
} as const;

/** The meeting form's fields read into the input of a create or update (times in the viewer's zone). */
function readMeeting(fields: Fields, frame: ProjectFrame) {
  return {
    ...fields,
    startAt: readInstant(fields.startAt, frame.ctx.timeZone),
    endAt: readInstant(fields.endAt, frame.ctx.timeZone),
    inviteeIds: [...new Set((fields.inviteeIds ?? "").split(",").filter(Boolean).map(idOrNull))],
    location: orNull(fields.location)?.trim() ?? null,
    minutes: orNull(fields.minutes),
  };
}

const meetingsPage: AreaPage<Page<Meeting>> = {
  area: "meetings",
  load: (c, { services, ctx, project }) =>
    services.meetings.page(
      ctx.actor!,
      project.id,
      pageRequest({ page: c.req.query("page") }, { clampPage: true }),
    ),
  title: (_, t) => t("meetings.title"),
  view: ({ frame, data, shown }) => {
    const { t, user } = frame.ctx;
    const form = formState(shown, "create");
    // The page's meetings under the two headings (the list's order puts upcoming ones first).
    const { upcoming, past } = agendaOf(data.items, frame.ctx.now.toISOString());
    const firstPage = data.page === 1;
    return (
      <>
        <h1>{t("meetings.title")}</h1>
        <Alert message={shown.message} />
        <NewForm
          canWrite={frame.canWrite}
          form={form}
          summary={t("meetings.new")}
          action={`/projects/${frame.project.id}/meetings`}
          submit={t("meetings.create")}
          attrs={formData(frame, {})}
        >
          <MeetingFields frame={frame} form={form} organiserId={user!.id} conflicts={null} />
        </NewForm>
        {upcoming.length > 0 || firstPage
          ? (
            <>
              <h2>{t("meetings.upcoming")}</h2>
              {upcoming.length === 0
                ? <p class="muted">{t("meetings.noneUpcoming")}</p>
                : (
                  <ul class="plain meetings" data-meetings="upcoming">
                    {upcoming.map((m) => <MeetingSummary key={m.id} frame={frame} meeting={m} />)}
                  </ul>
                )}
            </>
          )
          : null}
        {past.length > 0
          ? (
            <>
              <h2>{t("meetings.past")}</h2>
              <ul class="plain meetings" data-meetings="past">
                {past.map((m) => <MeetingSummary key={m.id} frame={frame} meeting={m} />)}
              </ul>
            </>
          )
          : null}
        <p class="muted" data-total={data.total}>{t("meetings.total", { count: data.total })}</p>
        <Pager ctx={frame.ctx} page={data} path={`/projects/${frame.project.id}/meetings`} />
        {frame.canWrite ? <script type="module" src="/static/meetings.js"></script> : null}
      </>
    );
  },
};

/** A meeting, its conflicts, and whether it was just saved. */
interface MeetingData {
  meeting: Meeting;
  conflicts: Conflict[];
  saved: boolean;
}

const meetingPage: AreaPage<MeetingData> = {
  area: "meetings",
  load: async (c, { services, ctx, project }) => {
    const meeting = await services.meetings.get(ctx.actor!, project.id, paramId(c, "meetingId"));
    const saved = c.req.method === "GET" && c.req.query("saved") === "1";
    const conflicts = await services.meetings.warnings(ctx.actor!, project.id, meeting.id);
    return { meeting, conflicts, saved };
  },
  title: ({ meeting }) => meeting.title,
  view: ({ frame, data: { meeting: m, conflicts, saved }, shown }) => {
    const { t, locale, timeZone } = frame.ctx;
    const base = `/projects/${frame.project.id}/meetings/${m.id}`;
    const organiserIsMember = frame.members.some((x) => x.userId === m.creatorId);
    const when = formatSpan(
      { start: m.startAt, end: m.endAt, allDay: false },
      locale,
      timeZone,
      true,
    );
    const invitees = m.inviteeIds.length === 0
      ? t("meetings.noInvitees")
      : m.inviteeIds.map((id) => nameOf(frame, id)).join(", ");
    const form = formState(shown, "edit", {
      title: m.title,
      startAt: inputValue(m.startAt, timeZone),
      endAt: inputValue(m.endAt, timeZone),
      inviteeIds: m.inviteeIds.join(","),
      location: m.location ?? "",
      minutes: m.minutes ?? "",
    });
    return (
      <>
        <BackLink href={`/projects/${frame.project.id}/meetings`} label={t("meetings.back")} />
        <article data-meeting-detail={m.id}>
          <h1>{m.title}</h1>
          <Alert message={shown.message} />
          {saved
            ? (
              <div class={conflicts.length > 0 ? "notice" : "success"} role="status" data-saved>
                {conflicts.length > 0
                  ? t("meetings.savedWithConflicts", { count: conflicts.length })
                  : t("meetings.saved")}
              </div>
            )
            : null}
          <div class="card">
            <Facts
              facts={[
                [t("calendar.when"), when, { "data-meeting-when": true }],
                [t("meetings.location"), m.location, { "data-meeting-location": true }],
                [t("meetings.organiserLabel"), nameOf(frame, m.creatorId)],
                [t("meetings.invitees"), invitees, { "data-meeting-invitees": true }],
                [t("common.created"), <Time key="created" ctx={frame.ctx} iso={m.createdAt} />],
              ]}
            />
          </div>
          <section class="card" data-meeting-warnings aria-labelledby="meeting-conflicts">
            <h2 id="meeting-conflicts">{t("meetings.conflicts")}</h2>
            {conflicts.length === 0
              ? <p class="muted">{t("meetings.noConflicts")}</p>
              : (
                <ul class="plain conflict-list">
                  <ConflictItems frame={frame} conflicts={conflicts} />
                </ul>
              )}
          </section>
          <h2>{t("meetings.minutes")}</h2>
          <div class="card" data-meeting-minutes>
            {m.minutes
              ? <Markdown source={m.minutes} mentions={mentionsOf(frame)} />
              : <p class="muted">{t("meetings.noMinutes")}</p>}
          </div>
          <EditAndDelete
            show={frame.canWrite}
            form={form}
            action={base}
            summary={t("meetings.edit")}
            submit={t("content.save")}
            attrs={formData(frame, {
              exclude: m.id,
              ...(organiserIsMember && m.creatorId !== frame.ctx.user?.id
                ? { organiserId: m.creatorId }
                : {}),
            })}
            remove={{ label: t("meetings.delete"), confirm: t("meetings.deleteConfirm") }}
          >
            <MeetingFields
              frame={frame}
              form={form}
              organiserId={m.creatorId}
              conflicts={form.refused ? null : conflicts}
            />
          </EditAndDelete>
          {frame.canWrite ? <script type="module" src="/static/meetings.js"></script> : null}
        </article>
      </>
    );
  },
};

/** The meeting pages. */
export function meetingsPages(services: Services) {
  const { meetings } = services;
  const area = areaRoutes(services);
  const P = "/projects/:projectId{[0-9]+}/meetings";
  const M = `${P}/:meetingId{[0-9]+}`;
  area.things({
    list: [P, meetingsPage],
    item: [M, meetingPage],
    form: { schema: MeetingInput, read: readMeeting, fields: FIELDS, lists: ["inviteeIds"] },
    create: async ({ actor, projectId, input }) => {
      const { meeting } = await meetings.create(actor, projectId, input);
      return `/projects/${projectId}/meetings/${meeting.id}?saved=1`;
    },
    update: async ({ c, actor, projectId, input }) => {
      const meetingId = paramId(c, "meetingId");
      await meetings.update(actor, projectId, { meetingId, ...input });
      return `/projects/${projectId}/meetings/${meetingId}?saved=1`;
    },
    remove: async ({ c, actor, projectId }) => {
      const removed = await meetings.remove(actor, projectId, paramId(c, "meetingId"));
      return afterDelete(`/projects/${projectId}/meetings`, removed);
    },
  });
  return area.app;
}
