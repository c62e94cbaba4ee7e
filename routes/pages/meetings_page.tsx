/**
 * The meeting pages: the list (upcoming soonest first, then past ones, latest first) with
 * the new-meeting form, and a meeting's page with its minutes (Markdown), its schedule
 * conflicts, and its edit and delete forms. Conflicts never block saving: after a save the
 * meeting's page says so and lists them. `static/meetings.js` checks conflicts live while
 * the time and invitees change (GET /api/projects/{id}/meetings/check). Times are UTC.
 */
import { parseForm } from "./forms.ts";
import { type Context, Hono } from "hono";
import { DomainError } from "../../domain/errors.ts";
import type { Conflict, Meeting } from "../../domain/meetings.ts";
import type { Services } from "../../domain/services.ts";
import type { AppEnv } from "../api/openapi.ts";
import type { Translate } from "../i18n/i18n.ts";
import { FormCard, MarkdownField, TitleField } from "./components.tsx";
import { domainFieldErrors, formatSpan, inputValue, readRange } from "./calendar_page.tsx";
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
  submitForm,
  Time,
} from "./project_nav.tsx";

type Ctx = Context<AppEnv>;

const TITLE_MAX = 200;
const LOCATION_MAX = 500;
const MINUTES_MAX = 100_000;

/** Where a conflicting item is shown (it may be in another project the reader can see). */
function conflictHref(conflict: Conflict): string {
  const base = `/projects/${conflict.projectId}`;
  switch (conflict.type) {
    case "meeting":
      return `${base}/meetings/${conflict.id}`;
    case "event":
      return `${base}/calendar/events/${conflict.id}`;
    case "todo":
      return `${base}/todos/${conflict.id}`;
  }
}

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
            : <a href={conflictHref(c)}>{c.title}</a>}{" "}
          <span class="muted">
            {formatSpan({ start: c.start, end: c.end, allDay: false }, locale)}
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
    values: Record<string, string>;
    errors: Record<string, string>;
    /** The organiser, who is not listed among the invitees. */
    organiserId: number;
    conflicts: Conflict[] | null;
  },
) {
  const { frame, values, errors } = props;
  const { t } = frame.ctx;
  const chosen = new Set((values.inviteeIds ?? "").split(",").filter(Boolean));
  const candidates = frame.members.filter((m) => m.userId !== props.organiserId);
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
            data-meeting-start
          />
          <FieldError message={errors.startAt} />
        </label>
        <label>
          {t("planning.end")}
          <input
            type="datetime-local"
            name="endAt"
            required
            value={values.endAt ?? ""}
            data-meeting-end
          />
          <FieldError message={errors.endAt} />
        </label>
      </div>
      <span class="hint">{t("planning.utcHint")}</span>
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
        <FieldError message={errors.inviteeIds} />
      </fieldset>
      <ConflictPanel frame={frame} conflicts={props.conflicts} />
      <label>
        {t("meetings.location")}
        <input name="location" maxlength={LOCATION_MAX} value={values.location ?? ""} />
        <FieldError message={errors.location} />
      </label>
      <MarkdownField
        t={t}
        label={t("meetings.minutes")}
        name="minutes"
        value={values.minutes}
        max={MINUTES_MAX}
        rows={6}
        error={errors.minutes}
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
  const { t, locale } = frame.ctx;
  return (
    <li class="card meeting" data-meeting={m.id}>
      <div class="row">
        <a href={`/projects/${frame.project.id}/meetings/${m.id}`}>
          <strong>{m.title}</strong>
        </a>
        <span class="spacer"></span>
        <span class="muted">
          {formatSpan({ start: m.startAt, end: m.endAt, allDay: false }, locale)}
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

function MeetingsPage(
  props: {
    frame: ProjectFrame;
    meetings: Meeting[];
    now: string;
    message: string | null;
    state: FormState;
  },
) {
  const { frame, now } = props;
  const { t, user } = frame.ctx;
  const upcoming = props.meetings.filter((m) => m.endAt > now)
    .sort((a, b) => a.startAt.localeCompare(b.startAt) || a.id - b.id);
  const past = props.meetings.filter((m) => m.endAt <= now)
    .sort((a, b) => b.startAt.localeCompare(a.startAt) || b.id - a.id);
  return (
    <>
      <h1>{t("meetings.title")}</h1>
      <Alert message={props.message} />
      {frame.canWrite
        ? (
          <FormCard
            open={props.state.values !== undefined}
            summary={t("meetings.new")}
            action={`/projects/${frame.project.id}/meetings`}
            submit={t("meetings.create")}
            attrs={formData(frame, {})}
          >
            <MeetingFields
              frame={frame}
              values={props.state.values ?? {}}
              errors={props.state.errors ?? {}}
              organiserId={user!.id}
              conflicts={null}
            />
          </FormCard>
        )
        : null}
      <h2>{t("meetings.upcoming")}</h2>
      {upcoming.length === 0
        ? <p class="muted">{t("meetings.noneUpcoming")}</p>
        : (
          <ul class="plain meetings" data-meetings="upcoming">
            {upcoming.map((m) => <MeetingSummary key={m.id} frame={frame} meeting={m} />)}
          </ul>
        )}
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
      {frame.canWrite ? <script type="module" src="/static/meetings.js"></script> : null}
    </>
  );
}

function valuesOf(m: Meeting): Record<string, string> {
  return {
    title: m.title,
    startAt: inputValue(m.startAt),
    endAt: inputValue(m.endAt),
    inviteeIds: m.inviteeIds.join(","),
    location: m.location ?? "",
    minutes: m.minutes ?? "",
  };
}

function MeetingPage(
  props: {
    frame: ProjectFrame;
    meeting: Meeting;
    conflicts: Conflict[];
    saved: boolean;
    message: string | null;
    edit: FormState;
  },
) {
  const { frame, meeting: m, conflicts } = props;
  const { t, locale } = frame.ctx;
  const base = `/projects/${frame.project.id}/meetings/${m.id}`;
  const organiserIsMember = frame.members.some((x) => x.userId === m.creatorId);
  const failed = props.edit.values !== undefined;
  return (
    <>
      <p>
        <a href={`/projects/${frame.project.id}/meetings`}>{t("meetings.back")}</a>
      </p>
      <article data-meeting-detail={m.id}>
        <h1>{m.title}</h1>
        <Alert message={props.message} />
        {props.saved
          ? (
            <div class={conflicts.length > 0 ? "notice" : "success"} role="status" data-saved>
              {conflicts.length > 0
                ? t("meetings.savedWithConflicts", { count: conflicts.length })
                : t("meetings.saved")}
            </div>
          )
          : null}
        <div class="card">
          <dl class="facts">
            <dt>{t("calendar.when")}</dt>
            <dd data-meeting-when>
              {formatSpan({ start: m.startAt, end: m.endAt, allDay: false }, locale)}
            </dd>
            {m.location
              ? (
                <>
                  <dt>{t("meetings.location")}</dt>
                  <dd data-meeting-location>{m.location}</dd>
                </>
              )
              : null}
            <dt>{t("meetings.organiserLabel")}</dt>
            <dd>{nameOf(frame, m.creatorId)}</dd>
            <dt>{t("meetings.invitees")}</dt>
            <dd data-meeting-invitees>
              {m.inviteeIds.length === 0
                ? t("meetings.noInvitees")
                : m.inviteeIds.map((id) => nameOf(frame, id)).join(", ")}
            </dd>
            <dt>{t("common.created")}</dt>
            <dd>
              <Time ctx={frame.ctx} iso={m.createdAt} />
            </dd>
          </dl>
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
            ? <Markdown source={m.minutes} />
            : <p class="muted">{t("meetings.noMinutes")}</p>}
        </div>
        {frame.canWrite
          ? (
            <>
              <FormCard
                open={failed}
                summary={t("meetings.edit")}
                action={base}
                submit={t("content.save")}
                attrs={formData(frame, {
                  exclude: m.id,
                  ...(organiserIsMember && m.creatorId !== frame.ctx.user?.id
                    ? { organiserId: m.creatorId }
                    : {}),
                })}
              >
                <MeetingFields
                  frame={frame}
                  values={props.edit.values ?? valuesOf(m)}
                  errors={props.edit.errors ?? {}}
                  organiserId={m.creatorId}
                  conflicts={failed ? null : conflicts}
                />
              </FormCard>
              <form
                method="post"
                action={`${base}/delete`}
                data-confirm={t("meetings.deleteConfirm")}
              >
                <button class="danger" type="submit">{t("meetings.delete")}</button>
              </form>
              <script type="module" src="/static/meetings.js"></script>
            </>
          )
          : null}
      </article>
    </>
  );
}

/** A meeting form's text fields and its chosen invitees (a repeated field). */
async function readBody(c: Ctx): Promise<Record<string, string>> {
  const body = await parseForm(c, { all: true });
  const fields: Record<string, string> = {};
  let invitees: string[] = [];
  for (const [key, raw] of Object.entries(body)) {
    const values = (Array.isArray(raw) ? raw : [raw]).filter((v): v is string =>
      typeof v === "string"
    );
    if (key === "inviteeIds") invitees = values;
    else if (values.length > 0) fields[key] = values[values.length - 1]!;
  }
  fields.inviteeIds = invitees.map((v) => v.trim()).filter(Boolean).join(",");
  return fields;
}

interface MeetingInput {
  title: string;
  startAt: string;
  endAt: string;
  inviteeIds: number[];
  location: string | null;
  minutes: string | null;
}

function readForm(
  fields: Record<string, string>,
  t: Translate,
  frame: ProjectFrame,
): { ok: true; input: MeetingInput } | { ok: false; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  checkText(errors, t, { name: "title", value: fields.title, max: TITLE_MAX, required: true });
  checkText(errors, t, {
    name: "location",
    value: fields.location,
    max: LOCATION_MAX,
    required: false,
  });
  checkText(errors, t, {
    name: "minutes",
    value: fields.minutes,
    max: MINUTES_MAX,
    required: false,
  });
  const { startAt, endAt } = readRange(fields, errors, t);
  const raw = (fields.inviteeIds ?? "").split(",").filter(Boolean);
  const memberIds = new Set(frame.members.map((m) => m.userId));
  const inviteeIds = [...new Set(raw.map(Number))];
  if (raw.some((v) => !/^\d{1,15}$/.test(v)) || inviteeIds.some((id) => !memberIds.has(id))) {
    errors.inviteeIds = t("meetings.inviteesInvalid");
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const optional = (value: string | undefined) => (value ?? "").trim() === "" ? null : value!;
  return {
    ok: true,
    input: {
      title: fields.title!.trim(),
      startAt,
      endAt,
      inviteeIds,
      location: optional(fields.location)?.trim() ?? null,
      minutes: optional(fields.minutes),
    },
  };
}

/** The meeting pages. */
export function meetingsPages(services: Services) {
  const app = new Hono<AppEnv>();
  const { meetings } = services;
  const run = frameRunner(services, { notFound });
  const P = "/projects/:projectId{[0-9]+}/meetings";
  const M = `${P}/:meetingId{[0-9]+}`;

  /**
   * A meeting's conflicts as its save reported them: for its organiser and invitees (those
   * still members), itself left out.
   */
  const conflictsOf = (frame: ProjectFrame, meeting: Meeting): Conflict[] => {
    const participants = new Set([meeting.creatorId, ...meeting.inviteeIds]);
    const members = new Set(frame.members.map((m) => m.userId));
    try {
      return meetings.check(frame.ctx.actor!, frame.project.id, {
        startAt: meeting.startAt,
        endAt: meeting.endAt,
        inviteeIds: [...participants].filter((id) => members.has(id)),
        excludeMeetingId: meeting.id,
      }).filter((c) => c.type === "event" || participants.has(c.userId));
    } catch (error) {
      if (error instanceof DomainError && error.code === "validation") return [];
      throw error;
    }
  };

  const showList = (
    c: Ctx,
    frame: ProjectFrame,
    extra: { status?: number; message?: string; state?: FormState } = {},
  ) =>
    renderArea(c, frame, {
      area: "meetings",
      title: frame.ctx.t("meetings.title"),
      status: extra.status ?? 200,
      body: (
        <MeetingsPage
          frame={frame}
          meetings={meetings.list(frame.ctx.actor!, frame.project.id)}
          now={services.clock.now().toISOString()}
          message={extra.message ?? null}
          state={extra.state ?? {}}
        />
      ),
    });

  const showMeeting = (
    c: Ctx,
    frame: ProjectFrame,
    extra: { status?: number; message?: string; edit?: FormState } = {},
  ) => {
    const meeting = meetings.get(frame.ctx.actor!, frame.project.id, paramId(c, "meetingId"));
    return renderArea(c, frame, {
      area: "meetings",
      title: meeting.title,
      status: extra.status ?? 200,
      body: (
        <MeetingPage
          frame={frame}
          meeting={meeting}
          conflicts={conflictsOf(frame, meeting)}
          saved={c.req.query("saved") === "1" && extra.status === undefined}
          message={extra.message ?? null}
          edit={extra.edit ?? {}}
        />
      ),
    });
  };

  app.get(P, (c) => run(c, (frame) => showList(c, frame)));

  app.post(P, (c) =>
    run(c, async (frame) => {
      const { t, actor } = frame.ctx;
      const fields = await readBody(c);
      return submitForm(c, frame, {
        form: readForm(fields, t, frame),
        values: fields,
        change: (input) => {
          const { meeting } = meetings.create(actor!, frame.project.id, input);
          return `/projects/${frame.project.id}/meetings/${meeting.id}?saved=1`;
        },
        fieldErrors: domainFieldErrors,
        show: (failure, state) => showList(c, frame, { ...failure, state }),
      });
    }));

  app.get(M, (c) => run(c, (frame) => showMeeting(c, frame)));

  app.post(M, (c) =>
    run(c, async (frame) => {
      const { t, actor } = frame.ctx;
      const fields = await readBody(c);
      const meetingId = paramId(c, "meetingId");
      meetings.get(actor!, frame.project.id, meetingId);
      return submitForm(c, frame, {
        form: readForm(fields, t, frame),
        values: fields,
        change: (input) => {
          meetings.update(actor!, frame.project.id, { meetingId, ...input });
          return `/projects/${frame.project.id}/meetings/${meetingId}?saved=1`;
        },
        fieldErrors: domainFieldErrors,
        show: (failure, edit) => showMeeting(c, frame, { ...failure, edit }),
      });
    }));

  app.post(`${M}/delete`, (c) =>
    run(c, (frame) =>
      attempt(c, frame, {
        change: () => {
          meetings.remove(frame.ctx.actor!, frame.project.id, paramId(c, "meetingId"));
          return `/projects/${frame.project.id}/meetings`;
        },
        fail: (failure) => showMeeting(c, frame, failure),
      })));

  return app;
}
