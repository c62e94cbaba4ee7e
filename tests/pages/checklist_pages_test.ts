/**
 * The to-do page's checklist, in process: adding, checking, renaming, moving and deleting
 * entries with plain forms (no JavaScript), the board card's `✓ done/total`, both languages,
 * refused forms that keep what was typed and store nothing, viewers and outsiders.
 */
import assert from "node:assert/strict";
import type { TestApp } from "../helpers/app.ts";
import { api, expectJson, getJson, type Json } from "../helpers/api.ts";
import { page, post, withTeam } from "./page_requests.ts";

async function createItem(t: TestApp, cookie: string, projectId: number, title: string) {
  return expectJson(
    await api(t, "POST", `/api/projects/${projectId}/todos/items`, { cookie, body: { title } }),
    201,
  ).item;
}

/** The entries as the API lists them: [text, done] in order. */
async function entries(t: TestApp, cookie: string, projectId: number, itemId: number) {
  const { items } = await getJson(
    t,
    cookie,
    `/api/projects/${projectId}/todos/items/${itemId}/checklist`,
  );
  return items.map((e: Json) => [e.text, e.done]);
}

/** The checklist's entry ids in order. */
async function ids(t: TestApp, cookie: string, projectId: number, itemId: number) {
  const { items } = await getJson(
    t,
    cookie,
    `/api/projects/${projectId}/todos/items/${itemId}/checklist`,
  );
  return items.map((e: Json) => e.id as number);
}

Deno.test("the checklist's forms add, check, rename, move and delete entries without JavaScript", async () => {
  await withTeam(async (t, { alice, project }) => {
    const item = await createItem(t, alice.cookie, project.id, "Launch");
    const base = `/projects/${project.id}/todos/${item.id}`;
    const empty = await page(t, alice.cookie, base);
    assert.equal(empty.status, 200);
    assert.match(empty.html, /<h2 id="checklist-title">Checklist/);
    assert.match(empty.html, /No checklist entries yet\./);
    assert.match(
      empty.html,
      /<label>New checklist entry<input name="text"\s+required maxlength="500"/,
    );

    for (const text of ["Write <notes>", "Test", "Ship"]) {
      const added = await post(t, alice.cookie, `${base}/checklist`, { text });
      assert.equal(added.status, 303, added.html);
      assert.equal(added.location, `${base}#checklist`);
    }
    const [notes, test, ship] = await ids(t, alice.cookie, project.id, item.id);

    const checked = await post(t, alice.cookie, `${base}/checklist/${test}/toggle`, {
      done: "true",
    });
    assert.equal(checked.status, 303);
    const renamed = await post(t, alice.cookie, `${base}/checklist/${ship}`, { text: "Ship it" });
    assert.equal(renamed.status, 303);
    const up = await post(t, alice.cookie, `${base}/checklist/${ship}/move`, { by: "-1" });
    assert.equal(up.status, 303);
    assert.deepEqual(await entries(t, alice.cookie, project.id, item.id), [
      ["Write <notes>", false],
      ["Ship it", false],
      ["Test", true],
    ]);
    const down = await post(t, alice.cookie, `${base}/checklist/${notes}/move`, { by: "1" });
    assert.equal(down.status, 303);
    assert.deepEqual(await ids(t, alice.cookie, project.id, item.id), [ship, notes, test]);

    const html = (await page(t, alice.cookie, base)).html;
    assert.match(html, /1 of 3 done/);
    assert.match(html, /Write &lt;notes&gt;/);
    assert.doesNotMatch(html, /<notes>/);
    assert.match(html, /aria-label="Mark “Test” as not done"[^>]*aria-pressed="true"/);
    assert.match(html, /aria-label="Mark “Ship it” as done"[^>]*aria-pressed="false"/);
    assert.match(html, /aria-label="Move “Ship it” up"[^>]*disabled/);
    assert.match(html, /aria-label="Move “Test” down"[^>]*disabled/);
    assert.match(html, /aria-label="Delete “Test”"/);
    assert.match(
      html,
      /<label>Rename “Ship it”<input name="text"\s+required maxlength="500"\s+value="Ship it"/,
    );

    // The board's card counts the checklist.
    const board = (await page(t, alice.cookie, `/projects/${project.id}/todos`)).html;
    const card = board.slice(board.indexOf(`data-item="${item.id}"`));
    assert.match(card, /data-checklist-count="1\/3"/);
    assert.match(card, /<span aria-hidden="true">✓ 1\/3<\/span>/);
    assert.match(card, /<span class="visually-hidden">Checklist: 1 of 3 done<\/span>/);

    const unchecked = await post(t, alice.cookie, `${base}/checklist/${test}/toggle`, {
      done: "false",
    });
    assert.equal(unchecked.status, 303);
    const deleted = await post(t, alice.cookie, `${base}/checklist/${notes}/delete`);
    assert.equal(deleted.status, 303);
    assert.deepEqual(await entries(t, alice.cookie, project.id, item.id), [
      ["Ship it", false],
      ["Test", false],
    ]);
  });
});

