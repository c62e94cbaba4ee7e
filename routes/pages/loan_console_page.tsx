/**
 * The loan operations console's pages (admins and loan officers; others get the 403 page):
 * - `/loan-console`: the last 30 days of decisions as a chart drawn here as SVG (no script),
 *   with the same numbers as a table for screen readers, then the customers with a name search,
 *   a flag filter and, on each, a blacklist switch that asks for the reason;
 * - `/loan-console/customers/{name}`: a customer, the switch, and the history of their flag;
 * - `/loan-console/decisions`: the decisions with the API's filters (dates in the viewer's
 *   zone) and a link to the same filters' CSV.
 * The switch is a plain form POST (`/loan-console/customers/{name}/blacklist`); a refused one
 * shows the customer's page again with the reason's error and changes nothing.
 */
import type { Context } from "hono";
import { Hono } from "hono";
import type { BlacklistChange, Customer, Decision, LoanStats } from "../../domain/loan/console.ts";
import { MAX_REASON } from "../../domain/loan/console.ts";
import { REJECTION_CODES } from "../../domain/loan/loan.ts";
import { type Page, pageOf, pageRequest } from "../../domain/kernel/paging.ts";
import type { Services } from "../../domain/services.ts";
import { requestMeta } from "../client_address.ts";
import {
  BlacklistInput,
  CustomerQuery,
  DecisionQuery,
  decisionQuery,
} from "../api/loan_console.ts";
import { PageQuery } from "../api/openapi.ts";
import type { AppEnv } from "../api/openapi.ts";
import { formatDateTime, formatDay } from "../i18n/format.ts";
import type { Translate } from "../i18n/i18n.ts";
import { type PageCtx, pageCtx } from "./context.ts";
import { Facts, Pager, Table } from "./kit/content.tsx";
import { FieldError } from "./kit/layout.tsx";
import { type FormState, formState, Select } from "./kit/fields.tsx";
import { Alert, renderPage } from "./kit/layout.tsx";
import { pageForms, type Shown } from "./kit/submit.ts";

const BASE = "/loan-console";

/** A customer's page. */
export function customerHref(name: string): string {
  return `${BASE}/customers/${encodeURIComponent(name)}`;
}

function Tabs(props: { ctx: PageCtx; current: "customers" | "decisions" }) {
  const { t } = props.ctx;
  const tab = (key: "customers" | "decisions", href: string, label: string) => (
    <a href={href} aria-current={props.current === key ? "page" : undefined}>{label}</a>
  );
  return (
    <nav class="tabs" aria-label={t("loan.title")}>
      {tab("customers", BASE, t("loan.customers"))}
      {tab("decisions", `${BASE}/decisions`, t("loan.decisions"))}
    </nav>
  );
}

/** The chart's drawing area, in SVG user units (it scales to the page's width). */
const CHART = { width: 600, height: 200, top: 12, bottom: 24, left: 36, right: 8 };

/**
 * The days of `stats` as stacked bars (approved below, rejected above), drawn here: hidden from
 * screen readers, which read the table beside it.
 */
