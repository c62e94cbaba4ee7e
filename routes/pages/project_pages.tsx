/**
 * The personal dashboard (`/`), the project list with the import of an archive, and the
 * project page (`/projects/{id}`): the project dashboard, the caller's notification level,
 * then member management and export.
 * Both dashboards answer `?fragment=1` with the dashboard alone, which `static/dashboard.js`
 * uses to re-render them live.
 */
import { requestMeta } from "../client_address.ts";
import type { RequestMeta } from "../../domain/accounts/audit.ts";
import type { z } from "@hono/zod-openapi";
import { type Context, Hono } from "hono";
import type { Child } from "hono/jsx";
import type { Actor } from "../../domain/accounts/accounts.ts";
import { DomainError, invalid } from "../../domain/kernel/errors.ts";
import {
  NOTIFICATION_LEVELS,
  type NotificationLevel,
} from "../../domain/projects/notifications.ts";
import { ARCHIVE_KINDS } from "../../domain/archives/project_archive.ts";
import type { ImportReport } from "../../domain/archives/project_import.ts";
import type { Member, Project, ProjectRole } from "../../domain/projects/projects.ts";
import type { Invitation } from "../../domain/identity/invitations.ts";
import { type Page, pageRequest } from "../../domain/kernel/paging.ts";
import type { Services } from "../../domain/services.ts";
import type { AppEnv } from "../api/openapi.ts";
import { NotificationLevelInput } from "../api/notifications.ts";
import { MemberRoleInput } from "../api/projects.ts";
import { MemberInputSchema, ProjectInputSchema } from "../api/schemas.ts";
import { formatDateTime } from "../i18n/format.ts";
import type { SpooledFile } from "../multipart.ts";
import { type PageCtx, pageCtx } from "./context.ts";
import { PersonalDashboardView, ProjectDashboardView } from "./dashboards.tsx";
import { loadFrame, paramId, ProjectNav } from "./kit/area.tsx";
import { Markdown, Table } from "./kit/content.tsx";
import { todayOf } from "./kit/dates.ts";
import { importLimitMb, type RefusalWords } from "./kit/errors.tsx";
import {
  ButtonForm,
  Field,
  type FormState,
  formState,
  MarkdownField,
  PostForm,
  Select,
  TextField,
} from "./kit/fields.tsx";
import { InvitationsCard } from "./kit/invitations.tsx";
import { Alert, renderFragment, renderPage } from "./kit/layout.tsx";
import { ActionNotice, afterCreate, afterSave, type Notices, noticesOf } from "./kit/notices.tsx";
import { pageForms, type Shown } from "./kit/submit.ts";

const ROLES = ["owner", "member", "viewer"] as const;
/** The roles of the invite form, the usual one first. */
const ROLES_TO_INVITE = ["member", "viewer", "owner"] as const;

function RoleSelect(props: { ctx: PageCtx; label: string; value: ProjectRole }) {
  const options = ROLES.map((r) => [r, props.ctx.t(`role.${r}`)] as const);
  return <Select name="role" label={props.label} value={props.value} options={options} />;
}

