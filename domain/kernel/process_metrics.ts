/**
 * `/metrics` for the whole process when it serves on several isolates (`WORKERS` above 1): the
 * isolate a scrape reached asks the others on the bus for their series and merges them with its
 * own (`Metrics.render`). Each isolate answers the others' asks with its own series.
 */
import type { BusMessage, IsolateBus } from "./isolate_bus.ts";
import type { Metrics, MetricsSnapshot } from "./metrics.ts";

/**
 * How long a scrape waits for the other isolates; one busy past it (or ended and not yet
 * replaced) makes the scrape fail rather than answer a partial sum.
 */
export const PEER_WAIT_MS = 5_000;

/** Shares `metrics` with the other isolates on `bus`, and gathers theirs at each scrape. */
export function shareMetrics(bus: IsolateBus, metrics: Metrics, waitMs = PEER_WAIT_MS): void {
  const asks = new Map<string, { got: MetricsSnapshot[]; done(all: boolean): void }>();
  bus.listen((message: BusMessage) => {
    if (message.kind === "metricsAsk") {
      metrics.snapshot().then(
        (snapshot) => bus.post({ kind: "metricsReply", id: message.id, snapshot }),
        () => {}, // the asker's scrape fails when this one stays silent
      );
    } else if (message.kind === "metricsReply") {
      const ask = asks.get(message.id);
      if (!ask) return; // another isolate's ask, or one given up
      ask.got.push(message.snapshot);
      if (ask.got.length >= bus.peers) ask.done(true);
    }
  });
  metrics.setPeers(() => {
    if (bus.peers === 0) return Promise.resolve([]);
    const id = crypto.randomUUID();
    return new Promise((resolve) => {
      const got: MetricsSnapshot[] = [];
      const timer = setTimeout(() => ask.done(false), waitMs);
      const ask = {
        got,
        done(all: boolean) {
          clearTimeout(timer);
          asks.delete(id);
          resolve(all ? got : null);
        },
      };
      asks.set(id, ask);
      bus.post({ kind: "metricsAsk", id });
    });
  });
}
