/** Meetings: scheduling, invitations and updates, and schedule conflicts as warnings. */
import assert from "node:assert/strict";
import { type TestApp, testApp } from "../helpers/app.ts";
import {
  activityOf,
  addMember,
  api,
  createProject,
  expectError,
  expectJson,
  expectNoContent,
  getJson,
  type Json,
  notificationsOf,
  team,
  type TestUser,
} from "../helpers/api.ts";

/** The list's only page, as the page object gives it (paging's defaults). */
function onePage<T>(items: T[]) {
  return { items, page: 1, pageSize: 20, total: items.length, hasMore: false };
}

const NOW = "2026-11-22T08:30:00.000Z";
const MEETING_KEYS = [
  "createdAt",
  "creatorId",
  "endAt",
  "id",
  "inviteeIds",
  "location",
  "minutes",
  "projectId",
  "startAt",
  "title",
  "updatedAt",
];
const CONFLICT_KEYS = ["end", "id", "projectId", "start", "title", "type", "userId"];

function meetings(projectId: number, rest = ""): string {
  return `/api/projects/${projectId}/meetings${rest}`;
}

/** Schedules a meeting (expects 201) and returns `{meeting, warnings}`. */
async function schedule(
  t: TestApp,
  cookie: string,
  projectId: number,
  fields: Record<string, unknown> = {},
): Promise<Json> {
  const res = await api(t, "POST", meetings(projectId), {
    cookie,
    body: {
      title: "Sync",
      startAt: "2026-12-01T10:00:00Z",
      endAt: "2026-12-01T11:00:00Z",
      inviteeIds: [],
      ...fields,
    },
  });
  return expectJson(res, 201);
}

/** `GET .../meetings/check` as `cookie`; returns the conflicts. */
async function check(
  t: TestApp,
  cookie: string,
  projectId: number,
  query: Record<string, string>,
): Promise<Json[]> {
  const q = new URLSearchParams(query);
  return (await getJson(t, cookie, meetings(projectId, `/check?${q}`))).conflicts;
}

/** The caller's unread notifications as `[kind, subjectId]`, oldest first. */
async function kinds(t: TestApp, user: TestUser): Promise<Array<[string, number]>> {
  const page = await notificationsOf(t, user.cookie);
  return page.items.filter((n: Json) => n.subjectType === "meeting").reverse()
    .map((n: Json) => [n.kind, n.subjectId]);
}

/**
 * Inserts a to-do item straight into the database: the to-do API is built separately, and
 * conflict checks only read the rows (assignee, priority, completion, due date, deletion).
 */
async function insertTodo(
  t: TestApp,
  projectId: number,
  item: {
    title: string;
    assigneeId: number;
    dueDate: string;
    startDate?: string;
    priority?: "low" | "normal" | "high";
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
    `INSERT INTO todo_items (project_id, column_id, creator_id, title, assignee_id, priority,
     start_date, due_date, order_index, completed, created_at, updated_at, deleted_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?) RETURNING id`,
    [
      projectId,
      column.id,
      item.assigneeId,
      item.title,
      item.assigneeId,
      item.priority ?? "high",
      item.startDate ?? null,
      item.dueDate,
      item.completed ? 1 : 0,
      NOW,
      NOW,
      item.deleted ? NOW : null,
    ],
  )).id;
}

