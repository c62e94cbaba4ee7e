/** The caller's calendar feed URLs, and resetting them (sessions only, like tokens). */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { FeedAccess } from "../../domain/integrations/calendar_feeds.ts";
import type { Services } from "../../domain/services.ts";
import { actorOf, apiApp, errors, IdOut, jsonResponse } from "./openapi.ts";

const FeedUrlsSchema = z.object({
  urls: z.object({
    all: z.string().openapi({ description: "Every project the caller belongs to" }),
    projects: z.array(z.object({ projectId: IdOut, url: z.string() })),
  }),
}).openapi("CalendarFeedUrls");

const get = createRoute({
  method: "get",
  path: "/api/me/calendar-feed",
  tags: ["calendar"],
  summary: "The caller's iCalendar feed URLs (the feed token is created when missing)",
  responses: { 200: jsonResponse(FeedUrlsSchema, "The feed URLs"), ...errors(401, 403) },
});

const reset = createRoute({
  method: "post",
  path: "/api/me/calendar-feed/reset",
  tags: ["calendar"],
  summary: "Replace the feed token: the old URLs stop working (404)",
  responses: { 200: jsonResponse(FeedUrlsSchema, "The new feed URLs"), ...errors(401, 403) },
});

/** The feed URLs of `access`, absolute: from `baseUrl`, or else the request's origin. */
export function feedUrls(c: Context, baseUrl: string | null, access: FeedAccess) {
  const base = `${baseUrl ?? new URL(c.req.url).origin}/ics/${access.token}`;
  return {
    all: `${base}/all.ics`,
    projects: access.projectIds.map((projectId) => ({
      projectId,
      url: `${base}/projects/${projectId}.ics`,
    })),
  };
}

/** The feed routes; URLs are absolute, from `baseUrl` or else the request's origin. */
export function calendarFeedRoutes(services: Services, options: { baseUrl: string | null }) {
  const urls = (c: Context, access: FeedAccess) => ({
    urls: feedUrls(c, options.baseUrl, access),
  });
  return apiApp()
    .openapi(
      get,
      async (c) => c.json(urls(c, await services.calendarFeeds.access(actorOf(c))), 200),
    )
    .openapi(
      reset,
      async (c) => c.json(urls(c, await services.calendarFeeds.reset(actorOf(c))), 200),
    );
}
