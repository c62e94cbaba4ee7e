/** Storage of webhooks and their delivery outbox. */
import { dialect } from "../kernel/dialect.ts";
import type { Queries, SqlValue } from "../kernel/engine.ts";
import { ownerGone } from "../kernel/presence.ts";

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

type RawWebhook = {
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
};

type RawDelivery = {
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
};

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
export async function insertWebhook(
  q: Queries,
  w: Pick<WebhookRow, "projectId" | "url" | "events" | "description" | "secret" | "createdBy"> & {
    createdAt: string;
  },
): Promise<number> {
  return (await q.get<{ id: number }>(
    `INSERT INTO webhooks (project_id, url, events, description, secret, created_by, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    [
      w.projectId,
      w.url,
      JSON.stringify(w.events),
      w.description,
      w.secret,
      w.createdBy,
      w.createdAt,
      w.createdAt,
    ],
  ))!.id;
}

/** A webhook of a project, or null. */
export async function findWebhook(
  q: Queries,
  projectId: number,
  id: number,
): Promise<WebhookRow | null> {
  const r = await q.get<RawWebhook>(
    `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = ? AND project_id = ?`,
    [id, projectId],
  );
  return r ? toWebhook(r) : null;
}

/** A webhook by id alone (the sender's view), or null. */
export async function findWebhookById(q: Queries, id: number): Promise<WebhookRow | null> {
  const r = await q.get<RawWebhook>(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = ?`, [id]);
  return r ? toWebhook(r) : null;
}

/** A project's webhooks, oldest first. */
export async function listWebhooks(q: Queries, projectId: number): Promise<WebhookRow[]> {
  return (await q.all<RawWebhook>(
    `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE project_id = ? ORDER BY created_at, id`,
    [projectId],
  )).map(toWebhook);
}

/** Changes a webhook's url, events or active flag; returns it. */
export async function updateWebhook(
  q: Queries,
  id: number,
  change: {
    url?: string;
    events?: string[];
    description?: string;
    active?: boolean;
    failingSince?: string | null;
    updatedAt: string;
  },
): Promise<WebhookRow> {
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
    (await q.get<RawWebhook>(
      `UPDATE webhooks SET ${sets.join(", ")} WHERE id = ? RETURNING ${WEBHOOK_COLUMNS}`,
      [...values, id],
    ))!,
  );
}

/** Deletes a webhook and (by cascade) its deliveries. */
export async function deleteWebhook(q: Queries, id: number): Promise<void> {
  await q.run("DELETE FROM webhooks WHERE id = ?", [id]);
}

/**
 * Puts a just-appended stream event in the outbox when an active webhook of its project is
 * subscribed to it; returns 1 when it did, else 0. One row whatever the number of webhooks:
 * the sender fans it out (`fanOutDeliveries`).
 */
export async function enqueueDeliveries(
  q: Queries,
  e: { projectId: number; eventId: number; event: string; body: string; at: string },
): Promise<number> {
  const events = dialect(q).elementsOf("w.events", "j");
  const result = await q.run(
    `INSERT INTO webhook_outbox (project_id, event_id, event, body, created_at)
     SELECT ?1, ?2, ?3, ?4, ?5 WHERE EXISTS (SELECT 1 FROM webhooks w
       WHERE w.project_id = ?1 AND w.active = 1
         AND EXISTS (SELECT 1 FROM ${events} WHERE j.value IN (?3, '*')))`,
    [e.projectId, e.eventId, e.event, e.body, e.at],
  );
  return result.changes;
}

/**
 * Whether the outbox holds events not yet fanned out, of one project or of any (a read; no
 * write transaction).
 */
export async function hasQueuedEvents(q: Queries, projectId?: number): Promise<boolean> {
  return projectId === undefined
    ? await q.get("SELECT 1 FROM webhook_outbox LIMIT 1") !== undefined
    : await q.get("SELECT 1 FROM webhook_outbox WHERE project_id = ? LIMIT 1", [
      projectId,
    ]) !== undefined;
}

