/**
 * `GET /api/openapi.json`: the OpenAPI 3.1 document, generated from the route schemas and
 * completed from the rules the middleware enforces (security, the errors it answers), with a
 * stable `operationId` on every operation and the server's own address in `servers`.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { withErrors } from "./error_doc.ts";
import type { AppEnv } from "./openapi.ts";
import { OPERATION_IDS } from "./operation_ids.ts";
import { withSecurity } from "./security_doc.ts";

/** The API's license: the service is not published under an open licence. */
const LICENSE = { name: "Proprietary", identifier: "LicenseRef-Proprietary" };

const METHODS = ["get", "put", "post", "delete", "patch"];

/** The document as JSON (an object tree). */
export type OpenApiDocument = Record<string, unknown> & {
  paths: Record<string, Record<string, Record<string, unknown>>>;
};

const route = createRoute({
  method: "get",
  path: "/api/openapi.json",
  tags: ["meta"],
  summary: "This document (OpenAPI 3.1); `servers` names this server's address",
  responses: {
    200: {
      description: "The document",
      content: {
        "application/json": {
          schema: z.record(z.string(), z.unknown()).openapi({
            description: "An OpenAPI 3.1 document",
          }),
        },
      },
    },
  },
});

/** `document` with each operation's `operationId` set from `OPERATION_IDS`. */
function withOperationIds(document: OpenApiDocument): OpenApiDocument {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method] as Record<string, unknown> | undefined;
      if (!operation) continue;
      const key = `${method.toUpperCase()} ${path}`;
      const id = OPERATION_IDS[key];
      if (!id) throw new Error(`Cannot build the OpenAPI document: ${key} has no operationId`);
      operation.operationId = id;
    }
  }
  return document;
}

/**
 * `node` with every integer's `exclusiveMinimum: n` spelled `minimum: n + 1` (zod's
 * `.positive()` gives the former; the same set of values, but "ids start at 1" reads plainer).
 */
function withIntegerMinimums<T>(node: T): T {
  if (Array.isArray(node)) {
    for (const child of node) withIntegerMinimums(child);
  } else if (node !== null && typeof node === "object") {
    const schema = node as Record<string, unknown>;
    const integer = [schema.type].flat().includes("integer");
    if (integer && typeof schema.exclusiveMinimum === "number") {
      schema.minimum = Math.floor(schema.exclusiveMinimum) + 1;
      delete schema.exclusiveMinimum;
    }
    for (const child of Object.values(schema)) withIntegerMinimums(child);
  }
  return node;
}

/** The document of everything registered on `app` (its servers not yet set). */
export function buildDocument(app: OpenAPIHono<AppEnv>): OpenApiDocument {
  const generated = app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "Collaboration service API",
      version: "1.0.0",
      description: "A project collaboration service. Sign in with the `session` cookie " +
        "(`POST /api/auth/login`) or send an API token as `Authorization: Bearer`. JSON in " +
        "and out; errors are `{error: {code, message, details?}}` with one `code` per status.",
    },
    tags: [
      { name: "meta", description: "This document" },
      { name: "accounts", description: "Accounts, sessions and the caller's profile" },
      { name: "admin", description: "Administration (system admins only)" },
      { name: "projects", description: "Projects, members, export and import" },
      {
        name: "invitations",
        description: "Invitations to projects, and the invitation link's own routes",
      },
      { name: "notifications", description: "The caller's notifications" },
      { name: "board", description: "Board threads and comments" },
      { name: "notes", description: "Notes" },
      { name: "files", description: "Files and attachments" },
      { name: "activity", description: "A project's activity log" },
      { name: "chat", description: "Chat messages" },
      { name: "stream", description: "The project event stream (server-sent events)" },
      { name: "todos", description: "To-do columns and items" },
      { name: "search", description: "Search" },
      { name: "dashboards", description: "The project and personal dashboards" },
      { name: "milestones", description: "Milestones" },
      { name: "calendar", description: "Calendar events, the calendar and its feeds" },
      { name: "meetings", description: "Meetings and their conflicts" },
      { name: "trash", description: "Trash and restore" },
      { name: "webhooks", description: "Webhooks and their deliveries" },
      { name: "tokens", description: "Personal API tokens" },
      { name: "markdown", description: "The Markdown preview of text boxes" },
      {
        name: "loan",
        description: "The loan operations console (admins and loan officers only)",
      },
    ],
  }) as unknown as OpenApiDocument;
  // OpenAPI 3.1's SPDX `identifier` (the generator's types know only 3.0's `url`).
  (generated.info as Record<string, unknown>).license = LICENSE;
  return withOperationIds(withErrors(withSecurity(withIntegerMinimums(generated))));
}

/** `document` naming `origin` as its server. */
export function withServer(document: OpenApiDocument, origin: string): OpenApiDocument {
  return { ...document, servers: [{ url: origin, description: "This server" }] };
}

/**
 * Registers `GET /api/openapi.json` on `app`. The document is built once, on first request,
 * after every route is registered; `servers` is `BASE_URL`, or else the request's origin.
 */
export function registerOpenApiDocument(
  app: OpenAPIHono<AppEnv>,
  options: { baseUrl: string | null },
): void {
  let document: OpenApiDocument | null = null;
  app.openapi(route, (c) => {
    document ??= buildDocument(app);
    const origin = options.baseUrl?.replace(/\/+$/, "") ?? new URL(c.req.url).origin;
    return c.json(withServer(document, origin), 200);
  });
}
