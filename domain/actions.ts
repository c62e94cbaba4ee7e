/**
 * The one way every write in a project records its consequences: an activity entry,
 * notifications (never to the actor, each also an event on its recipient's own stream) and
 * stream events, all inside the action's transaction; events are published and file bytes removed only after the commit. Each
 * event also queues its webhook deliveries in that transaction (the outbox).
 */
import { insertActivity } from "../db/activity.ts";
import { appendEvent, type EventRow } from "../db/events.ts";
import type { FileStore } from "../db/file_store.ts";
import type { Database } from "../db/sqlite.ts";
import type { UserEventRow } from "../db/user_events.ts";
import type { Clock } from "./clock.ts";
import type { EventHub } from "./event_hub.ts";
import { notify, type NotifyInput, type SubjectType } from "./notifications.ts";
import { queueDeliveries } from "./webhook_outbox.ts";

/** The activity kinds. */
export type ActivityKind =
  | "board_posted"
  | "comment_added"
  | "note_created"
  | "note_updated"
  | "todo_created"
  | "todo_updated"
  | "todo_completed"
  | "file_uploaded"
  | "meeting_created"
  | "milestone_updated"
  | "item_restored";

/** The stream event names. */
export type EventName =
  | "chat.message.created"
  | "chat.message.updated"
  | "chat.message.deleted"
  | "todo.updated"
  | "file.uploaded"
  | "meeting.created"
  | "item.restored";

/** What project domain code is built with. */
export interface DomainContext {
  db: Database;
  clock: Clock;
  hub: EventHub;
  files: FileStore;
  maxUploadBytes: number;
  /** Called after a commit that queued webhook deliveries (wakes the sender). */
  onDeliveriesQueued?: () => void;
}

/** Consequences an action records while it runs. */
export interface Effects {
  /** The action's timestamp (one per action). */
  readonly now: string;
  activity(entry: {
    projectId: number;
    kind: ActivityKind;
    actorId: number;
    subjectType: SubjectType;
    subjectId: number;
    summary: string;
  }): void;
  notify(input: Omit<NotifyInput, "recipients"> & { recipients: Iterable<number> }): void;
  event(projectId: number, name: EventName, data: unknown): void;
  /** Removes stored bytes once the transaction has committed. */
  removeBytesAfterCommit(storedName: string): void;
}

/** Runs `fn` in one transaction with its effects; publishes events after the commit. */
export function runAction<T>(ctx: DomainContext, fn: (fx: Effects) => T): T {
  const events: EventRow[] = [];
  const userEvents: UserEventRow[] = [];
  const bytes: string[] = [];
  let queued = 0;
  const now = ctx.clock.now().toISOString();
  const result = ctx.db.tx(() =>
    fn({
      now,
      activity: (entry) => insertActivity(ctx.db, { ...entry, createdAt: now }),
      notify: (input) =>
        notify(
          ctx.db,
          ctx.clock,
          { ...input, recipients: [...input.recipients] },
          (e) => userEvents.push(e),
        ),
      event: (projectId, name, data) => {
        const event = appendEvent(ctx.db, {
          projectId,
          name,
          data: JSON.stringify(data),
          createdAt: now,
        });
        events.push(event);
        queued += queueDeliveries(ctx.db, event, now);
      },
      removeBytesAfterCommit: (storedName) => bytes.push(storedName),
    })
  );
  for (const event of events) ctx.hub.publish(event);
  for (const event of userEvents) ctx.hub.publishToUser(event);
  for (const storedName of bytes) ctx.files.removeSync(storedName);
  if (queued > 0) ctx.onDeliveriesQueued?.();
  return result;
}
