/** The caller's notifications: the unread page, paging rules, and marking read. */
import assert from "node:assert/strict";
import { type TestApp, testApp } from "../helpers/app.ts";
import {
  addMember,
  api,
  createProject,
  expectError,
  expectJson,
  type Json,
  signUp,
} from "../helpers/api.ts";

/** An owner who adds Bob to `count` projects, one minute apart (one notification each). */
async function notified(t: TestApp, count: number) {
  await signUp(t, "root@example.com");
  const owner = await signUp(t, "olga@example.com");
  const bob = await signUp(t, "bob@example.com");
  const projects: Json[] = [];
  for (let i = 1; i <= count; i++) {
    const project = await createProject(t, owner.cookie, `Project ${i}`);
    t.clock.advance(60_000);
    await addMember(t, owner.cookie, project.id, "bob@example.com", "member");
    projects.push(project);
  }
  return { owner, bob, projects };
}

async function page(t: TestApp, cookie: string, query = ""): Promise<Json> {
  return expectJson(await api(t, "GET", `/api/notifications${query}`, { cookie }), 200);
}

Deno.test("GET /api/notifications lists unread notifications newest first", async () => {
  const t = await testApp();
  try {
    const { bob, projects } = await notified(t, 3);
    const body = await page(t, bob.cookie);
    assert.equal(body.total, 3);
    assert.equal(body.unreadCount, 3);
    assert.equal(body.hasMore, false);
    assert.deepEqual(
      body.items.map((n: Json) => n.subjectId),
      projects.map((p) => p.id).reverse(),
    );
    for (const n of body.items) {
      assert.equal(n.kind, "member_added");
      assert.equal(n.read, false);
    }
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/notifications/:id/read marks it read; it leaves the list and the count drops", async () => {
  const t = await testApp();
  try {
    const { bob } = await notified(t, 2);
    const before = await page(t, bob.cookie);
    const [newest, older] = before.items;
    const res = await api(t, "POST", `/api/notifications/${older.id}/read`, { cookie: bob.cookie });
    const { notification } = expectJson(res, 200);
    assert.deepEqual(notification, { ...older, read: true });
    assert.equal(res.headers.get("cache-control"), "no-store");

    const after = await page(t, bob.cookie);
    assert.deepEqual(after.items, [newest]);
    assert.equal(after.total, 1);
    assert.equal(after.unreadCount, 1);

    // Marking it again is harmless.
    const again = await api(t, "POST", `/api/notifications/${older.id}/read`, {
      cookie: bob.cookie,
    });
    assert.equal(expectJson(again, 200).notification.read, true);
    assert.equal((await page(t, bob.cookie)).unreadCount, 1);
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/notifications/:id/read is 404 for another user's notification", async () => {
  const t = await testApp();
  try {
    const { owner, bob } = await notified(t, 1);
    const [n] = (await page(t, bob.cookie)).items;
    const res = await api(t, "POST", `/api/notifications/${n.id}/read`, { cookie: owner.cookie });
    const error = expectError(res, 404, "not_found");
    const missing = await api(t, "POST", "/api/notifications/99999/read", { cookie: owner.cookie });
    assert.deepEqual(expectError(missing, 404, "not_found"), error);
    const still = await page(t, bob.cookie);
    assert.equal(still.unreadCount, 1);
    assert.equal(still.items[0].read, false);
  } finally {
    await t.close();
  }
});

Deno.test("GET /api/notifications pages with ?page and ?pageSize", async () => {
  const t = await testApp();
  try {
    const { bob } = await notified(t, 5);
    const all = (await page(t, bob.cookie)).items.map((n: Json) => n.id);
    const first = await page(t, bob.cookie, "?pageSize=2");
    assert.deepEqual(
      { ...first, items: first.items.map((n: Json) => n.id) },
      { items: all.slice(0, 2), page: 1, pageSize: 2, total: 5, hasMore: true, unreadCount: 5 },
    );
    const second = await page(t, bob.cookie, "?page=2&pageSize=2");
    assert.deepEqual(second.items.map((n: Json) => n.id), all.slice(2, 4));
    assert.equal(second.page, 2);
    assert.equal(second.hasMore, true);
    const third = await page(t, bob.cookie, "?page=3&pageSize=2");
    assert.deepEqual(third.items.map((n: Json) => n.id), all.slice(4));
    assert.equal(third.hasMore, false);
    const beyond = await page(t, bob.cookie, "?page=9&pageSize=2");
    assert.deepEqual(beyond.items, []);
    assert.equal(beyond.page, 9);
    assert.equal(beyond.total, 5);
    assert.equal(beyond.hasMore, false);
  } finally {
    await t.close();
  }
});

Deno.test("GET /api/notifications treats a non-numeric, zero or negative page as 1", async () => {
  const t = await testApp();
  try {
    const { bob } = await notified(t, 3);
    const expected = await page(t, bob.cookie, "?pageSize=2");
    for (const p of ["abc", "0", "-1", "", "1.5", "2abc"]) {
      const body = await page(t, bob.cookie, `?page=${p}&pageSize=2`);
      assert.equal(body.page, 1, `page=${p}`);
      assert.deepEqual(body, expected, `page=${p}`);
    }
  } finally {
    await t.close();
  }
});

Deno.test("GET /api/notifications clamps pageSize to 100 and defaults it to 20", async () => {
  const t = await testApp();
  try {
    const { bob } = await notified(t, 1);
    assert.equal((await page(t, bob.cookie, "?pageSize=500")).pageSize, 100);
    assert.equal((await page(t, bob.cookie, "?pageSize=100")).pageSize, 100);
    for (const size of ["", "abc", "0", "-5"]) {
      assert.equal((await page(t, bob.cookie, `?pageSize=${size}`)).pageSize, 20, size);
    }
    assert.equal((await page(t, bob.cookie)).pageSize, 20);
  } finally {
    await t.close();
  }
});

Deno.test("GET /api/notifications answers an empty page for a user with none", async () => {
  const t = await testApp();
  try {
    const { cookie } = await signUp(t, "root@example.com");
    assert.deepEqual(await page(t, cookie), {
      items: [],
      page: 1,
      pageSize: 20,
      total: 0,
      hasMore: false,
      unreadCount: 0,
    });
  } finally {
    await t.close();
  }
});

Deno.test("GET /api/notifications leaves out notifications about a deleted project", async () => {
  const t = await testApp();
  try {
    const { owner, bob, projects } = await notified(t, 2);
    const res = await api(t, "DELETE", `/api/projects/${projects[0].id}`, { cookie: owner.cookie });
    assert.equal(res.status, 204);
    const body = await page(t, bob.cookie);
    assert.deepEqual(body.items.map((n: Json) => n.projectId), [projects[1].id]);
    assert.equal(body.total, 1);
    assert.equal(body.unreadCount, 1);
  } finally {
    await t.close();
  }
});
