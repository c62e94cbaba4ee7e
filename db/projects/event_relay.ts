/**
 * What carries committed stream events between instances on PostgreSQL: a notification per
 * transaction naming the events' ids (the logs hold the events), and the reads of the logs
 * past the newest events an instance published.
 */
import type { Queries } from "../kernel/engine.ts";
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

/**
 * The events of the logs asked for (`logs`) after the given ids, oldest first (at most
 * `limit` of each); none of a log not asked for.
 */
export async function eventsSince(
  q: Queries,
  logs: { project: boolean; user: boolean },
  after: { project: number; user: number },
  limit: number,
): Promise<{ project: EventRow[]; user: UserEventRow[] }> {
  const project = logs.project
    ? await q.all<RawEvent>(
      `SELECT id, project_id AS "ownerId", name, data FROM project_events WHERE id > ?
       ORDER BY id LIMIT ?`,
      [after.project, limit],
    )
    : [];
  const user = logs.user
    ? await q.all<RawEvent>(
      `SELECT id, user_id AS "ownerId", name, data FROM user_events WHERE id > ?
       ORDER BY id LIMIT ?`,
      [after.user, limit],
    )
    : [];
  return {
    project: project.map(({ ownerId, ...r }) => ({ ...r, projectId: ownerId })),
    user: user.map(({ ownerId, ...r }) => ({ ...r, userId: ownerId })),
  };
}
