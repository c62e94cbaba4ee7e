/**
 * The server's Prometheus metrics (operations: "Metrics"): one registry per application, so
 * each process (and each test app) counts only its own. Counters and histograms are
 * prom-client's; the process figures are read from Deno and /proc when scraped. Labels are
 * bounded sets only: a route's template, a SOAP operation, a status, never a raw path or id.
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";

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
  /** The current values in the text exposition format. */
  render(): Promise<string>;
}

/** Builds a registry of its own for one application. */
export function createMetrics(build: { version: string; engine: string }): Metrics {
  const registry = new Registry();
  const registers = [registry];
  let sources: MetricsSources | null = null;

  const requests = new Counter({
    name: "http_requests_total",
    help: "HTTP requests answered, by method, route template and status.",
    labelNames: ["method", "route", "status"] as const,
    registers,
  });
  const durations = new Histogram({
    name: "http_request_duration_seconds",
    help: "Time to answer an HTTP request (until its response starts), by method and route.",
    labelNames: ["method", "route"] as const,
    buckets: REQUEST_BUCKETS,
    registers,
  });
  const soap = new Counter({
    name: "soap_requests_total",
    help: "SOAP calls answered, by operation and outcome (ok or fault).",
    labelNames: ["operation", "outcome"] as const,
    registers,
  });
  const loans = new Counter({
    name: "loan_decisions_total",
    help: "Loan applications decided, by outcome and reason.",
    labelNames: ["approved", "reason"] as const,
    registers,
  });
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
    help: "Resident memory of this process, in bytes.",
    registers,
    collect() {
      this.set(Deno.memoryUsage().rss);
    },
  });
  new Gauge({
    name: "process_open_fds",
    help: "File descriptors this process holds open.",
    registers,
    collect() {
      this.set(openFds());
    },
  });
  const startSeconds = Math.floor((Date.now() - performance.now()) / 1000);
  new Gauge({
    name: "process_start_time_seconds",
    help: "When this process started, in seconds since the Unix epoch.",
    registers,
    collect() {
      this.set(startSeconds);
    },
  });
  new Gauge({
    name: "collab_build_info",
    help: "The server's version and database engine (always 1).",
    labelNames: ["version", "engine"] as const,
    registers,
  }).set(build, 1);

  return {
    request(method, route, status, seconds) {
      requests.inc({ method, route, status: String(status) });
      durations.observe({ method, route }, seconds);
    },
    soap: (operation, outcome) => soap.inc({ operation, outcome }),
    loanDecision: (approved, reason) => loans.inc({ approved: String(approved), reason }),
    eventsPublished: (count) => {
      if (count > 0) events.inc(count);
    },
    webhookDelivery: (status) => webhooks.inc({ status }),
    mailSent: (status) => mail.inc({ status }),
    transaction: (seconds) => transactions.observe(seconds),
    setSources(given) {
      sources = given;
    },
    contentType: registry.contentType,
    render: () => registry.metrics(),
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
