/**
 * The dashboards. The project dashboard (on the project page, `/projects/{id}`) shows every
 * section of `services.dashboards.project`; the personal dashboard (`/`) every section of
 * `services.dashboards.personal`. Each is one element (`[data-dashboard]`) that is also the
 * answer to `?fragment=1`, so `static/dashboard.js` re-renders it with the same markup:
 * live from the project stream on the project dashboard, by re-fetching every 30 s on the
 * personal one.
 */
import type { Child } from "hono/jsx";
import type { Activity } from "../../domain/activity.ts";
import type { PersonalDashboard, ProjectDashboard } from "../../domain/dashboards.ts";
import type { Meeting } from "../../domain/meetings.ts";
import type { Project } from "../../domain/projects.ts";
import type { Item } from "../../domain/todos.ts";
import { en, type MessageKey } from "../i18n/en.ts";
import type { Translate } from "../i18n/i18n.ts";
import type { PageCtx } from "./context.ts";
import { nameOf, type ProjectFrame } from "./kit/area.tsx";
import { activityHref, formatSize, kindLabel, ProgressBar, Time } from "./kit/content.tsx";
import { formatDay, formatSpan } from "./kit/dates.ts";

/** Chat text shown on a dashboard, at most this many characters. */
const EXCERPT = 140;

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > EXCERPT ? `${flat.slice(0, EXCERPT - 1)}…` : flat;
}

/** One dashboard section: a heading, its content or an empty message, and a "see all" link. */
function Section(
  props: {
    name: string;
    title: string;
    count?: number | undefined;
    empty: string | null;
    more?: { href: string; label: string } | undefined;
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
    </section>
  );
}

/** A section listing `items` (and their count when `counted`), or `empty` when there are none. */
function ListSection<T>(
  props: {
    name: string;
    title: string;
    items: T[];
    empty: string;
    counted?: boolean;
    more?: { href: string; label: string } | undefined;
    render: (item: T) => Child;
  },
) {
  const { items } = props;
  return (
    <Section
      name={props.name}
      title={props.title}
      count={props.counted ? items.length : undefined}
      empty={items.length === 0 ? props.empty : null}
      more={props.more}
    >
      <ul class="plain dash-list">{items.map(props.render)}</ul>
    </Section>
  );
}

/** A to-do line: its title, and its due date (marked when overdue) and assignee. */
function TodoLine(
  props: {
    t: Translate;
    locale: PageCtx["locale"];
    item: Item;
    today: string;
    assignee: string | null;
    project: string | null;
  },
) {
  const { t, locale, item } = props;
  const overdue = item.dueDate !== null && item.dueDate < props.today;
  return (
    <li data-item={item.id}>
      <a href={`/projects/${item.projectId}/todos/${item.id}`}>{item.title}</a>
      <span class="dash-facts muted">
        {props.project ? <span class="tag">{props.project}</span> : null}
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
        {props.assignee ? <span>{props.assignee}</span> : null}
      </span>
    </li>
  );
}

/** A dashboard section listing to-dos, or its empty message when there are none. */
function TodoSection(
  props: {
    t: Translate;
    locale: PageCtx["locale"];
    name: string;
    title: string;
    empty: string;
    items: Item[];
    today: string;
    assignee: (item: Item) => string | null;
    project: (item: Item) => string | null;
    more?: { href: string; label: string };
  },
) {
  return (
    <ListSection
      name={props.name}
      title={props.title}
      items={props.items}
      empty={props.empty}
      counted
      more={props.more}
      render={(item) => (
        <TodoLine
          t={props.t}
          locale={props.locale}
          item={item}
          today={props.today}
          assignee={props.assignee(item)}
          project={props.project(item)}
        />
      )}
    />
  );
}

function MeetingLine(
  props: { ctx: PageCtx; meeting: Meeting; project: string | null; organiser: string | null },
) {
  const { ctx, meeting: m } = props;
  return (
    <li data-meeting={m.id}>
      <a href={`/projects/${m.projectId}/meetings/${m.id}`}>{m.title}</a>
      <span class="dash-facts muted">
        {props.project ? <span class="tag">{props.project}</span> : null}
        <span>{formatSpan({ start: m.startAt, end: m.endAt, allDay: false }, ctx.locale)}</span>
        {m.location ? <span>{m.location}</span> : null}
        {props.organiser
          ? <span>{ctx.t("meetings.organiser", { name: props.organiser })}</span>
          : null}
      </span>
    </li>
  );
}

