/**
 * The administration page: users (role and status), deleted projects (restorable until the
 * sweep purges them), mail (on or off, the newest mails and the last failure) and the applied
 * migrations; it links to the audit log's page (`audit_page.tsx`).
 */
import { requestMeta } from "../client_address.ts";
import { type Context, Hono } from "hono";
import type { PublicUser } from "../../domain/accounts/accounts.ts";
import { DomainError } from "../../domain/kernel/errors.ts";
import { type Page, pageRequest } from "../../domain/kernel/paging.ts";
import type { Services } from "../../domain/services.ts";
import type { DeletedProject } from "../../domain/projects/trash.ts";
import type { MailInfo, MailState } from "../../domain/mail/mail.ts";
import type { SsoStatus } from "../../domain/identity/sso.ts";
import type { Invitation } from "../../domain/identity/invitations.ts";
import type { AppEnv } from "../api/openapi.ts";
import { AdminUserInput } from "../api/admin.ts";
import { formatDateTime } from "../i18n/format.ts";
import { type PageCtx, pageCtx } from "./context.ts";
import { paramId } from "./kit/area.tsx";
import { Pager, Table } from "./kit/content.tsx";
import { ButtonForm, Select } from "./kit/fields.tsx";
import { InvitationsCard } from "./kit/invitations.tsx";
import { ActionNotice, afterRestore, type Notices, noticesOf } from "./kit/notices.tsx";
import { notFound } from "./kit/errors.tsx";
import { Alert, renderPage } from "./kit/layout.tsx";
import { pageForms, type Shown } from "./kit/submit.ts";

/** A yes/no select's value as the schema's flag: absent or empty is no change. */
function flagField(value: string | undefined): boolean | string | undefined {
  if (value === undefined || value === "") return undefined;
  return value === "true" ? true : value === "false" ? false : value;
}

