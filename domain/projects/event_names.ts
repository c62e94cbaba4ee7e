/**
 * The names of a project's stream events, grouped by the resource they follow: the one list
 * the domain's actions, the webhook subscription check, the webhook form and the OpenAPI
 * document all read. Every create, update, delete and restore of a project's resources is
 * one of these events.
 */
export const EVENT_GROUPS = {
  chat: ["chat.message.created", "chat.message.updated", "chat.message.deleted"],
  board: [
    "board.thread.created",
    "board.thread.updated",
    "board.thread.deleted",
    "board.comment.created",
    "board.comment.updated",
    "board.comment.deleted",
  ],
  notes: ["note.created", "note.updated", "note.deleted"],
  todos: [
    "todo.created",
    "todo.updated",
    "todo.completed",
    "todo.reopened",
    "todo.deleted",
    "todo.column.created",
    "todo.column.updated",
    "todo.column.deleted",
  ],
  milestones: ["milestone.created", "milestone.updated"],
  calendar: ["calendar.event.created", "calendar.event.updated", "calendar.event.deleted"],
  meetings: ["meeting.created", "meeting.updated", "meeting.deleted"],
  files: ["file.uploaded", "file.deleted"],
  members: ["member.added", "member.updated", "member.removed"],
  project: ["project.updated", "project.archived", "project.unarchived"],
  trash: ["item.restored"],
} as const;

/** A group of events (the resource they follow). */
export type EventGroup = keyof typeof EVENT_GROUPS;

/** A project stream event's name. */
export type EventName = typeof EVENT_GROUPS[EventGroup][number];

/** Every event name, in the groups' order. */
export const EVENT_NAMES: readonly EventName[] = Object.values(EVENT_GROUPS).flat();

/** Whether `name` is a project stream event's name. */
export function isEventName(name: string): name is EventName {
  return (EVENT_NAMES as readonly string[]).includes(name);
}
