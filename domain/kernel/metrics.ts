/**
 * The server's Prometheus metrics (operations: "Metrics"): one registry per application, so
 * each process (and each test app) counts only its own. Counters and histograms are
 * prom-client's; the process figures are read from Deno and /proc when scraped. Labels are
 * bounded sets only: a route's template, a SOAP operation, a status, never a raw path or id.
 *
 * The series counted at every request (requests, their durations, SOAP calls, loan decisions)
 * are plain numbers updated in place, which prom-client's registry reads when scraped
 * (`requestSeries`, `counterSeries`): prom-client's own `inc` and `observe` check and hash the
 * labels at each call, about 4 µs a SOAP request, a seventh of its whole cost
 * (docs/decisions/0010-prometheus-client.md).
 *
 * With `WORKERS` above 1 a scrape reaches one isolate, which asks the others for their series
 * (`setPeers`) and answers for the whole process: counters and histograms summed, streams
 * summed, and what every isolate reads alike (the process's CPU and memory, the outboxes) taken
 * once (prom-client's `AggregatorRegistry`, made for Node's cluster workers).
 */
import {
  AggregatorRegistry,
  Counter,
  Gauge,
  Histogram,
  type MetricObjectWithValues,
  type MetricValue,
  Registry,
} from "prom-client";

/** Request durations: SOAP calls take about a millisecond, exports and uploads seconds. */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Transactions: a group commit is a few milliseconds; an import batch much longer. */
const TRANSACTION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5];

/** What the scrape asks the database and the hub for (gauges read when scraped). */
export interface MetricsSources {
  /** Event streams open now. */
  streamsOpen(): number;
  /** Webhook events and deliveries waiting to be sent. */
  webhookPending(): Promise<number>;
  /** Mails waiting to be sent. */
  mailPending(): Promise<number>;
}

/** One isolate's series as they stand, to be merged with the others' (`setPeers`). */
export type MetricsSnapshot = MetricObjectWithValues<MetricValue<string>>[];

/** The application's metrics. */
export interface Metrics {
  /** A request answered: its method, route template and status, and how long it took. */
  request(method: string, route: string, status: number, seconds: number): void;
  /** A SOAP call answered (`outcome`: `ok` or `fault`). */
  soap(operation: string, outcome: "ok" | "fault"): void;
  /** A loan decision recorded. */
  loanDecision(approved: boolean, reason: string): void;
  /** Events committed and handed to the streams. */
  eventsPublished(count: number): void;
  /** A webhook attempt's outcome written (`succeeded`, `failed`, or `retry`). */
  webhookDelivery(status: string): void;
  /** A mail attempt's outcome written (`sent`, `failed`, or `retry`). */
  mailSent(status: string): void;
  /** A database transaction ended (committed or rolled back). */
  transaction(seconds: number): void;
  /** Where the gauges read from; set once the services exist. */
  setSources(sources: MetricsSources): void;
  /** The text exposition format. */
  readonly contentType: string;
  /**
   * Where the other isolates' snapshots come from at a scrape (`WORKERS` above 1): all of
   * them, or null when one did not answer in time.
   */
  setPeers(gather: () => Promise<MetricsSnapshot[] | null>): void;
  /** This isolate's series as they stand. */
  snapshot(): Promise<MetricsSnapshot>;
  /**
   * The current values of the process in the text exposition format; null when another
   * isolate did not answer (a partial sum would read as a counter reset).
   */
  render(): Promise<string | null>;
}

