/**
 * The iCalendar feeds at `/ics/{token}/all.ics` and `/ics/{token}/projects/{projectId}.ics`:
 * the token in the URL is the only credential (calendar apps send no cookie), so these paths
 * carry no session and no CSRF check, answer GET and HEAD only, and say `404` for any token,
 * project or path they do not know. Answers are `Cache-Control: private, no-cache`: no shared
 * cache may keep them, and a calendar app revalidates with `If-None-Match` (304 when nothing
 * changed).
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { CalendarFeeds } from "../domain/integrations/calendar_feeds.ts";

const PROJECT_FILE = /^([1-9]\d{0,15})\.ics$/;

/** Whether `path` is a feed path (the request log hides its token). */
export function isFeedPath(path: string): boolean {
  return path.startsWith("/ics/");
}

/** Whether an `If-None-Match` header matches `etag` (weak comparison, RFC 9110 §13.1.2). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}

/** The feed routes. */
export function icsFeedRoutes(feeds: CalendarFeeds) {
  const notFound = (c: Context) =>
    c.text("Not found: this calendar feed does not exist (or was reset)", 404, {
      "cache-control": "no-store",
    });
  const serve = async (c: Context, projectId: number | null) => {
    const feed = await feeds.render(c.req.param("token") ?? "", projectId);
    if (!feed) return notFound(c);
    const headers = {
      etag: feed.etag,
      "cache-control": "private, no-cache",
      "x-robots-tag": "noindex",
    };
    if (etagMatches(c.req.header("if-none-match"), feed.etag)) {
      return c.body(null, 304, headers);
    }
    return c.body(feed.body, 200, { ...headers, "content-type": "text/calendar; charset=utf-8" });
  };
  return new Hono()
    .get("/ics/:token/all.ics", (c) => serve(c, null))
    .get("/ics/:token/projects/:file", (c) => {
      const match = PROJECT_FILE.exec(c.req.param("file"));
      const id = match ? Number(match[1]) : NaN;
      return Number.isSafeInteger(id) ? serve(c, id) : notFound(c);
    })
    .all("/ics/*", (c) => {
      if (c.req.method === "GET" || c.req.method === "HEAD") return notFound(c);
      return c.text("Method not allowed: calendar feeds are read-only", 405, {
        allow: "GET, HEAD",
      });
    });
}
