/** Placeholder replaced by the milestones implementation (wired in domain/services.ts). */
import type { DomainContext } from "./actions.ts";

/** The milestones operations. */
export function createMilestones(_ctx: DomainContext) {
  return {};
}
