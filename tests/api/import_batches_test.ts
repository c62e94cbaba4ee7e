/**
 * POST /api/projects/import in short transactions: while an import is held between two of
 * them, other requests are answered and nobody (its importer included) sees the half-written
 * project; a failure in a late batch leaves nothing behind.
 */
import assert from "node:assert/strict";
import { api, expectError, expectJson, getJson, type Json, storedFiles } from "../helpers/api.ts";
import { type TestApp, testApp } from "../helpers/app.ts";
import { refuse } from "../helpers/refusal.ts";
import { exportProject, importZip, richProject } from "../helpers/project_fixture.ts";

/** An import hook that holds the import after the `at`-th commit until released. */
function holdAfter(at: number) {
  let reached!: () => void;
  let release!: () => void;
  const held = new Promise<void>((resolve) => reached = resolve);
  const released = new Promise<void>((resolve) => release = resolve);
  let batches = 0;
  return {
    /** Resolves once the import waits. */
    held,
    release,
    /** The number of write transactions the import committed (so far). */
    batches: () => batches,
    betweenBatches: async (committed: number) => {
      batches = committed;
      if (committed !== at) return;
      reached();
      await released;
    },
  };
}

/** The projects an import is still writing. */
const importing = async (t: TestApp) =>
  (await t.sql.all<{ id: number }>("SELECT id FROM projects WHERE importing_since IS NOT NULL"))
    .map((r) => r.id);

/** Row counts of every table an import writes. */
async function counts(t: TestApp): Promise<Record<string, number>> {
  const tables = [
    "projects",
    "project_members",
    "threads",
    "comments",
    "notes",
    "chat_messages",
    "todo_columns",
    "todo_items",
    "milestones",
    "calendar_events",
    "meetings",
    "meeting_invitees",
    "files",
    "attachments",
    "activity",
    "notifications",
    "project_events",
    // SQLite's search rows and its full-text index; PostgreSQL's one table of search rows.
    ...(t.sql.kind === "sqlite" ? ["search_docs", "search_index"] : ["search_index"]),
  ];
  const entries: Array<[string, number]> = [];
  for (const table of tables) entries.push([table, await t.sql.count(table)]);
  return Object.fromEntries(entries);
}

Deno.test("while an import is held between two batches, other requests are answered and nobody sees the half project, its importer included", async () => {
  const hold = holdAfter(6);
  const t = await testApp({ imports: { batchRows: 5, betweenBatches: hold.betweenBatches } });
  try {
    const { admin, owner, alice, project } = await richProject(t);
    const { bytes } = await exportProject(t, owner.cookie, project.id);
    const pending = importZip(t, owner.cookie, bytes);
    await hold.held;

    const [half] = await importing(t);
    assert.ok(half !== undefined, "the half-written project exists, hidden");
    const rows = await t.sql.count("todo_items WHERE project_id = ?", [half]);
    assert.ok(rows > 0, "some of its rows are committed");

    // Other requests are answered meanwhile, writes of other users included.
    const list = await getJson(t, owner.cookie, "/api/projects");
    assert.deepEqual(list.items.map((p: Json) => p.id), [project.id]);
    expectJson(
      await api(t, "POST", `/api/projects/${project.id}/board/threads`, {
        cookie: alice.cookie,
        body: { title: "Written during an import", body: "yes", category: "general" },
      }),
      201,
    );
    expectJson(
      await api(t, "POST", "/api/projects", { cookie: alice.cookie, body: { name: "Gemini" } }),
      201,
    );

    // The half project is 404 to everyone, its importer and an admin included, wherever asked.
    for (const who of [owner, admin]) {
      for (
        const path of [
          "",
          "/todos/items",
          "/search?q=spec",
          "/activity",
          "/dashboard",
          "/export",
          "/trash",
          "/members",
        ]
      ) {
        expectError(
          await api(t, "GET", `/api/projects/${half}${path}`, { cookie: who.cookie }),
          404,
          "not_found",
        );
      }
    }
    const dashboard = await getJson(t, owner.cookie, "/api/dashboard");
    assert.ok(!JSON.stringify(dashboard).includes(`"projectId":${half}`));
    assert.deepEqual(
      (await getJson(t, admin.cookie, "/api/admin/trash/projects")).items,
      [],
      "an import is no deleted project",
    );
    // Neither the start-up clean-up nor a trash sweep touches an import in progress.
    assert.equal(await t.app.services.projectImport.removeLeftovers(), 0);
    const year = 365 * 24 * 3_600_000;
    t.clock.advance(year);
    await t.app.services.trash.sweep();
    t.clock.advance(-year);
    assert.deepEqual(await importing(t), [half]);

    hold.release();
    const done = expectJson(await pending, 201);
    assert.equal(done.project.id, half);
    assert.ok(hold.batches() > 6, `written in ${hold.batches()} transactions`);
    assert.deepEqual(await importing(t), []);
    const after = await getJson(t, owner.cookie, "/api/projects");
    assert.deepEqual(after.items.map((p: Json) => p.id), [project.id, half]);
    const items = await getJson(t, owner.cookie, `/api/projects/${half}/todos/items`);
    assert.equal(items.items.length, done.report.counts.items);
    const found = await getJson(t, owner.cookie, `/api/projects/${half}/search?q=spec`);
    assert.ok(found.items.length > 0, "searchable once shown");
  } finally {
    hold.release();
    await t.close();
  }
});

