/** The per-project event log behind the event stream. */
import { eventLog } from "./event_log.ts";
import type { Queries } from "../kernel/engine.ts";

/** A stored stream event. */
export interface EventRow {
  id: number;
  projectId: number;
  name: string;
  /** The JSON data, as stored. */
  data: string;
}

/** How many events each project keeps for replay (the contract asks for at least 1,000). */
export const EVENTS_KEPT = 5000;

const log = eventLog({ table: "project_events", owner: "project_id" }, EVENTS_KEPT);

const asEvent = (
  { ownerId, ...r }: { ownerId: number; id: number; name: string; data: string },
) => ({ ...r, projectId: ownerId });

/** Appends an event and returns it with its id; prunes old events now and then. */
export async function appendEvent(
  q: Queries,
  e: { projectId: number; name: string; data: string; createdAt: string },
): Promise<EventRow> {
  const { projectId, ...rest } = e;
  return asEvent(await log.append(q, { ownerId: projectId, ...rest }));
}

/** The events of a project after `afterId`, oldest first (at most `limit`). */
export async function eventsAfter(
  q: Queries,
  projectId: number,
  afterId: number,
  limit: number,
): Promise<EventRow[]> {
  return (await log.after(q, projectId, afterId, limit)).map(asEvent);
}