function ActivityList(
  props: {
    ctx: PageCtx;
    entries: Activity[];
    who: (entry: Activity) => string;
    project?: (entry: Activity) => string | null;
  },
) {
  const { t } = props.ctx;
  return (
    <ul class="plain dash-list">
      {props.entries.map((entry) => {
        const href = activityHref(entry);
        const project = props.project?.(entry) ?? null;
        return (
          <li data-activity={entry.kind}>
            <span>
              <strong>{props.who(entry)}</strong> {kindLabel(t, entry.kind)}
              {": "}
              {href ? <a href={href}>{entry.summary}</a> : entry.summary}
            </span>
            <span class="dash-facts muted">
              {project ? <span class="tag">{project}</span> : null}
              <Time ctx={props.ctx} iso={entry.createdAt} />
            </span>
          </li>
        );
      })}
    </ul>
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
  const assignee = (item: Item) => item.assigneeId === null ? null : nameOf(frame, item.assigneeId);
  const next = data.nextMeeting;
  return (
    <div class="dashboard" data-dashboard="project" data-project={frame.project.id}>
      <TodoSection
        t={t}
        locale={locale}
        name="inProgress"
        title={t("dash.inProgress")}
        empty={t("dash.noInProgress")}
        items={data.inProgressTodos}
        today={today}
        assignee={assignee}
        project={() => null}
        more={{ href: `${base}/todos`, label: t("dash.allTodos") }}
      />
      <TodoSection
        t={t}
        locale={locale}
        name="nearDue"
        title={t("dash.nearDue")}
        empty={t("dash.noNearDue")}
        items={data.nearDueTodos}
        today={today}
        assignee={assignee}
        project={() => null}
        more={{ href: `${base}/todos`, label: t("dash.allTodos") }}
      />
      <Section
        name="nextMeeting"
        title={t("dash.nextMeeting")}
        empty={next === null ? t("dash.noNextMeeting") : null}
        more={{ href: `${base}/meetings`, label: t("dash.allMeetings") }}
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
        counted
        more={{ href: `${base}/milestones`, label: t("dash.allMilestones") }}
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
        empty={t("chat.empty")}
        more={{ href: `${base}/chat`, label: t("dash.openChat") }}
        render={(m) => (
          <li data-message={m.id}>
            <span>
              <strong>{nameOf(frame, m.authorId)}</strong> {excerpt(m.text)}
            </span>
            <span class="dash-facts muted">
              <Time ctx={ctx} iso={m.createdAt} />
            </span>
          </li>
        )}
      />
      <ListSection
        name="threads"
        title={t("dash.latestThreads")}
        items={data.latestThreads}
        empty={t("board.none")}
        more={{ href: `${base}/board`, label: t("dash.allThreads") }}
        render={(th) => (
          <li data-thread={th.id}>
            <a href={`${base}/board/${th.id}`}>{th.title}</a>
            <span class="dash-facts muted">
              <span>{nameOf(frame, th.authorId)}</span>
              <span>{t("board.commentCount", { count: th.commentCount })}</span>
              <Time ctx={ctx} iso={th.createdAt} />
            </span>
          </li>
        )}
      />
      <ListSection
        name="notes"
        title={t("dash.latestNotes")}
        items={data.latestNotes}
        empty={t("notes.none")}
        more={{ href: `${base}/notes`, label: t("dash.allNotes") }}
        render={(n) => (
          <li data-note={n.id}>
            <a href={`${base}/notes/${n.id}`}>{n.title}</a>
            <span class="dash-facts muted">
              <span>{nameOf(frame, n.authorId)}</span>
              <Time ctx={ctx} iso={n.createdAt} />
            </span>
          </li>
        )}
      />
      <ListSection
        name="files"
        title={t("dash.latestFiles")}
        items={data.latestFiles}
        empty={t("files.none")}
        more={{ href: `${base}/files`, label: t("dash.allFiles") }}
        render={(f) => (
          <li data-file={f.id}>
            <a href={f.downloadUrl} download={f.name}>{f.name}</a>
            <span class="dash-facts muted">
              <span>{formatSize(f.size, locale)}</span>
              <span>{nameOf(frame, f.uploaderId)}</span>
              <Time ctx={ctx} iso={f.createdAt} />
            </span>
          </li>
        )}
      />
      <Section
        name="activity"
        title={t("dash.recentActivity")}
        empty={data.recentActivity.length === 0 ? t("activity.none") : null}
        more={{ href: `${base}/activity`, label: t("dash.allActivity") }}
      >
        <ActivityList
          ctx={ctx}
          entries={data.recentActivity}
          who={(entry) => nameOf(frame, entry.actorId)}
        />
      </Section>
      <p class="hint dash-live" data-dashboard-live hidden>{t("dash.live")}</p>
    </div>
  );
}

/** What the personal dashboard shows besides the dashboard itself. */
export interface PersonalExtras {
  /** Every project of the caller, archived ones included, by id (for names). */
  projects: Map<number, Project>;
  /** Display names of the people in the shown activity and meetings, by user id. */
  names: Map<number, string>;
  today: string;
}

/** The personal dashboard: the home page's middle and its `?fragment=1` answer. */
export function PersonalDashboardView(
  props: { ctx: PageCtx; data: PersonalDashboard; extras: PersonalExtras },
) {
  const { ctx, data, extras } = props;
  const { t, locale } = ctx;
  const projectName = (id: number | null) =>
    id === null ? null : extras.projects.get(id)?.name ?? null;
  const person = (id: number | null) =>
    id === null
      ? t("content.unknownUser")
      : id === ctx.user?.id
      ? ctx.user.displayName
      : extras.names.get(id) ?? t("content.unknownUser");
  const unread = data.unreadNotifications;
  return (
    <div class="dashboard" data-dashboard="personal" data-unread={unread.count}>
      <Section
        name="projects"
        title={t("dashboard.myProjects")}
        count={data.projects.length}
        empty={null}
        more={{ href: "/projects", label: t("dash.allProjects") }}
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
                <li data-project={p.id}>
                  <a href={`/projects/${p.id}`}>
                    <strong>{p.name}</strong>
                  </a>
                  <span class="dash-facts muted">
                    {p.myRole ? <span class="tag">{t(`role.${p.myRole}`)}</span> : null}
                    {p.description ? <span>{excerpt(p.description)}</span> : null}
                  </span>
                </li>
              ))}
            </ul>
          )}
      </Section>
      <TodoSection
        t={t}
        locale={locale}
        name="overdue"
        title={t("dash.overdue")}
        empty={t("dash.noOverdue")}
        items={data.overdueTodos}
        today={extras.today}
        assignee={() => null}
        project={(item) => projectName(item.projectId)}
      />
      <TodoSection
        t={t}
        locale={locale}
        name="myTodos"
        title={t("dash.myTodos")}
        empty={t("dash.noMyTodos")}
        items={data.incompleteTodos}
        today={extras.today}
        assignee={() => null}
        project={(item) => projectName(item.projectId)}
      />
      <ListSection
        name="meetings"
        title={t("dash.upcomingMeetings")}
        items={data.upcomingMeetings}
        empty={t("dash.noMeetings")}
        counted
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
            <li data-notification={n.id}>
              <a href={n.projectId ? `/projects/${n.projectId}` : "/notifications"}>
                {key(`kind.${n.kind}`) ? t(`kind.${n.kind}` as MessageKey) : n.kind}
              </a>{" "}
              <span>{n.text}</span>
              <span class="dash-facts muted">
                {projectName(n.projectId)
                  ? <span class="tag">{projectName(n.projectId)}</span>
                  : null}
                <Time ctx={ctx} iso={n.createdAt} />
              </span>
            </li>
          ))}
        </ul>
      </Section>
      <Section
        name="activity"
        title={t("dash.recentActivity")}
        empty={data.recentActivity.length === 0 ? t("activity.none") : null}
      >
        <ActivityList
          ctx={ctx}
          entries={data.recentActivity}
          who={(entry) => person(entry.actorId)}
          project={(entry) => projectName(entry.projectId)}
        />
      </Section>
    </div>
  );
}

function key(name: string): boolean {
  return name in en;
}