function AdminPage(
  props: {
    ctx: PageCtx;
    users: PublicUser[];
    migrations: Array<{ version: number; name: string; appliedAt: string }>;
    deleted: Page<DeletedProject>;
    mail: MailState;
    mails: Page<MailInfo>;
    /** Single sign-on's status, or null when OIDC_ISSUER is unset. */
    sso: SsoStatus | null;
    invitations: Page<Invitation>;
    notices: Notices;
    message?: string | null;
    /** A reset link just made, to copy and pass on. */
    resetLink?: { name: string; url: string; expiresAt: string } | undefined;
  },
) {
  const { t, locale, timeZone } = props.ctx;
  const nameOf = (id: number | null) =>
    id === null ? "" : props.users.find((u) => u.id === id)?.displayName ?? "";
  return (
    <>
      <h1>{t("admin.title")}</h1>
      <p>
        <a href="/admin/audit" data-audit-link>{t("admin.auditLink")}</a>
      </p>
      <ActionNotice ctx={props.ctx} notices={props.notices} projectId={null} canUndo={false} />
      <Alert message={props.message} />
      {props.resetLink
        ? (
          <div class="card" data-reset-link>
            <h2>{t("admin.resetLinkFor", { name: props.resetLink.name })}</h2>
            <p>
              {t("admin.resetLinkHint", {
                time: formatDateTime(props.resetLink.expiresAt, locale, timeZone),
              })}
            </p>
            <label>
              {t("admin.resetLink")}
              <input type="text" readonly value={props.resetLink.url} />
            </label>
          </div>
        )
        : null}
      <h2>{t("admin.users")}</h2>
      <div class="card">
        <Table
          heads={[t("field.displayName"), t("field.email"), t("field.role"), t("field.status"), {
            hidden: t("content.actions"),
          }]}
        >
          {props.users.map((u) => (
            <tr data-user-row={u.email}>
              <td>{u.displayName}</td>
              <td>{u.email}</td>
              <td colspan={3}>
                <form class="inline" method="post" action={`/admin/users/${u.id}`}>
                  <Select
                    name="role"
                    label={t("field.role")}
                    value={u.role}
                    options={[["admin", t("role.admin")], ["member", t("role.member")]]}
                  />
                  <Select
                    name="status"
                    label={t("field.status")}
                    value={u.status}
                    options={[["active", t("status.active")], [
                      "disabled",
                      t("status.disabled"),
                    ]]}
                  />
                  <Select
                    name="loanOfficer"
                    label={t("admin.loanOfficer")}
                    value={String(u.loanOfficer)}
                    options={[["false", t("admin.loanOfficerNo")], [
                      "true",
                      t("admin.loanOfficerYes"),
                    ]]}
                  />
                  <button class="secondary" type="submit">{t("admin.update")}</button>
                </form>{" "}
                <form
                  class="inline"
                  method="post"
                  action={`/admin/users/${u.id}/password-reset`}
                >
                  <button
                    class="secondary"
                    type="submit"
                    aria-label={`${t("admin.resetLink")}: ${u.displayName}`}
                  >
                    {t("admin.resetLink")}
                  </button>
                </form>
              </td>
            </tr>
          ))}
        </Table>
      </div>
      <h2 id="invitations">{t("invitations.title")}</h2>
      <InvitationsCard
        ctx={props.ctx}
        base="/admin/invitations"
        roles={["member", "admin"]}
        page={props.invitations}
        form={{ values: {}, errors: {}, refused: false }}
        pager={null}
      />
      <h2 id="deleted-projects">{t("admin.deletedProjects")}</h2>
      {props.deleted.items.length === 0
        ? <p class="muted">{t("admin.noDeletedProjects")}</p>
        : (
          <div class="card">
            <Table
              heads={[
                t("field.name"),
                t("trash.deletedBy"),
                t("trash.deletedAt"),
                t("trash.purgeAt"),
                "",
              ]}
            >
              {props.deleted.items.map((p) => (
                <tr data-deleted-project={p.id}>
                  <td>{p.name}</td>
                  <td>{nameOf(p.deletedBy)}</td>
                  <td class="muted">
                    <time datetime={p.deletedAt}>
                      {formatDateTime(p.deletedAt, locale, timeZone)}
                    </time>
                  </td>
                  <td class="muted">
                    <time datetime={p.purgeAt}>{formatDateTime(p.purgeAt, locale, timeZone)}</time>
                  </td>
                  <td>
                    <ButtonForm
                      class="inline"
                      action={`/admin/trash/projects/${p.id}/restore`}
                      label={t("trash.restore")}
                      button="secondary"
                      attrs={{ "data-restore-project": p.id }}
                    />
                  </td>
                </tr>
              ))}
            </Table>
          </div>
        )}
      <Pager ctx={props.ctx} page={props.deleted} path="/admin" />
      <h2 id="sso">{t("admin.sso")}</h2>
      {props.sso === null
        ? <p data-sso-status="off">{t("admin.ssoOff")}</p>
        : (
          <dl data-sso-status={props.sso.discovered ? "ok" : "unknown"}>
            <dt>{t("admin.ssoIssuer")}</dt>
            <dd>
              <code>{props.sso.issuer}</code>
            </dd>
            <dt>{t("admin.ssoDiscovery")}</dt>
            <dd>{props.sso.discovered ? t("admin.ssoDiscovered") : t("admin.ssoNotYet")}</dd>
            <dt>{t("admin.ssoLastFailure")}</dt>
            <dd data-sso-last-failure>
              {props.sso.lastFailure === null ? t("admin.ssoNoFailure") : (
                <>
                  <time datetime={props.sso.lastFailure.at}>
                    {formatDateTime(props.sso.lastFailure.at, locale, timeZone)}
                  </time>{" "}
                  {props.sso.lastFailure.reason}
                </>
              )}
            </dd>
          </dl>
        )}
      <h2 id="mail">{t("admin.mail")}</h2>
      <p data-mail-enabled={String(props.mail.enabled)}>
        {props.mail.enabled ? t("admin.mailOn") : t("admin.mailOff")}
      </p>
      {props.mail.lastFailure && (
        <div class="card" data-mail-last-failure={props.mail.lastFailure.id}>
          <strong>{t("admin.mailLastFailure")}</strong>{" "}
          <time datetime={props.mail.lastFailure.createdAt}>
            {formatDateTime(props.mail.lastFailure.createdAt, locale, timeZone)}
          </time>{" "}
          {props.mail.lastFailure.to}: {props.mail.lastFailure.lastError ?? ""}
        </div>
      )}
      {props.mails.items.length === 0
        ? <p class="muted">{t("admin.mailNone")}</p>
        : (
          <div class="card">
            <Table
              heads={[
                t("admin.mailTo"),
                t("admin.mailKind"),
                t("admin.mailSubject"),
                t("admin.mailStatus"),
                t("admin.mailAttempts"),
                t("admin.mailLastError"),
                t("admin.mailCreated"),
                t("admin.mailSent"),
              ]}
            >
              {props.mails.items.map((m) => (
                <tr data-mail={m.id} data-mail-status={m.status}>
                  <td>{m.to}</td>
                  <td>{m.kind}</td>
                  <td>{m.subject}</td>
                  <td>{t(`mail.status.${m.status}`)}</td>
                  <td>{m.attempts}</td>
                  <td class="muted">{m.lastError ?? ""}</td>
                  <td class="muted">
                    <time datetime={m.createdAt}>
                      {formatDateTime(m.createdAt, locale, timeZone)}
                    </time>
                  </td>
                  <td class="muted">
                    {m.sentAt && (
                      <time datetime={m.sentAt}>{formatDateTime(m.sentAt, locale, timeZone)}</time>
                    )}
                  </td>
                </tr>
              ))}
            </Table>
          </div>
        )}
      <h2>{t("admin.migrations")}</h2>
      <div class="card">
        <Table heads={[t("admin.version"), t("field.name"), t("admin.appliedAt")]}>
          {props.migrations.map((m) => (
            <tr>
              <td>{String(m.version).padStart(3, "0")}</td>
              <td>{m.name}</td>
              <td class="muted">
                <time datetime={m.appliedAt}>{formatDateTime(m.appliedAt, locale, timeZone)}</time>
              </td>
            </tr>
          ))}
        </Table>
      </div>
    </>
  );
}

