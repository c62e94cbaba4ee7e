/** The typed sub-app every API resource is built on, and its shared pieces. */
import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Actor } from "../../domain/accounts.ts";
import type { TokenAuth } from "../../domain/api_tokens.ts";
import { DomainError } from "../../domain/errors.ts";
import type { ActiveSession } from "../../domain/sessions.ts";
import { errorBody } from "./errors.ts";

/** Request-scoped values set by the middleware. */
export interface AppEnv {
  Variables: {
    session: ActiveSession | null;
    /** The API token a bearer request authenticated with (then `session` is null). */
    apiToken: TokenAuth | null;
  };
}

/** A new API sub-app whose validation failures answer with our error body. */
export function apiApp(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      if (!result.success) {
        const details: Record<string, string> = {};
        for (const issue of result.error.issues) {
          const path = issue.path.map(String).join(".") || "body";
          details[path] ??= issue.message;
        }
        return c.json(errorBody("validation", "The request is invalid", details), 400);
      }
      return undefined;
    },
  });
}

/** The caller (by session or API token); the auth middleware guarantees one on protected routes. */
export function actorOf(c: Context<AppEnv>): Actor {
  const session = c.get("session");
  if (session) return { id: session.user.id, role: session.user.role };
  const token = c.get("apiToken");
  if (token) return token.user;
  throw new DomainError("unauthenticated", "Not logged in");
}

/** The error body in OpenAPI. */
export const ErrorSchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.record(z.string(), z.string()).optional(),
  }),
}).openapi("Error");

/** Error responses, for routes' `responses`. */
export function errors(...statuses: Array<400 | 401 | 403 | 404 | 409 | 413 | 415 | 429>) {
  const text: Record<number, string> = {
    400: "Invalid request (`validation`, with `details` per field)",
    401: "Not logged in",
    403: "Not allowed, or cross-site",
    404: "Not found, or not visible to the caller",
    409: "Conflict",
    413: "Body too large",
    415: "Unsupported media type",
    429: "Too many attempts (`Retry-After`)",
  };
  return Object.fromEntries(
    statuses.map((s) => [
      s,
      { description: text[s]!, content: { "application/json": { schema: ErrorSchema } } },
    ]),
  );
}

/** A JSON request body for routes' `request`. */
export function jsonRequest<T extends z.ZodType>(schema: T) {
  return { body: { content: { "application/json": { schema } }, required: true } };
}

/** A JSON response for routes' `responses`. */
export function jsonResponse<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { "application/json": { schema } } };
}

/** A positive integer id in the path. */
export const Id = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);

/** A positive integer id in a query string, kept as text (400 for anything else). */
export const IdQuery = z.string().regex(/^\d+$/, "Use a number").refine(
  (raw) => Number(raw) >= 1 && Number.isSafeInteger(Number(raw)),
  `Use an id from 1 to ${Number.MAX_SAFE_INTEGER}`,
);

/** Page query parameters (read leniently: bad values fall back, as the contract says). */
export const PageQuery = z.object({
  page: z.string().optional().openapi({
    description: "1-based; a non-numeric, zero or negative value means 1; a number beyond " +
      "2^53 - 1 is 400",
  }),
  pageSize: z.string().optional().openapi({
    description: "default 20 (also for non-numeric, zero or negative values); larger than " +
      "100 means 100",
  }),
});

/** A page object of `item`. */
export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    page: z.number().int(),
    pageSize: z.number().int(),
    total: z.number().int(),
    hasMore: z.boolean(),
  });
}
