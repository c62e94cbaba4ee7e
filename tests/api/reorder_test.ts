/** POST /todos/items/reorder exactly as the contract states it, and under concurrency. */
import assert from "node:assert/strict";
import { type TestApp, testApp, testServer } from "../helpers/app.ts";
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
  nextNamedEvent,
  type OpenedSse,
  openSse,
  storedEvents,
  team,
  todoColumns,
} from "../helpers/api.ts";

const reorderPath = (projectId: number) => `/api/projects/${projectId}/todos/items/reorder`;

/** One raw row of `todo_items`. */
interface RawItem {
  id: number;
  project_id: number;
  column_id: number;
  order_index: number;
  updated_at: string;
  deleted_at: string | null;
}

/** Every to-do row of the database (all projects, deleted ones too), by id. */
function allRows(t: TestApp): Promise<RawItem[]> {
  return t.sql.all<RawItem>(
    "SELECT id, project_id, column_id, order_index, updated_at, deleted_at FROM todo_items ORDER BY id",
  );
}

/** The live item ids of a column by order_index, read from the database. */
async function dbColumn(t: TestApp, columnId: number): Promise<Array<[number, number]>> {
  return (await t.sql.all<{ id: number; order_index: number }>(
    `SELECT id, order_index FROM todo_items WHERE column_id = ? AND deleted_at IS NULL
     ORDER BY order_index, id`,
    [columnId],
  )).map((r) => [r.id, r.order_index]);
}

/** Asserts a column holds exactly `ids` in order at positions 0..n-1, in the API and the db. */
async function assertColumn(
  t: TestApp,
  cookie: string,
  projectId: number,
  columnId: number,
  ids: number[],
): Promise<void> {
  const expected = ids.map((id, i) => [id, i]);
  const { items } = await getJson(
    t,
    cookie,
    `/api/projects/${projectId}/todos/items?columnId=${columnId}`,
  );
  assert.deepEqual(items.map((i: Json) => [i.id, i.orderIndex]), expected);
  assert.deepEqual(await dbColumn(t, columnId), expected);
}

/** The project's `todo_updated` activity entries. */
async function todoUpdates(t: TestApp, cookie: string, projectId: number): Promise<Json[]> {
  return (await activityOf(t, cookie, projectId)).items.filter((a: Json) =>
    a.kind === "todo_updated"
  );
}

async function todoEvents(t: TestApp, projectId: number): Promise<Json[]> {
  return (await storedEvents(t, projectId)).filter((e) => e.name === "todo.updated").map((e) =>
    e.data
  );
}

/** A project with a "todo" column of 5 items and a "doing" column of 3. */
async function board(t: TestApp) {
  const cast = await team(t);
  const { alice, project } = cast;
  const [todo, doing, done] = await todoColumns(t, alice.cookie, project.id);
  const a: number[] = [];
  for (const title of ["a", "b", "c", "d", "e"]) {
    a.push((await createTodo(t, alice.cookie, project.id, { title })).id);
  }
  const x: number[] = [];
  for (const title of ["x", "y", "z"]) {
    x.push((await createTodo(t, alice.cookie, project.id, { title, columnId: doing.id })).id);
  }
  return { ...cast, todo, doing, done, todoIds: a, doingIds: x };
}

