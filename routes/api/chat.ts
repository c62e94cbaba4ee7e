/** Chat messages: history, send, edit, delete. */
import { createRoute, z } from "@hono/zod-openapi";
import { HISTORY_DEFAULT, HISTORY_MAX } from "../../domain/content/chat.ts";
import { invalid } from "../../domain/kernel/errors.ts";
import { wholeNumber } from "../../domain/kernel/paging.ts";
import type { Services } from "../../domain/services.ts";
import { actorOf, apiApp, errors, Id, jsonRequest, jsonResponse } from "./openapi.ts";
import { FileIdsSchema, FileSchema, MessageSchema } from "./schemas.ts";

const tags = ["chat"];
const ProjectParam = z.object({ projectId: Id });
const MessageParam = z.object({ projectId: Id, messageId: Id });
const base = "/api/projects/{projectId}/chat/messages";
const Text = z.string().max(10_000).refine((t) => t.trim().length > 0, "Cannot be blank");

/** A message's new text. */
export const MessagePatch = z.object({ text: Text }).openapi("MessagePatch");

/** A new chat message (the chat page's form too). */
export const MessageInput = z.object({ text: Text, fileIds: FileIdsSchema.optional() }).openapi(
  "MessageInput",
);

const history = createRoute({
  method: "get",
  path: base,
  tags,
  summary: "The newest `limit` messages older than `before` (or the newest), oldest first",
  request: {
    params: ProjectParam,
    query: z.object({
      before: z.string().optional().openapi({ description: "a message id" }),
      limit: z.string().optional().openapi({ description: "default 50, at most 200" }),
    }),
  },
  responses: {
    200: jsonResponse(z.object({ items: z.array(MessageSchema), hasMore: z.boolean() }), "History"),
    ...errors(400, 401, 404),
  },
});

const send = createRoute({
  method: "post",
  path: base,
  tags,
  summary: "Send a message; @email mentions of members notify them",
  request: {
    params: ProjectParam,
    ...jsonRequest(MessageInput),
  },
  responses: {
    201: jsonResponse(
      z.object({ message: MessageSchema, attachments: z.array(FileSchema) }),
      "Sent",
    ),
    ...errors(400, 401, 403, 404),
  },
});

const edit = createRoute({
  method: "patch",
  path: `${base}/{messageId}`,
  tags,
  summary: "Edit a message (author, owner or admin)",
  request: {
    params: MessageParam,
    ...jsonRequest(MessagePatch),
  },
  responses: {
    200: jsonResponse(
      z.object({ message: MessageSchema, attachments: z.array(FileSchema) }),
      "Edited",
    ),
    ...errors(400, 401, 403, 404),
  },
});

const remove = createRoute({
  method: "delete",
  path: `${base}/{messageId}`,
  tags,
  summary: "Delete a message (author, owner or admin)",
  request: { params: MessageParam },
  responses: { 204: { description: "Deleted" }, ...errors(400, 401, 403, 404) },
});

/** `before`: a message id; non-numeric or zero means none, beyond the safe range is 400. */
function beforeOf(raw: string | undefined): number | null {
  const n = wholeNumber(raw);
  if (n === Infinity) {
    throw invalid("before", `Use a message id from 1 to ${Number.MAX_SAFE_INTEGER}`);
  }
  return n === null || n < 1 ? null : n;
}

/** `limit`: below 1 or non-numeric means the default; any larger number is clamped later. */
function limitOf(raw: string | undefined): number {
  const n = wholeNumber(raw);
  return n === null || n < 1 ? HISTORY_DEFAULT : Math.min(n, HISTORY_MAX);
}

/** The chat routes. */
export function chatRoutes(services: Services) {
  const { chat } = services;
  return apiApp()
    .openapi(history, async (c) => {
      const query = c.req.valid("query");
      return c.json(
        await chat.history(actorOf(c), c.req.valid("param").projectId, {
          before: beforeOf(query.before),
          limit: limitOf(query.limit),
        }),
        200,
      );
    })
    .openapi(send, async (c) => {
      const message = await chat.send(
        actorOf(c),
        c.req.valid("param").projectId,
        c.req.valid("json"),
      );
      return c.json({ message, attachments: message.attachments }, 201);
    })
    .openapi(edit, async (c) => {
      const { projectId, messageId } = c.req.valid("param");
      const message = await chat.edit(actorOf(c), projectId, {
        messageId,
        text: c.req.valid("json").text,
      });
      return c.json({ message, attachments: message.attachments }, 200);
    })
    .openapi(remove, async (c) => {
      const { projectId, messageId } = c.req.valid("param");
      await chat.remove(actorOf(c), projectId, messageId);
      return c.body(null, 204);
    });
}
