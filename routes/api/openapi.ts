/** The typed sub-app every API resource is built on, and its shared pieces. */
import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Actor } from "../../domain/accounts/accounts.ts";
import type { TokenAuth } from "../../domain/accounts/api_tokens.ts";
import { DomainError } from "../../domain/kernel/errors.ts";
import type { ActiveSession } from "../../domain/accounts/sessions.ts";
import { codesText, errorDescription } from "./error_doc.ts";
import { errorBody } from "./errors.ts";

/** Request-scoped values set by the middleware. */
export interface AppEnv {
  Variables: {
    session: ActiveSession | null;
    /** The API token a bearer request authenticated with (then `session` is null). */
    apiToken: TokenAuth | null;
    /** The request's id (`X-Request-Id`), set first of all. */
    requestId: string;
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
    /** The request's id, as in its `X-Request-Id` response header. */
    requestId: z.string().optional(),
  }),
}).openapi("Error");

/** Error responses, for routes' `responses` (error_doc.ts adds the middleware's own). */
export function errors(...statuses: Array<400 | 401 | 403 | 404 | 409 | 413 | 415 | 429>) {
  return Object.fromEntries(
    statuses.map((s) => [
      s,
      {
        description: errorDescription(s),
        content: { "application/json": { schema: ErrorSchema } },
      },
    ]),
  );
}

/**
 * An error response of `status` documented with `codes` (besides or instead of the status's
 * own), for a route whose logic answers codes of its own: `{ 403: errorCodes(…) }`.
 */
export function errorCodes(codes: readonly string[], text: string) {
  return {
    description: codesText(codes, text),
    content: { "application/json": { schema: ErrorSchema } },
  };
}

/** A response header, for a response's `headers`. */
export function header(description: string, required = true) {
  return { description, required, schema: { type: "string" as const } };
}

/** The `Set-Cookie` header of the responses that sign in, out or set preferences. */
export function setCookie(description: string) {
  return { "Set-Cookie": header(description) };
}

/** A JSON request body for routes' `request`. */
export function jsonRequest<T extends z.ZodType>(schema: T) {
  return { body: { content: { "application/json": { schema } }, required: true } };
}

/** A JSON response for routes' `responses`, with the headers it always carries. */
export function jsonResponse<T extends z.ZodType>(
  schema: T,
  description: string,
  headers?: Record<string, ReturnType<typeof header>>,
) {
  return {
    description,
    content: { "application/json": { schema } },
    ...(headers ? { headers } : {}),
  };
}

/** A positive integer id in the path. */
export const Id = z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

/** An id in a response. */
export const IdOut = z.number().int().min(1);

/** A timestamp in a response: ISO 8601 in UTC with `Z`. */
export const TimestampOut = z.string().openapi({
  format: "date-time",
  example: "2026-11-22T08:30:00.000Z",
});

/** A calendar date in a response: `YYYY-MM-DD`. */
export const DateOut = z.string().openapi({ format: "date", example: "2026-12-01" });

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
