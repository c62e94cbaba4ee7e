/**
 * The page application: static files, then every page behind the login guard, each page
 * module mounted with one line; its own 404 and its own error page.
 */
import { Hono, type MiddlewareHandler } from "hono";
import { DomainError, isStorageFull } from "../../domain/kernel/errors.ts";
import type { Services } from "../../domain/services.ts";
import type { AppEnv } from "../api/openapi.ts";
import { type Failures, handleFailure, SERVER_ERROR_PAGE } from "../failures.ts";
import { formLimits } from "../form_body.ts";
import { requireLogin } from "../middleware/session.ts";
import { isResetPage, resetPages } from "./reset_pages.tsx";
import { accountPages } from "./account_pages.tsx";
import { activityPage } from "./activity_page.tsx";
import { adminPages } from "./admin_page.tsx";
import { auditPages } from "./audit_page.tsx";
import { boardPages } from "./board_pages.tsx";
import { calendarPages } from "./calendar_page.tsx";
import { chatPages } from "./chat_page.tsx";
import { connectPages } from "./connect_pages.tsx";
import { pageCtx } from "./context.ts";
import { filesPages } from "./files_pages.tsx";
import { invitationPages } from "./invitation_pages.tsx";
import { loanConsolePages } from "./loan_console_page.tsx";
import { forbiddenPage, formErrorPage, notFound, storageFullPage } from "./kit/errors.tsx";
import { meetingsPages } from "./meetings_page.tsx";
import { milestonesPages } from "./milestones_page.tsx";
import { notesPages } from "./notes_pages.tsx";
import { notificationPages } from "./notification_pages.tsx";
import { projectPages } from "./project_pages.tsx";
import { searchEverywherePage } from "./search_everywhere_page.tsx";
import { searchPage } from "./search_page.tsx";
import { isSsoPage, ssoPages } from "./sso_pages.tsx";
import { staticFiles } from "../static_files.ts";
import { todoPages } from "./todos_page.tsx";
import { trashPages } from "./trash_page.tsx";
import { webhookPages } from "./webhooks_page.tsx";

/**
 * A page address typed or linked with a trailing slash (`/projects/1/`) goes to the same address
 * without it; the API answers such paths itself (its own 404) before reaching the pages.
 */
function withoutTrailingSlash(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const url = new URL(c.req.url);
    const method = c.req.method;
    if ((method === "GET" || method === "HEAD") && url.pathname.length > 1) {
      const path = url.pathname.replace(/\/+$/, "");
      // "//host" would leave the site: such a path goes home instead.
      const safe = path === "" || path.startsWith("//") ? "/" : path;
      if (path !== url.pathname) return c.redirect(`${safe}${url.search}`, 301);
    }
    return await next();
  };
}

/** The pages a visitor without a session may see: signing in, and invitation links. */
const PUBLIC_PAGES = new Set(["/login", "/register"]);
const isPublicPage = (path: string) =>
  PUBLIC_PAGES.has(path) || /^\/invite\/[^/]+$/.test(path) || isResetPage(path) ||
  isSsoPage(path);

/** What the pages are built with besides the services. */
export interface PagesOptions {
  baseUrl: string | null;
  /** The CSRF check and the session, run before everything else (as for the API). */
  gate: MiddlewareHandler<AppEnv>[];
  failures: Failures;
}

/** The page application: every path the API and the SOAP services do not answer. */
export function pages(services: Services, options: PagesOptions) {
  const app = new Hono<AppEnv>();
  app.use(withoutTrailingSlash());
  app.use(...options.gate);
  app.route("/", staticFiles());
  const { fileStore, maxUploadBytes, maxImportBytes } = services;
  app.use(
    formLimits({ store: fileStore, maxUploadBytes, maxImportBytes }),
    requireLogin(isPublicPage),
  );

  app.route("/", accountPages(services, options));
  app.route("/", invitationPages(services, options));
  app.route("/", resetPages(services));
  app.route("/", ssoPages(services, options));
  app.route("/", projectPages(services));
  app.route("/", boardPages(services));
  app.route("/", notesPages(services));
  app.route("/", filesPages(services));
  app.route("/", activityPage(services));
  app.route("/", adminPages(services, options));
  app.route("/", auditPages(services));
  app.route("/", notificationPages(services));
  app.route("/", chatPages(services));
  app.route("/", todoPages(services));
  app.route("/", milestonesPages(services));
  app.route("/", calendarPages(services));
  app.route("/", meetingsPages(services));
  app.route("/", searchPage(services));
  app.route("/", searchEverywherePage(services));
  app.route("/", trashPages(services));
  app.route("/", connectPages(services, options));
  app.route("/", webhookPages(services));
  app.route("/", loanConsolePages(services));

  app.all("*", async (c) => notFound(c, await pageCtx(c, services)));
  app.onError(handleFailure(options.failures, async (error, c) => {
    // Something unknown or hidden from the caller, as the API answers 404.
    if (error instanceof DomainError && error.code === "not_found") {
      return notFound(c, await pageCtx(c, services));
    }
    // A page the caller may know of but not open (a member at a project's settings).
    if (error instanceof DomainError && error.code === "forbidden") {
      return forbiddenPage(c, await pageCtx(c, services));
    }
    // A form the client got wrong (or a probe), not the server's fault: no error log line.
    const formError = formErrorPage(c, error, services);
    if (formError) return formError;
    options.failures.report(error);
    if (isStorageFull(error)) return storageFullPage(c, services);
    return c.html(SERVER_ERROR_PAGE, 500);
  }));
  return app;
}
