/** Administration: users, the migration listing, backups and mail (system admins only). */
import { requestMeta } from "../client_address.ts";
import { createRoute, z } from "@hono/zod-openapi";
import { pageRequest } from "../../domain/kernel/paging.ts";
import { AUDIT_ACTIONS } from "../../domain/accounts/audit.ts";
import type { AuditFilter } from "../../domain/accounts/audit.ts";
import type { Services } from "../../domain/services.ts";
import {
  actorOf,
  apiApp,
  errors,
  header,
  Id,
  IdOut,
  IdQuery,
  jsonRequest,
  jsonResponse,
  PageQuery,
  pageSchema,
  TimestampOut,
} from "./openapi.ts";
import { UserSchema } from "./schemas.ts";

/** A user's new role, status or loan-officer mark (the admin page's form too). */
export const AdminUserInput = z.object({
  role: z.enum(["admin", "member"]).optional(),
  status: z.enum(["active", "disabled"]).optional(),
  loanOfficer: z.boolean().optional().openapi({
    description: "Whether the user may run the loan console",
  }),
}).openapi("AdminUserInput");

const listUsers = createRoute({
  method: "get",
  path: "/api/admin/users",
  tags: ["admin"],
  summary: "Every user",
  responses: {
    200: jsonResponse(z.object({ items: z.array(UserSchema) }), "The users"),
    ...errors(401, 403),
  },
});

const updateUser = createRoute({
  method: "patch",
  path: "/api/admin/users/{userId}",
  tags: ["admin"],
  summary: "Change a user's role, status or loan-officer mark; disabling ends their sessions",
  request: {
    params: z.object({ userId: Id }),
    ...jsonRequest(AdminUserInput),
  },
  responses: {
    200: jsonResponse(z.object({ user: UserSchema }), "The updated user"),
    ...errors(400, 401, 403, 404, 409),
  },
});

const migrations = createRoute({
  method: "get",
  path: "/api/admin/migrations",
  tags: ["admin"],
  summary: "The applied schema migrations, in order",
  responses: {
    200: jsonResponse(
      z.object({
        items: z.array(
          z.object({ version: z.number().int(), name: z.string(), appliedAt: TimestampOut }),
        ),
      }),
      "The migrations",
    ),
    ...errors(401, 403),
  },
});

const backup = createRoute({
  method: "get",
  path: "/api/admin/backup",
  tags: ["admin"],
  summary: "A backup of the whole server, streamed (the format `deno task restore` reads)",
  responses: {
    200: {
      description: "A gzip-compressed tar: the database snapshot, stored files, the session " +
        "secret and manifest.json",
      headers: { "Content-Disposition": header("`attachment` with the backup's file name") },
      content: { "application/gzip": { schema: { type: "string", format: "binary" } } },
    },
    ...errors(401, 403, 409),
  },
});

/** A mail in the outbox, as the admin's list shows it. */
export const MailSchema = z.object({
  id: IdOut,
  to: z.string().openapi({ description: "One address", example: "ada@example.org" }),
  kind: z.string().openapi({ description: "What the mail is: `test`, and later others" }),
  subject: z.string(),
  status: z.enum(["pending", "sent", "failed"]),
  attempts: z.number().int(),
  lastError: z.string().nullable().openapi({
    description: "The SMTP server's answer or the network failure of the last failed attempt",
  }),
  createdAt: TimestampOut,
  sentAt: TimestampOut.nullable(),
}).openapi("Mail");

/** The address a test mail goes to. */
export const MailTestInput = z.object({
  to: z.string().max(254).openapi({ example: "ada@example.org" }),
}).openapi("MailTestInput");

const listMail = createRoute({
  method: "get",
  path: "/api/admin/mail",
  tags: ["admin"],
  summary: "The mail outbox, newest first",
  request: { query: PageQuery },
  responses: {
    200: jsonResponse(pageSchema(MailSchema), "A page of mails"),
    ...errors(401, 403),
  },
});

