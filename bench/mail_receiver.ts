/**
 * The SMTP server of `mail_bench.ts`, on a worker thread of its own: in the bench's thread,
 * taking thousands of mails would delay the load client's reading of the server's answers, and
 * the bench would count its own backlog as the server's latency. It accepts every mail, keeps
 * only each one's Message-ID (to count repeats), and says how many it has when asked.
 *
 * Two receivers (`BENCH_RECEIVER`):
 *
 * - `sink` (the default): the least SMTP a client needs (greeting, EHLO without extensions,
 *   MAIL, RCPT, DATA up to its lone dot, RSET, NOOP, QUIT), on `Deno.listen`. The receiver
 *   shares the two cores with the server it measures; a receiver elsewhere would cost the
 *   server nothing, and this one costs it the least this machine allows (npm smtp-server and
 *   its Node streams parse 200 mails a second at a fair part of a core).
 * - `smtp-server`: npm smtp-server, the receiver the tests use.
 */
// @ts-types="@types/smtp-server"
import { SMTPServer } from "smtp-server";

/** What the worker says: its port once, then its counts when asked. */
export type ReceiverMessage =
  | { type: "ready"; port: number }
  | { type: "count"; received: number; duplicates: number; lastAt: number };

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<"count">) => void) | null;
  postMessage(message: ReceiverMessage): void;
};

const seen = new Set<string>();
let duplicates = 0;
let lastAt = 0;

/** Counts one received mail by the Message-ID in its head. */
function received(head: string): void {
  const id = /^Message-ID:\s*(\S+)/im.exec(head)?.[1] ?? "";
  if (seen.has(id)) duplicates++;
  else seen.add(id);
  lastAt = performance.timeOrigin + performance.now();
}

const ready = (port: number) => scope.postMessage({ type: "ready", port });

if ((Deno.env.get("BENCH_RECEIVER") ?? "sink") === "smtp-server") {
  const server = new SMTPServer({
    authOptional: true,
    logger: false,
    disabledCommands: ["STARTTLS"],
    onData(stream, _session, callback) {
      // Only the head is read for the Message-ID; the rest of the message is let go.
      let head = "";
      stream.on("data", (chunk: Uint8Array) => {
        if (head.length < 8192) head += new TextDecoder().decode(chunk);
      });
      stream.on("end", () => {
        received(head);
        callback();
      });
    },
  });
  server.on("error", () => {});
  server.listen(0, "127.0.0.1", () => {
    const address = server.server.address();
    ready(typeof address === "object" && address ? address.port : 0);
  });
} else {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  ready(listener.addr.port);
  (async () => {
    for await (const conn of listener) void sink(conn).catch(() => conn.close());
  })();
}

const encoder = new TextEncoder();
// Latin-1: one character a byte, whatever the bytes (the sink never needs the text as UTF-8).
const decoder = new TextDecoder("latin1");

/** One SMTP session of the sink: commands line by line, a message up to CRLF.CRLF. */
async function sink(conn: Deno.TcpConn): Promise<void> {
  // Each answer goes at once (with Nagle's algorithm it would wait for the client's ACK).
  conn.setNoDelay(true);
  const say = (line: string) => conn.write(encoder.encode(`${line}\r\n`));
  await say("220 bench.example ESMTP sink");
  let buffer = "";
  let inData = false;
  const chunk = new Uint8Array(64 * 1024);
  for (;;) {
    const n = await conn.read(chunk);
    if (n === null) break;
    buffer += decoder.decode(chunk.subarray(0, n));
    for (;;) {
      if (inData) {
        // The message ends with a line of a lone dot (its first line is at the buffer's start).
        const end = buffer.startsWith(".\r\n") ? 0 : buffer.indexOf("\r\n.\r\n");
        if (end < 0) break;
        received(buffer.slice(0, Math.min(end, 8192)));
        buffer = buffer.slice(end === 0 ? 3 : end + 5);
        inData = false;
        await say("250 2.0.0 queued");
        continue;
      }
      const eol = buffer.indexOf("\r\n");
      if (eol < 0) break;
      const verb = buffer.slice(0, 4).toUpperCase();
      buffer = buffer.slice(eol + 2);
      if (verb === "EHLO") await say("250 bench.example");
      else if (verb === "DATA") {
        inData = true;
        await say("354 go ahead");
      } else if (verb === "QUIT") {
        await say("221 bye");
        conn.close();
        return;
      } else await say("250 ok");
    }
  }
  conn.close();
}

scope.onmessage = () => {
  scope.postMessage({ type: "count", received: seen.size, duplicates, lastAt });
};
