/** Board threads and comments. */
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
import {
  CategorySchema,
  CommentSchema,
  FileIdsSchema,
  FileSchema,
  ThreadSchema,
} from "./schemas.ts";

const tags = ["board"];
const ProjectParam = z.object({ projectId: Id });
const ThreadParam = z.object({ projectId: Id, threadId: Id });
const CommentParam = z.object({ projectId: Id, commentId: Id });
const base = "/api/projects/{projectId}/board";

/** A new thread (the board page's form too). */
export const ThreadInput = z.object({
  title: z.string().trim().min(1, "Cannot be blank").max(200),
  body: z.string().max(100_000),
  category: CategorySchema,
  pinned: z.boolean().optional(),
  fileIds: FileIdsSchema.optional(),
}).openapi("ThreadInput");

/** A thread's changes. */
export const ThreadPatch = z.object({
  title: z.string().trim().min(1, "Cannot be blank").max(200).optional(),
  body: z.string().max(100_000).optional(),
  category: CategorySchema.optional(),
  pinned: z.boolean().optional(),
}).openapi("ThreadPatch");

/** A new comment (the thread page's reply form too). */
export const CommentInput = z.object({
  body: z.string().trim().min(1, "Cannot be blank").max(100_000),
  fileIds: FileIdsSchema.optional(),
}).openapi("CommentInput");

/** A comment's changes (its edit form on the thread page too). */
export const CommentPatch = z.object({
  body: z.string().trim().min(1, "Cannot be blank").max(100_000),
})
  .openapi("CommentPatch");

const list = createRoute({
  method: "get",
  path: `${base}/threads`,
  tags,
  summary: "Threads: pinned first, then newest first",
  request: {
    params: ProjectParam,
    query: PageQuery.extend({ category: z.string().optional() }),
  },
  responses: {
    200: jsonResponse(pageSchema(ThreadSchema), "A page of threads"),
    ...errors(400, 401, 404),
  },
});

const create = createRoute({
  method: "post",
  path: `${base}/threads`,
  tags,
  summary: "Post a thread (Markdown body); writes board_posted",
  request: {
    params: ProjectParam,
    ...jsonRequest(ThreadInput),
  },
  responses: {
    201: jsonResponse(
      z.object({ thread: ThreadSchema, attachments: z.array(FileSchema) }),
      "Posted",
    ),
    ...errors(400, 401, 403, 404),
  },
});

const get = createRoute({
  method: "get",
  path: `${base}/threads/{threadId}`,
  tags,
  summary: "A thread with its comments",
  request: { params: ThreadParam },
  responses: {
    200: jsonResponse(
      z.object({
        thread: ThreadSchema,
        comments: z.array(CommentSchema),
        attachments: z.array(FileSchema),
      }),
      "The thread",
    ),
    ...errors(400, 401, 404),
  },
});

const update = createRoute({
  method: "patch",
  path: `${base}/threads/{threadId}`,
  tags,
  summary: "Edit or pin a thread (author, owner or admin)",
  request: {
    params: ThreadParam,
    ...jsonRequest(ThreadPatch),
  },
  responses: {
    200: jsonResponse(
      z.object({ thread: ThreadSchema, attachments: z.array(FileSchema) }),
      "Updated",
    ),
    ...errors(400, 401, 403, 404),
  },
});

const remove = createRoute({
  method: "delete",
  path: `${base}/threads/{threadId}`,
  tags,
  summary: "Delete a thread with its comments and attachments",
  request: { params: ThreadParam },
  responses: { 204: { description: "Deleted" }, ...errors(400, 401, 403, 404) },
});

const comment = createRoute({
  method: "post",
  path: `${base}/threads/{threadId}/comments`,
  tags,
  summary: "Comment on a thread; the author and earlier commenters are notified",
  request: {
    params: ThreadParam,
    ...jsonRequest(CommentInput),
  },
  responses: {
    201: jsonResponse(
      z.object({ comment: CommentSchema, attachments: z.array(FileSchema) }),
      "Posted",
    ),
    ...errors(400, 401, 403, 404),
  },
});

const updateComment = createRoute({
  method: "patch",
  path: `${base}/comments/{commentId}`,
  tags,
  summary: "Edit a comment (author, owner or admin)",
  request: {
    params: CommentParam,
    ...jsonRequest(CommentPatch),
  },
  responses: {
    200: jsonResponse(
      z.object({ comment: CommentSchema, attachments: z.array(FileSchema) }),
      "Updated",
    ),
    ...errors(400, 401, 403, 404),
  },
});

const removeComment = createRoute({
  method: "delete",
  path: `${base}/comments/{commentId}`,
  tags,
  summary: "Delete a comment and its attachments",
  request: { params: CommentParam },
  responses: { 204: { description: "Deleted" }, ...errors(400, 401, 403, 404) },
});

/** The board routes. */
export function boardRoutes(services: Services) {
  const { board } = services;
  return apiApp()
    .openapi(list, async (c) => {
      const query = c.req.valid("query");
      const page = await board.list(actorOf(c), c.req.valid("param").projectId, {
        category: query.category ?? null,
        page: pageRequest(query),
      });
      return c.json(page, 200);
    })
    .openapi(create, async (c) => {
      const thread = await board.create(
        actorOf(c),
        c.req.valid("param").projectId,
        c.req.valid("json"),
      );
      return c.json({ thread, attachments: thread.attachments }, 201);
    })
    .openapi(get, async (c) => {
      const { projectId, threadId } = c.req.valid("param");
      const { thread, comments } = await board.get(actorOf(c), projectId, threadId);
      return c.json({ thread, comments, attachments: thread.attachments }, 200);
    })
    .openapi(update, async (c) => {
      const { projectId, threadId } = c.req.valid("param");
      const thread = await board.update(actorOf(c), projectId, {
        threadId,
        ...c.req.valid("json"),
      });
      return c.json({ thread, attachments: thread.attachments }, 200);
    })
    .openapi(remove, async (c) => {
      const { projectId, threadId } = c.req.valid("param");
      await board.remove(actorOf(c), projectId, threadId);
      return c.body(null, 204);
    })
    .openapi(comment, async (c) => {
      const { projectId, threadId } = c.req.valid("param");
      const created = await board.comment(actorOf(c), projectId, {
        threadId,
        ...c.req.valid("json"),
      });
      return c.json({ comment: created, attachments: created.attachments }, 201);
    })
    .openapi(updateComment, async (c) => {
      const { projectId, commentId } = c.req.valid("param");
      const updated = await board.updateComment(actorOf(c), projectId, {
        commentId,
        body: c.req.valid("json").body,
      });
      return c.json({ comment: updated, attachments: updated.attachments }, 200);
    })
    .openapi(removeComment, async (c) => {
      const { projectId, commentId } = c.req.valid("param");
      await board.removeComment(actorOf(c), projectId, commentId);
      return c.body(null, 204);
    });
}
