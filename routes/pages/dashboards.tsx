/**
 * The dashboards. The project dashboard (on the project page, `/projects/{id}`) shows every
 * section of `services.dashboards.project`; the personal dashboard (`/`) every section of
 * `services.dashboards.personal`. Each is one element (`[data-dashboard]`) that is also the
 * answer to `?fragment=1`, so `static/dashboard.js` re-renders it with the same markup:
 * live from the project stream on the project dashboard, by re-fetching every 30 s on the
 * personal one.
 */
import type { Child } from "hono/jsx";
import type { Activity } from "../../domain/projects/activity.ts";
import type { PersonalDashboard, ProjectDashboard } from "../../domain/overview/dashboards.ts";
import { clipText, markdownToText, type MentionContext } from "../../domain/formats/markdown.ts";
import type { Meeting } from "../../domain/planning/meetings.ts";
import type { Item } from "../../domain/planning/todos.ts";
import { en, type MessageKey } from "../i18n/en.ts";
import { formatDay, formatSize, formatSpan } from "../i18n/format.ts";
import type { PageCtx } from "./context.ts";
import { mentionsOf, nameOf, type ProjectFrame } from "./kit/area.tsx";
import { activityHref, kindLabel, ProgressBar, Time } from "./kit/content.tsx";
import { EVENT_NAMES } from "../../domain/projects/event_names.ts";

/** Chat text or a description shown on a dashboard, at most this many characters. */
const EXCERPT = 140;

/** Markdown on one line: its plain text (mentions as names), cut to the excerpt length. */
function excerpt(source: string, mentions?: MentionContext): string {
  return clipText(markdownToText(source, mentions), EXCERPT);
}

/** A "see all" link. */
type More = { href: string; label: string } | undefined;

/** One dashboard section: a heading, its content or an empty message, and a "see all" link. */
function Section(
  props: {
    name: string;
    title: string;
    /** The total beside the title: a number, or a lower bound already worded ("1,000+"). */
    count?: number | string | undefined;
    empty: string | null;
    more?: More;
    /** Said under the list when it shows fewer entries than there are. */
    capped?: string | null | undefined;
    children?: Child;
  },
) {
  const id = `dash-${props.name}`;
  return (
    <section class="card dash-section" data-section={props.name} aria-labelledby={id}>
      <div class="row">
        <h2 id={id}>
          {props.title}
          {props.count !== undefined
            ? <span class="count muted" data-count>{` (${props.count})`}</span>
            : null}
        </h2>
        <span class="spacer"></span>
        {props.more ? <a class="dash-more" href={props.more.href}>{props.more.label}</a> : null}
      </div>
      {props.empty !== null ? <p class="muted dash-empty">{props.empty}</p> : props.children}
      {props.capped ? <p class="hint dash-capped" data-capped>{props.capped}</p> : null}
    </section>
  );
}

/**
 * A capped list's total, and the context its "showing n of total" line is said in; `atLeast`
 * when the count stopped at `total` (the activity's: there are more).
 */
type Total = { total: number; t: PageCtx["t"]; atLeast?: boolean; locale?: string };

/** The total as shown: the number, or past a count's cap "1,000+" ("1,000 件以上"). */
const totalLabel = (total: Total): number | string =>
  total.atLeast
    ? total.t("dash.countAtLeast", { count: total.total.toLocaleString(total.locale) })
    : total.total;

/** "Showing 20 of 45." when a capped list shows fewer than there are, else null. */
const cappedNote = (shown: number, total: Total | undefined) =>
  total && total.total > shown
    ? total.t("dash.shownOf", { shown, total: totalLabel(total) })
    : null;

/**
 * A section listing `items`, or `empty` when there are none; a capped list (`total`) shows
 * its total beside the title and says when it shows fewer entries than there are.
 */
