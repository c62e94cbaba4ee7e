/** To-dos: columns, items, PATCH semantics, toggle, move, delete, and their effects. */
import assert from "node:assert/strict";
import { type TestApp, testApp, testServer } from "../helpers/app.ts";
import {
  activityOf,
  api,
  type ApiResponse,
  attachIds,
  createProject,
  createTodo,
  expectError,
  expectJson,
  expectNoContent,
  getJson,
  type Json,
  notificationsOf,
  postFile,
  storedEvents,
  team,
  todoColumns,
  uploadFile,
} from "../helpers/api.ts";

const ITEM_KEYS = [
  "assigneeId",
  "attachments",
  "checklist",
  "columnId",
  "completed",
  "completedAt",
  "createdAt",
  "creatorId",
  "description",
  "dueDate",
  "id",
  "milestoneId",
  "orderIndex",
  "priority",
  "projectId",
  "startDate",
  "tags",
  "title",
  "updatedAt",
];
const COLUMN_KEYS = ["createdAt", "id", "key", "name", "position", "projectId", "updatedAt"];
const NOW = "2026-11-22T08:30:00.000Z";

const todos = (projectId: number, rest = "") => `/api/projects/${projectId}/todos${rest}`;
const itemPath = (projectId: number, itemId: number, rest = "") =>
  todos(projectId, `/items/${itemId}${rest}`);

/** An item as GET shows it (expects 200 `{item, attachments, checklist}`). */
async function getItem(t: TestApp, cookie: string, projectId: number, id: number): Promise<Json> {
  const body = await getJson(t, cookie, itemPath(projectId, id));
  assert.deepEqual(Object.keys(body).sort(), ["attachments", "checklist", "item"]);
  assert.deepEqual(body.attachments, body.item.attachments);
  return body.item;
}

/** The ids of a column's items in list order, with their orderIndex. */
async function columnOrder(
  t: TestApp,
  cookie: string,
  projectId: number,
  columnId: number,
): Promise<Array<[number, number]>> {
  const { items } = await getJson(t, cookie, todos(projectId, `/items?columnId=${columnId}`));
  return items.map((i: Json) => [i.id, i.orderIndex]);
}

/** Asserts the column holds exactly `ids` in order at positions 0..n-1. */
async function assertColumn(
  t: TestApp,
  cookie: string,
  projectId: number,
  columnId: number,
  ids: number[],
): Promise<void> {
  assert.deepEqual(
    await columnOrder(t, cookie, projectId, columnId),
    ids.map((id, i) => [id, i]),
  );
}

/** The unread notifications of `kind` as `cookie`. */
async function unread(t: TestApp, cookie: string, kind: string): Promise<Json[]> {
  return (await notificationsOf(t, cookie)).items.filter((n: Json) => n.kind === kind);
}

/** The project's activity entries of `kind`. */
async function activityKinds(
  t: TestApp,
  cookie: string,
  projectId: number,
  kind: string,
): Promise<Json[]> {
  return (await activityOf(t, cookie, projectId)).items.filter((a: Json) => a.kind === kind);
}

/** The stored `todo.updated` events of a project. */
async function todoEvents(t: TestApp, projectId: number): Promise<Json[]> {
  return (await storedEvents(t, projectId))
    .filter((e) => e.name.startsWith("todo.") && !e.name.startsWith("todo.column."))
    .map((e) => ({ name: e.name, ...e.data }));
}

/** Inserts a milestone row directly (the milestone routes are not under test here). */
async function insertMilestone(
  t: TestApp,
  projectId: number,
  creatorId: number,
  title: string,
): Promise<number> {
  return (await t.sql.returning<{ id: number }>(
    `INSERT INTO milestones (project_id, creator_id, title, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?) RETURNING id`,
    [projectId, creatorId, title, NOW, NOW],
  )).id;
}

function columnCount(t: TestApp, projectId: number): Promise<number> {
  return t.sql.count("todo_columns WHERE project_id = ?", [projectId]);
}

/**
 * Why `res` is not a 400 `validation` error whose details name one of `fields` ("a|b"),
 * or null when it is.
 */
function validationProblem(res: ApiResponse, fields: string): string | null {
  if (res.status !== 400 || res.json?.error?.code !== "validation") {
    return `got ${res.status} ${res.text}`;
  }
  const names = fields.split("|");
  const keys = Object.keys(res.json.error.details ?? {});
  return keys.some((k) => names.some((n) => k === n || k.startsWith(`${n}.`)))
    ? null
    : `details ${JSON.stringify(res.json.error.details)} do not name ${fields}`;
}

Deno.test("GET /todos/columns creates To Do, In Progress and Done on first use, once", async () => {
  const t = await testApp();
  try {
    const { alice, viewer, project } = await team(t);
    assert.equal(await columnCount(t, project.id), 0, "no columns before first use");

    const res = await api(t, "GET", todos(project.id, "/columns"), { cookie: viewer.cookie });
    const body = expectJson(res, 200);
    assert.deepEqual(Object.keys(body), ["items"]);
    const columns = body.items;
    assert.deepEqual(
      columns.map((c: Json) => [c.name, c.key, c.position]),
      [["To Do", "todo", 0], ["In Progress", "in_progress", 1], ["Done", "done", 2]],
    );
    for (const c of columns) {
      assert.deepEqual(Object.keys(c).sort(), COLUMN_KEYS);
      assert.equal(c.projectId, project.id);
    }

    const again = await Promise.all(
      Array.from({ length: 8 }, () => todoColumns(t, alice.cookie, project.id)),
    );
    for (const list of again) assert.deepEqual(list, columns);
    assert.equal(await columnCount(t, project.id), 3);
  } finally {
    await t.close();
  }
});

