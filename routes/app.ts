/** Builds the whole HTTP application from explicit dependencies; nothing global. */
import { Hono } from "hono";
import type { Database } from "../db/sqlite.ts";
import type { Clock } from "../domain/clock.ts";
import type { Config } from "../domain/config.ts";
import { createLoanService, type CreditScoreLookup, fixedCreditScore } from "../domain/loan.ts";
import { soapEndpoints } from "../soap/endpoint.ts";
import { requestLog } from "./middleware/request_log.ts";
import { securityHeaders } from "./middleware/security_headers.ts";

/** Whether the server is up or on its way down (read by `/healthz`). */
export interface Lifecycle {
  shuttingDown: boolean;
}

/** Everything the application is built from. */
export interface AppDeps {
  db: Database;
  config: Config;
  clock: Clock;
  /** The loan service's credit-score lookup (default: every applicant scores 700). */
  creditScore?: CreditScoreLookup;
  /** Where request and error log lines go (default: standard output). */
  log?: (line: string) => void;
  lifecycle?: Lifecycle;
}

/** Creates the Hono application serving the SOAP services, the API and the pages. */
export function createApp(deps: AppDeps): Hono {
  const log = deps.log ?? ((line: string) => console.log(line));
  const lifecycle = deps.lifecycle ?? { shuttingDown: false };
  const logError = (error: unknown) =>
    log(`error: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);

  const loan = createLoanService(deps.db, {
    clock: deps.clock,
    creditScore: deps.creditScore ?? fixedCreditScore,
  });
  const soap = soapEndpoints(loan, {
    namespace: deps.config.soapNamespace,
    baseUrl: deps.config.baseUrl,
    onError: logError,
  });

  const app = new Hono();
  app.use(requestLog(log));
  app.use(securityHeaders({ hsts: deps.config.baseUrl?.startsWith("https:") ?? false }));

  app.get(
    "/healthz",
    (c) =>
      lifecycle.shuttingDown ? c.json({ status: "shutting_down" }, 503) : c.json({ status: "ok" }),
  );

  app.all("/hello", (c) => soap.hello(c.req.raw));
  app.all("/loan", (c) => soap.loan(c.req.raw));

  app.notFound((c) => c.json({ error: { code: "not_found", message: "Not found" } }, 404));
  app.onError((error, c) => {
    logError(error);
    return c.json({ error: { code: "internal", message: "Internal server error" } }, 500);
  });
  return app;
}
