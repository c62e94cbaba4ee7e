/**
 * Invitation pages. The link's page (`/invite/{token}`, no session needed) shows who invited
 * whom to what and until when, with the form that accepts it: a new account's name and
 * password, or one button for a signed-in person with the invited email. Any link that does
 * not work (unknown, used, revoked, expired) gets one page, 404. The invitation lists of a
 * project (owners) and of the server (admins) take their forms here: inviting, sending again
 * and revoking; a new link is shown once, on the page that answers the form.
 */
import { requestMeta } from "../client_address.ts";
import { type Context, Hono } from "hono";
import { DomainError } from "../../domain/kernel/errors.ts";
import { pageRequest } from "../../domain/kernel/paging.ts";
import type { Invitation, InvitationView } from "../../domain/identity/invitations.ts";
import type { Services } from "../../domain/services.ts";
import type { AppEnv } from "../api/openapi.ts";
import {
  AcceptInvitationInput,
  ProjectInvitationInput,
  ServerInvitationInput,
} from "../api/invitations.ts";
import { isHttps, setPreferenceCookies, setSessionCookie } from "../cookies.ts";
import { formatDateTime } from "../i18n/format.ts";
import { type PageCtx, pageCtx } from "./context.ts";
import { paramId } from "./kit/area.tsx";
import { CopyScript, CopyText } from "./kit/copy.tsx";
import { Field, formState, PostForm, TextField } from "./kit/fields.tsx";
import { InvitationsCard } from "./kit/invitations.tsx";
import { Alert, renderPage } from "./kit/layout.tsx";
import { notFound } from "./kit/errors.tsx";
import { pageForms, type Shown } from "./kit/submit.ts";

/** The one page of a link that does not work. */
function brokenLink(c: Context<AppEnv>, ctx: PageCtx) {
  const { t } = ctx;
  return renderPage(c, ctx, {
    title: t("invite.brokenTitle"),
    status: 404,
    body: (
      <>
        <h1>{t("invite.brokenTitle")}</h1>
        <div class="card narrow" data-invite-broken>
          <p>{t("invite.broken")}</p>
        </div>
      </>
    ),
  });
}

function InvitePage(props: { ctx: PageCtx; token: string; view: InvitationView; shown: Shown }) {
  const { ctx, view } = props;
  const { t, user } = ctx;
  const form = formState(props.shown, "accept");
  const who = {
    inviter: view.invitedByName,
    email: view.email,
    // In the middle of a sentence: "as member", not "as Member".
    role: t(`role.${view.role}`).toLowerCase(),
    project: view.projectName ?? "",
  };
  const action = `/invite/${encodeURIComponent(props.token)}`;
  return (
    <div class="card narrow" data-invite={view.email}>
      <h1>{t("invite.title")}</h1>
      <p data-invite-what>
        {view.projectName === null ? t("invite.toServer", who) : t("invite.toProject", who)}
      </p>
      <p class="muted">
        {t("invite.expires", { time: formatDateTime(view.expiresAt, ctx.locale, ctx.timeZone) })}
      </p>
      <Alert message={props.shown.message} />
      {user === null
        ? (
          <PostForm action={action} submit={t("invite.accept")}>
            <p>{t("invite.createAccount")}</p>
            <Field label={t("field.email")} error={undefined}>
              <input
                name="email"
                type="email"
                autocomplete="username"
                value={view.email}
                readonly
              />
            </Field>
            <TextField
              label={t("field.displayName")}
              schema={AcceptInvitationInput}
              name="displayName"
              form={form}
            />
            <Field label={t("field.password")} error={form.errors.password}>
              <input
                name="password"
                type="password"
                autocomplete="new-password"
                required
                minlength={8}
              />
              <span class="hint">{t("field.passwordHint")}</span>
            </Field>
          </PostForm>
        )
        : user.email === view.email
        ? <PostForm action={action} submit={t("invite.accept")}>{null}</PostForm>
        : (
          <p class="notice" data-invite-other>
            {t("invite.otherEmail", { email: user.email, invited: view.email })}
          </p>
        )}
    </div>
  );
}

