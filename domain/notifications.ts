/**
 * Notifications: created inside the action's transaction (never for the actor), listed
 * unread and newest first, marked read only by their owner.
 */
import {
  findNotification,
  insertNotifications,
  listUnread,
  markNotificationRead,
  type NotificationRow,
} from "../db/notifications.ts";
import { memberIds } from "../db/projects.ts";
import type { Database } from "../db/sqlite.ts";
import type { Actor } from "./accounts.ts";
import type { Clock } from "./clock.ts";
import { DomainError } from "./errors.ts";
import { offsetOf, type Page, pageOf, type PageRequest } from "./paging.ts";

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

/**
 * Notifies each recipient once, never the actor, and only current members when the
 * notification belongs to a project. Call inside the action's transaction.
 */
export function notify(db: Database, clock: Clock, input: NotifyInput): void {
  const members = input.projectId === null ? null : new Set(memberIds(db, input.projectId));
  const recipients = [...new Set(input.recipients)].filter((id) =>
    id !== input.actorId && (members === null || members.has(id))
  );
  if (recipients.length === 0) return;
  insertNotifications(db, recipients, {
    kind: input.kind,
    projectId: input.projectId,
    actorId: input.actorId,
    subjectType: input.subjectType,
    subjectId: input.subjectId,
    text: input.text,
    createdAt: clock.now().toISOString(),
  });
}

/** The notification operations of one user. */
export function createNotifications(deps: { db: Database; clock: Clock }) {
  const { db, clock } = deps;
  return {
    /** A page of the caller's unread notifications, newest first, plus the unread count. */
    listUnread(actor: Actor, request: PageRequest): Page<Notification> & { unreadCount: number } {
      const { items, total } = listUnread(db, actor.id, request.pageSize, offsetOf(request));
      return { ...pageOf(items.map(toNotification), total, request), unreadCount: total };
    },

    /** The caller's unread count. */
    unreadCount(actor: Actor): number {
      return listUnread(db, actor.id, 0, 0).total;
    },

    /** Marks one of the caller's notifications read; another user's is `not_found`. */
    markRead(actor: Actor, id: number): Notification {
      return db.tx(() => {
        if (!findNotification(db, id, actor.id)) {
          throw new DomainError("not_found", "No such notification");
        }
        return toNotification(markNotificationRead(db, id, clock.now().toISOString()));
      });
    },
  };
}

/** The notification operations' type. */
export type Notifications = ReturnType<typeof createNotifications>;
