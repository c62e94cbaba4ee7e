/**
 * A board that grows for years: a project of more than 40,000 to-dos lists (API page by
 * column, and the board page), moves and reorders; a column pages by cursor without skipping
 * or repeating an item that stays in it while others move; the whole list is refused above
 * 1,000 items; a malformed cursor or limit is 400 and changes nothing.
 */
import assert from "node:assert/strict";
import { type TestApp, testApp } from "../helpers/app.ts";
import {
  api,
  expectError,
  expectJson,
  expectNoContent,
  getJson,
  type Json,
  team,
  todoColumns,
} from "../helpers/api.ts";

const items = (projectId: number) => `/api/projects/${projectId}/todos/items`;

/**
 * Adds `n` items to the end of a column with one statement in one transaction (no HTTP): a
 * recursive series of `order_index` from `from`. Returns nothing; ids are read back.
 */
async function seed(
  t: TestApp,
  c: { projectId: number; columnId: number; creatorId: number; n: number; from?: number },
): Promise<void> {
  const at = t.clock.now().toISOString();
  await t.engine.transaction((tx) =>
    tx.run(
      `WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i + 1 < ?)
       INSERT INTO todo_items (project_id, column_id, creator_id, title, tags, order_index,
         created_at, updated_at)
       SELECT ?, ?, ?, 'Seeded ' || CAST(i AS text), '[]', i + ?, ?, ? FROM s`,
      [c.n, c.projectId, c.columnId, c.creatorId, c.from ?? 0, at, at],
    )
  );
}

/** Every page of a column, following nextCursor, with `between` run before each next page. */
async function readAll(
  t: TestApp,
  cookie: string,
  projectId: number,
  columnId: number,
  limit: number,
  between: (pageNo: number, seen: number[]) => Promise<void> = async () => {},
): Promise<number[]> {
  const seen: number[] = [];
  let after: string | null = null;
  for (let pageNo = 0;; pageNo++) {
    const query: string = `?columnId=${columnId}&limit=${limit}` +
      (after ? `&after=${encodeURIComponent(after)}` : "");
    const body = await getJson(t, cookie, `${items(projectId)}${query}`);
    seen.push(...body.items.map((i: Json) => i.id));
    after = body.nextCursor;
    if (after === null) return seen;
    await between(pageNo, seen);
  }
}

/** The live ids of a column in board order, from the database. */
async function columnIds(t: TestApp, columnId: number): Promise<number[]> {
  return (await t.sql.all<{ id: number }>(
    "SELECT id FROM todo_items WHERE column_id = ? AND deleted_at IS NULL ORDER BY order_index, id",
    [columnId],
  )).map((r) => r.id);
}

const move = (t: TestApp, cookie: string, projectId: number, id: number, body: Json) =>
  api(t, "POST", `${items(projectId)}/${id}/move`, { cookie, body });

