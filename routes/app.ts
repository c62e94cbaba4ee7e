/** Builds the whole HTTP application from explicit dependencies; nothing global. */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Database } from "../db/sqlite.ts";
import type { Clock } from "../domain/clock.ts";
import type { Config } from "../domain/config.ts";
import type { CreditScoreLookup } from "../domain/loan.ts";
import type { PasswordHasher } from "../domain/passwords.ts";
import type { ImportOptions } from "../domain/project_import.ts";
import type { WebhookSenderOptions } from "../domain/webhook_sender.ts";
import { isStorageFull } from "../domain/errors.ts";
import { createServices, type Services } from "../domain/services.ts";
import { soapEndpoints } from "../soap/endpoint.ts";
import { CLIENT_GONE_STATUS, isClientGone } from "../soap/http_body.ts";
import { activityRoutes } from "./api/activity.ts";
import { adminRoutes } from "./api/admin.ts";
import { authRoutes } from "./api/auth.ts";
import { boardRoutes } from "./api/board.ts";
import { calendarFeedRoutes } from "./api/calendar_feed.ts";
import { chatRoutes } from "./api/chat.ts";
import { dashboardRoutes } from "./api/dashboards.ts";
import { errorBody, errorResponse } from "./api/errors.ts";
import { fileRoutes } from "./api/files.ts";
import { noteRoutes } from "./api/notes.ts";
import { notificationRoutes } from "./api/notifications.ts";
import type { AppEnv } from "./api/openapi.ts";
import { passwordRoutes } from "./api/password.ts";
import { planningRoutes } from "./api/planning.ts";
import { projectArchiveRoutes } from "./api/project_archive.ts";
import { projectRoutes } from "./api/projects.ts";
import { searchRoutes } from "./api/search.ts";
import { withSecurity } from "./api/security_doc.ts";
import { streamRoutes } from "./api/stream.ts";
import { todoRoutes } from "./api/todos.ts";
import { trashRoutes } from "./api/trash.ts";
import { webhookRoutes } from "./api/webhooks.ts";
import { tokenRoutes } from "./api/tokens.ts";
import { icsFeedRoutes, isFeedPath } from "./ics_feed.ts";
import { bearerAuth, bearerChallenge, bearerCredentials } from "./middleware/bearer.ts";
import { csrf } from "./middleware/csrf.ts";
import { jsonBody } from "./middleware/json_body.ts";
import { requestLog, stdoutLog } from "./middleware/request_log.ts";
import { headWithoutBody } from "./middleware/head.ts";
import { securityHeaders } from "./middleware/security_headers.ts";
import { pageCtx } from "./pages/context.ts";
import { storageFullPage } from "./pages/error_pages.tsx";
import { formErrorPage, pages } from "./pages/pages.ts";
import { notFound } from "./pages/project_pages.tsx";
import { requireApiSession, session } from "./middleware/session.ts";
import { requestVia, soapFastPath } from "./soap_fast_path.ts";

/** Whether the server is up or on its way down (read by `/healthz`). */
export interface Lifecycle {
  shuttingDown: boolean;
}

/** Everything the application is built from. */
export interface AppDeps {
  db: Database;
  config: Config;
  clock: Clock;
  /** The session-cookie signing key. */
  sessionSecret: string;
  /** Password hashing (default: scrypt with production parameters). */
  hasher?: PasswordHasher;
  /** The loan service's credit-score lookup (default: every applicant scores 700). */
  creditScore?: CreditScoreLookup;
  /** Where request and error log lines go (default: standard output). */
  log?: (line: string) => void;
  lifecycle?: Lifecycle;
  /** The webhook sender's tuning (default: the production values). */
  webhooks?: WebhookSenderOptions;
  /** How project imports run their batches (default: the production pacing). */
  imports?: ImportOptions;
}

/** What the application counts rather than logs. */
export interface AppStats {
  /** Requests whose client went away before their body was read (answered 499, unlogged). */
  clientGone: number;
}

/** The application and the services behind it. */
export interface App {
  fetch: OpenAPIHono<AppEnv>["fetch"];
  request: OpenAPIHono<AppEnv>["request"];
  services: Services;
  stats: AppStats;
}

/** Paths that carry no session or CSRF check (SOAP clients, probes). */
const UNSESSIONED = new Set(["/hello", "/loan", "/healthz"]);