Deno.test("Reorder: listed items take 0..k-1 in order; the column's others follow in their previous order", async () => {
  const t = await testApp();
  try {
    const { alice, bob, project, todo, todoIds } = await board(t);
    const [a, b, c, d, e] = todoIds as [number, number, number, number, number];
    const activityBefore = (await todoUpdates(t, alice.cookie, project.id)).length;
    const eventsBefore = (await todoEvents(t, project.id)).length;

    t.clock.advance(1000);
    const res = await api(t, "POST", reorderPath(project.id), {
      cookie: bob.cookie,
      body: { projectId: project.id, columnId: todo.id, itemIds: [d, b] },
    });
    const body = expectJson(res, 200);
    assert.deepEqual(Object.keys(body), ["items"]);
    assert.deepEqual(
      body.items.map((i: Json) => [i.id, i.orderIndex, i.columnId]),
      [[d, 0, todo.id], [b, 1, todo.id]],
    );
    await assertColumn(t, alice.cookie, project.id, todo.id, [d, b, a, c, e]);

    // One activity entry and one event for the whole call.
    const updates = await todoUpdates(t, alice.cookie, project.id);
    assert.equal(updates.length, activityBefore + 1);
    assert.equal(updates[0].actorId, bob.user.id);
    assert.equal(updates[0].subjectType, "item");
    // Its summary is the first moved item's title, like every to-do entry (no English text
    // that pages would show untranslated).
    assert.equal(updates[0].subjectId, d);
    const moved = await api(t, "GET", `/api/projects/${project.id}/todos/items/${d}`, {
      cookie: alice.cookie,
    });
    assert.equal(updates[0].summary, moved.json.item.title);
    const events = await todoEvents(t, project.id);
    assert.equal(events.length, eventsBefore + 1);
    assert.deepEqual(events.at(-1).projectId, project.id);
    assert.deepEqual(events.at(-1).itemIds, [d, b]);
    assert.equal(events.at(-1).columnId, todo.id);
    assert.equal(typeof events.at(-1).action, "string");

    // A full permutation.
    expectJson(
      await api(t, "POST", reorderPath(project.id), {
        cookie: alice.cookie,
        body: { projectId: project.id, columnId: todo.id, itemIds: [e, d, c, b, a] },
      }),
      200,
    );
    await assertColumn(t, alice.cookie, project.id, todo.id, [e, d, c, b, a]);
    // The last item alone moves to the top.
    expectJson(
      await api(t, "POST", reorderPath(project.id), {
        cookie: alice.cookie,
        body: { projectId: project.id, columnId: todo.id, itemIds: [a] },
      }),
      200,
    );
    await assertColumn(t, alice.cookie, project.id, todo.id, [a, e, d, c, b]);
    assert.equal((await todoUpdates(t, alice.cookie, project.id)).length, activityBefore + 3);
    assert.equal((await todoEvents(t, project.id)).length, eventsBefore + 3);
  } finally {
    await t.close();
  }
});

Deno.test("Reorder: an item from another column moves in; its old column is renumbered", async () => {
  const t = await testApp();
  try {
    const { alice, project, todo, doing, done, todoIds, doingIds } = await board(t);
    const [a, b, c, d, e] = todoIds as [number, number, number, number, number];
    const [x, y, z] = doingIds as [number, number, number];
    const eventsBefore = (await todoEvents(t, project.id)).length;

    const res = await api(t, "POST", reorderPath(project.id), {
      cookie: alice.cookie,
      body: { projectId: project.id, columnId: todo.id, itemIds: [y, c] },
    });
    const { items } = expectJson(res, 200);
    assert.deepEqual(
      items.map((i: Json) => [i.id, i.orderIndex, i.columnId]),
      [[y, 0, todo.id], [c, 1, todo.id]],
    );
    await assertColumn(t, alice.cookie, project.id, todo.id, [y, c, a, b, d, e]);
    await assertColumn(t, alice.cookie, project.id, doing.id, [x, z]);
    assert.equal((await todoEvents(t, project.id)).length, eventsBefore + 1);

    // Items from two other columns into an empty one.
    expectJson(
      await api(t, "POST", reorderPath(project.id), {
        cookie: alice.cookie,
        body: { projectId: project.id, columnId: done.id, itemIds: [z, a, y] },
      }),
      200,
    );
    await assertColumn(t, alice.cookie, project.id, done.id, [z, a, y]);
    await assertColumn(t, alice.cookie, project.id, todo.id, [c, b, d, e]);
    await assertColumn(t, alice.cookie, project.id, doing.id, [x]);
    assert.equal((await todoEvents(t, project.id)).length, eventsBefore + 2);
    assert.equal(
      (await getJson(t, alice.cookie, `/api/projects/${project.id}/todos/items`)).items
        .length,
      8,
    );
  } finally {
    await t.close();
  }
});

