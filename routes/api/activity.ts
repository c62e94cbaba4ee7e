/** The project activity log. */
import { createRoute, z } from "@hono/zod-openapi";
import { ACTIVITY_COUNT_CAP } from "../../domain/projects/activity.ts";
import { pageRequest } from "../../domain/kernel/paging.ts";
import type { Services } from "../../domain/services.ts";
import { actorOf, apiApp, errors, Id, jsonResponse, PageQuery, pageSchema } from "./openapi.ts";
import { ActivitySchema } from "./schemas.ts";

/**
 * A page of entries whose total stops at `ACTIVITY_COUNT_CAP`: each entry counted is checked
 * for a live subject, so an exact count would cost a check per entry of a log years long.
 */
const ActivityPageSchema = pageSchema(ActivitySchema).extend({
  total: z.number().int().min(0).max(ACTIVITY_COUNT_CAP).openapi({
    description: `How many entries there are, counted up to ${ACTIVITY_COUNT_CAP}: exact when ` +
      `\`totalIsExact\`, else ${ACTIVITY_COUNT_CAP}, a lower bound (there are more)`,
  }),
  totalIsExact: z.boolean().openapi({
    description: `False when the count stopped at ${ACTIVITY_COUNT_CAP} (\`total\` is then a ` +
      "lower bound); `hasMore` is exact either way",
  }),
}).openapi("ActivityPage");

const list = createRoute({
  method: "get",
  path: "/api/projects/{projectId}/activity",
  tags: ["activity"],
  summary: "A page of the project's activity, newest first",
  request: { params: z.object({ projectId: Id }), query: PageQuery },
  responses: {
    200: jsonResponse(ActivityPageSchema, "A page of entries"),
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
