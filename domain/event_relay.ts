/**
 * How committed stream events reach the event streams. On SQLite one instance serves them
 * all: the events are published here once their transaction commits. On PostgreSQL several
 * instances may serve one database: each transaction notifies the ids of its events (at the
 * commit), and every instance, this one included, reads those events from the logs and
 * publishes them to its own streams. After a lost listening connection an instance catches up
 * from the logs, so its streams miss nothing the logs still hold.
 */
import type { Engine, Listening, Queries } from "../db/engine.ts";
import {
  EVENTS_CHANNEL,
  eventsSince,
  newestEventIds,
  notifyEvents,
  parseEventPayload,
  projectEventsByIds,
  userEventsByIds,
} from "../db/event_relay.ts";
import type { EventRow } from "../db/events.ts";
import type { UserEventRow } from "../db/user_events.ts";
import type { EventHub } from "./event_hub.ts";

/** The most a catch-up reads of each log at once. */
const CATCH_UP_BATCH = 5000;

/** Committed events on their way to the streams (see the module's comment). */
export interface EventRelay {
  /** Inside the transaction that wrote `events`: tells the other instances (PostgreSQL). */
  announce(tx: Queries, events: EventRow[], userEvents: UserEventRow[]): Promise<void>;
  /** After that transaction's commit: publishes what this instance delivers itself. */
  committed(events: EventRow[], userEvents: UserEventRow[]): void;
  /** Starts hearing the other instances (PostgreSQL); resolves once listening. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The relay for `db`: local publishing on SQLite, notifications on PostgreSQL. */
export function createEventRelay(
  deps: { db: Engine; hub: EventHub; onError?: (error: unknown) => void },
): EventRelay {
  const { db, hub } = deps;
  if (!db.listen) {
    return {
      announce: () => Promise.resolve(),
      committed(events, userEvents) {
        for (const event of events) hub.publish(event);
        for (const event of userEvents) hub.publishToUser(event);
      },
      start: () => Promise.resolve(),
      stop: () => Promise.resolve(),
    };
  }
  const listen = db.listen.bind(db);
  // The newest ids published, so that a catch-up neither repeats nor skips (ids of each log
  // commit in order: see db/event_log.ts).
  const seen = { project: 0, user: 0 };
  let listening: Listening | null = null;
  // Deliveries run one after another, in the order the notifications came.
  let queue: Promise<void> = Promise.resolve();
  const report = deps.onError ?? (() => {});

  const publish = (events: EventRow[], userEvents: UserEventRow[]) => {
    for (const event of events) {
      if (event.id <= seen.project) continue;
      seen.project = event.id;
      hub.publish(event);
    }
    for (const event of userEvents) {
      if (event.id <= seen.user) continue;
      seen.user = event.id;
      hub.publishToUser(event);
    }
  };
  const later = (work: () => Promise<void>) => {
    queue = queue.then(work).catch(report);
  };
  const deliver = (payload: string) =>
    later(async () => {
      const ids = parseEventPayload(payload);
      publish(await projectEventsByIds(db, ids.project), await userEventsByIds(db, ids.user));
    });
  const catchUp = () =>
    later(async () => {
      for (;;) {
        const { project, user } = await eventsSince(db, seen, CATCH_UP_BATCH);
        publish(project, user);
        if (project.length < CATCH_UP_BATCH && user.length < CATCH_UP_BATCH) return;
      }
    });

  return {
    async announce(tx, events, userEvents) {
      if (events.length === 0 && userEvents.length === 0) return;
      await notifyEvents(tx, {
        project: events.map((e) => e.id),
        user: userEvents.map((e) => e.id),
      });
    },
    // Every instance publishes what it hears, its own events included.
    committed: () => {},
    async start() {
      if (listening) return;
      Object.assign(seen, await newestEventIds(db));
      let first = true;
      listening = await listen(EVENTS_CHANNEL, {
        onPayload: deliver,
        onListening: () => {
          if (first) first = false;
          else catchUp();
        },
      });
    },
    async stop() {
      await listening?.close();
      listening = null;
      await queue;
    },
  };
}
