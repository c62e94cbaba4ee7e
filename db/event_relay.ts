/**
 * What carries committed stream events between instances on PostgreSQL: a notification per
 * transaction naming the events' ids (the logs hold the events), and the reads that turn the
 * ids back into events.
 */
import { dialect } from "./dialect.ts";
import type { Queries } from "./engine.ts";
import type { EventRow } from "./events.ts";
import type { UserEventRow } from "./user_events.ts";

/** The channel every instance listens on. */
export const EVENTS_CHANNEL = "collab_events";

/** A notification's payload stays well under PostgreSQL's 8000 bytes. */
const MAX_PAYLOAD = 7000;

/** The ids of one transaction's events, as notified. */
export interface EventIds {
  project: number[];
  user: number[];
}

/** The payloads naming `ids`: `p:1,2;u:3`, in as many pieces as the size limit asks. */
export function eventPayloads(ids: EventIds): string[] {
  const payloads: string[] = [];
  let current = "";
  const add = (part: string) => {
    if (current && current.length + part.length + 1 > MAX_PAYLOAD) {
      payloads.push(current);
      current = "";
    }
    current = current ? `${current};${part}` : part;
  };
  for (const id of ids.project) add(`p:${id}`);
  for (const id of ids.user) add(`u:${id}`);
  if (current) payloads.push(current);
  return payloads;
}

/** The ids a payload names (parts it does not know are skipped). */
export function parseEventPayload(payload: string): EventIds {
  const ids: EventIds = { project: [], user: [] };
  for (const part of payload.split(";")) {
    const match = /^([pu]):(\d{1,15})$/.exec(part);
    if (!match) continue;
    (match[1] === "p" ? ids.project : ids.user).push(Number(match[2]));
  }
  return ids;
}

/**
 * Sends the notification naming `ids` from inside the transaction that wrote the events:
 * PostgreSQL delivers it at the commit, and not at all on a rollback.
 */
export async function notifyEvents(q: Queries, ids: EventIds): Promise<void> {
  for (const payload of eventPayloads(ids)) {
    await q.get("SELECT pg_notify(?, ?) AS sent", [EVENTS_CHANNEL, payload]);
  }
}

type RawEvent = { id: number; ownerId: number; name: string; data: string };

/** The project events with these ids, oldest first. */
export async function projectEventsByIds(q: Queries, ids: number[]): Promise<EventRow[]> {
  if (ids.length === 0) return [];
  const rows = await q.all<RawEvent>(
    `SELECT id, project_id AS "ownerId", name, data FROM project_events
     WHERE id IN (${dialect(q).intsOf("?")}) ORDER BY id`,
    [JSON.stringify(ids)],
  );
  return rows.map(({ ownerId, ...r }) => ({ ...r, projectId: ownerId }));
}

/** The users' own events with these ids, oldest first. */
export async function userEventsByIds(q: Queries, ids: number[]): Promise<UserEventRow[]> {
  if (ids.length === 0) return [];
  const rows = await q.all<RawEvent>(
    `SELECT id, user_id AS "ownerId", name, data FROM user_events
     WHERE id IN (${dialect(q).intsOf("?")}) ORDER BY id`,
    [JSON.stringify(ids)],
  );
  return rows.map(({ ownerId, ...r }) => ({ ...r, userId: ownerId }));
}

/** The newest id of one log (0 when empty): where a stream opened now starts. */
export async function newestEventId(q: Queries, log: "project" | "user"): Promise<number> {
  const table = log === "project" ? "project_events" : "user_events";
  const row = await q.get<{ id: number }>(`SELECT coalesce(max(id), 0) AS id FROM ${table}`);
  return Number(row?.id ?? 0);
}

/** The newest ids of both logs (0 when empty): where a catch-up starts from. */
export async function newestEventIds(q: Queries): Promise<{ project: number; user: number }> {
  const row = await q.get<{ project: number; user: number }>(
    `SELECT (SELECT coalesce(max(id), 0) FROM project_events) AS project,
            (SELECT coalesce(max(id), 0) FROM user_events) AS "user"`,
  );
  return { project: Number(row?.project ?? 0), user: Number(row?.user ?? 0) };
}

/** Every log's events after the given ids, oldest first (at most `limit` of each). */
export async function eventsSince(
  q: Queries,
  after: { project: number; user: number },
  limit: number,
): Promise<{ project: EventRow[]; user: UserEventRow[] }> {
  const project = await q.all<RawEvent>(
    `SELECT id, project_id AS "ownerId", name, data FROM project_events WHERE id > ?
     ORDER BY id LIMIT ?`,
    [after.project, limit],
  );
  const user = await q.all<RawEvent>(
    `SELECT id, user_id AS "ownerId", name, data FROM user_events WHERE id > ?
     ORDER BY id LIMIT ?`,
    [after.user, limit],
  );
  return {
    project: project.map(({ ownerId, ...r }) => ({ ...r, projectId: ownerId })),
    user: user.map(({ ownerId, ...r }) => ({ ...r, userId: ownerId })),
  };
}
