/** Placeholder replaced by the calendar implementation (wired in domain/services.ts). */
import type { DomainContext } from "./actions.ts";

/** The calendar operations. */
export function createCalendar(_ctx: DomainContext) {
  return {};
}
