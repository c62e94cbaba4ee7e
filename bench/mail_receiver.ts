/**
 * The SMTP server of `mail_bench.ts` (npm smtp-server), on a worker thread of its own: in the
 * bench's thread, taking thousands of mails would delay the load client's reading of the
 * server's answers, and the bench would count its own backlog as the server's latency. It
 * accepts every mail, keeps only each one's Message-ID (to count repeats), and says how many it
 * has when asked.
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
      const id = /^Message-ID:\s*(\S+)/im.exec(head)?.[1] ?? "";
      if (seen.has(id)) duplicates++;
      else seen.add(id);
      lastAt = performance.timeOrigin + performance.now();
      callback();
    });
  },
});
server.on("error", () => {});
server.listen(0, "127.0.0.1", () => {
  const address = server.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  scope.postMessage({ type: "ready", port });
});

scope.onmessage = () => {
  scope.postMessage({ type: "count", received: seen.size, duplicates, lastAt });
};