function Chart(props: { ctx: PageCtx; stats: LoanStats }) {
  const { t, locale } = props.ctx;
  const { days, totals } = props.stats;
  const max = Math.max(1, ...days.map((d) => d.approved + d.rejected));
  const plotH = CHART.height - CHART.top - CHART.bottom;
  const slot = (CHART.width - CHART.left - CHART.right) / Math.max(1, days.length);
  const bar = Math.max(2, slot * 0.7);
  const y = (n: number) => CHART.top + plotH - (n / max) * plotH;
  const first = days[0]?.date ?? "";
  const last = days.at(-1)?.date ?? "";
  return (
    <figure class="card loan-chart" data-loan-chart>
      <figcaption>
        <h2>{t("loan.chartTitle")}</h2>
        <p class="muted">
          {t("loan.chartTotals", {
            approved: totals.approved.toLocaleString(locale),
            rejected: totals.rejected.toLocaleString(locale),
          })}
        </p>
      </figcaption>
      <svg
        viewBox={`0 0 ${CHART.width} ${CHART.height}`}
        class="chart"
        aria-hidden="true"
        focusable="false"
      >
        <line
          class="chart-axis"
          x1={CHART.left}
          y1={CHART.top + plotH}
          x2={CHART.width - CHART.right}
          y2={CHART.top + plotH}
        />
        <text class="chart-label" x={CHART.left - 4} y={CHART.top + 4} text-anchor="end">
          {max.toLocaleString(locale)}
        </text>
        <text class="chart-label" x={CHART.left - 4} y={CHART.top + plotH} text-anchor="end">
          0
        </text>
        {days.map((d, i) => {
          const x = CHART.left + i * slot + (slot - bar) / 2;
          const approvedTop = y(d.approved);
          const rejectedTop = y(d.approved + d.rejected);
          return (
            <g data-chart-day={d.date}>
              <title>
                {`${formatDay(d.date, locale)}: ${
                  t("loan.chartDay", { approved: d.approved, rejected: d.rejected })
                }`}
              </title>
              <rect
                class="chart-approved"
                x={x.toFixed(1)}
                y={approvedTop.toFixed(1)}
                width={bar.toFixed(1)}
                height={(CHART.top + plotH - approvedTop).toFixed(1)}
              />
              <rect
                class="chart-rejected"
                x={x.toFixed(1)}
                y={rejectedTop.toFixed(1)}
                width={bar.toFixed(1)}
                height={(approvedTop - rejectedTop).toFixed(1)}
              />
            </g>
          );
        })}
        <text class="chart-label" x={CHART.left} y={CHART.height - 6}>
          {first === "" ? "" : formatDay(first, locale)}
        </text>
        <text
          class="chart-label"
          x={CHART.width - CHART.right}
          y={CHART.height - 6}
          text-anchor="end"
        >
          {last === "" ? "" : formatDay(last, locale)}
        </text>
      </svg>
      <p class="row chart-legend" aria-hidden="true">
        <span>
          <span class="swatch chart-approved-swatch"></span> {t("loan.approved")}
        </span>
        <span>
          <span class="swatch chart-rejected-swatch"></span> {t("loan.rejected")}
        </span>
      </p>
      <div class="visually-hidden">
        <table data-chart-table>
          <caption>{t("loan.chartTitle")}</caption>
          <thead>
            <tr>
              <th scope="col">{t("loan.date")}</th>
              <th scope="col">{t("loan.approved")}</th>
              <th scope="col">{t("loan.rejected")}</th>
              <th scope="col">{t("loan.reason.blacklisted")}</th>
              <th scope="col">{t("loan.reason.low_score")}</th>
              <th scope="col">{t("loan.amountApproved")}</th>
            </tr>
          </thead>
          <tbody>
            {days.map((d) => (
              <tr>
                <th scope="row">{formatDay(d.date, locale)}</th>
                <td>{d.approved}</td>
                <td>{d.rejected}</td>
                <td>{d.byReason.blacklisted}</td>
                <td>{d.byReason.low_score}</td>
                <td>{d.amountApproved.toLocaleString(locale)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}

/** The flag as words. */
function FlagText(props: { t: Translate; blacklisted: boolean }) {
  return props.blacklisted
    ? <strong class="flag-blacklisted">{props.t("loan.blacklisted")}</strong>
    : <span>{props.t("loan.notBlacklisted")}</span>;
}

/**
 * The blacklist switch: the flag it sets (the other one) and the reason it asks for; folded
 * under a summary on the list (`folded`), open on the customer's page.
 */
function Switch(
  props: { ctx: PageCtx; customer: Customer; form: FormState; folded: boolean },
) {
  const { t } = props.ctx;
  const { customer, form } = props;
  const next = !customer.blacklisted;
  const label = next ? t("loan.blacklist") : t("loan.unblock");
  const body = (
    <form
      class="stack"
      method="post"
      action={`${customerHref(customer.name)}/blacklist`}
      data-blacklist-form={customer.name}
    >
      <input type="hidden" name="blacklisted" value={String(next)} />
      <label>
        {t("loan.reason")}
        <input
          type="text"
          name="reason"
          required
          maxlength={MAX_REASON}
          value={form.values.reason ?? ""}
          aria-invalid={form.errors.reason ? "true" : undefined}
        />
        <FieldError message={form.errors.reason} />
      </label>
      <div>
        <button type="submit" class={next ? "danger" : undefined}>{label}</button>
      </div>
    </form>
  );
  if (!props.folded) return body;
  return (
    <details class="loan-switch" open={form.refused}>
      <summary>
        {label}
        <span class="visually-hidden">: {customer.name}</span>
      </summary>
      {body}
    </details>
  );
}

function CustomersPage(
  props: {
    ctx: PageCtx;
    stats: LoanStats;
    values: { q: string; blacklisted: string };
    customers: Page<Customer>;
    invalid: boolean;
  },
) {
  const { ctx, values, customers } = props;
  const { t, locale, timeZone } = ctx;
  return (
    <>
      <h1>{t("loan.title")}</h1>
      <Tabs ctx={ctx} current="customers" />
      <Chart ctx={ctx} stats={props.stats} />
      <h2>{t("loan.customers")}</h2>
      <Alert message={props.invalid ? t("loan.badFilter") : null} />
      <form class="row card" method="get" action={BASE} role="search" data-customer-search>
        <label>
          {t("loan.search")}
          <input type="search" name="q" value={values.q} maxlength={200} />
        </label>
        <label>
          {t("loan.flag")}
          <Select
            name="blacklisted"
            value={values.blacklisted}
            options={[
              ["", t("loan.anyFlag")],
              ["true", t("loan.blacklisted")],
              ["false", t("loan.notBlacklisted")],
            ]}
          />
        </label>
        <button type="submit">{t("loan.filter")}</button>
        <a href={BASE}>{t("loan.clear")}</a>
      </form>
      {customers.items.length === 0
        ? <p class="muted" data-customers-none>{t("loan.noCustomers")}</p>
        : (
          <div class="card">
            <Table
              heads={[
                t("loan.name"),
                t("loan.flag"),
                t("loan.registeredAt"),
                t("loan.applications"),
                t("loan.approvedCount"),
                t("loan.lastAppliedAt"),
                { hidden: t("content.actions") },
              ]}
            >
              {customers.items.map((c) => (
                <tr data-customer={c.name} data-blacklisted={String(c.blacklisted)}>
                  <td>
                    <a href={customerHref(c.name)}>{c.name}</a>
                  </td>
                  <td>
                    <FlagText t={t} blacklisted={c.blacklisted} />
                  </td>
                  <td class="muted">
                    <time datetime={c.registeredAt}>
                      {formatDateTime(c.registeredAt, locale, timeZone)}
                    </time>
                  </td>
                  <td>{c.applications.toLocaleString(locale)}</td>
                  <td>{c.approved.toLocaleString(locale)}</td>
                  <td class="muted">
                    {c.lastAppliedAt === null ? "—" : (
                      <time datetime={c.lastAppliedAt}>
                        {formatDateTime(c.lastAppliedAt, locale, timeZone)}
                      </time>
                    )}
                  </td>
                  <td>
                    <Switch
                      ctx={ctx}
                      customer={c}
                      form={{ values: {}, errors: {}, refused: false }}
                      folded
                    />
                  </td>
                </tr>
              ))}
            </Table>
          </div>
        )}
      <Pager
        ctx={ctx}
        page={customers}
        path={BASE}
        query={{
          q: values.q === "" ? null : values.q,
          blacklisted: values.blacklisted === "" ? null : values.blacklisted,
        }}
      />
    </>
  );
}

function CustomerPage(
  props: {
    ctx: PageCtx;
    customer: Customer;
    changes: BlacklistChange[];
    form: FormState;
    message: string | null;
  },
) {
  const { ctx, customer, changes } = props;
  const { t, locale, timeZone } = ctx;
  const flag = <FlagText t={t} blacklisted={customer.blacklisted} />;
  const registered = (
    <time datetime={customer.registeredAt}>
      {formatDateTime(customer.registeredAt, locale, timeZone)}
    </time>
  );
  return (
    <>
      <h1>{customer.name}</h1>
      <Tabs ctx={ctx} current="customers" />
      <p>
        <a href={BASE}>{t("loan.backToCustomers")}</a>
      </p>
      <Alert message={props.message} />
      <div class="card" data-customer-facts data-blacklisted={String(customer.blacklisted)}>
        <Facts
          facts={[
            [t("loan.flag"), flag],
            [t("loan.registeredAt"), registered],
            [t("loan.applications"), customer.applications.toLocaleString(locale)],
            [t("loan.approvedCount"), customer.approved.toLocaleString(locale)],
            [
              t("loan.lastAppliedAt"),
              customer.lastAppliedAt === null ? "—" : (
                <time datetime={customer.lastAppliedAt}>
                  {formatDateTime(customer.lastAppliedAt, locale, timeZone)}
                </time>
              ),
            ],
          ]}
        />
        <p>
          <a href={`${BASE}/decisions?applicant=${encodeURIComponent(customer.name)}`}>
            {t("loan.customerDecisions")}
          </a>
        </p>
      </div>
      <h2>{customer.blacklisted ? t("loan.unblock") : t("loan.blacklist")}</h2>
      <div class="card">
        <Switch ctx={ctx} customer={customer} form={props.form} folded={false} />
      </div>
      <h2>{t("loan.history")}</h2>
      {changes.length === 0
        ? <p class="muted" data-history-none>{t("loan.noChanges")}</p>
        : (
          <div class="card">
            <Table
              heads={[t("loan.changedAt"), t("loan.changedBy"), t("loan.flag"), t("loan.reason")]}
            >
              {changes.map((ch) => (
                <tr data-change data-change-blacklisted={String(ch.blacklisted)}>
                  <td class="muted">
                    <time datetime={ch.at}>{formatDateTime(ch.at, locale, timeZone)}</time>
                  </td>
                  <td>{ch.by.displayName}</td>
                  <td>
                    <FlagText t={t} blacklisted={ch.blacklisted} />
                  </td>
                  <td data-change-reason>{ch.reason}</td>
                </tr>
              ))}
            </Table>
          </div>
        )}
    </>
  );
}

/** The decisions page's filter fields, as typed. */
const DECISION_FIELDS = ["applicant", "approved", "reason", "from", "to"] as const;
type DecisionValues = Record<typeof DECISION_FIELDS[number], string>;

function DecisionsPage(
  props: { ctx: PageCtx; values: DecisionValues; rows: Page<Decision>; invalid: string[] },
) {
  const { ctx, values, rows } = props;
  const { t, locale, timeZone } = ctx;
  const query: Record<string, string | null> = Object.fromEntries(
    DECISION_FIELDS.map((key) => [key, values[key] === "" ? null : values[key]]),
  );
  const search = new URLSearchParams(
    Object.entries(query).filter((e): e is [string, string] => e[1] !== null),
  ).toString();
  return (
    <>
      <h1>{t("loan.title")}</h1>
      <Tabs ctx={ctx} current="decisions" />
      <Alert
        message={props.invalid.length > 0
          ? t("loan.badDecisionFilter", { fields: props.invalid.join(", ") })
          : null}
      />
      <form class="row card" method="get" action={`${BASE}/decisions`} data-decision-filters>
        <label>
          {t("loan.applicant")}
          <input type="text" name="applicant" value={values.applicant} />
        </label>
        <label>
          {t("loan.outcome")}
          <Select
            name="approved"
            value={values.approved}
            options={[["", t("loan.anyOutcome")], ["true", t("loan.approved")], [
              "false",
              t("loan.rejected"),
            ]]}
          />
        </label>
        <label>
          {t("loan.rejectionReason")}
          <Select
            name="reason"
            value={values.reason}
            options={[
              ["", t("loan.anyReason")],
              ...REJECTION_CODES.map((code) => [code, t(`loan.reason.${code}`)] as const),
            ]}
          />
        </label>
        <label>
          {t("loan.from")}
          <input type="date" name="from" value={values.from} />
        </label>
        <label>
          {t("loan.to")}
          <input type="date" name="to" value={values.to} />
        </label>
        <button type="submit">{t("loan.filter")}</button>
        <a href={`${BASE}/decisions`}>{t("loan.clear")}</a>
      </form>
      <p class="row">
        <span class="muted">{t("loan.zone", { zone: timeZone })}</span>
        <a
          href={`/api/loan/decisions.csv${search === "" ? "" : `?${search}`}`}
          download
          data-csv-link
        >
          {t("loan.csv")}
        </a>
      </p>
      {rows.items.length === 0
        ? <p class="muted" data-decisions-none>{t("loan.noDecisions")}</p>
        : (
          <div class="card">
            <Table
              region={t("loan.decisions")}
              heads={[
                t("loan.processedAt"),
                t("loan.applicant"),
                t("loan.amount"),
                t("loan.outcome"),
                t("loan.rate"),
                t("loan.rejectionReason"),
              ]}
            >
              {rows.items.map((d) => (
                <tr data-decision={d.id} data-approved={String(d.approved)}>
                  <td class="muted">
                    <time datetime={d.processedAt}>
                      {formatDateTime(d.processedAt, locale, timeZone)}
                    </time>
                  </td>
                  <td>
                    <a href={customerHref(d.applicantName)}>{d.applicantName}</a>
                  </td>
                  <td>{d.requestedAmount.toLocaleString(locale)}</td>
                  <td>{d.approved ? t("loan.approved") : t("loan.rejected")}</td>
                  <td>{d.approved ? `${d.approvedRate}%` : ""}</td>
                  <td>{d.rejectionReason ? t(`loan.reason.${d.rejectionReason}`) : ""}</td>
                </tr>
              ))}
            </Table>
          </div>
        )}
      <Pager ctx={ctx} page={rows} path={`${BASE}/decisions`} query={query} />
    </>
  );
}

/** The fields of a refused query, by name. */
function invalidFields(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey> }>): string[] {
  return [...new Set(issues.map((i) => String(i.path[0] ?? "")))];
}

/** The loan console's pages. */
export function loanConsolePages(services: Services) {
  const app = new Hono<AppEnv>();
  const form = pageForms(app, services);
  const console = services.loanConsole;

  app.get(BASE, async (c) => {
    const ctx = await pageCtx(c, services);
    const values = {
      q: c.req.query("q") ?? "",
      blacklisted: (c.req.query("blacklisted") ?? "").trim(),
    };
    const raw = {
      ...(values.q !== "" ? { q: values.q } : {}),
      ...(values.blacklisted !== "" ? { blacklisted: values.blacklisted } : {}),
      ...(c.req.query("page") !== undefined ? { page: c.req.query("page") } : {}),
    };
    const parsed = CustomerQuery.safeParse(raw);
    // The chart first: it also tells a caller who may not use the console (403).
    const stats = await console.stats(ctx.actor!, {});
    const customers = parsed.success
      ? await console.customers(ctx.actor!, {
        ...(parsed.data.q !== undefined ? { q: parsed.data.q } : {}),
        ...(parsed.data.blacklisted !== undefined
          ? { blacklisted: parsed.data.blacklisted === "true" }
          : {}),
      }, pageRequest(parsed.data, { clampPage: true }))
      : pageOf<Customer>([], 0, pageRequest({}));
    return renderPage(c, ctx, {
      title: ctx.t("loan.title"),
      status: parsed.success ? 200 : 400,
      body: (
        <CustomersPage
          ctx={ctx}
          stats={stats}
          values={values}
          customers={customers}
          invalid={!parsed.success}
        />
      ),
    });
  });

  const showCustomer = async (c: Context<AppEnv>, shown: Shown = {}) => {
    const ctx = await pageCtx(c, services);
    const { customer, changes } = await console.customer(ctx.actor!, c.req.param("name") ?? "");
    return renderPage(c, ctx, {
      title: customer.name,
      status: shown.status ?? 200,
      body: (
        <CustomerPage
          ctx={ctx}
          customer={customer}
          changes={changes}
          form={formState(shown, "blacklist")}
          message={shown.message ?? null}
        />
      ),
    });
  };

  app.get(`${BASE}/customers/:name`, (c) => showCustomer(c));

  form(`${BASE}/customers/:name/blacklist`, {
    form: "blacklist",
    schema: BlacklistInput,
    read: (fields) => ({
      blacklisted: fields.blacklisted === "true"
        ? true
        : fields.blacklisted === "false"
        ? false
        : fields.blacklisted,
      reason: fields.reason ?? "",
    }),
    // An unknown customer is the 404 page, a caller who may not use the console the 403 one,
    // before the reason is judged.
    subject: async ({ c, ctx }) => {
      await console.customer(ctx.actor!, c.req.param("name") ?? "");
    },
    show: (shown, { c }) => showCustomer(c, shown),
    change: async (input, { c, ctx }) => {
      const name = c.req.param("name") ?? "";
      await console.setBlacklist(ctx.actor!, name, input, requestMeta(c));
      return customerHref(name);
    },
  });

  app.get(`${BASE}/decisions`, async (c) => {
    const ctx = await pageCtx(c, services);
    const values = Object.fromEntries(
      DECISION_FIELDS.map((key) => [key, (c.req.query(key) ?? "").trim()]),
    ) as DecisionValues;
    const raw: Record<string, string> = {};
    for (const key of DECISION_FIELDS) if (values[key] !== "") raw[key] = values[key];
    const page = c.req.query("page");
    const parsed = PageQuery.extend(DecisionQuery.shape).safeParse(
      page === undefined ? raw : { ...raw, page },
    );
    const rows = parsed.success
      ? await console.decisions(
        ctx.actor!,
        decisionQuery(parsed.data),
        pageRequest(parsed.data, { clampPage: true }),
      )
      : (await console.check(ctx.actor!), pageOf<Decision>([], 0, pageRequest({})));
    return renderPage(c, ctx, {
      title: ctx.t("loan.decisions"),
      status: parsed.success ? 200 : 400,
      body: (
        <DecisionsPage
          ctx={ctx}
          values={values}
          rows={rows}
          invalid={parsed.success ? [] : invalidFields(parsed.error.issues)}
        />
      ),
    });
  });

  return app;
}
