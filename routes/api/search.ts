/** Search within a project, or across the caller's projects. */
import { createRoute, z } from "@hono/zod-openapi";
import { pageRequest } from "../../domain/kernel/paging.ts";
import type { Services } from "../../domain/services.ts";
import {
  actorOf,
  apiApp,
  errors,
  Id,
  IdOut,
  jsonResponse,
  PageQuery,
  pageSchema,
  TimestampOut,
} from "./openapi.ts";

const Hit = z.object({
  type: z.enum(["board", "chat", "todo", "file", "event", "meeting", "milestone", "note"]),
  id: IdOut,
  title: z.string(),
  snippet: z.string().openapi({ description: "HTML-escaped text; matches wrapped in <mark>" }),
  createdAt: TimestampOut,
}).openapi("SearchHit");

/**
 * A page of hits. Past 10,000 matches the count stops there: `total` is then 10,000, a lower
 * bound, and `totalIsExact` false.
 */
function searchPageSchema<T extends z.ZodType>(hit: T) {
  return pageSchema(hit).extend({
    total: z.number().int().openapi({
      description: "The number of matches; past 10,000, 10,000 (a lower bound, see totalIsExact)",
    }),
    totalIsExact: z.boolean().openapi({
      description: "false when there are more than 10,000 matches and total is 10,000, " +
        "a lower bound (the count stops there); true when total is the exact number",
    }),
    hasMore: z.boolean().openapi({
      description: "Whether a match follows this page (exact, also past 10,000 matches)",
    }),
  });
}

const search = createRoute({
  method: "get",
  path: "/api/projects/{projectId}/search",
  tags: ["search"],
  summary: "Search titles, bodies, chat, descriptions, tags, file names, minutes and locations",
  request: {
    params: z.object({ projectId: Id }),
    query: PageQuery.extend({ q: z.string().optional(), type: z.string().optional() }),
  },
  responses: {
    200: jsonResponse(searchPageSchema(Hit), "All matches, newest first"),
    ...errors(400, 401, 404),
  },
});

const ProjectHit = Hit.extend({
  projectId: IdOut,
  projectName: z.string(),
}).openapi("ProjectSearchHit");

const searchAll = createRoute({
  method: "get",
  path: "/api/search",
  tags: ["search"],
  summary: "Search every project the caller belongs to; each hit names its project",
  request: {
    query: PageQuery.extend({ q: z.string().optional(), type: z.string().optional() }),
  },
  responses: {
    200: jsonResponse(searchPageSchema(ProjectHit), "All matches, newest first"),
    ...errors(400, 401),
  },
});

/** The search routes: one project, and every project of the caller. */
export function searchRoutes(services: Services) {
  return apiApp().openapi(searchAll, async (c) => {
    const query = c.req.valid("query");
    const page = await services.search.everywhere(actorOf(c), {
      q: query.q ?? "",
      type: query.type ?? null,
      page: pageRequest(query),
    });
    return c.json(page as z.infer<ReturnType<typeof searchPageSchema<typeof ProjectHit>>>, 200);
  }).openapi(search, async (c) => {
    const query = c.req.valid("query");
    const page = await services.search.project(actorOf(c), {
      projectId: c.req.valid("param").projectId,
      q: query.q ?? "",
      type: query.type ?? null,
      page: pageRequest(query),
    });
    return c.json(page as z.infer<ReturnType<typeof searchPageSchema<typeof Hit>>>, 200);
  });
}
