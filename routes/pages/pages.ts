/** All server-rendered pages, behind the login guard, plus static files. */
import { Hono, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Services } from "../../domain/services.ts";
import type { AppEnv } from "../api/openapi.ts";
import { accountPages } from "./account_pages.tsx";
import { adminPages } from "./admin_page.tsx";
import { notificationPages } from "./notification_pages.tsx";
import { projectPages } from "./project_pages.tsx";
import { staticFiles } from "./static_files.ts";

const PUBLIC = new Set(["/login", "/register"]);

/** Sends a visitor without a session to `/login?next=<path>` (302). */
function requireLogin(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.get("session") || PUBLIC.has(c.req.path)) return await next();
    const url = new URL(c.req.url);
    return c.redirect(`/login?next=${encodeURIComponent(url.pathname + url.search)}`, 302);
  };
}

/** The page application. */
export function pages(services: Services, options: { baseUrl: string | null }) {
  const app = new Hono<AppEnv>();
  app.route("/", staticFiles());
  const limit = bodyLimit({
    maxSize: 1024 * 1024,
    onError: (c) => c.text("Payload Too Large", 413),
  });
  const guard = requireLogin();
  // The API has its own body handling and answers 401/404 itself.
  app.use(async (c, next) => {
    if (c.req.path === "/api" || c.req.path.startsWith("/api/")) return await next();
    return await limit(c, async () => {
      const redirect = await guard(c, next);
      if (redirect instanceof Response) c.res = redirect;
    });
  });
  app.route("/", accountPages(services, options));
  app.route("/", projectPages(services));
  app.route("/", adminPages(services));
  app.route("/", notificationPages(services));
  return app;
}
