/** The event streams (server-sent events): a project's, and the caller's own. */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { tokenStreamKey } from "../../domain/accounts/api_tokens.ts";
import { invalid } from "../../domain/kernel/errors.ts";
import { encodeEvent } from "../../domain/projects/event_hub.ts";
import { wholeNumber } from "../../domain/kernel/paging.ts";
import type { Services } from "../../domain/services.ts";
import type { OpenedStream } from "../../domain/projects/stream.ts";
import { actorOf, apiApp, type AppEnv, errors, Id } from "./openapi.ts";
import { EVENT_NAMES } from "../../domain/projects/event_names.ts";
import { eventComponent } from "./event_doc.ts";

/** A client further behind than this many queued writes (after its replay) is disconnected. */
const MAX_QUEUED_WRITES = 2000;
const RETRY = new TextEncoder().encode("retry: 3000\n\n");
const SSE_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  // Proxies such as nginx must pass events on at once, not buffer them.
  "x-accel-buffering": "no",
};

const stream = createRoute({
  method: "get",
  path: "/api/projects/{projectId}/chat/stream",
  tags: ["stream"],
  summary: "Project events as server-sent events; `Last-Event-ID` replays what was missed",
  description:
    `Events (each described by its component, e.g. \`${
      eventComponent("board.thread.created")
    }\`): ${EVENT_NAMES.join(", ")}. A \`member.removed\` of the reader is the last event ` +
    "their stream gets. A `: heartbeat` comment is sent every " +
    "SSE_HEARTBEAT_MS. At most 10 streams per user and 1,000 in all by default " +
    "(SSE_MAX_STREAMS_PER_USER, SSE_MAX_STREAMS), then 429.",
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

const ownStream = createRoute({
  method: "get",
  path: "/api/me/stream",
  tags: ["stream"],
  summary: "The caller's own events (notifications) as server-sent events",
  description: "Events: notification.created (data: the notification), notification.read " +
    "(data: {ids, unreadCount}). Ids, heartbeats, `Last-Event-ID` replay and limits as for " +
    "a project's stream.",
  request: {
    headers: z.object({ "last-event-id": z.string().optional() }),
    query: z.object({ lastEventId: z.string().optional() }),
  },
  responses: {
    200: {
      description: "The event stream",
      content: { "text/event-stream": { schema: z.string() } },
    },
    ...errors(400, 401, 429),
  },
});

/**
 * An event id to resume after; anything else means none (as EventSource clients expect), but
 * a `lastEventId` query parameter beyond the safe integer range is 400 like any id in a query.
 */
function eventId(raw: string | undefined, name?: string): number | null {
  const n = wholeNumber(raw);
  if (n === Infinity && name) {
    throw invalid(name, `Use an event id from 1 to ${Number.MAX_SAFE_INTEGER}`);
  }
  return n === null || n === Infinity ? null : n;
}

/** What a stream's opening needs from the request, and its opening. */
type Open = (input: {
  lastEventId: number | null;
  sessionIdHash: string | null;
  expiresAt: number | null;
  sink: { write: (bytes: Uint8Array) => void; close: () => void };
}) => Promise<OpenedStream>;

/** Answers a request with an event stream: its replay after `Last-Event-ID`, then live events. */
async function streamResponse(
  c: Context<AppEnv>,
  lastEventId: number | null,
  open: Open,
): Promise<Response> {
  // One ReadableStream per client is the response body. Events arrive encoded once for
  // every subscriber and are enqueued synchronously (no promise per write); a client too far
  // behind is disconnected. Not Hono's streamSSE: its TransformStream and second
  // ReadableStream per client cost about 16 KB more per open stream and four times the
  // garbage per event, which misses the fan-out memory and latency targets
  // (docs/decisions/0002-event-stream-without-streamsse.md).
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let unsubscribe = () => {};
  let limit = MAX_QUEUED_WRITES;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    unsubscribe();
    try {
      controller.close();
    } catch {
      // already cancelled by the client
    }
  };
  const body = new ReadableStream<Uint8Array>(
    { start: (ctrl) => void (controller = ctrl), cancel: end },
    { highWaterMark: 0 },
  );
  const write = (bytes: Uint8Array) => {
    if (ended) return;
    if (-(controller.desiredSize ?? 0) >= limit) return end();
    controller.enqueue(bytes);
  };
  const session = c.get("session");
  const token = c.get("apiToken");
  // A stream ends with the session or token it was opened with.
  const expiresAt = session?.expiresAt ?? token?.expiresAt ?? null;
  const opened = await open({
    lastEventId,
    sessionIdHash: session?.idHash ?? (token ? tokenStreamKey(token.tokenId) : null),
    expiresAt: expiresAt === null ? null : Date.parse(expiresAt),
    sink: { write, close: end },
  });
  unsubscribe = opened.unsubscribe;
  // A long replay is queued whole; the limit counts from its end.
  limit += 1 + opened.replay.length;
  write(RETRY);
  for (const event of opened.replay) write(encodeEvent(event));
  opened.release();
  return c.body(body, 200, SSE_HEADERS) as unknown as Response;
}

/** The id to resume after: the `Last-Event-ID` header, else the `lastEventId` parameter. */
function resumeAfter(header: string | undefined, query: string | undefined): number | null {
  return eventId(header) ?? eventId(query, "lastEventId");
}

/** The stream routes: a project's, and the caller's own. */
export function streamRoutes(services: Services) {
  return apiApp()
    .openapi(stream, (c) => {
      const projectId = c.req.valid("param").projectId;
      const after = resumeAfter(
        c.req.valid("header")["last-event-id"],
        c.req.valid("query").lastEventId,
      );
      return streamResponse(
        c,
        after,
        (input) => services.streams.open(actorOf(c), { ...input, projectId }),
      );
    })
    .openapi(ownStream, (c) => {
      const after = resumeAfter(
        c.req.valid("header")["last-event-id"],
        c.req.valid("query").lastEventId,
      );
      return streamResponse(c, after, (input) => services.streams.openOwn(actorOf(c), input));
    });
}