/** The page that answers an invite or send-again form: the link to pass on, once. */
function ReadyPage(
  props: { ctx: PageCtx; invitation: Invitation; url: string; mailed: boolean; back: string },
) {
  const { ctx, invitation } = props;
  const { t } = ctx;
  const time = formatDateTime(invitation.expiresAt, ctx.locale, ctx.timeZone);
  return (
    <>
      <h1>{t("invitations.readyTitle")}</h1>
      <div class="card" data-invitation-ready={invitation.email}>
        <p>{t("invitations.ready", { email: invitation.email, time })}</p>
        <CopyText t={t} id="invitation-link" text={props.url} label={t("invitations.link")} />
        {props.mailed
          ? <p class="muted">{t("invitations.mailed", { email: invitation.email })}</p>
          : null}
        <p>
          <a href={props.back}>{t("invitations.back")}</a>
        </p>
      </div>
      <CopyScript />
    </>
  );
}

/** The invitation pages and forms. */
export function invitationPages(services: Services, options: { baseUrl: string | null }) {
  const app = new Hono<AppEnv>();
  const form = pageForms(app, services);
  const { invitations } = services;
  const origin = (c: Context) => new URL(c.req.url).origin;
  const mailOn = services.mailSender.enabled;
  const maxAge = services.sessions.maxAgeSeconds;
  const P = "/projects/:projectId{[0-9]+}";

  /** The view of a working link, or null for any other. */
  const viewOf = async (token: string) => {
    try {
      return await invitations.view(token);
    } catch (error) {
      if (error instanceof DomainError && error.code === "not_found") return null;
      throw error;
    }
  };

  const showInvite = async (c: Context<AppEnv>, shown: Shown = {}) => {
    const ctx = await pageCtx(c, services);
    const token = c.req.param("token") ?? "";
    const view = await viewOf(token);
    if (!view) return brokenLink(c, ctx);
    return renderPage(c, ctx, {
      title: ctx.t("invite.title"),
      status: shown.status ?? 200,
      body: <InvitePage ctx={ctx} token={token} view={view} shown={shown} />,
    });
  };

  app.get("/invite/:token", (c) => showInvite(c));

  form("/invite/:token", {
    form: "accept",
    schema: AcceptInvitationInput,
    // Every link that does not work is the one page, whatever the form says.
    codes: { not_found: "invite.broken", account_exists: "invite.accountExists" },
    show: (shown, { c }) => showInvite(c, shown),
    change: async (input, { c, ctx }) => {
      const token = c.req.param("token") ?? "";
      const view = await invitations.view(token);
      const { user, cookie } = await invitations.accept(token, input, ctx.actor, requestMeta(c));
      if (cookie !== null) {
        const secure = isHttps(c, options.baseUrl);
        setSessionCookie(c, cookie, { secure, maxAge });
        // Keep the language and theme chosen before accepting.
        const prefs = { theme: ctx.theme, locale: ctx.locale };
        if (prefs.theme !== user.theme || prefs.locale !== user.locale) {
          await services.accounts.updateMe({ id: user.id, role: user.role }, prefs);
        }
        setPreferenceCookies(c, prefs, { secure });
      }
      return view.projectId === null ? "/" : `/projects/${view.projectId}`;
    },
  });

  /** A project's whole list of invitations (owners), with the invite form. */
  const showProjectList = async (c: Context<AppEnv>, shown: Shown = {}) => {
    const ctx = await pageCtx(c, services);
    const projectId = paramId(c, "projectId");
    const { project } = await services.projects.get(ctx.actor!, projectId);
    const page = await invitations.list(
      ctx.actor!,
      { projectId },
      pageRequest({ page: c.req.query("page") }, { clampPage: true }),
    );
    const base = `/projects/${projectId}/invitations`;
    return renderPage(c, ctx, {
      title: `${ctx.t("invitations.title")} · ${project.name}`,
      status: shown.status ?? 200,
      body: (
        <>
          <h1>{ctx.t("invitations.title")} · {project.name}</h1>
          <p>
            <a href={`/projects/${projectId}#invitations`}>{ctx.t("invitations.back")}</a>
          </p>
          <Alert message={shown.message} />
          <InvitationsCard
            ctx={ctx}
            base={base}
            roles={["member", "viewer", "owner"]}
            page={page}
            form={formState(shown, "invite")}
            pager={base}
          />
        </>
      ),
    });
  };

  /** The server's whole list of invitations (admins), with the invite form. */
  const showAdminList = async (c: Context<AppEnv>, shown: Shown = {}) => {
    const ctx = await pageCtx(c, services);
    if (ctx.user?.role !== "admin") return notFound(c, ctx);
    const page = await invitations.list(
      ctx.actor!,
      null,
      pageRequest({ page: c.req.query("page") }, { clampPage: true }),
    );
    return renderPage(c, ctx, {
      title: ctx.t("invitations.title"),
      status: shown.status ?? 200,
      body: (
        <>
          <h1>{ctx.t("invitations.title")}</h1>
          <p>
            <a href="/admin#invitations">{ctx.t("invitations.back")}</a>
          </p>
          <Alert message={shown.message} />
          <InvitationsCard
            ctx={ctx}
            base="/admin/invitations"
            roles={["member", "admin"]}
            page={page}
            form={formState(shown, "invite")}
            pager="/admin/invitations"
          />
        </>
      ),
    });
  };

  const ready = (
    c: Context<AppEnv>,
    ctx: PageCtx,
    made: { invitation: Invitation; url: string },
    back: string,
  ) =>
    renderPage(c, ctx, {
      title: ctx.t("invitations.readyTitle"),
      status: 201,
      body: (
        <ReadyPage
          ctx={ctx}
          invitation={made.invitation}
          url={made.url}
          mailed={mailOn}
          back={back}
        />
      ),
    });

  const refusals = {
    already_member: { field: "email", message: "invitations.already" },
    account_exists: { field: "email", message: "invitations.accountExists" },
    rate_limited: "invitations.throttled",
    conflict: "invitations.done",
  } as const;

  app.get(`${P}/invitations`, (c) => showProjectList(c));

  form(`${P}/invitations`, {
    form: "invite",
    schema: ProjectInvitationInput,
    codes: refusals,
    subject: ({ c, ctx }) => services.projects.get(ctx.actor!, paramId(c, "projectId")),
    show: (shown, { c }) => showProjectList(c, shown),
    change: async (input, { c, ctx }) => {
      const projectId = paramId(c, "projectId");
      const result = await invitations.inviteToProject(
        ctx.actor!,
        projectId,
        input,
        origin(c),
        requestMeta(c),
      );
      if ("member" in result) return `/projects/${projectId}#members`;
      return ready(c, ctx, result, `/projects/${projectId}#invitations`);
    },
  });

  form(`${P}/invitations/:id{[0-9]+}/resend`, {
    form: "resend",
    codes: refusals,
    subject: ({ c, ctx }) => services.projects.get(ctx.actor!, paramId(c, "projectId")),
    show: (shown, { c }) => showProjectList(c, shown),
    change: async (_, { c, ctx }) => {
      const projectId = paramId(c, "projectId");
      const made = await invitations.resend(
        ctx.actor!,
        { projectId },
        paramId(c, "id"),
        origin(c),
        requestMeta(c),
      );
      return ready(c, ctx, made, `/projects/${projectId}#invitations`);
    },
  });

  form(`${P}/invitations/:id{[0-9]+}/revoke`, {
    form: "revoke",
    codes: refusals,
    subject: ({ c, ctx }) => services.projects.get(ctx.actor!, paramId(c, "projectId")),
    show: (shown, { c }) => showProjectList(c, shown),
    change: async (_, { c, ctx }) => {
      const projectId = paramId(c, "projectId");
      await invitations.revoke(ctx.actor!, { projectId }, paramId(c, "id"), requestMeta(c));
      return `/projects/${projectId}#invitations`;
    },
  });

  const adminOnly = ({ ctx }: { ctx: PageCtx }) => {
    if (ctx.user?.role !== "admin") throw new DomainError("not_found", "No such page");
  };

  app.get("/admin/invitations", (c) => showAdminList(c));

  form("/admin/invitations", {
    form: "invite",
    schema: ServerInvitationInput,
    codes: refusals,
    subject: adminOnly,
    show: (shown, { c }) => showAdminList(c, shown),
    change: async (input, { c, ctx }) =>
      ready(
        c,
        ctx,
        await invitations.inviteToServer(ctx.actor!, input, origin(c), requestMeta(c)),
        "/admin#invitations",
      ),
  });

  form("/admin/invitations/:id{[0-9]+}/resend", {
    form: "resend",
    codes: refusals,
    subject: adminOnly,
    show: (shown, { c }) => showAdminList(c, shown),
    change: async (_, { c, ctx }) =>
      ready(
        c,
        ctx,
        await invitations.resend(ctx.actor!, null, paramId(c, "id"), origin(c), requestMeta(c)),
        "/admin#invitations",
      ),
  });

  form("/admin/invitations/:id{[0-9]+}/revoke", {
    form: "revoke",
    codes: refusals,
    subject: adminOnly,
    show: (shown, { c }) => showAdminList(c, shown),
    change: async (_, { c, ctx }) => {
      await invitations.revoke(ctx.actor!, null, paramId(c, "id"), requestMeta(c));
      return "/admin#invitations";
    },
  });

  return app;
}