Deno.test("Reorder: an empty itemIds is 200 {items: []} and changes nothing, no activity, no event", async () => {
  const t = await testApp();
  try {
    const { alice, project, todo, todoIds } = await board(t);
    const rows = await allRows(t);
    const activity = (await activityOf(t, alice.cookie, project.id)).total;
    const events = (await storedEvents(t, project.id)).length;
    t.clock.advance(1000);
    const res = await api(t, "POST", reorderPath(project.id), {
      cookie: alice.cookie,
      body: { projectId: project.id, columnId: todo.id, itemIds: [] },
    });
    assert.deepEqual(expectJson(res, 200), { items: [] });
    assert.deepEqual(await allRows(t), rows);
    assert.equal((await activityOf(t, alice.cookie, project.id)).total, activity);
    assert.equal((await storedEvents(t, project.id)).length, events);
    await assertColumn(t, alice.cookie, project.id, todo.id, todoIds);
  } finally {
    await t.close();
  }
});

Deno.test("Reorder: projectId in the body other than the path's is 400 and changes nothing", async () => {
  const t = await testApp();
  try {
    const { alice, owner, project, todo, todoIds } = await board(t);
    const other = await createProject(t, owner.cookie, "Other");
    const rows = await allRows(t);
    const activity = (await activityOf(t, alice.cookie, project.id)).total;
    const events = (await storedEvents(t, project.id)).length;
    t.clock.advance(1000);
    for (const projectId of [other.id, project.id + 1000, 0, String(project.id)]) {
      const res = await api(t, "POST", reorderPath(project.id), {
        cookie: owner.cookie,
        body: { projectId, columnId: todo.id, itemIds: [...todoIds].reverse() },
      });
      expectError(res, 400, "validation");
    }
    // Even an empty list is checked.
    const empty = await api(t, "POST", reorderPath(project.id), {
      cookie: owner.cookie,
      body: { projectId: other.id, columnId: todo.id, itemIds: [] },
    });
    expectError(empty, 400, "validation");
    // Also when the path names the other project and the body this one.
    const swapped = await api(t, "POST", reorderPath(other.id), {
      cookie: owner.cookie,
      body: { projectId: project.id, columnId: todo.id, itemIds: [todoIds[1]] },
    });
    expectError(swapped, 400, "validation");
    assert.deepEqual(await allRows(t), rows, "order_index, column and updated_at unchanged");
    assert.equal((await activityOf(t, alice.cookie, project.id)).total, activity);
    assert.equal((await storedEvents(t, project.id)).length, events);
    assert.equal((await storedEvents(t, other.id)).length, 0);
  } finally {
    await t.close();
  }
});

