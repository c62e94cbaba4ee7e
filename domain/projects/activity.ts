/** The per-project activity log as the API shows it. */
import {
  ACTIVITY_COUNT_CAP,
  type ActivityRow,
  listActivity,
  withoutJit,
} from "../../db/projects/activity.ts";
import type { Engine, Queries } from "../../db/kernel/engine.ts";
import { projectAccess } from "../accounts/access.ts";
import type { Actor } from "../accounts/accounts.ts";
import { offsetOf, type Page, type PageRequest } from "../kernel/paging.ts";

/** An activity entry. */
export type Activity = ActivityRow;

export { ACTIVITY_COUNT_CAP };

/**
 * A page of activity. Its total is counted up to `ACTIVITY_COUNT_CAP`: exact when
 * `totalIsExact`, else the cap, a lower bound; `hasMore` is exact either way.
 */
export type ActivityPage = Page<Activity> & { totalIsExact: boolean };

/**
 * A page of a project's activity, newest first (entries of deleted things are hidden); `q`
 * is best a read (on PostgreSQL, its statements then run without JIT: `withoutJit`).
 */
export async function projectActivity(
  q: Queries,
  actor: Actor,
  input: { projectId: number; page: PageRequest },
): Promise<ActivityPage> {
  await projectAccess(q, actor, input.projectId);
  await withoutJit(q);
  const { items, total, totalIsExact, hasMore } = await listActivity(
    q,
    input.projectId,
    input.page.pageSize,
    offsetOf(input.page),
  );
  return {
    items,
    page: input.page.page,
    pageSize: input.page.pageSize,
    total,
    totalIsExact,
    hasMore,
  };
}

/** The activity log's operations, for routes (which never hold the database). */
export function createActivity(db: Engine) {
  return {
    /** A page of a project's activity, newest first. */
    list: (
      actor: Actor,
      input: { projectId: number; page: PageRequest },
    ): Promise<ActivityPage> => db.read((q) => projectActivity(q, actor, input)),
  };
}
