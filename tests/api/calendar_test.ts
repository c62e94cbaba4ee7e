/** Calendar events (CRUD, UTC timestamps) and the project calendar over a range. */
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
} from "../helpers/api.ts";

const NOW = "2026-11-22T08:30:00.000Z";
const EVENT_KEYS = [
  "allDay",
  "createdAt",
  "creatorId",
  "description",
  "endAt",
  "id",
  "projectId",
  "startAt",
  "title",
  "updatedAt",
];

function events(projectId: number, rest = ""): string {
  return `/api/projects/${projectId}/calendar/events${rest}`;
}

function calendar(projectId: number, from: string, to: string): string {
  const q = new URLSearchParams({ from, to });
  return `/api/projects/${projectId}/calendar?${q}`;
}

async function createEvent(
  t: TestApp,
  cookie: string,
  projectId: number,
  fields: Record<string, unknown>,
): Promise<Json> {
  const res = await api(t, "POST", events(projectId), {
    cookie,
    body: { title: "Event", ...fields },
  });
  return expectJson(res, 201).event;
}

/**
 * Inserts a to-do item straight into the database: the to-do API is built separately, and
 * the calendar only reads the rows (dates, completion, soft deletion).
 */
async function insertTodo(
  t: TestApp,
  projectId: number,
  creatorId: number,
  item: {
    title: string;
    startDate?: string | null;
    dueDate?: string | null;
    completed?: boolean;
    deleted?: boolean;
  },
): Promise<number> {
  const column = await t.sql.get<{ id: number }>(
    "SELECT id FROM todo_columns WHERE project_id = ? ORDER BY id LIMIT 1",
    [projectId],
  ) ??
    await t.sql.returning<{ id: number }>(
      `INSERT INTO todo_columns (project_id, name, key, position, created_at, updated_at)
       VALUES (?, 'Scratch', NULL, 99, ?, ?) RETURNING id`,
      [projectId, NOW, NOW],
    );
  return (await t.sql.returning<{ id: number }>(
    `INSERT INTO todo_items (project_id, column_id, creator_id, title, start_date, due_date,
     order_index, completed, created_at, updated_at, deleted_at)
     VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?) RETURNING id`,
    [
      projectId,
      column.id,
      creatorId,
      item.title,
      item.startDate ?? null,
      item.dueDate ?? null,
      item.completed ? 1 : 0,
      NOW,
      NOW,
      item.deleted ? NOW : null,
    ],
  )).id;
}

