/**
 * The activity's count stops at 10,000 entries: up to there `total` is exact (`totalIsExact`
 * true), past it `total` is 10,000 and `totalIsExact` false, while `hasMore` stays exact; the
 * dashboards count the recent activity up to 1,000 the same way, and carry the totals of their
 * "latest" lists. Entries of deleted subjects count nowhere, below the cap as before.
 */
import assert from "node:assert/strict";
import { testApp } from "../helpers/app.ts";
import { api, createProject, expectJson, signUp } from "../helpers/api.ts";

type T = Awaited<ReturnType<typeof testApp>>;

async function setup() {
  const t = await testApp();
  const owner = await signUp(t, "ann@example.com");
  const project = await createProject(t, owner.cookie, "Years");
  return { t, cookie: owner.cookie, userId: owner.user.id as number, p: project.id as number };
}

/**
 * Adds `n` activity entries to project `p`, about the project itself (live), or with
 * `dead` about a to-do that does not exist (hidden from lists and counts).
 */
async function entries(t: T, p: number, actor: number, n: number, dead = false) {
  await t.sql.run(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
     INSERT INTO activity (project_id, kind, actor_id, subject_type, subject_id, summary,
       created_at)
     SELECT ?, 'todo_created', ?, ?, ?, 'bulk', '2026-01-01T00:00:00.000Z' FROM n`,
    [n, p, actor, dead ? "item" : "project", dead ? 999_999 : p],
  );
}

const shape = (page: Record<string, unknown> & { items: unknown[] }) => ({
  items: page.items.length,
  total: page.total,
  totalIsExact: page.totalIsExact,
  hasMore: page.hasMore,
});

async function html(t: T, cookie: string, path: string): Promise<string> {
  const res = await t.app.request(path, { headers: { cookie } });
  assert.equal(res.status, 200, path);
  return await res.text();
}

Deno.test("the activity's total is exact up to 10,000 entries and a lower bound past it", async () => {
  const { t, cookie, userId, p } = await setup();
  try {
    const page = async (query = "") =>
      expectJson(await api(t, "GET", `/api/projects/${p}/activity${query}`, { cookie }), 200);
    const before = (await page()).total as number;
    await entries(t, p, userId, 9_999 - before);
    await entries(t, p, userId, 3, true);
    assert.deepEqual(shape(await page()), {
      items: 20,
      total: 9_999,
      totalIsExact: true,
      hasMore: true,
    });
    await entries(t, p, userId, 1);
    assert.deepEqual(shape(await page()), {
      items: 20,
      total: 10_000,
      totalIsExact: true,
      hasMore: true,
    });
    assert.deepEqual(shape(await page("?page=500")), {
      items: 20,
      total: 10_000,
      totalIsExact: true,
      hasMore: false,
    });
    await entries(t, p, userId, 1);
    assert.deepEqual(shape(await page()), {
      items: 20,
      total: 10_000,
      totalIsExact: false,
      hasMore: true,
    });
    assert.deepEqual(shape(await page("?page=500")), {
      items: 20,
      total: 10_000,
      totalIsExact: false,
      hasMore: true,
    });
    assert.deepEqual(shape(await page("?page=501")), {
      items: 1,
      total: 10_000,
      totalIsExact: false,
      hasMore: false,
    });

    const shown = await html(t, cookie, `/projects/${p}/activity`);
    assert.match(shown, /data-activity-total-exact="false"[^>]*>10,000\+ entries</);
    assert.match(shown, /Page 1 of 200\+</);
    assert.match(shown, /rel="next"/);
    await api(t, "PATCH", "/api/users/me", { cookie, body: { locale: "ja" } });
    assert.match(await html(t, cookie, `/projects/${p}/activity`), />10,000 件以上</);
  } finally {
    await t.close();
  }
});

Deno.test("the dashboards carry the totals of their latest lists, the activity's up to 1,000", async () => {
  const { t, cookie, userId, p } = await setup();
  try {
    for (let i = 0; i < 6; i++) {
      const sent = await api(t, "POST", `/api/projects/${p}/chat/messages`, {
        cookie,
        body: { text: `m${i}` },
      });
      assert.equal(sent.status, 201, sent.text);
    }
    const posted = await api(t, "POST", `/api/projects/${p}/board/threads`, {
      cookie,
      body: { title: "T", body: "b", category: "general" },
    });
    assert.equal(posted.status, 201, posted.text);
    const project = async () =>
      expectJson(await api(t, "GET", `/api/projects/${p}/dashboard`, { cookie }), 200);
    const personal = async () => expectJson(await api(t, "GET", "/api/dashboard", { cookie }), 200);
    let d = await project();
    assert.equal(d.latestChat.length, 5);
    assert.deepEqual(
      [d.latestChatTotal, d.latestThreadsTotal, d.latestNotesTotal, d.latestFilesTotal],
      [6, 1, 0, 0],
    );
    const logged = (await api(t, "GET", `/api/projects/${p}/activity`, { cookie })).json.total;
    assert.deepEqual([d.recentActivityTotal, d.recentActivityTotalIsExact], [logged, true]);

    await entries(t, p, userId, 1_000 - logged);
    await entries(t, p, userId, 2, true);
    d = await project();
    assert.deepEqual([d.recentActivityTotal, d.recentActivityTotalIsExact], [1_000, true]);
    let mine = await personal();
    assert.deepEqual([mine.recentActivityTotal, mine.recentActivityTotalIsExact], [1_000, true]);

    await entries(t, p, userId, 1);
    d = await project();
    assert.deepEqual([d.recentActivityTotal, d.recentActivityTotalIsExact], [1_000, false]);
    mine = await personal();
    assert.deepEqual([mine.recentActivityTotal, mine.recentActivityTotalIsExact], [1_000, false]);

    const page = await html(t, cookie, `/projects/${p}`);
    assert.match(page, /data-section="chat"[\s\S]*?data-count="true"> \(6\)</);
    assert.match(page, /data-section="activity"[\s\S]*?data-count="true"> \(1,000\+\)</);
    assert.match(await html(t, cookie, "/"), /data-section="activity"[\s\S]*?\(1,000\+\)</);
  } finally {
    await t.close();
  }
});

/** Adds `n` to-dos to a column of project `p`, assigned to `assignee`, due on `due` (or none). */
async function todos(
  t: T,
  p: number,
  key: string,
  n: number,
  who: { creator: number; assignee: number; due: string | null },
) {
  await t.sql.run(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
     INSERT INTO todo_items (project_id, column_id, creator_id, title, tags, order_index,
       assignee_id, due_date, created_at, updated_at)
     SELECT ?, (SELECT id FROM todo_columns WHERE project_id = ? AND key = ?), ?,
       'Bulk ' || CAST(i AS text), '[]', i, ?, ?, '2026-01-01T00:00:00.000Z',
       '2026-01-01T00:00:00.000Z' FROM n`,
    [n, p, p, key, who.creator, who.assignee, who.due],
  );
}

