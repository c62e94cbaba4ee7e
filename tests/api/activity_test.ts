/** The project activity log, and how soft-deleted things vanish from it and from notifications. */
import assert from "node:assert/strict";
import { testApp } from "../helpers/app.ts";
import {
  activityOf,
  api,
  createComment,
  createNote,
  createThread,
  expectError,
  expectJson,
  expectNoContent,
  getJson,
  type Json,
  notificationsOf,
  team,
  uploadFile,
} from "../helpers/api.ts";

const ENTRY_KEYS = [
  "actorId",
  "createdAt",
  "id",
  "kind",
  "projectId",
  "subjectId",
  "subjectType",
  "summary",
];

Deno.test("GET /activity is a page object of entries, newest first, with the contract's shape", async () => {
  const t = await testApp();
  try {
    const { alice, bob, viewer, admin, project } = await team(t);
    const post = await createThread(t, alice.cookie, project.id, { title: "Hello" });
    t.clock.advance(1000);
    const comment = await createComment(t, bob.cookie, project.id, post.id);
    t.clock.advance(1000);
    const note = await createNote(t, bob.cookie, project.id, { title: "Doc" });
    // Same instant: the id breaks the tie, highest first.
    const file = await uploadFile(t, alice.cookie, project.id, "a.txt", "a");

    const res = await api(t, "GET", `/api/projects/${project.id}/activity`, {
      cookie: viewer.cookie,
    });
    const page = expectJson(res, 200);
    assert.deepEqual(Object.keys(page).sort(), [
      "hasMore",
      "items",
      "page",
      "pageSize",
      "total",
      "totalIsExact",
    ]);
    assert.equal(page.totalIsExact, true);
    assert.equal(page.page, 1);
    assert.equal(page.pageSize, 20);
    assert.equal(page.hasMore, false);
    assert.equal(page.total, 4);
    const mine = page.items;
    assert.deepEqual(
      mine.map((a: Json) => [a.kind, a.subjectType, a.subjectId, a.actorId]),
      [
        ["file_uploaded", "file", file.id, alice.user.id],
        ["note_created", "note", note.id, bob.user.id],
        ["comment_added", "comment", comment.id, bob.user.id],
        ["board_posted", "thread", post.id, alice.user.id],
      ],
    );
    for (const entry of page.items) {
      assert.deepEqual(Object.keys(entry).sort(), ENTRY_KEYS);
      assert.equal(entry.projectId, project.id);
      assert.equal(typeof entry.id, "number");
      assert.equal(typeof entry.summary, "string");
      assert.match(entry.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    }
    assert.equal(mine[0].createdAt, "2026-11-22T08:30:02.000Z");
    assert.equal(mine[3].createdAt, "2026-11-22T08:30:00.000Z");
    assert.ok(mine[0].id > mine[1].id);

    // Everyone who can see the project reads the same log.
    const asAdmin = await getJson(t, admin.cookie, `/api/projects/${project.id}/activity`);
    assert.deepEqual(asAdmin, page);
  } finally {
    await t.close();
  }
});

Deno.test("GET /activity pages with ?page and ?pageSize", async () => {
  const t = await testApp();
  try {
    const { alice, project } = await team(t);
    for (let i = 0; i < 5; i++) {
      await createNote(t, alice.cookie, project.id, { title: `N${i}` });
      t.clock.advance(1000);
    }
    const all = (await activityOf(t, alice.cookie, project.id)).items.map((a: Json) => a.id);
    const first = await getJson(t, alice.cookie, `/api/projects/${project.id}/activity?pageSize=2`);
    assert.deepEqual(first.items.map((a: Json) => a.id), all.slice(0, 2));
    assert.equal(first.total, all.length);
    assert.equal(first.hasMore, true);
    const second = await getJson(
      t,
      alice.cookie,
      `/api/projects/${project.id}/activity?page=2&pageSize=2`,
    );
    assert.deepEqual(second.items.map((a: Json) => a.id), all.slice(2, 4));
    const big = await getJson(t, alice.cookie, `/api/projects/${project.id}/activity?pageSize=999`);
    assert.equal(big.pageSize, 100);
    const zero = await getJson(t, alice.cookie, `/api/projects/${project.id}/activity?page=0`);
    assert.equal(zero.page, 1);
  } finally {
    await t.close();
  }
});

Deno.test("GET /activity is 404 for a non-member and an unknown project, 401 without a session", async () => {
  const t = await testApp();
  try {
    const { outsider, alice, project } = await team(t);
    await createNote(t, alice.cookie, project.id, { title: "Secret plan" });
    const res = await api(t, "GET", `/api/projects/${project.id}/activity`, {
      cookie: outsider.cookie,
    });
    const error = expectError(res, 404, "not_found");
    assert.ok(!res.text.includes("Secret plan"));
    const unknown = await api(t, "GET", "/api/projects/99999/activity", { cookie: alice.cookie });
    assert.deepEqual(expectError(unknown, 404, "not_found"), error);
    expectError(
      await api(t, "GET", `/api/projects/${project.id}/activity`),
      401,
      "unauthenticated",
    );
  } finally {
    await t.close();
  }
});

Deno.test("Deleting a thread hides its board_posted and comment_added entries and its notifications", async () => {
  const t = await testApp();
  try {
    const { owner, alice, bob, project } = await team(t);
    const keep = await createThread(t, owner.cookie, project.id, { title: "Keep" });
    const keepComment = await createComment(t, bob.cookie, project.id, keep.id);
    const post = await createThread(t, alice.cookie, project.id, { title: "Doomed" });
    const c1 = await createComment(t, bob.cookie, project.id, post.id);
    const c2 = await createComment(t, owner.cookie, project.id, post.id);

    const aliceBefore = await notificationsOf(t, alice.cookie);
    const bobBefore = await notificationsOf(t, bob.cookie);
    assert.equal(
      aliceBefore.items.filter((n: Json) => n.kind === "board_commented").length,
      2,
    );
    assert.equal(bobBefore.items.filter((n: Json) => n.kind === "board_commented").length, 1);
    const logBefore = await activityOf(t, bob.cookie, project.id);

    expectNoContent(
      await api(t, "DELETE", `/api/projects/${project.id}/board/threads/${post.id}`, {
        cookie: alice.cookie,
      }),
    );

    const log = await activityOf(t, bob.cookie, project.id);
    const subjects = log.items.map((a: Json) => `${a.subjectType}:${a.subjectId}`);
    for (const gone of [`thread:${post.id}`, `comment:${c1.id}`, `comment:${c2.id}`]) {
      assert.ok(!subjects.includes(gone), `${gone} still in the activity log`);
    }
    assert.ok(subjects.includes(`thread:${keep.id}`));
    assert.ok(subjects.includes(`comment:${keepComment.id}`));
    assert.equal(log.total, logBefore.total - 3);

    const aliceAfter = await notificationsOf(t, alice.cookie);
    assert.deepEqual(aliceAfter.items.filter((n: Json) => n.kind === "board_commented"), []);
    assert.equal(aliceAfter.unreadCount, aliceBefore.unreadCount - 2);
    assert.equal(aliceAfter.total, aliceBefore.total - 2);
    const bobAfter = await notificationsOf(t, bob.cookie);
    assert.equal(bobAfter.unreadCount, bobBefore.unreadCount - 1);
    const ownerAfter = await notificationsOf(t, owner.cookie);
    assert.deepEqual(
      ownerAfter.items.filter((n: Json) => n.kind === "board_commented").map((n: Json) =>
        n.subjectId
      ),
      [keepComment.id],
    );
  } finally {
    await t.close();
  }
});

Deno.test("Deleting a comment hides its comment_added entry and its board_commented notifications", async () => {
  const t = await testApp();
  try {
    const { alice, bob, project } = await team(t);
    const post = await createThread(t, alice.cookie, project.id);
    const stays = await createComment(t, bob.cookie, project.id, post.id, { body: "stays" });
    const goes = await createComment(t, bob.cookie, project.id, post.id, { body: "goes" });
    const before = await notificationsOf(t, alice.cookie);
    assert.equal(
      before.unreadCount,
      2 + before.items.filter((n: Json) => n.kind !== "board_commented").length,
    );

    expectNoContent(
      await api(t, "DELETE", `/api/projects/${project.id}/board/comments/${goes.id}`, {
        cookie: bob.cookie,
      }),
    );
    const log = await activityOf(t, alice.cookie, project.id);
    const comments = log.items.filter((a: Json) => a.kind === "comment_added");
    assert.deepEqual(comments.map((a: Json) => a.subjectId), [stays.id]);
    const after = await notificationsOf(t, alice.cookie);
    assert.deepEqual(
      after.items.filter((n: Json) => n.kind === "board_commented").map((n: Json) => n.subjectId),
      [stays.id],
    );
    assert.equal(after.unreadCount, before.unreadCount - 1);
  } finally {
    await t.close();
  }
});