function ListSection<T>(
  props: {
    name: string;
    title: string;
    items: T[];
    empty: string;
    total?: Total | undefined;
    more?: More;
    render: (item: T) => Child;
  },
) {
  const { items } = props;
  return (
    <Section
      name={props.name}
      title={props.title}
      count={props.total ? totalLabel(props.total) : undefined}
      empty={items.length === 0 ? props.empty : null}
      more={props.more}
      capped={cappedNote(items.length, props.total)}
    >
      <ul class="plain dash-list">{items.map(props.render)}</ul>
    </Section>
  );
}

/** A line of a list: what it is about (a link), then its facts. */
function Line(props: { attrs: Record<string, string | number>; head: Child; facts: Child }) {
  return (
    <li {...props.attrs}>
      {props.head}
      <span class="dash-facts muted">{props.facts}</span>
    </li>
  );
}

/** A tag naming a project, when there is one to name. */
const projectTag = (name: string | null) => name ? <span class="tag">{name}</span> : null;

/** A section listing to-dos: each its title, due date (marked when overdue) and assignee. */
function TodoSection(
  props: {
    ctx: PageCtx;
    name: string;
    title: MessageKey;
    empty: MessageKey;
    items: Item[];
    /** Counted up to the dashboards' cap (`exact` false past it). */
    total: { total: number; exact: boolean };
    today: string;
    assignee?: (item: Item) => string | null;
    project?: (item: Item) => string | null;
    more?: More;
  },
) {
  const { t, locale } = props.ctx;
  return (
    <ListSection
      name={props.name}
      title={t(props.title)}
      items={props.items}
      empty={t(props.empty)}
      total={{ total: props.total.total, t, atLeast: !props.total.exact, locale }}
      more={props.more}
      render={(item) => {
        const overdue = item.dueDate !== null && item.dueDate < props.today;
        const assignee = props.assignee?.(item);
        return (
          <Line
            attrs={{ "data-item": item.id }}
            head={<a href={`/projects/${item.projectId}/todos/${item.id}`}>{item.title}</a>}
            facts={
              <>
                {projectTag(props.project?.(item) ?? null)}
                {item.priority === "high"
                  ? <span class="tag priority priority-high">{t("todos.priority.high")}</span>
                  : null}
                {item.dueDate
                  ? (
                    <span class={overdue ? "due overdue" : "due"}>
                      {t("todos.due", { date: formatDay(item.dueDate, locale) })}
                    </span>
                  )
                  : null}
                {assignee ? <span>{assignee}</span> : null}
              </>
            }
          />
        );
      }}
    />
  );
}

function MeetingLine(
  props: { ctx: PageCtx; meeting: Meeting; project: string | null; organiser: string | null },
) {
  const { ctx, meeting: m } = props;
  return (
    <Line
      attrs={{ "data-meeting": m.id }}
      head={<a href={`/projects/${m.projectId}/meetings/${m.id}`}>{m.title}</a>}
      facts={
        <>
          {projectTag(props.project)}
          <span>
            {formatSpan(
              { start: m.startAt, end: m.endAt, allDay: false },
              ctx.locale,
              ctx.timeZone,
              true,
            )}
          </span>
          {m.location ? <span>{m.location}</span> : null}
          {props.organiser
            ? <span>{ctx.t("meetings.organiser", { name: props.organiser })}</span>
            : null}
        </>
      }
    />
  );
}

