/**
 * Webhooks of a project, managed by its owners (and admins): create (the secret is shown
 * once), list, change, delete, the delivery log and redelivery. Sending lives in
 * `webhook_sender.ts`, queuing in `webhook_outbox.ts`.
 */
import { audit, type RequestMeta } from "../accounts/audit.ts";
import type { Engine, Queries } from "../../db/kernel/engine.ts";
import {
  deleteWebhook,
  type DeliveryRow,
  findDelivery,
  findWebhook,
  insertRedelivery,
  insertWebhook,
  listDeliveries,
  listWebhooks,
  updateWebhook,
  type WebhookRow,
} from "../../db/integrations/webhooks.ts";
import { projectAccess, requireOwner } from "../accounts/access.ts";
import type { Actor } from "../accounts/accounts.ts";
import { EVENT_NAMES } from "../projects/event_names.ts";
import type { Clock } from "../kernel/clock.ts";
import { DomainError } from "../kernel/errors.ts";
import { offsetOf, type Page, pageOf, type PageRequest } from "../kernel/paging.ts";
import { fanOutProject } from "../projects/webhook_outbox.ts";
import { type AllowList, checkTarget, type Resolver } from "./webhook_targets.ts";

/** The event-stream names a webhook may subscribe to: every project stream event. */
export const WEBHOOK_EVENTS = EVENT_NAMES;

/** A webhook as the API shows it (never its secret). */
export interface Webhook {
  id: number;
  projectId: number;
  url: string;
  events: string[];
  description: string;
  active: boolean;
  createdAt: string;
  failingSince: string | null;
}

/** A delivery as the API shows it. */
export interface Delivery {
  id: number;
  event: string;
  eventId: number;
  status: "pending" | "succeeded" | "failed";
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
  deliveredAt: string | null;
}

function toWebhook(r: WebhookRow): Webhook {
  return {
    id: r.id,
    projectId: r.projectId,
    url: r.url,
    events: r.events,
    description: r.description,
    active: r.active,
    createdAt: r.createdAt,
    failingSince: r.failingSince,
  };
}

function toDelivery(r: DeliveryRow): Delivery {
  return {
    id: r.id,
    event: r.event,
    eventId: r.eventId,
    status: r.status,
    attempts: r.attempts,
    lastStatusCode: r.lastStatusCode,
    lastError: r.lastError,
    nextAttemptAt: r.nextAttemptAt,
    createdAt: r.createdAt,
    deliveredAt: r.deliveredAt,
  };
}

/** The longest webhook URL accepted. */
export const MAX_URL_LENGTH = 2048;
/** How long create and change wait for the host name to resolve. */
const RESOLVE_TIMEOUT_MS = 5_000;

/** A new secret: `whsec_` and 256 random bits in base64url. */
function newSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `whsec_${
    btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_")
      .replace(/=+$/, "")
  }`;
}

/**
 * Why a webhook's `url` or `events` is refused: the code in `details` under the field, the
 * sentence in the message, so callers (the pages) say it in their own words.
 */
export type WebhookRefusal =
  /** The URL is longer than `MAX_URL_LENGTH`. */
  | "too_long"
  /** Not an absolute http or https URL. */
  | "not_http"
  /** The URL holds a user name or password. */
  | "credentials"
  /** The host resolves to a loopback, private, link-local or other non-public address. */
  | "not_public"
  /** The host name does not resolve. */
  | "unresolvable"
  /** No event named. */
  | "empty"
  /** `*` with event names. */
  | "mixed"
  /** An event name that is not a stream event. */
  | "unknown_event";

/** A `validation` refusal of `field`: `code` in `details`, `message` in words. */
function refused(field: "url" | "events", code: WebhookRefusal, message: string): DomainError {
  return new DomainError("validation", message, { details: { [field]: code } });
}