Deno.test("POST /api/projects/:id/meetings schedules a meeting and invites its invitees", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { owner, alice, bob, project } = await team(t);
    const res = await api(t, "POST", meetings(project.id), {
      cookie: alice.cookie,
      body: {
        title: " Planning ",
        startAt: "2026-12-01T19:00:00+09:00",
        endAt: "2026-12-01T20:00:00+09:00",
        inviteeIds: [bob.user.id, owner.user.id, alice.user.id, bob.user.id],
        location: "Room 1",
      },
    });
    const body = expectJson(res, 201);
    assert.deepEqual(Object.keys(body).sort(), ["meeting", "warnings"]);
    const { meeting } = body;
    assert.deepEqual(Object.keys(meeting).sort(), MEETING_KEYS);
    assert.deepEqual(meeting, {
      id: meeting.id,
      projectId: project.id,
      creatorId: alice.user.id,
      title: "Planning",
      startAt: "2026-12-01T10:00:00.000Z",
      endAt: "2026-12-01T11:00:00.000Z",
      location: "Room 1",
      minutes: null,
      inviteeIds: [owner.user.id, alice.user.id, bob.user.id].sort((a, b) => a - b),
      createdAt: NOW,
      updatedAt: NOW,
    });
    assert.deepEqual(body.warnings, []);

    assert.deepEqual(await getJson(t, bob.cookie, meetings(project.id, `/${meeting.id}`)), {
      meeting,
    });
    assert.deepEqual(await getJson(t, bob.cookie, meetings(project.id)), onePage([meeting]));

    // Each invitee is told once; the organiser, who invited herself, is not.
    assert.deepEqual(await kinds(t, bob), [["meeting_invited", meeting.id]]);
    assert.deepEqual(await kinds(t, owner), [["meeting_invited", meeting.id]]);
    assert.deepEqual(await kinds(t, alice), []);
    const invitation = (await notificationsOf(t, bob.cookie)).items[0];
    assert.equal(invitation.actorId, alice.user.id);
    assert.equal(invitation.projectId, project.id);

    const activity = await activityOf(t, alice.cookie, project.id);
    const entry = activity.items.find((a: Json) => a.subjectType === "meeting");
    assert.equal(entry.kind, "meeting_created");
    assert.equal(entry.subjectId, meeting.id);
    assert.equal(entry.actorId, alice.user.id);

    // The stream event carries the meeting (read from the replay log).
    const events = await t.sql.all<{ name: string; data: string }>(
      "SELECT name, data FROM project_events WHERE project_id = ? AND name = 'meeting.created'",
      [project.id],
    );
    assert.equal(events.length, 1);
    assert.deepEqual(JSON.parse(events[0]!.data), meeting);
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/projects/:id/meetings rejects non-member invitees and bad times", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { admin, alice, viewer, outsider, project } = await team(t);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ inviteeIds: [outsider.user.id] }, "inviteeIds"],
      // A system admin who is not a member cannot be invited either.
      [{ inviteeIds: [admin.user.id] }, "inviteeIds"],
      [{ inviteeIds: [999_999] }, "inviteeIds"],
      [{ endAt: "2026-12-01T09:00:00Z" }, "endAt"],
      [{ startAt: "next week" }, "startAt"],
      [{ inviteeIds: undefined }, "inviteeIds"],
      [{ inviteeIds: ["2"] }, "inviteeIds.0"],
      [{ title: "" }, "title"],
    ];
    for (const [fields, field] of cases) {
      const res = await api(t, "POST", meetings(project.id), {
        cookie: alice.cookie,
        body: {
          title: "Sync",
          startAt: "2026-12-01T10:00:00Z",
          endAt: "2026-12-01T11:00:00Z",
          inviteeIds: [],
          ...fields,
        },
      });
      const error = expectError(res, 400, "validation");
      assert.ok(error.details[field], `${JSON.stringify(fields)}: ${JSON.stringify(error)}`);
    }
    assert.deepEqual(await getJson(t, alice.cookie, meetings(project.id)), onePage([]));
    assert.deepEqual(await kinds(t, outsider), []);
    // A viewer is a member, and may be invited.
    const { meeting } = await schedule(t, alice.cookie, project.id, {
      inviteeIds: [viewer.user.id],
    });
    assert.deepEqual(meeting.inviteeIds, [viewer.user.id]);
  } finally {
    await t.close();
  }
});