/** The activity section: who did what to which subject, and when. */
function ActivitySection(
  props: {
    ctx: PageCtx;
    entries: Activity[];
    /** All the live entries, counted up to the dashboards' cap (`exact` false past it). */
    total: { total: number; exact: boolean };
    who: (entry: Activity) => string;
    project?: (entry: Activity) => string | null;
    more?: More;
  },
) {
  const { t, locale } = props.ctx;
  const total = { total: props.total.total, t, atLeast: !props.total.exact, locale };
  return (
    <Section
      name="activity"
      title={t("dash.recentActivity")}
      count={totalLabel(total)}
      empty={props.entries.length === 0 ? t("activity.none") : null}
      more={props.more}
      capped={cappedNote(props.entries.length, total)}
    >
      <ul class="plain dash-list">
        {props.entries.map((entry) => {
          const href = activityHref(entry);
          return (
            <Line
              attrs={{ "data-activity": entry.kind }}
              head={
                <span>
                  <strong>{props.who(entry)}</strong> {kindLabel(t, entry.kind)}
                  {": "}
                  {href ? <a href={href}>{entry.summary}</a> : entry.summary}
                </span>
              }
              facts={
                <>
                  {projectTag(props.project?.(entry) ?? null)}
                  <Time ctx={props.ctx} iso={entry.createdAt} relative />
                </>
              }
            />
          );
        })}
      </ul>
    </Section>
  );
}