/** Builds a registry of its own for one application. */
export function createMetrics(build: { version: string; engine: string }): Metrics {
  const registry = new Registry();
  const registers = [registry];
  let sources: MetricsSources | null = null;
  let peers: (() => Promise<MetricsSnapshot[] | null>) | null = null;

  const requests = requestSeries(registry);
  const soap = counterSeries(
    registry,
    "soap_requests_total",
    "SOAP calls answered, by operation and outcome (ok or fault).",
    "operation",
    "outcome",
  );
  const loans = counterSeries(
    registry,
    "loan_decisions_total",
    "Loan applications decided, by outcome and reason.",
    "approved",
    "reason",
  );
  new Gauge({
    name: "sse_streams_open",
    help: "Event streams open on this instance.",
    registers,
    collect() {
      this.set(sources?.streamsOpen() ?? 0);
    },
  });
  const events = new Counter({
    name: "events_published_total",
    help: "Stream events committed by this instance.",
    registers,
  });
  const webhooks = new Counter({
    name: "webhook_deliveries_total",
    help: "Webhook delivery attempts ended, by status (succeeded, failed, retry).",
    labelNames: ["status"] as const,
    registers,
  });
  new Gauge({
    name: "webhook_outbox_pending",
    aggregator: "first",
    help: "Webhook events and deliveries waiting to be sent (all instances).",
    registers,
    async collect() {
      this.set(sources ? await sources.webhookPending() : 0);
    },
  });
  const mail = new Counter({
    name: "mail_sent_total",
    help: "Mail attempts ended, by status (sent, failed, retry).",
    labelNames: ["status"] as const,
    registers,
  });
  new Gauge({
    name: "mail_outbox_pending",
    aggregator: "first",
    help: "Mails waiting to be sent (all instances).",
    registers,
    async collect() {
      this.set(sources ? await sources.mailPending() : 0);
    },
  });
  const transactions = new Histogram({
    name: "db_transaction_duration_seconds",
    help: "Time from asking for a database transaction to its commit or rollback.",
    buckets: TRANSACTION_BUCKETS,
    registers,
  });
  new Counter({
    name: "process_cpu_seconds_total",
    aggregator: "first",
    help: "User and system CPU time of this process, in seconds.",
    registers,
    collect() {
      // A counter only goes up: the process's own total, set as it is read.
      const { user, system } = process.cpuUsage();
      this.reset();
      this.inc((user + system) / 1e6);
    },
  });
  new Gauge({
    name: "process_resident_memory_bytes",
    aggregator: "first",
    help: "Resident memory of this process, in bytes.",
    registers,
    collect() {
      this.set(Deno.memoryUsage().rss);
    },
  });
  new Gauge({
    name: "process_open_fds",
    aggregator: "first",
    help: "File descriptors this process holds open.",
    registers,
    collect() {
      this.set(openFds());
    },
  });
  const startSeconds = Math.floor((Date.now() - performance.now()) / 1000);
  new Gauge({
    name: "process_start_time_seconds",
    aggregator: "first",
    help: "When this process started, in seconds since the Unix epoch.",
    registers,
    collect() {
      this.set(startSeconds);
    },
  });
  new Gauge({
    name: "collab_build_info",
    aggregator: "first",
    help: "The server's version and database engine (always 1).",
    labelNames: ["version", "engine"] as const,
    registers,
  }).set(build, 1);

  return {
    request: requests.add,
    soap: (operation, outcome) => soap(operation, outcome),
    loanDecision: (approved, reason) => loans(approved ? "true" : "false", reason),
    eventsPublished: (count) => {
      if (count > 0) events.inc(count);
    },
    webhookDelivery: (status) => webhooks.inc({ status }),
    mailSent: (status) => mail.inc({ status }),
    transaction: (seconds) => transactions.observe(seconds),
    setSources(given) {
      sources = given;
    },
    setPeers(gather) {
      peers = gather;
    },
    snapshot: () => registry.getMetricsAsJSON(),
    contentType: registry.contentType,
    async render() {
      if (!peers) return registry.metrics();
      // This isolate's first: what is taken once ("first") is read here.
      const [own, others] = await Promise.all([registry.getMetricsAsJSON(), peers()]);
      if (others === null) return null;
      return AggregatorRegistry.aggregate([own, ...others]).metrics();
    },
  };
}

