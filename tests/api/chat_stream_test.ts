/** Chat on the event stream: created, updated, deleted events, in order, and replay. */
import assert from "node:assert/strict";
import { type TestServer, testServer } from "../helpers/app.ts";
import {
  api,
  createProject,
  eventually,
  expectJson,
  expectNoContent,
  type Json,
  nextNamedEvent,
  type OpenedSse,
  openSse,
  sendChat,
  type SseFrame,
  storedEvents,
  team,
} from "../helpers/api.ts";

const chat = (projectId: number, rest = "") => `/api/projects/${projectId}/chat/messages${rest}`;

/** A received event with its id as a number and its data parsed. */
interface Received {
  id: number;
  name: string;
  data: Json;
}

function received(frame: SseFrame): Received {
  assert.ok(frame.id !== undefined && /^\d+$/.test(frame.id), `integer id: ${frame.lines}`);
  assert.ok(frame.data !== undefined, `data: ${frame.lines}`);
  return { id: Number(frame.id), name: frame.event!, data: JSON.parse(frame.data) };
}

/** Opens a stream that must be accepted. */
async function open(
  t: TestServer,
  cookie: string,
  projectId: number,
  headers: Record<string, string> = {},
): Promise<OpenedSse & { reader: NonNullable<OpenedSse["reader"]> }> {
  const sse = await openSse(t.baseUrl, cookie, projectId, headers);
  assert.equal(sse.res.status, 200, sse.text);
  assert.match(sse.res.headers.get("content-type") ?? "", /^text\/event-stream/);
  assert.ok(sse.reader);
  return sse as OpenedSse & { reader: NonNullable<OpenedSse["reader"]> };
}

async function take(sse: OpenedSse, n: number): Promise<Received[]> {
  const out: Received[] = [];
  for (let i = 0; i < n; i++) out.push(received(await nextNamedEvent(sse.reader!)));
  return out;
}

function assertIncreasing(events: Received[]): void {
  for (let i = 1; i < events.length; i++) {
    assert.ok(
      Number.isInteger(events[i]!.id) && events[i]!.id > events[i - 1]!.id,
      `ids increase: ${events.map((e) => e.id)}`,
    );
  }
}

Deno.test("Stream: chat.message.created, .updated and .deleted carry the message, in order", async () => {
  const t = await testServer();
  const streams: OpenedSse[] = [];
  try {
    const { alice, bob, project } = await team(t);
    const sse = await open(t, bob.cookie, project.id);
    streams.push(sse);

    const message = await sendChat(t, alice.cookie, project.id, "hello stream");
    t.clock.advance(1000);
    const edited = expectJson(
      await api(t, "PATCH", chat(project.id, `/${message.id}`), {
        cookie: alice.cookie,
        body: { text: "hello again" },
      }),
      200,
    ).message;
    t.clock.advance(1000);
    expectNoContent(
      await api(t, "DELETE", chat(project.id, `/${message.id}`), { cookie: alice.cookie }),
    );

    const events = await take(sse, 3);
    assert.deepEqual(events.map((e) => e.name), [
      "chat.message.created",
      "chat.message.updated",
      "chat.message.deleted",
    ]);
    assertIncreasing(events);
    assert.deepEqual(events[0]!.data, message);
    assert.deepEqual(events[1]!.data, edited);
    assert.equal(events[2]!.data.id, message.id);
    assert.equal(events[2]!.data.text, "hello again");
    assert.equal(events[2]!.data.projectId, project.id);
    assert.equal(events[2]!.data.authorId, alice.user.id);

    // The ids are those of the stored events (after the team's member.added events).
    assert.deepEqual(
      (await storedEvents(t, project.id)).filter((e) => e.name.startsWith("chat."))
        .map((e) => [e.id, e.name]),
      events.map((e) => [e.id, e.name]),
    );
  } finally {
    for (const s of streams) await s.close();
    await t.close();
  }
});

Deno.test("Stream: many messages arrive in send order with strictly increasing ids", async () => {
  const t = await testServer();
  const streams: OpenedSse[] = [];
  try {
    const { alice, bob, owner, project } = await team(t);
    const other = await createProject(t, owner.cookie, "Other");
    const sse = await open(t, alice.cookie, project.id);
    streams.push(sse);
    const sent: number[] = [];
    for (let i = 0; i < 20; i++) {
      const cookie = i % 2 === 0 ? alice.cookie : bob.cookie;
      sent.push((await sendChat(t, cookie, project.id, `n${i}`)).id);
      // Another project's messages never reach this stream.
      if (i % 5 === 0) await sendChat(t, owner.cookie, other.id, `elsewhere ${i}`);
    }
    const events = await take(sse, 20);
    assert.ok(events.every((e) => e.name === "chat.message.created"));
    assert.deepEqual(events.map((e) => e.data.id), sent);
    assert.deepEqual(events.map((e) => e.data.text), sent.map((_, i) => `n${i}`));
    assertIncreasing(events);
  } finally {
    for (const s of streams) await s.close();
    await t.close();
  }
});

