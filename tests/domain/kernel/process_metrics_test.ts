/**
 * `/metrics` of a process on several isolates: the isolate asked gathers the others' series over
 * the bus and sums them, takes what every isolate reads alike once, and gives no answer at all
 * when an isolate stays silent (a partial sum would read as counters reset). Two buses of one
 * name in this isolate hear each other as two isolates would.
 */
import assert from "node:assert/strict";
import { isolateBus } from "../../../domain/kernel/isolate_bus.ts";
import { createMetrics } from "../../../domain/kernel/metrics.ts";
import { shareMetrics } from "../../../domain/kernel/process_metrics.ts";
import { metricsRoute } from "../../../routes/metrics.ts";

function isolate(name: string, peers: number, streams: number, pending: number) {
  const bus = isolateBus(name, peers);
  const metrics = createMetrics({ version: "1.0.0", engine: "sqlite" });
  metrics.setSources({
    streamsOpen: () => streams,
    webhookPending: () => Promise.resolve(pending),
    mailPending: () => Promise.resolve(0),
  });
  shareMetrics(bus, metrics, 300);
  return { bus, metrics };
}

function value(text: string, series: string): number[] {
  return text.split("\n").filter((l) => l.startsWith(`${series} `)).map((l) =>
    Number(l.slice(series.length + 1))
  );
}

Deno.test("a scrape sums the isolates' counters, histograms and streams, and takes the shared figures once", async () => {
  const name = `test-${crypto.randomUUID()}`;
  const a = isolate(name, 1, 3, 7);
  const b = isolate(name, 1, 4, 7);
  try {
    a.metrics.soap("getHelloWorld", "ok");
    b.metrics.soap("getHelloWorld", "ok");
    b.metrics.soap("getHelloWorld", "ok");
    a.metrics.request("POST", "/hello", 200, 0.002);
    b.metrics.request("POST", "/hello", 200, 0.02);
    for (const asked of [a, b]) {
      const text = (await asked.metrics.render())!;
      assert.deepEqual(value(text, 'soap_requests_total{operation="getHelloWorld",outcome="ok"}'), [
        3,
      ]);
      assert.deepEqual(value(text, "sse_streams_open"), [7]);
      assert.deepEqual(value(text, "webhook_outbox_pending"), [7]);
      assert.deepEqual(
        value(
          text,
          'http_request_duration_seconds_bucket{le="0.0025",method="POST",route="/hello"}',
        ),
        [1],
      );
      assert.deepEqual(
        value(text, 'http_request_duration_seconds_count{method="POST",route="/hello"}'),
        [2],
      );
      assert.equal(value(text, "process_start_time_seconds").length, 1);
    }
  } finally {
    a.bus.close();
    b.bus.close();
  }
});

Deno.test("a scrape gives no answer while an isolate stays silent", async () => {
  const name = `test-${crypto.randomUUID()}`;
  // Two others are expected; one answers.
  const a = isolate(name, 2, 1, 0);
  const b = isolate(name, 2, 1, 0);
  try {
    assert.equal(await a.metrics.render(), null);
    // The scrape is a 503 rather than a partial sum.
    const token = "a-token-of-sixteen-or-more";
    const res = await metricsRoute(a.metrics, token).request("/metrics", {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(res.status, 503);
    assert.equal(res.headers.get("retry-after"), "5");
    // Alone (no other isolates), the isolate answers for itself.
    const alone = createMetrics({ version: "1.0.0", engine: "sqlite" });
    assert.match((await alone.render())!, /^collab_build_info/m);
  } finally {
    a.bus.close();
    b.bus.close();
  }
});
