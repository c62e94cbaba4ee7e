/** The message board: threads, categories, ordering, paging, pinning, comments and their effects. */
import assert from "node:assert/strict";
import { type TestApp, testApp } from "../helpers/app.ts";
import {
  activityOf,
  api,
  createComment,
  createThread,
  expectError,
  expectJson,
  expectNoContent,
  getJson,
  type Json,
  notificationsOf,
  team,
} from "../helpers/api.ts";

const THREAD_KEYS = [
  "attachments",
  "authorId",
  "body",
  "category",
  "commentCount",
  "createdAt",
  "id",
  "pinned",
  "projectId",
  "title",
  "updatedAt",
];
const COMMENT_KEYS = [
  "attachments",
  "authorId",
  "body",
  "createdAt",
  "id",
  "projectId",
  "threadId",
  "updatedAt",
];

const threads = (projectId: number, query = "") =>
  `/api/projects/${projectId}/board/threads${query}`;

async function listIds(
  t: TestApp,
  cookie: string,
  projectId: number,
  query = "",
): Promise<number[]> {
  return (await getJson(t, cookie, threads(projectId, query))).items.map((x: Json) => x.id);
}

Deno.test("POST /board/threads creates a thread with its Markdown body stored as given", async () => {
  const t = await testApp();
  try {
    const { alice, project } = await team(t);
    const body = "  # Plan\n\n<script>alert(1)</script>\n\n- [link](javascript:x)\n- **bold**  \n";
    const res = await api(t, "POST", threads(project.id), {
      cookie: alice.cookie,
      body: { title: "Launch plan", body, category: "announcement" },
    });
    const { thread } = expectJson(res, 201);
    assert.deepEqual(Object.keys(thread).sort(), THREAD_KEYS);
    assert.equal(typeof thread.id, "number");
    assert.ok(thread.id > 0);
    assert.equal(thread.projectId, project.id);
    assert.equal(thread.authorId, alice.user.id);
    assert.equal(thread.title, "Launch plan");
    assert.equal(thread.body, body);
    assert.equal(thread.category, "announcement");
    assert.equal(thread.pinned, false);
    assert.equal(thread.commentCount, 0);
    assert.deepEqual(thread.attachments, []);
    assert.equal(thread.createdAt, "2026-11-22T08:30:00.000Z");
    assert.equal(thread.updatedAt, thread.createdAt);

    const got = await getJson(t, alice.cookie, threads(project.id, `/${thread.id}`));
    assert.deepEqual(Object.keys(got).sort(), ["attachments", "comments", "thread"]);
    assert.deepEqual(got.thread, thread);
    assert.deepEqual(got.comments, []);
    assert.deepEqual(got.attachments, []);
  } finally {
    await t.close();
  }
});

Deno.test("Every category is accepted; an unknown or missing one is 400 and nothing is posted", async () => {
  const t = await testApp();
  try {
    const { alice, project } = await team(t);
    for (const category of ["general", "announcement", "question", "idea"]) {
      const thread = await createThread(t, alice.cookie, project.id, { category });
      assert.equal(thread.category, category);
    }
    for (const category of ["news", "General", "", 3, null]) {
      const res = await api(t, "POST", threads(project.id), {
        cookie: alice.cookie,
        body: { title: "Bad", body: "x", category },
      });
      const error = expectError(res, 400, "validation");
      assert.ok(error.details?.category, `category ${JSON.stringify(category)}: ${res.text}`);
    }
    const missing = await api(t, "POST", threads(project.id), {
      cookie: alice.cookie,
      body: { title: "Bad", body: "x" },
    });
    assert.ok(expectError(missing, 400, "validation").details?.category);
    const blank = await api(t, "POST", threads(project.id), {
      cookie: alice.cookie,
      body: { title: "   ", body: "x", category: "general" },
    });
    assert.ok(expectError(blank, 400, "validation").details?.title);
    const malformed = await api(t, "POST", threads(project.id), {
      cookie: alice.cookie,
      raw: '{"title": "x",',
      headers: { "content-type": "application/json" },
    });
    assert.ok(expectError(malformed, 400, "validation").details?.body);
    assert.equal((await getJson(t, alice.cookie, threads(project.id))).total, 4);
  } finally {
    await t.close();
  }
});

