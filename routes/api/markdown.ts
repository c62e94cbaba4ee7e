/** The Markdown preview of the pages' text boxes: the same renderer the pages show text with. */
import { createRoute, z } from "@hono/zod-openapi";
import type { MentionContext } from "../../domain/formats/markdown.ts";
import type { Services } from "../../domain/services.ts";
import { renderMarkdown } from "../markdown.ts";
import { actorOf, apiApp, errors, jsonRequest, jsonResponse } from "./openapi.ts";

/** The longest text previewed: the largest Markdown field (a note's, thread's or minutes). */
export const MAX_PREVIEW_TEXT = 100_000;

/** What to preview, and the project whose members its mentions name. */
export const MarkdownPreviewInput = z.object({
  text: z.string().max(MAX_PREVIEW_TEXT),
  projectId: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).nullable().optional()
    .openapi({ description: "Mentions name this project's members (the caller's projects only)" }),
}).openapi("MarkdownPreviewInput");

const MarkdownPreview = z.object({
  html: z.string().openapi({ description: "Sanitised HTML, as a page shows the text" }),
}).openapi("MarkdownPreview");

const preview = createRoute({
  method: "post",
  path: "/api/markdown/preview",
  tags: ["markdown"],
  summary: "Render Markdown as the pages do (raw HTML escaped, safe links, mentions as names)",
  request: jsonRequest(MarkdownPreviewInput),
  responses: {
    200: jsonResponse(MarkdownPreview, "The rendered text"),
    ...errors(400, 401, 403, 404),
  },
});

/** The preview route. */
export function markdownRoutes(services: Services) {
  return apiApp().openapi(preview, async (c) => {
    const actor = actorOf(c);
    const { text, projectId } = c.req.valid("json");
    // A project the caller cannot see is a 404, as everywhere; its members name the mentions.
    const mentions: MentionContext | undefined = projectId == null
      ? undefined
      : { members: (await services.projects.get(actor, projectId)).members, viewerId: actor.id };
    return c.json({ html: renderMarkdown(text, mentions) }, 200);
  });
}
