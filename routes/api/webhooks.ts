/** Webhooks of a project (owners and admins), their delivery log and redelivery. */
import { requestMeta } from "../client_address.ts";
import { createRoute, z } from "@hono/zod-openapi";
import { pageRequest } from "../../domain/kernel/paging.ts";
import type { Services } from "../../domain/services.ts";
import { MAX_URL_LENGTH, WEBHOOK_EVENTS } from "../../domain/integrations/webhooks.ts";
import {
  actorOf,
  apiApp,
  errors,
  Id,
  IdOut,
  jsonRequest,
  jsonResponse,
  PageQuery,
  pageSchema,
  TimestampOut,
} from "./openapi.ts";

const tags = ["webhooks"];
const base = "/api/projects/{projectId}/webhooks";
const ProjectParam = z.object({ projectId: Id });
const WebhookParam = z.object({ projectId: Id, webhookId: Id });
const DeliveryParam = z.object({ projectId: Id, webhookId: Id, deliveryId: Id });

const WebhookSchema = z.object({
  id: IdOut,
  projectId: IdOut,
  url: z.string(),
  events: z.array(z.string()),
  description: z.string(),
  active: z.boolean(),
  createdAt: TimestampOut,
  failingSince: z.string().nullable(),
}).openapi("Webhook");

const DeliverySchema = z.object({
  id: IdOut,
  event: z.string(),
  eventId: IdOut,
  status: z.enum(["pending", "succeeded", "failed"]),
  attempts: z.number().int(),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  nextAttemptAt: TimestampOut.nullable(),
  createdAt: TimestampOut,
  deliveredAt: TimestampOut.nullable(),
}).openapi("WebhookDelivery");

const Events = z.array(z.enum([...WEBHOOK_EVENTS, "*"])).min(1, "Name at least one event")
  .max(WEBHOOK_EVENTS.length + 1)
  .openapi({ description: 'Event-stream names, or `["*"]` for every event' });
const Url = z.string().trim().min(1, "Cannot be blank").max(MAX_URL_LENGTH).openapi({
  description: "http or https; a host resolving to a loopback, private, link-local or " +
    "unspecified address is refused unless the server's WEBHOOK_ALLOW_HOSTS allows it",
});
const Description = z.string().max(500).nullable().optional();

/** What creating a webhook takes (the project's webhooks page checks its form with it too). */
export const WebhookInput = z.object({ url: Url, events: Events, description: Description })
  .openapi("WebhookInput");

const WebhookBody = z.object({ webhook: WebhookSchema });

const list = createRoute({
  method: "get",
  path: base,
  tags,
  summary: "The project's webhooks (owners and admins)",
  request: { params: ProjectParam },
  responses: {
    200: jsonResponse(z.object({ items: z.array(WebhookSchema) }), "The webhooks"),
    ...errors(400, 401, 403, 404),
  },
});

const create = createRoute({
  method: "post",
  path: base,
  tags,
  summary: "Create a webhook; its signing secret is in this answer only",
  request: {
    params: ProjectParam,
    ...jsonRequest(WebhookInput),
  },
  responses: {
    201: jsonResponse(
      z.object({ webhook: WebhookSchema, secret: z.string() }),
      "Created, with the secret that signs its deliveries",
    ),
    ...errors(400, 401, 403, 404),
  },
});

const get = createRoute({
  method: "get",
  path: `${base}/{webhookId}`,
  tags,
  summary: "A webhook",
  request: { params: WebhookParam },
  responses: { 200: jsonResponse(WebhookBody, "The webhook"), ...errors(400, 401, 403, 404) },
});

const update = createRoute({
  method: "patch",
  path: `${base}/{webhookId}`,
  tags,
  summary: "Change a webhook; making it active again clears failingSince",
  request: {
    params: WebhookParam,
    ...jsonRequest(
      z.object({
        url: Url.optional(),
        events: Events.optional(),
        description: Description,
        active: z.boolean().optional(),
      }).openapi("WebhookPatch"),
    ),
  },
  responses: { 200: jsonResponse(WebhookBody, "Changed"), ...errors(400, 401, 403, 404) },
});

const remove = createRoute({
  method: "delete",
  path: `${base}/{webhookId}`,
  tags,
  summary: "Delete a webhook with its delivery log",
  request: { params: WebhookParam },
  responses: { 204: { description: "Deleted" }, ...errors(400, 401, 403, 404) },
});

const deliveries = createRoute({
  method: "get",
  path: `${base}/{webhookId}/deliveries`,
  tags,
  summary: "A webhook's deliveries, newest first",
  request: { params: WebhookParam, query: PageQuery },
  responses: {
    200: jsonResponse(pageSchema(DeliverySchema), "A page of deliveries"),
    ...errors(400, 401, 403, 404),
  },
});

const redeliver = createRoute({
  method: "post",
  path: `${base}/{webhookId}/deliveries/{deliveryId}/redeliver`,
  tags,
  summary: "Queue a new delivery of the same event (409 when the webhook is inactive)",
  request: { params: DeliveryParam },
  responses: {
    202: jsonResponse(z.object({ delivery: DeliverySchema }), "Queued"),
    ...errors(400, 401, 403, 404, 409),
  },
});

/** The webhook routes. */
export function webhookRoutes(services: Services) {
  const { webhooks } = services;
  return apiApp()
    .openapi(list, async (c) => {
      const { projectId } = c.req.valid("param");
      return c.json({ items: await webhooks.list(actorOf(c), projectId) }, 200);
    })
    .openapi(create, async (c) => {
      const { projectId } = c.req.valid("param");
      return c.json(
        await webhooks.create(actorOf(c), projectId, c.req.valid("json"), requestMeta(c)),
        201,
      );
    })
    .openapi(get, async (c) => {
      const { projectId, webhookId } = c.req.valid("param");
      return c.json({ webhook: await webhooks.get(actorOf(c), projectId, webhookId) }, 200);
    })
    .openapi(update, async (c) => {
      const { projectId, webhookId } = c.req.valid("param");
      const webhook = await webhooks.update(
        actorOf(c),
        projectId,
        webhookId,
        c.req.valid("json"),
        requestMeta(c),
      );
      return c.json({ webhook }, 200);
    })
    .openapi(remove, async (c) => {
      const { projectId, webhookId } = c.req.valid("param");
      await webhooks.remove(actorOf(c), projectId, webhookId, requestMeta(c));
      return c.body(null, 204);
    })
    .openapi(deliveries, async (c) => {
      const { projectId, webhookId } = c.req.valid("param");
      const page = pageRequest(c.req.valid("query"));
      return c.json(await webhooks.deliveries(actorOf(c), projectId, webhookId, page), 200);
    })
    .openapi(redeliver, async (c) => {
      const { projectId, webhookId, deliveryId } = c.req.valid("param");
      const delivery = await webhooks.redeliver(actorOf(c), projectId, webhookId, deliveryId);
      return c.json({ delivery }, 202);
    });
}