/** The admin page (system admins only; others get the 404 page). */
export function adminPages(services: Services, options: { baseUrl: string | null }) {
  const { baseUrl } = options;
  const app = new Hono<AppEnv>();
  const form = pageForms(app, services);

  const show = async (
    c: Context<AppEnv>,
    shown: Shown = {},
    resetLink?: { name: string; url: string; expiresAt: string },
  ) => {
    const ctx = await pageCtx(c, services);
    if (ctx.user?.role !== "admin") return notFound(c, ctx);
    // Components cannot await: the data is loaded first.
    const users = await services.accounts.listUsers(ctx.actor!);
    const migrations = await services.admin.migrations(ctx.actor!);
    const deleted = await services.trash.deletedProjects(
      ctx.actor!,
      pageRequest({ page: c.req.query("page") }, { clampPage: true }),
    );
    // The newest mails (the whole list, page by page, is GET /api/admin/mail).
    const mail = await services.mail.state(ctx.actor!);
    const mails = await services.mail.list(ctx.actor!, pageRequest({}));
    // The newest invitations (the whole list is /admin/invitations).
    const invitations = await services.invitations.list(ctx.actor!, null, pageRequest({}));
    return renderPage(c, ctx, {
      title: ctx.t("admin.title"),
      status: shown.status ?? 200,
      body: (
        <AdminPage
          ctx={ctx}
          users={users}
          migrations={migrations}
          deleted={deleted}
          mail={mail}
          mails={mails}
          sso={services.sso?.status() ?? null}
          invitations={invitations}
          notices={noticesOf(c.req.url)}
          message={shown.message ?? null}
          resetLink={resetLink}
        />
      ),
    });
  };

  app.get("/admin", (c) => show(c));

  form("/admin/users/:userId{[0-9]+}", {
    form: "user",
    schema: AdminUserInput,
    read: (fields) => ({
      role: fields.role || undefined,
      status: fields.status || undefined,
      loanOfficer: flagField(fields.loanOfficer),
    }),
    codes: { conflict: "admin.lastAdmin" },
    show: (shown, { c }) => show(c, shown),
    change: async ({ role, status, loanOfficer }, { c, ctx }) => {
      await services.accounts.adminUpdate(ctx.actor!, paramId(c, "userId"), {
        ...(role ? { role } : {}),
        ...(status ? { status } : {}),
        ...(loanOfficer !== undefined ? { loanOfficer } : {}),
      }, requestMeta(c));
      return "/admin";
    },
  });

  form("/admin/users/:userId{[0-9]+}/password-reset", {
    form: "reset-link",
    codes: { conflict: "admin.resetDisabled" },
    subject: ({ ctx }) => {
      if (ctx.user?.role !== "admin") throw new DomainError("not_found", "No such page");
    },
    show: (shown, { c }) => show(c, shown),
    // The link is shown on the answer itself: it never travels in an address.
    change: async (_, { c, ctx }) => {
      const userId = paramId(c, "userId");
      const base = baseUrl ?? new URL(c.req.url).origin;
      const link = await services.passwordReset.issue(ctx.actor!, userId, base);
      const users = await services.accounts.listUsers(ctx.actor!);
      const name = users.find((u) => u.id === userId)?.displayName ?? "";
      return await show(c, {}, { name, ...link });
    },
  });

  form("/admin/trash/projects/:projectId{[0-9]+}/restore", {
    form: "restore-project",
    codes: { not_found: "trash.notInTrash" },
    // Not an admin: the 404 page, as for the admin page itself.
    subject: ({ ctx }) => {
      if (ctx.user?.role !== "admin") throw new DomainError("not_found", "No such page");
    },
    show: (shown, { c }) => show(c, shown),
    change: async (_, { c, ctx }) => {
      const project = await services.trash.restoreProject(
        ctx.actor!,
        paramId(c, "projectId"),
        requestMeta(c),
      );
      return afterRestore("/admin", { type: "project", id: project.id });
    },
  });

  return app;
}
