/** Storage of webhooks and their delivery outbox. */
import type { StatementSync } from "node:sqlite";
import type { Database } from "./sqlite.ts";

/**
 * The statements the request path (queuing) and the sender loop run for every event and
 * every attempt, prepared once per connection: compiling them each time cost more than
 * running them.
 */
const prepared = new WeakMap<Database, Map<string, StatementSync>>();

function statement(db: Database, sql: string): StatementSync {
  let cache = prepared.get(db);
  if (!cache) prepared.set(db, cache = new Map());
  let stmt = cache.get(sql);
  if (!stmt) cache.set(sql, stmt = db.sql.prepare(sql));
  return stmt;
}

/** A stored webhook (with its secret: only domain code that signs reads it). */
export interface WebhookRow {
  id: number;
  projectId: number;
  url: string;
  events: string[];
  description: string;
  secret: string;
  active: boolean;
  createdBy: number | null;
  createdAt: string;
  updatedAt: string;
  failingSince: string | null;
}

/** A delivery's state. */
export type DeliveryStatus = "pending" | "succeeded" | "failed";

/** A stored delivery. */
export interface DeliveryRow {
  id: number;
  webhookId: number;
  eventId: number;
  event: string;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
  deliveredAt: string | null;
}

interface RawWebhook {
  id: number;
  project_id: number;
  url: string;
  events: string;
  description: string;
  secret: string;
  active: number;
  created_by: number | null;
  created_at: string;
  updated_at: string;
  failing_since: string | null;
}

interface RawDelivery {
  id: number;
  webhook_id: number;
  event_id: number;
  event: string;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
}

const WEBHOOK_COLUMNS =
  "id, project_id, url, events, description, secret, active, created_by, created_at, updated_at, failing_since";
const DELIVERY_COLUMNS =
  "id, webhook_id, event_id, event, body, status, attempts, last_status_code, last_error, " +
  "next_attempt_at, created_at, delivered_at";

function toWebhook(r: RawWebhook): WebhookRow {
  return {
    id: r.id,
    projectId: r.project_id,
    url: r.url,
    events: JSON.parse(r.events) as string[],
    description: r.description,
    secret: r.secret,
    active: r.active === 1,
    createdBy: r.created_by,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    failingSince: r.failing_since,
  };
}

function toDelivery(r: RawDelivery): DeliveryRow {
  return {
    id: r.id,
    webhookId: r.webhook_id,
    eventId: r.event_id,
    event: r.event,
    body: r.body,
    status: r.status,
    attempts: r.attempts,
    lastStatusCode: r.last_status_code,
    lastError: r.last_error,
    nextAttemptAt: r.next_attempt_at,
    createdAt: r.created_at,
    deliveredAt: r.delivered_at,
  };
}

