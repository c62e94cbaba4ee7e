/** The per-project activity log as the API shows it. */
import { type ActivityRow, listActivity } from "../../db/projects/activity.ts";
import type { Engine, Queries } from "../../db/kernel/engine.ts";
import { projectAccess } from "../accounts/access.ts";
import type { Actor } from "../accounts/accounts.ts";
import { offsetOf, type Page, pageOf, type PageRequest } from "../kernel/paging.ts";

/** An activity entry. */
export type Activity = ActivityRow;

/** A page of a project's activity, newest first (entries of deleted things are hidden). */
export async function projectActivity(
  q: Queries,
  actor: Actor,
  input: { projectId: number; page: PageRequest },
): Promise<Page<Activity>> {
  await projectAccess(q, actor, input.projectId);
  const { items, total } = await listActivity(
    q,
    [input.projectId],
    input.page.pageSize,
    offsetOf(input.page),
  );
  return pageOf(items, total, input.page);
}

/** The activity log's operations, for routes (which never hold the database). */
export function createActivity(db: Engine) {
  return {
    /** A page of a project's activity, newest first. */
    list: (
      actor: Actor,
      input: { projectId: number; page: PageRequest },
    ): Promise<Page<Activity>> => projectActivity(db, actor, input),
  };
}