Deno.test("POST /api/projects/:id/calendar/events stores times in UTC and answers 201 {event}", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { alice, project } = await team(t);
    const res = await api(t, "POST", events(project.id), {
      cookie: alice.cookie,
      body: {
        title: " Launch ",
        description: "Go live",
        startAt: "2026-12-01T10:00:00+09:00",
        endAt: "2026-12-01T11:30:00.5+09:00",
      },
    });
    const { event } = expectJson(res, 201);
    assert.deepEqual(Object.keys(event).sort(), EVENT_KEYS);
    assert.deepEqual(event, {
      id: event.id,
      projectId: project.id,
      creatorId: alice.user.id,
      title: "Launch",
      description: "Go live",
      startAt: "2026-12-01T01:00:00.000Z",
      endAt: "2026-12-01T02:30:00.500Z",
      allDay: false,
      createdAt: NOW,
      updatedAt: NOW,
    });
    assert.deepEqual(await getJson(t, alice.cookie, events(project.id, `/${event.id}`)), {
      event,
    });
    const allDay = await createEvent(t, alice.cookie, project.id, {
      startAt: "2026-12-02",
      endAt: "2026-12-03",
      allDay: true,
    });
    assert.equal(allDay.startAt, "2026-12-02T00:00:00.000Z");
    assert.equal(allDay.endAt, "2026-12-03T00:00:00.000Z");
    assert.equal(allDay.allDay, true);
    assert.equal(allDay.description, null);
    // A zero-length event is allowed; endAt equal to startAt is not before it.
    await createEvent(t, alice.cookie, project.id, {
      startAt: "2026-12-04T09:00:00Z",
      endAt: "2026-12-04T09:00:00Z",
    });
    const list = await getJson(t, alice.cookie, events(project.id));
    assert.deepEqual(list.items.map((e: Json) => e.id).slice(0, 2), [event.id, allDay.id]);
    assert.equal(list.items.length, 3);
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/projects/:id/calendar/events rejects bad timestamps and endAt before startAt", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { alice, project } = await team(t);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ startAt: "tomorrow", endAt: "2026-12-01T10:00:00Z" }, "startAt"],
      [{ startAt: "2026-12-01T10:00:00Z", endAt: "2026-12-01T25:00:00Z" }, "endAt"],
      [{ startAt: "2026-02-30T10:00:00Z", endAt: "2026-03-01T10:00:00Z" }, "startAt"],
      // Without Z or an offset the zone is unknown.
      [{ startAt: "2026-12-01T10:00:00", endAt: "2026-12-01T11:00:00Z" }, "startAt"],
      [{ startAt: "2026-12-01T10:00:00Z", endAt: "2026-12-01T09:59:59Z" }, "endAt"],
      [{ startAt: "2026-12-01T10:00:00Z" }, "endAt"],
    ];
    for (const [fields, field] of cases) {
      const res = await api(t, "POST", events(project.id), {
        cookie: alice.cookie,
        body: { title: "Event", ...fields },
      });
      const error = expectError(res, 400, "validation");
      assert.ok(error.details[field], `${JSON.stringify(fields)}: ${JSON.stringify(error)}`);
    }
    const blank = await api(t, "POST", events(project.id), {
      cookie: alice.cookie,
      body: { title: " ", startAt: "2026-12-01T10:00:00Z", endAt: "2026-12-01T11:00:00Z" },
    });
    assert.ok(expectError(blank, 400, "validation").details.title);
    assert.deepEqual(await getJson(t, alice.cookie, events(project.id)), { items: [] });
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /api/projects/:id/calendar/events/:id edits, clears with null and checks the order", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { alice, bob, project } = await team(t);
    const created = await createEvent(t, alice.cookie, project.id, {
      description: "Agenda",
      startAt: "2026-12-01T10:00:00Z",
      endAt: "2026-12-01T11:00:00Z",
    });
    const one = events(project.id, `/${created.id}`);
    t.clock.advance(60_000);
    const moved = await api(t, "PATCH", one, {
      cookie: bob.cookie,
      body: { endAt: "2026-12-01T12:00:00-01:00", description: null, allDay: true },
    });
    assert.deepEqual(expectJson(moved, 200).event, {
      ...created,
      description: null,
      endAt: "2026-12-01T13:00:00.000Z",
      allDay: true,
      updatedAt: "2026-11-22T08:31:00.000Z",
    });
    const backwards = await api(t, "PATCH", one, {
      cookie: bob.cookie,
      body: { startAt: "2026-12-01T14:00:00Z" },
    });
    assert.ok(expectError(backwards, 400, "validation").details.endAt);
    assert.equal((await getJson(t, alice.cookie, one)).event.startAt, "2026-12-01T10:00:00.000Z");
  } finally {
    await t.close();
  }
});

Deno.test("DELETE /api/projects/:id/calendar/events/:id soft-deletes it everywhere", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { alice, bob, project } = await team(t);
    const event = await createEvent(t, alice.cookie, project.id, {
      startAt: "2026-12-01T10:00:00Z",
      endAt: "2026-12-01T11:00:00Z",
    });
    const one = events(project.id, `/${event.id}`);
    expectNoContent(await api(t, "DELETE", one, { cookie: bob.cookie }));
    expectError(await api(t, "GET", one, { cookie: alice.cookie }), 404, "not_found");
    expectError(await api(t, "DELETE", one, { cookie: alice.cookie }), 404, "not_found");
    expectError(
      await api(t, "PATCH", one, { cookie: alice.cookie, body: { title: "Back" } }),
      404,
      "not_found",
    );
    assert.deepEqual(await getJson(t, alice.cookie, events(project.id)), { items: [] });
    const range = calendar(project.id, "2026-12-01", "2026-12-02");
    assert.deepEqual(await getJson(t, alice.cookie, range), { items: [] });
    const row = await t.sql.get<{ deleted_at: string | null }>(
      "SELECT deleted_at FROM calendar_events WHERE id = ?",
      [event.id],
    );
    assert.equal(row?.deleted_at, NOW);
  } finally {
    await t.close();
  }
});

