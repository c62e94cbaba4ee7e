/** The project and personal dashboards, with a fixed clock at the window edges. */
import assert from "node:assert/strict";
import { testApp } from "../helpers/app.ts";
import { spyOnEngine } from "../helpers/engine_spy.ts";
import {
  addMember,
  api,
  createProject,
  expectError,
  expectJson,
  register,
  uploadFile,
} from "../helpers/api.ts";

type T = Awaited<ReturnType<typeof testApp>>;
const NOW = "2026-11-22T08:30:00.000Z"; // today is 2026-11-22

async function post(t: T, cookie: string, path: string, body?: unknown) {
  const res = await api(t, "POST", path, { cookie, ...(body === undefined ? {} : { body }) });
  assert.ok(res.status === 201 || res.status === 200, `${path}: ${res.status} ${res.text}`);
  return res.json;
}

async function setup() {
  const t = await testApp({ now: NOW });
  await register(t, "root@example.com");
  const ann = await register(t, "ann@example.com");
  const bo = await register(t, "bo@example.com");
  const project = await createProject(t, ann, "Dash");
  const member = await addMember(t, ann, project.id, "bo@example.com", "member");
  return { t, ann, bo, p: project.id as number, boId: member.userId as number };
}

const titles = (items: Array<{ title: string }>) => items.map((i) => i.title);

Deno.test("the project dashboard holds exactly the contract's contents at the window edges", async () => {
  const { t, ann, p, boId } = await setup();
  try {
    const base = `/api/projects/${p}`;
    const columns = (expectJson(await api(t, "GET", `${base}/todos/columns`, { cookie: ann }), 200))
      .items;
    const inProgress = columns.find((c: { key: string }) => c.key === "in_progress").id;
    const todo = async (title: string, extra: Record<string, unknown>) =>
      (await post(t, ann, `${base}/todos/items`, { title, ...extra })).item;
    await todo("doing", { columnId: inProgress });
    const doneDoing = await todo("doing but done", { columnId: inProgress });
    await post(t, ann, `${base}/todos/items/${doneDoing.id}/toggle-complete`);
    await todo("due today", { dueDate: "2026-11-22" });
    await todo("due in 7 days", { dueDate: "2026-11-29" });
    await todo("due in 8 days", { dueDate: "2026-11-30" });
    await todo("overdue", { dueDate: "2026-11-21" });
    const doneSoon = await todo("due soon but done", { dueDate: "2026-11-23", assigneeId: boId });
    await post(t, ann, `${base}/todos/items/${doneSoon.id}/toggle-complete`);
    for (let i = 1; i <= 6; i++) {
      t.clock.advance(1000);
      await post(t, ann, `${base}/chat/messages`, { text: `message ${i}` });
      await post(t, ann, `${base}/board/threads`, {
        title: `thread ${i}`,
        body: "b",
        category: "general",
      });
      await post(t, ann, `${base}/notes`, { title: `note ${i}`, body: "b" });
      await uploadFile(t, ann, p, `file${i}.txt`, "x");
    }
    await post(t, ann, `${base}/meetings`, {
      title: "started",
      startAt: "2026-11-22T08:00:00Z",
      endAt: "2026-11-22T09:00:00Z",
      inviteeIds: [],
    });
    await post(t, ann, `${base}/meetings`, {
      title: "later",
      startAt: "2026-11-25T08:00:00Z",
      endAt: "2026-11-25T09:00:00Z",
      inviteeIds: [boId],
    });
    await post(t, ann, `${base}/meetings`, {
      title: "soonest",
      startAt: "2026-11-22T10:00:00Z",
      endAt: "2026-11-22T11:00:00Z",
      inviteeIds: [],
    });
    const milestone = (await post(t, ann, `${base}/milestones`, { title: "M1" })).milestone;
    for (const [title, done] of [["a", true], ["b", false], ["c", false]] as const) {
      const item = await todo(`m-${title}`, { milestoneId: milestone.id });
      if (done) await post(t, ann, `${base}/todos/items/${item.id}/toggle-complete`);
    }

    const res = await api(t, "GET", `${base}/dashboard`, { cookie: ann });
    const d = expectJson(res, 200);
    assert.deepEqual(Object.keys(d).sort(), [
      "inProgressTodos",
      "inProgressTodosTotal",
      "inProgressTodosTotalIsExact",
      "latestChat",
      "latestChatTotal",
      "latestChatTotalIsExact",
      "latestFiles",
      "latestFilesTotal",
      "latestFilesTotalIsExact",
      "latestNotes",
      "latestNotesTotal",
      "latestNotesTotalIsExact",
      "latestThreads",
      "latestThreadsTotal",
      "latestThreadsTotalIsExact",
      "milestones",
      "milestonesTotal",
      "nearDueTodos",
      "nearDueTodosTotal",
      "nearDueTodosTotalIsExact",
      "nextMeeting",
      "recentActivity",
      "recentActivityTotal",
      "recentActivityTotalIsExact",
    ]);
    assert.deepEqual(
      [d.inProgressTodosTotal, d.nearDueTodosTotal, d.milestonesTotal],
      [1, 2, 1],
    );
    assert.deepEqual(titles(d.inProgressTodos), ["doing"]);
    assert.deepEqual(titles(d.nearDueTodos), ["due today", "due in 7 days"]);
    assert.deepEqual(d.latestChat.map((m: { text: string }) => m.text), [
      "message 6",
      "message 5",
      "message 4",
      "message 3",
      "message 2",
    ]);
    assert.deepEqual(titles(d.latestThreads), [
      "thread 6",
      "thread 5",
      "thread 4",
      "thread 3",
      "thread 2",
    ]);
    assert.deepEqual(titles(d.latestNotes), ["note 6", "note 5", "note 4", "note 3", "note 2"]);
    assert.deepEqual(d.latestFiles.map((f: { name: string }) => f.name), [
      "file6.txt",
      "file5.txt",
      "file4.txt",
      "file3.txt",
      "file2.txt",
    ]);
    assert.equal(d.nextMeeting.title, "soonest");
    assert.deepEqual(
      d.milestones.map((m: { title: string; progress: number }) => [m.title, m.progress]),
      [
        ["M1", 33],
      ],
    );
    assert.equal(d.recentActivity.length, 10);
    const times = d.recentActivity.map((a: { createdAt: string; id: number }) =>
      `${a.createdAt}#${a.id}`
    );
    assert.deepEqual([...times].sort().reverse(), times);
  } finally {
    await t.close();
  }
});

