/**
 * The OpenAPI document's security: the two schemes (the `session` cookie and bearer API
 * tokens) and, on every operation, which of them it accepts. The per-operation lists come
 * from the same rules the middleware enforces (public routes, session-only routes), so the
 * document cannot drift from what the server does.
 */
import { sessionOnly } from "./session_only.ts";
import { isPublicApi } from "../middleware/session.ts";

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** The security schemes the API accepts. */
export const SECURITY_SCHEMES = {
  session: {
    type: "apiKey",
    in: "cookie",
    name: "session",
    description: "The session cookie set by `POST /api/auth/login` or `/api/auth/register`. " +
      "Unsafe methods from a browser must pass the CSRF check (`Origin`, `Sec-Fetch-Site`).",
  },
  bearer: {
    type: "http",
    scheme: "bearer",
    description: "An API token (`clb_…`, from `POST /api/tokens`) as " +
      "`Authorization: Bearer <secret>`. The cookie is then ignored and no CSRF check " +
      "applies. A `read` token may only GET and HEAD (else 403).",
  },
} as const;

/** What an operation's `security` becomes: public, session only, or session or token. */
function securityOf(path: string): Array<Record<string, string[]>> {
  // Outside `/api` (the calendar feeds) the credential is a token in the path.
  if (isPublicApi(path) || !path.startsWith("/api/")) return [];
  if (sessionOnly(path)) return [{ session: [] }];
  return [{ session: [] }, { bearer: [] }];
}

/** `document` with the security schemes declared and every operation's `security` set. */
export function withSecurity<T extends { paths?: unknown; components?: unknown }>(
  document: T,
): T {
  const paths = (document.paths ?? {}) as Record<string, Record<string, unknown>>;
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const operation = item[method] as Record<string, unknown> | undefined;
      if (operation) operation.security = securityOf(path);
    }
  }
  const components = (document.components ?? {}) as Record<string, unknown>;
  return { ...document, components: { ...components, securitySchemes: SECURITY_SCHEMES } };
}
