/**
 * The trash, from outside: every kind of delete is listed in the project's trash, and a
 * restore brings the item back exactly (attachments, place, thread, search, dashboards,
 * calendar, activity and the event stream) within the contract's permissions.
 */
import assert from "node:assert/strict";
import { type TestApp, testApp, testServer } from "../helpers/app.ts";
import {
  api,
  type ApiResponse,
  attachIds,
  createComment,
  createNote,
  createThread,
  createTodo,
  download,
  eventually,
  expectError,
  expectJson,
  expectNoContent,
  getJson,
  type Json,
  nextNamedEvent,
  notificationsOf,
  openSse,
  PDF_BYTES,
  PNG_BYTES,
  postFile,
  sendChat,
  storedEvents,
  storedFiles,
  team,
  todoColumns,
  uploadFile,
} from "../helpers/api.ts";
import { DAY } from "../helpers/trash.ts";

const NOW = "2026-11-22T08:30:00.000Z";
const MINUTE = 60_000;

const base = (projectId: number) => `/api/projects/${projectId}`;

/** The project's trash as `cookie` sees it (expects 200). */
async function trashOf(t: TestApp, cookie: string, projectId: number, query = ""): Promise<Json> {
  return await getJson(t, cookie, `${base(projectId)}/trash${query}`);
}

/** `POST .../trash/{type}/{id}/restore` as `cookie`. */
async function restore(
  t: TestApp,
  cookie: string,
  projectId: number,
  type: string,
  id: number | string,
): Promise<ApiResponse> {
  return await api(t, "POST", `${base(projectId)}/trash/${type}/${id}/restore`, { cookie });
}

/** Restores and expects 200 `{type, id}`. */
async function restored(
  t: TestApp,
  cookie: string,
  projectId: number,
  type: string,
  id: number,
): Promise<void> {
  assert.deepEqual(expectJson(await restore(t, cookie, projectId, type, id), 200), { type, id });
}

/** DELETEs `path` as `cookie`, expecting 204. */
async function remove(t: TestApp, cookie: string, path: string): Promise<void> {
  expectNoContent(await api(t, "DELETE", path, { cookie }));
}

/** The type and id of each entry of a trash page. */
const refs = (page: Json) => page.items.map((e: Json) => `${e.type}:${e.id}`);

/** A thread with its comments and attachments as GET shows it. */
async function threadOf(t: TestApp, cookie: string, projectId: number, id: number) {
  return await getJson(t, cookie, `${base(projectId)}/board/threads/${id}`);
}

/** Search results' `type:id`, for `q`. */
async function searchHits(t: TestApp, cookie: string, projectId: number, q: string) {
  const page = await getJson(t, cookie, `${base(projectId)}/search?q=${encodeURIComponent(q)}`);
  return page.items.map((h: Json) => `${h.type}:${h.id}`);
}

