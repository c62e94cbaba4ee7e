/** Checklists on to-do items: entries to add, rename, check, reorder and remove. */
import { createRoute, z } from "@hono/zod-openapi";
import { CHECKLIST_MAX_ENTRIES, CHECKLIST_TEXT_MAX } from "../../domain/planning/checklists.ts";
import type { Services } from "../../domain/services.ts";
import { actorOf, apiApp, errors, Id, jsonRequest, jsonResponse } from "./openapi.ts";
import { ChecklistEntrySchema } from "./schemas.ts";

const tags = ["todos"];
const ItemParam = z.object({ projectId: Id, itemId: Id });
const EntryParam = z.object({ projectId: Id, itemId: Id, entryId: Id });
const base = "/api/projects/{projectId}/todos/items/{itemId}/checklist";
const EntryText = z.string().trim().min(1, "Cannot be blank").max(CHECKLIST_TEXT_MAX);
const Entries = z.object({ items: z.array(ChecklistEntrySchema) });
const EntryBody = z.object({ entry: ChecklistEntrySchema });

/** A new checklist entry (the to-do page's form too). */
export const ChecklistEntryInput = z.object({ text: EntryText }).openapi("ChecklistEntryInput");

/** A checklist entry's changes: absent fields stay. */
export const ChecklistEntryPatch = z.object({
  text: EntryText.optional(),
  done: z.boolean().optional(),
}).openapi("ChecklistEntryPatch");

/** A checklist's new order: every entry of the item, each once. */
export const ChecklistReorderInput = z.object({
  entryIds: z.array(z.number().int().positive()).max(CHECKLIST_MAX_ENTRIES),
}).openapi("ChecklistReorderInput");

const list = createRoute({
  method: "get",
  path: base,
  tags,
  summary: "An item's checklist entries in order",
  request: { params: ItemParam },
  responses: { 200: jsonResponse(Entries, "The entries"), ...errors(400, 401, 404) },
});

const add = createRoute({
  method: "post",
  path: base,
  tags,
  summary: `Append an entry (409 conflict when the item has ${CHECKLIST_MAX_ENTRIES} already)`,
  request: { params: ItemParam, ...jsonRequest(ChecklistEntryInput) },
  responses: {
    201: jsonResponse(EntryBody, "Added"),
    ...errors(400, 401, 403, 404, 409),
  },
});

const reorder = createRoute({
  method: "post",
  path: `${base}/reorder`,
  tags,
  summary: "Put the entries in the given order (exactly the item's entries, else 400)",
  request: { params: ItemParam, ...jsonRequest(ChecklistReorderInput) },
  responses: {
    200: jsonResponse(Entries, "The entries in their new order"),
    ...errors(400, 401, 403, 404),
  },
});

const update = createRoute({
  method: "patch",
  path: `${base}/{entryId}`,
  tags,
  summary: "Rename an entry or check it off: absent fields stay",
  request: { params: EntryParam, ...jsonRequest(ChecklistEntryPatch) },
  responses: { 200: jsonResponse(EntryBody, "Changed"), ...errors(400, 401, 403, 404) },
});

const remove = createRoute({
  method: "delete",
  path: `${base}/{entryId}`,
  tags,
  summary: "Remove an entry (the rest close up)",
  request: { params: EntryParam },
  responses: { 204: { description: "Removed" }, ...errors(400, 401, 403, 404) },
});

/** The checklist routes. */
export function checklistRoutes(services: Services) {
  const { checklists } = services;
  return apiApp()
    .openapi(list, async (c) => {
      const { projectId, itemId } = c.req.valid("param");
      return c.json({ items: await checklists.list(actorOf(c), projectId, itemId) }, 200);
    })
    .openapi(add, async (c) => {
      const { projectId, itemId } = c.req.valid("param");
      const entry = await checklists.add(actorOf(c), projectId, itemId, c.req.valid("json"));
      return c.json({ entry }, 201);
    })
    .openapi(reorder, async (c) => {
      const { projectId, itemId } = c.req.valid("param");
      const { entryIds } = c.req.valid("json");
      const items = await checklists.reorder(actorOf(c), projectId, itemId, entryIds);
      return c.json({ items }, 200);
    })
    .openapi(update, async (c) => {
      const { projectId, itemId, entryId } = c.req.valid("param");
      const entry = await checklists.update(
        actorOf(c),
        projectId,
        itemId,
        entryId,
        c.req.valid("json"),
      );
      return c.json({ entry }, 200);
    })
    .openapi(remove, async (c) => {
      const { projectId, itemId, entryId } = c.req.valid("param");
      await checklists.remove(actorOf(c), projectId, itemId, entryId);
      return c.body(null, 204);
    });
}
