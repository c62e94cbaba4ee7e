/**
 * The loan operations console's API (admins and loan officers; others 403 `forbidden`):
 * customers and their blacklist history, the flag changed with a reason, the decisions as pages
 * or a streamed CSV, and daily statistics.
 */
import { createRoute, z } from "@hono/zod-openapi";
import {
  type DecisionQuery as DomainDecisionQuery,
  isCalendarDate,
  MAX_REASON,
} from "../../domain/loan/console.ts";
import { REJECTION_CODES, type RejectionCode } from "../../domain/loan/loan.ts";
import { pageRequest } from "../../domain/kernel/paging.ts";
import type { Services } from "../../domain/services.ts";
import { requestMeta } from "../client_address.ts";
import {
  actorOf,
  apiApp,
  DateOut,
  errors,
  header,
  IdOut,
  jsonRequest,
  jsonResponse,
  PageQuery,
  pageSchema,
  TimestampOut,
} from "./openapi.ts";

const Flag = z.enum(["true", "false"]);
const Reason = z.enum(REJECTION_CODES as [RejectionCode, ...RejectionCode[]]);

/** A date filter: `YYYY-MM-DD`, a day in the caller's time zone. */
const QueryDate = z.string().max(10).refine(isCalendarDate, "Use a date, YYYY-MM-DD").openapi({
  format: "date",
  description: "A calendar date in the caller's time zone, `YYYY-MM-DD` (inclusive)",
  example: "2026-12-01",
});

/** A customer with their decision counts. */
export const LoanCustomerSchema = z.object({
  name: z.string(),
  blacklisted: z.boolean(),
  registeredAt: TimestampOut,
  applications: z.number().int().openapi({ description: "Decisions for this name" }),
  approved: z.number().int().openapi({ description: "Of which approved" }),
  lastAppliedAt: TimestampOut.nullable().openapi({
    description: "When the newest application was decided; null with none",
  }),
}).openapi("LoanCustomer");

/** A change of a customer's blacklist flag. */
export const BlacklistChangeSchema = z.object({
  at: TimestampOut,
  by: z.object({
    id: IdOut,
    displayName: z.string().openapi({ description: "Now; empty when the account is gone" }),
  }),
  blacklisted: z.boolean().openapi({ description: "The flag as the change set it" }),
  reason: z.string(),
}).openapi("BlacklistChange");

/** A decision of the loan history. */
export const LoanDecisionSchema = z.object({
  id: IdOut,
  applicantName: z.string(),
  requestedAmount: z.number().int(),
  approved: z.boolean(),
  approvedRate: z.number(),
  rejectionReason: Reason.nullable().openapi({
    description: "`blacklisted` or `low_score` for a rejection; null for an approval",
  }),
  processedAt: TimestampOut,
}).openapi("LoanDecision");

const Totals = z.object({
  approved: z.number().int(),
  rejected: z.number().int(),
  byReason: z.object({ blacklisted: z.number().int(), low_score: z.number().int() }),
  amountApproved: z.number().int().openapi({ description: "Sum of the approved amounts" }),
});

/** The statistics of a span of days. */
export const LoanStatsSchema = z.object({
  days: z.array(Totals.extend({ date: DateOut })).openapi({
    description: "Each day of the span in the caller's time zone, oldest first, with zeros " +
      "for a day without decisions",
  }),
  totals: Totals,
}).openapi("LoanStats");

/** The customers' filters. */
export const CustomerQuery = PageQuery.extend({
  q: z.string().max(200).optional().openapi({
    description: "A part of the name (case-sensitive)",
  }),
  blacklisted: Flag.optional(),
});

/** The decisions' filters (the CSV's too). */
export const DecisionQuery = z.object({
  applicant: z.string().min(1).max(1000).optional().openapi({
    description: "The applicant's exact name",
  }),
  approved: Flag.optional(),
  reason: Reason.optional(),
  from: QueryDate.optional(),
  to: QueryDate.optional(),
});

/** A change of the flag. */
export const BlacklistInput = z.object({
  blacklisted: z.boolean(),
  reason: z.string().trim().min(1, "Say why the flag changes").refine(
    (text) => [...text].length <= MAX_REASON,
    `Use at most ${MAX_REASON} characters`,
  ).openapi({ description: `Why, 1 to ${MAX_REASON} characters` }),
}).openapi("BlacklistInput");

const NameParam = z.object({
  name: z.string().min(1).openapi({ description: "The customer's name, URL-encoded" }),
});

const listCustomers = createRoute({
  method: "get",
  path: "/api/loan/customers",
  tags: ["loan"],
  summary: "The loan service's customers, newest registration first, then by name",
  request: { query: CustomerQuery },
  responses: {
    200: jsonResponse(pageSchema(LoanCustomerSchema), "A page of customers"),
    ...errors(401, 403),
  },
});

