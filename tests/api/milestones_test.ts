/** Milestones: create, read, edit (null clears), progress over linked to-dos, permissions. */
import assert from "node:assert/strict";
import { type TestApp, testApp } from "../helpers/app.ts";
import {
  activityOf,
  api,
  expectError,
  expectJson,
  getJson,
  type Json,
  team,
} from "../helpers/api.ts";

/** The list's only page, as the page object gives it (paging's defaults). */
function onePage<T>(items: T[]) {
  return { items, page: 1, pageSize: 20, total: items.length, hasMore: false };
}

const NOW = "2026-11-22T08:30:00.000Z";
const MILESTONE_KEYS = [
  "createdAt",
  "creatorId",
  "description",
  "dueDate",
  "id",
  "progress",
  "projectId",
  "title",
  "updatedAt",
];

function path(projectId: number, rest = ""): string {
  return `/api/projects/${projectId}/milestones${rest}`;
}

async function createMilestone(
  t: TestApp,
  cookie: string,
  projectId: number,
  fields: Record<string, unknown> = {},
): Promise<Json> {
  const res = await api(t, "POST", path(projectId), {
    cookie,
    body: { title: "Beta", ...fields },
  });
  return expectJson(res, 201).milestone;
}

/**
 * Inserts to-do items linked to a milestone straight into the database: the to-do API is
 * built separately, and progress only reads the rows (live, completed, milestone_id).
 */