Deno.test("Meetings: viewers read only, outsiders get 404, archived projects are read-only", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { owner, alice, viewer, outsider, project } = await team(t);
    const { meeting } = await schedule(t, alice.cookie, project.id);
    const one = meetings(project.id, `/${meeting.id}`);
    const body = {
      title: "X",
      startAt: "2026-12-01T10:00:00Z",
      endAt: "2026-12-01T11:00:00Z",
      inviteeIds: [],
    };
    assert.equal((await getJson(t, viewer.cookie, one)).meeting.id, meeting.id);
    expectError(
      await api(t, "POST", meetings(project.id), { cookie: viewer.cookie, body }),
      403,
      "forbidden",
    );
    expectError(
      await api(t, "PATCH", one, { cookie: viewer.cookie, body: { title: "X" } }),
      403,
      "forbidden",
    );
    expectError(await api(t, "DELETE", one, { cookie: viewer.cookie }), 403, "forbidden");
    const checkUrl = meetings(
      project.id,
      "/check?startAt=2026-12-01T10:00:00Z&endAt=2026-12-01T11:00:00Z",
    );
    for (const url of [meetings(project.id), one, checkUrl]) {
      expectError(await api(t, "GET", url, { cookie: outsider.cookie }), 404, "not_found");
    }
    expectError(
      await api(t, "POST", meetings(project.id), { cookie: outsider.cookie, body }),
      404,
      "not_found",
    );
    expectJson(
      await api(t, "POST", `/api/projects/${project.id}/archive`, { cookie: owner.cookie }),
      200,
    );
    expectError(
      await api(t, "POST", meetings(project.id), { cookie: alice.cookie, body }),
      403,
      "forbidden",
    );
    expectError(
      await api(t, "PATCH", one, { cookie: alice.cookie, body: { title: "X" } }),
      403,
      "forbidden",
    );
    expectError(await api(t, "DELETE", one, { cookie: alice.cookie }), 403, "forbidden");
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /api/projects/:id/meetings/:id edits, replaces invitees and clears with null", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { owner, alice, bob, project } = await team(t);
    const { meeting } = await schedule(t, alice.cookie, project.id, {
      inviteeIds: [bob.user.id],
      location: "Room 1",
      minutes: "- agenda",
    });
    const one = meetings(project.id, `/${meeting.id}`);
    t.clock.advance(60_000);
    const res = await api(t, "PATCH", one, {
      cookie: bob.cookie,
      body: { title: "Retro", inviteeIds: [owner.user.id], location: null, minutes: null },
    });
    const body = expectJson(res, 200);
    assert.deepEqual(Object.keys(body).sort(), ["meeting", "warnings"]);
    assert.deepEqual(body.meeting, {
      ...meeting,
      title: "Retro",
      inviteeIds: [owner.user.id],
      location: null,
      minutes: null,
      updatedAt: "2026-11-22T08:31:00.000Z",
    });
    assert.deepEqual(body.warnings, []);
    assert.deepEqual(await getJson(t, alice.cookie, one), { meeting: body.meeting });

    const backwards = await api(t, "PATCH", one, {
      cookie: bob.cookie,
      body: { endAt: "2026-12-01T09:00:00Z" },
    });
    assert.ok(expectError(backwards, 400, "validation").details.endAt);
    const stranger = await api(t, "PATCH", one, {
      cookie: bob.cookie,
      body: { inviteeIds: [999_999] },
    });
    assert.ok(expectError(stranger, 400, "validation").details.inviteeIds);
    assert.deepEqual(await getJson(t, alice.cookie, one), { meeting: body.meeting });
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /api/projects/:id/meetings/:id notifies new invitees and those who stay on real changes", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { owner, alice, bob, viewer, project } = await team(t);
    const { meeting } = await schedule(t, alice.cookie, project.id, {
      inviteeIds: [bob.user.id, viewer.user.id],
    });
    const id = meeting.id;
    const one = meetings(project.id, `/${id}`);
    const patch = async (user: TestUser, body: Record<string, unknown>) =>
      expectJson(await api(t, "PATCH", one, { cookie: user.cookie, body }), 200);

    // Title and minutes are neither time, place nor invitees: nobody is told.
    await patch(alice, { title: "Renamed", minutes: "notes" });
    assert.deepEqual(await kinds(t, bob), [["meeting_invited", id]]);
    assert.deepEqual(await kinds(t, viewer), [["meeting_invited", id]]);

    // A new place.
    await patch(alice, { location: "Room 2" });
    assert.deepEqual(await kinds(t, bob), [["meeting_invited", id], ["meeting_updated", id]]);
    assert.deepEqual(await kinds(t, viewer), [["meeting_invited", id], ["meeting_updated", id]]);

    // The list changes: the owner is invited, Bob stays (updated), Vera is dropped (silence).
    await patch(alice, { inviteeIds: [bob.user.id, owner.user.id] });
    assert.deepEqual(await kinds(t, owner), [["meeting_invited", id]]);
    assert.deepEqual(await kinds(t, bob), [
      ["meeting_invited", id],
      ["meeting_updated", id],
      ["meeting_updated", id],
    ]);
    assert.deepEqual(await kinds(t, viewer), [["meeting_invited", id], ["meeting_updated", id]]);

    // Bob moves it: the owner is told, Bob (the actor) is not, nor Alice (not invited).
    await patch(bob, { startAt: "2026-12-01T12:00:00Z", endAt: "2026-12-01T13:00:00Z" });
    assert.deepEqual(await kinds(t, owner), [["meeting_invited", id], ["meeting_updated", id]]);
    assert.equal((await kinds(t, bob)).length, 3);
    assert.deepEqual(await kinds(t, alice), []);

    // The same list in another order, the same times: no change, no notification.
    await patch(alice, {
      inviteeIds: [owner.user.id, bob.user.id],
      startAt: "2026-12-01T21:00:00+09:00",
    });
    assert.equal((await kinds(t, owner)).length, 2);
    assert.equal((await kinds(t, bob)).length, 3);
  } finally {
    await t.close();
  }
});

