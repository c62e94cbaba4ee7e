/** The project activity log. */
import { createRoute, z } from "@hono/zod-openapi";
import { pageRequest } from "../../domain/kernel/paging.ts";
import type { Services } from "../../domain/services.ts";
import { actorOf, apiApp, errors, Id, jsonResponse, PageQuery, pageSchema } from "./openapi.ts";
import { ActivitySchema } from "./schemas.ts";

const list = createRoute({
  method: "get",
  path: "/api/projects/{projectId}/activity",
  tags: ["activity"],
  summary: "A page of the project's activity, newest first",
  request: { params: z.object({ projectId: Id }), query: PageQuery },
  responses: {
    200: jsonResponse(pageSchema(ActivitySchema), "A page of entries"),
    ...errors(401, 404),
  },
});

/** The activity routes. */
export function activityRoutes(services: Services) {
  return apiApp().openapi(list, async (c) =>
    c.json(
      await services.activity.list(actorOf(c), {
        projectId: c.req.valid("param").projectId,
        page: pageRequest(c.req.valid("query")),
      }),
      200,
    ));
}
