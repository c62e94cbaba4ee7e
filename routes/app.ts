/** Builds the whole HTTP application from explicit dependencies; nothing global. */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { isStorageFull } from "../domain/kernel/errors.ts";
import { createServices, type ServiceDeps, type Services } from "../domain/services.ts";
import { soapEndpoints } from "../soap/endpoint.ts";
import { api } from "./api/api.ts";
import type { AppEnv } from "./api/openapi.ts";
import { icsFeedRoutes } from "./ics_feed.ts";
import { bearerAuth, bearerChallenge, bearerCredentials } from "./middleware/bearer.ts";
import { type Failures, handleFailure, SERVER_ERROR_PAGE } from "./failures.ts";
import { csrf } from "./middleware/csrf.ts";
import { observeRequests, requestLog, stdoutLog } from "./middleware/request_log.ts";
import { createMetrics, type Metrics } from "../domain/kernel/metrics.ts";
import { metricsRoute } from "./metrics.ts";
import { headWithoutBody } from "./middleware/head.ts";
import { securityHeaders } from "./middleware/security_headers.ts";
import { session } from "./middleware/session.ts";
import { pageCtx } from "./pages/context.ts";
import { pages } from "./pages/pages.ts";
import { unsubscribePages } from "./pages/unsubscribe_page.tsx";
import { notFound } from "./pages/kit/errors.tsx";
import { requestVia, soapFastPath } from "./soap_fast_path.ts";

/** Whether the server is up or on its way down (read by `/healthz`). */
export interface Lifecycle {
  shuttingDown: boolean;
}

/**
 * Everything the application is built from: what the services are built from (the database,
 * clock, config, session secret, hasher, credit-score lookup), and the log and lifecycle.
 */
export interface AppDeps extends ServiceDeps {
  /** Where request and error log lines go (default: standard output). */
  log?: (line: string) => void;
  lifecycle?: Lifecycle;
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
  /** Writes buffered log lines now (the default log to standard output is buffered). */
  flushLog(): void;
  /** This application's metrics (`GET /metrics` shows them when `METRICS_TOKEN` is set). */
  metrics: Metrics;
}

/** The version `collab_build_info` reports (the API document's). */
const VERSION = "1.0.0";

/** Creates the Hono application serving the SOAP services, the API and the pages. */
export function createApp(deps: AppDeps): App {
  const stdout = deps.log ? null : stdoutLog();
  const write = deps.log ?? stdout!.write;
  const metrics = createMetrics({ version: VERSION, engine: deps.engine.kind });
  const log = requestLog(deps.config.logFormat, write, metrics);
  const lifecycle = deps.lifecycle ?? { shuttingDown: false };
  const services = createServices({
    reportError: (error: unknown) => log.error(describe(error)),
    metrics,
    ...deps,
    webhooks: {
      onError: (error: unknown) => log.error(`webhook sender: ${describe(error)}`),
      ...deps.webhooks,
    },
  });
  const stats: AppStats = { clientGone: 0 };
  const failures: Failures = {
    /**
     * Logs an unexpected error. A full disk fails every write until space is freed: its cause
     * is logged when writes start failing, not once per failed request.
     */
    report(error, requestId) {
      if (!isStorageFull(error)) log.error(describe(error), requestId);
      else if (services.noteStorageFull()) {
        log.error(
          `the disk is full, writes fail until space is freed: ${describe(error)}`,
          requestId,
        );
      }
    },
    clientGone: () => stats.clientGone++,
  };
  const soap = soapEndpoints(services.loan, {
    namespace: deps.config.soapNamespace,
    baseUrl: deps.config.baseUrl,
    onError: failures.report,
    onClientGone: failures.clientGone,
    onCall: metrics.soap,
    onLoanDecision: metrics.loanDecision,
  });
  const hsts = deps.config.baseUrl?.startsWith("https:") ?? false;

  const app = new OpenAPIHono<AppEnv>();
  app.use(observeRequests(log, userOf));
  app.use(securityHeaders({ hsts }));
  app.use(headWithoutBody());

  // SOAP clients and probes: no session, no CSRF check.
  // Ready when not shutting down and the database answers; a load balancer then sends
  // requests to the other instances until this one's database is back.
  app.get("/healthz", async (c) => {
    if (lifecycle.shuttingDown) return c.json({ status: "shutting_down" }, 503);
    if (!await services.health.databaseReachable()) {
      return c.json({ status: "database_unreachable" }, 503);
    }
    return c.json({ status: "ok" });
  });
  app.all("/healthz", (c) => c.notFound());
  // Prometheus: only with METRICS_TOKEN set, and only with it as the bearer token.
  app.route("/", metricsRoute(metrics, deps.config.metricsToken));
  app.all("/hello", (c) => soap.hello(c.req.raw));
  app.all("/loan", (c) => soap.loan(c.req.raw));

  // Calendar feeds: the token in the URL is the credential (no session, no CSRF check).
  app.route("/", icsFeedRoutes(services.calendarFeeds));

  // The API and the pages, each with its own body handling and error handler; both run the
  // CSRF check and resolve the session first. An API request with a bearer token is the
  // token's instead: no cookie, no CSRF check (bearer.ts).
  const checkCsrf = csrf({ baseUrl: deps.config.baseUrl });
  const resolveSession = session(services.sessions);
  // The unsubscribe link of notification mail: no session (a mail client's one-click POST has
  // none), the CSRF check still refuses cross-site forms.
  app.use("/unsubscribe/*", checkCsrf);
  app.route("/", unsubscribePages(services));
  const resolveToken = bearerAuth(services.apiTokens);
  const apiGate: MiddlewareHandler<AppEnv>[] = [
    bearerChallenge(),
    async (c, next) => {
      if (bearerCredentials(c) !== null) return await resolveToken(c, next);
      return await checkCsrf(c, async () => {
        await resolveSession(c, next);
      });
    },
  ];
  const { baseUrl, maxUploadMb, maxImportMb } = deps.config;
  const apiOptions = { baseUrl, maxUploadMb, maxImportMb, gate: apiGate, failures };
  app.route("/", api(services, apiOptions));
  app.route("/", pages(services, { baseUrl, gate: [checkCsrf, resolveSession], failures }));

  app.notFound(async (c) => notFound(c, await pageCtx(c, services)));
  app.onError(handleFailure(failures, (error, c) => {
    failures.report(error, c.get("requestId"));
    return c.html(SERVER_ERROR_PAGE, 500);
  }));
  // /hello and /loan skip the router (same log line, same security headers).
  const fetch = soapFastPath(app.fetch, { hello: soap.hello, loan: soap.loan, log, hsts });
  return {
    fetch,
    request: requestVia(fetch),
    services,
    stats,
    flushLog: () => stdout?.flush(),
    metrics,
  };
}

/** The signed-in user of a request (by session or API token), or null. */
function userOf(c: Context<AppEnv>): number | null {
  return c.get("session")?.user.id ?? c.get("apiToken")?.user.id ?? null;
}

/** An error's log text. */
function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
