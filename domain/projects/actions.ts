/**
 * The one way every write in a project records its consequences: an activity entry,
 * notifications (never to the actor, each also an event on its recipient's own stream) and
 * stream events, all inside the action's transaction; events are published and file bytes removed only after the commit. Each
 * event also queues its webhook deliveries in that transaction (the outbox).
 *
 * Every action declares the stream events it writes (`emits`), and `runAction` holds it to
 * that: an event it did not declare, or none of those it declared (unless it said it changed
 * nothing), fails the action, so a change cannot leave its event out unnoticed.
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
import type { EventName } from "./event_names.ts";

export type { EventName } from "./event_names.ts";

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

/**
 * What an action writes to its project's stream: the events it may record. It records at
 * least one of them (unless it calls `fx.unchanged()`), and no other; `NO_EVENTS` for a write
 * that is not a change of a project's resources (a purge, a sweep).
 */
export interface ActionSpec {
  readonly events: readonly EventName[];
}

/** An action's spec: the events it records (the first is its own, the rest side effects). */
export function emits(...events: EventName[]): ActionSpec {
  return { events };
}

/** The spec of a write that changes no resource a stream follows. */
export const NO_EVENTS: ActionSpec = { events: [] };

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
  /** Says the action changed nothing (so it records none of its events). */
  unchanged(): void;
  /**
   * Runs `fn` in the transaction once the notifications are written, with their events on
   * the recipients' own streams (to mark those mailed otherwise as mailed).
   */
  afterNotify(fn: (tx: Queries, userEvents: readonly UserEventRow[]) => Promise<void>): void;
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
  spec: ActionSpec,
  fn: (tx: Queries, fx: Effects) => Promise<T>,
): Promise<T> {
  const activity: ActivityEntry[] = [];
  const notifications: NotifyInput[] = [];
  const projectEvents: Array<{ projectId: number; name: EventName; data: string }> = [];
  const events: EventRow[] = [];
  const userEvents: UserEventRow[] = [];
  const bytes: string[] = [];
  let queued = 0;
  let unchanged = false;
  const afterNotify: Array<(tx: Queries, e: readonly UserEventRow[]) => Promise<void>> = [];
  const now = ctx.clock.now().toISOString();
  const fx: Effects = {
    now,
    activity: (entry) => activity.push(entry),
    notify: (input) => notifications.push({ ...input, recipients: [...input.recipients] }),
    event: (projectId, name, data) =>
      projectEvents.push({ projectId, name, data: JSON.stringify(data) }),
    removeBytesAfterCommit: (storedName) => bytes.push(storedName),
    unchanged: () => unchanged = true,
    afterNotify: (fn) => afterNotify.push(fn),
  };
  const result = await ctx.db.transaction(async (tx) => {
    const value = await fn(tx, fx);
    checkEvents(spec, projectEvents, unchanged);
    // In the order they were recorded, as when they were written at once.
    for (const entry of activity) await insertActivity(tx, { ...entry, createdAt: now });
    for (const input of notifications) {
      await notify(tx, ctx.clock, input, (e) => userEvents.push(e));
    }
    for (const after of afterNotify) await after(tx, userEvents);
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

/** Throws (a programming error) when an action's events differ from what it declared. */
function checkEvents(
  spec: ActionSpec,
  recorded: ReadonlyArray<{ name: EventName }>,
  unchanged: boolean,
): void {
  const stray = recorded.find((e) => !spec.events.includes(e.name));
  if (stray) throw new Error(`The action recorded ${stray.name}, which it does not declare`);
  if (spec.events.length > 0 && recorded.length === 0 && !unchanged) {
    throw new Error(`The action recorded none of its events (${spec.events.join(", ")})`);
  }
}