Deno.test("GET /board/threads: pinned first, then newest first; ?category= filters; bad category 400", async () => {
  const t = await testApp();
  try {
    const { alice, bob, project } = await team(t);
    const a = await createThread(t, alice.cookie, project.id, { title: "A", category: "idea" });
    t.clock.advance(1000);
    const b = await createThread(t, bob.cookie, project.id, {
      title: "B",
      category: "question",
      pinned: true,
    });
    t.clock.advance(1000);
    const c = await createThread(t, alice.cookie, project.id, { title: "C", category: "idea" });
    // Same instant as C: the id breaks the tie, newest (highest) first.
    const d = await createThread(t, alice.cookie, project.id, { title: "D", category: "general" });
    t.clock.advance(1000);
    const e = await createThread(t, bob.cookie, project.id, {
      title: "E",
      category: "idea",
      pinned: true,
    });
    assert.equal(b.pinned, true);

    const page = await getJson(t, alice.cookie, threads(project.id));
    assert.deepEqual(page.items.map((x: Json) => x.id), [e.id, b.id, d.id, c.id, a.id]);
    assert.deepEqual(
      { ...page, items: undefined },
      { items: undefined, page: 1, pageSize: 20, total: 5, hasMore: false },
    );
    for (const item of page.items) assert.deepEqual(Object.keys(item).sort(), THREAD_KEYS);

    const ideas = await getJson(t, alice.cookie, threads(project.id, "?category=idea"));
    assert.deepEqual(ideas.items.map((x: Json) => x.id), [e.id, c.id, a.id]);
    assert.equal(ideas.total, 3);
    assert.deepEqual(await listIds(t, alice.cookie, project.id, "?category=announcement"), []);

    for (const bad of ["nope", "IDEA", "general,idea"]) {
      const res = await api(t, "GET", threads(project.id, `?category=${bad}`), {
        cookie: alice.cookie,
      });
      assert.ok(expectError(res, 400, "validation").details?.category, bad);
    }
  } finally {
    await t.close();
  }
});