Deno.test("first uses of a board at once (lists, a new item, a new column) make its columns once", async () => {
  const t = await testApp();
  try {
    const { alice, project } = await team(t);
    const answers = await Promise.all([
      ...Array.from({ length: 4 }, () =>
        api(t, "GET", todos(project.id, "/columns"), {
          cookie: alice.cookie,
        })),
      api(t, "POST", todos(project.id, "/items"), { cookie: alice.cookie, body: { title: "A" } }),
      api(t, "POST", todos(project.id, "/items"), { cookie: alice.cookie, body: { title: "B" } }),
      api(t, "POST", todos(project.id, "/columns"), { cookie: alice.cookie, body: { name: "X" } }),
    ]);
    assert.deepEqual(answers.map((r) => r.status), [200, 200, 200, 200, 201, 201, 201]);
    const columns = await todoColumns(t, alice.cookie, project.id);
    assert.deepEqual(
      columns.map((c: Json) => [c.key, c.position]),
      [["todo", 0], ["in_progress", 1], ["done", 2], [null, 3]],
    );
    const items = expectJson(
      await api(t, "GET", todos(project.id, "/items"), {
        cookie: alice.cookie,
      }),
      200,
    ).items;
    assert.deepEqual(items.map((i: Json) => i.orderIndex).sort(), [0, 1], "numbered once each");
  } finally {
    await t.close();
  }
});