Deno.test("Past 40,000 to-dos: the API pages a column, moves and reorders; the whole list is too_many; the board page draws", async () => {
  const t = await testApp();
  try {
    const { owner, alice, project } = await team(t);
    const [todo, doing, done] = await todoColumns(t, alice.cookie, project.id);
    await seed(t, {
      projectId: project.id,
      columnId: todo.id,
      creatorId: owner.user.id,
      n: 40_500,
    });
    assert.equal(await t.sql.count("todo_items WHERE project_id = ?", [project.id]), 40_500);

    // The whole list: refused with a hint, not a 500.
    const refused = expectError(
      await api(t, "GET", items(project.id), { cookie: alice.cookie }),
      400,
      "too_many",
    );
    assert.match(refused.message, /page each column/);
    assert.ok(refused.details.columnId);

    // A page of the column, and the last one.
    const first = await getJson(t, alice.cookie, `${items(project.id)}?columnId=${todo.id}`);
    assert.equal(first.items.length, 100);
    assert.deepEqual(first.items.map((i: Json) => i.orderIndex), [...Array(100).keys()]);
    assert.equal(typeof first.nextCursor, "string");
    const all = await columnIds(t, todo.id);
    const page2 = await getJson(
      t,
      alice.cookie,
      `${items(project.id)}?columnId=${todo.id}&limit=500&after=${first.nextCursor}`,
    );
    assert.deepEqual(page2.items.map((i: Json) => i.id), all.slice(100, 600));

    // A move to the top and a reorder of a 40,000-item column, each one transaction.
    const last = all.at(-1)!;
    expectJson(
      await move(t, alice.cookie, project.id, last, { columnId: todo.id, orderIndex: 0 }),
      200,
    );
    const [a, b] = [all[1000]!, all[2000]!];
    expectJson(
      await api(t, "POST", `${items(project.id)}/reorder`, {
        cookie: alice.cookie,
        body: { projectId: project.id, columnId: doing.id, itemIds: [a, b] },
      }),
      200,
    );
    const after = await columnIds(t, todo.id);
    assert.equal(after.length, 40_498);
    assert.equal(after[0], last);
    assert.deepEqual(await columnIds(t, doing.id), [a, b]);
    const renumbered = await t.sql.all<{ order_index: number }>(
      "SELECT order_index FROM todo_items WHERE column_id = ? AND deleted_at IS NULL ORDER BY order_index",
      [todo.id],
    );
    assert.ok(renumbered.every((r, i) => r.order_index === i), "renumbered 0..n-1");
    // A small column still lists whole, and a filter that matches few items too.
    assert.equal(
      (await getJson(t, alice.cookie, `${items(project.id)}?columnId=${doing.id}`)).items.length,
      2,
    );
    expectJson(
      await api(t, "GET", `${items(project.id)}?assigneeId=${alice.user.id}`, {
        cookie: alice.cookie,
      }),
      200,
    );

    // The board page: the first 100 of To Do and a Show more; its next page as a fragment.
    const board = await api(t, "GET", `/projects/${project.id}/todos`, { cookie: alice.cookie });
    assert.equal(board.status, 200);
    const html = board.text;
    const list = html.slice(html.indexOf(`data-column-items="${todo.id}"`));
    const cards = list.slice(0, list.indexOf("</ol>")).match(/data-item="/g) ?? [];
    assert.equal(cards.length, 100);
    assert.match(html, new RegExp(`data-kanban-more="${todo.id}"`));
    assert.doesNotMatch(html, new RegExp(`data-kanban-more="${done.id}"`));
    const moreUrl = /data-more-url="([^"]+)"/.exec(html)![1]!.replaceAll("&amp;", "&");
    const more = await api(t, "GET", moreUrl, { cookie: alice.cookie });
    assert.equal(more.status, 200);
    const ids = [...more.text.matchAll(/data-item="(\d+)"/g)].map((m) => Number(m[1]));
    assert.deepEqual(ids, after.slice(100, 200));
  } finally {
    await t.close();
  }
});

Deno.test("Column cursor: every item that stays in the column unmoved comes exactly once while others move, reorder, arrive and go", async () => {
  const t = await testApp();
  try {
    const { owner, alice, project } = await team(t);
    const [todo, doing] = await todoColumns(t, alice.cookie, project.id);
    await seed(t, { projectId: project.id, columnId: todo.id, creatorId: owner.user.id, n: 300 });
    await seed(t, { projectId: project.id, columnId: doing.id, creatorId: owner.user.id, n: 20 });
    const start = await columnIds(t, todo.id);
    const incoming = await columnIds(t, doing.id);
    const moved = new Set<number>();
    const reorder = (itemIds: number[]) =>
      api(t, "POST", `${items(project.id)}/reorder`, {
        cookie: alice.cookie,
        body: { projectId: project.id, columnId: todo.id, itemIds },
      });

    const seen = await readAll(t, alice.cookie, project.id, todo.id, 25, async (pageNo, got) => {
      // The cursor's own item leaves the column, alone: the next page starts where it stood
      // (exact only when that is the only change; documented).
      if (pageNo === 4) {
        const anchor = got.at(-1)!;
        moved.add(anchor);
        expectNoContent(
          await api(t, "DELETE", `${items(project.id)}/${anchor}`, { cookie: alice.cookie }),
        );
        return;
      }
      const ahead = start.filter((id) => !got.includes(id) && !moved.has(id));
      const behind = got.filter((id) => !moved.has(id));
      // Items the reader passed move down past it, items ahead move up to the top (so they
      // renumber everything the cursor stands on), others leave or arrive.
      const down = behind[pageNo % behind.length]!;
      moved.add(down);
      expectJson(
        await move(t, alice.cookie, project.id, down, { columnId: todo.id, orderIndex: 299 }),
        200,
      );
      // Three items ahead go to the top: everything the cursor stands on moves down three.
      const ups = ahead.slice(-3);
      for (const id of ups) moved.add(id);
      expectJson(await reorder(ups), 200);
      const away = behind[(pageNo * 7 + 3) % behind.length]!;
      if (!moved.has(away)) {
        moved.add(away);
        expectJson(
          await move(t, alice.cookie, project.id, away, { columnId: doing.id, orderIndex: 0 }),
          200,
        );
      }
      // Now and then an item arrives too: the shifts before the cursor do not cancel out.
      if (pageNo % 3 === 0) {
        const arriving = incoming[pageNo]!;
        moved.add(arriving);
        expectJson(
          await move(t, alice.cookie, project.id, arriving, { columnId: todo.id, orderIndex: 5 }),
          200,
        );
      }
    });
    const stayed = (await columnIds(t, todo.id)).filter((id) => !moved.has(id));
    assert.ok(stayed.length > 250);
    const counts = new Map<number, number>();
    for (const id of seen) counts.set(id, (counts.get(id) ?? 0) + 1);
    for (const id of stayed) {
      assert.equal(counts.get(id), 1, `item ${id} seen ${counts.get(id) ?? 0} times`);
    }
    // In board order, among themselves.
    const order = seen.filter((id) => stayed.includes(id));
    assert.deepEqual(order, stayed);
  } finally {
    await t.close();
  }
});

