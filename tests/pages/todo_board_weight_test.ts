/**
 * A board that grew for years stays light: with hundreds of items in each column, the board page
 * draws the first 100 of To Do and In Progress and the 50 newest of Done (250 cards, each with its
 * controls, assignee, due date, priority and two tags) in under 300 KB, in English and Japanese
 * (the weight bench/project_scale_bench.ts holds every project page to). A size, not a time.
 */
import assert from "node:assert/strict";
import { api, todoColumns } from "../helpers/api.ts";
import { page, withTeam } from "./page_requests.ts";

const MAX_BYTES = 300 * 1000;

Deno.test("a 250-card board page weighs under 300 KB in English and Japanese", async () => {
  await withTeam(async (t, { owner, alice, project }) => {
    const ja = await api(t, "PATCH", "/api/users/me", {
      cookie: owner.cookie,
      body: { locale: "ja" },
    });
    assert.equal(ja.status, 200);
    const [todo, doing, done] = await todoColumns(t, alice.cookie, project.id);
    const at = t.clock.now().toISOString();
    // 300 items in each column, as bench/archive_seed.ts makes them: a title of about 40
    // characters, two tags, half assigned, most with a due date; Done's completed.
    for (const [column, completed] of [[todo.id, 0], [doing.id, 0], [done.id, 1]] as const) {
      await t.sql.run(
        `WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i + 1 < 300)
         INSERT INTO todo_items (project_id, column_id, creator_id, title, assignee_id,
           priority, due_date, tags, order_index, completed, completed_at, created_at, updated_at)
         SELECT ?, ?, ?, 'Item ' || CAST(i AS text) || ': design release plan 設計 会議',
           CASE WHEN i % 2 = 1 THEN CAST(? AS bigint) END,
           CASE i % 3 WHEN 0 THEN 'low' WHEN 1 THEN 'normal' ELSE 'high' END,
           CASE WHEN i % 5 <> 0 THEN '2026-12-24' END,
           '["review","bench"]', i, CAST(? AS bigint),
           CASE WHEN CAST(? AS bigint) = 1 THEN CAST(? AS text) END, ?, ? FROM s`,
        [
          project.id,
          column,
          owner.user.id,
          alice.user.id,
          completed,
          completed,
          at,
          at,
          at,
        ],
      );
    }
    for (const [who, cookie] of [["en", alice.cookie], ["ja", owner.cookie]] as const) {
      const board = await page(t, cookie, `/projects/${project.id}/todos`);
      assert.equal(board.status, 200);
      const cards = (column: number) => {
        const list = board.html.slice(board.html.indexOf(`data-column-items="${column}"`));
        return (list.slice(0, list.indexOf("</ol>")).match(/<li class="kanban-card/g) ?? [])
          .length;
      };
      assert.deepEqual([cards(todo.id), cards(doing.id), cards(done.id)], [100, 100, 50], who);
      // Every card has its controls: the toggle, four moves and its title to name them.
      assert.equal(board.html.match(/<form class="card-moves"/g)?.length, 250, who);
      assert.equal(board.html.match(/<form class="card-toggle"/g)?.length, 250, who);
      const bytes = new TextEncoder().encode(board.html).length;
      assert.ok(bytes < MAX_BYTES, `${who}: ${bytes} bytes, more than ${MAX_BYTES}`);
    }
  });
});
