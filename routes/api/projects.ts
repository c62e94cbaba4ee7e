/** Projects and their members. */
import { requestMeta } from "../client_address.ts";
import { createRoute, z } from "@hono/zod-openapi";
import type { Services } from "../../domain/services.ts";
import { actorOf, apiApp, errors, Id, jsonRequest, jsonResponse } from "./openapi.ts";
import {
  MemberInputSchema,
  MemberSchema,
  ProjectInputSchema,
  ProjectRoleSchema,
  ProjectSchema,
} from "./schemas.ts";

const ProjectParam = z.object({ projectId: Id });
const MemberParam = z.object({ projectId: Id, userId: Id });
const ProjectBody = z.object({ project: ProjectSchema });
const MemberBody = z.object({ member: MemberSchema });
const tags = ["projects"];

/** A member's new role (the project page's role form too). */
export const MemberRoleInput = z.object({ role: ProjectRoleSchema }).openapi("MemberRoleInput");

const list = createRoute({
  method: "get",
  path: "/api/projects",
  tags,
  summary: "Projects the caller belongs to",
  request: {
    query: z.object({
      archived: z.string().optional().openapi({ description: "`true` includes archived projects" }),
    }),
  },
  responses: {
    200: jsonResponse(z.object({ items: z.array(ProjectSchema) }), "The projects"),
    ...errors(401),
  },
});

const create = createRoute({
  method: "post",
  path: "/api/projects",
  tags,
  summary: "Create a project; the caller becomes its owner",
  request: jsonRequest(ProjectInputSchema),
  responses: { 201: jsonResponse(ProjectBody, "Created"), ...errors(400, 401, 403) },
});

const get = createRoute({
  method: "get",
  path: "/api/projects/{projectId}",
  tags,
  summary: "A project with its members",
  request: { params: ProjectParam },
  responses: {
    200: jsonResponse(
      z.object({ project: ProjectSchema, members: z.array(MemberSchema) }),
      "The project",
    ),
    ...errors(400, 401, 404),
  },
});

const update = createRoute({
  method: "patch",
  path: "/api/projects/{projectId}",
  tags,
  summary: "Rename or re-describe a project (owner)",
  request: { params: ProjectParam, ...jsonRequest(ProjectInputSchema.partial()) },
  responses: { 200: jsonResponse(ProjectBody, "Updated"), ...errors(400, 401, 403, 404) },
});

const archiveRoute = (action: "archive" | "unarchive") =>
  createRoute({
    method: "post",
    path: `/api/projects/{projectId}/${action}`,
    tags,
    summary: action === "archive"
      ? "Archive a project: read-only until unarchived (owner)"
      : "Unarchive a project (owner)",
    request: { params: ProjectParam },
    responses: { 200: jsonResponse(ProjectBody, "The project"), ...errors(400, 401, 403, 404) },
  });

const remove = createRoute({
  method: "delete",
  path: "/api/projects/{projectId}",
  tags,
  summary: "Delete a project (owner)",
  request: { params: ProjectParam },
  responses: { 204: { description: "Deleted" }, ...errors(400, 401, 403, 404) },
});

const members = createRoute({
  method: "get",
  path: "/api/projects/{projectId}/members",
  tags,
  summary: "The members",
  request: { params: ProjectParam },
  responses: {
    200: jsonResponse(z.object({ items: z.array(MemberSchema) }), "The members"),
    ...errors(400, 401, 404),
  },
});

const addMember = createRoute({
  method: "post",
  path: "/api/projects/{projectId}/members",
  tags,
  summary: "Add a user by email (owner); they get a member_added notification",
  request: { params: ProjectParam, ...jsonRequest(MemberInputSchema) },
  responses: { 201: jsonResponse(MemberBody, "Added"), ...errors(400, 401, 403, 404, 409) },
});

const changeRole = createRoute({
  method: "patch",
  path: "/api/projects/{projectId}/members/{userId}",
  tags,
  summary: "Change a member's role (owner); demoting the last owner is 409",
  request: {
    params: MemberParam,
    ...jsonRequest(MemberRoleInput),
  },
  responses: { 200: jsonResponse(MemberBody, "Updated"), ...errors(400, 401, 403, 404, 409) },
});

const removeMember = createRoute({
  method: "delete",
  path: "/api/projects/{projectId}/members/{userId}",
  tags,
  summary: "Remove a member (owner, or a member leaving); the last owner stays (409)",
  request: { params: MemberParam },
  responses: { 204: { description: "Removed" }, ...errors(400, 401, 403, 404, 409) },
});

/** The project and member routes. */
export function projectRoutes(services: Services) {
  const { projects } = services;
  return apiApp()
    .openapi(list, async (c) => {
      const archived = c.req.valid("query").archived === "true";
      return c.json({ items: await projects.list(actorOf(c), { archived }) }, 200);
    })
    .openapi(
      create,
      async (c) => c.json({ project: await projects.create(actorOf(c), c.req.valid("json")) }, 201),
    )
    .openapi(
      get,
      async (c) => c.json(await projects.get(actorOf(c), c.req.valid("param").projectId), 200),
    )
    .openapi(update, async (c) => {
      const project = await projects.update(
        actorOf(c),
        c.req.valid("param").projectId,
        c.req.valid("json"),
      );
      return c.json({ project }, 200);
    })
    .openapi(archiveRoute("archive"), async (c) => {
      const project = await projects.setArchived(actorOf(c), c.req.valid("param").projectId, true);
      return c.json({ project }, 200);
    })
    .openapi(archiveRoute("unarchive"), async (c) => {
      const project = await projects.setArchived(actorOf(c), c.req.valid("param").projectId, false);
      return c.json({ project }, 200);
    })
    .openapi(remove, async (c) => {
      await projects.remove(actorOf(c), c.req.valid("param").projectId, requestMeta(c));
      return c.body(null, 204);
    })
    .openapi(members, async (c) => {
      return c.json(
        { items: await projects.members(actorOf(c), c.req.valid("param").projectId) },
        200,
      );
    })
    .openapi(addMember, async (c) => {
      const member = await projects.addMember(
        actorOf(c),
        c.req.valid("param").projectId,
        c.req.valid("json"),
      );
      return c.json({ member }, 201);
    })
    .openapi(changeRole, async (c) => {
      const { projectId, userId } = c.req.valid("param");
      const member = await projects.changeRole(actorOf(c), projectId, {
        userId,
        role: c.req.valid("json").role,
      });
      return c.json({ member }, 200);
    })
    .openapi(removeMember, async (c) => {
      const { projectId, userId } = c.req.valid("param");
      await projects.removeMember(actorOf(c), projectId, userId);
      return c.body(null, 204);
    });
}