Deno.test("the personal dashboard gathers my work across projects", async () => {
  const { t, ann, bo, p, boId } = await setup();
  try {
    const other = await createProject(t, ann, "Other");
    await addMember(t, ann, other.id, "bo@example.com", "member");
    const todo = async (project: number, title: string, extra: Record<string, unknown>) =>
      (await post(t, ann, `/api/projects/${project}/todos/items`, { title, ...extra })).item;
    await todo(p, "mine overdue", { assigneeId: boId, dueDate: "2026-11-21" });
    await todo(other.id, "mine today", { assigneeId: boId, dueDate: "2026-11-22" });
    await todo(p, "mine undated", { assigneeId: boId });
    await todo(p, "not mine", { dueDate: "2026-11-01" });
    const done = await todo(p, "mine done", { assigneeId: boId, dueDate: "2026-11-01" });
    await post(t, ann, `/api/projects/${p}/todos/items/${done.id}/toggle-complete`);
    const meeting = (start: string, end: string, invitees: number[], title: string) =>
      post(t, ann, `/api/projects/${other.id}/meetings`, {
        title,
        startAt: start,
        endAt: end,
        inviteeIds: invitees,
      });
    await meeting("2026-11-22T07:00:00Z", "2026-11-22T08:30:00Z", [boId], "ended exactly now");
    await meeting("2026-11-22T08:00:00Z", "2026-11-22T09:00:00Z", [boId], "running");
    await meeting("2026-11-24T08:00:00Z", "2026-11-24T09:00:00Z", [boId], "upcoming");
    await meeting("2026-11-24T08:00:00Z", "2026-11-24T09:00:00Z", [], "not invited");
    await post(t, bo, `/api/projects/${p}/meetings`, {
      title: "I organise",
      startAt: "2026-11-26T08:00:00Z",
      endAt: "2026-11-26T09:00:00Z",
      inviteeIds: [],
    });

    const d = expectJson(await api(t, "GET", "/api/dashboard", { cookie: bo }), 200);
    assert.deepEqual(Object.keys(d).sort(), [
      "incompleteTodos",
      "incompleteTodosTotal",
      "incompleteTodosTotalIsExact",
      "overdueTodos",
      "overdueTodosTotal",
      "overdueTodosTotalIsExact",
      "projects",
      "projectsTotal",
      "recentActivity",
      "recentActivityTotal",
      "recentActivityTotalIsExact",
      "unreadNotifications",
      "upcomingMeetings",
      "upcomingMeetingsTotal",
    ]);
    assert.deepEqual(
      [d.projectsTotal, d.incompleteTodosTotal, d.overdueTodosTotal, d.upcomingMeetingsTotal],
      [2, 3, 1, 3],
    );
    assert.deepEqual(d.projects.map((x: { name: string }) => x.name), ["Dash", "Other"]);
    assert.deepEqual(titles(d.incompleteTodos), ["mine overdue", "mine today", "mine undated"]);
    assert.deepEqual(titles(d.overdueTodos), ["mine overdue"]);
    assert.deepEqual(titles(d.upcomingMeetings), ["running", "upcoming", "I organise"]);
    // member_added ×2, todo_assigned ×3 (the done one too), meeting_invited ×3.
    assert.equal(d.unreadNotifications.count, 9);
    assert.equal(d.unreadNotifications.latest.length, 5);
    assert.equal(d.recentActivity.length, 10);
    assert.ok(d.recentActivity.some((a: { projectId: number }) => a.projectId === other.id));
  } finally {
    await t.close();
  }
});