/** Creates the Hono application serving the SOAP services, the API and the pages. */
export function createApp(deps: AppDeps): App {
  const log = deps.log ?? stdoutLog;
  const lifecycle = deps.lifecycle ?? { shuttingDown: false };
  const services = createServices({
    db: deps.db,
    clock: deps.clock,
    config: deps.config,
    sessionSecret: deps.sessionSecret,
    ...(deps.hasher ? { hasher: deps.hasher } : {}),
    ...(deps.creditScore ? { creditScore: deps.creditScore } : {}),
    ...(deps.imports ? { imports: deps.imports } : {}),
    webhooks: {
      onError: (error: unknown) => log(`error: webhook sender: ${describe(error)}`),
      ...deps.webhooks,
    },
  });
  /**
   * Logs an unexpected error. A full disk fails every write until space is freed: its cause
   * is logged when writes start failing, not once per failed request.
   */
  const report = (error: unknown) => {
    if (isStorageFull(error)) {
      if (deps.db.noteStorageFull()) {
        log(`error: the disk is full, writes fail until space is freed: ${describe(error)}`);
      }
      return;
    }
    log(`error: ${describe(error)}`);
  };
  const stats: AppStats = { clientGone: 0 };
  const soap = soapEndpoints(services.loan, {
    namespace: deps.config.soapNamespace,
    baseUrl: deps.config.baseUrl,
    onError: report,
    onClientGone: () => stats.clientGone++,
  });

  const app = new OpenAPIHono<AppEnv>();
  app.use(requestLog(log));
  app.use(securityHeaders({ hsts: deps.config.baseUrl?.startsWith("https:") ?? false }));
  app.use(headWithoutBody());

  app.get(
    "/healthz",
    (c) =>
      lifecycle.shuttingDown ? c.json({ status: "shutting_down" }, 503) : c.json({ status: "ok" }),
  );
  app.all("/hello", (c) => soap.hello(c.req.raw));
  app.all("/loan", (c) => soap.loan(c.req.raw));

  const checkCsrf = csrf({ baseUrl: deps.config.baseUrl });
  const resolveSession = session(services.sessions);
  const resolveToken = bearerAuth(services.apiTokens);
  app.use("/api/*", bearerChallenge());
  app.use(async (c, next) => {
    if (UNSESSIONED.has(c.req.path) || isFeedPath(c.req.path)) return await next();
    // A bearer request under /api is its token's: no cookie, no CSRF check (bearer.ts).
    if (bearerCredentials(c) !== null) return await resolveToken(c, next);
    return await checkCsrf(c, async () => {
      await resolveSession(c, next);
    });
  });
  app.use("/api/*", requireApiSession(), jsonBody());

  const options = { baseUrl: deps.config.baseUrl };
  app.route("/", authRoutes(services, options));
  app.route("/", adminRoutes(services));
  app.route("/", projectRoutes(services));
  app.route("/", projectArchiveRoutes(services, { maxImportMb: deps.config.maxImportMb }));
  app.route("/", notificationRoutes(services));
  app.route("/", boardRoutes(services));
  app.route("/", noteRoutes(services));
  app.route("/", fileRoutes(services, { maxUploadMb: deps.config.maxUploadMb }));
  app.route("/", activityRoutes(services));
  app.route("/", streamRoutes(services));
  app.route("/", chatRoutes(services));
  app.route("/", todoRoutes(services));
  app.route("/", searchRoutes(services));
  app.route("/", dashboardRoutes(services));
  app.route("/", planningRoutes(services));
  app.route("/", trashRoutes(services));
  app.route("/", webhookRoutes(services));
  app.route("/", tokenRoutes(services));
  app.route("/", passwordRoutes(services));
  app.route("/", calendarFeedRoutes(services, options));
  // Calendar feeds: the token in the URL is the credential (no session, no CSRF check).
  app.route("/", icsFeedRoutes(services.calendarFeeds));

  // The document is built once, on first request, with both security schemes declared.
  let document: unknown = null;
  app.get("/api/openapi.json", (c) => {
    document ??= withSecurity(app.getOpenAPI31Document({
      openapi: "3.1.0",
      info: {
        title: "Collaboration service API",
        version: "1.0.0",
        description: "Session cookie `session`, or an API token as `Authorization: Bearer`; " +
          "errors are `{error: {code, message, details?}}`.",
      },
    }));
    return c.json(document);
  });

  // Pages last: everything not matched above is a page (or the HTML 404 page).
  const pageApp = pages(services, options);
  app.route("/", pageApp);
  app.notFound((c) => {
    if (c.req.path === "/api" || c.req.path.startsWith("/api/")) {
      return c.json(errorBody("not_found", "Not found"), 404);
    }
    return notFound(c, pageCtx(c, services));
  });
  app.onError((error, c) => {
    // A client that went away mid-body (a JSON body, an upload) is counted, not logged: a
    // slow-client flood would otherwise write a line per request.
    if (isClientGone(error)) {
      stats.clientGone++;
      return new Response(null, { status: CLIENT_GONE_STATUS });
    }
    if (c.req.path.startsWith("/api/")) return errorResponse(c, error, report);
    // A form the client got wrong (or a probe), not the server's fault: no error log line.
    const formError = formErrorPage(c, error, services);
    if (formError) return formError;
    report(error);
    if (isStorageFull(error)) return storageFullPage(c, pageCtx(c, services));
    return c.html("<!DOCTYPE html><title>Error</title><h1>Something went wrong.</h1>", 500);
  });
  // /hello and /loan skip the router (same log line, same security headers).
  const fetch = soapFastPath(app.fetch, {
    hello: soap.hello,
    loan: soap.loan,
    log,
    hsts: deps.config.baseUrl?.startsWith("https:") ?? false,
  });
  return { fetch, request: requestVia(fetch), services, stats };
}

/** An error's log text. */
function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
