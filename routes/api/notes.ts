/** Notes. */
import { createRoute, z } from "@hono/zod-openapi";
import { pageRequest } from "../../domain/kernel/paging.ts";
import type { Services } from "../../domain/services.ts";
import {
  actorOf,
  apiApp,
  errors,
  Id,
  jsonRequest,
  jsonResponse,
  PageQuery,
  pageSchema,
} from "./openapi.ts";
import { NoteSchema, TagsSchema } from "./schemas.ts";

const tags = ["notes"];
const ProjectParam = z.object({ projectId: Id });
const NoteParam = z.object({ projectId: Id, noteId: Id });
const NoteBody = z.object({ note: NoteSchema });
const base = "/api/projects/{projectId}/notes";

/** A new note (the notes page's form too). */
export const NoteInput = z.object({
  title: z.string().trim().min(1, "Cannot be blank").max(200),
  body: z.string().max(100_000),
  tags: TagsSchema.nullable().optional(),
  pinned: z.boolean().optional(),
}).openapi("NoteInput");

/** A note's changes. */
export const NotePatch = z.object({
  title: z.string().trim().min(1, "Cannot be blank").max(200).optional(),
  body: z.string().max(100_000).optional(),
  tags: TagsSchema.nullable().optional(),
  pinned: z.boolean().optional(),
}).openapi("NotePatch");

const list = createRoute({
  method: "get",
  path: base,
  tags,
  summary: "Notes: pinned first, then most recently updated",
  request: { params: ProjectParam, query: PageQuery.extend({ tag: z.string().optional() }) },
  responses: { 200: jsonResponse(pageSchema(NoteSchema), "A page of notes"), ...errors(401, 404) },
});

const create = createRoute({
  method: "post",
  path: base,
  tags,
  summary: "Create a note (Markdown body); writes note_created",
  request: {
    params: ProjectParam,
    ...jsonRequest(NoteInput),
  },
  responses: { 201: jsonResponse(NoteBody, "Created"), ...errors(400, 401, 403, 404) },
});

const get = createRoute({
  method: "get",
  path: `${base}/{noteId}`,
  tags,
  summary: "A note",
  request: { params: NoteParam },
  responses: { 200: jsonResponse(NoteBody, "The note"), ...errors(400, 401, 404) },
});

const update = createRoute({
  method: "patch",
  path: `${base}/{noteId}`,
  tags,
  summary: "Edit a note (author, owner or admin); the other members are notified",
  request: {
    params: NoteParam,
    ...jsonRequest(NotePatch),
  },
  responses: { 200: jsonResponse(NoteBody, "Updated"), ...errors(400, 401, 403, 404) },
});

const remove = createRoute({
  method: "delete",
  path: `${base}/{noteId}`,
  tags,
  summary: "Delete a note (author, owner or admin)",
  request: { params: NoteParam },
  responses: { 204: { description: "Deleted" }, ...errors(400, 401, 403, 404) },
});

/** The note routes. */
export function noteRoutes(services: Services) {
  const { notes } = services;
  return apiApp()
    .openapi(list, async (c) => {
      const query = c.req.valid("query");
      return c.json(
        await notes.list(actorOf(c), c.req.valid("param").projectId, {
          tag: query.tag ?? null,
          page: pageRequest(query),
        }),
        200,
      );
    })
    .openapi(create, async (c) => {
      const note = await notes.create(
        actorOf(c),
        c.req.valid("param").projectId,
        c.req.valid("json"),
      );
      return c.json({ note }, 201);
    })
    .openapi(get, async (c) => {
      const { projectId, noteId } = c.req.valid("param");
      return c.json({ note: await notes.get(actorOf(c), projectId, noteId) }, 200);
    })
    .openapi(update, async (c) => {
      const { projectId, noteId } = c.req.valid("param");
      return c.json({
        note: await notes.update(actorOf(c), projectId, { noteId, ...c.req.valid("json") }),
      }, 200);
    })
    .openapi(remove, async (c) => {
      const { projectId, noteId } = c.req.valid("param");
      await notes.remove(actorOf(c), projectId, noteId);
      return c.body(null, 204);
    });
}
