/**
 * The per-project event stream: format, replay, heartbeat, limits and closing over a real
 * server; HEAD, long replays and the slow-client cut-off in process.
 */
import assert from "node:assert/strict";
import { appendEvent } from "../../db/projects/events.ts";
import { openStreamInProcess, streamEnded } from "../helpers/in_process_stream.ts";
import { testApp, type TestServer, testServer } from "../helpers/app.ts";
import {
  addMember,
  api,
  createProject,
  eventually,
  expectJson,
  expectNoContent,
  login,
  type OpenedSse,
  openSse,
  PNG_BYTES,
  signUp,
  type SseFrame,
  team,
  uploadFile,
} from "../helpers/api.ts";

/** Reads the `retry: 3000` frame every stream starts with. */
async function expectRetry(stream: OpenedSse): Promise<void> {
  assert.equal(stream.res.status, 200, stream.text);
  const first = await stream.reader!.next();
  assert.ok(first, "the stream ended at once");
  assert.deepEqual(first.lines, ["retry: 3000"]);
}

/** Asserts a `file.uploaded` frame carrying `file`; returns its id. */
function expectUploaded(frame: SseFrame | null, file: unknown): number {
  assert.ok(frame, "the stream ended");
  assert.equal(frame.event, "file.uploaded", frame.lines.join("\n"));
  assert.match(frame.id ?? "", /^\d+$/);
  assert.deepEqual(JSON.parse(frame.data!), file);
  return Number(frame.id);
}

/** The next chunk a stream read in process gives, as text. */
async function nextChunk(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const { value } = await reader.read();
  return new TextDecoder().decode(value);
}

async function hubEmpty(t: TestServer): Promise<void> {
  await eventually(() => t.app.services.hub.size === 0, "the hub to drop every stream");
}

Deno.test("The stream is text/event-stream, starts with retry: 3000 and carries file.uploaded events", async () => {
  const t = await testServer();
  try {
    const { alice, bob, viewer, project } = await team(t);
    const stream = await openSse(t.baseUrl, viewer.cookie, project.id);
    try {
      assert.equal(stream.res.status, 200);
      assert.match(stream.res.headers.get("content-type") ?? "", /^text\/event-stream/);
      await expectRetry(stream);
      await eventually(() => t.app.services.hub.size === 1, "the stream to subscribe");

      const a = await uploadFile(t, alice.cookie, project.id, "a.txt", "a");
      const b = await uploadFile(t, bob.cookie, project.id, "b.png", PNG_BYTES);
      const first = expectUploaded(await stream.reader!.nextEvent(), a);
      const second = expectUploaded(await stream.reader!.nextEvent(), b);
      assert.ok(Number.isSafeInteger(first) && first > 0);
      assert.ok(second > first, `${second} > ${first}`);
    } finally {
      await stream.close();
    }
    await hubEmpty(t);
  } finally {
    await t.close();
  }
});

Deno.test("A stream carries only its own project's events", async () => {
  const t = await testServer();
  try {
    const { owner, project } = await team(t);
    const other = await createProject(t, owner.cookie, "Other");
    const stream = await openSse(t.baseUrl, owner.cookie, project.id);
    try {
      await expectRetry(stream);
      await uploadFile(t, owner.cookie, other.id, "elsewhere.txt", "x");
      const here = await uploadFile(t, owner.cookie, project.id, "here.txt", "y");
      expectUploaded(await stream.reader!.nextEvent(), here);
    } finally {
      await stream.close();
    }
    await hubEmpty(t);
  } finally {
    await t.close();
  }
});