Deno.test("POST /todos/columns appends a custom column with key null", async () => {
  const t = await testApp();
  try {
    const { alice, viewer, outsider, project } = await team(t);
    // Adding first still creates the standard three before it.
    const res = await api(t, "POST", todos(project.id, "/columns"), {
      cookie: alice.cookie,
      body: { name: "  Review " },
    });
    const { column } = expectJson(res, 201);
    assert.deepEqual(Object.keys(column).sort(), COLUMN_KEYS);
    assert.equal(column.name, "Review");
    assert.equal(column.key, null);
    assert.equal(column.position, 3);

    const second = expectJson(
      await api(t, "POST", todos(project.id, "/columns"), {
        cookie: alice.cookie,
        body: { name: "Blocked" },
      }),
      201,
    ).column;
    assert.equal(second.position, 4);
    assert.deepEqual(
      (await todoColumns(t, alice.cookie, project.id)).map((
        c: Json,
      ) => [c.name, c.key, c.position]),
      [
        ["To Do", "todo", 0],
        ["In Progress", "in_progress", 1],
        ["Done", "done", 2],
        ["Review", null, 3],
        ["Blocked", null, 4],
      ],
    );

    for (const body of [{ name: "  " }, {}, { name: 3 }]) {
      const bad = await api(t, "POST", todos(project.id, "/columns"), {
        cookie: alice.cookie,
        body,
      });
      assert.ok(expectError(bad, 400, "validation").details?.name, JSON.stringify(body));
    }
    expectError(
      await api(t, "POST", todos(project.id, "/columns"), {
        cookie: viewer.cookie,
        body: { name: "V" },
      }),
      403,
      "forbidden",
    );
    expectError(
      await api(t, "POST", todos(project.id, "/columns"), {
        cookie: outsider.cookie,
        body: { name: "O" },
      }),
      404,
      "not_found",
    );
    assert.equal((await todoColumns(t, alice.cookie, project.id)).length, 5);
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /todos/columns/:id renames; the key survives", async () => {
  const t = await testApp();
  try {
    const { alice, viewer, owner, project } = await team(t);
    const [todo] = await todoColumns(t, alice.cookie, project.id);
    t.clock.advance(5000);
    const res = await api(t, "PATCH", todos(project.id, `/columns/${todo.id}`), {
      cookie: alice.cookie,
      body: { name: "Backlog" },
    });
    const { column } = expectJson(res, 200);
    assert.deepEqual(column, {
      ...todo,
      name: "Backlog",
      updatedAt: "2026-11-22T08:30:05.000Z",
    });
    assert.equal((await todoColumns(t, alice.cookie, project.id))[0].key, "todo");
    assert.equal((await todoColumns(t, alice.cookie, project.id))[0].name, "Backlog");

    const blank = await api(t, "PATCH", todos(project.id, `/columns/${todo.id}`), {
      cookie: alice.cookie,
      body: { name: "" },
    });
    assert.ok(expectError(blank, 400, "validation").details?.name);
    expectError(
      await api(t, "PATCH", todos(project.id, `/columns/${todo.id}`), {
        cookie: viewer.cookie,
        body: { name: "Viewer" },
      }),
      403,
      "forbidden",
    );
    const other = await createProject(t, owner.cookie, "Other");
    const [foreign] = await todoColumns(t, owner.cookie, other.id);
    expectError(
      await api(t, "PATCH", todos(project.id, `/columns/${foreign.id}`), {
        cookie: owner.cookie,
        body: { name: "Stolen" },
      }),
      404,
      "not_found",
    );
    assert.equal((await todoColumns(t, owner.cookie, other.id))[0].name, "To Do");
    assert.equal((await todoColumns(t, alice.cookie, project.id))[0].name, "Backlog");
  } finally {
    await t.close();
  }
});

Deno.test("DELETE /todos/columns/:id: 409 while it holds items, 204 when empty; positions close up", async () => {
  const t = await testApp();
  try {
    const { alice, viewer, project } = await team(t);
    const [todo, doing, done] = await todoColumns(t, alice.cookie, project.id);
    const item = await createTodo(t, alice.cookie, project.id, { columnId: doing.id });

    const busy = await api(t, "DELETE", todos(project.id, `/columns/${doing.id}`), {
      cookie: alice.cookie,
    });
    expectError(busy, 409, "conflict");
    assert.equal((await todoColumns(t, alice.cookie, project.id)).length, 3);
    assert.equal((await getItem(t, alice.cookie, project.id, item.id)).columnId, doing.id);

    expectError(
      await api(t, "DELETE", todos(project.id, `/columns/${done.id}`), { cookie: viewer.cookie }),
      403,
      "forbidden",
    );

    // Once its only item is deleted, the column is empty.
    expectNoContent(
      await api(t, "DELETE", itemPath(project.id, item.id), { cookie: alice.cookie }),
    );
    expectNoContent(
      await api(t, "DELETE", todos(project.id, `/columns/${doing.id}`), { cookie: alice.cookie }),
    );
    const left = await todoColumns(t, alice.cookie, project.id);
    assert.deepEqual(
      left.map((c: Json) => [c.id, c.position]),
      [[todo.id, 0], [done.id, 1]],
    );
    expectError(
      await api(t, "DELETE", todos(project.id, `/columns/${doing.id}`), { cookie: alice.cookie }),
      404,
      "not_found",
    );
    // The standard columns are not created again.
    assert.equal((await todoColumns(t, alice.cookie, project.id)).length, 2);
  } finally {
    await t.close();
  }
});

Deno.test("POST /todos/items: defaults, first column by default, placed last in its column", async () => {
  const t = await testApp();
  try {
    const { alice, bob, project } = await team(t);
    const res = await api(t, "POST", todos(project.id, "/items"), {
      cookie: alice.cookie,
      body: { title: "  First  " },
    });
    const body = expectJson(res, 201);
    assert.deepEqual(Object.keys(body).sort(), ["attachments", "item"]);
    const first = body.item;
    assert.deepEqual(Object.keys(first).sort(), ITEM_KEYS);
    const [todo, doing] = await todoColumns(t, alice.cookie, project.id);
    assert.deepEqual(first, {
      id: first.id,
      projectId: project.id,
      columnId: todo.id,
      creatorId: alice.user.id,
      title: "First",
      description: null,
      assigneeId: null,
      priority: "normal",
      startDate: null,
      dueDate: null,
      tags: [],
      orderIndex: 0,
      completed: false,
      completedAt: null,
      milestoneId: null,
      createdAt: NOW,
      updatedAt: NOW,
      attachments: [],
      checklist: { done: 0, total: 0 },
    });
    assert.deepEqual(body.attachments, []);

    const second = await createTodo(t, bob.cookie, project.id, { title: "Second" });
    assert.equal(second.columnId, todo.id);
    assert.equal(second.orderIndex, 1);
    const elsewhere = await createTodo(t, bob.cookie, project.id, { columnId: doing.id });
    assert.equal(elsewhere.orderIndex, 0);
    const third = await createTodo(t, bob.cookie, project.id, { columnId: todo.id });
    assert.equal(third.orderIndex, 2);

    const full = await createTodo(t, alice.cookie, project.id, {
      title: "Full",
      description: "All the *fields*",
      assigneeId: bob.user.id,
      priority: "high",
      startDate: "2026-11-01",
      dueDate: "2026-11-30",
      tags: [" ops ", "ops", "design"],
      columnId: doing.id,
    });
    assert.equal(full.description, "All the *fields*");
    assert.equal(full.assigneeId, bob.user.id);
    assert.equal(full.priority, "high");
    assert.equal(full.startDate, "2026-11-01");
    assert.equal(full.dueDate, "2026-11-30");
    assert.deepEqual(full.tags, ["ops", "design"]);
    assert.equal(full.orderIndex, 1);
    assert.deepEqual(await getItem(t, alice.cookie, project.id, full.id), full);

    await assertColumn(t, alice.cookie, project.id, todo.id, [first.id, second.id, third.id]);
    await assertColumn(t, alice.cookie, project.id, doing.id, [elsewhere.id, full.id]);
    // The whole list: by column position, then order.
    const { items } = await getJson(t, alice.cookie, todos(project.id, "/items"));
    assert.deepEqual(
      items.map((i: Json) => i.id),
      [first.id, second.id, third.id, elsewhere.id, full.id],
    );
  } finally {
    await t.close();
  }
});

Deno.test("POST /todos/items: invalid priority, dates, span, assignee, milestone are 400; nothing stored", async () => {
  const t = await testApp();
  try {
    const { alice, owner, outsider, project } = await team(t);
    const other = await createProject(t, owner.cookie, "Other");
    const foreignMilestone = await insertMilestone(t, other.id, owner.user.id, "Elsewhere");
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ priority: "urgent" }, "priority"],
      [{ priority: "HIGH" }, "priority"],
      [{ dueDate: "2026-02-30" }, "dueDate"],
      [{ dueDate: "2026-13-01" }, "dueDate"],
      [{ startDate: "2026-00-10" }, "startDate"],
      [{ startDate: "tomorrow" }, "startDate"],
      [{ startDate: "2026-1-5" }, "startDate"],
      [{ dueDate: "2026-11-22T00:00:00Z" }, "dueDate"],
      [{ startDate: "2026-12-02", dueDate: "2026-12-01" }, "dueDate"],
      [{ assigneeId: outsider.user.id }, "assigneeId"],
      [{ assigneeId: 999999 }, "assigneeId"],
      [{ milestoneId: foreignMilestone }, "milestoneId"],
      [{ milestoneId: 999999 }, "milestoneId"],
      [{ title: "   " }, "title"],
      [{ title: undefined }, "title"],
      [{ tags: "ops" }, "tags"],
    ];
    const wrong: string[] = [];
    for (const [fields, field] of cases) {
      const res = await api(t, "POST", todos(project.id, "/items"), {
        cookie: alice.cookie,
        body: { title: "Bad", ...fields },
      });
      const problem = validationProblem(res, field);
      if (problem) wrong.push(`${JSON.stringify(fields)}: ${problem}`);
    }
    // Start and due on the same day is fine.
    const sameDay = await createTodo(t, alice.cookie, project.id, {
      startDate: "2026-12-01",
      dueDate: "2026-12-01",
    });
    const { items } = await getJson(t, alice.cookie, todos(project.id, "/items"));
    assert.deepEqual(items.map((i: Json) => i.id), [sameDay.id]);
    assert.equal((await todoEvents(t, project.id)).length, 1);
    assert.deepEqual(wrong, [], "each bad input is a 400 validation naming its field");
  } finally {
    await t.close();
  }
});