Deno.test("GET /trash lists every kind deleted, most recently deleted first, with its deleter and purge time", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { owner, alice, bob, project } = await team(t);
    const p = project.id;
    const thread = await createThread(t, alice.cookie, p, { title: "Old thread" });
    const other = await createThread(t, alice.cookie, p, { title: "Other thread" });
    const comment = await createComment(t, bob.cookie, p, other.id, { body: "x".repeat(100) });
    const note = await createNote(t, alice.cookie, p, { title: "A note" });
    const message = await sendChat(t, bob.cookie, p, "hello there");
    const item = await createTodo(t, alice.cookie, p, { title: "A to-do" });
    const file = await uploadFile(t, bob.cookie, p, "report.pdf", PDF_BYTES);
    const event = expectJson(
      await api(t, "POST", `${base(p)}/calendar/events`, {
        cookie: alice.cookie,
        body: { title: "Launch", startAt: "2026-12-01T10:00:00Z", endAt: "2026-12-01T11:00:00Z" },
      }),
      201,
    ).event;
    const meeting = expectJson(
      await api(t, "POST", `${base(p)}/meetings`, {
        cookie: alice.cookie,
        body: {
          title: "Review",
          startAt: "2026-12-02T10:00:00Z",
          endAt: "2026-12-02T11:00:00Z",
          inviteeIds: [],
        },
      }),
      201,
    ).meeting;

    const deletes: Array<[string, number, string, Json, string]> = [
      ["thread", thread.id, `/board/threads/${thread.id}`, owner, "Old thread"],
      ["comment", comment.id, `/board/comments/${comment.id}`, bob, "x".repeat(80)],
      ["note", note.id, `/notes/${note.id}`, alice, "A note"],
      ["message", message.id, `/chat/messages/${message.id}`, bob, "hello there"],
      ["item", item.id, `/todos/items/${item.id}`, bob, "A to-do"],
      ["file", file.id, `/files/${file.id}`, owner, "report.pdf"],
      ["event", event.id, `/calendar/events/${event.id}`, alice, "Launch"],
      ["meeting", meeting.id, `/meetings/${meeting.id}`, bob, "Review"],
    ];
    const expected: Json[] = [];
    for (const [type, id, path, who, title] of deletes) {
      t.clock.advance(MINUTE);
      await remove(t, who.cookie, `${base(p)}${path}`);
      const deletedAt = t.clock.now().toISOString();
      const purgeAt = new Date(t.clock.now().getTime() + 30 * DAY).toISOString();
      expected.unshift({ type, id, title, deletedAt, deletedBy: who.user.id, purgeAt });
    }

    const page = await trashOf(t, alice.cookie, p);
    assert.deepEqual(page, { items: expected, page: 1, pageSize: 20, total: 8, hasMore: false });
    for (const entry of page.items) {
      assert.deepEqual(Object.keys(entry), [
        "type",
        "id",
        "title",
        "deletedAt",
        "deletedBy",
        "purgeAt",
      ]);
    }
    const first = await trashOf(t, alice.cookie, p, "?pageSize=3");
    assert.deepEqual(first.items, expected.slice(0, 3));
    assert.equal(first.hasMore, true);
    const last = await trashOf(t, alice.cookie, p, "?page=3&pageSize=3");
    assert.deepEqual(last.items, expected.slice(6));
    assert.equal(last.hasMore, false);
    // Another project's trash is its own.
    const elsewhere = expectJson(
      await api(t, "POST", "/api/projects", { cookie: alice.cookie, body: { name: "Other" } }),
      201,
    ).project;
    assert.equal((await trashOf(t, alice.cookie, elsewhere.id)).total, 0);
  } finally {
    await t.close();
  }
});

Deno.test("A thread comes back exactly: the comments that went with it, attachments, search and dashboard; one deleted before stays in the trash", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { alice, bob, project } = await team(t);
    const p = project.id;
    const shared = await uploadFile(t, bob.cookie, p, "shared.pdf", PDF_BYTES);
    const thread = await createThread(t, alice.cookie, p, {
      title: "Kick-off plan",
      fileIds: [shared.id],
    });
    expectJson(
      await postFile(
        t,
        alice.cookie,
        `${base(p)}/board/threads/${thread.id}/attachments`,
        "own.png",
        PNG_BYTES,
      ),
      200,
    );
    t.clock.advance(MINUTE);
    const kept = await createComment(t, bob.cookie, p, thread.id, { body: "first" });
    expectJson(
      await postFile(
        t,
        bob.cookie,
        `${base(p)}/board/comments/${kept.id}/attachments`,
        "c.txt",
        "c",
      ),
      200,
    );
    await createComment(t, alice.cookie, p, thread.id, { body: "second" });
    const early = await createComment(t, bob.cookie, p, thread.id, { body: "deleted before" });
    t.clock.advance(MINUTE);
    await remove(t, bob.cookie, `${base(p)}/board/comments/${early.id}`);
    const before = await threadOf(t, alice.cookie, p, thread.id);
    assert.equal(before.comments.length, 2);
    assert.equal(before.attachments.length, 2);
    assert.deepEqual(await searchHits(t, alice.cookie, p, "Kick-off"), [`board:${thread.id}`]);

    t.clock.advance(MINUTE);
    await remove(t, alice.cookie, `${base(p)}/board/threads/${thread.id}`);
    expectError(
      await api(t, "GET", `${base(p)}/board/threads/${thread.id}`, { cookie: alice.cookie }),
      404,
      "not_found",
    );
    // Only the thread and the comment deleted on its own are entries; the rest went with it.
    assert.deepEqual(refs(await trashOf(t, alice.cookie, p)), [
      `thread:${thread.id}`,
      `comment:${early.id}`,
    ]);
    assert.deepEqual(await searchHits(t, alice.cookie, p, "Kick-off"), []);
    const dashboard = await getJson(t, alice.cookie, `${base(p)}/dashboard`);
    assert.deepEqual(dashboard.latestThreads, []);
    const uploads = await getJson(t, alice.cookie, `${base(p)}/files?source=attachment`);
    assert.equal(uploads.total, 0, "the uploads went to the trash with the thread");

    t.clock.advance(MINUTE);
    await restored(t, alice.cookie, p, "thread", thread.id);
    assert.deepEqual(await threadOf(t, alice.cookie, p, thread.id), before);
    assert.deepEqual(await searchHits(t, alice.cookie, p, "Kick-off"), [`board:${thread.id}`]);
    const after = await getJson(t, alice.cookie, `${base(p)}/dashboard`);
    assert.deepEqual(after.latestThreads.map((x: Json) => x.id), [thread.id]);
    assert.equal((await getJson(t, alice.cookie, `${base(p)}/files?source=attachment`)).total, 2);
    for (const file of before.attachments) {
      const got = await download(t, bob.cookie, file.id);
      assert.equal(got.status, 200);
    }
    assert.deepEqual(refs(await trashOf(t, alice.cookie, p)), [`comment:${early.id}`]);

    // The comment deleted on its own comes back on its own, in its place.
    await restored(t, bob.cookie, p, "comment", early.id);
    const full = await threadOf(t, alice.cookie, p, thread.id);
    assert.deepEqual(full.comments.map((c: Json) => c.body), ["first", "second", "deleted before"]);
    assert.equal((await trashOf(t, alice.cookie, p)).total, 0);
  } finally {
    await t.close();
  }
});