Deno.test("Reconnecting with Last-Event-ID replays exactly the missed events in order, then live ones", async () => {
  const t = await testServer();
  try {
    const { alice, project } = await team(t);
    const first = await openSse(t.baseUrl, alice.cookie, project.id);
    const seen: number[] = [];
    const files: unknown[] = [];
    try {
      await expectRetry(first);
      for (const name of ["1.txt", "2.txt", "3.txt"]) {
        const file = await uploadFile(t, alice.cookie, project.id, name, name);
        files.push(file);
        seen.push(expectUploaded(await first.reader!.nextEvent(), file));
      }
    } finally {
      await first.close();
    }
    await hubEmpty(t);
    // Missed while away.
    const missed = await uploadFile(t, alice.cookie, project.id, "4.txt", "4");
    files.push(missed);

    let liveId = 0;
    const again = await openSse(t.baseUrl, alice.cookie, project.id, {
      "last-event-id": String(seen[0]),
    });
    try {
      await expectRetry(again);
      const replayed: number[] = [];
      for (const file of files.slice(1)) {
        replayed.push(expectUploaded(await again.reader!.nextEvent(), file));
      }
      assert.deepEqual(replayed.slice(0, 2), seen.slice(1));
      assert.ok(replayed[2]! > replayed[1]!);
      // Then live.
      const live = await uploadFile(t, alice.cookie, project.id, "5.txt", "5");
      liveId = expectUploaded(await again.reader!.nextEvent(), live);
      assert.ok(liveId > replayed[2]!);
    } finally {
      await again.close();
    }

    // Up to date: nothing is replayed, the next frame is the next live event.
    const current = await openSse(t.baseUrl, alice.cookie, project.id, {
      "last-event-id": String(liveId),
    });
    try {
      await expectRetry(current);
      const next = await uploadFile(t, alice.cookie, project.id, "6.txt", "6");
      expectUploaded(await current.reader!.nextEvent(), next);
    } finally {
      await current.close();
    }
    await hubEmpty(t);
  } finally {
    await t.close();
  }
});

Deno.test("A heartbeat comment is sent every SSE_HEARTBEAT_MS", async () => {
  const t = await testServer({ env: { SSE_HEARTBEAT_MS: "50" } });
  try {
    const { alice, project } = await team(t);
    const stream = await openSse(t.baseUrl, alice.cookie, project.id);
    try {
      await expectRetry(stream);
      for (let i = 0; i < 3; i++) {
        const frame = await stream.reader!.next(2000);
        assert.ok(frame, "the stream ended");
        assert.deepEqual(frame.lines, [": heartbeat"]);
      }
    } finally {
      await stream.close();
    }
    await hubEmpty(t);
  } finally {
    await t.close();
  }
});

Deno.test("The stream is 404 for a non-member or unknown project and 401 without a session", async () => {
  const t = await testServer();
  try {
    const { outsider, project } = await team(t);
    for (
      const [cookie, id, status, code] of [
        [outsider.cookie, project.id, 404, "not_found"],
        [outsider.cookie, 99999, 404, "not_found"],
        [null, project.id, 401, "unauthenticated"],
        ["session=abc.def", project.id, 401, "unauthenticated"],
      ] as const
    ) {
      const stream = await openSse(t.baseUrl, cookie, id);
      await stream.close();
      assert.equal(stream.res.status, status, stream.text);
      assert.match(stream.res.headers.get("content-type") ?? "", /^application\/json/);
      assert.equal(JSON.parse(stream.text).error.code, code);
    }
    assert.equal(t.app.services.hub.size, 0);
  } finally {
    await t.close();
  }
});

Deno.test("The server drops a stream's subscription when the client goes away", async () => {
  const t = await testServer();
  try {
    const { alice, bob, project } = await team(t);
    const a = await openSse(t.baseUrl, alice.cookie, project.id);
    const b = await openSse(t.baseUrl, bob.cookie, project.id);
    try {
      await expectRetry(a);
      await expectRetry(b);
      await eventually(() => t.app.services.hub.size === 2, "both streams to subscribe");
      await a.close();
      await eventually(() => t.app.services.hub.size === 1, "the aborted stream to be dropped");
      // The other stream still works.
      const file = await uploadFile(t, alice.cookie, project.id, "x.txt", "x");
      expectUploaded(await b.reader!.nextEvent(), file);
    } finally {
      await a.close();
      await b.close();
    }
    await hubEmpty(t);
  } finally {
    await t.close();
  }
});

Deno.test("An 11th stream of one user is 429; other users are unaffected; closing frees the slots", async () => {
  const t = await testServer();
  try {
    const { alice, bob, project } = await team(t);
    const open: OpenedSse[] = [];
    try {
      for (let i = 0; i < 10; i++) {
        const stream = await openSse(t.baseUrl, alice.cookie, project.id);
        open.push(stream);
        await expectRetry(stream);
      }
      assert.equal(t.app.services.hub.size, 10);
      const eleventh = await openSse(t.baseUrl, alice.cookie, project.id);
      await eleventh.close();
      assert.equal(eleventh.res.status, 429, eleventh.text);
      assert.match(eleventh.res.headers.get("content-type") ?? "", /^application\/json/);
      assert.equal(JSON.parse(eleventh.text).error.code, "rate_limited");
      assert.equal(t.app.services.hub.size, 10);

      const other = await openSse(t.baseUrl, bob.cookie, project.id);
      open.push(other);
      await expectRetry(other);

      // Closing one of Alice's streams lets her open another.
      await open.shift()!.close();
      await eventually(() => t.app.services.hub.size === 10, "a slot to be freed");
      const again = await openSse(t.baseUrl, alice.cookie, project.id);
      open.push(again);
      await expectRetry(again);
    } finally {
      for (const stream of open) await stream.close();
    }
    await hubEmpty(t);
  } finally {
    await t.close();
  }
});

