/**
 * The personal dashboard (`/`), the project list, and the project page (`/projects/{id}`):
 * the project dashboard, then member management. Both dashboards answer `?fragment=1` with
 * the dashboard alone, which `static/dashboard.js` uses to re-render them live.
 */
import { type Context, Hono } from "hono";
import type { Child } from "hono/jsx";
import type { Actor } from "../../domain/accounts.ts";
import { DomainError } from "../../domain/errors.ts";
import type { Member, Project } from "../../domain/projects.ts";
import type { Services } from "../../domain/services.ts";
import type { AppEnv } from "../api/openapi.ts";
import { MemberInputSchema, ProjectInputSchema, ProjectRoleSchema } from "../api/schemas.ts";
import type { MessageKey } from "../i18n/en.ts";
import { formatDateTime } from "../i18n/i18n.ts";
import { todayOf } from "./calendar_page.tsx";
import { type PageCtx, pageCtx } from "./context.ts";
import {
  PersonalDashboardView,
  type PersonalExtras,
  ProjectDashboardView,
} from "./dashboard_page.tsx";
import { formFields, pageError, validateForm } from "./forms.ts";
import { Alert, FieldError, PAGE_CSP, renderPage } from "./layout.tsx";
import { loadFrame, ProjectNav } from "./project_nav.tsx";

/** A refusal a page action explains itself: its status and the message to show. */
class Refusal {
  constructor(readonly status: number, readonly message: MessageKey) {}
}

const INVALID = new Refusal(400, "form.invalid");

const ROLES = ["owner", "member", "viewer"] as const;

function ProjectCard(props: { ctx: PageCtx; project: Project }) {
  const { t } = props.ctx;
  const p = props.project;
  return (
    <div class="card" data-project={p.id}>
      <div class="row">
        <a href={`/projects/${p.id}`}>
          <strong>{p.name}</strong>
        </a>
        {p.archived ? <span class="tag">{t("projects.archived")}</span> : null}
        <span class="spacer"></span>
        {p.myRole ? <span class="tag">{t(`role.${p.myRole}`)}</span> : null}
      </div>
      {p.description ? <p class="muted">{p.description}</p> : null}
    </div>
  );
}

function Dashboard(props: { ctx: PageCtx; dashboard: Child }) {
  const { t, user } = props.ctx;
  return (
    <>
      <h1>{t("dashboard.title")}</h1>
      <p>{t("dashboard.welcome", { name: user!.displayName })}</p>
      {props.dashboard}
      <script type="module" src="/static/dashboard.js"></script>
    </>
  );
}

function ProjectList(
  props: {
    ctx: PageCtx;
    projects: Project[];
    archived: boolean;
    errors?: Record<string, string>;
    values?: Record<string, string>;
  },
) {
  const { t } = props.ctx;
  const errors = props.errors ?? {};
  return (
    <>
      <h1>{t("projects.title")}</h1>
      <div class="card">
        <h2>{t("projects.new")}</h2>
        <form class="stack" method="post" action="/projects">
          <label>
            {t("field.name")}
            <input name="name" required maxlength={200} value={props.values?.name ?? ""} />
            <FieldError message={errors.name} />
          </label>
          <label>
            {t("field.description")}
            <textarea name="description" maxlength={10000}>
              {props.values?.description ?? ""}
            </textarea>
          </label>
          <div>
            <button type="submit">{t("projects.create")}</button>
          </div>
        </form>
      </div>
      <p>
        <a href={props.archived ? "/projects" : "/projects?archived=true"}>
          {props.archived ? t("projects.hideArchived") : t("projects.showArchived")}
        </a>
      </p>
      {props.projects.length === 0 ? <p class="muted">{t("projects.none")}</p> : (
        <div class="grid">
          {props.projects.map((p) => <ProjectCard key={p.id} ctx={props.ctx} project={p} />)}
        </div>
      )}
    </>
  );
}