Deno.test("GET /board/threads pages with ?page and ?pageSize", async () => {
  const t = await testApp();
  try {
    const { alice, project } = await team(t);
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await createThread(t, alice.cookie, project.id, { title: `T${i}` })).id);
      t.clock.advance(1000);
    }
    const newest = ids.toReversed();
    const first = await getJson(t, alice.cookie, threads(project.id, "?pageSize=2"));
    assert.deepEqual(first.items.map((x: Json) => x.id), newest.slice(0, 2));
    assert.equal(first.total, 5);
    assert.equal(first.page, 1);
    assert.equal(first.pageSize, 2);
    assert.equal(first.hasMore, true);
    const third = await getJson(t, alice.cookie, threads(project.id, "?page=3&pageSize=2"));
    assert.deepEqual(third.items.map((x: Json) => x.id), newest.slice(4));
    assert.equal(third.hasMore, false);
    const beyond = await getJson(t, alice.cookie, threads(project.id, "?page=9&pageSize=2"));
    assert.deepEqual(beyond.items, []);
    assert.equal(beyond.total, 5);
    const bad = await getJson(t, alice.cookie, threads(project.id, "?page=-1&pageSize=500"));
    assert.equal(bad.page, 1);
    assert.equal(bad.pageSize, 100);
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /board/threads/:id edits fields, leaves absent ones, and pins", async () => {
  const t = await testApp();
  try {
    const { admin, owner, alice, bob, project } = await team(t);
    const thread = await createThread(t, alice.cookie, project.id, {
      title: "Old",
      body: "old body",
      category: "question",
    });
    const other = await createThread(t, bob.cookie, project.id, { title: "Other" });
    t.clock.advance(60_000);

    const res = await api(t, "PATCH", threads(project.id, `/${thread.id}`), {
      cookie: alice.cookie,
      body: { title: "New", body: "*new* body\n" },
    });
    const patched = expectJson(res, 200);
    assert.deepEqual(patched.thread, {
      ...thread,
      title: "New",
      body: "*new* body\n",
      updatedAt: "2026-11-22T08:31:00.000Z",
    });
    assert.deepEqual(patched.attachments ?? [], []);

    // The owner pins it; it moves to the top of the list.
    assert.deepEqual(await listIds(t, alice.cookie, project.id), [other.id, thread.id]);
    const pin = await api(t, "PATCH", threads(project.id, `/${thread.id}`), {
      cookie: owner.cookie,
      body: { pinned: true },
    });
    assert.equal(expectJson(pin, 200).thread.pinned, true);
    assert.deepEqual(await listIds(t, alice.cookie, project.id), [thread.id, other.id]);

    // A system admin who is not a member can unpin it and change the category.
    const admined = await api(t, "PATCH", threads(project.id, `/${thread.id}`), {
      cookie: admin.cookie,
      body: { pinned: false, category: "idea" },
    });
    const after = expectJson(admined, 200).thread;
    assert.equal(after.pinned, false);
    assert.equal(after.category, "idea");
    assert.equal(after.title, "New");

    // Another member may not pin.
    const denied = await api(t, "PATCH", threads(project.id, `/${thread.id}`), {
      cookie: bob.cookie,
      body: { pinned: true },
    });
    expectError(denied, 403, "forbidden");

    const bad = await api(t, "PATCH", threads(project.id, `/${thread.id}`), {
      cookie: alice.cookie,
      body: { category: "nope" },
    });
    assert.ok(expectError(bad, 400, "validation").details?.category);

    // An empty PATCH changes nothing.
    const empty = await api(t, "PATCH", threads(project.id, `/${thread.id}`), {
      cookie: alice.cookie,
      body: {},
    });
    assert.deepEqual(expectJson(empty, 200).thread, {
      ...after,
      updatedAt: empty.json.thread.updatedAt,
    });

    const got = await getJson(t, alice.cookie, threads(project.id, `/${thread.id}`));
    assert.equal(got.thread.pinned, false);
    assert.equal(got.thread.category, "idea");
    assert.equal(got.thread.body, "*new* body\n");
  } finally {
    await t.close();
  }
});

Deno.test("DELETE /board/threads/:id soft-deletes: 404 after, gone from the list and its totals", async () => {
  const t = await testApp();
  try {
    const { alice, bob, project } = await team(t);
    const keep = await createThread(t, alice.cookie, project.id, {
      title: "Keep",
      category: "idea",
    });
    const gone = await createThread(t, alice.cookie, project.id, {
      title: "Gone",
      category: "idea",
    });
    const comment = await createComment(t, bob.cookie, project.id, gone.id);

    expectNoContent(
      await api(t, "DELETE", threads(project.id, `/${gone.id}`), {
        cookie: alice.cookie,
      }),
    );

    expectError(
      await api(t, "GET", threads(project.id, `/${gone.id}`), { cookie: alice.cookie }),
      404,
      "not_found",
    );
    const list = await getJson(t, alice.cookie, threads(project.id));
    assert.deepEqual(list.items.map((x: Json) => x.id), [keep.id]);
    assert.equal(list.total, 1);
    assert.equal((await getJson(t, alice.cookie, threads(project.id, "?category=idea"))).total, 1);

    for (
      const [method, path, body] of [
        ["PATCH", threads(project.id, `/${gone.id}`), { title: "x" }],
        ["DELETE", threads(project.id, `/${gone.id}`), undefined],
        ["POST", threads(project.id, `/${gone.id}/comments`), { body: "late" }],
        ["PATCH", `/api/projects/${project.id}/board/comments/${comment.id}`, { body: "x" }],
        ["DELETE", `/api/projects/${project.id}/board/comments/${comment.id}`, undefined],
      ] as const
    ) {
      const res = await api(t, method, path, { cookie: alice.cookie, body });
      expectError(res, 404, "not_found");
    }
  } finally {
    await t.close();
  }
});

