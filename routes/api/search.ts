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
    200: jsonResponse(pageSchema(Hit), "All matches, newest first"),
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
    200: jsonResponse(pageSchema(ProjectHit), "All matches, newest first"),
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
    return c.json(page as z.infer<ReturnType<typeof pageSchema<typeof ProjectHit>>>, 200);
  }).openapi(search, async (c) => {
    const query = c.req.valid("query");
    const page = await services.search.project(actorOf(c), {
      projectId: c.req.valid("param").projectId,
      q: query.q ?? "",
      type: query.type ?? null,
      page: pageRequest(query),
    });
    return c.json(page as z.infer<ReturnType<typeof pageSchema<typeof Hit>>>, 200);
  });
}
