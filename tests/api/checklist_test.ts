/**
 * Checklists on to-do items: add, check, rename, reorder and remove entries; their counts on
 * the item; bad input and callers who may not edit change nothing; search finds an item by its
 * entries; a trashed item comes back with its checklist; a purged project leaves none.
 */
import assert from "node:assert/strict";
import { type TestApp, testApp } from "../helpers/app.ts";
import {
  activityOf,
  api,
  createProject,
  createTodo,
  expectError,
  expectJson,
  expectNoContent,
  getJson,
  type Json,
  storedEvents,
  team,
} from "../helpers/api.ts";
import { DAY } from "../helpers/trash.ts";

const NOW = "2026-11-22T08:30:00.000Z";
const MINUTE = 60_000;

const itemPath = (projectId: number, itemId: number) =>
  `/api/projects/${projectId}/todos/items/${itemId}`;
const checklistPath = (projectId: number, itemId: number, rest = "") =>
  `${itemPath(projectId, itemId)}/checklist${rest}`;

/** Appends an entry as `cookie` (expects 201) and returns it. */
async function addEntry(
  t: TestApp,
  cookie: string,
  projectId: number,
  itemId: number,
  text: string,
): Promise<Json> {
  const res = await api(t, "POST", checklistPath(projectId, itemId), { cookie, body: { text } });
  return expectJson(res, 201).entry;
}

/** The entries as GET lists them: [text, done] in order. */
async function entriesOf(
  t: TestApp,
  cookie: string,
  projectId: number,
  itemId: number,
): Promise<Array<[string, boolean]>> {
  const { items } = await getJson(t, cookie, checklistPath(projectId, itemId));
  return items.map((e: Json) => [e.text, e.done]);
}

/** The search results' [type, id] for `q`. */
async function found(t: TestApp, cookie: string, projectId: number, q: string): Promise<Json[]> {
  const page = await getJson(
    t,
    cookie,
    `/api/projects/${projectId}/search?q=${encodeURIComponent(q)}`,
  );
  return page.items.map((r: Json) => [r.type, r.id]);
}

/** Everything a refused request must leave as it was. */
async function state(t: TestApp, projectId: number) {
  return {
    entries: (await t.sql.all(
      "SELECT id, item_id, text, done, position, updated_at FROM todo_checklist_entries ORDER BY id",
    )).map((r) => ({ ...r })),
    items: (await t.sql.all("SELECT id, updated_at FROM todo_items ORDER BY id"))
      .map((r) => ({ ...r })),
    events: (await storedEvents(t, projectId)).length,
    activity: await t.sql.count("activity"),
  };
}