async function insertItems(
  t: TestApp,
  projectId: number,
  creatorId: number,
  items: Array<{ milestoneId: number | null; completed?: boolean; deleted?: boolean }>,
): Promise<void> {
  const column = await t.sql.returning<{ id: number }>(
    `INSERT INTO todo_columns (project_id, name, key, position, created_at, updated_at)
     VALUES (?, 'Scratch', NULL, 99, ?, ?) RETURNING id`,
    [projectId, NOW, NOW],
  );
  for (const [i, item] of items.entries()) {
    await t.sql.run(
      `INSERT INTO todo_items (project_id, column_id, creator_id, title, order_index, completed,
       completed_at, milestone_id, created_at, updated_at, deleted_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        projectId,
        column.id,
        creatorId,
        `Item ${i}`,
        i,
        item.completed ? 1 : 0,
        item.completed ? NOW : null,
        item.milestoneId,
        NOW,
        NOW,
        item.deleted ? NOW : null,
      ],
    );
  }
}

Deno.test("POST /api/projects/:id/milestones creates a milestone (201 {milestone})", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { alice, project } = await team(t);
    const res = await api(t, "POST", path(project.id), {
      cookie: alice.cookie,
      body: { title: "  Beta release ", description: "Feature complete", dueDate: "2026-12-15" },
    });
    const { milestone } = expectJson(res, 201);
    assert.deepEqual(Object.keys(milestone).sort(), MILESTONE_KEYS);
    assert.deepEqual(milestone, {
      id: milestone.id,
      projectId: project.id,
      creatorId: alice.user.id,
      title: "Beta release",
      description: "Feature complete",
      dueDate: "2026-12-15",
      progress: 0,
      createdAt: NOW,
      updatedAt: NOW,
    });
    assert.deepEqual(
      await getJson(t, alice.cookie, path(project.id, `/${milestone.id}`)),
      { milestone },
    );
    assert.deepEqual(await getJson(t, alice.cookie, path(project.id)), onePage([milestone]));

    const bare = await createMilestone(t, alice.cookie, project.id, { title: "Bare" });
    assert.equal(bare.description, null);
    assert.equal(bare.dueDate, null);
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/projects/:id/milestones writes milestone_updated activity", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { alice, project } = await team(t);
    const milestone = await createMilestone(t, alice.cookie, project.id);
    const activity = await activityOf(t, alice.cookie, project.id);
    const entry = activity.items.find((a: Json) => a.subjectType === "milestone");
    assert.ok(entry, "a milestone activity entry");
    assert.equal(entry.kind, "milestone_updated");
    assert.equal(entry.subjectId, milestone.id);
    assert.equal(entry.actorId, alice.user.id);
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/projects/:id/milestones rejects a blank title or a bad due date", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { alice, project } = await team(t);
    const blank = await api(t, "POST", path(project.id), {
      cookie: alice.cookie,
      body: { title: "   " },
    });
    assert.ok(expectError(blank, 400, "validation").details.title);
    for (const dueDate of ["2026-02-30", "2026-13-01", "15/12/2026", "2026-12-15T00:00:00Z"]) {
      const res = await api(t, "POST", path(project.id), {
        cookie: alice.cookie,
        body: { title: "Beta", dueDate },
      });
      assert.ok(expectError(res, 400, "validation").details.dueDate, dueDate);
    }
    assert.deepEqual(await getJson(t, alice.cookie, path(project.id)), onePage([]));
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /api/projects/:id/milestones/:id leaves absent fields and clears nulls", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { alice, bob, project } = await team(t);
    const created = await createMilestone(t, alice.cookie, project.id, {
      description: "Notes",
      dueDate: "2026-12-15",
    });
    t.clock.advance(60_000);
    // Shared work: another member edits it.
    const renamed = await api(t, "PATCH", path(project.id, `/${created.id}`), {
      cookie: bob.cookie,
      body: { title: "Beta 2" },
    });
    assert.deepEqual(expectJson(renamed, 200).milestone, {
      ...created,
      title: "Beta 2",
      updatedAt: "2026-11-22T08:31:00.000Z",
    });
    const cleared = await api(t, "PATCH", path(project.id, `/${created.id}`), {
      cookie: bob.cookie,
      body: { description: null, dueDate: null },
    });
    const { milestone } = expectJson(cleared, 200);
    assert.equal(milestone.title, "Beta 2");
    assert.equal(milestone.description, null);
    assert.equal(milestone.dueDate, null);
    assert.deepEqual(await getJson(t, alice.cookie, path(project.id, `/${created.id}`)), {
      milestone,
    });
    const activity = await activityOf(t, alice.cookie, project.id);
    const kinds = activity.items.filter((a: Json) => a.subjectType === "milestone")
      .map((a: Json) => [a.kind, a.actorId]);
    assert.deepEqual(kinds, [
      ["milestone_updated", bob.user.id],
      ["milestone_updated", bob.user.id],
      ["milestone_updated", alice.user.id],
    ]);

    const bad = await api(t, "PATCH", path(project.id, `/${created.id}`), {
      cookie: bob.cookie,
      body: { dueDate: "someday" },
    });
    assert.ok(expectError(bad, 400, "validation").details.dueDate);
    const nullTitle = await api(t, "PATCH", path(project.id, `/${created.id}`), {
      cookie: bob.cookie,
      body: { title: null },
    });
    expectError(nullTitle, 400, "validation");
  } finally {
    await t.close();
  }
});

Deno.test("GET /api/projects/:id/milestones computes progress from linked live to-dos", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { alice, project } = await team(t);
    const none = await createMilestone(t, alice.cookie, project.id, { title: "None" });
    const third = await createMilestone(t, alice.cookie, project.id, { title: "Third" });
    const twoThirds = await createMilestone(t, alice.cookie, project.id, { title: "2/3" });
    const done = await createMilestone(t, alice.cookie, project.id, { title: "Done" });
    await insertItems(t, project.id, alice.user.id, [
      { milestoneId: third.id, completed: true },
      { milestoneId: third.id },
      { milestoneId: third.id },
      // Deleted items do not count, completed or not.
      { milestoneId: third.id, completed: true, deleted: true },
      { milestoneId: third.id, deleted: true },
      { milestoneId: twoThirds.id, completed: true },
      { milestoneId: twoThirds.id, completed: true },
      { milestoneId: twoThirds.id },
      { milestoneId: done.id, completed: true },
      // Unlinked items belong to no milestone.
      { milestoneId: null, completed: true },
    ]);
    const { items } = await getJson(t, alice.cookie, path(project.id));
    assert.deepEqual(items.map((m: Json) => [m.id, m.progress]), [
      [none.id, 0],
      [third.id, 33],
      [twoThirds.id, 66],
      [done.id, 100],
    ]);
    const one = await getJson(t, alice.cookie, path(project.id, `/${twoThirds.id}`));
    assert.equal(one.milestone.progress, 66);
  } finally {
    await t.close();
  }
});

Deno.test("Milestones: viewers read only, outsiders get 404, archived projects are read-only", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { admin, owner, alice, viewer, outsider, project } = await team(t);
    const milestone = await createMilestone(t, alice.cookie, project.id);
    const one = path(project.id, `/${milestone.id}`);

    assert.equal((await getJson(t, viewer.cookie, path(project.id))).items.length, 1);
    expectError(
      await api(t, "POST", path(project.id), { cookie: viewer.cookie, body: { title: "X" } }),
      403,
      "forbidden",
    );
    expectError(
      await api(t, "PATCH", one, { cookie: viewer.cookie, body: { title: "X" } }),
      403,
      "forbidden",
    );

    expectError(
      await api(t, "GET", path(project.id), { cookie: outsider.cookie }),
      404,
      "not_found",
    );
    expectError(await api(t, "GET", one, { cookie: outsider.cookie }), 404, "not_found");
    expectError(
      await api(t, "PATCH", one, { cookie: outsider.cookie, body: { title: "X" } }),
      404,
      "not_found",
    );

    // A system admin acts as the owner would.
    const byAdmin = await api(t, "PATCH", one, { cookie: admin.cookie, body: { title: "Admin" } });
    assert.equal(expectJson(byAdmin, 200).milestone.title, "Admin");

    const archived = await api(t, "POST", `/api/projects/${project.id}/archive`, {
      cookie: owner.cookie,
    });
    expectJson(archived, 200);
    expectError(
      await api(t, "POST", path(project.id), { cookie: alice.cookie, body: { title: "X" } }),
      403,
      "forbidden",
    );
    expectError(
      await api(t, "PATCH", one, { cookie: alice.cookie, body: { title: "X" } }),
      403,
      "forbidden",
    );
    assert.equal((await getJson(t, alice.cookie, one)).milestone.title, "Admin");
  } finally {
    await t.close();
  }
});

Deno.test("GET /api/projects/:id/milestones/:id is 404 for an unknown or another project's milestone", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { owner, alice, project } = await team(t);
    const other = expectJson(
      await api(t, "POST", "/api/projects", { cookie: owner.cookie, body: { name: "Other" } }),
      201,
    ).project;
    const elsewhere = await createMilestone(t, owner.cookie, other.id);
    expectError(
      await api(t, "GET", path(project.id, `/${elsewhere.id}`), { cookie: alice.cookie }),
      404,
      "not_found",
    );
    expectError(
      await api(t, "PATCH", path(project.id, `/${elsewhere.id}`), {
        cookie: owner.cookie,
        body: { title: "Moved?" },
      }),
      404,
      "not_found",
    );
    expectError(
      await api(t, "GET", path(project.id, "/99999"), { cookie: alice.cookie }),
      404,
      "not_found",
    );
    const notAnId = await api(t, "GET", path(project.id, "/abc"), { cookie: alice.cookie });
    expectError(notAnId, 400, "validation");
  } finally {
    await t.close();
  }
});

Deno.test("GET /api/projects/:id/milestones is paged, oldest first, with progress on every page", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { alice, project } = await team(t);
    // 45 live milestones (created in an order unlike their ids) and a deleted one.
    const created: Array<{ id: number; createdAt: string }> = [];
    for (let i = 0; i < 46; i++) {
      const createdAt = `2026-11-${String(1 + ((i * 7) % 20)).padStart(2, "0")}T00:00:${
        String(i).padStart(2, "0")
      }.000Z`;
      const { id } = await t.sql.returning<{ id: number }>(
        `INSERT INTO milestones (project_id, creator_id, title, created_at, updated_at, deleted_at)
         VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
        [project.id, alice.user.id, `M${i}`, createdAt, createdAt, i === 45 ? NOW : null],
      );
      if (i < 45) created.push({ id, createdAt });
    }
    const expected = created.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id - b.id)
      .map((m) => m.id);
    // A linked to-do, complete, for a milestone listed on the second page.
    const linked = expected[25];
    const item = expectJson(
      await api(t, "POST", `/api/projects/${project.id}/todos/items`, {
        cookie: alice.cookie,
        body: { title: "linked", milestoneId: linked },
      }),
      201,
    ).item;
    expectJson(
      await api(
        t,
        "POST",
        `/api/projects/${project.id}/todos/items/${item.id}/toggle-complete`,
        { cookie: alice.cookie },
      ),
      200,
    );

    const list = (query: string) => getJson(t, alice.cookie, path(project.id, query));
    const ids = (page: Json) => page.items.map((m: { id: number }) => m.id);
    const second = await list("?page=2");
    assert.deepEqual(
      { ...second, items: ids(second) },
      { items: expected.slice(20, 40), page: 2, pageSize: 20, total: 45, hasMore: true },
    );
    assert.equal(second.items.find((m: { id: number }) => m.id === linked).progress, 100);
    const last = await list("?page=3");
    assert.deepEqual([ids(last), last.hasMore], [expected.slice(40), false]);
    const all = await list("?pageSize=101");
    assert.deepEqual([all.pageSize, ids(all), all.hasMore], [100, expected, false]);
    const first = await list("?page=zero&pageSize=-1");
    assert.deepEqual([first.page, first.pageSize, ids(first)], [1, 20, expected.slice(0, 20)]);
  } finally {
    await t.close();
  }
});