Deno.test("Calendar events: viewers read only, outsiders get 404, archived projects are read-only", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { owner, alice, viewer, outsider, project } = await team(t);
    const times = { startAt: "2026-12-01T10:00:00Z", endAt: "2026-12-01T11:00:00Z" };
    const event = await createEvent(t, alice.cookie, project.id, times);
    const one = events(project.id, `/${event.id}`);
    assert.equal((await getJson(t, viewer.cookie, events(project.id))).items.length, 1);
    expectError(
      await api(t, "POST", events(project.id), {
        cookie: viewer.cookie,
        body: { title: "X", ...times },
      }),
      403,
      "forbidden",
    );
    expectError(await api(t, "DELETE", one, { cookie: viewer.cookie }), 403, "forbidden");
    for (const url of [events(project.id), one, calendar(project.id, "2026-12-01", "2026-12-02")]) {
      expectError(await api(t, "GET", url, { cookie: outsider.cookie }), 404, "not_found");
    }
    expectJson(
      await api(t, "POST", `/api/projects/${project.id}/archive`, { cookie: owner.cookie }),
      200,
    );
    expectError(
      await api(t, "PATCH", one, { cookie: alice.cookie, body: { title: "X" } }),
      403,
      "forbidden",
    );
    expectError(await api(t, "DELETE", one, { cookie: alice.cookie }), 403, "forbidden");
    assert.equal((await getJson(t, alice.cookie, one)).event.title, "Event");
  } finally {
    await t.close();
  }
});

Deno.test("GET /api/projects/:id/calendar requires a valid range with from before to", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { alice, project } = await team(t);
    const base = `/api/projects/${project.id}/calendar`;
    const cases: Array<[string, string]> = [
      ["", "from"],
      ["?from=2026-12-01", "to"],
      ["?to=2026-12-01", "from"],
      ["?from=soon&to=2026-12-01", "from"],
      ["?from=2026-12-01&to=2026-12-32", "to"],
      ["?from=2026-12-01&to=2026-12-01", "to"],
      ["?from=2026-12-02&to=2026-12-01", "to"],
      ["?from=2026-12-01T10:00:00Z&to=2026-12-01T10:00:00%2B00:00", "to"],
    ];
    for (const [query, field] of cases) {
      const error = expectError(
        await api(t, "GET", `${base}${query}`, { cookie: alice.cookie }),
        400,
        "validation",
      );
      assert.ok(error.details[field], `${query}: ${JSON.stringify(error)}`);
    }
  } finally {
    await t.close();
  }
});

Deno.test("GET /api/projects/:id/calendar returns events intersecting [from, to) by their timestamps", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { alice, project } = await team(t);
    const from = "2026-12-01T10:00:00.000Z";
    const to = "2026-12-01T12:00:00.000Z";
    const make = (title: string, startAt: string, endAt: string) =>
      createEvent(t, alice.cookie, project.id, { title, startAt, endAt });
    await make("ends at from", "2026-12-01T09:00:00Z", from);
    const startsAtFrom = await make("starts at from", from, "2026-12-01T10:30:00Z");
    const across = await make("across", "2026-12-01T09:00:00Z", "2026-12-01T13:00:00Z");
    const overlapsEnd = await make("overlaps end", "2026-12-01T11:59:59Z", "2026-12-01T13:00:00Z");
    await make("starts at to", to, "2026-12-01T13:00:00Z");
    await make("later", "2026-12-02T10:00:00Z", "2026-12-02T11:00:00Z");
    const instant = await make("instant at from", from, from);

    const { items } = await getJson(t, alice.cookie, calendar(project.id, from, to));
    assert.deepEqual(items, [
      {
        type: "event",
        id: across.id,
        title: "across",
        start: across.startAt,
        end: across.endAt,
        allDay: false,
      },
      {
        type: "event",
        id: startsAtFrom.id,
        title: "starts at from",
        start: from,
        end: "2026-12-01T10:30:00.000Z",
        allDay: false,
      },
      {
        type: "event",
        id: instant.id,
        title: "instant at from",
        start: from,
        end: from,
        allDay: false,
      },
      {
        type: "event",
        id: overlapsEnd.id,
        title: "overlaps end",
        start: "2026-12-01T11:59:59.000Z",
        end: "2026-12-01T13:00:00.000Z",
        allDay: false,
      },
    ]);
    // The same range given with an offset.
    const shifted = await getJson(
      t,
      alice.cookie,
      calendar(project.id, "2026-12-01T19:00:00+09:00", "2026-12-01T21:00:00+09:00"),
    );
    assert.deepEqual(shifted.items, items);
  } finally {
    await t.close();
  }
});

