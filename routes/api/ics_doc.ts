/**
 * The iCalendar feeds (`routes/ics_feed.ts`) in the OpenAPI document. They are served by a
 * plain router (they answer `text/calendar`, not JSON), so they are described here, beside the
 * API that hands out their URLs (`GET /api/me/calendar-feed`).
 */
import { type OpenAPIHono, z } from "@hono/zod-openapi";

type OpenAPIRegistry = OpenAPIHono["openAPIRegistry"];

const Token = z.string().openapi({
  param: { name: "token", in: "path" },
  description: "The caller's feed token, from `GET /api/me/calendar-feed`",
});

const feedResponses = {
  200: {
    description: "The feed (RFC 5545): every item a `VEVENT`, lines folded at 75 octets",
    headers: {
      ETag: {
        description: "The feed's version; send it back as `If-None-Match`",
        required: true,
        schema: { type: "string" as const },
      },
      "Cache-Control": {
        description: "`private, no-cache`: calendar apps revalidate",
        schema: { type: "string" as const },
      },
    },
    content: { "text/calendar": { schema: { type: "string" as const } } },
  },
  304: { description: "Not modified: `If-None-Match` matched the feed's `ETag`" },
  404: {
    description: "No such feed: an unknown or reset token, or a project the owner left",
    content: { "text/plain": { schema: { type: "string" as const } } },
  },
};

const IfNoneMatch = z.string().optional().openapi({
  description: "An `ETag` of this feed seen before (304 when it still matches)",
});

/** Adds the two feed paths to `registry`. */
export function registerIcsFeedDocs(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: "get",
    path: "/ics/{token}/all.ics",
    tags: ["calendar"],
    summary: "The iCalendar feed of every project the token's owner belongs to (no cookie)",
    request: {
      params: z.object({ token: Token }),
      headers: z.object({ "if-none-match": IfNoneMatch }),
    },
    responses: feedResponses,
  });
  registry.registerPath({
    method: "get",
    path: "/ics/{token}/projects/{projectId}.ics",
    tags: ["calendar"],
    summary: "The iCalendar feed of one project (no cookie)",
    request: {
      params: z.object({
        token: Token,
        projectId: z.number().int().min(1).openapi({ param: { name: "projectId", in: "path" } }),
      }),
      headers: z.object({ "if-none-match": IfNoneMatch }),
    },
    responses: feedResponses,
  });
}
