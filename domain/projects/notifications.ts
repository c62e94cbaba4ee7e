/**
 * Notifications: created inside the action's transaction (never for the actor), listed
 * unread and newest first, marked read only by their owner.
 */
import {
  findNotification,
  insertNotifications,
  listUnread,
  markAllRead,
  markNotificationRead,
  type NotificationLevel,
  notificationLevel,
  type NotificationRow,
  quietMembers,
  setNotificationLevel,
} from "../../db/projects/notifications.ts";
import { memberIds } from "../../db/projects/projects.ts";
import type { Engine, Queries } from "../../db/kernel/engine.ts";
import { appendUserEvent, type UserEventRow } from "../../db/projects/user_events.ts";
import { projectAccess } from "../accounts/access.ts";
import type { Actor } from "../accounts/accounts.ts";
import type { Clock } from "../kernel/clock.ts";
import { DomainError } from "../kernel/errors.ts";
import type { EventRelay } from "./event_relay.ts";
import { offsetOf, type Page, pageOf, type PageRequest } from "../kernel/paging.ts";

/** The notification kinds. */
export type NotificationKind =
  | "board_commented"
  | "todo_assigned"
  | "meeting_invited"
  | "meeting_updated"
  | "file_shared"
  | "note_updated"
  | "mention"
  | "member_added"
  | "webhook_disabled";

/** What a notification is about. */
export type SubjectType =
  | "project"
  | "thread"
  | "comment"
  | "note"
  | "message"
  | "item"
  | "file"
  | "event"
  | "milestone"
  | "meeting";

/** A notification as the API shows it. */
export interface Notification {
  id: number;
  kind: string;
  projectId: number | null;
  actorId: number | null;
  subjectType: string;
  subjectId: number;
  text: string;
  read: boolean;
  createdAt: string;
}

/** Shapes a stored notification for the API. */
export function toNotification(r: NotificationRow): Notification {
  return {
    id: r.id,
    kind: r.kind,
    projectId: r.projectId,
    actorId: r.actorId,
    subjectType: r.subjectType,
    subjectId: r.subjectId,
    text: r.text,
    read: r.readAt !== null,
    createdAt: r.createdAt,
  };
}

/** One notification to send. */
export interface NotifyInput {
  kind: NotificationKind;
  projectId: number | null;
  actorId: number;
  subjectType: SubjectType;
  subjectId: number;
  /** A short plain-text summary (a title or name), shown with the translated kind. */
  text: string;
  recipients: Iterable<number>;
}

/** The kinds a member whose level is `mentions` still receives: those addressed to them. */
export const PERSONAL_KINDS: ReadonlySet<string> = new Set([
  "mention",
  "todo_assigned",
  "meeting_invited",
]);

export type { NotificationLevel };

/** The notification levels of a project, quietest last. */
export const NOTIFICATION_LEVELS = ["all", "mentions", "none"] as const;

/** Where the events of users' own streams go once written (published after the commit). */
export type UserEventSink = (event: UserEventRow) => void;

/** Appends an event to a user's own stream log. Call inside the write's transaction. */
export async function userEvent(
  q: Queries,
  at: string,
  sink: UserEventSink,
  e: { userId: number; name: "notification.created" | "notification.read"; data: unknown },
): Promise<void> {
  sink(
    await appendUserEvent(q, {
      userId: e.userId,
      name: e.name,
      data: JSON.stringify(e.data),
      createdAt: at,
    }),
  );
}

/**
 * Notifies each recipient once, never the actor, and only current members when the
 * notification belongs to a project, as far as their level for that project lets it through.
 * Each new notification is a `notification.created` event on its recipient's own stream.
 * Call inside the action's transaction.
 */
