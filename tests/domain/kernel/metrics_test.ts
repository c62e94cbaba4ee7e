/**
 * The per-request series (`http_requests_total`, `http_request_duration_seconds`,
 * `soap_requests_total`, `loan_decisions_total`) are counted in place and written out by
 * prom-client's registry: the text must be what prom-client's own counter and histogram write,
 * with the same bucket rule (a value equal to a bound counts in that bound's bucket).
 */
import assert from "node:assert/strict";
import { Counter, Histogram, Registry } from "prom-client";
import { createMetrics } from "../../../domain/kernel/metrics.ts";

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The lines of `text` that belong to metric family `name`, in order. */
function family(text: string, name: string): string[] {
  return text.split("\n").filter((line) =>
    line.startsWith(`${name}{`) || line.startsWith(`${name}_`) || line.startsWith(`${name} `) ||
    line.startsWith(`# HELP ${name} `) || line.startsWith(`# TYPE ${name} `)
  );
}

Deno.test("request series written as prom-client's own counter and histogram would write them", async () => {
  const metrics = createMetrics({ version: "1.0.0", engine: "sqlite" });
  const reference = new Registry();
  const counter = new Counter({
    name: "http_requests_total",
    help: "HTTP requests answered, by method, route template and status.",
    labelNames: ["method", "route", "status"],
    registers: [reference],
  });
  const histogram = new Histogram({
    name: "http_request_duration_seconds",
    help: "Time to answer an HTTP request (until its response starts), by method and route.",
    labelNames: ["method", "route"],
    buckets: BUCKETS,
    registers: [reference],
  });
  const soap = new Counter({
    name: "soap_requests_total",
    help: "SOAP calls answered, by operation and outcome (ok or fault).",
    labelNames: ["operation", "outcome"],
    registers: [reference],
  });
  const seen: Array<[string, string, number, number]> = [
    ["POST", "/hello", 200, 0.0004],
    ["POST", "/hello", 200, 0.001], // on a bound: that bound's bucket
    ["POST", "/hello", 500, 0.0101],
    ["GET", "/api/projects/:projectId/notes", 200, 0.05],
    ["GET", "unmatched", 404, 12], // past the last bound: +Inf only
    ["GET", 'a "quoted" \\ route', 200, 0],
  ];
  for (const [method, route, status, seconds] of seen) {
    metrics.request(method, route, status, seconds);
    counter.inc({ method, route, status: String(status) });
    histogram.observe({ method, route }, seconds);
  }
  for (const [operation, outcome] of [["getHelloWorld", "ok"], ["x", "fault"], ["x", "fault"]]) {
    metrics.soap(operation!, outcome as "ok" | "fault");
    soap.inc({ operation: operation!, outcome: outcome! });
  }
  const ours = (await metrics.render())!;
  const theirs = await reference.metrics();
  for (
    const name of ["http_requests_total", "http_request_duration_seconds", "soap_requests_total"]
  ) {
    assert.deepEqual(family(ours, name), family(theirs, name), name);
  }
});

Deno.test("loan decisions count by approved and reason", async () => {
  const metrics = createMetrics({ version: "1.0.0", engine: "sqlite" });
  metrics.loanDecision(true, "approved");
  metrics.loanDecision(true, "approved");
  metrics.loanDecision(false, "blacklisted");
  const text = (await metrics.render())!;
  assert.match(text, /^loan_decisions_total\{approved="true",reason="approved"\} 2$/m);
  assert.match(text, /^loan_decisions_total\{approved="false",reason="blacklisted"\} 1$/m);
  assert.match(text, /^# TYPE loan_decisions_total counter$/m);
});