Deno.test("A comment whose thread is still deleted cannot be restored alone (409); after the thread it can", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { alice, bob, project } = await team(t);
    const p = project.id;
    const thread = await createThread(t, alice.cookie, p);
    const comment = await createComment(t, bob.cookie, p, thread.id, { body: "mine" });
    await remove(t, bob.cookie, `${base(p)}/board/comments/${comment.id}`);
    t.clock.advance(MINUTE);
    await remove(t, alice.cookie, `${base(p)}/board/threads/${thread.id}`);

    const error = expectError(
      await restore(t, bob.cookie, p, "comment", comment.id),
      409,
      "conflict",
    );
    assert.match(error.message, /thread/);
    assert.deepEqual(refs(await trashOf(t, bob.cookie, p)), [
      `thread:${thread.id}`,
      `comment:${comment.id}`,
    ]);

    await restored(t, alice.cookie, p, "thread", thread.id);
    assert.deepEqual((await threadOf(t, bob.cookie, p, thread.id)).comments, []);
    await restored(t, bob.cookie, p, "comment", comment.id);
    const back = await threadOf(t, bob.cookie, p, thread.id);
    assert.deepEqual(back.comments.map((c: Json) => c.id), [comment.id]);
    assert.deepEqual(back.comments[0], { ...comment });
  } finally {
    await t.close();
  }
});

Deno.test("A to-do comes back to its place in its column (renumbered), with its attachments, milestone progress and calendar", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { alice, bob, project } = await team(t);
    const p = project.id;
    const milestone = expectJson(
      await api(t, "POST", `${base(p)}/milestones`, {
        cookie: alice.cookie,
        body: { title: "Beta", dueDate: "2026-12-20" },
      }),
      201,
    ).milestone;
    const a = await createTodo(t, alice.cookie, p, { title: "a" });
    const b = await createTodo(t, alice.cookie, p, {
      title: "b",
      dueDate: "2026-11-25",
      milestoneId: milestone.id,
    });
    const c = await createTodo(t, alice.cookie, p, { title: "c" });
    const d = await createTodo(t, alice.cookie, p, { title: "d", milestoneId: milestone.id });
    expectJson(
      await postFile(t, alice.cookie, `${base(p)}/todos/items/${b.id}/attachments`, "b.txt", "b"),
      200,
    );
    expectJson(
      await api(t, "POST", `${base(p)}/todos/items/${b.id}/toggle-complete`, {
        cookie: alice.cookie,
      }),
      200,
    );
    const before = await getJson(t, alice.cookie, `${base(p)}/todos/items/${b.id}`);
    assert.equal(before.item.orderIndex, 1);
    const progress = async () =>
      (await getJson(t, alice.cookie, `${base(p)}/milestones/${milestone.id}`)).milestone.progress;
    assert.equal(await progress(), 50);
    const calendar = async () =>
      (await getJson(
        t,
        alice.cookie,
        `${base(p)}/calendar?from=2026-11-01T00:00:00Z&to=2026-12-01T00:00:00Z`,
      )).items.map((i: Json) => `${i.type}:${i.id}`);
    assert.deepEqual(await calendar(), [`todo:${b.id}`]);

    t.clock.advance(MINUTE);
    await remove(t, bob.cookie, `${base(p)}/todos/items/${b.id}`);
    assert.equal(await progress(), 0, "a deleted to-do does not count");
    assert.deepEqual(await calendar(), []);
    // Meanwhile d moves to the top: d, a, c.
    expectJson(
      await api(t, "POST", `${base(p)}/todos/items/${d.id}/move`, {
        cookie: alice.cookie,
        body: { columnId: a.columnId, orderIndex: 0 },
      }),
      200,
    );

    t.clock.advance(MINUTE);
    await restored(t, bob.cookie, p, "item", b.id);
    const list = await getJson(t, alice.cookie, `${base(p)}/todos/items?columnId=${a.columnId}`);
    assert.deepEqual(list.items.map((i: Json) => [i.title, i.orderIndex]), [
      ["d", 0],
      ["b", 1],
      ["a", 2],
      ["c", 3],
    ]);
    assert.deepEqual(await getJson(t, alice.cookie, `${base(p)}/todos/items/${b.id}`), before);
    assert.equal(await progress(), 50, "a restored to-do counts again");
    assert.deepEqual(await calendar(), [`todo:${b.id}`]);
    assert.equal(c.columnId, a.columnId);
  } finally {
    await t.close();
  }
});