Deno.test("the dashboards count to-dos and the latest lists up to 1,000 and say when they stopped", async () => {
  const { t, cookie, userId, p } = await setup();
  try {
    const project = async () =>
      expectJson(await api(t, "GET", `/api/projects/${p}/dashboard`, { cookie }), 200);
    const personal = async () => expectJson(await api(t, "GET", "/api/dashboard", { cookie }), 200);
    const exactness = (d: Record<string, unknown>, names: string[]) =>
      names.map((n) => [d[`${n}Total`], d[`${n}TotalIsExact`]]);
    // The board's columns are made when it is first read.
    await expectJson(await api(t, "GET", `/api/projects/${p}/todos/columns`, { cookie }), 200);
    // 600 overdue and 400 undated: 1,000 of mine in all, exact.
    await todos(t, p, "in_progress", 600, { creator: userId, assignee: userId, due: "2020-01-01" });
    await todos(t, p, "todo", 400, { creator: userId, assignee: userId, due: null });
    await t.sql.run(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
       INSERT INTO chat_messages (project_id, author_id, text, created_at, updated_at)
       SELECT ?, ?, 'bulk', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' FROM n`,
      [p, userId],
    );
    let mine = await personal();
    assert.deepEqual(exactness(mine, ["incompleteTodos", "overdueTodos"]), [
      [1_000, true],
      [600, true],
    ]);
    assert.equal(mine.incompleteTodos.length, 20);
    let d = await project();
    assert.deepEqual(exactness(d, ["inProgressTodos", "latestChat"]), [[600, true], [1_000, true]]);

    // One more of each: the counts stop at the cap.
    await todos(t, p, "in_progress", 401, { creator: userId, assignee: userId, due: "2020-01-02" });
    await todos(t, p, "todo", 1, { creator: userId, assignee: userId, due: null });
    await t.sql.run(
      `INSERT INTO chat_messages (project_id, author_id, text, created_at, updated_at)
       VALUES (?, ?, 'one more', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
      [p, userId],
    );
    mine = await personal();
    assert.deepEqual(exactness(mine, ["incompleteTodos", "overdueTodos"]), [
      [1_000, false],
      [1_000, false],
    ]);
    // The list itself is still the soonest due first.
    assert.deepEqual(
      mine.overdueTodos.map((i: { dueDate: string }) => i.dueDate).slice(0, 1),
      ["2020-01-01"],
    );
    d = await project();
    assert.deepEqual(exactness(d, ["inProgressTodos", "latestChat", "latestThreads"]), [
      [1_000, false],
      [1_000, false],
      [0, true],
    ]);

    const page = await html(t, cookie, `/projects/${p}`);
    assert.match(page, /data-section="inProgress"[\s\S]*?data-count="true"> \(1,000\+\)</);
    assert.match(page, /All 1,000\+ in progress/);
    assert.match(page, /data-section="chat"[\s\S]*?data-count="true"> \(1,000\+\)</);
    assert.match(await html(t, cookie, "/"), /data-section="overdue"[\s\S]*?\(1,000\+\)</);
  } finally {
    await t.close();
  }
});