Deno.test("Disabling a user ends their event streams, not other users'", async () => {
  const t = await testServer();
  try {
    const { admin, alice, bob, project } = await team(t);
    const a = await openSse(t.baseUrl, alice.cookie, project.id);
    const b = await openSse(t.baseUrl, bob.cookie, project.id);
    try {
      await expectRetry(a);
      await expectRetry(b);
      await eventually(() => t.app.services.hub.size === 2, "both streams to subscribe");
      const res = await api(t, "PATCH", `/api/admin/users/${alice.user.id}`, {
        cookie: admin.cookie,
        body: { status: "disabled" },
      });
      assert.equal(expectJson(res, 200).user.status, "disabled");
      assert.equal(await a.reader!.ended(3000), true, "Alice's stream should end");
      await eventually(() => t.app.services.hub.size === 1, "Alice's stream to be dropped");
      const file = await uploadFile(t, bob.cookie, project.id, "b.txt", "b");
      expectUploaded(await b.reader!.nextEvent(), file);
      // And she cannot open a new one.
      const retry = await openSse(t.baseUrl, alice.cookie, project.id);
      await retry.close();
      assert.equal(retry.res.status, 401, retry.text);
    } finally {
      await a.close();
      await b.close();
    }
    await hubEmpty(t);
  } finally {
    await t.close();
  }
});

Deno.test("A malformed session cookie on the stream is 401, never a 500", async () => {
  const t = await testServer();
  try {
    const { project } = await team(t);
    // Cookie values whose parts are not valid base64url (a length of 1 mod 4, say).
    for (const cookie of ["session=forged.value", "session=a.b", "session=abcde.fghij"]) {
      const stream = await openSse(t.baseUrl, cookie, project.id);
      await stream.close();
      assert.equal(
        stream.res.status,
        401,
        `${cookie}: ${stream.text} ${t.logs.filter((l) => l.startsWith("error"))}`,
      );
      assert.equal(JSON.parse(stream.text).error.code, "unauthenticated");
    }
  } finally {
    await t.close();
  }
});

Deno.test("An archived project's stream can still be read", async () => {
  const t = await testServer();
  try {
    const { owner, viewer, project } = await team(t);
    expectJson(
      await api(t, "POST", `/api/projects/${project.id}/archive`, { cookie: owner.cookie }),
      200,
    );
    const stream = await openSse(t.baseUrl, viewer.cookie, project.id);
    try {
      await expectRetry(stream);
    } finally {
      await stream.close();
    }
    await hubEmpty(t);
  } finally {
    await t.close();
  }
});

Deno.test("A client that stops reading is disconnected at 2,000 queued events; others keep theirs", async () => {
  // In process, a response body is pulled only when read, so the unread stream's queue grows
  // with every event; the reading one stays current.
  const t = await testApp();
  try {
    const owner = await signUp(t, "owner@example.com");
    const project = await createProject(t, owner.cookie, "Queue");
    const open = async () => {
      const res = await t.app.request(`/api/projects/${project.id}/chat/stream`, {
        headers: { cookie: owner.cookie },
      });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("cache-control"), "no-store");
      assert.equal(res.headers.get("x-accel-buffering"), "no");
      return res.body!.getReader();
    };
    const stalled = await open();
    const reading = await open();
    assert.equal(t.app.services.hub.size, 2);
    const decoder = new TextDecoder();
    const publish = (id: number) =>
      t.app.services.hub.publish({ id, projectId: project.id, name: "ping", data: `${id}` });
    let received = decoder.decode((await reading.read()).value);
    for (let id = 1; id <= 2000; id++) {
      publish(id);
      // The reading client takes each event as it comes.
      received += decoder.decode((await reading.read()).value);
    }
    // The stalled stream holds retry + 2,000 events: one more ends it.
    assert.equal(t.app.services.hub.size, 2);
    publish(2001);
    assert.equal(t.app.services.hub.size, 1, "the stalled stream was dropped");
    received += decoder.decode((await reading.read()).value);
    assert.ok(received.startsWith("retry: 3000\n\nid: 1\nevent: ping\ndata: 1\n\n"));
    assert.ok(received.endsWith("id: 2001\nevent: ping\ndata: 2001\n\n"));

    // What was queued before the cut is still delivered, then the stream ends.
    let stalledText = "";
    for (;;) {
      const { done, value } = await stalled.read();
      if (done) break;
      stalledText += decoder.decode(value);
    }
    assert.ok(stalledText.startsWith("retry: 3000\n\n"));
    assert.equal(stalledText.match(/^event: ping$/gm)?.length, 2000);
    assert.ok(!stalledText.includes("data: 2001"));
    await reading.cancel();
    assert.equal(t.app.services.hub.size, 0);
  } finally {
    await t.close();
  }
});