const getCustomer = createRoute({
  method: "get",
  path: "/api/loan/customers/{name}",
  tags: ["loan"],
  summary: "A customer and the changes of their blacklist flag, newest first",
  request: { params: NameParam },
  responses: {
    200: jsonResponse(
      z.object({ customer: LoanCustomerSchema, changes: z.array(BlacklistChangeSchema) }),
      "The customer",
    ),
    ...errors(401, 403, 404),
  },
});

const updateCustomer = createRoute({
  method: "patch",
  path: "/api/loan/customers/{name}",
  tags: ["loan"],
  summary: "Set a customer's blacklist flag, with the reason (recorded with the audit log); " +
    "the next loan application for the name follows it",
  request: { params: NameParam, ...jsonRequest(BlacklistInput) },
  responses: {
    200: jsonResponse(z.object({ customer: LoanCustomerSchema }), "The customer"),
    ...errors(400, 401, 403, 404),
  },
});

const listDecisions = createRoute({
  method: "get",
  path: "/api/loan/decisions",
  tags: ["loan"],
  summary: "The loan decisions, newest first",
  request: { query: PageQuery.extend(DecisionQuery.shape) },
  responses: {
    200: jsonResponse(pageSchema(LoanDecisionSchema), "A page of decisions"),
    ...errors(400, 401, 403),
  },
});

const decisionsCsv = createRoute({
  method: "get",
  path: "/api/loan/decisions.csv",
  tags: ["loan"],
  summary: "Every decision of the filters as CSV (RFC 4180), newest first, streamed",
  request: { query: DecisionQuery },
  responses: {
    200: {
      description: "A header row naming the decision's fields, then a row per decision; a " +
        "text cell starting with `=`, `+`, `-` or `@` is prefixed with `'`",
      headers: {
        "Content-Disposition": header(
          '`attachment; filename="loan-decisions-<from>-<to>.csv"` (`loan-decisions.csv` ' +
            "without dates)",
        ),
      },
      content: { "text/csv": { schema: { type: "string" as const } } },
    },
    ...errors(400, 401, 403),
  },
});

const stats = createRoute({
  method: "get",
  path: "/api/loan/stats",
  tags: ["loan"],
  summary: "Decisions per day in the caller's time zone (at most 366 days; default the 30 " +
    "days to today)",
  request: { query: z.object({ from: QueryDate.optional(), to: QueryDate.optional() }) },
  responses: {
    200: jsonResponse(LoanStatsSchema, "The days and their totals"),
    ...errors(400, 401, 403),
  },
});

const flag = (raw: "true" | "false" | undefined) => raw === undefined ? undefined : raw === "true";

/** The domain's decision query of a validated one. */
export function decisionQuery(query: z.infer<typeof DecisionQuery>): DomainDecisionQuery {
  const approved = flag(query.approved);
  return {
    ...(query.applicant !== undefined ? { applicant: query.applicant } : {}),
    ...(approved !== undefined ? { approved } : {}),
    ...(query.reason !== undefined ? { reason: query.reason } : {}),
    ...(query.from !== undefined ? { from: query.from } : {}),
    ...(query.to !== undefined ? { to: query.to } : {}),
  };
}

/** The loan console's routes. */
export function loanConsoleRoutes(services: Services) {
  const console = services.loanConsole;
  return apiApp()
    .openapi(listCustomers, async (c) => {
      const query = c.req.valid("query");
      const blacklisted = flag(query.blacklisted);
      const filter = {
        ...(query.q !== undefined ? { q: query.q } : {}),
        ...(blacklisted !== undefined ? { blacklisted } : {}),
      };
      return c.json(await console.customers(actorOf(c), filter, pageRequest(query)), 200);
    })
    .openapi(
      getCustomer,
      async (c) => c.json(await console.customer(actorOf(c), c.req.valid("param").name), 200),
    )
    .openapi(updateCustomer, async (c) => {
      const { name } = c.req.valid("param");
      const customer = await console.setBlacklist(
        actorOf(c),
        name,
        c.req.valid("json"),
        requestMeta(c),
      );
      return c.json({ customer }, 200);
    })
    .openapi(listDecisions, async (c) => {
      const query = c.req.valid("query");
      return c.json(
        await console.decisions(actorOf(c), decisionQuery(query), pageRequest(query)),
        200,
      );
    })
    .openapi(decisionsCsv, async (c) => {
      const query = decisionQuery(c.req.valid("query"));
      const { fileName, stream } = await console.decisionsCsv(actorOf(c), query);
      return new Response(stream, {
        headers: {
          "content-type": "text/csv; charset=utf-8",
          "content-disposition": `attachment; filename="${fileName}"`,
          "cache-control": "no-store",
          "x-content-type-options": "nosniff",
        },
      });
    })
    .openapi(
      stats,
      async (c) => c.json(await console.stats(actorOf(c), c.req.valid("query")), 200),
    );
}
