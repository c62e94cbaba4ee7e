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
      "latestChat",
      "latestFiles",
      "latestNotes",
      "latestThreads",
      "milestones",
      "nearDueTodos",
      "nextMeeting",
      "recentActivity",
    ]);
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
      "overdueTodos",
      "projects",
      "recentActivity",
      "unreadNotifications",
      "upcomingMeetings",
    ]);
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
