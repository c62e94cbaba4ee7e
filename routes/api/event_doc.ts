/**
 * The project stream's events in the OpenAPI document: one component per event name (the
 * body a webhook receives, whose `data` is what the stream's `data:` line carries), from the
 * one list of names the domain keeps. A name without its data here fails to compile.
 */
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { EVENT_NAMES, type EventName } from "../../domain/projects/event_names.ts";
import { IdOut, TimestampOut } from "./openapi.ts";
import { EventSchema, MeetingSchema, MilestoneSchema } from "./planning.ts";
import {
  ColumnSchema,
  CommentSchema,
  FileSchema,
  ItemSchema,
  MemberSchema,
  MessageSchema,
  NoteSchema,
  ProjectSchema,
  ThreadSchema,
} from "./schemas.ts";
import { TrashRefSchema } from "./trash.ts";

type OpenAPIRegistry = OpenAPIHono["openAPIRegistry"];

const Deleted = z.object({ id: IdOut, projectId: IdOut }).openapi("DeletedRef", {
  description: "What a delete event carries: the deleted resource's id and project",
});
const CommentDeleted = z.object({ id: IdOut, projectId: IdOut, threadId: IdOut });
const TodoUpdated = z.object({
  projectId: IdOut,
  itemIds: z.array(IdOut),
  columnId: IdOut.optional(),
  action: z.enum(["edited", "moved", "reordered", "checklist", "attachments"]),
}).openapi("TodoUpdatedData", {
  description: "Items changed: `edited` fields, a `checklist` change, new `attachments`, " +
    "a move or a reorder (`columnId`: the column they are in)",
});
const MemberEvent = MemberSchema.extend({ projectId: IdOut }).openapi("MemberEventData");
const MemberRemoved = z.object({ projectId: IdOut, userId: IdOut });
const ProjectEvent = ProjectSchema.omit({ myRole: true }).openapi("ProjectEventData", {
  description: "The project as the API shows it, without the reader's own `myRole`",
});

/** Each event's `data`. */
export const EVENT_DATA: Record<EventName, z.ZodType> = {
  "chat.message.created": MessageSchema,
  "chat.message.updated": MessageSchema,
  "chat.message.deleted": MessageSchema,
  "board.thread.created": ThreadSchema,
  "board.thread.updated": ThreadSchema,
  "board.thread.deleted": Deleted,
  "board.comment.created": CommentSchema,
  "board.comment.updated": CommentSchema,
  "board.comment.deleted": CommentDeleted,
  "note.created": NoteSchema,
  "note.updated": NoteSchema,
  "note.deleted": Deleted,
  "todo.created": ItemSchema,
  "todo.updated": TodoUpdated,
  "todo.completed": ItemSchema,
  "todo.reopened": ItemSchema,
  "todo.deleted": Deleted,
  "todo.column.created": ColumnSchema,
  "todo.column.updated": ColumnSchema,
  "todo.column.deleted": Deleted,
  "milestone.created": MilestoneSchema,
  "milestone.updated": MilestoneSchema,
  "calendar.event.created": EventSchema,
  "calendar.event.updated": EventSchema,
  "calendar.event.deleted": Deleted,
  "meeting.created": MeetingSchema,
  "meeting.updated": MeetingSchema,
  "meeting.deleted": Deleted,
  "file.uploaded": FileSchema,
  "file.deleted": Deleted,
  "member.added": MemberEvent,
  "member.updated": MemberEvent,
  "member.removed": MemberRemoved,
  "project.updated": ProjectEvent,
  "project.archived": ProjectEvent,
  "project.unarchived": ProjectEvent,
  "item.restored": TrashRefSchema,
};

/** An event's component name: `board.thread.created` → `BoardThreadCreatedEvent`. */
export function eventComponent(name: EventName): string {
  return name.split(".").map((part) => part[0]!.toUpperCase() + part.slice(1)).join("") +
    "Event";
}

/**
 * Adds a component per event (the webhook body, with its stream `data`) and, for each, the
 * webhook a subscribed receiver is sent (the document's `webhooks`, which is where the
 * components are used).
 */
export function registerEventDocs(registry: OpenAPIRegistry): void {
  for (const name of EVENT_NAMES) {
    const body = registry.register(
      eventComponent(name),
      z.object({
        id: IdOut.openapi({ description: "The stream event's id (its SSE `id:`)" }),
        event: z.literal(name),
        projectId: IdOut,
        occurredAt: TimestampOut,
        data: EVENT_DATA[name],
      }).openapi({
        description: `\`${name}\`: the webhook body; \`data\` is the stream event's data`,
      }),
    );
    registry.registerWebhook({
      method: "post",
      path: name,
      operationId: `webhook_${name.replaceAll(".", "_")}`,
      summary: `The \`${name}\` event, sent to a webhook subscribed to it`,
      tags: ["webhooks"],
      security: [],
      request: { body: { content: { "application/json": { schema: body } }, required: true } },
      responses: {
        200: { description: "Received: any 2xx answer ends the delivery" },
        400: {
          description: "Refused: any other answer (or none) is a failed attempt, tried again " +
            "on the retry schedule",
        },
      },
    });
  }
}
