/**
 * Opening an event stream, a project's (members only) or the caller's own: the live
 * subscription is made first and the events missed since `Last-Event-ID` are read after it,
 * so nothing falls between replay and live delivery.
 */
import { newestEventId } from "../../db/projects/event_relay.ts";
import { type EventRow, EVENTS_KEPT, eventsAfter } from "../../db/projects/events.ts";
import {
  USER_EVENTS_KEPT,
  type UserEventRow,
  userEventsAfter,
} from "../../db/projects/user_events.ts";
import { projectAccess } from "../accounts/access.ts";
import type { Actor } from "../accounts/accounts.ts";
import type { DomainContext } from "./actions.ts";
import type { Subscriber } from "./event_hub.ts";

/** An opened stream: what to replay first, and how to leave. */
export interface OpenedStream {
  replay: Array<EventRow | UserEventRow>;
  /**
   * Starts live delivery: call once the replay is written. Events published since the
   * subscription were held back until now, and those already in the replay are dropped.
   */
  release: () => void;
  unsubscribe: () => void;
}

type StreamInput = {
  lastEventId: number | null;
  sessionIdHash: string | null;
  /** When the session expires (epoch ms), or null. */
  expiresAt: number | null;
  sink: Pick<Subscriber, "write" | "close">;
};

/**
 * Subscribes first, holding live events back, and reads the replay after: an event committed
 * meanwhile is in the replay, held back, or both (then it is sent once), never lost.
 */
async function subscribeThenReplay(
  ctx: DomainContext,
  actor: Actor,
  projectId: number | null,
  input: StreamInput,
  read: (afterId: number) => Promise<Array<EventRow | UserEventRow>>,
  newest: () => Promise<number>,
): Promise<OpenedStream> {
  const held: Array<{ bytes: Uint8Array; id: number | undefined }> = [];
  let holding = true;
  // The last event the replay holds: a live event up to it was replayed already (one
  // published late, as another instance's reaches this one after its commit).
  let replayed = Number.MAX_SAFE_INTEGER;
  const live = (bytes: Uint8Array, id: number | undefined) => {
    if (id === undefined || id > replayed) input.sink.write(bytes, id);
  };
  const unsubscribe = ctx.hub.subscribe({
    projectId,
    userId: actor.id,
    sessionIdHash: input.sessionIdHash,
    expiresAt: input.expiresAt,
    seesEveryProject: actor.role === "admin",
    write: (bytes, id) => holding ? held.push({ bytes, id }) : live(bytes, id),
    close: input.sink.close,
  });
  let replay: Array<EventRow | UserEventRow> = [];
  try {
    if (input.lastEventId === null) {
      // Without Last-Event-ID the stream starts now: an event committed before is not sent,
      // even when it is published late (on PostgreSQL every instance hears of its events after
      // their commit). Ids commit in order, so those after the newest one now are the new ones.
      replayed = await newest();
    } else {
      replay = await read(input.lastEventId);
      replayed = replay.at(-1)?.id ?? input.lastEventId;
    }
  } catch (error) {
    unsubscribe();
    throw error;
  }
  const release = () => {
    if (!holding) return;
    holding = false;
    for (const { bytes, id } of held.splice(0)) {
      live(bytes, id);
    }
  };
  return { replay, release, unsubscribe };
}

/** Opens `projectId`'s stream for `actor` (404 for non-members, 429 over the limits). */
export async function openStream(
  ctx: DomainContext,
  actor: Actor,
  input: StreamInput & { projectId: number },
): Promise<OpenedStream> {
  await projectAccess(ctx.db, actor, input.projectId);
  return await subscribeThenReplay(
    ctx,
    actor,
    input.projectId,
    input,
    (afterId) => eventsAfter(ctx.db, input.projectId, afterId, EVENTS_KEPT),
    () => newestEventId(ctx.db, "project"),
  );
}

/** Opens the caller's own stream (their notifications), replaying after `lastEventId`. */
export function openUserStream(
  ctx: DomainContext,
  actor: Actor,
  input: StreamInput,
): Promise<OpenedStream> {
  return subscribeThenReplay(
    ctx,
    actor,
    null,
    input,
    (afterId) => userEventsAfter(ctx.db, actor.id, afterId, USER_EVENTS_KEPT),
    () => newestEventId(ctx.db, "user"),
  );
}

/** The event streams, for routes (which never hold the domain context). */
export function createStreams(ctx: DomainContext) {
  return {
    /** Opens a project's stream (see `openStream`). */
    open: (actor: Actor, input: Parameters<typeof openStream>[2]): Promise<OpenedStream> =>
      openStream(ctx, actor, input),
    /** Opens the caller's own stream (see `openUserStream`). */
    openOwn: (actor: Actor, input: StreamInput): Promise<OpenedStream> =>
      openUserStream(ctx, actor, input),
  };
}
