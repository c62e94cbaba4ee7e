/**
 * How committed stream events reach the event streams. On SQLite one instance serves them
 * all: the events are published here once their transaction commits. On PostgreSQL several
 * instances may serve one database: each transaction notifies the ids of its events (at the
 * commit), and every instance, this one included, reads the logs past the newest events it
 * published and publishes what it finds to its own streams. A notification is only a wake-up:
 * a read that fails is done again, and after a lost listening connection the instance reads
 * the logs every half second until it listens again (then reads once more), so its streams
 * miss nothing the logs still hold, whatever was lost on the way. On SQLite with several
 * isolates (`WORKERS`), the isolates are as instances: each commit is told to the others on the
 * isolate bus, and every isolate, the writer included, reads the logs past what it published
 * (one writer at a time, `db/sqlite/write_lock.ts`, so ids commit in order there too).
 */
import type { Engine, ListenHandlers, Listening, Queries } from "../../db/kernel/engine.ts";
import {
  EVENTS_CHANNEL,
  eventsSince,
  newestEventIds,
  notifyEvents,
} from "../../db/projects/event_relay.ts";
import type { EventRow } from "../../db/projects/events.ts";
import type { UserEventRow } from "../../db/projects/user_events.ts";
import type { IsolateBus } from "../kernel/isolate_bus.ts";
import type { EventHub } from "./event_hub.ts";

/** The most a read takes of each log at once. */
const CATCH_UP_BATCH = 5000;

/** How often the logs are read while not listening (or while reads fail). */
const POLL_MS = 500;

/** Committed events on their way to the streams (see the module's comment). */
export interface EventRelay {
  /** Inside the transaction that wrote `events`: tells the other instances (PostgreSQL). */
  announce(tx: Queries, events: EventRow[], userEvents: UserEventRow[]): Promise<void>;
  /** After that transaction's commit: publishes what this instance delivers itself. */
  committed(events: EventRow[], userEvents: UserEventRow[]): void;
  /**
   * Starts hearing the other instances (PostgreSQL); resolves once the first attempt to listen
   * ended (until listening, the logs are polled).
   */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The relay for `db`: local publishing on SQLite, notifications on PostgreSQL. */
export function createEventRelay(
  deps: { db: Engine; hub: EventHub; onError?: (error: unknown) => void; bus?: IsolateBus },
): EventRelay {
  const { db, hub, bus } = deps;
  if (!db.listen && !bus) {
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
  const listen = db.listen ? db.listen.bind(db) : busListening(bus!);
  // The newest ids published, so that a read neither repeats nor skips (ids of each log
  // commit in order: see db/projects/event_log.ts).
  const seen = { project: 0, user: 0 };
  let listening: Listening | null = null;
  let heard = false; // listening now
  let stopped = false;
  // The logs to read: those a notification named, or both (catching up).
  const due = { project: false, user: false };
  let reading: Promise<void> | null = null;
  let failing = false; // the last read failed (reported once until one succeeds)
  let poll: ReturnType<typeof setInterval> | undefined;
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
  // Polls while not listening, or while reads fail.
  const polling = (on: boolean) => {
    if (on && poll === undefined && !stopped) {
      poll = setInterval(() => wake({ project: true, user: true }), POLL_MS);
    } else if (!on && poll !== undefined) {
      clearInterval(poll);
      poll = undefined;
    }
  };
  // Reads the due logs past `seen` and publishes, one read at a time, until none is due.
  const read = async () => {
    while (!stopped && (due.project || due.user)) {
      const logs = { ...due };
      due.project = due.user = false;
      try {
        for (;;) {
          const found = await eventsSince(db, logs, seen, CATCH_UP_BATCH);
          publish(found.project, found.user);
          if (found.project.length < CATCH_UP_BATCH && found.user.length < CATCH_UP_BATCH) break;
        }
        failing = false;
        if (heard) polling(false);
      } catch (error) {
        // Read again by the poll (the database may be down: reported once until it is back).
        due.project ||= logs.project;
        due.user ||= logs.user;
        if (!failing) report(error);
        failing = true;
        polling(true);
        return;
      }
    }
  };
  const wake = (logs: { project: boolean; user: boolean }) => {
    // Stopped: nothing more is read. (A read that ends after the stop must not wake another:
    // that read would end at once with the logs still due, and wake the next, forever, in
    // promise callbacks that starve the event loop.)
    if (stopped) return;
    due.project ||= logs.project;
    due.user ||= logs.user;
    if (reading) return; // the read under way reads these too
    reading = read().finally(() => {
      reading = null;
      // Woken between the read's last look and now (a failed read is left to the poll).
      if (!failing && (due.project || due.user)) wake(due);
    });
  };
  // A payload names the ids of one transaction's events (`p:1;u:2`): the logs to read.
  const heardOf = (payload: string) =>
    wake({ project: payload.includes("p:"), user: payload.includes("u:") });
  const catchUp = () => wake({ project: true, user: true });

  return {
    async announce(tx, events, userEvents) {
      if (events.length === 0 && userEvents.length === 0 || !db.listen) return;
      await notifyEvents(tx, {
        project: events.map((e) => e.id),
        user: userEvents.map((e) => e.id),
      });
    },
    // Every instance publishes what it hears, its own events included. On the isolate bus
    // (SQLite), the commit is told here, to the others and to this isolate.
    committed(events, userEvents) {
      if (db.listen || events.length === 0 && userEvents.length === 0) return;
      const payload = [events.length > 0 ? "p:" : "", userEvents.length > 0 ? "u:" : ""].join(";");
      bus!.post({ kind: "events", payload });
      heardOf(payload);
    },
    async start() {
      if (listening) return;
      stopped = false;
      Object.assign(seen, await newestEventIds(db));
      listening = await listen(EVENTS_CHANNEL, {
        onPayload: heardOf,
        // Each time listening (re)starts, including the first: what was committed while not
        // listening (or between reading the newest ids and listening) is read now.
        onListening: () => {
          heard = true;
          catchUp();
        },
        onLost: () => {
          heard = false;
          polling(true);
        },
      });
      if (!heard) polling(true);
    },
    async stop() {
      stopped = true;
      polling(false);
      await listening?.close();
      listening = null;
      heard = false;
      await reading;
    },
  };
}

/** A `listen` over the isolate bus: listening from the start, never lost. */
function busListening(bus: IsolateBus) {
  return (_channel: string, handlers: ListenHandlers): Promise<Listening> => {
    let open = true;
    bus.listen((message) => {
      if (open && message.kind === "events") handlers.onPayload(message.payload);
    });
    handlers.onListening();
    return Promise.resolve({
      close() {
        open = false;
        return Promise.resolve();
      },
    });
  };
}