Deno.test("POST, PATCH, reorder and DELETE on a checklist: each entry in order, the item counts done/total", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { alice, bob, viewer, project } = await team(t);
    const p = project.id;
    const item = await createTodo(t, alice.cookie, p, { title: "Launch" });
    assert.deepEqual(item.checklist, { done: 0, total: 0 });

    t.clock.advance(MINUTE);
    const first = await addEntry(t, alice.cookie, p, item.id, "  Write the notes  ");
    const at = t.clock.now().toISOString();
    assert.deepEqual(first, {
      id: first.id,
      itemId: item.id,
      text: "Write the notes",
      done: false,
      position: 0,
      createdAt: at,
      updatedAt: at,
    });
    const second = await addEntry(t, bob.cookie, p, item.id, "テストを書く");
    const third = await addEntry(t, alice.cookie, p, item.id, "Ship");
    assert.deepEqual([second.position, third.position], [1, 2]);

    // Check one off, rename another.
    t.clock.advance(MINUTE);
    const checked = expectJson(
      await api(t, "PATCH", checklistPath(p, item.id, `/${second.id}`), {
        cookie: bob.cookie,
        body: { done: true },
      }),
      200,
    ).entry;
    assert.equal(checked.done, true);
    assert.equal(checked.text, "テストを書く");
    assert.equal(checked.updatedAt, t.clock.now().toISOString());
    const renamed = expectJson(
      await api(t, "PATCH", checklistPath(p, item.id, `/${third.id}`), {
        cookie: alice.cookie,
        body: { text: "Ship it" },
      }),
      200,
    ).entry;
    assert.deepEqual([renamed.text, renamed.done], ["Ship it", false]);

    // The viewer reads the list and the item's counts.
    assert.deepEqual(await entriesOf(t, viewer.cookie, p, item.id), [
      ["Write the notes", false],
      ["テストを書く", true],
      ["Ship it", false],
    ]);
    const got = await getJson(t, viewer.cookie, itemPath(p, item.id));
    assert.deepEqual(got.item.checklist, { done: 1, total: 3 });
    assert.deepEqual(got.checklist.map((e: Json) => e.id), [first.id, second.id, third.id]);
    assert.equal(got.item.updatedAt, t.clock.now().toISOString(), "a change touches the item");
    const listed = await getJson(t, viewer.cookie, `/api/projects/${p}/todos/items`);
    assert.deepEqual(listed.items[0].checklist, { done: 1, total: 3 });

    // Reorder: the new order, positions 0..n-1.
    const reordered = expectJson(
      await api(t, "POST", checklistPath(p, item.id, "/reorder"), {
        cookie: alice.cookie,
        body: { entryIds: [third.id, first.id, second.id] },
      }),
      200,
    ).items;
    assert.deepEqual(reordered.map((e: Json) => [e.id, e.position]), [
      [third.id, 0],
      [first.id, 1],
      [second.id, 2],
    ]);

    // Delete: the rest close up.
    expectNoContent(
      await api(t, "DELETE", checklistPath(p, item.id, `/${first.id}`), { cookie: bob.cookie }),
    );
    const after = (await getJson(t, alice.cookie, checklistPath(p, item.id))).items;
    assert.deepEqual(after.map((e: Json) => [e.id, e.position]), [[third.id, 0], [second.id, 1]]);
    assert.deepEqual(
      (await getJson(t, alice.cookie, itemPath(p, item.id))).item.checklist,
      { done: 1, total: 2 },
    );
  } finally {
    await t.close();
  }
});

Deno.test("every checklist change is a todo_updated activity entry and a todo.updated event for the item", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { alice, project } = await team(t);
    const p = project.id;
    const item = await createTodo(t, alice.cookie, p, { title: "Launch" });
    const before = (await storedEvents(t, p)).length;
    const entry = await addEntry(t, alice.cookie, p, item.id, "One");
    const other = await addEntry(t, alice.cookie, p, item.id, "Two");
    expectJson(
      await api(t, "PATCH", checklistPath(p, item.id, `/${entry.id}`), {
        cookie: alice.cookie,
        body: { done: true },
      }),
      200,
    );
    expectJson(
      await api(t, "POST", checklistPath(p, item.id, "/reorder"), {
        cookie: alice.cookie,
        body: { entryIds: [other.id, entry.id] },
      }),
      200,
    );
    expectNoContent(
      await api(t, "DELETE", checklistPath(p, item.id, `/${other.id}`), { cookie: alice.cookie }),
    );
    const events = (await storedEvents(t, p)).slice(before);
    assert.equal(events.length, 5);
    for (const e of events) {
      assert.equal(e.name, "todo.updated");
      assert.deepEqual(e.data, {
        projectId: p,
        itemIds: [item.id],
        columnId: item.columnId,
        action: "checklist",
      });
    }
    const activity = (await activityOf(t, alice.cookie, p)).items.slice(0, 5);
    for (const a of activity) {
      assert.deepEqual([a.kind, a.subjectType, a.subjectId, a.summary], [
        "todo_updated",
        "item",
        item.id,
        "Launch",
      ]);
    }
  } finally {
    await t.close();
  }
});