Deno.test("DELETE /api/projects/:id/meetings/:id soft-deletes it", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { alice, bob, project } = await team(t);
    const { meeting } = await schedule(t, alice.cookie, project.id);
    const one = meetings(project.id, `/${meeting.id}`);
    expectNoContent(await api(t, "DELETE", one, { cookie: bob.cookie }));
    expectError(await api(t, "GET", one, { cookie: alice.cookie }), 404, "not_found");
    expectError(await api(t, "DELETE", one, { cookie: alice.cookie }), 404, "not_found");
    assert.deepEqual(await getJson(t, alice.cookie, meetings(project.id)), onePage([]));
    // A deleted meeting is no conflict.
    assert.deepEqual(
      await check(t, alice.cookie, project.id, {
        startAt: "2026-12-01T10:00:00Z",
        endAt: "2026-12-01T11:00:00Z",
      }),
      [],
    );
  } finally {
    await t.close();
  }
});

/** Apollo (Olga's, with Alice and Bob) and Zeus (Oscar's, with Alice but not Olga). */
async function twoProjects(t: TestApp) {
  const cast = await team(t);
  const zeus = await createProject(t, cast.outsider.cookie, "Zeus");
  await addMember(t, cast.outsider.cookie, zeus.id, "alice@example.com", "member");
  return { ...cast, zeus };
}

Deno.test("GET /api/projects/:id/meetings/check reports overlapping meetings per participant, not touching ones", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { owner, alice, bob, project } = await twoProjects(t);
    // Bob organises a meeting with Alice invited, 10:00-11:00.
    const { meeting } = await schedule(t, bob.cookie, project.id, {
      title: "Design",
      inviteeIds: [alice.user.id],
    });
    const design = (userId: number) => ({
      type: "meeting",
      id: meeting.id,
      projectId: project.id,
      title: "Design",
      start: "2026-12-01T10:00:00.000Z",
      end: "2026-12-01T11:00:00.000Z",
      userId,
    });
    const overlapping = { startAt: "2026-12-01T10:30:00Z", endAt: "2026-12-01T11:30:00Z" };

    const both = await check(t, owner.cookie, project.id, {
      ...overlapping,
      inviteeIds: `${alice.user.id},${bob.user.id}`,
    });
    assert.deepEqual(Object.keys(both[0]).sort(), CONFLICT_KEYS);
    assert.deepEqual(both, [design(alice.user.id), design(bob.user.id)]);

    // The organiser of the checked meeting is a participant: Bob checking alone.
    assert.deepEqual(await check(t, bob.cookie, project.id, overlapping), [design(bob.user.id)]);
    // Nobody concerned: the owner checking alone.
    assert.deepEqual(await check(t, owner.cookie, project.id, overlapping), []);

    // Touching ranges do not overlap.
    for (const range of [["11:00", "12:00"], ["09:00", "10:00"]]) {
      assert.deepEqual(
        await check(t, bob.cookie, project.id, {
          startAt: `2026-12-01T${range[0]}:00Z`,
          endAt: `2026-12-01T${range[1]}:00Z`,
        }),
        [],
        range.join("-"),
      );
    }
    // A range inside, and one around it, do.
    assert.equal(
      (await check(t, bob.cookie, project.id, {
        startAt: "2026-12-01T10:15:00Z",
        endAt: "2026-12-01T10:45:00Z",
      })).length,
      1,
    );
    assert.equal(
      (await check(t, bob.cookie, project.id, {
        startAt: "2026-12-01T09:00:00Z",
        endAt: "2026-12-01T12:00:00Z",
      })).length,
      1,
    );

    // excludeMeetingId leaves it out (checking a meeting against itself).
    assert.deepEqual(
      await check(t, bob.cookie, project.id, {
        ...overlapping,
        inviteeIds: `${alice.user.id}`,
        excludeMeetingId: String(meeting.id),
      }),
      [],
    );
  } finally {
    await t.close();
  }
});