function MemberRow(props: { ctx: PageCtx; project: Project; member: Member; manage: boolean }) {
  const { t, locale } = props.ctx;
  const { member, project } = props;
  return (
    <tr data-member={member.email}>
      <td>{member.displayName}</td>
      <td>{member.email}</td>
      <td>
        {props.manage
          ? (
            <form
              class="inline"
              method="post"
              action={`/projects/${project.id}/members/${member.userId}`}
            >
              <select name="role" aria-label={t("members.changeRole")}>
                {ROLES.map((r) => (
                  <option value={r} selected={member.role === r}>{t(`role.${r}`)}</option>
                ))}
              </select>
              <button class="secondary" type="submit">{t("members.changeRole")}</button>
            </form>
          )
          : t(`role.${member.role}`)}
      </td>
      <td class="muted">{formatDateTime(member.joinedAt, locale)}</td>
      <td>
        {props.manage
          ? (
            <form
              class="inline"
              method="post"
              action={`/projects/${project.id}/members/${member.userId}/remove`}
            >
              <button class="danger" type="submit">{t("members.remove")}</button>
            </form>
          )
          : null}
      </td>
    </tr>
  );
}

function ProjectPage(
  props: {
    ctx: PageCtx;
    project: Project;
    members: Member[];
    message?: string | null;
    dashboard: Child;
  },
) {
  const { t } = props.ctx;
  const { project, members } = props;
  const isOwner = project.myRole === "owner" || props.ctx.user?.role === "admin";
  const manage = isOwner && !project.archived;
  return (
    <>
      <div class="row">
        <h1>{project.name}</h1>
        <span class="spacer"></span>
        {project.myRole
          ? <span class="tag">{t("projects.myRole", { role: t(`role.${project.myRole}`) })}</span>
          : null}
      </div>
      <ProjectNav ctx={props.ctx} projectId={project.id} current="dashboard" />
      {project.description ? <p>{project.description}</p> : null}
      {project.archived ? <div class="notice">{t("projects.archivedNotice")}</div> : null}
      <Alert message={props.message} />
      {props.dashboard}
      <script type="module" src="/static/dashboard.js"></script>
      {manage
        ? (
          <details class="card">
            <summary>{t("projects.edit")}</summary>
            <form class="stack" method="post" action={`/projects/${project.id}`}>
              <label>
                {t("field.name")}
                <input name="name" required maxlength={200} value={project.name} />
              </label>
              <label>
                {t("field.description")}
                <textarea name="description" maxlength={10000}>{project.description}</textarea>
              </label>
              <div>
                <button type="submit">{t("form.save")}</button>
              </div>
            </form>
          </details>
        )
        : null}
      <h2 id="members">{t("members.title")}</h2>
      <div class="card">
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th>{t("field.displayName")}</th>
                <th>{t("field.email")}</th>
                <th>{t("field.role")}</th>
                <th>{t("members.joined")}</th>
                <th></th>
              </tr>
            </thead>
            <tbody>
              {members.map((m) => (
                <MemberRow ctx={props.ctx} project={project} member={m} manage={manage} />
              ))}
            </tbody>
          </table>
        </div>
        {manage
          ? (
            <form class="inline" method="post" action={`/projects/${project.id}/members`}>
              <input
                name="email"
                type="email"
                required
                placeholder={t("field.email")}
                aria-label={t("field.email")}
              />
              <select name="role" aria-label={t("field.role")}>
                {ROLES.map((r) => (
                  <option value={r} selected={r === "member"}>{t(`role.${r}`)}</option>
                ))}
              </select>
              <button type="submit">{t("members.add")}</button>
            </form>
          )
          : null}
      </div>
      {isOwner
        ? (
          <div class="row">
            <form
              method="post"
              action={`/projects/${project.id}/${project.archived ? "unarchive" : "archive"}`}
            >
              <button class="secondary" type="submit">
                {project.archived ? t("projects.unarchive") : t("projects.archive")}
              </button>
            </form>
            <form
              method="post"
              action={`/projects/${project.id}/delete`}
              data-confirm={t("projects.deleteConfirm")}
            >
              <button class="danger" type="submit">{t("projects.delete")}</button>
            </form>
          </div>
        )
        : null}
    </>
  );
}