Deno.test("bad checklist input is 400 and changes nothing: blank, too long, missing, wrong types, a wrong reorder list", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { alice, project } = await team(t);
    const p = project.id;
    const item = await createTodo(t, alice.cookie, p);
    const entry = await addEntry(t, alice.cookie, p, item.id, "Keep me");
    const other = await addEntry(t, alice.cookie, p, item.id, "And me");
    const sibling = await createTodo(t, alice.cookie, p, { title: "Sibling" });
    const foreign = await addEntry(t, alice.cookie, p, sibling.id, "Not yours");
    const before = await state(t, p);
    const refuse = async (method: string, path: string, body: unknown, field: string) => {
      const res = await api(t, method, path, { cookie: alice.cookie, body });
      const error = expectError(res, 400, "validation");
      assert.ok(error.details?.[field] !== undefined, `${method} ${JSON.stringify(body)}`);
    };
    for (const text of ["", "   ", "x".repeat(501)]) {
      await refuse("POST", checklistPath(p, item.id), { text }, "text");
      await refuse("PATCH", checklistPath(p, item.id, `/${entry.id}`), { text }, "text");
    }
    await refuse("POST", checklistPath(p, item.id), {}, "text");
    await refuse("POST", checklistPath(p, item.id), { text: 5 }, "text");
    await refuse("PATCH", checklistPath(p, item.id, `/${entry.id}`), { done: "yes" }, "done");
    for (
      const entryIds of [
        [entry.id],
        [entry.id, other.id, other.id],
        [other.id, entry.id, foreign.id],
        [other.id, foreign.id],
        [other.id, 999999],
        [],
      ]
    ) {
      const res = await api(t, "POST", checklistPath(p, item.id, "/reorder"), {
        cookie: alice.cookie,
        body: { entryIds },
      });
      const error = expectError(res, 400, "validation");
      assert.deepEqual(error.details, { entryIds: "not_the_entries" }, `${entryIds}`);
    }
    await refuse("POST", checklistPath(p, item.id, "/reorder"), { entryIds: "1,2" }, "entryIds");
    assert.deepEqual(await state(t, p), before);
    // 500 characters is the limit, not over it.
    await addEntry(t, alice.cookie, p, item.id, "x".repeat(500));
  } finally {
    await t.close();
  }
});

Deno.test("wrong ids are 404 and change nothing: another item's entry, a missing item, another project's item", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { owner, alice, project } = await team(t);
    const p = project.id;
    const item = await createTodo(t, alice.cookie, p);
    const entry = await addEntry(t, alice.cookie, p, item.id, "Mine");
    const sibling = await createTodo(t, alice.cookie, p, { title: "Sibling" });
    const elsewhere = await createProject(t, owner.cookie, "Elsewhere");
    const theirs = await createTodo(t, owner.cookie, elsewhere.id);
    const theirEntry = await addEntry(t, owner.cookie, elsewhere.id, theirs.id, "Theirs");
    const before = await state(t, p);
    const gone = async (method: string, path: string, body?: unknown) =>
      expectError(
        await api(t, method, path, { cookie: alice.cookie, ...(body ? { body } : {}) }),
        404,
        "not_found",
      );
    // The entry under another item of the same project.
    await gone("PATCH", checklistPath(p, sibling.id, `/${entry.id}`), { done: true });
    await gone("DELETE", checklistPath(p, sibling.id, `/${entry.id}`));
    await gone("PATCH", checklistPath(p, item.id, "/999999"), { text: "x" });
    await gone("DELETE", checklistPath(p, item.id, "/999999"));
    // A missing item.
    await gone("GET", checklistPath(p, 999999));
    await gone("POST", checklistPath(p, 999999), { text: "x" });
    await gone("POST", checklistPath(p, 999999, "/reorder"), { entryIds: [] });
    // Another project's item, through this project (alice is no member there) and through its own.
    await gone("GET", checklistPath(p, theirs.id));
    await gone("POST", checklistPath(p, theirs.id), { text: "x" });
    await gone("PATCH", checklistPath(p, theirs.id, `/${theirEntry.id}`), { done: true });
    await gone("GET", checklistPath(elsewhere.id, theirs.id));
    await gone("DELETE", checklistPath(elsewhere.id, theirs.id, `/${theirEntry.id}`));
    // The owner, a member of both, cannot reach one project's item through the other.
    expectError(
      await api(t, "POST", checklistPath(p, theirs.id), {
        cookie: owner.cookie,
        body: { text: "x" },
      }),
      404,
      "not_found",
    );
    assert.deepEqual(await state(t, p), before);
  } finally {
    await t.close();
  }
});