Deno.test("the checklist speaks Japanese, and a card without a checklist shows no count", async () => {
  await withTeam(async (t, { owner, alice, project }) => {
    const ja = await api(t, "PATCH", "/api/users/me", {
      cookie: owner.cookie,
      body: { locale: "ja" },
    });
    assert.equal(ja.status, 200);
    const item = await createItem(t, alice.cookie, project.id, "公開");
    const bare = await createItem(t, alice.cookie, project.id, "Bare");
    const base = `/projects/${project.id}/todos/${item.id}`;
    for (const text of ["議事録", "テスト"]) {
      assert.equal((await post(t, alice.cookie, `${base}/checklist`, { text })).status, 303);
    }
    const [first] = await ids(t, alice.cookie, project.id, item.id);
    await post(t, alice.cookie, `${base}/checklist/${first}/toggle`, { done: "true" });
    const html = (await page(t, owner.cookie, base)).html;
    assert.match(html, /<h2 id="checklist-title">チェックリスト/);
    assert.match(html, /2 件中 1 件完了/);
    assert.match(html, /「議事録」を未完了に戻す/);
    assert.match(html, /「テスト」を完了にする/);
    assert.match(html, /新しいチェックリスト項目/);
    const board = (await page(t, owner.cookie, `/projects/${project.id}/todos`)).html;
    assert.match(board, /チェックリスト: 2 件中 1 件完了/);
    const bareCard = board.slice(board.indexOf(`data-item="${bare.id}"`));
    assert.doesNotMatch(bareCard.slice(0, bareCard.indexOf("</li>")), /data-checklist-count/);
  });
});

Deno.test("refused checklist forms show the page again with the reason and store nothing", async () => {
  await withTeam(async (t, { alice, project }) => {
    const item = await createItem(t, alice.cookie, project.id, "Launch");
    const base = `/projects/${project.id}/todos/${item.id}`;
    await post(t, alice.cookie, `${base}/checklist`, { text: "Keep" });
    const [keep] = await ids(t, alice.cookie, project.id, item.id);

    const blank = await post(t, alice.cookie, `${base}/checklist`, { text: "   " });
    assert.equal(blank.status, 400);
    assert.match(blank.html, /This field is required\./);
    const long = await post(t, alice.cookie, `${base}/checklist`, { text: "y".repeat(501) });
    assert.equal(long.status, 400);
    assert.match(long.html, new RegExp(`value="${"y".repeat(501)}"`), "the typed text stays");
    const rename = await post(t, alice.cookie, `${base}/checklist/${keep}`, { text: "" });
    assert.equal(rename.status, 400);
    assert.match(rename.html, /<details class="checklist-rename"\s+open>/);
    const move = await post(t, alice.cookie, `${base}/checklist/${keep}/move`, { by: "7" });
    assert.equal(move.status, 400);
    const missing = await post(t, alice.cookie, `${base}/checklist/999999/delete`);
    assert.equal(missing.status, 404);
    assert.deepEqual(await entries(t, alice.cookie, project.id, item.id), [["Keep", false]]);

    // The 101st entry: the reason next to the field.
    await t.sql.run(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 99)
       INSERT INTO todo_checklist_entries (project_id, item_id, text, position, created_at,
         updated_at) SELECT CAST(? AS bigint), CAST(? AS bigint), 'Step ' || i, i,
         '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' FROM n`,
      [project.id, item.id],
    );
    const full = await post(t, alice.cookie, `${base}/checklist`, { text: "One more" });
    assert.equal(full.status, 409);
    assert.match(full.html, /A checklist holds at most 100 entries\./);
    assert.match(full.html, /value="One more"/);
    assert.equal((await entries(t, alice.cookie, project.id, item.id)).length, 100);
  });
});

Deno.test("viewers see the checklist without its forms and cannot change it; outsiders get the 404 page", async () => {
  await withTeam(async (t, { alice, viewer, outsider, project }) => {
    const item = await createItem(t, alice.cookie, project.id, "Launch");
    const base = `/projects/${project.id}/todos/${item.id}`;
    await post(t, alice.cookie, `${base}/checklist`, { text: "Done already" });
    const [entry] = await ids(t, alice.cookie, project.id, item.id);
    await post(t, alice.cookie, `${base}/checklist/${entry}/toggle`, { done: "true" });

    const read = await page(t, viewer.cookie, base);
    assert.equal(read.status, 200);
    assert.match(read.html, /Done already/);
    assert.match(read.html, /1 of 1 done/);
    assert.doesNotMatch(read.html, /action="[^"]*\/checklist/);
    const refused = await post(t, viewer.cookie, `${base}/checklist/${entry}/toggle`, {
      done: "false",
    });
    assert.equal(refused.status, 403);
    assert.equal((await post(t, viewer.cookie, `${base}/checklist`, { text: "x" })).status, 403);
    const hidden = await post(t, outsider.cookie, `${base}/checklist`, { text: "x" });
    assert.equal(hidden.status, 404);
    assert.equal((await page(t, outsider.cookie, base)).status, 404);
    assert.deepEqual(await entries(t, alice.cookie, project.id, item.id), [["Done already", true]]);
  });
});
