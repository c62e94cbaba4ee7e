/** The per-project event stream (server-sent events). */
import { createRoute, z } from "@hono/zod-openapi";
import { streamSSE } from "hono/streaming";
import { encodeEvent } from "../../domain/event_hub.ts";
import type { Services } from "../../domain/services.ts";
import { openStream } from "../../domain/stream.ts";
import { actorOf, apiApp, errors, Id } from "./openapi.ts";

/** A client further behind than this many queued writes is disconnected. */
const MAX_QUEUED_WRITES = 2000;
const RETRY = new TextEncoder().encode("retry: 3000\n\n");

const stream = createRoute({
  method: "get",
  path: "/api/projects/{projectId}/chat/stream",
  tags: ["stream"],
  summary: "Project events as server-sent events; `Last-Event-ID` replays what was missed",
  description: "Events: chat.message.created, chat.message.updated, chat.message.deleted, " +
    "todo.updated, file.uploaded, meeting.created. A `: heartbeat` comment is sent every " +
    "SSE_HEARTBEAT_MS. At most 10 streams per user and 1,000 in all (then 429).",
  request: {
    params: z.object({ projectId: Id }),
    headers: z.object({ "last-event-id": z.string().optional() }),
    query: z.object({ lastEventId: z.string().optional() }),
  },
  responses: {
    200: {
      description: "The event stream",
      content: { "text/event-stream": { schema: z.string() } },
    },
    ...errors(400, 401, 404, 429),
  },
});

function eventId(raw: string | undefined): number | null {
  return raw !== undefined && /^\d{1,15}$/.test(raw.trim()) ? Number(raw.trim()) : null;
}

/** The stream route. */
export function streamRoutes(services: Services) {
  return apiApp().openapi(stream, (c) => {
    const lastEventId = eventId(c.req.valid("header")["last-event-id"]) ??
      eventId(c.req.valid("query").lastEventId);
    let target: { write(bytes: Uint8Array): Promise<unknown> } | null = null;
    const early: Uint8Array[] = [];
    let queued = 0;
    let finish: () => void = () => {};
    const finished = new Promise<void>((resolve) => finish = resolve);
    const write = (bytes: Uint8Array) => {
      if (!target) return void early.push(bytes);
      if (++queued > MAX_QUEUED_WRITES) return finish();
      void target.write(bytes).then(() => queued--);
    };
    const opened = openStream(services.hubContext, actorOf(c), {
      projectId: c.req.valid("param").projectId,
      lastEventId,
      sink: { write, close: () => finish() },
    });
    return streamSSE(c, async (sse) => {
      sse.onAbort(() => finish());
      target = sse;
      write(RETRY);
      for (const event of opened.replay) write(encodeEvent(event));
      for (const bytes of early.splice(0)) write(bytes);
      try {
        await finished;
      } finally {
        opened.unsubscribe();
      }
    }) as unknown as Response;
  });
}
