/** The per-project event log behind the event stream. */
import type { Database } from "./sqlite.ts";

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

/** Appends an event and returns it with its id; prunes old events now and then. */
export function appendEvent(
  db: Database,
  e: { projectId: number; name: string; data: string; createdAt: string },
): EventRow {
  const { id } = db.sql.prepare(
    "INSERT INTO project_events (project_id, name, data, created_at) VALUES (?, ?, ?, ?) RETURNING id",
  ).get(e.projectId, e.name, e.data, e.createdAt) as { id: number };
  if (id % 1000 === 0) {
    db.sql.prepare(
      `DELETE FROM project_events WHERE project_id = ? AND id <= (SELECT id FROM project_events
       WHERE project_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`,
    ).run(e.projectId, e.projectId, EVENTS_KEPT);
  }
  return { id, projectId: e.projectId, name: e.name, data: e.data };
}

/** The events of a project after `afterId`, oldest first (at most `limit`). */
export function eventsAfter(
  db: Database,
  projectId: number,
  afterId: number,
  limit: number,
): EventRow[] {
  const rows = db.sql.prepare(
    `SELECT id, name, data FROM project_events WHERE project_id = ? AND id > ?
     ORDER BY id LIMIT ?`,
  ).all(projectId, afterId, limit) as Array<{ id: number; name: string; data: string }>;
  return rows.map((r) => ({ ...r, projectId }));
}