/** Open file descriptors (Linux's /proc/self/fd; -1 where there is none). */
function openFds(): number {
  try {
    let n = 0;
    for (const _ of Deno.readDirSync("/proc/self/fd")) n++;
    return n - 1; // the directory being read is one of them
  } catch {
    return -1;
  }
}

/** One series' labels and value, as prom-client's registry reads them. */
interface SeriesValue {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

/**
 * A metric of our own series that prom-client's registry writes out: the registry asks
 * `get()` at each scrape, as it does of its own metrics.
 */
function register(
  registry: Registry,
  name: string,
  help: string,
  type: "counter" | "histogram",
  values: () => SeriesValue[],
  reset: () => void,
): void {
  const get = () => ({ name, help, type, aggregator: "sum", values: values() });
  registry.registerMetric(
    { name, help, type, aggregator: "sum", get, reset } as unknown as Parameters<
      Registry["registerMetric"]
    >[0],
  );
}

/** A counter with two labels, counted in place: `add(a, b)` adds one to series `{a, b}`. */
function counterSeries(
  registry: Registry,
  name: string,
  help: string,
  first: string,
  second: string,
): (a: string, b: string) => void {
  const series = new Map<string, SeriesValue>();
  register(registry, name, help, "counter", () => [...series.values()], () => series.clear());
  return (a, b) => {
    const key = `${a}\u0000${b}`;
    const found = series.get(key);
    if (found) found.value++;
    else series.set(key, { labels: { [first]: a, [second]: b }, value: 1 });
  };
}

/** One method and route's request durations: counts per bucket (the last is +Inf). */
interface Durations {
  method: string;
  route: string;
  buckets: Float64Array;
  sum: number;
  count: number;
}

/**
 * `http_requests_total{method,route,status}` and the histogram
 * `http_request_duration_seconds{method,route}`, counted in place.
 */
function requestSeries(registry: Registry) {
  const counts = new Map<string, SeriesValue>();
  const durations = new Map<string, Durations>();
  register(
    registry,
    "http_requests_total",
    "HTTP requests answered, by method, route template and status.",
    "counter",
    () => [...counts.values()],
    () => counts.clear(),
  );
  register(
    registry,
    "http_request_duration_seconds",
    "Time to answer an HTTP request (until its response starts), by method and route.",
    "histogram",
    () => {
      const name = "http_request_duration_seconds";
      const values: SeriesValue[] = [];
      for (const d of durations.values()) {
        let cumulative = 0;
        for (let i = 0; i <= REQUEST_BUCKETS.length; i++) {
          cumulative += d.buckets[i]!;
          values.push({
            metricName: `${name}_bucket`,
            labels: { le: REQUEST_BUCKETS[i] ?? "+Inf", method: d.method, route: d.route },
            value: cumulative,
          });
        }
        const labels = { method: d.method, route: d.route };
        values.push({ metricName: `${name}_sum`, labels, value: d.sum });
        values.push({ metricName: `${name}_count`, labels, value: d.count });
      }
      return values;
    },
    () => durations.clear(),
  );
  return {
    add(method: string, route: string, status: number, seconds: number): void {
      const key = `${method} ${route}`;
      const countKey = `${key} ${status}`;
      const count = counts.get(countKey);
      if (count) count.value++;
      else counts.set(countKey, { labels: { method, route, status: String(status) }, value: 1 });
      let d = durations.get(key);
      if (!d) {
        d = {
          method,
          route,
          buckets: new Float64Array(REQUEST_BUCKETS.length + 1),
          sum: 0,
          count: 0,
        };
        durations.set(key, d);
      }
      let i = 0;
      while (i < REQUEST_BUCKETS.length && seconds > REQUEST_BUCKETS[i]!) i++;
      d.buckets[i]!++;
      d.sum += seconds;
      d.count++;
    },
  };
}
