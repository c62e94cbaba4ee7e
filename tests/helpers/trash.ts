/** Test helpers for the trash: letting deleted items expire and running the sweep. */
import type { SweepResult } from "../../domain/projects/trash.ts";
import type { TestApp } from "./app.ts";

/** One day in milliseconds. */
export const DAY = 86_400_000;

/**
 * Sweeps once as if the trash period (`TRASH_DAYS`) had passed: the clock moves past it for the
 * sweep and back afterwards, so the test's sessions (shorter-lived) stay valid.
 */
export async function sweepExpired(t: TestApp): Promise<SweepResult> {
  const now = t.clock.now();
  t.clock.advance(t.config.trashDays * DAY);
  try {
    return await t.app.services.trash.sweep();
  } finally {
    t.clock.set(now);
  }
}
