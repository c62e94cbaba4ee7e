/** A real webhook receiver on a free loopback port, recording what it is sent. */
import assert from "node:assert/strict";

/** One request the receiver got. */
export interface Received {
  method: string;
  path: string;
  headers: Headers;
  body: string;
}

/** How the receiver answers: a status, a response, or `"hang"` (held until released). */
export type Answer = number | Response | "hang";

/** A running receiver. */
export interface Receiver {
  /** `http://127.0.0.1:<port>` (or the receiver's own host) */
  origin: string;
  /** `<origin>/hook` */
  url: string;
  received: Received[];
  /** Chooses the answer to each request (default 200). */
  answer: (request: Received) => Answer;
  /** Answers every held request with `status` (default 200). */
  release(status?: number): void;
  /** Waits until `count` requests have arrived. */
  waitFor(count: number, ms?: number): Promise<void>;
  /** Releases held requests and stops the server. */
  close(): Promise<void>;
}

/** Starts a receiver on `hostname` (default 127.0.0.1) with a free port. */
export function receiver(hostname = "127.0.0.1"): Receiver {
  const held: Array<(response: Response) => void> = [];
  const r: Receiver = {
    origin: "",
    url: "",
    received: [],
    answer: () => 200,
    release(status = 200) {
      for (const resolve of held.splice(0)) resolve(new Response(null, { status }));
    },
    async waitFor(count, ms = 5000) {
      const deadline = Date.now() + ms;
      while (r.received.length < count) {
        if (Date.now() > deadline) {
          assert.fail(`the receiver got ${r.received.length} requests, expected ${count}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async close() {
      r.release(503);
      await server.shutdown();
    },
  };
  const server = Deno.serve({ hostname, port: 0, onListen() {} }, async (req) => {
    const url = new URL(req.url);
    const request: Received = {
      method: req.method,
      path: url.pathname,
      headers: req.headers,
      body: await req.text(),
    };
    r.received.push(request);
    const answer = r.answer(request);
    if (answer === "hang") return await new Promise<Response>((resolve) => held.push(resolve));
    return typeof answer === "number" ? new Response(null, { status: answer }) : answer;
  });
  const host = hostname.includes(":") ? `[${hostname}]` : hostname;
  r.origin = `http://${host}:${(server.addr as Deno.NetAddr).port}`;
  r.url = `${r.origin}/hook`;
  return r;
}