Deno.test("Reorder: an id of another project's item (or a missing one) is 400 and nothing changes", async () => {
  const t = await testApp();
  try {
    const { alice, owner, project, todo, doing, todoIds, doingIds } = await board(t);
    const other = await createProject(t, owner.cookie, "Other");
    const foreignA = await createTodo(t, owner.cookie, other.id, { title: "foreign a" });
    const foreignB = await createTodo(t, owner.cookie, other.id, { title: "foreign b" });
    const gone = await createTodo(t, alice.cookie, project.id, { title: "gone" });
    expectNoContent(
      await api(t, "DELETE", `/api/projects/${project.id}/todos/items/${gone.id}`, {
        cookie: alice.cookie,
      }),
    );
    const rows = await allRows(t);
    const activity = (await activityOf(t, alice.cookie, project.id)).total;
    const otherActivity = (await activityOf(t, owner.cookie, other.id)).total;
    const events = (await storedEvents(t, project.id)).length;
    const otherEvents = (await storedEvents(t, other.id)).length;
    t.clock.advance(1000);

    const lists = [
      [foreignB.id, ...todoIds],
      [todoIds[4]!, doingIds[0]!, foreignA.id],
      [foreignA.id],
      [todoIds[0]!, 999_999],
      [gone.id, todoIds[1]!],
    ];
    for (const itemIds of lists) {
      const res = await api(t, "POST", reorderPath(project.id), {
        cookie: alice.cookie,
        body: { projectId: project.id, columnId: todo.id, itemIds },
      });
      const error = expectError(res, 400, "validation");
      assert.ok(error.details?.itemIds !== undefined || error.details, JSON.stringify(error));
    }
    assert.deepEqual(
      await allRows(t),
      rows,
      "order_index, column and updated_at unchanged everywhere",
    );
    await assertColumn(t, alice.cookie, project.id, todo.id, todoIds);
    await assertColumn(t, alice.cookie, project.id, doing.id, doingIds);
    assert.equal(
      (await getJson(t, owner.cookie, `/api/projects/${other.id}/todos/items`)).items
        .length,
      2,
    );
    assert.equal((await activityOf(t, alice.cookie, project.id)).total, activity);
    assert.equal((await activityOf(t, owner.cookie, other.id)).total, otherActivity);
    assert.equal((await storedEvents(t, project.id)).length, events);
    assert.equal((await storedEvents(t, other.id)).length, otherEvents);
  } finally {
    await t.close();
  }
});

Deno.test("Reorder: bad bodies, foreign columns, viewers and outsiders are refused without changes", async () => {
  const t = await testApp();
  try {
    const { alice, owner, viewer, outsider, project, todo, todoIds } = await board(t);
    const other = await createProject(t, owner.cookie, "Other");
    const [foreignColumn] = await todoColumns(t, owner.cookie, other.id);
    const rows = await allRows(t);
    const events = (await storedEvents(t, project.id)).length;
    const valid = { projectId: project.id, columnId: todo.id, itemIds: [todoIds[2]] };

    for (
      const body of [
        { ...valid, itemIds: [todoIds[2], todoIds[2]] },
        { ...valid, itemIds: "1,2" },
        { ...valid, itemIds: [0] },
        { ...valid, itemIds: [-1] },
        { projectId: project.id, columnId: todo.id },
        { projectId: project.id, itemIds: [todoIds[0]] },
        { columnId: todo.id, itemIds: [todoIds[0]] },
      ]
    ) {
      const res = await api(t, "POST", reorderPath(project.id), { cookie: alice.cookie, body });
      expectError(res, 400, "validation");
    }
    const foreign = await api(t, "POST", reorderPath(project.id), {
      cookie: alice.cookie,
      body: { ...valid, columnId: foreignColumn.id },
    });
    assert.ok([400, 404].includes(foreign.status), `${foreign.status} ${foreign.text}`);
    expectError(
      await api(t, "POST", reorderPath(project.id), { cookie: viewer.cookie, body: valid }),
      403,
      "forbidden",
    );
    expectError(
      await api(t, "POST", reorderPath(project.id), { cookie: outsider.cookie, body: valid }),
      404,
      "not_found",
    );
    expectError(
      await api(t, "POST", reorderPath(project.id), { body: valid }),
      401,
      "unauthenticated",
    );
    assert.deepEqual(await allRows(t), rows);
    assert.equal((await storedEvents(t, project.id)).length, events);
  } finally {
    await t.close();
  }
});

