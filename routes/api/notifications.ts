/** The caller's notifications. */
import { createRoute, z } from "@hono/zod-openapi";
import { NOTIFICATION_LEVELS } from "../../domain/projects/notifications.ts";
import { pageRequest } from "../../domain/kernel/paging.ts";
import type { Services } from "../../domain/services.ts";
import {
  actorOf,
  apiApp,
  errors,
  Id,
  jsonRequest,
  jsonResponse,
  PageQuery,
  pageSchema,
} from "./openapi.ts";
import { NotificationSchema } from "./schemas.ts";

const list = createRoute({
  method: "get",
  path: "/api/notifications",
  tags: ["notifications"],
  summary: "A page of the caller's unread notifications, newest first, with the unread count",
  request: { query: PageQuery },
  responses: {
    200: jsonResponse(
      pageSchema(NotificationSchema).extend({ unreadCount: z.number().int() }),
      "The page",
    ),
    ...errors(401),
  },
});

const markRead = createRoute({
  method: "post",
  path: "/api/notifications/{id}/read",
  tags: ["notifications"],
  summary: "Mark one of the caller's notifications read (another user's is 404)",
  request: { params: z.object({ id: Id }) },
  responses: {
    200: jsonResponse(z.object({ notification: NotificationSchema }), "Marked read"),
    ...errors(400, 401, 404),
  },
});

const readAll = createRoute({
  method: "post",
  path: "/api/notifications/read-all",
  tags: ["notifications"],
  summary: "Mark every unread notification of the caller read",
  responses: {
    200: jsonResponse(
      z.object({ updated: z.number().int().openapi({ description: "How many were unread" }) }),
      "Marked read",
    ),
    ...errors(401),
  },
});

/** The notification levels' input, for the API and the project page. */
export const NotificationLevelInput = z.object({
  level: z.enum(NOTIFICATION_LEVELS),
}).openapi("NotificationLevelInput");

const setLevel = createRoute({
  method: "put",
  path: "/api/projects/{projectId}/notification-level",
  tags: ["notifications"],
  summary: "How much of a project's notifications reach the caller",
  description: "`all`; `mentions`: only mention, todo_assigned and meeting_invited; `none`.",
  request: {
    params: z.object({ projectId: Id }),
    ...jsonRequest(NotificationLevelInput),
  },
  responses: {
    200: jsonResponse(z.object({ level: z.enum(NOTIFICATION_LEVELS) }), "The level now"),
    ...errors(400, 401, 403, 404),
  },
});

/** The notification routes. */
export function notificationRoutes(services: Services) {
  return apiApp()
    .openapi(list, async (c) => {
      const page = pageRequest(c.req.valid("query"));
      return c.json(await services.notifications.listUnread(actorOf(c), page), 200);
    })
    .openapi(markRead, async (c) => {
      const notification = await services.notifications.markRead(
        actorOf(c),
        c.req.valid("param").id,
      );
      return c.json({ notification }, 200);
    })
    .openapi(
      readAll,
      async (c) => c.json(await services.notifications.markAllRead(actorOf(c)), 200),
    )
    .openapi(setLevel, async (c) => {
      const level = await services.notifications.setLevel(
        actorOf(c),
        c.req.valid("param").projectId,
        c.req.valid("json").level,
      );
      return c.json({ level }, 200);
    });
}