Deno.test("HEAD on the stream checks access and leaves no subscription behind (no slot is used up)", async () => {
  const t = await testApp();
  try {
    const owner = await signUp(t, "owner@example.com");
    const stranger = await signUp(t, "stranger@example.com");
    const project = await createProject(t, owner.cookie, "Heads");
    const path = `/api/projects/${project.id}/chat/stream`;
    for (let i = 0; i < 20; i++) {
      const res = await t.app.request(path, { method: "HEAD", headers: { cookie: owner.cookie } });
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type") ?? "", /^text\/event-stream/);
      assert.equal(await res.text(), "");
    }
    assert.equal(t.app.services.hub.size, 0);
    const denied = await t.app.request(path, {
      method: "HEAD",
      headers: { cookie: stranger.cookie },
    });
    assert.equal(denied.status, 404);
    assert.equal((await t.app.request(path, { method: "HEAD" })).status, 401);
    // All ten of the user's slots are still free.
    const readers = [];
    for (let i = 0; i < 10; i++) {
      const res = await t.app.request(path, { headers: { cookie: owner.cookie } });
      assert.equal(res.status, 200, `stream ${i + 1}`);
      readers.push(res.body!.getReader());
    }
    assert.equal(t.app.services.hub.size, 10);
    for (const reader of readers) await reader.cancel();
    assert.equal(t.app.services.hub.size, 0);
  } finally {
    await t.close();
  }
});

Deno.test("A replay longer than the queue limit is delivered whole, and live events follow it", async () => {
  const t = await testApp();
  try {
    const owner = await signUp(t, "owner@example.com");
    const project = await createProject(t, owner.cookie, "Long replay");
    const ids = await t.engine.transaction(async (tx) => {
      const ids: number[] = [];
      for (let i = 1; i <= 2500; i++) {
        const row = await appendEvent(tx, {
          projectId: project.id,
          name: "ping",
          data: `${i}`,
          createdAt: "2026-11-22T08:30:00.000Z",
        });
        ids.push(row.id);
      }
      return ids;
    });
    const res = await t.app.request(`/api/projects/${project.id}/chat/stream`, {
      headers: { cookie: owner.cookie, "last-event-id": "0" },
    });
    assert.equal(res.status, 200);
    assert.equal(t.app.services.hub.size, 1, "still subscribed after queuing the replay");
    const next = ids.at(-1)! + 1;
    t.app.services.hub.publish({ id: next, projectId: project.id, name: "ping", data: "live" });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    while (!text.includes("data: live\n\n")) {
      const { done, value } = await reader.read();
      assert.ok(!done, "the stream ended before the live event");
      text += decoder.decode(value);
    }
    const seen = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    assert.deepEqual(seen, [...ids, next]);
    await reader.cancel();
    assert.equal(t.app.services.hub.size, 0);
  } finally {
    await t.close();
  }
});