/** Seeds rows straight into the store (many of them, quicker than through the API). */
function seeder(t: T, cookie: string) {
  return {
    /** A standard column's id (listing the columns makes them, the first time). */
    column: async (projectId: number, key: string) => {
      expectJson(await api(t, "GET", `/api/projects/${projectId}/todos/columns`, { cookie }), 200);
      return (await t.sql.get<{ id: number }>(
        "SELECT id FROM todo_columns WHERE project_id = ? AND key = ?",
        [projectId, key],
      ))!.id;
    },
    item: (
      projectId: number,
      columnId: number,
      creatorId: number,
      item: {
        title: string;
        order: number;
        dueDate?: string;
        assigneeId?: number;
        completed?: boolean;
        deleted?: boolean;
      },
    ) =>
      t.sql.run(
        `INSERT INTO todo_items (project_id, column_id, creator_id, title, assignee_id, due_date,
         order_index, completed, created_at, updated_at, deleted_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          projectId,
          columnId,
          creatorId,
          item.title,
          item.assigneeId ?? null,
          item.dueDate ?? null,
          item.order,
          item.completed ? 1 : 0,
          NOW,
          NOW,
          item.deleted ? NOW : null,
        ],
      ),
    milestone: (projectId: number, creatorId: number, title: string, createdAt: string) =>
      t.sql.run(
        `INSERT INTO milestones (project_id, creator_id, title, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?)`,
        [projectId, creatorId, title, createdAt, createdAt],
      ),
    meeting: (
      projectId: number,
      creatorId: number,
      m: { title: string; startAt: string; endAt: string; deleted?: boolean },
    ) =>
      t.sql.run(
        `INSERT INTO meetings (project_id, creator_id, title, start_at, end_at, created_at,
         updated_at, deleted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        [projectId, creatorId, m.title, m.startAt, m.endAt, NOW, NOW, m.deleted ? NOW : null],
      ),
  };
}

const pad = (n: number) => String(n).padStart(2, "0");

Deno.test("the project dashboard's lists hold 20 at most, each with its exact total beside it", async () => {
  const { t, ann, p } = await setup();
  try {
    const seed = seeder(t, ann);
    const annId = 2;
    const inProgress = await seed.column(p, "in_progress");
    const todoColumn = await seed.column(p, "todo");
    // 45 open in progress, in board order 44..0 (listed by order, not by id), and some that
    // do not count: complete, deleted.
    for (let i = 0; i < 45; i++) {
      await seed.item(p, inProgress, annId, { title: `doing ${pad(i)}`, order: 44 - i });
    }
    await seed.item(p, inProgress, annId, { title: "doing done", order: 0, completed: true });
    await seed.item(p, inProgress, annId, { title: "doing deleted", order: 0, deleted: true });
    // 27 due within the week (today .. 7 days ahead), and others that do not count.
    for (let i = 0; i < 27; i++) {
      await seed.item(p, todoColumn, annId, {
        title: `due ${pad(i)}`,
        order: i,
        dueDate: `2026-11-${22 + (i % 8)}`,
      });
    }
    await seed.item(p, todoColumn, annId, { title: "overdue", order: 0, dueDate: "2026-11-21" });
    await seed.item(p, todoColumn, annId, { title: "too late", order: 0, dueDate: "2026-11-30" });
    await seed.item(p, todoColumn, annId, {
      title: "due done",
      order: 0,
      dueDate: "2026-11-23",
      completed: true,
    });
    for (let i = 0; i < 23; i++) {
      await seed.milestone(p, annId, `M${pad(i)}`, `2026-01-01T00:00:${pad(59 - i)}.000Z`);
    }

    const d = expectJson(await api(t, "GET", `/api/projects/${p}/dashboard`, { cookie: ann }), 200);
    assert.equal(d.inProgressTodos.length, 20);
    assert.equal(d.inProgressTodosTotal, 45);
    assert.deepEqual(
      titles(d.inProgressTodos),
      Array.from({ length: 20 }, (_, k) => `doing ${pad(44 - k)}`),
    );
    assert.equal(d.nearDueTodos.length, 20);
    assert.equal(d.nearDueTodosTotal, 27);
    const due = d.nearDueTodos.map((i: { dueDate: string }) => i.dueDate);
    assert.deepEqual(due, [...due].sort());
    assert.equal(d.milestones.length, 20);
    assert.equal(d.milestonesTotal, 23);
    // Oldest first: the last seeded is the oldest.
    assert.equal(d.milestones[0].title, "M22");
    assert.equal(d.milestones[19].title, "M03");
  } finally {
    await t.close();
  }
});

Deno.test("the personal dashboard's lists hold 20 at most, each with its exact total beside it", async () => {
  const { t, ann, bo, p, boId } = await setup();
  try {
    const seed = seeder(t, ann);
    const annId = 2;
    for (let i = 0; i < 21; i++) {
      const extra = await createProject(t, ann, `Extra ${pad(i)}`);
      await addMember(t, ann, extra.id, "bo@example.com", "member");
    }
    const todoColumn = await seed.column(p, "todo");
    for (let i = 0; i < 22; i++) {
      await seed.item(p, todoColumn, annId, {
        title: `late ${pad(i)}`,
        order: i,
        assigneeId: boId,
        dueDate: `2026-10-${pad(i + 1)}`,
      });
    }
    for (let i = 0; i < 3; i++) {
      await seed.item(p, todoColumn, annId, { title: `later ${i}`, order: i, assigneeId: boId });
    }
    await seed.item(p, todoColumn, annId, {
      title: "late done",
      order: 0,
      assigneeId: boId,
      dueDate: "2026-10-01",
      completed: true,
    });
    for (let i = 0; i < 24; i++) {
      await seed.meeting(p, boId, {
        title: `meet ${pad(i)}`,
        startAt: `2026-12-${pad(i + 1)}T08:00:00.000Z`,
        endAt: `2026-12-${pad(i + 1)}T09:00:00.000Z`,
      });
    }
    await seed.meeting(p, boId, {
      title: "over",
      startAt: "2026-11-01T08:00:00.000Z",
      endAt: "2026-11-01T09:00:00.000Z",
    });
    await seed.meeting(p, boId, {
      title: "gone",
      startAt: "2026-12-01T08:00:00.000Z",
      endAt: "2026-12-01T09:00:00.000Z",
      deleted: true,
    });

    const d = expectJson(await api(t, "GET", "/api/dashboard", { cookie: bo }), 200);
    assert.equal(d.projects.length, 20);
    assert.equal(d.projectsTotal, 22);
    assert.equal(d.projects[0].name, "Dash");
    assert.equal(d.overdueTodos.length, 20);
    assert.equal(d.overdueTodosTotal, 22);
    assert.equal(d.overdueTodos[0].title, "late 00");
    assert.equal(d.incompleteTodos.length, 20);
    assert.equal(d.incompleteTodosTotal, 25);
    assert.equal(d.upcomingMeetings.length, 20);
    assert.equal(d.upcomingMeetingsTotal, 24);
    assert.deepEqual(
      titles(d.upcomingMeetings),
      Array.from({ length: 20 }, (_, k) => `meet ${pad(k)}`),
    );
  } finally {
    await t.close();
  }
});

Deno.test("the dashboards cost the same number of queries however much data there is", async () => {
  const { t, ann, p } = await setup();
  try {
    const spy = spyOnEngine(t.engine);
    // Only the dashboard's own queries: on PostgreSQL the event relay reads the logs meanwhile.
    const count = async (path: string) =>
      (await spy.during(async () => expectJson(await api(t, "GET", path, { cookie: ann }), 200)))
        .queries;
    // One of each kind first, so every list is non-empty in both measurements.
    await post(t, ann, `/api/projects/${p}/todos/items`, {
      title: "seed",
      assigneeId: 2,
      dueDate: "2026-11-23",
    });
    await post(t, ann, `/api/projects/${p}/chat/messages`, { text: "seed" });
    const smallProject = await count(`/api/projects/${p}/dashboard`);
    // The project dashboard is one read: every query past the session's in it (on PostgreSQL,
    // one connection and one view of the data).
    const shown = await spy.during(async () =>
      expectJson(await api(t, "GET", `/api/projects/${p}/dashboard`, { cookie: ann }), 200)
    );
    assert.equal(shown.reads, 1);
    assert.ok(shown.queriesInReads >= 15, `${shown.queriesInReads} queries in the read`);
    assert.ok(shown.queries - shown.queriesInReads <= 2, `${shown.queries} queries in all`);
    const smallPersonal = await count("/api/dashboard");
    for (let i = 0; i < 5; i++) {
      const extra = await createProject(t, ann, `P${i}`);
      for (let j = 0; j < 4; j++) {
        await post(t, ann, `/api/projects/${extra.id}/todos/items`, {
          title: `t${j}`,
          assigneeId: 2,
        });
        await post(t, ann, `/api/projects/${p}/todos/items`, {
          title: `u${i}${j}`,
          dueDate: "2026-11-23",
        });
        await post(t, ann, `/api/projects/${p}/chat/messages`, { text: `c${i}${j}` });
      }
    }
    assert.equal(await count(`/api/projects/${p}/dashboard`), smallProject);
    assert.equal(await count("/api/dashboard"), smallPersonal);
    spy.restore();
  } finally {
    await t.close();
  }
});

Deno.test("a project dashboard is 404 for non-members and 401 without a session", async () => {
  const { t, p } = await setup();
  try {
    const stranger = await register(t, "cy@example.com");
    expectError(
      await api(t, "GET", `/api/projects/${p}/dashboard`, { cookie: stranger }),
      404,
      "not_found",
    );
    expectError(await api(t, "GET", `/api/projects/${p}/dashboard`), 401, "unauthenticated");
    expectError(await api(t, "GET", "/api/dashboard"), 401, "unauthenticated");
  } finally {
    await t.close();
  }
});
