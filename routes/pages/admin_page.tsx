/** The administration page: users (role and status) and the applied migrations. */
import { type Context, Hono } from "hono";
import type { PublicUser } from "../../domain/accounts.ts";
import type { Services } from "../../domain/services.ts";
import type { AppEnv } from "../api/openapi.ts";
import { AdminUserInput } from "../api/admin.ts";
import { formatDateTime } from "../i18n/format.ts";
import { type PageCtx, pageCtx } from "./context.ts";
import { paramId } from "./kit/area.tsx";
import { Table } from "./kit/content.tsx";
import { Select } from "./kit/fields.tsx";
import { notFound } from "./kit/errors.tsx";
import { Alert, renderPage } from "./kit/layout.tsx";
import { pageForms, type Shown } from "./kit/submit.ts";

function AdminPage(
  props: {
    ctx: PageCtx;
    users: PublicUser[];
    migrations: Array<{ version: number; name: string; appliedAt: string }>;
    message?: string | null;
  },
) {
  const { t, locale } = props.ctx;
  return (
    <>
      <h1>{t("admin.title")}</h1>
      <Alert message={props.message} />
      <h2>{t("admin.users")}</h2>
      <div class="card">
        <Table
          heads={[t("field.displayName"), t("field.email"), t("field.role"), t("field.status"), ""]}
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
                  <button class="secondary" type="submit">{t("admin.update")}</button>
                </form>
              </td>
            </tr>
          ))}
        </Table>
      </div>
      <h2>{t("admin.migrations")}</h2>
      <div class="card">
        <Table heads={[t("admin.version"), t("field.name"), t("admin.appliedAt")]}>
          {props.migrations.map((m) => (
            <tr>
              <td>{String(m.version).padStart(3, "0")}</td>
              <td>{m.name}</td>
              <td class="muted">{formatDateTime(m.appliedAt, locale)}</td>
            </tr>
          ))}
        </Table>
      </div>
    </>
  );
}

/** The admin page (system admins only; others get the 404 page). */
export function adminPages(services: Services) {
  const app = new Hono<AppEnv>();
  const form = pageForms(app, services);

  const show = (c: Context<AppEnv>, shown: Shown = {}) => {
    const ctx = pageCtx(c, services);
    if (ctx.user?.role !== "admin") return notFound(c, ctx);
    return renderPage(c, ctx, {
      title: ctx.t("admin.title"),
      status: shown.status ?? 200,
      body: (
        <AdminPage
          ctx={ctx}
          users={services.accounts.listUsers(ctx.actor!)}
          migrations={services.admin.migrations(ctx.actor!)}
          message={shown.message ?? null}
        />
      ),
    });
  };

  app.get("/admin", (c) => show(c));

  form("/admin/users/:userId{[0-9]+}", {
    form: "user",
    schema: AdminUserInput,
    read: (fields) => ({ role: fields.role || undefined, status: fields.status || undefined }),
    codes: { conflict: "admin.lastAdmin" },
    show: (shown, { c }) => show(c, shown),
    change: ({ role, status }, { c, ctx }) => {
      services.accounts.adminUpdate(ctx.actor!, paramId(c, "userId"), {
        ...(role ? { role } : {}),
        ...(status ? { status } : {}),
      });
      return "/admin";
    },
  });

  return app;
}
