/**
 * Error responses in the OpenAPI document. Each status has exactly one `code` (errors.ts maps
 * them one to one), so each documented error response names its code in its schema, and
 * carries the headers the server sends with it (`WWW-Authenticate` on 401, `Retry-After` on
 * 429). Routes list the errors of their own logic; the ones the middleware in front of every
 * route can answer are added here from the same rules the middleware follows, so no route
 * has to repeat them and none can forget one.
 */
import { sessionOnly } from "./session_only.ts";

/** One error status: its code, the name of its schema and what it means. */
interface ErrorKind {
  code: string;
  schema: string;
  text: string;
}

/** Every error status the API answers, with its one code. */
export const ERROR_KINDS: Readonly<Record<number, ErrorKind>> = {
  400: {
    code: "validation",
    schema: "ValidationError",
    text: "The request is invalid; `details` maps each bad field (`body` for a malformed " +
      "body) to a message",
  },
  401: {
    code: "unauthenticated",
    schema: "UnauthenticatedError",
    text: "Not signed in, or the API token is wrong, expired or revoked",
  },
  403: {
    code: "forbidden",
    schema: "ForbiddenError",
    text: "Not allowed: the caller's role, an archived project, a cross-site request, or " +
      "something an API token may not do",
  },
  404: {
    code: "not_found",
    schema: "NotFoundError",
    text: "Not found, or not visible to the caller",
  },
  409: { code: "conflict", schema: "ConflictError", text: "Conflicts with the current state" },
  413: { code: "too_large", schema: "TooLargeError", text: "The body is too large" },
  415: {
    code: "unsupported_media_type",
    schema: "UnsupportedMediaTypeError",
    text: "The body's media type is not one the route reads",
  },
  429: {
    code: "rate_limited",
    schema: "RateLimitedError",
    text: "Too many attempts; retry after `Retry-After` seconds",
  },
  500: { code: "internal", schema: "InternalError", text: "An unexpected server error" },
  503: {
    code: "unavailable",
    schema: "UnavailableError",
    text: "The server is shutting down; retry after `Retry-After` seconds",
  },
  507: {
    code: "insufficient_storage",
    schema: "InsufficientStorageError",
    text: "The server's disk is full; nothing was changed",
  },
};

/** The description of an error response of `status`: its code, then what it means. */
export function errorDescription(status: number, text?: string): string {
  const kind = ERROR_KINDS[status];
  if (!kind) throw new Error(`Cannot describe status ${status}: it is not an error status`);
  return `\`${kind.code}\`: ${text ?? kind.text}`;
}

const HEADERS: Record<number, Record<string, unknown>> = {
  401: { "WWW-Authenticate": { $ref: "#/components/headers/WWW-Authenticate" } },
  429: { "Retry-After": { $ref: "#/components/headers/Retry-After" } },
  503: { "Retry-After": { $ref: "#/components/headers/Retry-After" } },
};

const HEADER_COMPONENTS = {
  "WWW-Authenticate": {
    description: "`Bearer`, on every 401 under `/api` (RFC 6750)",
    required: true,
    schema: { type: "string", const: "Bearer" },
  },
  "Retry-After": {
    description: "Seconds until the next attempt may succeed",
    required: true,
    schema: { type: "integer", minimum: 0 },
  },
};

const UNSAFE = new Set(["post", "put", "patch", "delete"]);
const METHODS = ["get", "put", "post", "delete", "patch"];

/** The error statuses the middleware can answer for an operation, whatever its route does. */
function impliedStatuses(path: string, method: string): number[] {
  // A U+0000 in the query string; any unexpected failure; a server shutting down.
  // Any route, public ones too, is 401 for a wrong, expired or revoked API token.
  const statuses = [400, 401, 500, 503];
  // Unsafe methods: the CSRF check, a read-only token, a body that is too large or of another
  // media type, and a full disk. Session-only routes refuse every API token.
  if (UNSAFE.has(method)) statuses.push(403, 413, 415, 507);
  else if (sessionOnly(path)) statuses.push(403);
  if (path.includes("{")) statuses.push(404);
  return statuses;
}