Deno.test("GET /api/projects/:id/meetings/check hides titles of projects the caller is not in", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { admin, owner, alice, outsider, project, zeus } = await twoProjects(t);
    const { meeting } = await schedule(t, outsider.cookie, zeus.id, {
      title: "Zeus secret",
      inviteeIds: [alice.user.id],
    });
    const range = { startAt: "2026-12-01T10:30:00Z", endAt: "2026-12-01T11:30:00Z" };
    const expected = (title: string | null) => [{
      type: "meeting",
      id: meeting.id,
      projectId: zeus.id,
      title,
      start: "2026-12-01T10:00:00.000Z",
      end: "2026-12-01T11:00:00.000Z",
      userId: alice.user.id,
    }];
    // Olga is not in Zeus: she learns Alice is busy, not with what.
    assert.deepEqual(
      await check(t, owner.cookie, project.id, { ...range, inviteeIds: String(alice.user.id) }),
      expected(null),
    );
    // Alice is in Zeus; a system admin sees every project.
    assert.deepEqual(await check(t, alice.cookie, project.id, range), expected("Zeus secret"));
    assert.deepEqual(
      await check(t, admin.cookie, project.id, { ...range, inviteeIds: String(alice.user.id) }),
      expected("Zeus secret"),
    );
    assert.ok(
      !JSON.stringify(
        await check(t, owner.cookie, project.id, {
          ...range,
          inviteeIds: String(alice.user.id),
        }),
      ).includes("Zeus secret"),
    );

    // A deleted project's meetings are ignored.
    expectNoContent(
      await api(t, "DELETE", `/api/projects/${zeus.id}`, { cookie: outsider.cookie }),
    );
    assert.deepEqual(await check(t, alice.cookie, project.id, range), []);
  } finally {
    await t.close();
  }
});

Deno.test("GET /api/projects/:id/meetings/check reports this project's overlapping events for their creator", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { owner, alice, outsider, project, zeus } = await twoProjects(t);
    const event = async (cookie: string, projectId: number, startAt: string, endAt: string) =>
      expectJson(
        await api(t, "POST", `/api/projects/${projectId}/calendar/events`, {
          cookie,
          body: { title: "Release", startAt, endAt },
        }),
        201,
      ).event;
    const inside = await event(
      owner.cookie,
      project.id,
      "2026-12-01T10:45:00Z",
      "2026-12-01T12:00:00Z",
    );
    await event(owner.cookie, project.id, "2026-12-01T09:00:00Z", "2026-12-01T10:00:00Z");
    await event(owner.cookie, project.id, "2026-12-01T11:00:00Z", "2026-12-01T12:00:00Z");
    // Another project's events are not this meeting's business.
    await event(outsider.cookie, zeus.id, "2026-12-01T10:00:00Z", "2026-12-01T11:00:00Z");
    const conflicts = await check(t, alice.cookie, project.id, {
      startAt: "2026-12-01T10:00:00Z",
      endAt: "2026-12-01T11:00:00Z",
    });
    assert.deepEqual(conflicts, [{
      type: "event",
      id: inside.id,
      projectId: project.id,
      title: "Release",
      start: "2026-12-01T10:45:00.000Z",
      end: "2026-12-01T12:00:00.000Z",
      userId: owner.user.id,
    }]);
  } finally {
    await t.close();
  }
});