Deno.test("POST /todos/items into another project's column is refused and stores nothing", async () => {
  const t = await testApp();
  try {
    const { alice, owner, project } = await team(t);
    const other = await createProject(t, owner.cookie, "Other");
    const [foreign] = await todoColumns(t, owner.cookie, other.id);
    const res = await api(t, "POST", todos(project.id, "/items"), {
      cookie: alice.cookie,
      body: { title: "Sneaky", columnId: foreign.id },
    });
    assert.ok([400, 404].includes(res.status), `${res.status} ${res.text}`);
    assert.deepEqual((await getJson(t, alice.cookie, todos(project.id, "/items"))).items, []);
    assert.deepEqual((await getJson(t, owner.cookie, todos(other.id, "/items"))).items, []);
  } finally {
    await t.close();
  }
});

Deno.test("GET /todos/items/:id → {item, attachments, checklist}; 404 for missing, foreign or outsiders", async () => {
  const t = await testApp();
  try {
    const { alice, viewer, outsider, owner, project } = await team(t);
    const item = await createTodo(t, alice.cookie, project.id);
    const got = expectJson(
      await api(t, "GET", itemPath(project.id, item.id), { cookie: viewer.cookie }),
      200,
    );
    assert.deepEqual(got, { item, attachments: [], checklist: [] });

    expectError(
      await api(t, "GET", itemPath(project.id, 999999), { cookie: alice.cookie }),
      404,
      "not_found",
    );
    expectError(
      await api(t, "GET", itemPath(project.id, item.id), { cookie: outsider.cookie }),
      404,
      "not_found",
    );
    const other = await createProject(t, owner.cookie, "Other");
    expectError(
      await api(t, "GET", itemPath(other.id, item.id), { cookie: owner.cookie }),
      404,
      "not_found",
    );
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /todos/items/:id: every field set; absent fields unchanged; explicit null clears", async () => {
  const t = await testApp();
  try {
    const { alice, bob, project } = await team(t);
    const milestone = await insertMilestone(t, project.id, alice.user.id, "M1");
    const item = await createTodo(t, alice.cookie, project.id, { title: "Plain" });
    const path = itemPath(project.id, item.id);

    t.clock.advance(1000);
    const set = expectJson(
      await api(t, "PATCH", path, {
        cookie: alice.cookie,
        body: {
          title: "Rich",
          description: "desc",
          startDate: "2026-11-20",
          dueDate: "2026-11-25",
          tags: ["a", "b"],
          assigneeId: bob.user.id,
          milestoneId: milestone,
          priority: "low",
        },
      }),
      200,
    );
    assert.deepEqual(Object.keys(set).sort(), ["attachments", "item"]);
    const full = {
      ...item,
      title: "Rich",
      description: "desc",
      startDate: "2026-11-20",
      dueDate: "2026-11-25",
      tags: ["a", "b"],
      assigneeId: bob.user.id,
      milestoneId: milestone,
      priority: "low",
      updatedAt: "2026-11-22T08:30:01.000Z",
    };
    assert.deepEqual(set.item, full);
    assert.deepEqual(await getItem(t, alice.cookie, project.id, item.id), full);

    // Absent fields stay: each field changed alone leaves all the others.
    const singles: Array<[string, unknown]> = [
      ["title", "Retitled"],
      ["description", "other desc"],
      ["startDate", "2026-11-21"],
      ["dueDate", "2026-11-28"],
      ["tags", ["c"]],
      ["assigneeId", alice.user.id],
      ["priority", "high"],
    ];
    let expected: Json = { ...full };
    for (const [field, value] of singles) {
      t.clock.advance(1000);
      const res = await api(t, "PATCH", path, { cookie: bob.cookie, body: { [field]: value } });
      expected = { ...expected, [field]: value, updatedAt: t.clock.now().toISOString() };
      assert.deepEqual(expectJson(res, 200).item, expected, field);
      assert.deepEqual(await getItem(t, alice.cookie, project.id, item.id), expected, field);
    }

    // Explicit null clears each nullable field; tags null becomes [].
    const cleared: Array<[string, unknown]> = [
      ["startDate", null],
      ["dueDate", null],
      ["tags", []],
      ["assigneeId", null],
      ["milestoneId", null],
      ["description", null],
    ];
    for (const [field, value] of cleared) {
      const res = await api(t, "PATCH", path, { cookie: alice.cookie, body: { [field]: null } });
      expected = { ...expected, [field]: value };
      assert.deepEqual(expectJson(res, 200).item, expected, `${field}: null`);
      assert.deepEqual(await getItem(t, alice.cookie, project.id, item.id), expected, field);
    }

    // All at once.
    expectJson(
      await api(t, "PATCH", path, {
        cookie: alice.cookie,
        body: { startDate: "2026-11-01", dueDate: "2026-11-02", tags: ["x"], description: "d" },
      }),
      200,
    );
    const all = expectJson(
      await api(t, "PATCH", path, {
        cookie: alice.cookie,
        body: { startDate: null, dueDate: null, tags: null, description: null },
      }),
      200,
    ).item;
    assert.equal(all.startDate, null);
    assert.equal(all.dueDate, null);
    assert.deepEqual(all.tags, []);
    assert.equal(all.description, null);
    assert.equal(all.title, "Retitled");
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /todos/items/:id: invalid values are 400 and change nothing", async () => {
  const t = await testApp();
  try {
    const { alice, outsider, project } = await team(t);
    const item = await createTodo(t, alice.cookie, project.id, {
      startDate: "2026-11-10",
      dueDate: "2026-11-20",
    });
    const path = itemPath(project.id, item.id);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ dueDate: "2026-11-09" }, "dueDate"],
      [{ startDate: "2026-11-21" }, "startDate|dueDate"],
      [{ startDate: "2026-11-30", dueDate: "2026-11-29" }, "startDate|dueDate"],
      [{ dueDate: "2026-02-29" }, "dueDate"],
      [{ dueDate: "2026-13-01" }, "dueDate"],
      [{ startDate: "2026-00-10" }, "startDate"],
      [{ priority: "urgent" }, "priority"],
      [{ priority: null }, "priority"],
      [{ title: null }, "title"],
      [{ title: "" }, "title"],
      [{ assigneeId: outsider.user.id }, "assigneeId"],
      [{ milestoneId: 424242 }, "milestoneId"],
      [{ tags: [1, 2] }, "tags"],
    ];
    const wrong: string[] = [];
    for (const [body, fields] of cases) {
      const problem = validationProblem(
        await api(t, "PATCH", path, { cookie: alice.cookie, body }),
        fields,
      );
      if (problem) wrong.push(`${JSON.stringify(body)}: ${problem}`);
    }
    assert.deepEqual(await getItem(t, alice.cookie, project.id, item.id), item);
    // Clearing the start date makes any due date fine.
    const ok = expectJson(
      await api(t, "PATCH", path, {
        cookie: alice.cookie,
        body: { startDate: null, dueDate: "2026-01-01" },
      }),
      200,
    ).item;
    assert.equal(ok.startDate, null);
    assert.equal(ok.dueDate, "2026-01-01");
    assert.deepEqual(wrong, [], "each bad input is a 400 validation naming its field");
  } finally {
    await t.close();
  }
});