export async function notify(
  q: Queries,
  clock: Clock,
  input: NotifyInput,
  sink: UserEventSink,
): Promise<void> {
  const members = input.projectId === null ? null : new Set(await memberIds(q, input.projectId));
  const quiet = input.projectId === null ? new Map() : await quietMembers(q, input.projectId);
  const recipients = [...new Set(input.recipients)].filter((id) => {
    if (id === input.actorId || (members !== null && !members.has(id))) return false;
    const level = quiet.get(id);
    return level === undefined || (level === "mentions" && PERSONAL_KINDS.has(input.kind));
  });
  if (recipients.length === 0) return;
  const createdAt = clock.now().toISOString();
  const rows = await insertNotifications(q, recipients, {
    kind: input.kind,
    projectId: input.projectId,
    actorId: input.actorId,
    subjectType: input.subjectType,
    subjectId: input.subjectId,
    text: input.text,
    createdAt,
  });
  for (const row of rows) {
    await userEvent(q, createdAt, sink, {
      userId: row.userId,
      name: "notification.created",
      data: toNotification(row),
    });
  }
}

/** The notification operations of one user. */
export function createNotifications(deps: { db: Engine; clock: Clock; relay: EventRelay }) {
  const { db, clock, relay } = deps;
  /** Runs a write that may tell the caller's stream; publishes after the commit. */
  const withEvents = async <T>(fn: (tx: Queries, sink: UserEventSink) => Promise<T>) => {
    const events: UserEventRow[] = [];
    const result = await db.transaction(async (tx) => {
      const value = await fn(tx, (e) => events.push(e));
      await relay.announce(tx, [], events);
      return value;
    });
    relay.committed([], events);
    return result;
  };
  /** Tells the caller's own streams which notifications were read, and how many are left. */
  const readEvent = async (
    tx: Queries,
    sink: UserEventSink,
    userId: number,
    ids: number[],
    at: string,
  ) =>
    await userEvent(tx, at, sink, {
      userId,
      name: "notification.read",
      data: { ids, unreadCount: (await listUnread(tx, userId, 0, 0)).total },
    });
  return {
    /** A page of the caller's unread notifications, newest first, plus the unread count. */
    async listUnread(
      actor: Actor,
      request: PageRequest,
    ): Promise<Page<Notification> & { unreadCount: number }> {
      const { items, total } = await listUnread(db, actor.id, request.pageSize, offsetOf(request));
      return { ...pageOf(items.map(toNotification), total, request), unreadCount: total };
    },

    /** The caller's unread count. */
    async unreadCount(actor: Actor): Promise<number> {
      return (await listUnread(db, actor.id, 0, 0)).total;
    },

    /** Marks one of the caller's notifications read; another user's is `not_found`. */
    markRead(actor: Actor, id: number): Promise<Notification> {
      return withEvents(async (tx, sink) => {
        const found = await findNotification(tx, id, actor.id);
        if (!found) throw new DomainError("not_found", "No such notification");
        const at = clock.now().toISOString();
        const marked = toNotification(await markNotificationRead(tx, id, at));
        if (found.readAt === null) await readEvent(tx, sink, actor.id, [id], at);
        return marked;
      });
    },

    /** Marks every unread notification of the caller read; returns how many were. */
    markAllRead(actor: Actor): Promise<{ updated: number }> {
      return withEvents(async (tx, sink) => {
        const at = clock.now().toISOString();
        const ids = await markAllRead(tx, actor.id, at);
        if (ids.length > 0) await readEvent(tx, sink, actor.id, ids, at);
        return { updated: ids.length };
      });
    },

    /** The caller's notification level for a project (members only, else `not_found`). */
    async level(actor: Actor, projectId: number): Promise<NotificationLevel> {
      await projectAccess(db, actor, projectId);
      return await notificationLevel(db, projectId, actor.id) ?? "all";
    },

    /**
     * Sets the caller's notification level for a project. An admin who is not a member gets
     * no notifications from it anyway, so is refused (`forbidden`).
     */
    setLevel(
      actor: Actor,
      projectId: number,
      level: NotificationLevel,
    ): Promise<NotificationLevel> {
      return db.transaction(async (tx) => {
        await projectAccess(tx, actor, projectId);
        if (!await setNotificationLevel(tx, projectId, actor.id, level)) {
          throw new DomainError("forbidden", "Cannot set a notification level: not a member");
        }
        return level;
      });
    },
  };
}

/** The notification operations' type. */
export type Notifications = ReturnType<typeof createNotifications>;