Deno.test("Column pages: limit default 100 and at most 500; Done newest completed first; a malformed cursor or limit is 400 and changes nothing", async () => {
  const t = await testApp();
  try {
    const { owner, alice, project } = await team(t);
    const [todo, , done] = await todoColumns(t, alice.cookie, project.id);
    await seed(t, { projectId: project.id, columnId: todo.id, creatorId: owner.user.id, n: 1001 });
    const base = `${items(project.id)}?columnId=${todo.id}`;
    assert.equal((await getJson(t, alice.cookie, base)).items.length, 100);
    assert.equal((await getJson(t, alice.cookie, `${base}&limit=500`)).items.length, 500);
    const end = await getJson(t, alice.cookie, `${items(project.id)}?columnId=${done.id}`);
    assert.deepEqual(end, { items: [], nextCursor: null });
    // 1,001 items: the whole list is refused; with 1,000 it is answered.
    expectError(await api(t, "GET", items(project.id), { cookie: alice.cookie }), 400, "too_many");
    const before = await t.sql.all(
      "SELECT id, column_id, order_index, updated_at FROM todo_items ORDER BY id",
    );
    for (
      const bad of [
        "&limit=0",
        "&limit=501",
        "&limit=ten",
        "&after=!!",
        "&after=bm90LWpzb24",
        `&after=${btoa(JSON.stringify({ o: -1, i: 3 }))}`,
        `&after=${btoa(JSON.stringify({ o: 1, i: "x" }))}`,
        `&after=${btoa(JSON.stringify([1, 2]))}`,
      ]
    ) {
      const res = await api(t, "GET", `${base}${bad}`, { cookie: alice.cookie });
      expectError(res, 400, "validation");
    }
    expectError(
      await api(t, "GET", `${items(project.id)}?limit=5`, { cookie: alice.cookie }),
      400,
      "validation",
    );
    // A board-order cursor given to the completion order is refused too.
    const cursor = (await getJson(t, alice.cookie, `${base}&limit=1`)).nextCursor;
    expectError(
      await api(t, "GET", `${base}&order=completed&after=${cursor}`, { cookie: alice.cookie }),
      400,
      "validation",
    );
    assert.deepEqual(
      await t.sql.all("SELECT id, column_id, order_index, updated_at FROM todo_items ORDER BY id"),
      before,
    );
    const one = (await columnIds(t, todo.id))[0]!;
    expectNoContent(
      await api(t, "DELETE", `${items(project.id)}/${one}`, { cookie: alice.cookie }),
    );
    assert.equal((await getJson(t, alice.cookie, items(project.id))).items.length, 1000);

    // The Done column, newest completed first across pages.
    const ids = (await columnIds(t, todo.id)).slice(0, 5);
    for (const id of ids) {
      t.clock.advance(1000);
      expectJson(
        await move(t, alice.cookie, project.id, id, { columnId: done.id, orderIndex: 0 }),
        200,
      );
      expectJson(
        await api(t, "POST", `${items(project.id)}/${id}/toggle-complete`, {
          cookie: alice.cookie,
        }),
        200,
      );
    }
    const doneBase = `${items(project.id)}?columnId=${done.id}&order=completed&limit=2`;
    const p1 = await getJson(t, alice.cookie, doneBase);
    const p2 = await getJson(t, alice.cookie, `${doneBase}&after=${p1.nextCursor}`);
    const p3 = await getJson(t, alice.cookie, `${doneBase}&after=${p2.nextCursor}`);
    assert.deepEqual(
      [...p1.items, ...p2.items, ...p3.items].map((i: Json) => i.id),
      [...ids].reverse(),
    );
    assert.equal(p3.nextCursor, null);
  } finally {
    await t.close();
  }
});
