/** Personal API tokens: create (the secret shown once), list, revoke. Sessions only. */
import { requestMeta } from "../client_address.ts";
import { createRoute, z } from "@hono/zod-openapi";
import type { Services } from "../../domain/services.ts";
import {
  actorOf,
  apiApp,
  errors,
  Id,
  IdOut,
  jsonRequest,
  jsonResponse,
  TimestampOut,
} from "./openapi.ts";

/** A token as the API shows it. */
export const ApiTokenSchema = z.object({
  id: IdOut,
  name: z.string(),
  scope: z.enum(["read", "write"]),
  createdAt: TimestampOut,
  expiresAt: TimestampOut.nullable().openapi({ description: "Null: never expires" }),
  lastUsedAt: TimestampOut.nullable().openapi({
    description: "Written on first use, then at most once a minute",
  }),
}).openapi("ApiToken");

/** What creating a token takes (the settings page checks its form with it too). */
export const TokenInputSchema = z.object({
  name: z.string().trim().min(1, "Cannot be blank").max(100),
  scope: z.enum(["read", "write"]).openapi({ description: "`read`: GET and HEAD only" }),
  expiresInDays: z.number().int().min(1).max(3650).nullable().optional().openapi({
    description: "Days until the token stops working; absent or null: never",
  }),
}).openapi("ApiTokenInput");

const create = createRoute({
  method: "post",
  path: "/api/tokens",
  tags: ["tokens"],
  summary: "Create an API token; the answer is the only time its secret is shown",
  request: jsonRequest(TokenInputSchema),
  responses: {
    201: jsonResponse(
      z.object({
        token: ApiTokenSchema,
        secret: z.string().openapi({
          description: "`clb_` and 43 base62 characters; the server keeps only its SHA-256",
        }),
      }),
      "The token and its secret",
    ),
    ...errors(400, 401, 403, 409),
  },
});

const list = createRoute({
  method: "get",
  path: "/api/tokens",
  tags: ["tokens"],
  summary: "The caller's API tokens, oldest first (never their secrets)",
  responses: {
    200: jsonResponse(z.object({ items: z.array(ApiTokenSchema) }), "The tokens"),
    ...errors(401, 403),
  },
});

const revoke = createRoute({
  method: "delete",
  path: "/api/tokens/{tokenId}",
  tags: ["tokens"],
  summary: "Revoke one of the caller's API tokens",
  request: { params: z.object({ tokenId: Id }) },
  responses: { 204: { description: "Revoked" }, ...errors(400, 401, 403, 404) },
});

/** The API token routes. */
export function tokenRoutes(services: Services) {
  const { apiTokens } = services;
  return apiApp()
    .openapi(
      create,
      async (c) =>
        c.json(await apiTokens.create(actorOf(c), c.req.valid("json"), requestMeta(c)), 201),
    )
    .openapi(list, async (c) => c.json({ items: await apiTokens.list(actorOf(c)) }, 200))
    .openapi(revoke, async (c) => {
      await apiTokens.revoke(actorOf(c), c.req.valid("param").tokenId, requestMeta(c));
      return c.body(null, 204);
    });
}