Deno.test("A to-do whose column was deleted meanwhile comes back last in the first column", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { alice, project } = await team(t);
    const p = project.id;
    const [first] = await todoColumns(t, alice.cookie, p);
    const review = expectJson(
      await api(t, "POST", `${base(p)}/todos/columns`, {
        cookie: alice.cookie,
        body: { name: "Review" },
      }),
      201,
    ).column;
    const one = await createTodo(t, alice.cookie, p, { title: "one" });
    const gone = await createTodo(t, alice.cookie, p, { title: "gone", columnId: review.id });
    await remove(t, alice.cookie, `${base(p)}/todos/items/${gone.id}`);
    await remove(t, alice.cookie, `${base(p)}/todos/columns/${review.id}`);
    const two = await createTodo(t, alice.cookie, p, { title: "two" });

    await restored(t, alice.cookie, p, "item", gone.id);
    const items = await getJson(t, alice.cookie, `${base(p)}/todos/items`);
    assert.deepEqual(items.items.map((i: Json) => [i.id, i.columnId, i.orderIndex]), [
      [one.id, first.id, 0],
      [two.id, first.id, 1],
      [gone.id, first.id, 2],
    ]);
  } finally {
    await t.close();
  }
});

Deno.test("A chat message comes back in its place in the history with its own upload", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { owner, bob, project } = await team(t);
    const p = project.id;
    const m1 = await sendChat(t, bob.cookie, p, "one");
    const m2 = await sendChat(t, bob.cookie, p, "two");
    expectJson(
      await postFile(
        t,
        bob.cookie,
        `${base(p)}/chat/messages/${m2.id}/attachments`,
        "two.txt",
        "2",
      ),
      200,
    );
    const m3 = await sendChat(t, bob.cookie, p, "three");
    const history = async () => (await getJson(t, bob.cookie, `${base(p)}/chat/messages`)).items;
    const before = await history();
    t.clock.advance(MINUTE);
    await remove(t, bob.cookie, `${base(p)}/chat/messages/${m2.id}`);
    assert.deepEqual((await history()).map((m: Json) => m.id), [m1.id, m3.id]);
    const upload = before[1].attachments[0];
    assert.equal((await download(t, bob.cookie, upload.id)).status, 404);

    await restored(t, owner.cookie, p, "message", m2.id);
    assert.deepEqual(await history(), before);
    const got = await download(t, bob.cookie, upload.id);
    assert.equal(got.status, 200);
    assert.deepEqual(new TextDecoder().decode(got.bytes), "2");
    const dashboard = await getJson(t, bob.cookie, `${base(p)}/dashboard`);
    assert.deepEqual(dashboard.latestChat.map((m: Json) => m.id), [m3.id, m2.id, m1.id]);
  } finally {
    await t.close();
  }
});