/** Inserts a webhook and returns its id. */
export function insertWebhook(
  db: Database,
  w: Pick<WebhookRow, "projectId" | "url" | "events" | "description" | "secret" | "createdBy"> & {
    createdAt: string;
  },
): number {
  return (db.sql.prepare(
    `INSERT INTO webhooks (project_id, url, events, description, secret, created_by, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  ).get(
    w.projectId,
    w.url,
    JSON.stringify(w.events),
    w.description,
    w.secret,
    w.createdBy,
    w.createdAt,
    w.createdAt,
  ) as { id: number }).id;
}

/** A webhook of a project, or null. */
export function findWebhook(db: Database, projectId: number, id: number): WebhookRow | null {
  const r = db.sql.prepare(
    `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = ? AND project_id = ?`,
  ).get(id, projectId) as RawWebhook | undefined;
  return r ? toWebhook(r) : null;
}

/** A webhook by id alone (the sender's view), or null. */
export function findWebhookById(db: Database, id: number): WebhookRow | null {
  const r = statement(db, `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = ?`).get(id) as
    | RawWebhook
    | undefined;
  return r ? toWebhook(r) : null;
}

/** A project's webhooks, oldest first. */
export function listWebhooks(db: Database, projectId: number): WebhookRow[] {
  return (db.sql.prepare(
    `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE project_id = ? ORDER BY created_at, id`,
  ).all(projectId) as unknown as RawWebhook[]).map(toWebhook);
}

/** Changes a webhook's url, events or active flag; returns it. */
export function updateWebhook(
  db: Database,
  id: number,
  change: {
    url?: string;
    events?: string[];
    description?: string;
    active?: boolean;
    failingSince?: string | null;
    updatedAt: string;
  },
): WebhookRow {
  const sets: string[] = ["updated_at = ?"];
  const values: Array<string | number | null> = [change.updatedAt];
  if (change.url !== undefined) sets.push("url = ?"), values.push(change.url);
  if (change.events !== undefined) {
    sets.push("events = ?"), values.push(JSON.stringify(change.events));
  }
  if (change.description !== undefined) {
    sets.push("description = ?"), values.push(change.description);
  }
  if (change.active !== undefined) sets.push("active = ?"), values.push(change.active ? 1 : 0);
  if (change.failingSince !== undefined) {
    sets.push("failing_since = ?"), values.push(change.failingSince);
  }
  return toWebhook(
    db.sql.prepare(
      `UPDATE webhooks SET ${sets.join(", ")} WHERE id = ? RETURNING ${WEBHOOK_COLUMNS}`,
    ).get(...values, id) as unknown as RawWebhook,
  );
}

/** Deletes a webhook and (by cascade) its deliveries. */
export function deleteWebhook(db: Database, id: number): void {
  db.sql.prepare("DELETE FROM webhooks WHERE id = ?").run(id);
}

/**
 * Puts a just-appended stream event in the outbox when an active webhook of its project is
 * subscribed to it; returns 1 when it did, else 0. One row whatever the number of webhooks:
 * the sender fans it out (`fanOutDeliveries`).
 */
export function enqueueDeliveries(
  db: Database,
  e: { projectId: number; eventId: number; event: string; body: string; at: string },
): number {
  const result = statement(
    db,
    `INSERT INTO webhook_outbox (project_id, event_id, event, body, created_at)
     SELECT ?1, ?2, ?3, ?4, ?5 WHERE EXISTS (SELECT 1 FROM webhooks w
       WHERE w.project_id = ?1 AND w.active = 1
         AND EXISTS (SELECT 1 FROM json_each(w.events) j WHERE j.value IN (?3, '*')))`,
  ).run(e.projectId, e.eventId, e.event, e.body, e.at);
  return Number(result.changes);
}

/**
 * Whether the outbox holds events not yet fanned out, of one project or of any (a read; no
 * write transaction).
 */
export function hasQueuedEvents(db: Database, projectId?: number): boolean {
  return projectId === undefined
    ? statement(db, "SELECT 1 FROM webhook_outbox LIMIT 1").get() !== undefined
    : statement(db, "SELECT 1 FROM webhook_outbox WHERE project_id = ? LIMIT 1").get(projectId) !==
      undefined;
}

/** The newest outbox event's id, or 0 when the outbox is empty. */
export function lastQueuedEvent(db: Database): number {
  return (statement(db, "SELECT coalesce(max(id), 0) AS id FROM webhook_outbox").get() as {
    id: number;
  }).id;
}

/**
 * Turns one project's outbox events into deliveries (as `fanOutDeliveries` does, restricted
 * to the project: its webhooks still get its events in order). Call inside a transaction;
 * returns how many events it took.
 */
export function fanOutProjectDeliveries(db: Database, projectId: number): number {
  statement(
    db,
    `INSERT INTO webhook_deliveries (webhook_id, event_id, event, body, next_attempt_at, created_at)
     SELECT w.id, o.event_id, o.event, o.body, o.created_at, o.created_at
     FROM webhook_outbox o JOIN webhooks w ON w.project_id = o.project_id
     WHERE o.project_id = ?1 AND w.active = 1 AND w.created_at <= o.created_at
       AND EXISTS (SELECT 1 FROM json_each(w.events) j WHERE j.value IN (o.event, '*'))
     ORDER BY o.id, w.id`,
  ).run(projectId);
  return Number(
    statement(db, "DELETE FROM webhook_outbox WHERE project_id = ?").run(projectId).changes,
  );
}

/**
 * Turns up to `limit` of the oldest outbox events (up to id `upTo`) into deliveries: one per webhook of the
 * event's project that is active, subscribed to the event and was created no later than it,
 * due at once, in event order; the events leave the outbox. Call inside a transaction;
 * returns how many events it took.
 */
export function fanOutDeliveries(
  db: Database,
  limit: number,
  upTo = Number.MAX_SAFE_INTEGER,
): number {
  const last = statement(
    db,
    `SELECT max(id) AS id, count(*) AS n
     FROM (SELECT id FROM webhook_outbox WHERE id <= ? ORDER BY id LIMIT ?)`,
  ).get(upTo, limit) as { id: number | null; n: number };
  if (last.id === null) return 0;
  statement(
    db,
    `INSERT INTO webhook_deliveries (webhook_id, event_id, event, body, next_attempt_at, created_at)
     SELECT w.id, o.event_id, o.event, o.body, o.created_at, o.created_at
     FROM webhook_outbox o JOIN webhooks w ON w.project_id = o.project_id
     WHERE o.id <= ?1 AND w.active = 1 AND w.created_at <= o.created_at
       AND EXISTS (SELECT 1 FROM json_each(w.events) j WHERE j.value IN (o.event, '*'))
     ORDER BY o.id, w.id`,
  ).run(last.id);
  statement(db, "DELETE FROM webhook_outbox WHERE id <= ?").run(last.id);
  return last.n;
}

/** Queues a new delivery copying an earlier one's event (a redelivery); returns it. */
export function insertRedelivery(db: Database, of: DeliveryRow, at: string): DeliveryRow {
  return toDelivery(
    db.sql.prepare(
      `INSERT INTO webhook_deliveries (webhook_id, event_id, event, body, next_attempt_at, created_at)
     VALUES (?, ?, ?, ?, ?, ?) RETURNING ${DELIVERY_COLUMNS}`,
    ).get(of.webhookId, of.eventId, of.event, of.body, at, at) as unknown as RawDelivery,
  );
}

/** A delivery of a webhook, or null. */
export function findDelivery(db: Database, webhookId: number, id: number): DeliveryRow | null {
  const r = db.sql.prepare(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE id = ? AND webhook_id = ?`,
  ).get(id, webhookId) as RawDelivery | undefined;
  return r ? toDelivery(r) : null;
}

/** A page of a webhook's deliveries, newest first, and the total. */
export function listDeliveries(
  db: Database,
  webhookId: number,
  limit: number,
  offset: number,
): { items: DeliveryRow[]; total: number } {
  const items = (db.sql.prepare(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = ?
     ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
  ).all(webhookId, limit, offset) as unknown as RawDelivery[]).map(toDelivery);
  const total = (db.sql.prepare(
    "SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ?",
  ).get(webhookId) as { n: number }).n;
  return { items, total };
}

/**
 * The active webhooks (of live projects) with a delivery due at `now` that is not in
 * `exclude` (attempts in flight or not yet recorded), with that oldest due time, oldest
 * first. Each probe walks the due index of one webhook, past at most its excluded rows.
 */
export function webhooksWithDueDeliveries(
  db: Database,
  now: string,
  exclude: Iterable<number>,
): Array<{ webhookId: number; due: string }> {
  // Driven by the (few) active webhooks, not by the projects; filtered and sorted here so
  // that each webhook's probe runs once.
  const rows = statement(
    db,
    `SELECT w.id AS id, (SELECT d.next_attempt_at FROM webhook_deliveries d
       WHERE d.webhook_id = w.id AND d.status = 'pending'
         AND d.id NOT IN (SELECT value FROM json_each(?))
       ORDER BY d.next_attempt_at, d.id LIMIT 1) AS due
     FROM webhooks w
     WHERE w.active = 1
       AND EXISTS (SELECT 1 FROM projects p WHERE p.id = w.project_id AND p.deleted_at IS NULL)`,
  ).all(JSON.stringify([...exclude])) as Array<{ id: number; due: string | null }>;
  return rows
    .filter((r): r is { id: number; due: string } => r.due !== null && r.due <= now)
    .sort((x, y) => x.due < y.due ? -1 : x.due > y.due ? 1 : x.id - y.id)
    .map((r) => ({ webhookId: r.id, due: r.due }));
}

/** Up to `limit` deliveries of one webhook due at `now` and not in `exclude`, oldest first. */
export function dueDeliveries(
  db: Database,
  webhookId: number,
  options: { now: string; exclude: Iterable<number>; limit: number },
): DeliveryRow[] {
  return (statement(
    db,
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries
     WHERE webhook_id = ?1 AND status = 'pending' AND next_attempt_at <= ?2
       AND id NOT IN (SELECT value FROM json_each(?3))
     ORDER BY next_attempt_at, id LIMIT ?4`,
  ).all(
    webhookId,
    options.now,
    JSON.stringify([...options.exclude]),
    options.limit,
  ) as unknown as RawDelivery[]).map(toDelivery);
}

/** Records an attempt's outcome (no row when the delivery was deleted meanwhile). */
export function finishAttempt(
  db: Database,
  id: number,
  outcome: {
    attempts: number;
    status: DeliveryStatus;
    statusCode: number | null;
    error: string | null;
    nextAttemptAt: string | null;
    deliveredAt: string | null;
  },
): void {
  statement(
    db,
    `UPDATE webhook_deliveries SET attempts = ?, status = ?, last_status_code = ?,
       last_error = ?, next_attempt_at = ?, delivered_at = ?
     WHERE id = ? AND status = 'pending'`,
  ).run(
    outcome.attempts,
    outcome.status,
    outcome.statusCode,
    outcome.error,
    outcome.nextAttemptAt,
    outcome.deliveredAt,
    id,
  );
}

/** Removes finished deliveries created before `before`; returns how many. */
export function pruneDeliveries(db: Database, before: string): number {
  return Number(
    db.sql.prepare(
      `DELETE FROM webhook_deliveries WHERE created_at < ? AND status IN ('succeeded', 'failed')`,
    ).run(before).changes,
  );
}

/**
 * Marks a webhook as failing since `at` (kept when already failing) and, when it has been
 * failing since `disableBefore` or earlier and is still active, sets it inactive. Returns
 * the webhook when this call disabled it, else null.
 */
export function noteWebhookFailure(
  db: Database,
  id: number,
  options: { at: string; disableBefore: string },
): WebhookRow | null {
  statement(
    db,
    "UPDATE webhooks SET failing_since = coalesce(failing_since, ?) WHERE id = ?",
  ).run(options.at, id);
  const r = statement(
    db,
    `UPDATE webhooks SET active = 0, updated_at = ?
     WHERE id = ? AND active = 1 AND failing_since <= ? RETURNING ${WEBHOOK_COLUMNS}`,
  ).get(options.at, id, options.disableBefore) as RawWebhook | undefined;
  return r ? toWebhook(r) : null;
}

/** Clears a webhook's failing state after a success. */
export function noteWebhookSuccess(db: Database, id: number): void {
  statement(
    db,
    "UPDATE webhooks SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL",
  ).run(id);
}
