/**
 * The caller's own event stream (`/api/me/stream`), "mark all as read", per-project
 * notification levels and search across the caller's projects.
 */
import assert from "node:assert/strict";
import { testApp, testServer } from "../helpers/app.ts";
import {
  api,
  createNote,
  createProject,
  eventually,
  expectError,
  expectJson,
  type Json,
  nextNamedEvent,
  notificationsOf,
  type OpenedSse,
  openSsePath,
  sendChat,
  team,
} from "../helpers/api.ts";

async function expectRetry(stream: OpenedSse): Promise<void> {
  assert.equal(stream.res.status, 200, stream.text);
  const first = await stream.reader!.next();
  assert.deepEqual(first?.lines, ["retry: 3000"]);
}

Deno.test("POST /api/notifications/read-all marks every unread one read and says how many", async () => {
  const t = await testApp();
  try {
    const { alice, bob, project } = await team(t);
    await sendChat(t, bob.cookie, project.id, "@alice@example.com one");
    await sendChat(t, bob.cookie, project.id, "@alice@example.com two");
    assert.equal((await notificationsOf(t, alice.cookie)).unreadCount, 3); // + member_added
    const res = await api(t, "POST", "/api/notifications/read-all", { cookie: alice.cookie });
    assert.deepEqual(expectJson(res, 200), { updated: 3 });
    assert.equal((await notificationsOf(t, alice.cookie)).unreadCount, 0);
    const again = await api(t, "POST", "/api/notifications/read-all", { cookie: alice.cookie });
    assert.deepEqual(expectJson(again, 200), { updated: 0 });
    // Bob's own stay unread.
    assert.equal((await notificationsOf(t, bob.cookie)).unreadCount, 1);
    expectError(await api(t, "POST", "/api/notifications/read-all"), 401, "unauthenticated");
  } finally {
    await t.close();
  }
});

Deno.test("GET /api/me/stream carries the caller's notification.created and notification.read, and replays after Last-Event-ID", async () => {
  const t = await testServer();
  try {
    const { alice, bob, project } = await team(t);
    const stream = await openSsePath(t.baseUrl, alice.cookie, "/api/me/stream");
    let createdId = 0;
    try {
      assert.match(stream.res.headers.get("content-type") ?? "", /^text\/event-stream/);
      await expectRetry(stream);
      await eventually(() => t.app.services.hub.size === 1, "the stream to subscribe");
      const message = await sendChat(t, bob.cookie, project.id, "hi @alice@example.com");
      const created = await nextNamedEvent(stream.reader!);
      assert.equal(created.event, "notification.created");
      const notification = JSON.parse(created.data!);
      assert.equal(notification.kind, "mention");
      assert.equal(notification.subjectId, message.id);
      assert.deepEqual(
        notification,
        (await notificationsOf(t, alice.cookie)).items.find((n: Json) => n.id === notification.id),
      );
      createdId = Number(created.id);
      assert.ok(createdId > 0);
      await api(t, "POST", "/api/notifications/read-all", { cookie: alice.cookie });
      const read = await nextNamedEvent(stream.reader!);
      assert.equal(read.event, "notification.read");
      assert.ok(Number(read.id) > createdId);
      const data = JSON.parse(read.data!);
      assert.equal(data.unreadCount, 0);
      assert.ok(data.ids.includes(notification.id));
    } finally {
      await stream.close();
    }
    // Bob's mention of himself is nobody's; Bob's stream sees none of Alice's events.
    const replayed = await openSsePath(t.baseUrl, alice.cookie, "/api/me/stream", {
      "last-event-id": String(createdId),
    });
    try {
      await expectRetry(replayed);
      const frame = await nextNamedEvent(replayed.reader!);
      assert.equal(frame.event, "notification.read");
    } finally {
      await replayed.close();
    }
    const bobs = await openSsePath(t.baseUrl, bob.cookie, "/api/me/stream", {
      "last-event-id": "0",
    });
    try {
      await expectRetry(bobs);
      await sendChat(t, alice.cookie, project.id, "@bob@example.com look");
      const frame = await nextNamedEvent(bobs.reader!);
      // Bob's replay holds his own member_added first, never Alice's events.
      assert.equal(frame.event, "notification.created");
      assert.equal(JSON.parse(frame.data!).kind, "member_added");
    } finally {
      await bobs.close();
    }
    const anonymous = await openSsePath(t.baseUrl, null, "/api/me/stream");
    assert.equal(anonymous.res.status, 401);
  } finally {
    await t.close();
  }
});