/** The newest outbox event's id, or 0 when the outbox is empty. */
export async function lastQueuedEvent(q: Queries): Promise<number> {
  return (await q.get<{ id: number }>(
    "SELECT coalesce(max(id), 0) AS id FROM webhook_outbox",
  ))!.id;
}

/**
 * The fan-out on PostgreSQL: takes the outbox rows that `choose` (a fixed condition, order,
 * limit and lock) selects, deleting them and inserting their deliveries in one statement;
 * returns how many it took. SQLite's two statements (insert, then delete up to the last id or
 * the project) would be wrong here: under READ COMMITTED each statement sees the commits made
 * before it started, so a row committed between the two (with a smaller id than the last, as
 * ids are not taken in commit order) would be deleted without its deliveries. The rows are
 * locked as they are chosen, so two fan-outs at once (two instances) never take the same one.
 */
async function takeOutbox(q: Queries, choose: string, params: SqlValue[]): Promise<number> {
  return (await q.get<{ n: number }>(
    `WITH chosen AS (SELECT id FROM webhook_outbox WHERE ${choose}),
     taken AS (DELETE FROM webhook_outbox o USING chosen WHERE o.id = chosen.id
       RETURNING o.id, o.project_id, o.event_id, o.event, o.body, o.created_at),
     fanned AS (
       INSERT INTO webhook_deliveries
         (webhook_id, event_id, event, body, next_attempt_at, created_at)
       SELECT w.id, o.event_id, o.event, o.body, o.created_at, o.created_at
       FROM taken o JOIN webhooks w ON w.project_id = o.project_id
       WHERE w.active = 1 AND w.created_at <= o.created_at
         AND EXISTS (SELECT 1 FROM json_array_elements_text(w.events::json) AS j(value)
           WHERE j.value IN (o.event, '*'))
       ORDER BY o.id, w.id)
     SELECT count(*) AS n FROM taken`,
    params,
  ))!.n;
}

/**
 * Turns one project's outbox events into deliveries (as `fanOutDeliveries` does, restricted
 * to the project: its webhooks still get its events in order). Call inside a transaction;
 * returns how many events it took.
 */
export async function fanOutProjectDeliveries(q: Queries, projectId: number): Promise<number> {
  // Waits for another fan-out holding some of these rows, then leaves those it took.
  if (q.kind === "postgres") {
    return await takeOutbox(q, "project_id = ? ORDER BY id FOR UPDATE", [projectId]);
  }
  await q.run(
    `INSERT INTO webhook_deliveries (webhook_id, event_id, event, body, next_attempt_at, created_at)
     SELECT w.id, o.event_id, o.event, o.body, o.created_at, o.created_at
     FROM webhook_outbox o JOIN webhooks w ON w.project_id = o.project_id
     WHERE o.project_id = ?1 AND w.active = 1 AND w.created_at <= o.created_at
       AND EXISTS (SELECT 1 FROM json_each(w.events) j WHERE j.value IN (o.event, '*'))
     ORDER BY o.id, w.id`,
    [projectId],
  );
  return (await q.run("DELETE FROM webhook_outbox WHERE project_id = ?", [projectId])).changes;
}

/**
 * Turns up to `limit` of the oldest outbox events (up to id `upTo`) into deliveries: one per webhook of the
 * event's project that is active, subscribed to the event and was created no later than it,
 * due at once, in event order; the events leave the outbox. Call inside a transaction;
 * returns how many events it took.
 */