/** A random permutation of `list` (Fisher–Yates). */
function shuffled<T>(list: T[]): T[] {
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

Deno.test("Reorder: 20 concurrent reorders of one column leave positions exactly 0..n-1", async () => {
  const t = await testServer();
  const streams: OpenedSse[] = [];
  try {
    const { alice, bob, owner, project, todo, doing, todoIds, doingIds } = await board(t);
    const ids = [...todoIds];
    for (let i = 0; i < 7; i++) {
      ids.push((await createTodo(t, alice.cookie, project.id, { title: `more ${i}` })).id);
    }
    const sse = await openSse(t.baseUrl, owner.cookie, project.id);
    assert.equal(sse.res.status, 200, sse.text);
    streams.push(sse);
    const activityBefore = (await activityOf(t, alice.cookie, project.id)).total;
    const eventsBefore = (await storedEvents(t, project.id)).length;

    for (let round = 0; round < 3; round++) {
      const permutations = Array.from({ length: 20 }, () => shuffled(ids));
      const responses = await Promise.all(permutations.map(async (itemIds, i) => {
        const res = await fetch(`${t.baseUrl}${reorderPath(project.id)}`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            cookie: [alice, bob, owner][i % 3]!.cookie,
          },
          body: JSON.stringify({ projectId: project.id, columnId: todo.id, itemIds }),
        });
        return { status: res.status, body: await res.json() };
      }));
      for (const [i, res] of responses.entries()) {
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.deepEqual(res.body.items.map((it: Json) => it.id), permutations[i]);
      }
      const final = await dbColumn(t, todo.id);
      assert.deepEqual(final.map(([, index]) => index), ids.map((_, i) => i), "0..n-1");
      assert.equal(new Set(final.map(([id]) => id)).size, ids.length, "no duplicates");
      // The final order is exactly one of the orders requested (the last one applied).
      const order = JSON.stringify(final.map(([id]) => id));
      assert.ok(permutations.some((p) => JSON.stringify(p) === order), order);
    }

    // Random subsets, some with items pulled from another column, also keep both dense.
    const inDoing = [...doingIds];
    for (let i = 0; i < 5; i++) {
      inDoing.push(
        (await createTodo(t, alice.cookie, project.id, { title: `d${i}`, columnId: doing.id })).id,
      );
    }
    const all = [...ids, ...inDoing];
    const mixed = await Promise.all(Array.from({ length: 20 }, async (_, i) => {
      const itemIds = shuffled(all).slice(0, 1 + (i % 8));
      const columnId = i % 2 === 0 ? todo.id : doing.id;
      const res = await fetch(`${t.baseUrl}${reorderPath(project.id)}`, {
        method: "POST",
        headers: { "content-type": "application/json", cookie: alice.cookie },
        body: JSON.stringify({ projectId: project.id, columnId, itemIds }),
      });
      await res.body?.cancel();
      return res.status;
    }));
    assert.deepEqual(mixed, mixed.map(() => 200));
    const left = await dbColumn(t, todo.id);
    const right = await dbColumn(t, doing.id);
    assert.deepEqual(left.map(([, i]) => i), left.map((_, i) => i));
    assert.deepEqual(right.map(([, i]) => i), right.map((_, i) => i));
    assert.deepEqual(
      [...left, ...right].map(([id]) => id).sort((a, b) => a - b),
      [...all].sort((a, b) => a - b),
      "every item is in exactly one of the two columns",
    );

    // One activity entry and one event per call, and the stream saw each event.
    const calls = 3 * 20 + 20;
    const creates = 5; // the to-dos created for the second part
    assert.equal(
      (await activityOf(t, alice.cookie, project.id)).total,
      activityBefore + calls + creates,
    );
    const newEvents = (await storedEvents(t, project.id)).slice(eventsBefore);
    assert.equal(newEvents.length, calls + creates);
    assert.equal(newEvents.filter((e) => e.data.action === "reordered").length, calls);
    let last = 0;
    for (let i = 0; i < calls + creates; i++) {
      const frame = await nextNamedEvent(sse.reader!);
      // The creates are todo.created, every reorder a todo.updated.
      assert.ok(frame.event === "todo.updated" || frame.event === "todo.created", `${frame.event}`);
      const id = Number(frame.id);
      assert.ok(Number.isInteger(id) && id > last, `ids increase: ${id} after ${last}`);
      last = id;
    }
  } finally {
    for (const s of streams) await s.close();
    await t.close();
  }
});