Deno.test("A file comes back to the files list, to the items that attached it, to search, and downloads", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { owner, alice, bob, project } = await team(t);
    const p = project.id;
    const file = await uploadFile(t, bob.cookie, p, "quarterly-report.pdf", PDF_BYTES);
    const thread = await createThread(t, alice.cookie, p, { fileIds: [file.id] });
    const item = await createTodo(t, alice.cookie, p, { fileIds: [file.id] });
    const files = async () => await getJson(t, bob.cookie, `${base(p)}/files`);
    const before = await files();
    assert.deepEqual(await searchHits(t, bob.cookie, p, "quarterly"), [`file:${file.id}`]);

    await remove(t, owner.cookie, `${base(p)}/files/${file.id}`);
    assert.equal((await files()).total, 0);
    assert.deepEqual((await threadOf(t, bob.cookie, p, thread.id)).attachments, []);
    assert.equal((await download(t, bob.cookie, file.id)).status, 404);
    assert.deepEqual(await searchHits(t, bob.cookie, p, "quarterly"), []);
    assert.equal((await storedFiles(t)).length, 1, "the trash keeps the bytes");

    await restored(t, bob.cookie, p, "file", file.id);
    assert.deepEqual(await files(), before);
    assert.deepEqual((await threadOf(t, bob.cookie, p, thread.id)).attachments, [file]);
    const got = await getJson(t, bob.cookie, `${base(p)}/todos/items/${item.id}`);
    assert.deepEqual(got.attachments, [file]);
    const bytes = await download(t, bob.cookie, file.id);
    assert.equal(bytes.status, 200);
    assert.deepEqual(bytes.bytes, PDF_BYTES);
    assert.deepEqual(await searchHits(t, bob.cookie, p, "quarterly"), [`file:${file.id}`]);
  } finally {
    await t.close();
  }
});

Deno.test("A note, a calendar event and a meeting come back: search, dashboards, calendar, conflicts and notifications", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { alice, bob, project } = await team(t);
    const p = project.id;
    const note = await createNote(t, alice.cookie, p, { title: "Roadmap", tags: ["plan"] });
    const event = expectJson(
      await api(t, "POST", `${base(p)}/calendar/events`, {
        cookie: alice.cookie,
        body: {
          title: "Offsite",
          startAt: "2026-11-24T09:00:00Z",
          endAt: "2026-11-24T17:00:00Z",
        },
      }),
      201,
    ).event;
    const meeting = expectJson(
      await api(t, "POST", `${base(p)}/meetings`, {
        cookie: alice.cookie,
        body: {
          title: "Planning",
          startAt: "2026-11-25T10:00:00Z",
          endAt: "2026-11-25T11:00:00Z",
          inviteeIds: [bob.user.id],
          location: "Room 4",
        },
      }),
      201,
    ).meeting;
    const invitations = async () =>
      (await notificationsOf(t, bob.cookie)).items.filter((n: Json) => n.subjectType === "meeting");
    const reads = async () => ({
      note: await getJson(t, alice.cookie, `${base(p)}/notes/${note.id}`),
      event: await getJson(t, alice.cookie, `${base(p)}/calendar/events/${event.id}`),
      meeting: await getJson(t, alice.cookie, `${base(p)}/meetings/${meeting.id}`),
      search: [
        ...await searchHits(t, alice.cookie, p, "Roadmap"),
        ...await searchHits(t, alice.cookie, p, "Offsite"),
        ...await searchHits(t, alice.cookie, p, "Room 4"),
      ],
      calendar: (await getJson(
        t,
        alice.cookie,
        `${base(p)}/calendar?from=2026-11-23T00:00:00Z&to=2026-11-30T00:00:00Z`,
      )).items,
      dashboard: await getJson(t, alice.cookie, `${base(p)}/dashboard`),
      personal: (await getJson(t, bob.cookie, "/api/dashboard")).upcomingMeetings,
      conflicts: (await getJson(
        t,
        bob.cookie,
        `${
          base(p)
        }/meetings/check?startAt=2026-11-25T10:30:00Z&endAt=2026-11-25T12:00:00Z&inviteeIds=${bob.user.id}`,
      )).conflicts,
      invited: await invitations(),
    });
    const before = await reads();
    assert.deepEqual(before.search, [
      `note:${note.id}`,
      `event:${event.id}`,
      `meeting:${meeting.id}`,
    ]);
    assert.equal(before.conflicts.length, 1);
    assert.equal(before.invited.length, 1);
    assert.equal(before.personal.length, 1);
    assert.equal(before.dashboard.nextMeeting.id, meeting.id);

    t.clock.advance(MINUTE);
    await remove(t, alice.cookie, `${base(p)}/notes/${note.id}`);
    await remove(t, bob.cookie, `${base(p)}/calendar/events/${event.id}`);
    await remove(t, bob.cookie, `${base(p)}/meetings/${meeting.id}`);
    for (
      const path of [`/notes/${note.id}`, `/calendar/events/${event.id}`, `/meetings/${meeting.id}`]
    ) {
      expectError(
        await api(t, "GET", `${base(p)}${path}`, { cookie: alice.cookie }),
        404,
        "not_found",
      );
    }
    assert.deepEqual(await searchHits(t, alice.cookie, p, "Roadmap"), []);
    assert.deepEqual(await invitations(), []);
    assert.deepEqual((await getJson(t, bob.cookie, "/api/dashboard")).upcomingMeetings, []);

    t.clock.advance(MINUTE);
    await restored(t, alice.cookie, p, "note", note.id);
    await restored(t, bob.cookie, p, "event", event.id);
    await restored(t, bob.cookie, p, "meeting", meeting.id);
    const after = await reads();
    // The dashboards' recent activity now starts with the three restores.
    const restores = after.dashboard.recentActivity.slice(0, 3);
    assert.deepEqual(restores.map((a: Json) => [a.kind, a.subjectType]), [
      ["item_restored", "meeting"],
      ["item_restored", "event"],
      ["item_restored", "note"],
    ]);
    after.dashboard.recentActivity = after.dashboard.recentActivity.slice(3);
    assert.equal(after.dashboard.recentActivityTotal, before.dashboard.recentActivityTotal + 3);
    after.dashboard.recentActivityTotal = before.dashboard.recentActivityTotal;
    assert.deepEqual(after, before);
  } finally {
    await t.close();
  }
});

