/** Notes: tags, ordering, PATCH semantics, deletion, and their activity and notifications. */
import assert from "node:assert/strict";
import { type TestApp, testApp } from "../helpers/app.ts";
import {
  activityOf,
  api,
  createNote,
  expectError,
  expectJson,
  expectNoContent,
  getJson,
  type Json,
  notificationsOf,
  team,
} from "../helpers/api.ts";

const NOTE_KEYS = [
  "authorId",
  "body",
  "createdAt",
  "id",
  "pinned",
  "projectId",
  "tags",
  "title",
  "updatedAt",
];

const notes = (projectId: number, rest = "") => `/api/projects/${projectId}/notes${rest}`;

async function listIds(t: TestApp, cookie: string, projectId: number): Promise<number[]> {
  return (await getJson(t, cookie, notes(projectId))).items.map((n: Json) => n.id);
}

/** The caller's unread notifications of `kind`, as subject ids. */
async function kinds(t: TestApp, cookie: string, kind: string): Promise<Json[]> {
  return (await notificationsOf(t, cookie)).items.filter((n: Json) => n.kind === kind);
}

Deno.test("POST /notes creates a note; tags are trimmed and deduplicated; the body is kept as given", async () => {
  const t = await testApp();
  try {
    const { alice, project } = await team(t);
    const body = "# Minutes\n\n* one\n* <b>two</b>\n\n";
    const res = await api(t, "POST", notes(project.id), {
      cookie: alice.cookie,
      body: { title: "Weekly", body, tags: [" ops ", "design", "ops", "design  ", "議事録"] },
    });
    const { note } = expectJson(res, 201);
    assert.deepEqual(Object.keys(note).sort(), NOTE_KEYS);
    assert.equal(note.projectId, project.id);
    assert.equal(note.authorId, alice.user.id);
    assert.equal(note.title, "Weekly");
    assert.equal(note.body, body);
    assert.deepEqual(note.tags, ["ops", "design", "議事録"]);
    assert.equal(note.pinned, false);
    assert.equal(note.createdAt, "2026-11-22T08:30:00.000Z");
    assert.equal(note.updatedAt, note.createdAt);

    const got = expectJson(
      await api(t, "GET", notes(project.id, `/${note.id}`), { cookie: alice.cookie }),
      200,
    );
    assert.deepEqual(got, { note });

    const plain = await createNote(t, alice.cookie, project.id, { pinned: true });
    assert.deepEqual(plain.tags, []);
    assert.equal(plain.pinned, true);

    const blank = await api(t, "POST", notes(project.id), {
      cookie: alice.cookie,
      body: { title: " ", body: "x" },
    });
    assert.ok(expectError(blank, 400, "validation").details?.title);
    const badTags = await api(t, "POST", notes(project.id), {
      cookie: alice.cookie,
      body: { title: "x", body: "x", tags: "ops" },
    });
    assert.ok(expectError(badTags, 400, "validation").details?.tags);
    assert.equal((await getJson(t, alice.cookie, notes(project.id))).total, 2);
  } finally {
    await t.close();
  }
});