Deno.test("Stream: Last-Event-ID after a disconnect replays the missed events in order, then live ones", async () => {
  const t = await testServer();
  const streams: OpenedSse[] = [];
  try {
    const { alice, viewer, project } = await team(t);
    const first = await open(t, viewer.cookie, project.id);
    streams.push(first);
    const m1 = await sendChat(t, alice.cookie, project.id, "one");
    const [seen] = await take(first, 1);
    assert.equal(seen!.data.id, m1.id);
    await first.close();

    // Missed while disconnected: a create, an edit and a delete.
    const m2 = await sendChat(t, alice.cookie, project.id, "two");
    expectJson(
      await api(t, "PATCH", chat(project.id, `/${m1.id}`), {
        cookie: alice.cookie,
        body: { text: "one, edited" },
      }),
      200,
    );
    expectNoContent(
      await api(t, "DELETE", chat(project.id, `/${m2.id}`), { cookie: alice.cookie }),
    );

    const again = await open(t, viewer.cookie, project.id, { "Last-Event-ID": String(seen!.id) });
    streams.push(again);
    const missed = await take(again, 3);
    assert.deepEqual(
      missed.map((e) => [e.name, e.data.id, e.data.text]),
      [
        ["chat.message.created", m2.id, "two"],
        ["chat.message.updated", m1.id, "one, edited"],
        ["chat.message.deleted", m2.id, "two"],
      ],
    );
    assert.ok(missed[0]!.id > seen!.id);
    assertIncreasing(missed);

    // Live events follow the replay.
    const m3 = await sendChat(t, alice.cookie, project.id, "three");
    const [live] = await take(again, 1);
    assert.equal(live!.name, "chat.message.created");
    assert.equal(live!.data.id, m3.id);
    assert.ok(live!.id > missed[2]!.id);

    // Replaying from the very first event gives everything after it.
    const full = await open(t, viewer.cookie, project.id, {
      "Last-Event-ID": String(seen!.id - 1),
    });
    streams.push(full);
    const all = await take(full, 5);
    assert.deepEqual(all.map((e) => e.id), [seen!.id, ...missed.map((e) => e.id), live!.id]);
  } finally {
    for (const s of streams) await s.close();
    await t.close();
  }
});

Deno.test("Stream: without Last-Event-ID nothing old is replayed; non-members get 404", async () => {
  const t = await testServer();
  const streams: OpenedSse[] = [];
  try {
    const { alice, outsider, project } = await team(t);
    await sendChat(t, alice.cookie, project.id, "before");
    const refused = await openSse(t.baseUrl, outsider.cookie, project.id);
    assert.equal(refused.res.status, 404);
    assert.equal(JSON.parse(refused.text).error.code, "not_found");
    const anon = await openSse(t.baseUrl, null, project.id);
    assert.equal(anon.res.status, 401);

    const sse = await open(t, alice.cookie, project.id);
    streams.push(sse);
    const after = await sendChat(t, alice.cookie, project.id, "after");
    const [event] = await take(sse, 1);
    assert.equal(event!.data.id, after.id, "the old message is not replayed");
  } finally {
    for (const s of streams) await s.close();
    await t.close();
  }
});

Deno.test("Stream: without Last-Event-ID an event committed before it opened is not sent, even when published late", async () => {
  // On PostgreSQL every instance hears of an event through the relay, after its commit, and a
  // stream may open in between: here the hub holds a publication back to make that happen.
  const t = await testServer();
  const streams: OpenedSse[] = [];
  const hub = t.app.services.hub;
  const publish = hub.publish;
  try {
    const { alice, project } = await team(t);
    const late: Array<Parameters<typeof publish>> = [];
    hub.publish = (...args) => void late.push(args);
    await sendChat(t, alice.cookie, project.id, "before");
    // The team's member.added events may still be on their way too (PostgreSQL's relay).
    await eventually(
      () => late.some(([e]) => e.name === "chat.message.created"),
      "the event of 'before' is on its way",
    );
    const sse = await open(t, alice.cookie, project.id);
    streams.push(sse);
    hub.publish = publish;
    for (const args of late) publish.apply(hub, args); // "before" arrives now, late
    const after = await sendChat(t, alice.cookie, project.id, "after");
    const [event] = await take(sse, 1);
    assert.equal(event!.data.id, after.id, "the message committed before the stream is not sent");
  } finally {
    hub.publish = publish;
    for (const s of streams) await s.close();
    await t.close();
  }
});
