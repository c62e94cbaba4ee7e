/** The per-user event log behind the caller's own event stream. */
import { eventLog } from "./event_log.ts";
import type { Queries } from "../kernel/engine.ts";

/** A stored event of one user's stream. */
export interface UserEventRow {
  id: number;
  userId: number;
  name: string;
  /** The JSON data, as stored. */
  data: string;
}

/** How many events each user keeps for replay (as many as a project keeps). */
export const USER_EVENTS_KEPT = 5000;

const log = eventLog({ table: "user_events", owner: "user_id" }, USER_EVENTS_KEPT);

const asUserEvent = (
  { ownerId, ...r }: { ownerId: number; id: number; name: string; data: string },
) => ({ ...r, userId: ownerId });

/** Appends an event and returns it with its id; prunes old events now and then. */
export async function appendUserEvent(
  q: Queries,
  e: { userId: number; name: string; data: string; createdAt: string },
): Promise<UserEventRow> {
  const { userId, ...rest } = e;
  return asUserEvent(await log.append(q, { ownerId: userId, ...rest }));
}

/** The events of a user after `afterId`, oldest first (at most `limit`). */
export async function userEventsAfter(
  q: Queries,
  userId: number,
  afterId: number,
  limit: number,
): Promise<UserEventRow[]> {
  return (await log.after(q, userId, afterId, limit)).map(asUserEvent);
}
