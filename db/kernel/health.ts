/** The readiness query. */
import type { Queries } from "./engine.ts";

/** Whether the database answers a trivial query (it rejects when it cannot be reached). */
export async function databaseAnswers(q: Queries): Promise<boolean> {
  return (await q.get<{ ok: number }>("SELECT 1 AS ok"))?.ok === 1;
}