Deno.test("POST /api/projects/import: a failure in a late batch leaves no project, no row, no search row and no bytes", async () => {
  // The database refuses, late: while the rows are shown to search, and at the very end
  // (every row written and indexed, every byte moved).
  const refusals = [
    "BEFORE UPDATE OF deleted_at ON todo_items",
    "BEFORE UPDATE OF deleted_at ON projects",
  ];
  for (const refusal of refusals) {
    const hold = holdAfter(0);
    const t = await testApp({ imports: { batchRows: 5, betweenBatches: hold.betweenBatches } });
    try {
      const { owner, project } = await richProject(t);
      const { bytes } = await exportProject(t, owner.cookie, project.id);
      const before = await counts(t);
      const stored = await storedFiles(t);
      const allow = await refuse(t, refusal, { when: "old.deleted_at = 'import'" });
      const error = expectError(await importZip(t, owner.cookie, bytes), 400, "validation");
      assert.match(error.message, /breaks a rule of the database/, refusal);
      assert.ok(hold.batches() > 5, `${refusal}: failed after ${hold.batches()} transactions`);
      await allow();
      assert.deepEqual(await counts(t), before, refusal);
      assert.deepEqual(await storedFiles(t), stored, `${refusal}: no bytes left`);
      assert.deepEqual(await importing(t), []);
      // And the same archive imports once the database accepts it.
      expectJson(await importZip(t, owner.cookie, bytes), 201);
    } finally {
      await t.close();
    }
  }
});

/** Turns project `id` into what a crash leaves of an import: hidden, unfinished, held by nobody. */
async function leaveUnfinished(t: TestApp, id: number): Promise<void> {
  await t.sql.run(
    `UPDATE projects SET deleted_at = 'import', importing_since = created_at,
       import_owner = NULL, import_lease_until = NULL WHERE id = ?`,
    [id],
  );
}

Deno.test("leftover removal runs at once and again on its interval, joins a call made meanwhile, and stops cleanly", async () => {
  const t = await testApp();
  try {
    const { owner, project } = await richProject(t);
    const second = expectJson(
      await api(t, "POST", "/api/projects", { cookie: owner.cookie, body: { name: "Later" } }),
      201,
    ).project.id as number;
    await leaveUnfinished(t, project.id);
    const items = await t.sql.count("todo_items WHERE project_id = ?", [project.id]);
    assert.ok(items > 0);

    // A call made while a removal runs joins it: one removal, the same answer for both.
    const first = t.app.services.projectImport.removeLeftovers();
    const joined = t.app.services.projectImport.removeLeftovers();
    assert.equal(joined, first, "the second call is the first one's removal");
    assert.deepEqual(await Promise.all([first, joined]), [1, 1]);
    assert.equal(await t.app.services.projectImport.removeLeftovers(), 0, "removed once");
    assert.deepEqual(await importing(t), []);
    assert.equal(await t.sql.count("todo_items WHERE project_id = ?", [project.id]), 0);

    // The schedule: a run at once (nothing left now), then each interval, which finds the
    // leftover that appeared meanwhile (as another instance that stopped leaves one).
    const results: number[] = [];
    let wake = () => {};
    const schedule = t.app.services.projectImport.startLeftoverRemoval({
      intervalMs: 5,
      onRemoved: (removed) => {
        results.push(removed);
        if (results.length === 1) void leaveUnfinished(t, second);
        wake();
      },
      onError: (error) => assert.fail(String(error)),
    });
    try {
      while (!results.includes(1)) await new Promise<void>((resolve) => wake = resolve);
    } finally {
      await schedule.stop();
    }
    assert.equal(results[0], 0);
    assert.equal(results.filter((n) => n === 1).length, 1, `runs: ${results.join(", ")}`);
    assert.deepEqual(await importing(t), []);
    assert.equal(await t.sql.count("projects WHERE id = ?", [second]), 0);
  } finally {
    await t.close();
  }
});