Deno.test("GET /api/projects/:id/meetings/check reports high-priority open to-dos due within 3 days", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { owner, alice, bob, project, zeus } = await twoProjects(t);
    const a = alice.user.id;
    const todo = (title: string, fields: Partial<Parameters<typeof insertTodo>[2]> = {}) =>
      insertTodo(t, project.id, { title, assigneeId: a, dueDate: "2026-12-10", ...fields });
    const threeBefore = await todo("3 days before", { dueDate: "2026-12-07" });
    await todo("4 days before", { dueDate: "2026-12-06" });
    const threeAfter = await todo("3 days after", {
      dueDate: "2026-12-14",
      startDate: "2026-12-12",
    });
    await todo("4 days after", { dueDate: "2026-12-15" });
    await todo("normal priority", { priority: "normal" });
    await todo("low priority", { priority: "low" });
    await todo("completed", { completed: true });
    await todo("deleted", { deleted: true });
    await todo("bob's", { assigneeId: bob.user.id });
    const elsewhere = await insertTodo(t, zeus.id, {
      title: "Zeus task",
      assigneeId: a,
      dueDate: "2026-12-10",
    });

    // The meeting runs over two UTC days: 10 Dec 23:00 to 11 Dec 01:00.
    const range = { startAt: "2026-12-10T23:00:00Z", endAt: "2026-12-11T01:00:00Z" };
    const conflicts = await check(t, owner.cookie, project.id, {
      ...range,
      inviteeIds: String(a),
    });
    assert.deepEqual(conflicts, [
      {
        type: "todo",
        id: threeBefore,
        projectId: project.id,
        title: "3 days before",
        start: "2026-12-07",
        end: "2026-12-07",
        userId: a,
      },
      {
        type: "todo",
        id: elsewhere,
        projectId: zeus.id,
        title: null,
        start: "2026-12-10",
        end: "2026-12-10",
        userId: a,
      },
      {
        type: "todo",
        id: threeAfter,
        projectId: project.id,
        title: "3 days after",
        start: "2026-12-12",
        end: "2026-12-14",
        userId: a,
      },
    ]);
    // Without Alice among the participants, none of hers count.
    assert.deepEqual(await check(t, owner.cookie, project.id, range), []);
  } finally {
    await t.close();
  }
});

Deno.test("POST and PATCH meetings return conflicts as warnings and still save", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { owner, alice, bob, outsider, project, zeus } = await twoProjects(t);
    const bobs = await schedule(t, bob.cookie, project.id, { title: "Bob's" });
    const { meeting, warnings } = await schedule(t, alice.cookie, project.id, {
      title: "Alice's",
      startAt: "2026-12-01T10:30:00Z",
      endAt: "2026-12-01T11:30:00Z",
      inviteeIds: [bob.user.id],
    });
    assert.deepEqual(warnings.map((w: Json) => [w.type, w.id, w.userId]), [
      ["meeting", bobs.meeting.id, bob.user.id],
    ]);
    assert.equal((await getJson(t, alice.cookie, meetings(project.id))).items.length, 2);

    // The owner (not a participant) has a clashing meeting of her own; Alice (the
    // organiser) one in Zeus, where Olga is not a member.
    await schedule(t, owner.cookie, project.id, { title: "Olga's" });
    const zeusMeeting = await schedule(t, outsider.cookie, zeus.id, {
      title: "Zeus",
      inviteeIds: [alice.user.id],
    });
    const res = await api(t, "PATCH", meetings(project.id, `/${meeting.id}`), {
      cookie: owner.cookie,
      body: { title: "Alice's, renamed" },
    });
    const updated = expectJson(res, 200);
    assert.equal(updated.meeting.title, "Alice's, renamed");
    // Participants are the creator (Alice) and the invitees; never the meeting itself.
    assert.deepEqual(updated.warnings.map((w: Json) => [w.id, w.userId, w.title]), [
      [bobs.meeting.id, bob.user.id, "Bob's"],
      [zeusMeeting.meeting.id, alice.user.id, null],
    ]);
  } finally {
    await t.close();
  }
});

Deno.test("GET /api/projects/:id/meetings/check validates its query", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { alice, viewer, outsider, project } = await team(t);
    const range = "startAt=2026-12-01T10:00:00Z&endAt=2026-12-01T11:00:00Z";
    const cases: Array<[string, string]> = [
      ["endAt=2026-12-01T11:00:00Z", "startAt"],
      ["startAt=2026-12-01T11:00:00Z", "endAt"],
      ["startAt=2026-12-01T11:00:00Z&endAt=2026-12-01T10:00:00Z", "endAt"],
      ["startAt=noon&endAt=2026-12-01T10:00:00Z", "startAt"],
      [`${range}&inviteeIds=a,b`, "inviteeIds"],
      [`${range}&inviteeIds=${outsider.user.id}`, "inviteeIds"],
      [`${range}&excludeMeetingId=x`, "excludeMeetingId"],
    ];
    for (const [query, field] of cases) {
      const res = await api(t, "GET", meetings(project.id, `/check?${query}`), {
        cookie: alice.cookie,
      });
      const error = expectError(res, 400, "validation");
      assert.ok(error.details[field], `${query}: ${JSON.stringify(error)}`);
    }
    // Viewers may check; an empty invitee list and spaces are fine.
    const ok = await api(t, "GET", meetings(project.id, `/check?${range}&inviteeIds=`), {
      cookie: viewer.cookie,
    });
    assert.deepEqual(expectJson(ok, 200), { conflicts: [] });
    const spaced = await api(
      t,
      "GET",
      meetings(project.id, `/check?${range}&inviteeIds=${alice.user.id},%20${viewer.user.id}`),
      { cookie: viewer.cookie },
    );
    assert.deepEqual(expectJson(spaced, 200), { conflicts: [] });
  } finally {
    await t.close();
  }
});

