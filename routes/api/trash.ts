/** The trash: a project's deleted items and their restore; deleted projects for admins. */
import { requestMeta } from "../client_address.ts";
import { createRoute, z } from "@hono/zod-openapi";
import { pageRequest } from "../../domain/kernel/paging.ts";
import type { Services } from "../../domain/services.ts";
import { TRASH_TYPES, type TrashType } from "../../domain/projects/trash.ts";
import {
  actorOf,
  apiApp,
  errors,
  Id,
  IdOut,
  jsonResponse,
  PageQuery,
  pageSchema,
  TimestampOut,
} from "./openapi.ts";
import { ProjectSchema } from "./schemas.ts";

const TrashTypeSchema = z.enum(TRASH_TYPES as [TrashType, ...TrashType[]]);

export const TrashRefSchema = z.object({ type: TrashTypeSchema, id: IdOut }).openapi(
  "TrashRef",
);

const TrashEntrySchema = z.object({
  type: TrashTypeSchema,
  id: IdOut,
  title: z.string(),
  deletedAt: TimestampOut,
  deletedBy: IdOut.nullable().openapi({
    description: "Null for items deleted before the trash existed",
  }),
  purgeAt: TimestampOut.openapi({
    description: "When the sweep may purge it; it stays restorable until it is purged",
  }),
}).openapi("TrashEntry");

const DeletedProjectSchema = z.object({
  id: IdOut,
  name: z.string(),
  deletedAt: TimestampOut,
  deletedBy: IdOut.nullable(),
  purgeAt: TimestampOut,
}).openapi("DeletedProject");

const list = createRoute({
  method: "get",
  path: "/api/projects/{projectId}/trash",
  tags: ["trash"],
  summary: "The project's trash, most recently deleted first (members other than viewers)",
  request: { params: z.object({ projectId: Id }), query: PageQuery },
  responses: {
    200: jsonResponse(pageSchema(TrashEntrySchema), "A page of trash entries"),
    ...errors(400, 401, 403, 404),
  },
});

const restore = createRoute({
  method: "post",
  path: "/api/projects/{projectId}/trash/{type}/{id}/restore",
  tags: ["trash"],
  summary: "Restore an item as it was (the one who deleted it, its author, an owner or admin); " +
    "writes item_restored and sends item.restored. An unknown type is 400; a comment whose " +
    "thread is still deleted is 409",
  request: { params: z.object({ projectId: Id, type: TrashTypeSchema, id: Id }) },
  responses: {
    200: jsonResponse(TrashRefSchema, "Restored"),
    ...errors(400, 401, 403, 404, 409),
  },
});

const deletedProjects = createRoute({
  method: "get",
  path: "/api/admin/trash/projects",
  tags: ["admin", "trash"],
  summary: "Deleted projects that can still be restored, most recently deleted first (admins)",
  request: { query: PageQuery },
  responses: {
    200: jsonResponse(pageSchema(DeletedProjectSchema), "A page of deleted projects"),
    ...errors(400, 401, 403),
  },
});

const restoreProject = createRoute({
  method: "post",
  path: "/api/admin/trash/projects/{projectId}/restore",
  tags: ["admin", "trash"],
  summary: "Restore a deleted project (admins)",
  request: { params: z.object({ projectId: Id }) },
  responses: {
    200: jsonResponse(z.object({ project: ProjectSchema }), "Restored"),
    ...errors(400, 401, 403, 404),
  },
});

/** The trash routes. */
export function trashRoutes(services: Services) {
  return apiApp()
    .openapi(list, async (c) =>
      c.json(
        await services.trash.list(
          actorOf(c),
          c.req.valid("param").projectId,
          pageRequest(c.req.valid("query")),
        ),
        200,
      ))
    .openapi(restore, async (c) => {
      const { projectId, type, id } = c.req.valid("param");
      return c.json(await services.trash.restore(actorOf(c), projectId, { type, id }), 200);
    })
    .openapi(deletedProjects, async (c) =>
      c.json(
        await services.trash.deletedProjects(actorOf(c), pageRequest(c.req.valid("query"))),
        200,
      ))
    .openapi(restoreProject, async (c) => {
      const project = await services.trash.restoreProject(
        actorOf(c),
        c.req.valid("param").projectId,
        requestMeta(c),
      );
      return c.json({ project }, 200);
    });
}
