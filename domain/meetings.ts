/** Placeholder replaced by the meetings implementation (wired in domain/services.ts). */
import type { DomainContext } from "./actions.ts";

/** The meetings operations. */
export function createMeetings(_ctx: DomainContext) {
  return {};
}