Deno.test("A thread of another project is 404 through this project's paths", async () => {
  const t = await testApp();
  try {
    const { owner, alice, project } = await team(t);
    const other = expectJson(
      await api(t, "POST", "/api/projects", { cookie: owner.cookie, body: { name: "Other" } }),
      201,
    ).project;
    const thread = await createThread(t, owner.cookie, other.id);
    const res = await api(t, "GET", threads(project.id, `/${thread.id}`), { cookie: owner.cookie });
    expectError(res, 404, "not_found");
    const missing = await api(t, "GET", threads(project.id, "/99999"), { cookie: alice.cookie });
    expectError(missing, 404, "not_found");
  } finally {
    await t.close();
  }
});

Deno.test("Comments: create, list oldest first with commentCount, edit, delete", async () => {
  const t = await testApp();
  try {
    const { alice, bob, project } = await team(t);
    const thread = await createThread(t, alice.cookie, project.id);
    const res = await api(t, "POST", threads(project.id, `/${thread.id}/comments`), {
      cookie: bob.cookie,
      body: { body: "First **reply**" },
    });
    const first = expectJson(res, 201).comment;
    assert.deepEqual(Object.keys(first).sort(), COMMENT_KEYS);
    assert.equal(first.threadId, thread.id);
    assert.equal(first.projectId, project.id);
    assert.equal(first.authorId, bob.user.id);
    assert.equal(first.body, "First **reply**");
    assert.deepEqual(first.attachments, []);
    assert.equal(first.createdAt, first.updatedAt);
    t.clock.advance(1000);
    const second = await createComment(t, alice.cookie, project.id, thread.id, { body: "Second" });

    let got = await getJson(t, alice.cookie, threads(project.id, `/${thread.id}`));
    assert.deepEqual(got.comments.map((c: Json) => c.id), [first.id, second.id]);
    assert.deepEqual(got.comments[0], first);
    assert.equal(got.thread.commentCount, 2);
    assert.equal((await getJson(t, alice.cookie, threads(project.id))).items[0].commentCount, 2);

    const blank = await api(t, "POST", threads(project.id, `/${thread.id}/comments`), {
      cookie: bob.cookie,
      body: { body: "   " },
    });
    assert.ok(expectError(blank, 400, "validation").details?.body);

    t.clock.advance(1000);
    const edit = await api(t, "PATCH", `/api/projects/${project.id}/board/comments/${first.id}`, {
      cookie: bob.cookie,
      body: { body: "Edited" },
    });
    const edited = expectJson(edit, 200).comment;
    assert.deepEqual(edited, { ...first, body: "Edited", updatedAt: "2026-11-22T08:30:02.000Z" });

    expectNoContent(
      await api(t, "DELETE", `/api/projects/${project.id}/board/comments/${first.id}`, {
        cookie: bob.cookie,
      }),
    );
    got = await getJson(t, alice.cookie, threads(project.id, `/${thread.id}`));
    assert.deepEqual(got.comments.map((c: Json) => c.id), [second.id]);
    assert.equal(got.thread.commentCount, 1);
    assert.equal((await getJson(t, alice.cookie, threads(project.id))).items[0].commentCount, 1);
    const again = await api(t, "PATCH", `/api/projects/${project.id}/board/comments/${first.id}`, {
      cookie: bob.cookie,
      body: { body: "Back?" },
    });
    expectError(again, 404, "not_found");
  } finally {
    await t.close();
  }
});

