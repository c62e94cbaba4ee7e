/** The kanban board: columns and to-do items. */
import { createRoute, z } from "@hono/zod-openapi";
import type { Services } from "../../domain/services.ts";
import { type Item, PAGE_DEFAULT, PAGE_MAX, WHOLE_LIST_MAX } from "../../domain/planning/todos.ts";
import { invalid } from "../../domain/kernel/errors.ts";
import { TOO_MANY_400 } from "./error_doc.ts";
import {
  actorOf,
  apiApp,
  errors,
  ErrorSchema,
  Id,
  IdQuery,
  jsonRequest,
  jsonResponse,
} from "./openapi.ts";
import {
  ChecklistEntrySchema,
  ColumnSchema,
  FileIdsSchema,
  FileSchema,
  ItemSchema,
  PrioritySchema,
  TagsSchema,
} from "./schemas.ts";

const tags = ["todos"];
const ProjectParam = z.object({ projectId: Id });
const ColumnParam = z.object({ projectId: Id, columnId: Id });
const ItemParam = z.object({ projectId: Id, itemId: Id });
const base = "/api/projects/{projectId}/todos";
const ItemBody = z.object({ item: ItemSchema, attachments: z.array(FileSchema) });
const ItemWithChecklist = ItemBody.extend({ checklist: z.array(ChecklistEntrySchema) });
const ColumnName = z.object({ name: z.string().trim().min(1, "Cannot be blank").max(100) });
const DateField = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "Use a date like 2026-11-22").openapi({
  format: "date",
});

const fields = {
  description: z.string().max(100_000).nullable().optional(),
  assigneeId: z.number().int().positive().nullable().optional(),
  priority: PrioritySchema.optional(),
  startDate: DateField.nullable().optional(),
  dueDate: DateField.nullable().optional(),
  tags: TagsSchema.nullable().optional(),
  milestoneId: z.number().int().positive().nullable().optional(),
};

/** A new to-do item (the to-do pages' form too). */
export const TodoInput = z.object({
  title: z.string().trim().min(1, "Cannot be blank").max(300),
  columnId: z.number().int().positive().optional(),
  fileIds: FileIdsSchema.optional(),
  ...fields,
}).openapi("TodoInput");

/** A to-do item's changes: absent fields stay, null clears. */
export const TodoPatch = z.object({
  title: z.string().trim().min(1, "Cannot be blank").max(300).optional(),
  ...fields,
}).openapi("TodoPatch");

/** Where an item moves (the board's move buttons too). */
export const MoveInput = z.object({
  columnId: z.number().int().positive(),
  orderIndex: z.number().int().min(0),
}).openapi("MoveInput");

/** Items put at the top of a column, in order. */
export const ReorderInput = z.object({
  projectId: z.number().int().positive(),
  columnId: z.number().int().positive(),
  itemIds: z.array(z.number().int().positive()).max(1000),
}).openapi("ReorderInput");

const columns = createRoute({
  method: "get",
  path: `${base}/columns`,
  tags,
  summary: "Columns by position (To Do, In Progress, Done are created on first use)",
  request: { params: ProjectParam },
  responses: {
    200: jsonResponse(z.object({ items: z.array(ColumnSchema) }), "The columns"),
    ...errors(401, 404),
  },
});

const addColumn = createRoute({
  method: "post",
  path: `${base}/columns`,
  tags,
  summary: "Append a custom column",
  request: { params: ProjectParam, ...jsonRequest(ColumnName.openapi("ColumnInput")) },
  responses: {
    201: jsonResponse(z.object({ column: ColumnSchema }), "Added"),
    ...errors(400, 401, 403, 404),
  },
});

const renameColumn = createRoute({
  method: "patch",
  path: `${base}/columns/{columnId}`,
  tags,
  summary: "Rename a column (its key survives)",
  request: { params: ColumnParam, ...jsonRequest(ColumnName.openapi("ColumnPatch")) },
  responses: {
    200: jsonResponse(z.object({ column: ColumnSchema }), "Renamed"),
    ...errors(400, 401, 403, 404),
  },
});

const removeColumn = createRoute({
  method: "delete",
  path: `${base}/columns/{columnId}`,
  tags,
  summary: "Delete an empty column (409 while it holds items)",
  request: { params: ColumnParam },
  responses: { 204: { description: "Deleted" }, ...errors(400, 401, 403, 404, 409) },
});