Deno.test("A restore writes item_restored and sends item.restored {type, id} on the stream", async () => {
  const t = await testServer({ now: NOW });
  try {
    const { alice, bob, viewer, project } = await team(t);
    const p = project.id;
    const note = await createNote(t, alice.cookie, p, { title: "Back soon" });
    await remove(t, alice.cookie, `${base(p)}/notes/${note.id}`);
    const stream = await openSse(t.baseUrl, viewer.cookie, p);
    try {
      assert.equal(stream.res.status, 200, stream.text);
      await eventually(() => t.app.services.hub.size === 1, "the stream to subscribe");
      expectError(await restore(t, bob.cookie, p, "note", note.id), 403, "forbidden");
      await restored(t, alice.cookie, p, "note", note.id);
      const frame = await nextNamedEvent(stream.reader!);
      assert.equal(frame.event, "item.restored");
      assert.deepEqual(JSON.parse(frame.data!), { type: "note", id: note.id });
      assert.match(frame.id ?? "", /^\d+$/);
    } finally {
      await stream.close();
    }
    const events = (await storedEvents(t, p)).filter((e) => e.name === "item.restored");
    assert.deepEqual(events.map((e) => e.data), [{ type: "note", id: note.id }]);
    const activity = await getJson(t, alice.cookie, `${base(p)}/activity`);
    const [latest] = activity.items;
    assert.deepEqual(
      {
        kind: latest.kind,
        actorId: latest.actorId,
        subjectType: latest.subjectType,
        subjectId: latest.subjectId,
        summary: latest.summary,
      },
      {
        kind: "item_restored",
        actorId: alice.user.id,
        subjectType: "note",
        subjectId: note.id,
        summary: "Back soon",
      },
    );
  } finally {
    await t.close();
  }
});

