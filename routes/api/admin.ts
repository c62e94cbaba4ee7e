/** Administration: users, the migration listing and backups (system admins only). */
import { createRoute, z } from "@hono/zod-openapi";
import type { Services } from "../../domain/services.ts";
import {
  actorOf,
  apiApp,
  errors,
  header,
  Id,
  jsonRequest,
  jsonResponse,
  TimestampOut,
} from "./openapi.ts";
import { UserSchema } from "./schemas.ts";

/** A user's new role or status (the admin page's form too). */
export const AdminUserInput = z.object({
  role: z.enum(["admin", "member"]).optional(),
  status: z.enum(["active", "disabled"]).optional(),
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
  summary: "Change a user's role or status; disabling ends their sessions",
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
      });
      return c.json({ user }, 200);
    })
    .openapi(
      migrations,
      async (c) => c.json({ items: await services.admin.migrations(actorOf(c)) }, 200),
    )
    .openapi(backup, async (c) => {
      const { fileName, stream } = await services.backups.download(actorOf(c));
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
