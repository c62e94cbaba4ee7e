/**
 * The search's count stops at 10,000 matches: up to there `total` is exact (`totalIsExact`
 * true), past it `total` is 10,000 and `totalIsExact` false; `hasMore` stays exact on the pages
 * around and past the cap; the pages show "10,000+". Project search and search across projects,
 * on whichever engine the app runs (`.ci/with_postgres.ts` for PostgreSQL). The matches are
 * written by one statement through the test's database handle (the triggers index them).
 */
import assert from "node:assert/strict";
import { testApp } from "../helpers/app.ts";
import { api, createProject, expectJson, register } from "../helpers/api.ts";

type T = Awaited<ReturnType<typeof testApp>>;

/** `n` chat messages of `project` by `author` saying "<word> <i>", in one statement. */
async function chats(t: T, project: number, author: number, n: number, from = 1, word = "capword") {
  const at = "2026-11-20T10:00:00.000Z";
  await t.sql.run(
    "WITH RECURSIVE k(i) AS (SELECT CAST(? AS INTEGER) UNION ALL SELECT i + 1 FROM k WHERE i < ?) " +
      "INSERT INTO chat_messages (project_id, author_id, text, created_at, updated_at) " +
      "SELECT ?, ?, ? || ' ' || i, ?, ? FROM k",
    [from, from + n - 1, project, author, word, at, at],
  );
}

async function setup() {
  const t = await testApp();
  await register(t, "root@example.com"); // the first account is a system admin
  const cookie = await register(t, "ann@example.com");
  const project = (await createProject(t, cookie, "Cap")).id as number;
  const { id } = (await t.sql.get<{ id: number }>(
    "SELECT id FROM users WHERE email = 'ann@example.com'",
  ))!;
  return { t, cookie, project, author: Number(id) };
}

type SearchPage = {
  items: Array<{ id: number; title: string }>;
  total: number;
  totalIsExact: boolean;
  hasMore: boolean;
};

/** The project's search and the search across projects, each for `query`. */
async function both(t: T, cookie: string, project: number, query: string) {
  const one = expectJson(
    await api(t, "GET", `/api/projects/${project}/search?${query}`, { cookie }),
    200,
  ) as SearchPage;
  const all = expectJson(
    await api(t, "GET", `/api/search?${query}`, { cookie }),
    200,
  ) as SearchPage;
  return [one, all];
}

const shape = (p: SearchPage) => ({
  items: p.items.length,
  total: p.total,
  totalIsExact: p.totalIsExact,
  hasMore: p.hasMore,
});

Deno.test("a search's total is exact up to 10,000 matches and 10,000+ past them", async () => {
  const { t, cookie, project, author } = await setup();
  try {
    await chats(t, project, author, 10_000);
    await chats(t, project, author, 3, 1, "rareword");
    for (const page of await both(t, cookie, project, "q=rareword")) {
      assert.deepEqual(shape(page), { items: 3, total: 3, totalIsExact: true, hasMore: false });
    }
    // Exactly 10,000 matches: exact, through the count (page 1) and through the last page.
    for (const page of await both(t, cookie, project, "q=capword&pageSize=20")) {
      assert.deepEqual(shape(page), {
        items: 20,
        total: 10_000,
        totalIsExact: true,
        hasMore: true,
      });
    }
    for (const page of await both(t, cookie, project, "q=capword&pageSize=20&page=500")) {
      assert.deepEqual(shape(page), {
        items: 20,
        total: 10_000,
        totalIsExact: true,
        hasMore: false,
      });
    }
    // One more: 10,001 matches. The count stops, and says so.
    await chats(t, project, author, 1, 10_001);
    for (const page of await both(t, cookie, project, "q=capword&pageSize=20")) {
      assert.deepEqual(shape(page), {
        items: 20,
        total: 10_000,
        totalIsExact: false,
        hasMore: true,
      });
    }
    // The pages around the cap: 9,981-10,000 (one more follows), then the 10,001st alone.
    for (const page of await both(t, cookie, project, "q=capword&pageSize=20&page=500")) {
      assert.deepEqual(shape(page), {
        items: 20,
        total: 10_000,
        totalIsExact: false,
        hasMore: true,
      });
    }
    for (const page of await both(t, cookie, project, "q=capword&pageSize=20&page=501")) {
      assert.deepEqual(shape(page), {
        items: 1,
        total: 10_000,
        totalIsExact: false,
        hasMore: false,
      });
    }
    // Newest first: the 10,001st written is the first hit, and the last page holds the first.
    const [first] = await both(t, cookie, project, "q=capword&pageSize=1");
    const [last] = await both(t, cookie, project, "q=capword&pageSize=20&page=501");
    assert.equal(first!.items[0]!.title, "capword 10001");
    assert.equal(last!.items[0]!.title, "capword 1");
    // A type filter narrows the same way: every match is a chat message, none a note.
    const [chat] = await both(t, cookie, project, "q=capword&type=chat");
    assert.equal(chat!.totalIsExact, false);
    const [notes] = await both(t, cookie, project, "q=capword&type=note");
    assert.deepEqual(shape(notes!), { items: 0, total: 0, totalIsExact: true, hasMore: false });
    // Past the last page: nothing, and nothing more.
    for (const page of await both(t, cookie, project, "q=capword&pageSize=20&page=502")) {
      assert.deepEqual(shape(page), {
        items: 0,
        total: 10_000,
        totalIsExact: false,
        hasMore: false,
      });
    }
  } finally {
    await t.close();
  }
});

async function html(t: T, cookie: string, path: string) {
  const res = await t.app.request(path, { headers: { cookie } });
  assert.equal(res.status, 200, path);
  return await res.text();
}

Deno.test("the search pages show a capped count as 10,000+ (en) and 10,000 件以上 (ja)", async () => {
  const { t, cookie, project, author } = await setup();
  try {
    await chats(t, project, author, 10_000);
    for (const path of [`/projects/${project}/search?q=capword`, "/search?q=capword"]) {
      const exact = await html(t, cookie, path);
      assert.match(exact, /data-search-total-exact="true"[^>]*>Matches: 10,000</, path);
      assert.match(exact, /Page 1 of 500</, path);
    }
    await chats(t, project, author, 1, 10_001);
    for (const path of [`/projects/${project}/search?q=capword`, "/search?q=capword"]) {
      const capped = await html(t, cookie, path);
      assert.match(capped, /data-search-total-exact="false"[^>]*>Matches: 10,000\+</, path);
      assert.match(capped, /Page 1 of 500\+</, path);
      assert.match(capped, /rel="next"/, path);
      const beyond = await html(t, cookie, `${path}&page=501`);
      assert.match(beyond, /Page 501 of 501\+</, path);
      assert.doesNotMatch(beyond, /rel="next"/, path);
    }
    await api(t, "PATCH", "/api/users/me", { cookie, body: { locale: "ja" } });
    for (const path of [`/projects/${project}/search?q=capword`, "/search?q=capword"]) {
      assert.match(await html(t, cookie, path), />10,000 件以上見つかりました</, path);
    }
  } finally {
    await t.close();
  }
});