Deno.test("a viewer reads a checklist but cannot change it (403); an outsider gets 404; nothing changes", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { alice, viewer, outsider, project } = await team(t);
    const p = project.id;
    const item = await createTodo(t, alice.cookie, p);
    const entry = await addEntry(t, alice.cookie, p, item.id, "Read only");
    const before = await state(t, p);
    const writes: Array<[string, string, unknown]> = [
      ["POST", checklistPath(p, item.id), { text: "x" }],
      ["PATCH", checklistPath(p, item.id, `/${entry.id}`), { done: true }],
      ["DELETE", checklistPath(p, item.id, `/${entry.id}`), undefined],
      ["POST", checklistPath(p, item.id, "/reorder"), { entryIds: [entry.id] }],
    ];
    for (const [method, path, body] of writes) {
      const options = body === undefined ? {} : { body };
      expectError(
        await api(t, method, path, { cookie: viewer.cookie, ...options }),
        403,
        "forbidden",
      );
      expectError(
        await api(t, method, path, { cookie: outsider.cookie, ...options }),
        404,
        "not_found",
      );
    }
    expectError(
      await api(t, "GET", checklistPath(p, item.id), { cookie: outsider.cookie }),
      404,
      "not_found",
    );
    assert.deepEqual(await entriesOf(t, viewer.cookie, p, item.id), [["Read only", false]]);
    assert.deepEqual(await state(t, p), before);
  } finally {
    await t.close();
  }
});

Deno.test("a checklist holds at most 100 entries: the 101st is 409 conflict {checklist: full}", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { alice, project } = await team(t);
    const p = project.id;
    const item = await createTodo(t, alice.cookie, p);
    for (let i = 1; i <= 100; i++) await addEntry(t, alice.cookie, p, item.id, `Step ${i}`);
    const before = await state(t, p);
    const error = expectError(
      await api(t, "POST", checklistPath(p, item.id), {
        cookie: alice.cookie,
        body: { text: "One too many" },
      }),
      409,
      "conflict",
    );
    assert.deepEqual(error.details, { checklist: "full" });
    assert.deepEqual(await state(t, p), before);
    assert.deepEqual(
      (await getJson(t, alice.cookie, itemPath(p, item.id))).item.checklist,
      { done: 0, total: 100 },
    );
  } finally {
    await t.close();
  }
});

Deno.test("search finds a to-do by its checklist text, and follows every rename and removal", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { alice, project } = await team(t);
    const p = project.id;
    const item = await createTodo(t, alice.cookie, p, { title: "Launch" });
    assert.deepEqual(await found(t, alice.cookie, p, "quokka"), []);
    const entry = await addEntry(t, alice.cookie, p, item.id, "Feed the quokka");
    const japanese = await addEntry(t, alice.cookie, p, item.id, "議事録を共有する");
    assert.deepEqual(await found(t, alice.cookie, p, "quokka"), [["todo", item.id]]);
    assert.deepEqual(await found(t, alice.cookie, p, "議事録"), [["todo", item.id]]);
    // Checking and reordering keep it found; a rename replaces the old text.
    expectJson(
      await api(t, "PATCH", checklistPath(p, item.id, `/${entry.id}`), {
        cookie: alice.cookie,
        body: { done: true },
      }),
      200,
    );
    expectJson(
      await api(t, "POST", checklistPath(p, item.id, "/reorder"), {
        cookie: alice.cookie,
        body: { entryIds: [japanese.id, entry.id] },
      }),
      200,
    );
    assert.deepEqual(await found(t, alice.cookie, p, "quokka"), [["todo", item.id]]);
    expectJson(
      await api(t, "PATCH", checklistPath(p, item.id, `/${entry.id}`), {
        cookie: alice.cookie,
        body: { text: "Feed the wombat" },
      }),
      200,
    );
    assert.deepEqual(await found(t, alice.cookie, p, "quokka"), []);
    assert.deepEqual(await found(t, alice.cookie, p, "wombat"), [["todo", item.id]]);
    // An edit of the item keeps its checklist in the index.
    expectJson(
      await api(t, "PATCH", itemPath(p, item.id), {
        cookie: alice.cookie,
        body: { title: "Launch day" },
      }),
      200,
    );
    assert.deepEqual(await found(t, alice.cookie, p, "wombat"), [["todo", item.id]]);
    expectNoContent(
      await api(t, "DELETE", checklistPath(p, item.id, `/${entry.id}`), { cookie: alice.cookie }),
    );
    assert.deepEqual(await found(t, alice.cookie, p, "wombat"), []);
    assert.deepEqual(await found(t, alice.cookie, p, "議事録"), [["todo", item.id]]);
  } finally {
    await t.close();
  }
});