/** Answers an HTML fragment (no layout) for `dashboard.js`. */
function fragment(c: Context<AppEnv>, body: Child) {
  c.header("content-security-policy", PAGE_CSP);
  return c.html(<>{body}</>);
}

/** The project pages. */
export function projectPages(services: Services) {
  const app = new Hono<AppEnv>();
  const { projects } = services;
  const idOf = (raw: string) => (/^\d{1,15}$/.test(raw) ? Number(raw) : 0);

  /** Renders a project page, with an optional error message and status. */
  const showProject = (
    c: Context<AppEnv>,
    id: number,
    failure?: { status: number; message: string },
  ) => {
    const frame = loadFrame(c, services, id);
    const { ctx, project, members } = frame;
    const dashboard = (
      <ProjectDashboardView
        frame={frame}
        data={services.dashboards.project(ctx.actor!, id)}
        today={todayOf(services)}
      />
    );
    if (c.req.query("fragment") === "1" && !failure) return fragment(c, dashboard);
    return renderPage(c, ctx, {
      title: project.name,
      status: failure?.status ?? 200,
      body: (
        <ProjectPage
          ctx={ctx}
          project={project}
          members={members}
          message={failure?.message ?? null}
          dashboard={dashboard}
        />
      ),
    });
  };

  /** The personal dashboard of the caller. */
  const personal = (ctx: PageCtx) => {
    const actor = ctx.actor!;
    const data = services.dashboards.personal(actor);
    const all = new Map(projects.list(actor, { archived: true }).map((p) => [p.id, p]));
    for (const p of data.projects) all.set(p.id, p);
    // The people named: the members of the projects of the shown activity and meetings (a
    // bounded number of lookups: the dashboard lists at most 10 entries and 20 meetings).
    const projectIds = new Set([
      ...data.recentActivity.map((a) => a.projectId),
      ...data.upcomingMeetings.map((m) => m.projectId),
    ]);
    const names = new Map<number, string>();
    for (const projectId of [...projectIds].slice(0, 20)) {
      try {
        for (const m of projects.members(actor, projectId)) names.set(m.userId, m.displayName);
      } catch (error) {
        // A project the caller can no longer see: its people stay unnamed.
        if (!(error instanceof DomainError)) throw error;
      }
    }
    const extras: PersonalExtras = { projects: all, names, today: todayOf(services) };
    return <PersonalDashboardView ctx={ctx} data={data} extras={extras} />;
  };

  /**
   * Runs a project action, then redirects back. An action answers a refusal it can explain
   * (a form that does not validate, an unknown email) with its status and message; any other
   * refusal re-renders the project with the general message for its code.
   */
  const act = (
    action: (
      actor: Actor,
      id: number,
      fields: Record<string, string>,
      userId: number,
    ) => unknown,
    after?: (id: number) => string,
  ) =>
  async (c: Context<AppEnv>) => {
    const id = idOf(c.req.param("projectId") ?? "");
    const userId = idOf(c.req.param("userId") ?? "0");
    const fields = await formFields(c);
    const ctx = pageCtx(c, services);
    try {
      const result = action(ctx.actor!, id, fields, userId);
      if (result instanceof Refusal) {
        return showProject(c, id, { status: result.status, message: ctx.t(result.message) });
      }
      return c.redirect(after ? after(id) : `/projects/${id}`, 303);
    } catch (error) {
      const failure = pageError(error, ctx.t);
      if (failure.status === 404) return notFound(c, ctx);
      if (failure.status === 409) failure.message = ctx.t("members.lastOwner");
      return showProject(c, id, failure);
    }
  };

  app.get("/", (c) => {
    const ctx = pageCtx(c, services);
    const dashboard = personal(ctx);
    if (c.req.query("fragment") === "1") return fragment(c, dashboard);
    return renderPage(c, ctx, {
      title: ctx.t("dashboard.title"),
      body: <Dashboard ctx={ctx} dashboard={dashboard} />,
    });
  });

  app.get("/projects", (c) => {
    const ctx = pageCtx(c, services);
    const archived = c.req.query("archived") === "true";
    return renderPage(c, ctx, {
      title: ctx.t("projects.title"),
      body: (
        <ProjectList
          ctx={ctx}
          archived={archived}
          projects={projects.list(ctx.actor!, { archived })}
        />
      ),
    });
  });

  app.post("/projects", async (c) => {
    const fields = await formFields(c);
    const ctx = pageCtx(c, services);
    const form = validateForm(ProjectInputSchema, fields);
    if (!form.ok) {
      return renderPage(c, ctx, {
        title: ctx.t("projects.title"),
        status: 400,
        body: (
          <ProjectList
            ctx={ctx}
            archived={false}
            projects={projects.list(ctx.actor!, { archived: false })}
            errors={form.errors}
            values={fields}
          />
        ),
      });
    }
    const project = projects.create(ctx.actor!, form.data);
    return c.redirect(`/projects/${project.id}`, 303);
  });

  app.get("/projects/:projectId{[0-9]+}", (c) => {
    try {
      return showProject(c, idOf(c.req.param("projectId")));
    } catch (error) {
      const ctx = pageCtx(c, services);
      pageError(error, ctx.t);
      return notFound(c, ctx);
    }
  });

  app.post(
    "/projects/:projectId{[0-9]+}",
    act((actor, id, fields) => {
      const form = validateForm(ProjectInputSchema, fields);
      if (!form.ok) return INVALID;
      return projects.update(actor, id, form.data);
    }),
  );
  app.post(
    "/projects/:projectId{[0-9]+}/archive",
    act((actor, id) => projects.setArchived(actor, id, true)),
  );
  app.post(
    "/projects/:projectId{[0-9]+}/unarchive",
    act((actor, id) => projects.setArchived(actor, id, false)),
  );
  app.post(
    "/projects/:projectId{[0-9]+}/delete",
    act((actor, id) => projects.remove(actor, id), () => "/projects"),
  );
  app.post(
    "/projects/:projectId{[0-9]+}/members",
    act((actor, id, fields) => {
      const form = validateForm(MemberInputSchema, fields);
      if (!form.ok) return INVALID;
      // The project is checked first, so a not_found below is about the email.
      projects.get(actor, id);
      try {
        return projects.addMember(actor, id, form.data);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        if (error.code === "not_found") return new Refusal(404, "members.unknownEmail");
        if (error.code === "conflict") return new Refusal(409, "members.already");
        throw error;
      }
    }),
  );
  app.post(
    "/projects/:projectId{[0-9]+}/members/:userId{[0-9]+}",
    act((actor, id, fields, userId) => {
      const role = ProjectRoleSchema.safeParse(fields.role);
      if (!role.success) return INVALID;
      return projects.changeRole(actor, id, { userId, role: role.data });
    }),
  );
  app.post(
    "/projects/:projectId{[0-9]+}/members/:userId{[0-9]+}/remove",
    act((actor, id, _fields, userId) => projects.removeMember(actor, id, userId)),
  );

  return app;
}

/** The HTML 404 page. */
export function notFound(c: Context<AppEnv>, ctx: PageCtx) {
  return renderPage(c, ctx, {
    title: ctx.t("error.notFoundTitle"),
    status: 404,
    body: (
      <div class="card narrow">
        <h1>{ctx.t("error.notFoundTitle")}</h1>
        <p>
          <a href="/">{ctx.t("common.back")}</a>
        </p>
      </div>
    ),
  });
}