const testMail = createRoute({
  method: "post",
  path: "/api/admin/mail/test",
  tags: ["admin"],
  summary: "Queue a test mail through the outbox (409 `conflict` when mail is off: SMTP_URL unset)",
  request: jsonRequest(MailTestInput),
  responses: {
    202: jsonResponse(z.object({ id: IdOut }), "Queued; the sender sends it soon"),
    ...errors(400, 401, 403, 409),
  },
});

/** A timestamp filter: ISO 8601 in UTC (`Z`), as the rows' `at`. */
const AuditTime = z.string().regex(
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z$/,
  "Use an ISO 8601 time in UTC, like 2026-11-22T08:30:00.000Z",
).refine((raw) => !Number.isNaN(Date.parse(raw)), "Not a valid time");

/** The audit list's filters (a malformed one is 400), and paging. */
export const AuditQuery = PageQuery.extend({
  action: z.enum(AUDIT_ACTIONS).optional(),
  actorId: IdQuery.optional(),
  targetType: z.string().regex(/^[a-z_]{1,32}$/, "Use a target type like user or webhook")
    .optional(),
  from: AuditTime.optional().openapi({ description: "From this time on (inclusive)" }),
  to: AuditTime.optional().openapi({ description: "Before this time (exclusive)" }),
});

/** An audit log row. */
export const AuditSchema = z.object({
  id: IdOut,
  at: TimestampOut,
  actorId: IdOut.nullable(),
  actorEmail: z.string().nullable(),
  action: z.string(),
  targetType: z.string().nullable(),
  targetId: IdOut.nullable(),
  details: z.record(z.string(), z.unknown()),
  clientAddress: z.string().nullable(),
  requestId: z.string().nullable(),
}).openapi("AuditEntry");

const listAudit = createRoute({
  method: "get",
  path: "/api/admin/audit",
  tags: ["admin"],
  summary: "The audit log, newest first, filtered by action, actor, target type and time",
  request: { query: AuditQuery },
  responses: {
    200: jsonResponse(pageSchema(AuditSchema), "A page of audit rows"),
    ...errors(400, 401, 403),
  },
});

/** The audit filter of a validated query. */
export function auditFilter(query: z.infer<typeof AuditQuery>): AuditFilter {
  return {
    ...(query.action ? { action: query.action } : {}),
    ...(query.actorId ? { actorId: Number(query.actorId) } : {}),
    ...(query.targetType ? { targetType: query.targetType } : {}),
    ...(query.from ? { from: new Date(query.from).toISOString() } : {}),
    ...(query.to ? { to: new Date(query.to).toISOString() } : {}),
  };
}

/** The admin routes. */
export function adminRoutes(services: Services) {
  return apiApp()
    .openapi(
      listUsers,
      async (c) => c.json({ items: await services.accounts.listUsers(actorOf(c)) }, 200),
    )
    .openapi(updateUser, async (c) => {
      const { userId } = c.req.valid("param");
      const body = c.req.valid("json");
      const user = await services.accounts.adminUpdate(actorOf(c), userId, {
        ...(body.role ? { role: body.role } : {}),
        ...(body.status ? { status: body.status } : {}),
        ...(body.loanOfficer !== undefined ? { loanOfficer: body.loanOfficer } : {}),
      }, requestMeta(c));
      return c.json({ user }, 200);
    })
    .openapi(listAudit, async (c) => {
      const query = c.req.valid("query");
      const page = pageRequest(query);
      return c.json(await services.auditLog.list(actorOf(c), auditFilter(query), page), 200);
    })
    .openapi(
      migrations,
      async (c) => c.json({ items: await services.admin.migrations(actorOf(c)) }, 200),
    )
    .openapi(
      listMail,
      async (c) =>
        c.json(await services.mail.list(actorOf(c), pageRequest(c.req.valid("query"))), 200),
    )
    .openapi(
      testMail,
      async (c) => c.json(await services.mail.sendTest(actorOf(c), c.req.valid("json").to), 202),
    )
    .openapi(backup, async (c) => {
      const { fileName, stream } = await services.backups.download(actorOf(c), requestMeta(c));
      return new Response(stream, {
        headers: {
          "content-type": "application/gzip",
          "content-disposition": `attachment; filename="${fileName}"`,
          "cache-control": "no-store",
          "x-content-type-options": "nosniff",
        },
      });
    });
}