Deno.test("GET /notes: pinned first, then most recently updated; a page object", async () => {
  const t = await testApp();
  try {
    const { alice, bob, project } = await team(t);
    const a = await createNote(t, alice.cookie, project.id, { title: "A" });
    t.clock.advance(1000);
    const b = await createNote(t, bob.cookie, project.id, { title: "B" });
    t.clock.advance(1000);
    const c = await createNote(t, alice.cookie, project.id, { title: "C" });
    t.clock.advance(1000);
    const p = await createNote(t, bob.cookie, project.id, { title: "P", pinned: true });
    t.clock.advance(1000);

    assert.deepEqual(await listIds(t, alice.cookie, project.id), [p.id, c.id, b.id, a.id]);

    // Editing the oldest note makes it the most recently updated.
    const res = await api(t, "PATCH", notes(project.id, `/${a.id}`), {
      cookie: alice.cookie,
      body: { body: "touched" },
    });
    assert.equal(expectJson(res, 200).note.updatedAt, "2026-11-22T08:30:04.000Z");
    assert.deepEqual(await listIds(t, alice.cookie, project.id), [p.id, a.id, c.id, b.id]);

    t.clock.advance(1000);
    // Pinning B puts it with the pinned ones, most recently updated first.
    await api(t, "PATCH", notes(project.id, `/${b.id}`), {
      cookie: bob.cookie,
      body: { pinned: true },
    });
    assert.deepEqual(await listIds(t, alice.cookie, project.id), [b.id, p.id, a.id, c.id]);

    const page = await getJson(t, alice.cookie, notes(project.id, "?pageSize=3"));
    assert.deepEqual(page.items.map((n: Json) => n.id), [b.id, p.id, a.id]);
    assert.deepEqual(
      { page: page.page, pageSize: page.pageSize, total: page.total, hasMore: page.hasMore },
      { page: 1, pageSize: 3, total: 4, hasMore: true },
    );
    for (const note of page.items) assert.deepEqual(Object.keys(note).sort(), NOTE_KEYS);
    const second = await getJson(t, alice.cookie, notes(project.id, "?page=2&pageSize=3"));
    assert.deepEqual(second.items.map((n: Json) => n.id), [c.id]);
    assert.equal(second.hasMore, false);
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /notes/:id leaves absent fields; tags: null clears them to []", async () => {
  const t = await testApp();
  try {
    const { alice, project } = await team(t);
    const note = await createNote(t, alice.cookie, project.id, {
      title: "Plan",
      body: "v1",
      tags: ["a", "b"],
    });
    t.clock.advance(1000);
    const retitled = expectJson(
      await api(t, "PATCH", notes(project.id, `/${note.id}`), {
        cookie: alice.cookie,
        body: { title: "  Plan 2 " },
      }),
      200,
    ).note;
    assert.deepEqual(retitled, {
      ...note,
      title: "Plan 2",
      updatedAt: "2026-11-22T08:30:01.000Z",
    });

    const retagged = expectJson(
      await api(t, "PATCH", notes(project.id, `/${note.id}`), {
        cookie: alice.cookie,
        body: { tags: [" x", "x ", "y"] },
      }),
      200,
    ).note;
    assert.deepEqual(retagged.tags, ["x", "y"]);
    assert.equal(retagged.body, "v1");

    const cleared = expectJson(
      await api(t, "PATCH", notes(project.id, `/${note.id}`), {
        cookie: alice.cookie,
        body: { tags: null },
      }),
      200,
    ).note;
    assert.deepEqual(cleared.tags, []);
    assert.equal(cleared.title, "Plan 2");

    const blank = await api(t, "PATCH", notes(project.id, `/${note.id}`), {
      cookie: alice.cookie,
      body: { title: "" },
    });
    assert.ok(expectError(blank, 400, "validation").details?.title);

    const got = await getJson(t, alice.cookie, notes(project.id, `/${note.id}`));
    assert.deepEqual(got.note.tags, []);
    assert.equal(got.note.title, "Plan 2");
    assert.equal(got.note.body, "v1");
  } finally {
    await t.close();
  }
});

Deno.test("DELETE /notes/:id soft-deletes: 404 after, gone from the list and its total", async () => {
  const t = await testApp();
  try {
    const { alice, project } = await team(t);
    const keep = await createNote(t, alice.cookie, project.id, { title: "Keep" });
    const gone = await createNote(t, alice.cookie, project.id, { title: "Gone" });
    expectNoContent(
      await api(t, "DELETE", notes(project.id, `/${gone.id}`), { cookie: alice.cookie }),
    );
    for (const method of ["GET", "PATCH", "DELETE"]) {
      const res = await api(t, method, notes(project.id, `/${gone.id}`), {
        cookie: alice.cookie,
        ...(method === "PATCH" ? { body: { title: "x" } } : {}),
      });
      expectError(res, 404, "not_found");
    }
    const list = await getJson(t, alice.cookie, notes(project.id));
    assert.deepEqual(list.items.map((n: Json) => n.id), [keep.id]);
    assert.equal(list.total, 1);
  } finally {
    await t.close();
  }
});

Deno.test("note_created is logged and notifies nobody; note_updated is logged and notifies the other members", async () => {
  const t = await testApp();
  try {
    const { admin, owner, alice, bob, viewer, outsider, project } = await team(t);
    const everyone = [admin, owner, alice, bob, viewer, outsider];
    const before = await Promise.all(
      everyone.map(async (u) => (await notificationsOf(t, u.cookie)).unreadCount),
    );

    const note = await createNote(t, alice.cookie, project.id, { title: "Spec" });
    const after = await Promise.all(
      everyone.map(async (u) => (await notificationsOf(t, u.cookie)).unreadCount),
    );
    assert.deepEqual(after, before, "creating a note notifies nobody");

    let log = await activityOf(t, alice.cookie, project.id);
    const created = log.items.find((a: Json) => a.kind === "note_created");
    assert.deepEqual({ ...created, id: undefined, summary: undefined }, {
      id: undefined,
      summary: undefined,
      projectId: project.id,
      kind: "note_created",
      actorId: alice.user.id,
      subjectType: "note",
      subjectId: note.id,
      createdAt: "2026-11-22T08:30:00.000Z",
    });
    assert.match(created.summary, /Spec/);

    t.clock.advance(1000);
    await api(t, "PATCH", notes(project.id, `/${note.id}`), {
      cookie: alice.cookie,
      body: { body: "more" },
    });
    log = await activityOf(t, alice.cookie, project.id);
    assert.equal(log.items[0].kind, "note_updated");
    assert.equal(log.items[0].actorId, alice.user.id);
    assert.equal(log.items[0].subjectType, "note");
    assert.equal(log.items[0].subjectId, note.id);
    assert.equal(log.items[0].createdAt, "2026-11-22T08:30:01.000Z");

    for (const member of [owner, bob, viewer]) {
      const got = await kinds(t, member.cookie, "note_updated");
      assert.equal(got.length, 1);
      assert.equal(got[0].actorId, alice.user.id);
      assert.equal(got[0].subjectType, "note");
      assert.equal(got[0].subjectId, note.id);
      assert.equal(got[0].projectId, project.id);
    }
    for (const notMember of [alice, admin, outsider]) {
      assert.deepEqual(await kinds(t, notMember.cookie, "note_updated"), []);
    }

    // The owner edits Alice's note: now Alice is told, the owner is not.
    t.clock.advance(1000);
    await api(t, "PATCH", notes(project.id, `/${note.id}`), {
      cookie: owner.cookie,
      body: { pinned: true },
    });
    assert.equal((await kinds(t, alice.cookie, "note_updated")).length, 1);
    assert.equal((await kinds(t, owner.cookie, "note_updated")).length, 1);
    assert.equal((await kinds(t, bob.cookie, "note_updated")).length, 2);
  } finally {
    await t.close();
  }
});

Deno.test("Deleting a note hides its activity entries and its notifications", async () => {
  const t = await testApp();
  try {
    const { alice, bob, project } = await team(t);
    const note = await createNote(t, alice.cookie, project.id);
    await api(t, "PATCH", notes(project.id, `/${note.id}`), {
      cookie: alice.cookie,
      body: { body: "edit" },
    });
    const before = await notificationsOf(t, bob.cookie);
    assert.equal(before.items.filter((n: Json) => n.kind === "note_updated").length, 1);
    const logBefore = await activityOf(t, bob.cookie, project.id);

    expectNoContent(
      await api(t, "DELETE", notes(project.id, `/${note.id}`), { cookie: alice.cookie }),
    );
    const log = await activityOf(t, bob.cookie, project.id);
    assert.deepEqual(log.items.filter((a: Json) => a.subjectType === "note"), []);
    assert.equal(log.total, logBefore.total - 2);
    const after = await notificationsOf(t, bob.cookie);
    assert.deepEqual(after.items.filter((n: Json) => n.kind === "note_updated"), []);
    assert.equal(after.unreadCount, before.unreadCount - 1);
    assert.equal(after.total, before.total - 1);
  } finally {
    await t.close();
  }
});
