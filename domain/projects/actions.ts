/**
 * The one way every write in a project records its consequences: an activity entry,
 * notifications (never to the actor, each also an event on its recipient's own stream) and
 * stream events, all inside the action's transaction; events are published and file bytes removed only after the commit. Each
 * event also queues its webhook deliveries in that transaction (the outbox).
 */
import { insertActivity } from "../../db/projects/activity.ts";
import { appendEvent, type EventRow } from "../../db/projects/events.ts";
import type { FileStore } from "../../db/kernel/file_store.ts";
import type { Engine, Queries } from "../../db/kernel/engine.ts";
import type { UserEventRow } from "../../db/projects/user_events.ts";
import type { Clock } from "../kernel/clock.ts";
import type { EventHub } from "./event_hub.ts";
import type { EventRelay } from "./event_relay.ts";
import type { Presence } from "../kernel/presence.ts";
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
  db: Engine;
  clock: Clock;
  hub: EventHub;
  files: FileStore;
  maxUploadBytes: number;
  /** Where committed stream events go (this instance's streams, and the others'). */
  relay: EventRelay;
  /** This instance among several (PostgreSQL): the number that marks what it holds. */
  presence: Presence;
  /** Called after a commit that queued webhook deliveries (wakes the sender). */
  onDeliveriesQueued?: () => void;
}

/**
 * Consequences an action records while it runs. They are written in the action's
 * transaction once its callback has finished, so recording one never waits.
 */
export interface Effects {
  /** The action's timestamp (one per action). */
  readonly now: string;
  activity(entry: ActivityEntry): void;
  notify(input: Omit<NotifyInput, "recipients"> & { recipients: Iterable<number> }): void;
  event(projectId: number, name: EventName, data: unknown): void;
  /** Removes stored bytes once the transaction has committed. */
  removeBytesAfterCommit(storedName: string): void;
}

/** An activity entry as an action records it. */
interface ActivityEntry {
  projectId: number;
  kind: ActivityKind;
  actorId: number;
  subjectType: SubjectType;
  subjectId: number;
  summary: string;
}

/**
 * Runs `fn` in one transaction (`tx`) and writes its effects there after it; publishes the
 * events once committed.
 */
export async function runAction<T>(
  ctx: DomainContext,
  fn: (tx: Queries, fx: Effects) => Promise<T>,
): Promise<T> {
  const activity: ActivityEntry[] = [];
  const notifications: NotifyInput[] = [];
  const projectEvents: Array<{ projectId: number; name: EventName; data: string }> = [];
  const events: EventRow[] = [];
  const userEvents: UserEventRow[] = [];
  const bytes: string[] = [];
  let queued = 0;
  const now = ctx.clock.now().toISOString();
  const fx: Effects = {
    now,
    activity: (entry) => activity.push(entry),
    notify: (input) => notifications.push({ ...input, recipients: [...input.recipients] }),
    event: (projectId, name, data) =>
      projectEvents.push({ projectId, name, data: JSON.stringify(data) }),
    removeBytesAfterCommit: (storedName) => bytes.push(storedName),
  };
  const result = await ctx.db.transaction(async (tx) => {
    const value = await fn(tx, fx);
    // In the order they were recorded, as when they were written at once.
    for (const entry of activity) await insertActivity(tx, { ...entry, createdAt: now });
    for (const input of notifications) {
      await notify(tx, ctx.clock, input, (e) => userEvents.push(e));
    }
    for (const e of projectEvents) {
      const event = await appendEvent(tx, { ...e, createdAt: now });
      events.push(event);
      queued += await queueDeliveries(tx, event, now);
    }
    await ctx.relay.announce(tx, events, userEvents);
    return value;
  });
  ctx.relay.committed(events, userEvents);
  for (const storedName of bytes) ctx.files.removeSync(storedName);
  if (queued > 0) ctx.onDeliveriesQueued?.();
  return result;
}
