/**
 * The healthy webhook receivers of `webhook_bench.ts`, on a worker thread of their own: in
 * the bench's thread, answering thousands of deliveries would delay the load client's own
 * reading of the server's answers, and the bench would count its own backlog as the server's
 * latency. Arrivals go back in batches, timed on the shared wall clock
 * (`performance.timeOrigin + performance.now()`).
 */

/** What the worker says: its URLs once, then arrivals `[receiver, message id, at ms]`. */
export type ReceiversMessage =
  | { type: "ready"; urls: string[] }
  | { type: "arrivals"; list: Array<[number, number, number]>; duplicates: number };

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<{ count: number }>) => void) | null;
  postMessage(message: ReceiversMessage): void;
};

scope.onmessage = ({ data }) => {
  let pending: Array<[number, number, number]> = [];
  let duplicates = 0;
  const urls: string[] = [];
  for (let i = 0; i < data.count; i++) {
    const seen = new Set<number>();
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
      const at = performance.timeOrigin + performance.now();
      const body = JSON.parse(await req.text()) as { data: { id: number } };
      if (seen.has(body.data.id)) duplicates++;
      else {
        seen.add(body.data.id);
        pending.push([i, body.data.id, at]);
      }
      return new Response(null, { status: 204 });
    });
    urls.push(`http://127.0.0.1:${(server.addr as Deno.NetAddr).port}/hook`);
  }
  setInterval(() => {
    if (pending.length === 0) return;
    scope.postMessage({ type: "arrivals", list: pending, duplicates });
    pending = [];
  }, 20);
  scope.postMessage({ type: "ready", urls });
};
