/**
 * The webhook outbox: what a delivery carries, how it is signed, and what an attempt's
 * outcome does to it (the retry schedule, the 3-day rule). An event is queued by `runAction`
 * in the transaction of the change that caused it (one outbox row, however many webhooks);
 * the sender fans it out into a delivery per subscribed webhook (`fanOutQueued`).
 */
import type { Engine, Queries } from "../../db/kernel/engine.ts";
import type { EventRow } from "../../db/projects/events.ts";
import { insertNotifications } from "../../db/projects/notifications.ts";
import { listMembers } from "../../db/projects/projects.ts";
import {
  type DeliveryRow,
  enqueueDeliveries,
  fanOutDeliveries,
  fanOutProjectDeliveries,
  finishAttempt,
  hasQueuedEvents,
  lastQueuedEvent,
  noteWebhookFailure,
  noteWebhookSuccess,
  type WebhookRow,
} from "../../db/integrations/webhooks.ts";
import type { Clock } from "../kernel/clock.ts";

/**
 * The waits before attempts 2 to 8 after a failed attempt: the contract's 1 min, 5 min,
 * 30 min, 2 h, 6 h and 12 h, then 24 h before the eighth and last.
 */
export const RETRY_DELAYS_MS = [
  60_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  6 * 3_600_000,
  12 * 3_600_000,
  24 * 3_600_000,
] as const;

/** Attempts a delivery gets in all before it is `failed`. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** How long every attempt of a webhook may fail before it is set inactive. */
export const DISABLE_AFTER_MS = 3 * 24 * 3_600_000;

/**
 * The JSON body of an event's deliveries: `{id, event, projectId, occurredAt, data}` with
 * the stream event's data as stored (not parsed and written again).
 */
export function deliveryBody(event: EventRow, occurredAt: string): string {
  return `{"id":${event.id},"event":${JSON.stringify(event.name)},"projectId":${event.projectId},` +
    `"occurredAt":${JSON.stringify(occurredAt)},"data":${event.data}}`;
}

/**
 * Queues a just-appended stream event for the webhooks of its project subscribed to it (one
 * outbox row). Call inside the transaction that appended the event; returns 1 when queued.
 */
export function queueDeliveries(
  q: Queries,
  event: EventRow,
  occurredAt: string,
): Promise<number> {
  return enqueueDeliveries(q, {
    projectId: event.projectId,
    eventId: event.id,
    event: event.name,
    body: deliveryBody(event, occurredAt),
    at: occurredAt,
  });
}

/** Outbox events turned into deliveries per transaction by `fanOutAll`. */
export const FAN_OUT_BATCH = 500;
/**
 * The same, per commit of the sender's loop (`fanOutQueued`): small, since the commit is
 * shared with requests that wait for it.
 */
export const FAN_OUT_LOOP_BATCH = 50;

/**
 * Turns every queued outbox event into its deliveries now, in transactions of
 * `FAN_OUT_BATCH` events; returns how many events. For `WebhookSender.runOnce`; the sender's
 * loop uses `fanOutQueued`, the delivery log `fanOutProject`.
 */
export async function fanOutAll(db: Engine): Promise<number> {
  let events = 0;
  while (await hasQueuedEvents(db)) {
    const taken = await db.transaction((tx) => fanOutDeliveries(tx, FAN_OUT_BATCH));
    // None taken though some are queued: on PostgreSQL, another instance's fan-out holds
    // them (and will have turned them into deliveries once it commits).
    if (taken === 0) break;
    events += taken;
  }
  return events;
}

/**
 * Like `fanOutAll`, but in smaller batches (each a transaction sharing the requests' group
 * commit), so that the server's thread is never held for more than one batch.
 */
