/** The caller's notifications. */
import { createRoute, z } from "@hono/zod-openapi";
import { pageRequest } from "../../domain/paging.ts";
import type { Services } from "../../domain/services.ts";
import { actorOf, apiApp, errors, Id, jsonResponse, PageQuery, pageSchema } from "./openapi.ts";
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

/** The notification routes. */
export function notificationRoutes(services: Services) {
  return apiApp()
    .openapi(list, (c) => {
      const page = pageRequest(c.req.valid("query"));
      return c.json(services.notifications.listUnread(actorOf(c), page), 200);
    })
    .openapi(markRead, (c) => {
      const notification = services.notifications.markRead(actorOf(c), c.req.valid("param").id);
      return c.json({ notification }, 200);
    });
}