/** A project's name and description, as the new-project and edit forms ask for them. */
function ProjectFields(props: { ctx: PageCtx; form: FormState }) {
  const { t } = props.ctx;
  const { form } = props;
  return (
    <>
      <TextField label={t("field.name")} schema={ProjectInputSchema} name="name" form={form} />
      <MarkdownField
        t={t}
        label={t("field.description")}
        schema={ProjectInputSchema}
        name="description"
        form={form}
      />
    </>
  );
}

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
      {p.description
        ? (
          <div class="muted project-description">
            <Markdown source={p.description} />
          </div>
        )
        : null}
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
  props: { ctx: PageCtx; projects: Project[]; archived: boolean; shown: Shown },
) {
  const { t } = props.ctx;
  return (
    <>
      <h1>{t("projects.title")}</h1>
      <Alert message={props.shown.message} />
      <div class="card">
        <h2>{t("projects.new")}</h2>
        <PostForm action="/projects" submit={t("projects.create")}>
          <ProjectFields ctx={props.ctx} form={formState(props.shown, "create")} />
        </PostForm>
      </div>
      <ImportForm ctx={props.ctx} form={formState(props.shown, "import")} />
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

/** The import form: an archive made by Export, sent as a multipart upload. */
function ImportForm(props: { ctx: PageCtx; form: FormState }) {
  const { t } = props.ctx;
  return (
    <div class="card">
      <h2>{t("import.title")}</h2>
      <p class="muted">{t("import.hint")}</p>
      <PostForm
        action="/projects/import"
        submit={t("import.submit")}
        attrs={{ enctype: "multipart/form-data", "data-import": true }}
      >
        <Field label={t("import.archive")} error={props.form.errors.file}>
          <input type="file" name="file" accept=".zip,application/zip" required />
        </Field>
      </PostForm>
    </div>
  );
}

/** What an import did: the new project, the number of each kind, the emails left unmatched. */
function ImportReportView(props: { ctx: PageCtx; project: Project; report: ImportReport }) {
  const { t } = props.ctx;
  const { project, report } = props;
  return (
    <>
      <h1>{t("import.done")}</h1>
      <div class="success row" role="status" data-imported={project.id}>
        <span>{t("import.created")}</span>
        <a href={`/projects/${project.id}`}>
          <strong>{project.name}</strong>
        </a>
      </div>
      <h2>{t("import.counts")}</h2>
      <div class="card">
        <Table heads={[t("import.kind"), t("import.count")]}>
          {ARCHIVE_KINDS.map((kind) => (
            <tr data-count={kind}>
              <td>{t(`import.kind.${kind}` as const)}</td>
              <td>{String(report.counts[kind])}</td>
            </tr>
          ))}
        </Table>
      </div>
      {report.unmatchedEmails.length === 0
        ? <p class="muted" data-unmatched="none">{t("import.allMatched")}</p>
        : (
          <div class="card" data-unmatched>
            <p>{t("import.unmatched")}</p>
            <ul>
              {
                // deno-lint-ignore jsx-key -- rendered once on the server: a key would show as an attribute
                report.unmatchedEmails.map((email) => <li>{email}</li>)
              }
            </ul>
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
            <ButtonForm
              class="inline"
              action={`/projects/${project.id}/members/${member.userId}`}
              label={t("members.changeRole")}
              button="secondary"
            >
              <RoleSelect ctx={props.ctx} label={t("members.changeRole")} value={member.role} />
            </ButtonForm>
          )
          : t(`role.${member.role}`)}
      </td>
      <td class="muted">{formatDateTime(member.joinedAt, locale, props.ctx.timeZone)}</td>
      <td>
        {props.manage
          ? (
            <ButtonForm
              class="inline"
              action={`/projects/${project.id}/members/${member.userId}/remove`}
              label={t("members.remove")}
            />
          )
          : null}
      </td>
    </tr>
  );
}

/** The caller's notification level for the project: All, Mentions or Nothing. */
function NotificationLevelForm(
  props: { ctx: PageCtx; project: Project; level: NotificationLevel },
) {
  const { t } = props.ctx;
  return (
    <form
      class="card notification-level"
      method="post"
      action={`/projects/${props.project.id}/notification-level`}
    >
      <fieldset>
        <legend>{t("notifyLevel.title")}</legend>
        <div class="row">
          {NOTIFICATION_LEVELS.map((level) => (
            <label class="check">
              <input
                type="radio"
                name="level"
                value={level}
                checked={level === props.level}
                data-notification-level={level}
              />
              {` ${t(`notifyLevel.${level}`)}`}
            </label>
          ))}
          <button class="secondary" type="submit">{t("notifyLevel.save")}</button>
        </div>
        <p class="muted">{t("notifyLevel.help")}</p>
      </fieldset>
    </form>
  );
}

function ProjectPage(
  props: {
    ctx: PageCtx;
    project: Project;
    members: Member[];
    shown: Shown;
    dashboard: Child;
    /** What the action that led here did (none when a refused form is shown again). */
    notices: Notices | null;
    level: NotificationLevel | null;
    /** The newest invitations, for those who manage the project (null for others). */
    invitations: Page<Invitation> | null;
  },
) {
  const { ctx, project, members } = props;
  const { t } = ctx;
  const isOwner = project.myRole === "owner" || ctx.user?.role === "admin";
  const manage = isOwner && !project.archived;
  const base = `/projects/${project.id}`;
  const edit = formState(props.shown, "edit", {
    name: project.name,
    description: project.description,
  });
  return (
    <>
      <div class="row">
        <h1>{project.name}</h1>
        <span class="spacer"></span>
        {project.myRole
          ? <span class="tag">{t("projects.myRole", { role: t(`role.${project.myRole}`) })}</span>
          : null}
      </div>
      <ProjectNav
        ctx={ctx}
        projectId={project.id}
        current="dashboard"
        trash={isOwner || project.myRole === "member"}
      />
      {project.description
        ? (
          <div class="project-description" data-project-description>
            <Markdown
              source={project.description}
              mentions={{ members, viewerId: ctx.user?.id ?? null }}
            />
          </div>
        )
        : null}
      {project.archived ? <div class="notice">{t("projects.archivedNotice")}</div> : null}
      {props.notices
        ? <ActionNotice ctx={ctx} notices={props.notices} projectId={project.id} canUndo={false} />
        : null}
      <Alert message={props.shown.message} />
      {props.dashboard}
      <script type="module" src="/static/dashboard.js"></script>
      {props.level
        ? <NotificationLevelForm ctx={ctx} project={project} level={props.level} />
        : null}
      {manage
        ? (
          <details class="card" open={edit.refused}>
            <summary>{t("projects.edit")}</summary>
            <PostForm action={base} submit={t("form.save")}>
              <ProjectFields ctx={ctx} form={edit} />
            </PostForm>
          </details>
        )
        : null}
      <h2 id="members">{t("members.title")}</h2>
      <div class="card">
        <Table
          heads={[
            t("field.displayName"),
            t("field.email"),
            t("field.role"),
            t("members.joined"),
            { hidden: t("content.actions") },
          ]}
        >
          {members.map((m) => (
            <MemberRow key={m.userId} ctx={ctx} project={project} member={m} manage={manage} />
          ))}
        </Table>
        {manage
          ? (
            <form class="inline" method="post" action={`${base}/members`}>
              <input
                name="email"
                type="email"
                required
                placeholder={t("field.email")}
                aria-label={t("field.email")}
              />
              <RoleSelect ctx={ctx} label={t("field.role")} value="member" />
              <button type="submit">{t("members.add")}</button>
            </form>
          )
          : null}
      </div>
      {manage && props.invitations
        ? (
          <>
            <h2 id="invitations">{t("invitations.title")}</h2>
            <InvitationsCard
              ctx={ctx}
              base={`${base}/invitations`}
              roles={ROLES_TO_INVITE}
              page={props.invitations}
              form={formState(props.shown, "invite")}
              pager={null}
            />
          </>
        )
        : null}
      {isOwner
        ? (
          <div class="row">
            <a
              class="button"
              href={`/api/projects/${project.id}/export`}
              download
              title={t("projects.exportHint")}
              data-export
            >
              {t("projects.export")}
            </a>
            <a class="button secondary" href={`${base}/webhooks`}>{t("webhooks.title")}</a>
            <ButtonForm
              action={`${base}/${project.archived ? "unarchive" : "archive"}`}
              label={project.archived ? t("projects.unarchive") : t("projects.archive")}
              button="secondary"
            />
            <ButtonForm
              action={`${base}/delete`}
              label={t("projects.delete")}
              confirm={t("projects.deleteConfirm")}
            />
          </div>
        )
        : null}
    </>
  );
}

/** How one of the project page's forms is read and carried out. */
interface ProjectForm<I> extends RefusalWords {
  /** The form's name on the page (default `action`). */
  form?: string;
  schema?: z.ZodType<I>;
  change: (actor: Actor, projectId: number, input: I, c: Context<AppEnv>) => unknown;
  /** Where to go after the change, given what it returned (default: the project page). */
  after?: string | ((result: unknown, projectId: number) => string);
}

/** The project pages. */
export function projectPages(services: Services) {
  const app = new Hono<AppEnv>();
  const form = pageForms(app, services);
  const { projects } = services;
  const P = "/projects/:projectId{[0-9]+}";

  /** The project page (or, for `?fragment=1`, its dashboard), with what a refusal left. */
  const showProject = async (c: Context<AppEnv>, shown: Shown = {}) => {
    const frame = await loadFrame(c, services, paramId(c, "projectId"));
    const { ctx, project, members } = frame;
    const data = await services.dashboards.project(ctx.actor!, project.id);
    const level = project.myRole
      ? await services.notifications.level(ctx.actor!, project.id)
      : null;
    const manages = (project.myRole === "owner" || ctx.user?.role === "admin") &&
      !project.archived;
    // The newest page; the whole list is the project's invitations page.
    const invitations = manages
      ? await services.invitations.list(ctx.actor!, { projectId: project.id }, pageRequest({}))
      : null;
    const dashboard = (
      <ProjectDashboardView
        frame={frame}
        data={data}
        today={todayOf(services, ctx.timeZone)}
      />
    );
    if (c.req.query("fragment") === "1" && !shown.status) return renderFragment(c, dashboard);
    return renderPage(c, ctx, {
      title: project.name,
      status: shown.status ?? 200,
      body: (
        <ProjectPage
          ctx={ctx}
          project={project}
          members={members}
          shown={shown}
          dashboard={dashboard}
          notices={c.req.method === "GET" ? noticesOf(c.req.url) : null}
          level={level}
          invitations={invitations}
        />
      ),
    });
  };

  const showList = async (c: Context<AppEnv>, shown: Shown = {}) => {
    const ctx = await pageCtx(c, services);
    const archived = c.req.query("archived") === "true";
    const list = await projects.list(ctx.actor!, { archived });
    return renderPage(c, ctx, {
      title: ctx.t("projects.title"),
      status: shown.status ?? 200,
      body: <ProjectList ctx={ctx} archived={archived} projects={list} shown={shown} />,
    });
  };

  /**
   * Imports an uploaded archive. A problem of the archive itself (damaged, foreign, too new)
   * is the file field's: the page says so in its words, whatever part of the archive it was.
   */
  const importArchive = async (actor: Actor, file: SpooledFile, meta: RequestMeta) => {
    try {
      return await services.projectImport.import(actor, file.bytes, meta);
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== "validation") throw error;
      throw new DomainError("validation", error.message, { details: { file: "damaged" } });
    }
  };

  /** The personal dashboard of the caller. */
  const personal = async (ctx: PageCtx) => {
    const data = await services.dashboards.personal(ctx.actor!);
    const names = await services.dashboards.personalNames(ctx.actor!, data);
    return (
      <PersonalDashboardView
        ctx={ctx}
        data={data}
        names={names}
        today={todayOf(services, ctx.timeZone)}
      />
    );
  };

  /**
   * A project action's form: checked, then carried out, then back to the project page; a
   * refusal shows the project page with its message (the 404 page when the project is gone).
   */
  const act = <I,>(path: string, action: ProjectForm<I>) =>
    form<I>(path, {
      codes: { conflict: "members.lastOwner" },
      ...action,
      form: action.form ?? "action",
      // The project first: one the caller cannot see is the 404 page, whatever the form says.
      subject: ({ c, ctx }) => projects.get(ctx.actor!, paramId(c, "projectId")),
      show: (shown, { c }) => showProject(c, shown),
      change: async (input, { c, ctx }) => {
        const projectId = paramId(c, "projectId");
        const result = await action.change(ctx.actor!, projectId, input, c);
        const { after } = action;
        return typeof after === "function"
          ? after(result, projectId)
          : after ?? `/projects/${projectId}`;
      },
    });

  app.get("/", async (c) => {
    const ctx = await pageCtx(c, services);
    const dashboard = await personal(ctx);
    if (c.req.query("fragment") === "1") return renderFragment(c, dashboard);
    return renderPage(c, ctx, {
      title: ctx.t("dashboard.title"),
      body: <Dashboard ctx={ctx} dashboard={dashboard} />,
    });
  });

  app.get("/projects", (c) => showList(c));

  form("/projects", {
    form: "create",
    schema: ProjectInputSchema,
    show: (shown, { c }) => showList(c, shown),
    change: async (input, { ctx }) => {
      const { id } = await projects.create(ctx.actor!, input);
      return afterCreate(`/projects/${id}`, { type: "project", id });
    },
  });

  form("/projects/import", {
    form: "import",
    fields: { file: "import.chooseFile", "file:damaged": "import.invalid" },
    codes: { too_large: { field: "file", message: "import.tooLarge" } },
    maxUploadMb: importLimitMb(services),
    show: (shown, { c }) => showList(c, shown),
    change: async (_, { c, ctx, file }) => {
      if (!file) throw invalid("file", "Choose an archive to import");
      const { project, report } = await importArchive(ctx.actor!, file, requestMeta(c));
      return renderPage(c, ctx, {
        title: ctx.t("import.done"),
        status: 201,
        body: <ImportReportView ctx={ctx} project={project} report={report} />,
      });
    },
  });

  app.get(P, (c) => showProject(c));
  act(P, {
    form: "edit",
    schema: ProjectInputSchema,
    change: (actor, id, input) => projects.update(actor, id, input),
    after: (_, id) => afterSave(`/projects/${id}`, { type: "project", id }),
  });
  act(`${P}/archive`, { change: (actor, id) => projects.setArchived(actor, id, true) });
  act(`${P}/unarchive`, { change: (actor, id) => projects.setArchived(actor, id, false) });
  act(`${P}/delete`, {
    change: (actor, id, _, c) => projects.remove(actor, id, requestMeta(c)),
    after: "/projects",
  });
  act(`${P}/members`, {
    schema: MemberInputSchema,
    // The project is checked first (see `act`), so a not_found here is about the email.
    codes: { not_found: "members.unknownEmail", conflict: "members.already" },
    change: (actor, id, input) => projects.addMember(actor, id, input),
    after: (member, id) =>
      afterCreate(`/projects/${id}#members`, { type: "member", id: (member as Member).userId }),
  });
  act(`${P}/members/:userId{[0-9]+}`, {
    schema: MemberRoleInput,
    change: (actor, id, { role }, c) =>
      projects.changeRole(actor, id, { userId: paramId(c, "userId"), role }),
  });
  act(`${P}/notification-level`, {
    schema: NotificationLevelInput,
    change: (actor, id, { level }) => services.notifications.setLevel(actor, id, level),
  });
  act(`${P}/members/:userId{[0-9]+}/remove`, {
    change: (actor, id, _, c) => projects.removeMember(actor, id, paramId(c, "userId")),
  });

  return app;
}
