/**
 * The audit log's page (system admins; others get the 404 page): the rows newest first, page
 * by page, with the filters of `GET /api/admin/audit` (action, actor, target type, a span of
 * dates). The dates are the viewer's, in their time zone: "from" is the start of that day
 * there, "to" includes that whole day. The filters are checked by the API's own schema, so a
 * malformed one is refused (400) here as there.
 */
import type { Context } from "hono";
import { Hono } from "hono";
import { AUDIT_ACTIONS, type AuditRecord } from "../../domain/accounts/audit.ts";
import type { PublicUser } from "../../domain/accounts/accounts.ts";
import { addDays } from "../../domain/kernel/days.ts";
import { type Page, pageOf, pageRequest } from "../../domain/kernel/paging.ts";
import { wallTimeToUtc } from "../../domain/kernel/time_zones.ts";
import type { Services } from "../../domain/services.ts";
import { auditFilter, AuditQuery } from "../api/admin.ts";
import type { AppEnv } from "../api/openapi.ts";
import { formatDateTime } from "../i18n/format.ts";
import { type PageCtx, pageCtx } from "./context.ts";
import { Pager, Table } from "./kit/content.tsx";
import { notFound } from "./kit/errors.tsx";
import { Select } from "./kit/fields.tsx";
import { Alert, renderPage } from "./kit/layout.tsx";

/** The target types the filter offers (the audited actions' targets). */
export const AUDIT_TARGET_TYPES = ["user", "invitation", "token", "webhook", "project"] as const;

/** The page's filter fields, as typed into its form. */
type FilterValues = Record<"action" | "actorId" | "targetType" | "from" | "to", string>;

const FILTER_FIELDS = ["action", "actorId", "targetType", "from", "to"] as const;

/** The instant calendar date `date` (YYYY-MM-DD) begins in `zone`; null for no such date. */
function dayStart(date: string, zone: string): string | null {
  return /^\d{4}-\d{2}-\d{2}$/.test(date) ? wallTimeToUtc(`${date}T00:00`, zone) : null;
}

/**
 * The API's query for the page's fields: the dates become the instants their days begin (the
 * day after "to"'s, which it includes) in `zone`. A date that is no date stays as typed, for
 * the schema to refuse.
 */
function apiQuery(values: FilterValues, page: string | undefined, zone: string) {
  const query: Record<string, string> = {};
  for (const key of ["action", "actorId", "targetType"] as const) {
    if (values[key] !== "") query[key] = values[key];
  }
  if (values.from !== "") query.from = dayStart(values.from, zone) ?? values.from;
  if (values.to !== "") {
    const next = dayStart(values.to, zone) === null ? null : addDays(values.to, 1);
    query.to = (next === null ? null : dayStart(next, zone)) ?? values.to;
  }
  if (page !== undefined) query.page = page;
  return query;
}

function AuditPage(
  props: {
    ctx: PageCtx;
    values: FilterValues;
    users: PublicUser[];
    rows: Page<AuditRecord>;
    invalid: string[];
  },
) {
  const { ctx, values, rows } = props;
  const { t, locale, timeZone } = ctx;
  const query = Object.fromEntries(
    FILTER_FIELDS.map((key) => [key, values[key] === "" ? null : values[key]]),
  );
  return (
    <>
      <h1>{t("admin.audit")}</h1>
      <p>
        <a href="/admin">{t("invitations.back")}</a>
      </p>
      <Alert
        message={props.invalid.length > 0
          ? t("admin.auditBadFilter", { fields: props.invalid.join(", ") })
          : null}
      />
      <form class="row card" method="get" action="/admin/audit" data-audit-filters>
        <label>
          {t("admin.auditAction")}
          <Select
            name="action"
            value={values.action}
            options={[
              ["", t("admin.auditAnyAction")],
              ...AUDIT_ACTIONS.map((a) => [a, a] as const),
            ]}
          />
        </label>
        <label>
          {t("admin.auditActor")}
          <Select
            name="actorId"
            value={values.actorId}
            options={[
              ["", t("admin.auditAnyActor")],
              ...props.users.map((u) => [u.id, `${u.displayName} <${u.email}>`] as const),
            ]}
          />
        </label>
        <label>
          {t("admin.auditTargetType")}
          <Select
            name="targetType"
            value={values.targetType}
            options={[["", "—"], ...AUDIT_TARGET_TYPES.map((ty) => [ty, ty] as const)]}
          />
        </label>
        <label>
          {t("admin.auditFrom")}
          <input type="date" name="from" value={values.from} />
        </label>
        <label>
          {t("admin.auditTo")}
          <input type="date" name="to" value={values.to} />
        </label>
        <button type="submit">{t("admin.auditFilter")}</button>
        <a href="/admin/audit">{t("admin.auditClear")}</a>
      </form>
      <p class="muted">{t("admin.auditZone", { zone: timeZone })}</p>
      {rows.items.length === 0
        ? <p class="muted" data-audit-none>{t("admin.auditNone")}</p>
        : (
          <div class="card">
            <Table
              region={t("admin.audit")}
              heads={[
                t("admin.auditAt"),
                t("admin.auditActor"),
                t("admin.auditAction"),
                t("admin.auditTarget"),
                t("admin.auditDetails"),
                t("admin.auditAddress"),
                t("admin.auditRequest"),
              ]}
            >
              {rows.items.map((r) => (
                <tr data-audit-row={r.id} data-audit-action={r.action}>
                  <td class="muted">
                    <time datetime={r.at}>{formatDateTime(r.at, locale, timeZone)}</time>
                  </td>
                  <td>{r.actorEmail ?? t("admin.auditNoActor")}</td>
                  <td>
                    <code>{r.action}</code>
                  </td>
                  <td>{r.targetType === null ? "" : `${r.targetType} ${r.targetId ?? ""}`}</td>
                  <td>
                    <code>{JSON.stringify(r.details)}</code>
                  </td>
                  <td class="muted">{r.clientAddress ?? ""}</td>
                  <td class="muted">
                    <code>{r.requestId ?? ""}</code>
                  </td>
                </tr>
              ))}
            </Table>
          </div>
        )}
      <Pager ctx={ctx} page={rows} path="/admin/audit" query={query} />
    </>
  );
}

/** The audit log page. */
export function auditPages(services: Services) {
  const app = new Hono<AppEnv>();

  const show = async (c: Context<AppEnv>) => {
    const ctx = await pageCtx(c, services);
    if (ctx.user?.role !== "admin") return notFound(c, ctx);
    const values = Object.fromEntries(
      FILTER_FIELDS.map((key) => [key, (c.req.query(key) ?? "").trim()]),
    ) as FilterValues;
    const parsed = AuditQuery.safeParse(apiQuery(values, c.req.query("page"), ctx.timeZone));
    const users = await services.accounts.listUsers(ctx.actor!);
    const invalid = parsed.success
      ? []
      : [...new Set(parsed.error.issues.map((i) => String(i.path[0] ?? "")))];
    const rows = parsed.success
      ? await services.auditLog.list(
        ctx.actor!,
        auditFilter(parsed.data),
        pageRequest({ ...parsed.data }, { clampPage: true }),
      )
      : pageOf<AuditRecord>([], 0, pageRequest({}));
    return renderPage(c, ctx, {
      title: ctx.t("admin.audit"),
      status: parsed.success ? 200 : 400,
      body: <AuditPage ctx={ctx} values={values} users={users} rows={rows} invalid={invalid} />,
    });
  };

  app.get("/admin/audit", (c) => show(c));
  return app;
}