export async function fanOutDeliveries(
  q: Queries,
  limit: number,
  upTo = Number.MAX_SAFE_INTEGER,
): Promise<number> {
  // Rows another fan-out holds (another instance's) are its own to take.
  if (q.kind === "postgres") {
    return await takeOutbox(
      q,
      "id <= ? ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED",
      [upTo, limit],
    );
  }
  const last = (await q.get<{ id: number | null; n: number }>(
    `SELECT max(id) AS id, count(*) AS n
     FROM (SELECT id FROM webhook_outbox WHERE id <= ? ORDER BY id LIMIT ?)`,
    [upTo, limit],
  ))!;
  if (last.id === null) return 0;
  await q.run(
    `INSERT INTO webhook_deliveries (webhook_id, event_id, event, body, next_attempt_at, created_at)
     SELECT w.id, o.event_id, o.event, o.body, o.created_at, o.created_at
     FROM webhook_outbox o JOIN webhooks w ON w.project_id = o.project_id
     WHERE o.id <= ?1 AND w.active = 1 AND w.created_at <= o.created_at
       AND EXISTS (SELECT 1 FROM json_each(w.events) j WHERE j.value IN (o.event, '*'))
     ORDER BY o.id, w.id`,
    [last.id],
  );
  await q.run("DELETE FROM webhook_outbox WHERE id <= ?", [last.id]);
  return last.n;
}

/** Queues a new delivery copying an earlier one's event (a redelivery); returns it. */
export async function insertRedelivery(
  q: Queries,
  of: DeliveryRow,
  at: string,
): Promise<DeliveryRow> {
  return toDelivery(
    (await q.get<RawDelivery>(
      `INSERT INTO webhook_deliveries (webhook_id, event_id, event, body, next_attempt_at, created_at)
     VALUES (?, ?, ?, ?, ?, ?) RETURNING ${DELIVERY_COLUMNS}`,
      [of.webhookId, of.eventId, of.event, of.body, at, at],
    ))!,
  );
}

/** A delivery of a webhook, or null. */
export async function findDelivery(
  q: Queries,
  webhookId: number,
  id: number,
): Promise<DeliveryRow | null> {
  const r = await q.get<RawDelivery>(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE id = ? AND webhook_id = ?`,
    [id, webhookId],
  );
  return r ? toDelivery(r) : null;
}

/** A page of a webhook's deliveries, newest first, and the total. */
export async function listDeliveries(
  q: Queries,
  webhookId: number,
  limit: number,
  offset: number,
): Promise<{ items: DeliveryRow[]; total: number }> {
  const items = (await q.all<RawDelivery>(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = ?
     ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
    [webhookId, limit, offset],
  )).map(toDelivery);
  const total = (await q.get<{ n: number }>(
    "SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ?",
    [webhookId],
  ))!.n;
  return { items, total };
}

/**
 * The active webhooks (of live projects) with a delivery due at `now` that is not in
 * `exclude` (attempts in flight or not yet recorded), with that oldest due time, oldest
 * first. Each probe walks the due index of one webhook, past at most its excluded rows.
 */
export async function webhooksWithDueDeliveries(
  q: Queries,
  now: string,
  exclude: Iterable<number>,
  owner?: number | null,
): Promise<Array<{ webhookId: number; due: string }>> {
  // Driven by the (few) active webhooks, not by the projects; filtered and sorted here so
  // that each webhook's probe runs once. A pending delivery without a time is never due (nor
  // first: the engines sort NULL at opposite ends).
  const rows = await q.all<{ id: number; due: string | null }>(
    `SELECT w.id AS id, (SELECT d.next_attempt_at FROM webhook_deliveries d
       WHERE d.webhook_id = w.id AND d.status = 'pending' AND d.next_attempt_at IS NOT NULL
         AND d.id NOT IN (${dialect(q).intsOf("?")})
       ORDER BY d.next_attempt_at, d.id LIMIT 1) AS due
     FROM webhooks w
     WHERE w.active = 1
       AND EXISTS (SELECT 1 FROM projects p WHERE p.id = w.project_id AND p.deleted_at IS NULL)`,
    [JSON.stringify([...exclude])],
  );
  const due = rows.filter((r): r is { id: number; due: string } => r.due !== null && r.due <= now);
  if (q.kind === "postgres" && owner !== undefined) {
    // Claims taken over at once: those of an instance that is gone, and this one's own left
    // over from a batch it dropped (neither due until their lease runs out).
    const listed = new Set(due.map((r) => r.id));
    const taken = await q.all<{ id: number }>(
      `SELECT DISTINCT d.webhook_id AS id FROM webhook_deliveries d
       JOIN webhooks w ON w.id = d.webhook_id
       WHERE d.status = 'pending' AND d.claimed_by IS NOT NULL AND d.next_attempt_at > ?
         AND d.id NOT IN (${dialect(q).intsOf("?")})
         AND (d.claimed_by = ? OR ${ownerGone("d.claimed_by")})
         AND w.active = 1
         AND EXISTS (SELECT 1 FROM projects p WHERE p.id = w.project_id AND p.deleted_at IS NULL)`,
      [now, JSON.stringify([...exclude]), owner ?? 0],
    );
    for (const { id } of taken) if (!listed.has(id)) due.push({ id, due: now });
  }
  return due
    .sort((x, y) => x.due < y.due ? -1 : x.due > y.due ? 1 : x.id - y.id)
    .map((r) => ({ webhookId: r.id, due: r.due }));
}

/** Up to `limit` deliveries of one webhook due at `now` and not in `exclude`, oldest first. */
export async function dueDeliveries(
  q: Queries,
  webhookId: number,
  options: { now: string; exclude: Iterable<number>; limit: number },
): Promise<DeliveryRow[]> {
  return (await q.all<RawDelivery>(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries
     WHERE webhook_id = ?1 AND status = 'pending' AND next_attempt_at <= ?2
       AND id NOT IN (${dialect(q).intsOf("?3")})
     ORDER BY next_attempt_at, id LIMIT ?4`,
    [webhookId, options.now, JSON.stringify([...options.exclude]), options.limit],
  )).map(toDelivery);
}

