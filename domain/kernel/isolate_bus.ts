/**
 * What the isolates of one server process (`WORKERS` above 1) tell each other: that events
 * were committed (each reads them from the logs, `event_relay.ts`), that webhook deliveries or
 * mail were queued (the primary, which alone sends, looks at once), and which event streams
 * end (a sign-out through one isolate ends the session's streams on all), and each isolate's
 * metrics for the one a scrape reached (`process_metrics.ts`). A `BroadcastChannel` of a name the
 * primary draws: every isolate hears every other, never itself.
 */
import type { MetricsSnapshot } from "./metrics.ts";

/** A message between isolates. */
export type BusMessage =
  /** Events were committed: `p:`/`u:` name the logs to read (`db/projects/event_relay.ts`). */
  | { kind: "events"; payload: string }
  /** Deliveries or mail were queued: the senders look now, not at their next poll. */
  | { kind: "queued"; what: "webhooks" | "mail" }
  /** A user's streams end, or only those of the projects not in `keepProjects`. */
  | { kind: "closeUser"; userId: number; keepProjects?: number[] }
  /** The streams opened with one session (or token key) end. */
  | { kind: "closeSession"; idHash: string }
  /** A project's streams end, or only one user's of it. */
  | { kind: "closeProject"; projectId: number; userId?: number }
  /** A scrape reached the isolate that asks: every other answers with its series. */
  | { kind: "metricsAsk"; id: string }
  | { kind: "metricsReply"; id: string; snapshot: MetricsSnapshot };

/** The bus as one isolate sees it. */
export interface IsolateBus {
  /** How many other isolates hear this one. */
  readonly peers: number;
  /** Tells every other isolate. */
  post(message: BusMessage): void;
  /** Hears the other isolates (each listener gets every message). */
  listen(listener: (message: BusMessage) => void): void;
  close(): void;
}

/** The bus named `name` (the same in every isolate of the process), heard by `peers` others. */
export function isolateBus(name: string, peers: number): IsolateBus {
  const channel = new BroadcastChannel(name);
  const listeners: Array<(message: BusMessage) => void> = [];
  channel.onmessage = (event: MessageEvent<BusMessage>) => {
    for (const listener of listeners) listener(event.data);
  };
  return {
    peers,
    post: (message) => channel.postMessage(message),
    listen: (listener) => void listeners.push(listener),
    close: () => channel.close(),
  };
}