/** The project dashboard: the project page's middle and its `?fragment=1` answer. */
export function ProjectDashboardView(
  props: { frame: ProjectFrame; data: ProjectDashboard; today: string },
) {
  const { frame, data, today } = props;
  const { ctx } = frame;
  const { t, locale } = ctx;
  const base = `/projects/${frame.project.id}`;
  const more = (path: string, label: MessageKey) => ({ href: `${base}/${path}`, label: t(label) });
  const assignee = (item: Item) => item.assigneeId === null ? null : nameOf(frame, item.assigneeId);
  const next = data.nextMeeting;
  const todos = { ctx, today, assignee };
  /** "All N …": the full list, where the dashboard's first entries continue. */
  /** Past the count's cap, "All 1,000+ …" ("すべて（1,000+ 件）"). */
  const all = (href: string, label: MessageKey, count: number, exact = true) => ({
    href: `${base}/${href}`,
    label: t(label, { count: exact ? count : `${count.toLocaleString(locale)}+` }),
  });
  // The board's in-progress column, when the dashboard knows its id.
  const inProgressColumn = data.inProgressTodos[0]?.columnId;
  return (
    <div
      class="dashboard"
      data-dashboard="project"
      data-project={frame.project.id}
      data-live-events={EVENT_NAMES.join(" ")}
    >
      <TodoSection
        {...todos}
        name="inProgress"
        title="dash.inProgress"
        empty="dash.noInProgress"
        items={data.inProgressTodos}
        total={{ total: data.inProgressTodosTotal, exact: data.inProgressTodosTotalIsExact }}
        more={all(
          inProgressColumn === undefined ? "todos" : `todos#column-${inProgressColumn}`,
          "dash.allInProgress",
          data.inProgressTodosTotal,
          data.inProgressTodosTotalIsExact,
        )}
      />
      <TodoSection
        {...todos}
        name="nearDue"
        title="dash.nearDue"
        empty="dash.noNearDue"
        items={data.nearDueTodos}
        total={{ total: data.nearDueTodosTotal, exact: data.nearDueTodosTotalIsExact }}
        more={all(
          "todos",
          "dash.allNearDue",
          data.nearDueTodosTotal,
          data.nearDueTodosTotalIsExact,
        )}
      />
      <Section
        name="nextMeeting"
        title={t("dash.nextMeeting")}
        empty={next === null ? t("dash.noNextMeeting") : null}
        more={more("meetings", "dash.allMeetings")}
      >
        {next
          ? (
            <ul class="plain dash-list">
              <MeetingLine
                ctx={ctx}
                meeting={next}
                project={null}
                organiser={nameOf(frame, next.creatorId)}
              />
            </ul>
          )
          : null}
      </Section>
      <ListSection
        name="milestones"
        title={t("milestones.title")}
        items={data.milestones}
        empty={t("milestones.none")}
        total={{ total: data.milestonesTotal, t }}
        more={all("milestones", "dash.allMilestonesCount", data.milestonesTotal)}
        render={(m) => (
          <li data-milestone={m.id}>
            <div class="row">
              <a href={`${base}/milestones#milestone-${m.id}`}>{m.title}</a>
              <span class="spacer"></span>
              {m.dueDate
                ? (
                  <span class="muted">
                    {t("todos.due", { date: formatDay(m.dueDate, locale) })}
                  </span>
                )
                : null}
            </div>
            <ProgressBar t={t} title={m.title} progress={m.progress} />
          </li>
        )}
      />
      <ListSection
        name="chat"
        title={t("dash.latestChat")}
        items={data.latestChat}
        total={{ total: data.latestChatTotal, t, atLeast: !data.latestChatTotalIsExact, locale }}
        empty={t("chat.empty")}
        more={more("chat", "dash.openChat")}
        render={(m) => (
          <Line
            attrs={{ "data-message": m.id }}
            head={
              <span>
                <strong>{nameOf(frame, m.authorId)}</strong> {excerpt(m.text, mentionsOf(frame))}
              </span>
            }
            facts={<Time ctx={ctx} iso={m.createdAt} relative />}
          />
        )}
      />
      <ListSection
        name="threads"
        title={t("dash.latestThreads")}
        items={data.latestThreads}
        total={{
          total: data.latestThreadsTotal,
          t,
          atLeast: !data.latestThreadsTotalIsExact,
          locale,
        }}
        empty={t("board.none")}
        more={more("board", "dash.allThreads")}
        render={(th) => (
          <Line
            attrs={{ "data-thread": th.id }}
            head={<a href={`${base}/board/${th.id}`}>{th.title}</a>}
            facts={
              <>
                <span>{nameOf(frame, th.authorId)}</span>
                <span>{t("board.commentCount", { count: th.commentCount })}</span>
                <Time ctx={ctx} iso={th.createdAt} />
              </>
            }
          />
        )}
      />
      <ListSection
        name="notes"
        title={t("dash.latestNotes")}
        items={data.latestNotes}
        total={{ total: data.latestNotesTotal, t, atLeast: !data.latestNotesTotalIsExact, locale }}
        empty={t("notes.none")}
        more={more("notes", "dash.allNotes")}
        render={(n) => (
          <Line
            attrs={{ "data-note": n.id }}
            head={<a href={`${base}/notes/${n.id}`}>{n.title}</a>}
            facts={
              <>
                <span>{nameOf(frame, n.authorId)}</span>
                <Time ctx={ctx} iso={n.createdAt} />
              </>
            }
          />
        )}
      />
      <ListSection
        name="files"
        title={t("dash.latestFiles")}
        items={data.latestFiles}
        total={{ total: data.latestFilesTotal, t, atLeast: !data.latestFilesTotalIsExact, locale }}
        empty={t("files.none")}
        more={more("files", "dash.allFiles")}
        render={(f) => (
          <Line
            attrs={{ "data-file": f.id }}
            head={<a href={f.downloadUrl} download={f.name}>{f.name}</a>}
            facts={
              <>
                <span>{formatSize(f.size, locale)}</span>
                <span>{nameOf(frame, f.uploaderId)}</span>
                <Time ctx={ctx} iso={f.createdAt} />
              </>
            }
          />
        )}
      />
      <ActivitySection
        ctx={ctx}
        entries={data.recentActivity}
        total={{ total: data.recentActivityTotal, exact: data.recentActivityTotalIsExact }}
        who={(entry) => nameOf(frame, entry.actorId)}
        more={more("activity", "dash.allActivity")}
      />
      <p class="hint dash-live" data-dashboard-live hidden>{t("dash.live")}</p>
    </div>
  );
}