export async function fanOutQueued(db: Engine, stop: () => boolean): Promise<number> {
  // Only what is queued now: events that keep arriving meanwhile wait for the next wake-up,
  // so that a steady stream of them never keeps the sender from its attempts.
  const upTo = await lastQueuedEvent(db);
  let events = 0;
  // An empty outbox (most wake-ups) costs one read, no write transaction.
  while (upTo > 0 && !stop()) {
    const taken = await db.transaction((tx) => fanOutDeliveries(tx, FAN_OUT_LOOP_BATCH, upTo));
    events += taken;
    if (taken < FAN_OUT_LOOP_BATCH) break;
  }
  return events;
}

/**
 * Turns one project's queued events into deliveries now (one transaction): what the project's
 * delivery log needs, without taking on every other project's backlog.
 */
export async function fanOutProject(db: Engine, projectId: number): Promise<number> {
  if (!(await hasQueuedEvents(db, projectId))) return 0;
  return await db.transaction((tx) => fanOutProjectDeliveries(tx, projectId));
}

const encoder = new TextEncoder();

/** The HMAC-SHA256 key of a secret: its UTF-8 bytes, exactly as it was shown. */
export function signingKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
}

/** The `X-Collab-Signature` value: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. */
export async function signature(
  key: CryptoKey,
  unixSeconds: number,
  body: string,
): Promise<string> {
  const mac = new Uint8Array(
    await crypto.subtle.sign("HMAC", key, encoder.encode(`${unixSeconds}.${body}`)),
  );
  return `t=${unixSeconds},v1=${Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** What one attempt came to. */
export type AttemptOutcome =
  | { kind: "succeeded"; statusCode: number }
  | {
    kind: "failed";
    statusCode: number | null;
    error: string;
    /** No retry: the target was refused (it resolves to an address not allowed). */
    final?: boolean;
  }
  /** The server stopped mid-attempt: nothing is recorded, the delivery stays due. */
  | { kind: "abandoned" };

/**
 * Records an attempt of a delivery as it was read before the attempt (`attempts` not
 * counting it): success ends it and clears the webhook's failing state; a failure schedules the next
 * attempt or, after the last, marks it `failed`, and sets the webhook inactive (notifying
 * the project's owners with `webhook_disabled`) once it has been failing for 3 days.
 * Returns the webhook when this attempt disabled it. Call inside a transaction (`q` its
 * queries): the sender records the attempts that ended together in one.
 */
export async function recordAttempt(
  q: Queries,
  clock: Clock,
  attempt: { delivery: DeliveryRow; webhook: WebhookRow; outcome: AttemptOutcome },
): Promise<WebhookRow | null> {
  const { delivery, webhook, outcome } = attempt;
  if (outcome.kind === "abandoned") return null;
  const now = clock.now();
  const at = now.toISOString();
  const attempts = delivery.attempts + 1;
  if (outcome.kind === "succeeded") {
    await finishAttempt(q, delivery.id, {
      attempts,
      status: "succeeded",
      statusCode: outcome.statusCode,
      error: null,
      nextAttemptAt: null,
      deliveredAt: at,
    });
    await noteWebhookSuccess(q, webhook.id);
    return null;
  }
  const last = outcome.final === true || attempts >= MAX_ATTEMPTS;
  const delay = RETRY_DELAYS_MS[Math.min(attempts, MAX_ATTEMPTS - 1) - 1] ?? 0;
  await finishAttempt(q, delivery.id, {
    attempts,
    status: last ? "failed" : "pending",
    statusCode: outcome.statusCode,
    error: outcome.error,
    nextAttemptAt: last ? null : new Date(now.getTime() + delay).toISOString(),
    deliveredAt: null,
  });
  const disabled = await noteWebhookFailure(q, webhook.id, {
    at,
    disableBefore: new Date(now.getTime() - DISABLE_AFTER_MS).toISOString(),
  });
  if (disabled) {
    const owners = (await listMembers(q, disabled.projectId)).filter((m) => m.role === "owner");
    await insertNotifications(q, owners.map((m) => m.userId), {
      kind: "webhook_disabled",
      projectId: disabled.projectId,
      actorId: null,
      subjectType: "project",
      subjectId: disabled.projectId,
      text: disabled.url,
      createdAt: at,
    });
  }
  return disabled;
}
