/**
 * The one-click unsubscribe of notification mail (RFC 8058, `routes/pages/unsubscribe_page.tsx`)
 * in the OpenAPI document: the POST a mail provider sends, without a session. It answers HTML
 * and is served beside the pages, so it is described here. The GET of the same link is a page
 * for people (a button that sends this POST), not part of the API, like the other pages.
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

/** The refusal of a cross-site POST (an `Origin` of another site), as every form's. */
const crossSite = {
  description: "`forbidden`: a cross-site request (an `Origin` header of another site)",
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
};

/** Adds the one-click unsubscribe to `registry`. */
export function registerUnsubscribeDocs(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: "post",
    path: "/unsubscribe/{token}",
    tags: ["notifications"],
    summary: "One-click unsubscribe (RFC 8058): sets the owner's `emailNotifications` to off",
    description: "No session; the body a mail provider sends " +
      "(`application/x-www-form-urlencoded`, `List-Unsubscribe=One-Click`) is not read. " +
      "The same answer for an unknown token as for a known one; the link keeps working.",
    request: { params },
    responses: {
      200: page("Done: mail is off if the link was valid"),
      403: crossSite,
    },
  });
}