Deno.test("Activity: todo_created on create, todo_updated on edits; any member may edit others' items", async () => {
  const t = await testApp();
  try {
    const { alice, bob, project } = await team(t);
    const item = await createTodo(t, alice.cookie, project.id, { title: "Shared work" });
    const created = await activityKinds(t, bob.cookie, project.id, "todo_created");
    assert.equal(created.length, 1);
    assert.equal(created[0].actorId, alice.user.id);
    assert.equal(created[0].subjectType, "item");
    assert.equal(created[0].subjectId, item.id);
    assert.equal(created[0].projectId, project.id);

    const edited = expectJson(
      await api(t, "PATCH", itemPath(project.id, item.id), {
        cookie: bob.cookie,
        body: { title: "Bob's now" },
      }),
      200,
    ).item;
    assert.equal(edited.title, "Bob's now");
    assert.equal(edited.creatorId, alice.user.id, "the creator stays");
    const updated = await activityKinds(t, alice.cookie, project.id, "todo_updated");
    assert.equal(updated.length, 1);
    assert.equal(updated[0].actorId, bob.user.id);
    assert.equal(updated[0].subjectId, item.id);
  } finally {
    await t.close();
  }
});

Deno.test("POST /toggle-complete sets completed/completedAt, clears them back; todo_completed on completing", async () => {
  const t = await testApp();
  try {
    const { alice, bob, project } = await team(t);
    const item = await createTodo(t, alice.cookie, project.id);
    const path = itemPath(project.id, item.id, "/toggle-complete");

    t.clock.advance(60_000);
    const done = expectJson(await api(t, "POST", path, { cookie: bob.cookie }), 200).item;
    assert.equal(done.completed, true);
    assert.equal(done.completedAt, "2026-11-22T08:31:00.000Z");
    assert.deepEqual(await getItem(t, alice.cookie, project.id, item.id), done);
    let completed = await activityKinds(t, alice.cookie, project.id, "todo_completed");
    assert.equal(completed.length, 1);
    assert.equal(completed[0].subjectId, item.id);
    assert.equal(completed[0].actorId, bob.user.id);

    t.clock.advance(60_000);
    const reopened = expectJson(await api(t, "POST", path, { cookie: alice.cookie }), 200).item;
    assert.equal(reopened.completed, false);
    assert.equal(reopened.completedAt, null);
    assert.deepEqual(await getItem(t, alice.cookie, project.id, item.id), reopened);
    completed = await activityKinds(t, alice.cookie, project.id, "todo_completed");
    assert.equal(completed.length, 1, "reopening is not a completion");

    t.clock.advance(60_000);
    const again = expectJson(await api(t, "POST", path, { cookie: alice.cookie }), 200).item;
    assert.equal(again.completedAt, "2026-11-22T08:33:00.000Z");
    completed = await activityKinds(t, alice.cookie, project.id, "todo_completed");
    assert.equal(completed.length, 2);

    expectError(
      await api(t, "POST", itemPath(project.id, 999999, "/toggle-complete"), {
        cookie: alice.cookie,
      }),
      404,
      "not_found",
    );
  } finally {
    await t.close();
  }
});

Deno.test("POST /move puts an item at orderIndex; both columns are renumbered 0..n-1", async () => {
  const t = await testApp();
  try {
    const { alice, bob, project } = await team(t);
    const [todo, doing] = await todoColumns(t, alice.cookie, project.id);
    const a = await createTodo(t, alice.cookie, project.id, { title: "a" });
    const b = await createTodo(t, alice.cookie, project.id, { title: "b" });
    const c = await createTodo(t, alice.cookie, project.id, { title: "c" });
    const d = await createTodo(t, alice.cookie, project.id, { title: "d" });
    const x = await createTodo(t, alice.cookie, project.id, { title: "x", columnId: doing.id });
    const y = await createTodo(t, alice.cookie, project.id, { title: "y", columnId: doing.id });

    // Across columns, into the middle.
    const moved = expectJson(
      await api(t, "POST", itemPath(project.id, b.id, "/move"), {
        cookie: bob.cookie,
        body: { columnId: doing.id, orderIndex: 1 },
      }),
      200,
    ).item;
    assert.equal(moved.columnId, doing.id);
    assert.equal(moved.orderIndex, 1);
    await assertColumn(t, alice.cookie, project.id, todo.id, [a.id, c.id, d.id]);
    await assertColumn(t, alice.cookie, project.id, doing.id, [x.id, b.id, y.id]);

    // Within a column, to the front.
    expectJson(
      await api(t, "POST", itemPath(project.id, d.id, "/move"), {
        cookie: alice.cookie,
        body: { columnId: todo.id, orderIndex: 0 },
      }),
      200,
    );
    await assertColumn(t, alice.cookie, project.id, todo.id, [d.id, a.id, c.id]);

    // Within a column, downwards.
    expectJson(
      await api(t, "POST", itemPath(project.id, d.id, "/move"), {
        cookie: alice.cookie,
        body: { columnId: todo.id, orderIndex: 2 },
      }),
      200,
    );
    await assertColumn(t, alice.cookie, project.id, todo.id, [a.id, c.id, d.id]);

    // Past the end goes last.
    const last = expectJson(
      await api(t, "POST", itemPath(project.id, a.id, "/move"), {
        cookie: alice.cookie,
        body: { columnId: doing.id, orderIndex: 99 },
      }),
      200,
    ).item;
    assert.equal(last.orderIndex, 3);
    await assertColumn(t, alice.cookie, project.id, todo.id, [c.id, d.id]);
    await assertColumn(t, alice.cookie, project.id, doing.id, [x.id, b.id, y.id, a.id]);

    const bad = await api(t, "POST", itemPath(project.id, a.id, "/move"), {
      cookie: alice.cookie,
      body: { columnId: doing.id, orderIndex: -1 },
    });
    expectError(bad, 400, "validation");
    const updates = await activityKinds(t, alice.cookie, project.id, "todo_updated");
    assert.equal(updates.length, 4, "one todo_updated per move");
  } finally {
    await t.close();
  }
});