Deno.test("Streams end with access: a removed member's, a logged-out session's, a deleted project's", async () => {
  const t = await testApp();
  try {
    const { admin, owner, bob, project } = await team(t);
    const bobStream = await openStreamInProcess(t, { cookie: bob.cookie }, project.id);
    const adminStream = await openStreamInProcess(t, { cookie: admin.cookie }, project.id);
    const ownerFirst = await openStreamInProcess(t, { cookie: owner.cookie }, project.id);
    const secondSession = `session=${
      (await login(t, "olga@example.com")).replace(/^session=/, "")
    }`;
    const ownerSecond = await openStreamInProcess(t, { cookie: secondSession }, project.id);
    assert.equal(t.app.services.hub.size, 4);

    // Bob is removed: his stream ends, nobody else's.
    expectNoContent(
      await api(t, "DELETE", `/api/projects/${project.id}/members/${bob.user.id}`, {
        cookie: owner.cookie,
      }),
    );
    // member.removed reaches the removed member last, then the stream ends.
    for (const reader of [bobStream, adminStream, ownerFirst, ownerSecond]) {
      assert.match(await nextChunk(reader), /^event: member\.removed$/m);
    }
    assert.equal(await streamEnded(bobStream), true);
    assert.equal(t.app.services.hub.size, 3);

    // The owner logs out of the first session: that stream ends, the second goes on.
    expectNoContent(await api(t, "POST", "/api/auth/logout", { cookie: owner.cookie }));
    assert.equal(await streamEnded(ownerFirst), true);
    assert.equal(await streamEnded(ownerSecond), false);
    assert.equal(t.app.services.hub.size, 2);

    // The project is deleted: every stream of it ends, the admin's too.
    expectNoContent(
      await api(t, "DELETE", `/api/projects/${project.id}`, { cookie: secondSession }),
    );
    assert.equal(await streamEnded(ownerSecond), true);
    assert.equal(await streamEnded(adminStream), true);
    assert.equal(t.app.services.hub.size, 0);
  } finally {
    await t.close();
  }
});

Deno.test("An admin removed from a project's members keeps the stream: admins see every project", async () => {
  const t = await testApp();
  try {
    const { admin, owner, project } = await team(t);
    await addMember(t, owner.cookie, project.id, "root@example.com", "member");
    const adminStream = await openStreamInProcess(t, { cookie: admin.cookie }, project.id);
    expectNoContent(
      await api(t, "DELETE", `/api/projects/${project.id}/members/${admin.user.id}`, {
        cookie: owner.cookie,
      }),
    );
    assert.match(await nextChunk(adminStream), /^event: member\.removed$/m);
    assert.equal(await streamEnded(adminStream), false);
    assert.equal(t.app.services.hub.size, 1);
    await adminStream.cancel();
  } finally {
    await t.close();
  }
});

Deno.test("A stream ends at the first heartbeat after its session expired; a younger session's goes on", async () => {
  const t = await testApp({ env: { SSE_HEARTBEAT_MS: "20", SESSION_TTL_HOURS: "1" } });
  try {
    const { owner, project } = await team(t);
    const older = await openStreamInProcess(t, { cookie: owner.cookie }, project.id);
    t.clock.advance(30 * 60_000);
    const younger = await openStreamInProcess(
      t,
      { cookie: await login(t, "bob@example.com") },
      project.id,
    );
    t.clock.advance(31 * 60_000); // the owner's session is now 61 minutes old
    // The older stream ends at the next heartbeat (at most a few frames are still queued).
    let done = false;
    for (let frames = 0; frames < 50 && !done; frames++) done = (await older.read()).done;
    assert.ok(done, "the expired session's stream is still open");
    assert.equal(t.app.services.hub.size, 1);
    // The younger one still receives heartbeats.
    const { value } = await younger.read();
    assert.equal(new TextDecoder().decode(value), ": heartbeat\n\n");
    await younger.cancel();
    assert.equal(t.app.services.hub.size, 0);
  } finally {
    await t.close();
  }
});

Deno.test("An admin made a member keeps the streams of their own projects only", async () => {
  const t = await testApp();
  try {
    const { admin, owner, project } = await team(t);
    // A second admin to do the demoting; the first admin is a member of a project of their own.
    const boss = await signUp(t, "boss@example.com");
    expectJson(
      await api(t, "PATCH", `/api/admin/users/${boss.user.id}`, {
        cookie: admin.cookie,
        body: { role: "admin" },
      }),
      200,
    );
    const own = await createProject(t, admin.cookie, "Own");
    const foreign = await openStreamInProcess(t, { cookie: admin.cookie }, project.id);
    const mine = await openStreamInProcess(t, { cookie: admin.cookie }, own.id);
    const owners = await openStreamInProcess(t, { cookie: owner.cookie }, project.id);
    expectJson(
      await api(t, "PATCH", `/api/admin/users/${admin.user.id}`, {
        cookie: boss.cookie,
        body: { role: "member" },
      }),
      200,
    );
    assert.equal(await streamEnded(foreign), true, "no longer allowed to see that project");
    assert.equal(await streamEnded(mine), false);
    assert.equal(await streamEnded(owners), false);
    assert.equal(t.app.services.hub.size, 2);
    await mine.cancel();
    await owners.cancel();
  } finally {
    await t.close();
  }
});