Deno.test("PUT notification-level: mentions lets only personal kinds through, none stops all", async () => {
  const t = await testApp();
  try {
    const { owner, alice, bob, outsider, project } = await team(t);
    const level = (cookie: string, body: unknown, projectId = project.id) =>
      api(t, "PUT", `/api/projects/${projectId}/notification-level`, { cookie, body });
    await api(t, "POST", "/api/notifications/read-all", { cookie: alice.cookie });
    assert.deepEqual(expectJson(await level(alice.cookie, { level: "mentions" }), 200), {
      level: "mentions",
    });
    const note = await createNote(t, alice.cookie, project.id, { title: "Plan", body: "" });
    await api(t, "PATCH", `/api/projects/${project.id}/notes/${note.id}`, {
      cookie: owner.cookie,
      body: { title: "Plan B" },
    });
    await sendChat(t, bob.cookie, project.id, "@alice@example.com ping");
    assert.deepEqual(
      (await notificationsOf(t, alice.cookie)).items.map((n: Json) => n.kind),
      ["mention"],
    );
    expectJson(await level(alice.cookie, { level: "none" }), 200);
    await sendChat(t, bob.cookie, project.id, "@alice@example.com again");
    assert.equal((await notificationsOf(t, alice.cookie)).unreadCount, 1);
    expectJson(await level(alice.cookie, { level: "all" }), 200);
    await sendChat(t, bob.cookie, project.id, "@alice@example.com back");
    assert.equal((await notificationsOf(t, alice.cookie)).unreadCount, 2);

    expectError(await level(alice.cookie, { level: "loud" }), 400, "validation");
    expectError(await level(alice.cookie, {}), 400, "validation");
    expectError(await level(outsider.cookie, { level: "none" }), 404, "not_found");
    expectError(await level(alice.cookie, { level: "none" }, 9999), 404, "not_found");
    expectError(await level("", { level: "none" }), 401, "unauthenticated");
  } finally {
    await t.close();
  }
});

Deno.test("GET /api/search searches every project of the caller and names each hit's project", async () => {
  const t = await testApp();
  try {
    const { owner, alice, outsider, project } = await team(t);
    const other = await createProject(t, owner.cookie, "Zephyr");
    const secret = await createProject(t, outsider.cookie, "Hidden");
    await createNote(t, owner.cookie, project.id, { title: "Launch checklist", body: "" });
    t.clock.advance(1000);
    await createNote(t, owner.cookie, other.id, { title: "Launch party", body: "" });
    await createNote(t, outsider.cookie, secret.id, { title: "Launch secret", body: "" });
    const body = expectJson(
      await api(t, "GET", "/api/search?q=launch", { cookie: owner.cookie }),
      200,
    );
    assert.equal(body.total, 2);
    assert.deepEqual(
      body.items.map((h: Json) => [h.title, h.projectId, h.projectName]),
      [["Launch party", other.id, "Zephyr"], ["Launch checklist", project.id, "Apollo"]],
    );
    assert.match(body.items[0].snippet, /<mark>Launch<\/mark>/);
    // Alice belongs to Apollo only.
    const hers = expectJson(
      await api(t, "GET", "/api/search?q=launch", { cookie: alice.cookie }),
      200,
    );
    assert.deepEqual(hers.items.map((h: Json) => h.projectName), ["Apollo"]);
    const typed = expectJson(
      await api(t, "GET", "/api/search?q=launch&type=chat", { cookie: owner.cookie }),
      200,
    );
    assert.equal(typed.total, 0);
    expectError(
      await api(t, "GET", "/api/search?q=%20", { cookie: owner.cookie }),
      400,
      "validation",
    );
    expectError(
      await api(t, "GET", "/api/search?q=x&type=nope", { cookie: owner.cookie }),
      400,
      "validation",
    );
    expectError(await api(t, "GET", "/api/search?q=launch"), 401, "unauthenticated");
  } finally {
    await t.close();
  }
});