/** Checks the subscribed names: known stream events, or `*` alone; drops duplicates. */
function cleanEvents(events: string[]): string[] {
  const unique = [...new Set(events)];
  if (unique.length === 0) {
    throw refused("events", "empty", 'Cannot subscribe: name events, or use ["*"]');
  }
  if (unique.includes("*") && unique.length > 1) {
    throw refused("events", "mixed", 'Cannot subscribe: "*" cannot be mixed with event names');
  }
  const known = new Set<string>([...WEBHOOK_EVENTS, "*"]);
  const unknown = unique.find((name) => !known.has(name));
  if (unknown !== undefined) {
    throw refused("events", "unknown_event", `Cannot subscribe to unknown event ${unknown}`);
  }
  return unique;
}

/** What webhooks are built with. */
export interface WebhookDeps {
  db: Engine;
  clock: Clock;
  allow: AllowList;
  resolve: Resolver;
  /**
   * Called after a commit that queued a delivery or changed a webhook: the sender looks
   * again before its next attempt (so an attempt never goes to a deleted webhook's URL).
   */
  onQueued: () => void;
}

/** The webhook operations. */
export function createWebhooks(deps: WebhookDeps) {
  const { db, clock } = deps;

  /** The caller's owner access (reads are allowed in an archived project). */
  const ownerAccess = async (q: Queries, actor: Actor, projectId: number, read = false) => {
    const access = await projectAccess(q, actor, projectId);
    requireOwner(access, { evenArchived: read });
    return access;
  };
  const webhookOf = async (q: Queries, projectId: number, id: number): Promise<WebhookRow> => {
    const row = await findWebhook(q, projectId, id);
    if (!row) throw new DomainError("not_found", "No such webhook");
    return row;
  };

  /** Parses and checks a target URL: http(s), no credentials, a public or allowed host. */
  const checkUrl = async (raw: string): Promise<string> => {
    const text = raw.trim();
    if (text.length > MAX_URL_LENGTH) {
      throw refused(
        "url",
        "too_long",
        `Cannot use the URL: it is longer than ${MAX_URL_LENGTH} characters`,
      );
    }
    const url = URL.canParse(text) ? new URL(text) : null;
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || !url.hostname) {
      throw refused("url", "not_http", "Cannot use the URL: use an absolute http or https URL");
    }
    if (url.username || url.password) {
      throw refused("url", "credentials", "Cannot use the URL: it holds a user name or password");
    }
    let check;
    try {
      check = await checkTarget(url, {
        allow: deps.allow,
        resolve: deps.resolve,
        signal: AbortSignal.timeout(RESOLVE_TIMEOUT_MS),
      });
    } catch {
      check = { ok: false as const, reason: "unresolvable" as const };
    }
    if (!check.ok) {
      throw check.reason === "blocked"
        ? refused("url", "not_public", `Cannot deliver to ${check.address}: not a public address`)
        : refused("url", "unresolvable", `Cannot resolve the host ${url.hostname}`);
    }
    return url.href;
  };

  return {
    /** The project's webhooks, oldest first. */
    async list(actor: Actor, projectId: number): Promise<Webhook[]> {
      await ownerAccess(db, actor, projectId, true);
      return (await listWebhooks(db, projectId)).map(toWebhook);
    },

    /** Creates an active webhook; its secret is returned here only. */
    async create(
      actor: Actor,
      projectId: number,
      input: { url: string; events: string[]; description?: string | null | undefined },
      meta: RequestMeta,
    ): Promise<{ webhook: Webhook; secret: string }> {
      await ownerAccess(db, actor, projectId);
      const events = cleanEvents(input.events);
      // Resolved before the transaction: it must not wait on the network.
      const url = await checkUrl(input.url);
      const secret = newSecret();
      // Checked again after the lookup: the project may have changed meanwhile.
      return await db.transaction(async (tx) => {
        await ownerAccess(tx, actor, projectId);
        const id = await insertWebhook(tx, {
          projectId,
          url,
          events,
          description: input.description?.trim() ?? "",
          secret,
          createdBy: actor.id,
          createdAt: clock.now().toISOString(),
        });
        // The host only: a URL's path or query may hold the receiver's own secret.
        await audit(tx, meta, clock.now().toISOString(), {
          action: "webhook.created",
          actorId: actor.id,
          target: { type: "webhook", id },
          details: { projectId, host: new URL(url).host, events },
        });
        return { webhook: toWebhook(await webhookOf(tx, projectId, id)), secret };
      });
    },

    /** One webhook. */
    async get(actor: Actor, projectId: number, id: number): Promise<Webhook> {
      await ownerAccess(db, actor, projectId, true);
      return toWebhook(await webhookOf(db, projectId, id));
    },

    /**
     * Changes the URL, events, description or active flag. Making a webhook active again
     * forgets how long it was failing, so it is not disabled again at its next failure.
     */
    async update(
      actor: Actor,
      projectId: number,
      id: number,
      patch: {
        url?: string | undefined;
        events?: string[] | undefined;
        description?: string | null | undefined;
        active?: boolean | undefined;
      },
      meta: RequestMeta,
    ): Promise<Webhook> {
      await ownerAccess(db, actor, projectId);
      await webhookOf(db, projectId, id);
      const events = patch.events === undefined ? undefined : cleanEvents(patch.events);
      // Resolved before the transaction: it must not wait on the network.
      const url = patch.url === undefined ? undefined : await checkUrl(patch.url);
      const updated = await db.transaction(async (tx) => {
        await ownerAccess(tx, actor, projectId);
        const before = await webhookOf(tx, projectId, id);
        const reactivated = patch.active === true && !before.active;
        await audit(tx, meta, clock.now().toISOString(), {
          action: "webhook.updated",
          actorId: actor.id,
          target: { type: "webhook", id },
          details: {
            projectId,
            changed: Object.keys(patch).filter((k) => patch[k as keyof typeof patch] !== undefined),
            ...(url !== undefined ? { host: new URL(url).host } : {}),
          },
        });
        return toWebhook(
          await updateWebhook(tx, id, {
            ...(url !== undefined ? { url } : {}),
            ...(events !== undefined ? { events } : {}),
            ...(patch.description !== undefined
              ? { description: patch.description?.trim() ?? "" }
              : {}),
            ...(patch.active !== undefined ? { active: patch.active } : {}),
            ...(reactivated ? { failingSince: null } : {}),
            updatedAt: clock.now().toISOString(),
          }),
        );
      });
      deps.onQueued();
      return updated;
    },

    /** Deletes a webhook with its delivery log; deliveries not yet sent are dropped. */
    async remove(actor: Actor, projectId: number, id: number, meta: RequestMeta): Promise<void> {
      await db.transaction(async (tx) => {
        await ownerAccess(tx, actor, projectId);
        await webhookOf(tx, projectId, id);
        await deleteWebhook(tx, id);
        await audit(tx, meta, clock.now().toISOString(), {
          action: "webhook.deleted",
          actorId: actor.id,
          target: { type: "webhook", id },
          details: { projectId },
        });
      });
      deps.onQueued();
    },

    /** A page of a webhook's deliveries, newest first. */
    async deliveries(
      actor: Actor,
      projectId: number,
      id: number,
      page: PageRequest,
    ): Promise<Page<Delivery>> {
      await ownerAccess(db, actor, projectId, true);
      await webhookOf(db, projectId, id);
      // The project's events still in the outbox have deliveries the log must show (pending).
      await fanOutProject(db, projectId);
      const { items, total } = await listDeliveries(db, id, page.pageSize, offsetOf(page));
      return pageOf(items.map(toDelivery), total, page);
    },

    /** Queues a new delivery of the event an earlier delivery carried; the webhook must be active. */
    async redeliver(
      actor: Actor,
      projectId: number,
      webhookId: number,
      deliveryId: number,
    ): Promise<Delivery> {
      const delivery = await db.transaction(async (tx) => {
        await ownerAccess(tx, actor, projectId);
        const webhook = await webhookOf(tx, projectId, webhookId);
        const earlier = await findDelivery(tx, webhookId, deliveryId);
        if (!earlier) throw new DomainError("not_found", "No such delivery");
        if (!webhook.active) {
          throw new DomainError("conflict", "Cannot redeliver: the webhook is inactive");
        }
        return await insertRedelivery(tx, earlier, clock.now().toISOString());
      });
      deps.onQueued();
      return toDelivery(delivery);
    },
  };
}

/** The webhook operations' type. */
export type Webhooks = ReturnType<typeof createWebhooks>;
