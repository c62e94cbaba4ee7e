/**
 * Opening an event stream, a project's (members only) or the caller's own: the events missed
 * since `Last-Event-ID` are read and the live subscription is made in one synchronous step,
 * so nothing falls between replay and live delivery.
 */
import { type EventRow, EVENTS_KEPT, eventsAfter } from "../db/events.ts";
import { USER_EVENTS_KEPT, type UserEventRow, userEventsAfter } from "../db/user_events.ts";
import { projectAccess } from "./access.ts";
import type { Actor } from "./accounts.ts";
import type { DomainContext } from "./actions.ts";
import type { Subscriber } from "./event_hub.ts";

/** An opened stream: what to replay first, and how to leave. */
export interface OpenedStream {
  replay: Array<EventRow | UserEventRow>;
  unsubscribe: () => void;
}

/** Opens `projectId`'s stream for `actor` (404 for non-members, 429 over the limits). */
export function openStream(
  ctx: DomainContext,
  actor: Actor,
  input: {
    projectId: number;
    lastEventId: number | null;
    sessionIdHash: string | null;
    /** When the session expires (epoch ms), or null. */
    expiresAt: number | null;
    sink: Pick<Subscriber, "write" | "close">;
  },
): OpenedStream {
  projectAccess(ctx.db, actor, input.projectId);
  const replay = input.lastEventId === null
    ? []
    : eventsAfter(ctx.db, input.projectId, input.lastEventId, EVENTS_KEPT);
  const unsubscribe = ctx.hub.subscribe({
    projectId: input.projectId,
    userId: actor.id,
    sessionIdHash: input.sessionIdHash,
    expiresAt: input.expiresAt,
    write: input.sink.write,
    close: input.sink.close,
  });
  return { replay, unsubscribe };
}

/** Opens the caller's own stream (their notifications), replaying after `lastEventId`. */
export function openUserStream(
  ctx: DomainContext,
  actor: Actor,
  input: Omit<Parameters<typeof openStream>[2], "projectId">,
): OpenedStream {
  const replay = input.lastEventId === null
    ? []
    : userEventsAfter(ctx.db, actor.id, input.lastEventId, USER_EVENTS_KEPT);
  const unsubscribe = ctx.hub.subscribe({
    projectId: null,
    userId: actor.id,
    sessionIdHash: input.sessionIdHash,
    expiresAt: input.expiresAt,
    write: input.sink.write,
    close: input.sink.close,
  });
  return { replay, unsubscribe };
}

/** The event streams, for routes (which never hold the domain context). */
export function createStreams(ctx: DomainContext) {
  return {
    /** Opens a project's stream (see `openStream`). */
    open: (actor: Actor, input: Parameters<typeof openStream>[2]): OpenedStream =>
      openStream(ctx, actor, input),
    /** Opens the caller's own stream (see `openUserStream`). */
    openOwn: (actor: Actor, input: Parameters<typeof openUserStream>[2]): OpenedStream =>
      openUserStream(ctx, actor, input),
  };
}