Deno.test("Posting writes board_posted; commenting writes comment_added about the comment", async () => {
  const t = await testApp();
  try {
    const { alice, bob, project } = await team(t);
    const thread = await createThread(t, alice.cookie, project.id, { title: "Road map" });
    t.clock.advance(1000);
    const comment = await createComment(t, bob.cookie, project.id, thread.id);
    const page = await activityOf(t, alice.cookie, project.id);
    const board = page.items.filter((a: Json) =>
      a.kind === "board_posted" || a.kind === "comment_added"
    );
    assert.equal(board.length, 2);
    const [added, posted] = board;
    assert.deepEqual({ ...added, id: undefined }, {
      id: undefined,
      projectId: project.id,
      kind: "comment_added",
      actorId: bob.user.id,
      subjectType: "comment",
      subjectId: comment.id,
      summary: added.summary,
      createdAt: "2026-11-22T08:30:01.000Z",
    });
    assert.equal(typeof added.summary, "string");
    assert.deepEqual({ ...posted, id: undefined }, {
      id: undefined,
      projectId: project.id,
      kind: "board_posted",
      actorId: alice.user.id,
      subjectType: "thread",
      subjectId: thread.id,
      summary: posted.summary,
      createdAt: "2026-11-22T08:30:00.000Z",
    });
    assert.match(posted.summary, /Road map/);
  } finally {
    await t.close();
  }
});

/** The caller's unread board_commented notifications, as comment ids. */
async function commented(t: TestApp, cookie: string): Promise<number[]> {
  return (await notificationsOf(t, cookie)).items
    .filter((n: Json) => n.kind === "board_commented")
    .map((n: Json) => n.subjectId);
}

Deno.test("board_commented goes to the thread's author and earlier commenters, once each, never the commenter", async () => {
  const t = await testApp();
  try {
    const { owner, alice, bob, viewer, admin, project } = await team(t);
    const thread = await createThread(t, alice.cookie, project.id, { title: "Lunch" });

    const c1 = await createComment(t, bob.cookie, project.id, thread.id);
    assert.deepEqual(await commented(t, alice.cookie), [c1.id]);
    assert.deepEqual(await commented(t, bob.cookie), []);

    const [n] = (await notificationsOf(t, alice.cookie)).items.filter((x: Json) =>
      x.kind === "board_commented"
    );
    assert.equal(n.projectId, project.id);
    assert.equal(n.actorId, bob.user.id);
    assert.equal(n.subjectType, "comment");
    assert.equal(n.subjectId, c1.id);
    assert.equal(n.read, false);

    t.clock.advance(1000);
    // Bob again: Alice once; Bob (earlier commenter) is the commenter, so not him.
    const c2 = await createComment(t, bob.cookie, project.id, thread.id);
    t.clock.advance(1000);
    // The owner comments: Alice (author) and Bob (earlier commenter), each once.
    const c3 = await createComment(t, owner.cookie, project.id, thread.id);
    t.clock.advance(1000);
    // The author comments on her own thread: Bob and the owner, not Alice.
    const c4 = await createComment(t, alice.cookie, project.id, thread.id);

    assert.deepEqual(await commented(t, alice.cookie), [c3.id, c2.id, c1.id]);
    assert.deepEqual(await commented(t, bob.cookie), [c4.id, c3.id]);
    assert.deepEqual(await commented(t, owner.cookie), [c4.id]);
    assert.deepEqual(await commented(t, viewer.cookie), []);
    assert.deepEqual(await commented(t, admin.cookie), []);

    t.clock.advance(1000);
    // Alice is now both the author and an earlier commenter: still one notification.
    const c5 = await createComment(t, bob.cookie, project.id, thread.id);
    assert.deepEqual(await commented(t, alice.cookie), [c5.id, c3.id, c2.id, c1.id]);
    assert.deepEqual(await commented(t, owner.cookie), [c5.id, c4.id]);
    assert.deepEqual(await commented(t, bob.cookie), [c4.id, c3.id]);
  } finally {
    await t.close();
  }
});
