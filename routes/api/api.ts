/**
 * The JSON API: one sub-app for everything under `/api`, with its own body handling, its own
 * 404 and its own error handler, so no code elsewhere asks whether a path is an API path.
 * Each resource module defines its routes with their full paths (`/api/...`, as the OpenAPI
 * document shows them) and is mounted here with one line.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { Services } from "../../domain/services.ts";
import { type Failures, handleFailure } from "../failures.ts";
import { jsonBody } from "../middleware/json_body.ts";
import { requireApiSession } from "../middleware/session.ts";
import { activityRoutes } from "./activity.ts";
import { adminRoutes } from "./admin.ts";
import { authRoutes } from "./auth.ts";
import { boardRoutes } from "./board.ts";
import { calendarFeedRoutes } from "./calendar_feed.ts";
import { checklistRoutes } from "./checklists.ts";
import { chatRoutes } from "./chat.ts";
import { dashboardRoutes } from "./dashboards.ts";
import { registerOpenApiDocument } from "./document.ts";
import { errorBody, errorResponse } from "./errors.ts";
import { fileRoutes } from "./files.ts";
import { invitationRoutes } from "./invitations.ts";
import { loanConsoleRoutes } from "./loan_console.ts";
import { registerIcsFeedDocs } from "./ics_doc.ts";
import { registerEventDocs } from "./event_doc.ts";
import { registerUnsubscribeDocs } from "./unsubscribe_doc.ts";
import { markdownRoutes } from "./markdown.ts";
import { noteRoutes } from "./notes.ts";
import { notificationRoutes } from "./notifications.ts";
import type { AppEnv } from "./openapi.ts";
import { passwordRoutes } from "./password.ts";
import { passwordResetRoutes } from "./password_reset.ts";
import { planningRoutes } from "./planning.ts";
import { projectArchiveRoutes } from "./project_archive.ts";
import { projectRoutes } from "./projects.ts";
import { searchRoutes } from "./search.ts";
import { streamRoutes } from "./stream.ts";
import { todoRoutes } from "./todos.ts";
import { tokenRoutes } from "./tokens.ts";
import { trashRoutes } from "./trash.ts";
import { webhookRoutes } from "./webhooks.ts";

/** What the API is built with besides the services. */
export interface ApiOptions {
  baseUrl: string | null;
  maxUploadMb: number;
  maxImportMb: number;
  /** The bearer token, or the CSRF check and the session, run before everything else. */
  gate: MiddlewareHandler<AppEnv>[];
  failures: Failures;
}

/** The API sub-app; mount it with `app.route("/", api(...))`. */
export function api(services: Services, options: ApiOptions): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.use("/api/*", ...options.gate, requireApiSession(), jsonBody());

  app.route("/", authRoutes(services, { baseUrl: options.baseUrl }));
  app.route("/", adminRoutes(services));
  app.route("/", projectRoutes(services));
  app.route("/", invitationRoutes(services, { baseUrl: options.baseUrl }));
  app.route("/", projectArchiveRoutes(services, { maxImportMb: options.maxImportMb }));
  app.route("/", notificationRoutes(services));
  app.route("/", boardRoutes(services));
  app.route("/", noteRoutes(services));
  app.route("/", fileRoutes(services, { maxUploadMb: options.maxUploadMb }));
  app.route("/", activityRoutes(services));
  app.route("/", streamRoutes(services));
  app.route("/", chatRoutes(services));
  app.route("/", todoRoutes(services));
  app.route("/", checklistRoutes(services));
  app.route("/", searchRoutes(services));
  app.route("/", dashboardRoutes(services));
  app.route("/", planningRoutes(services));
  app.route("/", trashRoutes(services));
  app.route("/", webhookRoutes(services));
  app.route("/", tokenRoutes(services));
  app.route("/", passwordRoutes(services));
  app.route("/", passwordResetRoutes(services, { baseUrl: options.baseUrl }));
  app.route("/", calendarFeedRoutes(services, { baseUrl: options.baseUrl }));
  app.route("/", markdownRoutes(services));
  app.route("/", loanConsoleRoutes(services));

  registerIcsFeedDocs(app.openAPIRegistry);
  registerEventDocs(app.openAPIRegistry);
  registerUnsubscribeDocs(app.openAPIRegistry);
  registerOpenApiDocument(app, { baseUrl: options.baseUrl });
  // Last: any other path under /api is the API's own JSON 404, never a page.
  app.all("/api/*", (c) => c.json(errorBody("not_found", "Not found"), 404));
  app.onError(handleFailure(options.failures, (error, c) => {
    return errorResponse(c, error, (e) => options.failures.report(e, c.get("requestId")));
  }));
  return app;
}