Deno.test("Restore is for the deleter, the author, an owner or an admin; viewers cannot list or restore; outsiders get 404", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { admin, owner, alice, bob, viewer, outsider, project } = await team(t);
    const p = project.id;
    // Alice's to-dos, deleted by Bob, restored by each allowed role in turn.
    for (const restorer of [bob, alice, owner, admin]) {
      const item = await createTodo(t, alice.cookie, p);
      await remove(t, bob.cookie, `${base(p)}/todos/items/${item.id}`);
      await restored(t, restorer.cookie, p, "item", item.id);
    }
    // Alice's note, deleted by the owner: Bob (neither) and the viewer are refused.
    const note = await createNote(t, alice.cookie, p);
    await remove(t, owner.cookie, `${base(p)}/notes/${note.id}`);
    for (const refused of [bob, viewer]) {
      expectError(await restore(t, refused.cookie, p, "note", note.id), 403, "forbidden");
    }
    expectError(await restore(t, outsider.cookie, p, "note", note.id), 404, "not_found");
    expectError(await restore(t, "", p, "note", note.id), 401, "unauthenticated");
    assert.equal((await trashOf(t, alice.cookie, p)).total, 1, "the refusals changed nothing");

    // Listing: members, owners and admins; not viewers; outsiders do not see the project.
    for (const reader of [alice, bob, owner, admin]) {
      assert.equal((await trashOf(t, reader.cookie, p)).total, 1);
    }
    expectError(
      await api(t, "GET", `${base(p)}/trash`, { cookie: viewer.cookie }),
      403,
      "forbidden",
    );
    expectError(
      await api(t, "GET", `${base(p)}/trash`, { cookie: outsider.cookie }),
      404,
      "not_found",
    );
    expectError(await api(t, "GET", `${base(p)}/trash`), 401, "unauthenticated");

    // An archived project is read-only: the trash is listed, a restore is refused.
    expectJson(await api(t, "POST", `${base(p)}/archive`, { cookie: owner.cookie }), 200);
    assert.equal((await trashOf(t, alice.cookie, p)).total, 1);
    expectError(await restore(t, alice.cookie, p, "note", note.id), 403, "forbidden");
    expectError(await restore(t, owner.cookie, p, "note", note.id), 403, "forbidden");
    expectJson(await api(t, "POST", `${base(p)}/unarchive`, { cookie: owner.cookie }), 200);
    await restored(t, alice.cookie, p, "note", note.id);

    // A cross-site restore is refused before anything else.
    const thread = await createThread(t, alice.cookie, p);
    await remove(t, alice.cookie, `${base(p)}/board/threads/${thread.id}`);
    const crossSite = await api(t, "POST", `${base(p)}/trash/thread/${thread.id}/restore`, {
      cookie: alice.cookie,
      headers: { "sec-fetch-site": "cross-site" },
    });
    expectError(crossSite, 403, "forbidden");
    assert.equal((await trashOf(t, alice.cookie, p)).total, 1);
  } finally {
    await t.close();
  }
});

Deno.test("Items deleted before the trash existed show deletedBy null; their author or an owner may restore them", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { owner, alice, bob, project } = await team(t);
    const p = project.id;
    const note = await createNote(t, alice.cookie, p);
    const other = await createNote(t, alice.cookie, p, { title: "Other" });
    await remove(t, alice.cookie, `${base(p)}/notes/${note.id}`);
    await remove(t, alice.cookie, `${base(p)}/notes/${other.id}`);
    // As migration 010 leaves rows deleted before it: no deleter recorded.
    await t.sql.run("UPDATE notes SET deleted_by = NULL");
    const page = await trashOf(t, bob.cookie, p);
    assert.deepEqual(page.items.map((e: Json) => e.deletedBy), [null, null]);
    expectError(await restore(t, bob.cookie, p, "note", note.id), 403, "forbidden");
    await restored(t, alice.cookie, p, "note", note.id);
    await restored(t, owner.cookie, p, "note", other.id);
  } finally {
    await t.close();
  }
});

Deno.test("Restoring what is not in the trash is 404: live, unknown, already restored, another project's, or gone with its thread", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { owner, alice, project } = await team(t);
    const p = project.id;
    const live = await createNote(t, alice.cookie, p);
    expectError(await restore(t, alice.cookie, p, "note", live.id), 404, "not_found");
    expectError(await restore(t, alice.cookie, p, "note", 99999), 404, "not_found");
    expectError(await restore(t, alice.cookie, p, "thread", live.id), 404, "not_found");

    const note = await createNote(t, alice.cookie, p);
    await remove(t, alice.cookie, `${base(p)}/notes/${note.id}`);
    await restored(t, alice.cookie, p, "note", note.id);
    expectError(await restore(t, alice.cookie, p, "note", note.id), 404, "not_found");

    const other = expectJson(
      await api(t, "POST", "/api/projects", { cookie: owner.cookie, body: { name: "Other" } }),
      201,
    ).project;
    const foreign = await createNote(t, owner.cookie, other.id);
    await remove(t, owner.cookie, `${base(other.id)}/notes/${foreign.id}`);
    expectError(await restore(t, owner.cookie, p, "note", foreign.id), 404, "not_found");
    expectError(await restore(t, owner.cookie, 99999, "note", foreign.id), 404, "not_found");

    // What went to the trash with a thread comes back with it, not on its own.
    const thread = await createThread(t, alice.cookie, p);
    const comment = await createComment(t, alice.cookie, p, thread.id);
    const upload = expectJson(
      await postFile(
        t,
        alice.cookie,
        `${base(p)}/board/threads/${thread.id}/attachments`,
        "u.txt",
        "u",
      ),
      200,
    ).attachments[0];
    await remove(t, alice.cookie, `${base(p)}/board/threads/${thread.id}`);
    expectError(await restore(t, alice.cookie, p, "comment", comment.id), 404, "not_found");
    expectError(await restore(t, alice.cookie, p, "file", upload.id), 404, "not_found");
    assert.deepEqual(refs(await trashOf(t, alice.cookie, p)), [`thread:${thread.id}`]);
  } finally {
    await t.close();
  }
});