Deno.test("a to-do deleted and restored from the trash comes back with its checklist, found by it again", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { alice, project } = await team(t);
    const p = project.id;
    const item = await createTodo(t, alice.cookie, p, { title: "Launch" });
    const one = await addEntry(t, alice.cookie, p, item.id, "Book the platypus");
    await addEntry(t, alice.cookie, p, item.id, "Print badges");
    expectJson(
      await api(t, "PATCH", checklistPath(p, item.id, `/${one.id}`), {
        cookie: alice.cookie,
        body: { done: true },
      }),
      200,
    );
    expectNoContent(await api(t, "DELETE", itemPath(p, item.id), { cookie: alice.cookie }));
    expectError(
      await api(t, "GET", checklistPath(p, item.id), { cookie: alice.cookie }),
      404,
      "not_found",
    );
    expectError(
      await api(t, "POST", checklistPath(p, item.id), {
        cookie: alice.cookie,
        body: { text: "x" },
      }),
      404,
      "not_found",
    );
    assert.deepEqual(await found(t, alice.cookie, p, "platypus"), []);

    expectJson(
      await api(t, "POST", `/api/projects/${p}/trash/item/${item.id}/restore`, {
        cookie: alice.cookie,
      }),
      200,
    );
    assert.deepEqual(await entriesOf(t, alice.cookie, p, item.id), [
      ["Book the platypus", true],
      ["Print badges", false],
    ]);
    assert.deepEqual(
      (await getJson(t, alice.cookie, itemPath(p, item.id))).item.checklist,
      { done: 1, total: 2 },
    );
    assert.deepEqual(await found(t, alice.cookie, p, "platypus"), [["todo", item.id]]);
  } finally {
    await t.close();
  }
});

Deno.test("purging a deleted project or a trashed to-do removes their checklist entries", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { owner, alice, project } = await team(t);
    const p = project.id;
    const count = () => t.sql.count("todo_checklist_entries");
    const kept = await createProject(t, owner.cookie, "Kept");
    const keptItem = await createTodo(t, owner.cookie, kept.id);
    await addEntry(t, owner.cookie, kept.id, keptItem.id, "Stays");
    const item = await createTodo(t, alice.cookie, p);
    for (const text of ["One", "Two", "Three"]) await addEntry(t, alice.cookie, p, item.id, text);
    const trashed = await createTodo(t, owner.cookie, kept.id, { title: "Trashed" });
    await addEntry(t, owner.cookie, kept.id, trashed.id, "Goes");
    expectNoContent(
      await api(t, "DELETE", itemPath(kept.id, trashed.id), { cookie: owner.cookie }),
    );
    expectNoContent(await api(t, "DELETE", `/api/projects/${p}`, { cookie: owner.cookie }));
    assert.equal(await count(), 5);
    t.clock.advance(30 * DAY);
    await t.app.services.trash.sweep();
    assert.equal(await count(), 1);
    t.clock.advance(-30 * DAY);
    assert.deepEqual(await entriesOf(t, owner.cookie, kept.id, keptItem.id), [["Stays", false]]);
  } finally {
    await t.close();
  }
});