/** Which of `ids` are active webhooks of live (not deleted) projects. */
export async function liveWebhookIds(q: Queries, ids: Iterable<number>): Promise<Set<number>> {
  const rows = await q.all<{ id: number }>(
    `SELECT w.id AS id FROM webhooks w
     WHERE w.id IN (${dialect(q).intsOf("?")}) AND w.active = 1
       AND EXISTS (SELECT 1 FROM projects p WHERE p.id = w.project_id AND p.deleted_at IS NULL)`,
    [JSON.stringify([...ids])],
  );
  return new Set(rows.map((r) => r.id));
}

/**
 * Claims due deliveries of one webhook for an attempt (`dueDeliveries`' choice), call inside a
 * transaction. On SQLite one instance owns the database and it is `dueDeliveries` itself (the
 * sender leaves its deliveries in flight out). On PostgreSQL several instances may pick at
 * once, and the claim is per webhook: its row is locked first (`SKIP LOCKED`: another
 * instance claiming for it now gets nothing), then, unless another instance holds a claim on
 * its first attempts (a pending delivery never attempted whose time is ahead: a lease, as
 * fresh deliveries are due when made; those in `exclude` are the caller's own), the chosen
 * deliveries get `next_attempt_at = leaseUntil` and `claimed_by = owner` (the instance's
 * number, db/kernel/presence.ts). No other instance finds them due until the outcome is recorded, the
 * owner is gone (it died mid-attempt: another sends them again at once, at least once) or the
 * lease runs out (it stalled), nor starts the webhook's next ones meanwhile, so they keep their
 * order as on one instance. The owner may claim again its own claims not in `exclude` (a batch
 * it dropped). The rows answered keep the time they were due (the sender's order).
 */