Deno.test("GET /api/projects/:id/meetings is paged, upcoming first (soonest), then past (latest first)", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { alice, project } = await team(t);
    // Seeded straight into the store, in an order unlike the list's, with ties on the start.
    const seeded: Array<{ title: string; startAt: string; endAt: string; deleted?: boolean }> = [];
    const at = (day: number, hour: number) =>
      `2026-${day > 30 ? "12" : "11"}-${String(day > 30 ? day - 30 : day).padStart(2, "0")}T${
        String(hour).padStart(2, "0")
      }:00:00.000Z`;
    for (let i = 0; i < 26; i++) {
      seeded.push({
        title: `next ${i}`,
        startAt: at(23 + (i % 13), 9),
        endAt: at(23 + (i % 13), 10),
      });
    }
    for (let i = 0; i < 14; i++) {
      seeded.push({ title: `past ${i}`, startAt: at(1 + (i % 7), 9), endAt: at(1 + (i % 7), 10) });
    }
    seeded.push({ title: "running", startAt: at(22, 8), endAt: at(22, 9) });
    seeded.push({ title: "ended now", startAt: at(22, 7), endAt: NOW });
    seeded.push({ title: "deleted", startAt: at(24, 9), endAt: at(24, 10), deleted: true });
    const rows: Array<{ id: number; title: string; startAt: string; endAt: string }> = [];
    for (const m of [...seeded].reverse()) {
      const { id } = await t.sql.returning<{ id: number }>(
        `INSERT INTO meetings (project_id, creator_id, title, start_at, end_at, created_at,
         updated_at, deleted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
        [project.id, alice.user.id, m.title, m.startAt, m.endAt, NOW, NOW, m.deleted ? NOW : null],
      );
      if (!m.deleted) rows.push({ id, ...m });
    }
    const upcoming = rows.filter((m) => m.endAt > NOW)
      .sort((a, b) => a.startAt.localeCompare(b.startAt) || a.id - b.id);
    const past = rows.filter((m) => m.endAt <= NOW)
      .sort((a, b) => b.startAt.localeCompare(a.startAt) || b.id - a.id);
    const expected = [...upcoming, ...past].map((m) => m.id);
    assert.equal(expected.length, 42);
    assert.equal(upcoming[0]?.title, "running");
    assert.equal(past[0]?.title, "ended now");

    const list = (query: string) => getJson(t, alice.cookie, meetings(project.id, query));
    const ids = (page: Json) => page.items.map((m: { id: number }) => m.id);
    const first = await list("");
    assert.deepEqual(
      { ...first, items: ids(first) },
      { items: expected.slice(0, 20), page: 1, pageSize: 20, total: 42, hasMore: true },
    );
    const second = await list("?page=2");
    assert.deepEqual(
      { ...second, items: ids(second) },
      { items: expected.slice(20, 40), page: 2, pageSize: 20, total: 42, hasMore: true },
    );
    const third = await list("?page=3&pageSize=20");
    assert.deepEqual(
      { ...third, items: ids(third) },
      { items: expected.slice(40), page: 3, pageSize: 20, total: 42, hasMore: false },
    );
    const small = await list("?page=4&pageSize=5");
    assert.deepEqual(ids(small), expected.slice(15, 20));
    assert.equal(small.hasMore, true);
    // Above 100 is 100; zero, negative or text is the default.
    const all = await list("?pageSize=1000");
    assert.deepEqual([all.pageSize, all.total, all.hasMore], [100, 42, false]);
    assert.deepEqual(ids(all), expected);
    for (const query of ["?page=0", "?page=-3", "?page=x&pageSize=0"]) {
      const page = await list(query);
      assert.deepEqual([page.page, page.pageSize, ids(page)], [1, 20, expected.slice(0, 20)]);
    }
    const beyond = await list("?page=9");
    assert.deepEqual([beyond.items, beyond.total, beyond.hasMore], [[], 42, false]);
  } finally {
    await t.close();
  }
});