/** The items of a list: the whole list, or (with `columnId`) a page of one column. */
const ItemList = z.object({
  items: z.array(ItemSchema),
  nextCursor: z.string().nullable().optional().openapi({
    description: "Given with `columnId`: the `after` of the next page, null at the end",
  }),
});

const list = createRoute({
  method: "get",
  path: `${base}/items`,
  tags,
  summary: "Items by column position, then order; with columnId, one page of that column",
  description: "Without `columnId`: every matching item as `{items}`, for at most " +
    `${WHOLE_LIST_MAX} items; above that the answer is 400 \`too_many\`: page each column ` +
    "instead. With `columnId`: `{items, nextCursor}`, up to `limit` items of the column after " +
    "the cursor `after`, by `orderIndex` (`order=completed`: newest completed first). A " +
    "cursor stands for the page's last item where it is now, so an item that stays in the " +
    "column and is not itself moved is returned exactly once across the pages whatever else " +
    "moves meanwhile; an item moved or reordered while paging may come twice or not at all " +
    "(each move is a `todo.updated` event naming it). A malformed `after` or `limit` is 400.",
  request: {
    params: ProjectParam,
    query: z.object({
      columnId: IdQuery.optional(),
      assigneeId: IdQuery.optional(),
      milestoneId: IdQuery.optional(),
      limit: z.string().regex(/^\d+$/, "Use a number").refine(
        (raw) => Number(raw) >= 1 && Number(raw) <= PAGE_MAX,
        `Use a number from 1 to ${PAGE_MAX}`,
      ).optional().openapi({
        description: `With columnId: the page's size, default ${PAGE_DEFAULT}, at most ${PAGE_MAX}`,
      }),
      after: z.string().min(1).max(200).optional().openapi({
        description: "With columnId: the opaque `nextCursor` of the previous page",
      }),
      order: z.enum(["board", "completed"]).optional().openapi({
        description: "With columnId: `board` (by orderIndex, the default) or `completed` " +
          "(newest completed first, then the items not completed)",
      }),
    }),
  },
  responses: {
    200: jsonResponse(ItemList, "The items, or a page of a column's items"),
    ...errors(400, 401, 404),
    400: {
      description: `${TOO_MANY_400}: a bad query (\`details\` names it), or, without ` +
        `columnId, more than ${WHOLE_LIST_MAX} items: page each column instead`,
      content: { "application/json": { schema: ErrorSchema } },
    },
  },
});

const create = createRoute({
  method: "post",
  path: `${base}/items`,
  tags,
  summary: "Create an item, last in its column (the first column by default)",
  request: {
    params: ProjectParam,
    ...jsonRequest(TodoInput),
  },
  responses: { 201: jsonResponse(ItemBody, "Created"), ...errors(400, 401, 403, 404) },
});

const get = createRoute({
  method: "get",
  path: `${base}/items/{itemId}`,
  tags,
  summary: "An item with its attachments and its checklist's entries in order",
  request: { params: ItemParam },
  responses: { 200: jsonResponse(ItemWithChecklist, "The item"), ...errors(400, 401, 404) },
});

const update = createRoute({
  method: "patch",
  path: `${base}/items/{itemId}`,
  tags,
  summary: "Change an item: absent fields stay, an explicit null clears",
  request: {
    params: ItemParam,
    ...jsonRequest(TodoPatch),
  },
  responses: { 200: jsonResponse(ItemBody, "Updated"), ...errors(400, 401, 403, 404) },
});

const remove = createRoute({
  method: "delete",
  path: `${base}/items/{itemId}`,
  tags,
  summary: "Delete an item and its attachments",
  request: { params: ItemParam },
  responses: { 204: { description: "Deleted" }, ...errors(400, 401, 403, 404) },
});

const toggle = createRoute({
  method: "post",
  path: `${base}/items/{itemId}/toggle-complete`,
  tags,
  summary: "Complete or reopen an item",
  request: { params: ItemParam },
  responses: { 200: jsonResponse(ItemBody, "Toggled"), ...errors(400, 401, 403, 404) },
});