export async function claimDueDeliveries(
  tx: Queries,
  webhookId: number,
  options: {
    now: string;
    exclude: Iterable<number>;
    limit: number;
    leaseUntil: string;
    owner: number | null;
  },
): Promise<DeliveryRow[]> {
  if (tx.kind === "sqlite") return await dueDeliveries(tx, webhookId, options);
  // A statement of its own: the next one reads what was committed once the lock was had.
  const hook = await tx.get("SELECT id FROM webhooks WHERE id = ? FOR UPDATE SKIP LOCKED", [
    webhookId,
  ]);
  if (!hook) return [];
  const exclude = JSON.stringify([...options.exclude]);
  const rows = await tx.all<RawDelivery>(
    `WITH chosen AS (
       SELECT d.id, d.next_attempt_at AS due FROM webhook_deliveries d
       WHERE d.webhook_id = ?1 AND d.status = 'pending'
         AND (d.next_attempt_at <= ?2 OR d.claimed_by = ?6::bigint OR ${ownerGone("d.claimed_by")})
         AND d.id NOT IN (${dialect(tx).intsOf("?3")})
         AND NOT EXISTS (SELECT 1 FROM webhook_deliveries l
           WHERE l.webhook_id = ?1 AND l.status = 'pending' AND l.next_attempt_at > ?2
             AND l.id NOT IN (${dialect(tx).intsOf("?3")})
             AND (l.claimed_by IS NULL AND l.attempts = 0
               OR l.claimed_by <> ?6::bigint AND NOT ${ownerGone("l.claimed_by")}))
       ORDER BY d.next_attempt_at, d.id LIMIT ?4 FOR UPDATE OF d SKIP LOCKED),
     claimed AS (
       UPDATE webhook_deliveries w SET next_attempt_at = ?5, claimed_by = nullif(?6::bigint, 0)
       FROM chosen WHERE w.id = chosen.id
       RETURNING w.id, w.webhook_id, w.event_id, w.event, w.body, w.status, w.attempts,
         w.last_status_code, w.last_error, chosen.due AS next_attempt_at, w.created_at,
         w.delivered_at)
     SELECT ${DELIVERY_COLUMNS} FROM claimed ORDER BY next_attempt_at, id`,
    [webhookId, options.now, exclude, options.limit, options.leaseUntil, options.owner ?? 0],
  );
  return rows.map(toDelivery);
}

/** Records an attempt's outcome (no row when the delivery was deleted meanwhile). */
export async function finishAttempt(
  q: Queries,
  id: number,
  outcome: {
    attempts: number;
    status: DeliveryStatus;
    statusCode: number | null;
    error: string | null;
    nextAttemptAt: string | null;
    deliveredAt: string | null;
  },
): Promise<void> {
  await q.run(
    `UPDATE webhook_deliveries SET attempts = ?, status = ?, last_status_code = ?,
       last_error = ?, next_attempt_at = ?, delivered_at = ?, claimed_by = NULL
     WHERE id = ? AND status = 'pending'`,
    [
      outcome.attempts,
      outcome.status,
      outcome.statusCode,
      outcome.error,
      outcome.nextAttemptAt,
      outcome.deliveredAt,
      id,
    ],
  );
}

/** Removes finished deliveries created before `before`; returns how many. */
export async function pruneDeliveries(q: Queries, before: string): Promise<number> {
  return (await q.run(
    `DELETE FROM webhook_deliveries WHERE created_at < ? AND status IN ('succeeded', 'failed')`,
    [before],
  )).changes;
}

/**
 * Marks a webhook as failing since `at` (kept when already failing) and, when it has been
 * failing since `disableBefore` or earlier and is still active, sets it inactive. Returns
 * the webhook when this call disabled it, else null. Call inside a transaction.
 */
export async function noteWebhookFailure(
  q: Queries,
  id: number,
  options: { at: string; disableBefore: string },
): Promise<WebhookRow | null> {
  await q.run(
    "UPDATE webhooks SET failing_since = coalesce(failing_since, ?) WHERE id = ?",
    [options.at, id],
  );
  const r = await q.get<RawWebhook>(
    `UPDATE webhooks SET active = 0, updated_at = ?
     WHERE id = ? AND active = 1 AND failing_since <= ? RETURNING ${WEBHOOK_COLUMNS}`,
    [options.at, id, options.disableBefore],
  );
  return r ? toWebhook(r) : null;
}

/** Clears a webhook's failing state after a success. */
export async function noteWebhookSuccess(q: Queries, id: number): Promise<void> {
  await q.run(
    "UPDATE webhooks SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL",
    [id],
  );
}