Deno.test("POST /trash/{type}/{id}/restore: an unknown type or a bad id is 400 naming it", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { alice, project } = await team(t);
    const p = project.id;
    const note = await createNote(t, alice.cookie, p);
    await remove(t, alice.cookie, `${base(p)}/notes/${note.id}`);
    for (const type of ["widget", "milestone", "project", "NOTE", "notes"]) {
      const error = expectError(
        await restore(t, alice.cookie, p, type, note.id),
        400,
        "validation",
      );
      assert.ok(error.details.type, `${type}: ${JSON.stringify(error)}`);
    }
    for (const id of ["abc", "0", "-1", "1.5", "100000000000000000000"]) {
      const error = expectError(await restore(t, alice.cookie, p, "note", id), 400, "validation");
      assert.ok(error.details.id, `${id}: ${JSON.stringify(error)}`);
    }
    assert.equal((await trashOf(t, alice.cookie, p)).total, 1, "nothing changed");
  } finally {
    await t.close();
  }
});

Deno.test("Each delete tells its caller the trash entry it made, which a restore (an Undo) takes back", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { alice, project } = await team(t);
    const p = project.id;
    const s = t.app.services;
    const actor = { id: alice.user.id, role: "member" as const };
    const thread = await createThread(t, alice.cookie, p);
    const comment = await createComment(t, alice.cookie, p, thread.id);
    const note = await createNote(t, alice.cookie, p);
    const message = await sendChat(t, alice.cookie, p, "hi");
    const item = await createTodo(t, alice.cookie, p);
    const file = await uploadFile(t, alice.cookie, p, "a.txt", "a");
    const times = { startAt: "2026-12-01T10:00:00Z", endAt: "2026-12-01T11:00:00Z" };
    const event = await s.calendar.create(actor, p, { title: "E", ...times });
    const meeting = (await s.meetings.create(actor, p, { title: "M", ...times, inviteeIds: [] }))
      .meeting;
    const refsMade = [
      await s.board.removeComment(actor, p, comment.id),
      await s.board.remove(actor, p, thread.id),
      await s.notes.remove(actor, p, note.id),
      await s.chat.remove(actor, p, message.id),
      await s.todos.remove(actor, p, item.id),
      await s.files.remove(actor, p, file.id),
      await s.calendar.remove(actor, p, event.id),
      await s.meetings.remove(actor, p, meeting.id),
    ];
    assert.deepEqual(refsMade, [
      { type: "comment", id: comment.id },
      { type: "thread", id: thread.id },
      { type: "note", id: note.id },
      { type: "message", id: message.id },
      { type: "item", id: item.id },
      { type: "file", id: file.id },
      { type: "event", id: event.id },
      { type: "meeting", id: meeting.id },
    ]);
    // Undo in reverse order: the thread before its comment.
    for (const ref of refsMade.toReversed()) {
      assert.deepEqual(await s.trash.restore(actor, p, ref), ref);
    }
    assert.equal((await trashOf(t, alice.cookie, p)).total, 0);
    assert.deepEqual((await threadOf(t, alice.cookie, p, thread.id)).comments.length, 1);
  } finally {
    await t.close();
  }
});

Deno.test("Linking a deleted file's attachment again, after a restore, keeps one link", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { alice, project } = await team(t);
    const p = project.id;
    const file = await uploadFile(t, alice.cookie, p, "a.txt", "a");
    const thread = await createThread(t, alice.cookie, p, { fileIds: [file.id] });
    await remove(t, alice.cookie, `${base(p)}/files/${file.id}`);
    await restored(t, alice.cookie, p, "file", file.id);
    const path = `${base(p)}/board/threads/${thread.id}/attachments`;
    assert.deepEqual(
      expectJson(await attachIds(t, alice.cookie, path, [file.id]), 200).attachments,
      [file],
    );
  } finally {
    await t.close();
  }
});