const move = createRoute({
  method: "post",
  path: `${base}/items/{itemId}/move`,
  tags,
  summary: "Move an item to a column position; both columns are renumbered 0..n-1",
  request: {
    params: ItemParam,
    ...jsonRequest(MoveInput),
  },
  responses: { 200: jsonResponse(ItemBody, "Moved"), ...errors(400, 401, 403, 404) },
});

const reorder = createRoute({
  method: "post",
  path: `${base}/items/reorder`,
  tags,
  summary: "Put items at the top of a column in the given order (one transaction)",
  request: {
    params: ProjectParam,
    ...jsonRequest(ReorderInput),
  },
  responses: {
    200: jsonResponse(z.object({ items: z.array(ItemSchema) }), "The listed items in order"),
    ...errors(400, 401, 403, 404),
  },
});

const num = (v: string | undefined) => v === undefined ? null : Number(v);

/** The to-do routes. */
export function todoRoutes(services: Services) {
  const { todos, checklists } = services;
  const body = (item: Item) => ({ item, attachments: item.attachments });
  return apiApp()
    .openapi(
      columns,
      async (c) =>
        c.json({ items: await todos.columns(actorOf(c), c.req.valid("param").projectId) }, 200),
    )
    .openapi(addColumn, async (c) => {
      const column = await todos.addColumn(
        actorOf(c),
        c.req.valid("param").projectId,
        c.req.valid("json"),
      );
      return c.json({ column }, 201);
    })
    .openapi(renameColumn, async (c) => {
      const { projectId, columnId } = c.req.valid("param");
      const column = await todos.renameColumn(actorOf(c), projectId, {
        columnId,
        name: c.req.valid("json").name,
      });
      return c.json({ column }, 200);
    })
    .openapi(removeColumn, async (c) => {
      const { projectId, columnId } = c.req.valid("param");
      await todos.removeColumn(actorOf(c), projectId, columnId);
      return c.body(null, 204);
    })
    .openapi(reorder, async (c) => {
      const input = c.req.valid("json");
      const items = await todos.reorder(actorOf(c), c.req.valid("param").projectId, {
        bodyProjectId: input.projectId,
        columnId: input.columnId,
        itemIds: input.itemIds,
      });
      return c.json({ items }, 200);
    })
    .openapi(list, async (c) => {
      const query = c.req.valid("query");
      const projectId = c.req.valid("param").projectId;
      const filters = {
        columnId: num(query.columnId),
        assigneeId: num(query.assigneeId),
        milestoneId: num(query.milestoneId),
      };
      if (filters.columnId === null) {
        if (query.limit !== undefined || query.after !== undefined || query.order) {
          throw invalid("columnId", "limit, after and order page one column: give columnId");
        }
        return c.json({ items: await todos.list(actorOf(c), projectId, filters) }, 200);
      }
      const page = await todos.page(actorOf(c), projectId, {
        ...filters,
        columnId: filters.columnId,
        limit: num(query.limit) ?? PAGE_DEFAULT,
        after: query.after ?? null,
        order: query.order,
      });
      return c.json(page, 200);
    })
    .openapi(create, async (c) => {
      const item = await todos.create(
        actorOf(c),
        c.req.valid("param").projectId,
        c.req.valid("json"),
      );
      return c.json(body(item), 201);
    })
    .openapi(get, async (c) => {
      const { projectId, itemId } = c.req.valid("param");
      const item = await todos.get(actorOf(c), projectId, itemId);
      const checklist = await checklists.list(actorOf(c), projectId, itemId);
      return c.json({ ...body(item), checklist }, 200);
    })
    .openapi(update, async (c) => {
      const { projectId, itemId } = c.req.valid("param");
      return c.json(
        body(await todos.update(actorOf(c), projectId, { itemId, ...c.req.valid("json") })),
        200,
      );
    })
    .openapi(remove, async (c) => {
      const { projectId, itemId } = c.req.valid("param");
      await todos.remove(actorOf(c), projectId, itemId);
      return c.body(null, 204);
    })
    .openapi(toggle, async (c) => {
      const { projectId, itemId } = c.req.valid("param");
      return c.json(body(await todos.toggleComplete(actorOf(c), projectId, itemId)), 200);
    })
    .openapi(move, async (c) => {
      const { projectId, itemId } = c.req.valid("param");
      return c.json(
        body(await todos.move(actorOf(c), projectId, { itemId, ...c.req.valid("json") })),
        200,
      );
    });
}