/** The personal dashboard: the home page's middle and its `?fragment=1` answer. */
export function PersonalDashboardView(
  props: {
    ctx: PageCtx;
    data: PersonalDashboard;
    /** The names of projects and people shown, by id. */
    names: { projects: Map<number, string>; people: Map<number, string> };
    today: string;
  },
) {
  const { ctx, data, names } = props;
  const { t } = ctx;
  const projectName = (id: number | null) => id === null ? null : names.projects.get(id) ?? null;
  const person = (id: number | null) =>
    id === null
      ? t("content.unknownUser")
      : id === ctx.user?.id
      ? ctx.user.displayName
      : names.people.get(id) ?? t("content.unknownUser");
  const unread = data.unreadNotifications;
  const todos = { ctx, today: props.today, project: (item: Item) => projectName(item.projectId) };
  return (
    <div class="dashboard" data-dashboard="personal" data-unread={unread.count}>
      <Section
        name="projects"
        title={t("dashboard.myProjects")}
        count={data.projectsTotal}
        empty={null}
        more={{
          href: "/projects",
          label: t("dash.allProjectsCount", { count: data.projectsTotal }),
        }}
        capped={cappedNote(data.projects.length, { total: data.projectsTotal, t })}
      >
        {data.projects.length === 0
          ? (
            <p class="muted dash-empty">
              {t("dashboard.noProjects")} <a href="/projects">{t("projects.create")}</a>
            </p>
          )
          : (
            <ul class="plain dash-list">
              {data.projects.map((p) => (
                <Line
                  attrs={{ "data-project": p.id }}
                  head={
                    <a href={`/projects/${p.id}`}>
                      <strong>{p.name}</strong>
                    </a>
                  }
                  facts={
                    <>
                      {p.myRole ? <span class="tag">{t(`role.${p.myRole}`)}</span> : null}
                      {p.description ? <span>{excerpt(p.description)}</span> : null}
                    </>
                  }
                />
              ))}
            </ul>
          )}
      </Section>
      <TodoSection
        {...todos}
        name="overdue"
        title="dash.overdue"
        empty="dash.noOverdue"
        items={data.overdueTodos}
        total={{ total: data.overdueTodosTotal, exact: data.overdueTodosTotalIsExact }}
      />
      <TodoSection
        {...todos}
        name="myTodos"
        title="dash.myTodos"
        empty="dash.noMyTodos"
        items={data.incompleteTodos}
        total={{ total: data.incompleteTodosTotal, exact: data.incompleteTodosTotalIsExact }}
      />
      <ListSection
        name="meetings"
        title={t("dash.upcomingMeetings")}
        items={data.upcomingMeetings}
        empty={t("dash.noMeetings")}
        total={{ total: data.upcomingMeetingsTotal, t }}
        render={(m) => (
          <MeetingLine
            ctx={ctx}
            meeting={m}
            project={projectName(m.projectId)}
            organiser={person(m.creatorId)}
          />
        )}
      />
      <Section
        name="notifications"
        title={t("dash.unread")}
        count={unread.count}
        empty={unread.count === 0 ? t("notifications.none") : null}
        more={{ href: "/notifications", label: t("dash.allNotifications") }}
      >
        <p class="muted" data-unread-count={unread.count}>
          {t("notifications.unread", { count: unread.count })}
        </p>
        <ul class="plain dash-list">
          {unread.latest.map((n) => (
            <Line
              attrs={{ "data-notification": n.id }}
              head={
                <>
                  <a href={n.projectId ? `/projects/${n.projectId}` : "/notifications"}>
                    {`kind.${n.kind}` in en ? t(`kind.${n.kind}` as MessageKey) : n.kind}
                  </a>{" "}
                  <span>{n.text}</span>
                </>
              }
              facts={
                <>
                  {projectTag(projectName(n.projectId))}
                  <Time ctx={ctx} iso={n.createdAt} relative />
                </>
              }
            />
          ))}
        </ul>
      </Section>
      <ActivitySection
        ctx={ctx}
        entries={data.recentActivity}
        total={{ total: data.recentActivityTotal, exact: data.recentActivityTotalIsExact }}
        who={(entry) => person(entry.actorId)}
        project={(entry) => projectName(entry.projectId)}
      />
    </div>
  );
}