Deno.test("POST /move to another project's column is refused and changes nothing", async () => {
  const t = await testApp();
  try {
    const { alice, owner, project } = await team(t);
    const [todo] = await todoColumns(t, alice.cookie, project.id);
    const a = await createTodo(t, alice.cookie, project.id);
    const b = await createTodo(t, alice.cookie, project.id);
    const other = await createProject(t, owner.cookie, "Other");
    const [foreign] = await todoColumns(t, owner.cookie, other.id);
    const res = await api(t, "POST", itemPath(project.id, a.id, "/move"), {
      cookie: owner.cookie,
      body: { columnId: foreign.id, orderIndex: 0 },
    });
    assert.ok([400, 404].includes(res.status), `${res.status} ${res.text}`);
    await assertColumn(t, alice.cookie, project.id, todo.id, [a.id, b.id]);
    assert.deepEqual((await getJson(t, owner.cookie, todos(other.id, "/items"))).items, []);
  } finally {
    await t.close();
  }
});

Deno.test("DELETE /todos/items/:id removes the item from lists and renumbers its column", async () => {
  const t = await testApp();
  try {
    const { alice, bob, project } = await team(t);
    const [todo] = await todoColumns(t, alice.cookie, project.id);
    const a = await createTodo(t, alice.cookie, project.id);
    const b = await createTodo(t, alice.cookie, project.id);
    const c = await createTodo(t, alice.cookie, project.id, { assigneeId: bob.user.id });

    expectNoContent(await api(t, "DELETE", itemPath(project.id, b.id), { cookie: bob.cookie }));
    await assertColumn(t, alice.cookie, project.id, todo.id, [a.id, c.id]);
    expectError(
      await api(t, "GET", itemPath(project.id, b.id), { cookie: alice.cookie }),
      404,
      "not_found",
    );
    expectError(
      await api(t, "DELETE", itemPath(project.id, b.id), { cookie: alice.cookie }),
      404,
      "not_found",
    );
    expectError(
      await api(t, "PATCH", itemPath(project.id, b.id), {
        cookie: alice.cookie,
        body: { title: "zombie" },
      }),
      404,
      "not_found",
    );
    expectError(
      await api(t, "POST", itemPath(project.id, b.id, "/toggle-complete"), {
        cookie: alice.cookie,
      }),
      404,
      "not_found",
    );

    expectNoContent(await api(t, "DELETE", itemPath(project.id, c.id), { cookie: alice.cookie }));
    const byAssignee = await getJson(
      t,
      alice.cookie,
      todos(project.id, `/items?assigneeId=${bob.user.id}`),
    );
    assert.deepEqual(byAssignee.items, []);

    // A new item goes right after the survivors.
    const d = await createTodo(t, alice.cookie, project.id);
    assert.equal(d.orderIndex, 1);
    await assertColumn(t, alice.cookie, project.id, todo.id, [a.id, d.id]);
  } finally {
    await t.close();
  }
});

Deno.test("GET /todos/items filters by columnId, assigneeId and milestoneId", async () => {
  const t = await testApp();
  try {
    const { alice, bob, project } = await team(t);
    const [todo, doing] = await todoColumns(t, alice.cookie, project.id);
    const m = await insertMilestone(t, project.id, alice.user.id, "M");
    const a = await createTodo(t, alice.cookie, project.id, { assigneeId: bob.user.id });
    const b = await createTodo(t, alice.cookie, project.id, { columnId: doing.id, milestoneId: m });
    const c = await createTodo(t, alice.cookie, project.id, {
      columnId: doing.id,
      assigneeId: bob.user.id,
      milestoneId: m,
    });
    const list = async (query: string) =>
      (await getJson(t, alice.cookie, todos(project.id, `/items${query}`))).items.map((i: Json) =>
        i.id
      );
    assert.deepEqual(await list(""), [a.id, b.id, c.id]);
    assert.deepEqual(await list(`?columnId=${todo.id}`), [a.id]);
    assert.deepEqual(await list(`?columnId=${doing.id}`), [b.id, c.id]);
    assert.deepEqual(await list(`?assigneeId=${bob.user.id}`), [a.id, c.id]);
    assert.deepEqual(await list(`?milestoneId=${m}`), [b.id, c.id]);
    assert.deepEqual(await list(`?assigneeId=${bob.user.id}&milestoneId=${m}`), [c.id]);
    assert.deepEqual(await list(`?assigneeId=${alice.user.id}`), []);
  } finally {
    await t.close();
  }
});