/**
 * The one exception to "a status, a code": a list that answers whole only up to a size says
 * 400 `too_many` above it (page it instead). A route's 400 whose description starts with this
 * is documented with either code.
 */
export const TOO_MANY_400 = "`validation` or `too_many`";
const TOO_MANY_SCHEMA = "ValidationOrTooManyError";

/**
 * The second exception: what only mail can do (a verification mail) is 409 `mail_off` on a
 * server without mail, besides the route's own `conflict`. A route's 409 whose description
 * starts with this is documented with either code.
 */
export const MAIL_OFF_409 = "`conflict` or `mail_off`";
const MAIL_OFF_SCHEMA = "ConflictOrMailOffError";

/** A JSON Schema for the error body with `code` (or one of `code`). */
function errorSchema(code: string | string[]) {
  return {
    allOf: [
      { $ref: "#/components/schemas/Error" },
      {
        type: "object",
        properties: {
          error: {
            type: "object",
            properties: {
              code: typeof code === "string"
                ? { type: "string", const: code }
                : { type: "string", enum: code },
            },
            required: ["code"],
          },
        },
        required: ["error"],
      },
    ],
  };
}

type Operation = { responses?: Record<string, Record<string, unknown>>; security?: unknown[] };

/**
 * `document` with every `/api` operation's error responses complete: the implied statuses
 * added, and each error response's schema, code and headers set.
 */
export function withErrors<T extends { paths?: unknown; components?: unknown }>(
  document: T,
): T {
  const paths = (document.paths ?? {}) as Record<string, Record<string, Operation>>;
  for (const [path, item] of Object.entries(paths)) {
    if (!path.startsWith("/api/")) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const responses = operation.responses ??= {};
      for (const status of impliedStatuses(path, method)) {
        responses[String(status)] ??= {};
      }
      for (const [key, response] of Object.entries(responses)) {
        const status = Number(key);
        const kind = ERROR_KINDS[status];
        if (status < 400) continue;
        if (!kind) throw new Error(`Cannot document ${method} ${path} ${key}: unknown status`);
        const text = response.description as string | undefined;
        const schema = status === 400 && text?.startsWith(TOO_MANY_400)
          ? TOO_MANY_SCHEMA
          : status === 409 && text?.startsWith(MAIL_OFF_409)
          ? MAIL_OFF_SCHEMA
          : kind.schema;
        responses[key] = {
          ...response,
          description: text?.startsWith(`\`${kind.code}\``) ? text : errorDescription(status, text),
          ...(HEADERS[status] ? { headers: HEADERS[status] } : {}),
          content: {
            "application/json": { schema: { $ref: `#/components/schemas/${schema}` } },
          },
        };
      }
      operation.responses = Object.fromEntries(
        Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)),
      );
    }
  }
  const components = (document.components ?? {}) as Record<string, Record<string, unknown>>;
  const schemas: Record<string, unknown> = {
    ...components.schemas,
    Error: {
      type: "object",
      description: "Every error answer: a code for programs, a sentence for people",
      properties: {
        error: {
          type: "object",
          properties: {
            code: { type: "string" },
            message: { type: "string" },
            details: {
              type: "object",
              additionalProperties: { type: "string" },
              description: "Field path (`a.0.b`, or `body`) to a message or a code",
            },
          },
          required: ["code", "message"],
        },
      },
      required: ["error"],
    },
  };
  for (const kind of Object.values(ERROR_KINDS)) schemas[kind.schema] = errorSchema(kind.code);
  schemas[TOO_MANY_SCHEMA] = errorSchema(["validation", "too_many"]);
  schemas[MAIL_OFF_SCHEMA] = errorSchema(["conflict", "mail_off"]);
  return {
    ...document,
    components: {
      ...components,
      schemas,
      headers: { ...components.headers, ...HEADER_COMPONENTS },
    },
  };
}
