/** Placeholder replaced by the milestone, calendar and meeting routes. */
import type { Services } from "../../domain/services.ts";
import { apiApp } from "./openapi.ts";

/** The planning routes. */
export function planningRoutes(_services: Services) {
  return apiApp();
}