Deno.test("todo_assigned goes to the new assignee only: not to yourself, not again when unchanged", async () => {
  const t = await testApp();
  try {
    const { alice, bob, owner, project } = await team(t);
    const item = await createTodo(t, alice.cookie, project.id, { assigneeId: bob.user.id });
    let bobs = await unread(t, bob.cookie, "todo_assigned");
    assert.equal(bobs.length, 1);
    assert.equal(bobs[0].subjectType, "item");
    assert.equal(bobs[0].subjectId, item.id);
    assert.equal(bobs[0].actorId, alice.user.id);
    assert.equal(bobs[0].projectId, project.id);

    // Assigning yourself notifies nobody.
    const own = await createTodo(t, alice.cookie, project.id, { assigneeId: alice.user.id });
    assert.equal((await unread(t, alice.cookie, "todo_assigned")).length, 0);

    const path = itemPath(project.id, item.id);
    // Unchanged assignee, or other edits: no new notification.
    expectJson(
      await api(t, "PATCH", path, { cookie: alice.cookie, body: { assigneeId: bob.user.id } }),
      200,
    );
    expectJson(
      await api(t, "PATCH", path, { cookie: owner.cookie, body: { title: "renamed" } }),
      200,
    );
    assert.equal((await unread(t, bob.cookie, "todo_assigned")).length, 1);

    // Reassigning notifies the new assignee only.
    expectJson(
      await api(t, "PATCH", path, { cookie: owner.cookie, body: { assigneeId: alice.user.id } }),
      200,
    );
    const alices = await unread(t, alice.cookie, "todo_assigned");
    assert.equal(alices.length, 1);
    assert.equal(alices[0].subjectId, item.id);
    assert.equal(alices[0].actorId, owner.user.id);
    assert.equal((await unread(t, bob.cookie, "todo_assigned")).length, 1);
    assert.equal((await unread(t, owner.cookie, "todo_assigned")).length, 0);

    // Taking it yourself, or unassigning, notifies nobody.
    expectJson(
      await api(t, "PATCH", path, { cookie: owner.cookie, body: { assigneeId: owner.user.id } }),
      200,
    );
    expectJson(
      await api(t, "PATCH", path, { cookie: owner.cookie, body: { assigneeId: null } }),
      200,
    );
    assert.equal((await unread(t, owner.cookie, "todo_assigned")).length, 0);
    assert.equal((await unread(t, alice.cookie, "todo_assigned")).length, 1);
    assert.equal((await unread(t, bob.cookie, "todo_assigned")).length, 1);

    // Assigning it back to bob is a new assignment.
    expectJson(
      await api(t, "PATCH", itemPath(project.id, own.id), {
        cookie: alice.cookie,
        body: { assigneeId: bob.user.id },
      }),
      200,
    );
    bobs = await unread(t, bob.cookie, "todo_assigned");
    assert.equal(bobs.length, 2);
    assert.equal(bobs[0].subjectId, own.id, "newest first");
  } finally {
    await t.close();
  }
});

Deno.test("Every to-do change writes one event naming the item, with the documented data", async () => {
  const t = await testApp();
  try {
    const { alice, bob, project } = await team(t);
    const [, doing] = await todoColumns(t, alice.cookie, project.id);
    assert.deepEqual(await todoEvents(t, project.id), [], "columns are not item changes");

    const item = await createTodo(t, alice.cookie, project.id);
    const created = (await todoEvents(t, project.id))[0];
    assert.equal(created.name, "todo.created");
    const { name: _, ...createdData } = created;
    assert.deepEqual(createdData, item, "todo.created carries the item");
    const steps: Array<[string, string | null, () => Promise<unknown>]> = [
      ["todo.updated", "edited", () =>
        api(t, "PATCH", itemPath(project.id, item.id), {
          cookie: bob.cookie,
          body: { title: "t2" },
        })],
      ["todo.updated", "edited", () =>
        api(t, "PATCH", itemPath(project.id, item.id), {
          cookie: bob.cookie,
          body: { assigneeId: alice.user.id },
        })],
      [
        "todo.completed",
        null,
        () =>
          api(t, "POST", itemPath(project.id, item.id, "/toggle-complete"), {
            cookie: bob.cookie,
          }),
      ],
      [
        "todo.reopened",
        null,
        () =>
          api(t, "POST", itemPath(project.id, item.id, "/toggle-complete"), {
            cookie: bob.cookie,
          }),
      ],
      ["todo.updated", "moved", () =>
        api(t, "POST", itemPath(project.id, item.id, "/move"), {
          cookie: bob.cookie,
          body: { columnId: doing.id, orderIndex: 0 },
        })],
      [
        "todo.deleted",
        null,
        () => api(t, "DELETE", itemPath(project.id, item.id), { cookie: bob.cookie }),
      ],
    ];
    for (const [i, [name, action, step]] of steps.entries()) {
      const res = (await step()) as { status: number; text: string };
      assert.ok(res.status === 200 || res.status === 204, res.text);
      const events = await todoEvents(t, project.id);
      assert.equal(events.length, i + 2, `one event for step ${i}`);
      const last = events.at(-1);
      assert.equal(last.name, name, `step ${i}`);
      assert.equal(last.projectId, project.id);
      if (name === "todo.updated") {
        assert.deepEqual(last.itemIds, [item.id]);
        assert.equal(last.action, action);
      } else if (name === "todo.deleted") {
        assert.deepEqual(last, { name, id: item.id, projectId: project.id });
      } else {
        assert.equal(last.id, item.id);
        assert.equal(last.completed, name === "todo.completed");
      }
    }
    // The stored events' ids increase.
    const stored = await storedEvents(t, project.id);
    for (let i = 1; i < stored.length; i++) assert.ok(stored[i]!.id > stored[i - 1]!.id);
  } finally {
    await t.close();
  }
});