Deno.test("GET /api/projects/:id/calendar spans milestones and to-dos over whole UTC days", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { alice, project } = await team(t);
    const me = alice.user.id;
    const milestone = async (title: string, dueDate: string | null) =>
      expectJson(
        await api(t, "POST", `/api/projects/${project.id}/milestones`, {
          cookie: alice.cookie,
          body: { title, dueDate },
        }),
        201,
      ).milestone;
    await milestone("m before", "2026-11-30");
    const mFirst = await milestone("m first day", "2026-12-01");
    const mLast = await milestone("m last day", "2026-12-07");
    await milestone("m at to", "2026-12-08");
    await milestone("m undated", null);

    await insertTodo(t, project.id, me, { title: "due day before from", dueDate: "2026-11-30" });
    const dueFirst = await insertTodo(t, project.id, me, {
      title: "due on from's day",
      dueDate: "2026-12-01",
      completed: true,
    });
    const spanning = await insertTodo(t, project.id, me, {
      title: "spanning",
      startDate: "2026-11-20",
      dueDate: "2026-12-20",
    });
    const startOnly = await insertTodo(t, project.id, me, {
      title: "start only",
      startDate: "2026-12-07",
    });
    await insertTodo(t, project.id, me, { title: "starts at to", startDate: "2026-12-08" });
    await insertTodo(t, project.id, me, { title: "undated" });
    await insertTodo(t, project.id, me, { title: "deleted", dueDate: "2026-12-03", deleted: true });

    const event = await createEvent(t, alice.cookie, project.id, {
      title: "midnight",
      startAt: "2026-12-01T00:00:00Z",
      endAt: "2026-12-01T01:00:00Z",
    });

    const { items } = await getJson(
      t,
      alice.cookie,
      calendar(project.id, "2026-12-01", "2026-12-08"),
    );
    assert.deepEqual(items, [
      {
        type: "todo",
        id: spanning,
        title: "spanning",
        start: "2026-11-20",
        end: "2026-12-20",
        allDay: true,
        completed: false,
        priority: "normal",
        assigneeId: null,
      },
      // Same start: event, then milestone, then to-do.
      {
        type: "event",
        id: event.id,
        title: "midnight",
        start: "2026-12-01T00:00:00.000Z",
        end: "2026-12-01T01:00:00.000Z",
        allDay: false,
      },
      {
        type: "milestone",
        id: mFirst.id,
        title: "m first day",
        start: "2026-12-01",
        end: "2026-12-01",
        allDay: true,
      },
      {
        type: "todo",
        id: dueFirst,
        title: "due on from's day",
        start: "2026-12-01",
        end: "2026-12-01",
        allDay: true,
        completed: true,
        priority: "normal",
        assigneeId: null,
      },
      {
        type: "milestone",
        id: mLast.id,
        title: "m last day",
        start: "2026-12-07",
        end: "2026-12-07",
        allDay: true,
      },
      {
        type: "todo",
        id: startOnly,
        title: "start only",
        start: "2026-12-07",
        end: "2026-12-07",
        allDay: true,
        completed: false,
        priority: "normal",
        assigneeId: null,
      },
    ]);

    // A range inside one day still reaches that whole day's dated items.
    const noon = await getJson(
      t,
      alice.cookie,
      calendar(project.id, "2026-12-07T12:00:00Z", "2026-12-07T13:00:00Z"),
    );
    assert.deepEqual(
      noon.items.map((i: Json) => [i.type, i.title]),
      [["todo", "spanning"], ["milestone", "m last day"], ["todo", "start only"]],
    );
  } finally {
    await t.close();
  }
});

Deno.test("the calendar's to-dos: due only, start only and spans, each in exactly when it reaches a day of the range", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { alice, project } = await team(t);
    const me = alice.user.id as number;
    const wanted: string[] = [];
    const todo = async (startDate: string | null, dueDate: string | null, shown: boolean) => {
      const title = `${startDate ?? "-"}..${dueDate ?? "-"}`;
      await insertTodo(t, project.id, me, { title, startDate, dueDate });
      if (shown) wanted.push(title);
    };
    // The range is 2026-12-01 to 2026-12-07 (to is exclusive: 12-08 is out).
    for (
      const [day, shown] of [
        ["2026-11-30", false],
        ["2026-12-01", true],
        ["2026-12-04", true],
        ["2026-12-07", true],
        ["2026-12-08", false],
      ] as const
    ) {
      await todo(null, day, shown);
      await todo(day, null, shown);
    }
    await todo("2026-11-20", "2026-11-30", false);
    await todo("2026-11-20", "2026-12-01", true);
    await todo("2026-11-20", "2026-12-04", true);
    await todo("2026-12-03", "2026-12-05", true);
    await todo("2026-12-06", "2026-12-20", true);
    await todo("2026-12-07", "2026-12-07", true);
    await todo("2026-11-20", "2026-12-20", true);
    await todo("2026-12-08", "2026-12-10", false);
    const { items } = await getJson(
      t,
      alice.cookie,
      calendar(project.id, "2026-12-01", "2026-12-08"),
    );
    assert.deepEqual(
      (items as Array<{ title: string }>).map((i) => i.title).sort(),
      wanted.sort(),
    );
  } finally {
    await t.close();
  }
});
