/**
 * The unsubscribe link of notification mail (`routes/pages/unsubscribe_page.tsx`) in the
 * OpenAPI document. It is a page for people and a one-click POST for mail providers (RFC
 * 8058), both without a session, answering HTML, so it is served beside the pages and
 * described here.
 */
import { type OpenAPIHono, z } from "@hono/zod-openapi";

type OpenAPIRegistry = OpenAPIHono["openAPIRegistry"];

const params = z.object({
  token: z.string().openapi({
    param: { name: "token", in: "path" },
    description: "The token of the `List-Unsubscribe` header of a notification mail",
  }),
});

const page = (description: string) => ({
  description,
  content: { "text/html": { schema: { type: "string" as const } } },
});

/** Adds the unsubscribe link's two methods to `registry`. */
export function registerUnsubscribeDocs(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: "get",
    path: "/unsubscribe/{token}",
    tags: ["notifications"],
    summary: "A page with a button that turns notification mail off (no session)",
    request: { params },
    responses: {
      200: page("The page, the same for any token (it tells nothing about the token)"),
    },
  });
  registry.registerPath({
    method: "post",
    path: "/unsubscribe/{token}",
    tags: ["notifications"],
    summary: "One-click unsubscribe (RFC 8058): sets the owner's `emailNotifications` to off",
    description: "No session; the body a mail provider sends " +
      "(`application/x-www-form-urlencoded`, `List-Unsubscribe=One-Click`) is not read. " +
      "The same answer for an unknown token as for a known one; the link keeps working.",
    request: { params },
    responses: { 200: page("Done: mail is off if the link was valid") },
  });
}