Deno.test("Viewers cannot change to-dos (403, nothing changed); outsiders get 404", async () => {
  const t = await testApp();
  try {
    const { alice, viewer, outsider, project } = await team(t);
    const [todo, doing] = await todoColumns(t, alice.cookie, project.id);
    const item = await createTodo(t, alice.cookie, project.id);
    const file = await uploadFile(t, alice.cookie, project.id, "f.txt", "f");
    const writes: Array<[string, string, unknown]> = [
      ["POST", todos(project.id, "/items"), { title: "nope" }],
      ["PATCH", itemPath(project.id, item.id), { title: "nope" }],
      ["DELETE", itemPath(project.id, item.id), undefined],
      ["POST", itemPath(project.id, item.id, "/toggle-complete"), undefined],
      ["POST", itemPath(project.id, item.id, "/move"), { columnId: doing.id, orderIndex: 0 }],
      ["POST", todos(project.id, "/items/reorder"), {
        projectId: project.id,
        columnId: doing.id,
        itemIds: [item.id],
      }],
      ["POST", todos(project.id, "/columns"), { name: "nope" }],
      ["PATCH", todos(project.id, `/columns/${todo.id}`), { name: "nope" }],
      ["DELETE", todos(project.id, `/columns/${doing.id}`), undefined],
    ];
    const eventsBefore = (await storedEvents(t, project.id)).length;
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
      await attachIds(t, viewer.cookie, itemPath(project.id, item.id, "/attachments"), [file.id]),
      403,
      "forbidden",
    );
    expectError(
      await api(t, "GET", todos(project.id, "/items"), { cookie: outsider.cookie }),
      404,
      "not_found",
    );
    expectError(
      await api(t, "GET", todos(project.id, "/columns"), { cookie: outsider.cookie }),
      404,
      "not_found",
    );
    assert.deepEqual(await getItem(t, viewer.cookie, project.id, item.id), item);
    assert.equal((await todoColumns(t, viewer.cookie, project.id)).length, 3);
    assert.equal((await storedEvents(t, project.id)).length, eventsBefore);
  } finally {
    await t.close();
  }
});

Deno.test("An archived project's to-dos are read-only", async () => {
  const t = await testApp();
  try {
    const { alice, owner, project } = await team(t);
    const item = await createTodo(t, alice.cookie, project.id);
    expectJson(
      await api(t, "POST", `/api/projects/${project.id}/archive`, { cookie: owner.cookie }),
      200,
    );
    expectError(
      await api(t, "POST", todos(project.id, "/items"), {
        cookie: alice.cookie,
        body: { title: "late" },
      }),
      403,
      "forbidden",
    );
    expectError(
      await api(t, "POST", itemPath(project.id, item.id, "/toggle-complete"), {
        cookie: owner.cookie,
      }),
      403,
      "forbidden",
    );
    assert.equal((await getItem(t, alice.cookie, project.id, item.id)).completed, false);
  } finally {
    await t.close();
  }
});

Deno.test("To-do attachments: fileIds on create, JSON or multipart later, any member; removed on delete", async () => {
  const t = await testApp();
  try {
    const { alice, bob, owner, project } = await team(t);
    const spec = await uploadFile(t, alice.cookie, project.id, "spec.txt", "spec");
    const body = expectJson(
      await api(t, "POST", todos(project.id, "/items"), {
        cookie: alice.cookie,
        body: { title: "With files", fileIds: [spec.id] },
      }),
      201,
    );
    assert.deepEqual(body.attachments.map((f: Json) => f.id), [spec.id]);
    assert.deepEqual(body.item.attachments, body.attachments);

    const other = await createProject(t, owner.cookie, "Other");
    const foreign = await uploadFile(t, owner.cookie, other.id, "x.txt", "x");
    const refused = await api(t, "POST", todos(project.id, "/items"), {
      cookie: alice.cookie,
      body: { title: "Leak", fileIds: [foreign.id] },
    });
    assert.ok(expectError(refused, 400, "validation").details?.fileIds);
    assert.equal((await getJson(t, alice.cookie, todos(project.id, "/items"))).items.length, 1);

    // Shared work: bob may attach to alice's item.
    const path = itemPath(project.id, body.item.id, "/attachments");
    const bobFile = await uploadFile(t, bob.cookie, project.id, "bob.txt", "bob");
    const byIds = expectJson(await attachIds(t, bob.cookie, path, [bobFile.id]), 200);
    assert.equal(byIds.attachments.length, 2);
    const uploaded = expectJson(await postFile(t, bob.cookie, path, "scan.txt", "scan"), 200);
    assert.equal(uploaded.attachments.length, 3);
    const scan = uploaded.attachments.find((f: Json) => f.name === "scan.txt");
    assert.equal(scan.source, "attachment");

    const got = expectJson(
      await api(t, "GET", itemPath(project.id, body.item.id), { cookie: alice.cookie }),
      200,
    );
    assert.equal(got.attachments.length, 3);
    assert.deepEqual(got.item.attachments, got.attachments);

    expectNoContent(
      await api(t, "DELETE", itemPath(project.id, body.item.id), { cookie: alice.cookie }),
    );
    const files = await getJson(t, alice.cookie, `/api/projects/${project.id}/files?pageSize=100`);
    const ids = files.items.map((f: Json) => f.id);
    assert.ok(ids.includes(spec.id) && ids.includes(bobFile.id), "uploads stay");
    assert.ok(!ids.includes(scan.id), "the attachment upload goes with the item");
  } finally {
    await t.close();
  }
});

/** POSTs `body` as JSON with chunked transfer encoding (no Content-Length), as streaming clients do. */
async function postChunkedJson(
  baseUrl: string,
  cookie: string,
  path: string,
  body: unknown,
): Promise<{ status: number; json: Json }> {
  const bytes = new TextEncoder().encode(JSON.stringify(body));
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
  const init: RequestInit & { duplex: "half" } = {
    method: "POST",
    headers: { cookie, "content-type": "application/json" },
    body: stream,
    duplex: "half",
  };
  const res = await fetch(`${baseUrl}${path}`, init);
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

Deno.test("POST /todos/items/:id/attachments: JSON {fileIds} sent chunked (no Content-Length) works", async () => {
  const t = await testServer();
  try {
    const { alice, project } = await team(t);
    const file = await uploadFile(t, alice.cookie, project.id, "a.txt", "a");
    const item = await createTodo(t, alice.cookie, project.id);
    const path = itemPath(project.id, item.id, "/attachments");
    const res = await postChunkedJson(t.baseUrl, alice.cookie, path, { fileIds: [file.id] });
    assert.equal(res.status, 200, JSON.stringify(res.json));
    assert.deepEqual(res.json.attachments.map((f: Json) => f.id), [file.id]);
  } finally {
    await t.close();
  }
});
