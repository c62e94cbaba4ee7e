/**
 * Purging the trash: the sweep (called directly, with a fixed clock) removes what has been in
 * the trash for `TRASH_DAYS`, with its links, search rows, activity and notifications, and the
 * stored bytes that nothing uses any more, in short batches; `?purge=true` removes a file at
 * once; deleted projects are restored by an admin or purged with their files directory.
 */
import assert from "node:assert/strict";
import type { Queries } from "../../db/kernel/engine.ts";
import {
  searchRowsTable,
  searchTextOutOfStep,
  type TestApp,
  testApp,
  type TestAppOptions,
} from "../helpers/app.ts";
import {
  activityOf,
  api,
  createComment,
  createNote,
  createThread,
  createTodo,
  download,
  expectError,
  expectJson,
  expectNoContent,
  getJson,
  type Json,
  notificationsOf,
  PDF_BYTES,
  postFile,
  storedFiles,
  team,
  uploadFile,
} from "../helpers/api.ts";
import { DAY } from "../helpers/trash.ts";

const NOW = "2026-11-22T08:30:00.000Z";
/** Sessions outlive the trash period, so tests can move the clock by weeks. */
const LONG_SESSIONS = { SESSION_TTL_HOURS: "8760" };

const base = (projectId: number) => `/api/projects/${projectId}`;

async function app(env: Record<string, string> = {}): Promise<TestApp> {
  const options: TestAppOptions = { now: NOW, env: { ...LONG_SESSIONS, ...env } };
  return await testApp(options);
}

async function remove(t: TestApp, cookie: string, path: string): Promise<void> {
  expectNoContent(await api(t, "DELETE", path, { cookie }));
}

async function trashOf(t: TestApp, cookie: string, projectId: number): Promise<Json> {
  return await getJson(t, cookie, `${base(projectId)}/trash`);
}

/** How many rows of `table` match `where`. */
function count(t: TestApp, table: string, where: string, ...args: Array<string | number>) {
  return t.sql.count(`${table} WHERE ${where}`, args);
}

Deno.test("The sweep purges what was deleted TRASH_DAYS ago or more and keeps younger items", async () => {
  const t = await app();
  try {
    const { alice, project } = await team(t);
    const p = project.id;
    const old = await createNote(t, alice.cookie, p, { title: "Old" });
    await remove(t, alice.cookie, `${base(p)}/notes/${old.id}`);
    t.clock.advance(10 * DAY);
    const young = await createNote(t, alice.cookie, p, { title: "Young" });
    await remove(t, alice.cookie, `${base(p)}/notes/${young.id}`);
    t.clock.advance(20 * DAY - 1);
    assert.deepEqual(await t.app.services.trash.sweep(), {
      items: 0,
      projects: 0,
      transactions: 1,
    });
    assert.equal((await trashOf(t, alice.cookie, p)).total, 2, "a moment early: nothing goes");

    t.clock.advance(1);
    const result = await t.app.services.trash.sweep();
    assert.equal(result.items, 1);
    const left = await trashOf(t, alice.cookie, p);
    assert.deepEqual(left.items.map((e: Json) => e.id), [young.id]);
    expectError(
      await api(t, "POST", `${base(p)}/trash/note/${old.id}/restore`, { cookie: alice.cookie }),
      404,
      "not_found",
    );
    assert.equal(await count(t, "notes", "id = ?", old.id), 0, "the row is gone");
    assert.equal(await count(t, "activity", "subject_type = 'note' AND subject_id = ?", old.id), 0);
    assert.equal(await count(t, searchRowsTable(t), "type = 'note' AND item_id = ?", old.id), 0);
    assert.equal(await searchTextOutOfStep(t), 0);
    assert.equal(await count(t, "notes", "id = ?", young.id), 1);
  } finally {
    await t.close();
  }
});

Deno.test("Purging a thread takes its comments, links, uploads' bytes, search rows, activity and notifications; a new thread (with its id, on SQLite) inherits none", async () => {
  const t = await app();
  try {
    const { alice, bob, project } = await team(t);
    const p = project.id;
    const thread = await createThread(t, alice.cookie, p, { title: "Gone for good" });
    const comment = await createComment(t, bob.cookie, p, thread.id, { body: "old comment" });
    expectJson(
      await postFile(
        t,
        bob.cookie,
        `${base(p)}/board/comments/${comment.id}/attachments`,
        "c.pdf",
        PDF_BYTES,
      ),
      200,
    );
    assert.equal((await storedFiles(t)).length, 1);
    await remove(t, alice.cookie, `${base(p)}/board/threads/${thread.id}`);
    t.clock.advance(30 * DAY);
    const result = await t.app.services.trash.sweep();
    assert.equal(result.items, 2, "the thread and the upload that went with it");
    assert.deepEqual(await storedFiles(t), []);
    for (
      const [table, where] of [
        ["threads", "id = ?"],
        ["comments", "thread_id = ?"],
        ["attachments", "subject_type = 'thread' AND subject_id = ?"],
        [searchRowsTable(t), "type = 'board' AND item_id = ?"],
        ["activity", "subject_type = 'thread' AND subject_id = ?"],
      ] as const
    ) {
      assert.equal(await count(t, table, where, thread.id), 0, table);
    }
    assert.equal(await searchTextOutOfStep(t), 0);
    assert.equal(await count(t, "files", "project_id = ?", p), 0);
    assert.equal(
      await count(t, "notifications", "subject_type = 'comment' AND subject_id = ?", comment.id),
      0,
    );

    // The ids are free again: on SQLite a new thread and comment take them (the risk this
    // guards against), on PostgreSQL its sequences give new ones; either way they inherit nothing.
    const fresh = await createThread(t, alice.cookie, p, { title: "Fresh" });
    const reply = await createComment(t, bob.cookie, p, fresh.id, { body: "new comment" });
    if (t.sql.kind === "sqlite") {
      assert.equal(fresh.id, thread.id);
      assert.equal(reply.id, comment.id);
    } else {
      assert.ok(fresh.id > thread.id && reply.id > comment.id, "PostgreSQL never reuses an id");
    }
    const got = await getJson(t, alice.cookie, `${base(p)}/board/threads/${fresh.id}`);
    assert.deepEqual(got.attachments, []);
    assert.deepEqual(got.comments.map((c: Json) => c.attachments), [[]]);
    const notes = (await notificationsOf(t, alice.cookie)).items.filter((n: Json) =>
      n.kind === "board_commented"
    );
    assert.deepEqual(notes.map((n: Json) => n.text), ["Fresh"]);
    const activity = (await activityOf(t, alice.cookie, p)).items
      .filter((a: Json) => a.subjectType === "thread" || a.subjectType === "comment")
      .map((a: Json) => a.summary);
    assert.deepEqual(activity, ["Fresh", "Fresh"]);
  } finally {
    await t.close();
  }
});

Deno.test("Stored bytes go only when nothing uses them: a live item still linking a purged item's upload keeps it", async () => {
  const t = await app();
  try {
    const { alice, bob, project } = await team(t);
    const p = project.id;
    const thread = await createThread(t, alice.cookie, p);
    const [upload] = expectJson(
      await postFile(
        t,
        alice.cookie,
        `${base(p)}/board/threads/${thread.id}/attachments`,
        "plan.pdf",
        PDF_BYTES,
      ),
      200,
    ).attachments;
    const item = await createTodo(t, bob.cookie, p, { fileIds: [upload.id] });
    await remove(t, alice.cookie, `${base(p)}/board/threads/${thread.id}`);
    t.clock.advance(30 * DAY);
    assert.equal((await t.app.services.trash.sweep()).items, 1, "only the thread");
    assert.equal((await storedFiles(t)).length, 1);
    const got = await getJson(t, bob.cookie, `${base(p)}/todos/items/${item.id}`);
    assert.deepEqual(got.attachments, [upload]);
    assert.equal((await download(t, bob.cookie, upload.id)).status, 200);

    // The last item linking it takes it to the trash, and the purge takes its bytes.
    await remove(t, bob.cookie, `${base(p)}/todos/items/${item.id}`);
    assert.equal((await download(t, bob.cookie, upload.id)).status, 404);
    assert.equal((await storedFiles(t)).length, 1, "kept while in the trash");
    t.clock.advance(30 * DAY);
    assert.equal((await t.app.services.trash.sweep()).items, 2);
    assert.deepEqual(await storedFiles(t), []);
  } finally {
    await t.close();
  }
});

Deno.test("A file gone with its item waits while a trashed item still links it, and comes back with that item", async () => {
  const t = await app();
  try {
    const { alice, project } = await team(t);
    const p = project.id;
    const message = expectJson(
      await api(t, "POST", `${base(p)}/chat/messages`, {
        cookie: alice.cookie,
        body: { text: "see the file" },
      }),
      201,
    ).message;
    const [upload] = expectJson(
      await postFile(
        t,
        alice.cookie,
        `${base(p)}/chat/messages/${message.id}/attachments`,
        "spec.pdf",
        PDF_BYTES,
      ),
      200,
    ).attachments;
    const item = await createTodo(t, alice.cookie, p, { fileIds: [upload.id] });
    // The message goes first (the to-do still links the file), then the to-do, later.
    await remove(t, alice.cookie, `${base(p)}/chat/messages/${message.id}`);
    t.clock.advance(10 * DAY);
    await remove(t, alice.cookie, `${base(p)}/todos/items/${item.id}`);
    // As if the file had gone to the trash with the message: it expires with it.
    await t.sql.run("UPDATE files SET deleted_at = ? WHERE id = ?", [NOW, upload.id]);
    t.clock.advance(20 * DAY);
    assert.equal((await t.app.services.trash.sweep()).items, 1, "the message only");
    assert.equal((await storedFiles(t)).length, 1, "the trashed to-do still uses the bytes");

    const restore = `${base(p)}/trash/item/${item.id}/restore`;
    expectJson(await api(t, "POST", restore, { cookie: alice.cookie }), 200);
    const got = await getJson(t, alice.cookie, `${base(p)}/todos/items/${item.id}`);
    assert.deepEqual(got.attachments, [upload]);
    assert.equal((await download(t, alice.cookie, upload.id)).status, 200);
  } finally {
    await t.close();
  }
});

Deno.test("TRASH_DAYS=0: deleted items are listed and restorable until the next sweep, which purges them", async () => {
  const t = await app({ TRASH_DAYS: "0" });
  try {
    const { alice, project } = await team(t);
    const p = project.id;
    const kept = await createNote(t, alice.cookie, p, { title: "Kept" });
    const gone = await createNote(t, alice.cookie, p, { title: "Gone" });
    const file = await uploadFile(t, alice.cookie, p, "a.pdf", PDF_BYTES);
    await remove(t, alice.cookie, `${base(p)}/notes/${kept.id}`);
    await remove(t, alice.cookie, `${base(p)}/notes/${gone.id}`);
    await remove(t, alice.cookie, `${base(p)}/files/${file.id}`);
    const page = await trashOf(t, alice.cookie, p);
    assert.equal(page.total, 3);
    for (const entry of page.items) assert.equal(entry.purgeAt, entry.deletedAt);
    expectJson(
      await api(t, "POST", `${base(p)}/trash/note/${kept.id}/restore`, { cookie: alice.cookie }),
      200,
    );
    assert.equal((await t.app.services.trash.sweep()).items, 2);
    assert.equal((await trashOf(t, alice.cookie, p)).total, 0);
    assert.deepEqual(await storedFiles(t), []);
    assert.equal(
      (await getJson(t, alice.cookie, `${base(p)}/notes/${kept.id}`)).note.title,
      "Kept",
    );
  } finally {
    await t.close();
  }
});

Deno.test("DELETE /files/{id}?purge=true removes a file and its bytes at once, live or in the trash (owner or admin)", async () => {
  const t = await app();
  try {
    const { admin, owner, alice, bob, viewer, outsider, project } = await team(t);
    const p = project.id;
    const secret = await uploadFile(t, alice.cookie, p, "secret.pdf", PDF_BYTES);
    const thread = await createThread(t, alice.cookie, p, { fileIds: [secret.id] });
    const purge = (cookie: string, id: number, value = "true") =>
      api(t, "DELETE", `${base(p)}/files/${id}?purge=${value}`, { cookie });

    // The uploader, other members and viewers may not purge; outsiders do not see it.
    for (const refused of [alice, bob, viewer]) {
      expectError(await purge(refused.cookie, secret.id), 403, "forbidden");
    }
    expectError(await purge(outsider.cookie, secret.id), 404, "not_found");
    expectError(await purge(owner.cookie, 99999), 404, "not_found");
    const bad = expectError(await purge(owner.cookie, secret.id, "yes"), 400, "validation");
    assert.ok(bad.details.purge);
    assert.equal((await storedFiles(t)).length, 1, "the refusals changed nothing");

    expectNoContent(await purge(owner.cookie, secret.id));
    assert.deepEqual(await storedFiles(t), []);
    assert.equal((await getJson(t, alice.cookie, `${base(p)}/files`)).total, 0);
    assert.equal((await trashOf(t, alice.cookie, p)).total, 0, "not in the trash either");
    const got = await getJson(t, alice.cookie, `${base(p)}/board/threads/${thread.id}`);
    assert.deepEqual(got.attachments, []);
    assert.equal(await count(t, "attachments", "file_id = ?", secret.id), 0);
    assert.equal(
      await count(t, "activity", "subject_type = 'file' AND subject_id = ?", secret.id),
      0,
    );
    expectError(await purge(owner.cookie, secret.id), 404, "not_found");

    // One already in the trash: an admin purges it from there.
    const trashed = await uploadFile(t, alice.cookie, p, "trashed.pdf", PDF_BYTES);
    await remove(t, alice.cookie, `${base(p)}/files/${trashed.id}`);
    assert.equal((await storedFiles(t)).length, 1);
    expectNoContent(await purge(admin.cookie, trashed.id));
    assert.deepEqual(await storedFiles(t), []);
    assert.equal((await trashOf(t, alice.cookie, p)).total, 0);

    // `purge=false` is an ordinary delete; an archived project refuses a purge.
    const plain = await uploadFile(t, alice.cookie, p, "plain.pdf", PDF_BYTES);
    expectNoContent(await purge(alice.cookie, plain.id, "false"));
    assert.equal((await trashOf(t, alice.cookie, p)).total, 1);
    expectJson(await api(t, "POST", `${base(p)}/archive`, { cookie: owner.cookie }), 200);
    expectError(await purge(owner.cookie, plain.id), 403, "forbidden");
    assert.equal((await storedFiles(t)).length, 1);

    // Another project's file is not this project's to purge.
    const other = expectJson(
      await api(t, "POST", "/api/projects", { cookie: owner.cookie, body: { name: "Other" } }),
      201,
    ).project;
    const foreign = await uploadFile(t, owner.cookie, other.id, "f.pdf", PDF_BYTES);
    expectError(
      await api(t, "DELETE", `${base(p)}/files/${foreign.id}?purge=true`, {
        cookie: admin.cookie,
      }),
      404,
      "not_found",
    );
    assert.equal((await download(t, owner.cookie, foreign.id)).status, 200);
  } finally {
    await t.close();
  }
});

Deno.test("Deleted projects: an admin lists and restores them, whole; others are refused", async () => {
  const t = await app();
  try {
    const { admin, owner, alice, project } = await team(t);
    const p = project.id;
    const thread = await createThread(t, alice.cookie, p, { title: "Still here" });
    const file = await uploadFile(t, alice.cookie, p, "kept.pdf", PDF_BYTES);
    t.clock.advance(60_000);
    await remove(t, owner.cookie, `/api/projects/${p}`);
    const deletedAt = t.clock.now().toISOString();
    expectError(
      await api(t, "GET", `/api/projects/${p}`, { cookie: alice.cookie }),
      404,
      "not_found",
    );

    const list = await getJson(t, admin.cookie, "/api/admin/trash/projects");
    assert.deepEqual(list, {
      items: [{
        id: p,
        name: "Apollo",
        deletedAt,
        deletedBy: owner.user.id,
        purgeAt: new Date(Date.parse(deletedAt) + 30 * DAY).toISOString(),
      }],
      page: 1,
      pageSize: 20,
      total: 1,
      hasMore: false,
    });
    for (const refused of [owner, alice]) {
      expectError(
        await api(t, "GET", "/api/admin/trash/projects", { cookie: refused.cookie }),
        403,
        "forbidden",
      );
      expectError(
        await api(t, "POST", `/api/admin/trash/projects/${p}/restore`, { cookie: refused.cookie }),
        403,
        "forbidden",
      );
    }
    expectError(
      await api(t, "POST", "/api/admin/trash/projects/99999/restore", { cookie: admin.cookie }),
      404,
      "not_found",
    );
    const badId = expectError(
      await api(t, "POST", "/api/admin/trash/projects/abc/restore", { cookie: admin.cookie }),
      400,
      "validation",
    );
    assert.ok(badId.details.projectId);

    const res = expectJson(
      await api(t, "POST", `/api/admin/trash/projects/${p}/restore`, { cookie: admin.cookie }),
      200,
    );
    assert.equal(res.project.id, p);
    assert.equal(res.project.myRole, null);
    assert.equal(res.project.updatedAt, project.updatedAt, "a restored project keeps updatedAt");
    assert.equal((await getJson(t, alice.cookie, `/api/projects/${p}`)).project.myRole, "member");
    const got = await getJson(t, alice.cookie, `${base(p)}/board/threads/${thread.id}`);
    assert.equal(got.thread.title, "Still here");
    assert.equal((await download(t, alice.cookie, file.id)).status, 200);
    assert.equal((await getJson(t, admin.cookie, "/api/admin/trash/projects")).total, 0);
    expectError(
      await api(t, "POST", `/api/admin/trash/projects/${p}/restore`, { cookie: admin.cookie }),
      404,
      "not_found",
    );
    const activity = await activityOf(t, alice.cookie, p);
    assert.deepEqual(
      [activity.items[0].kind, activity.items[0].subjectType, activity.items[0].actorId],
      ["item_restored", "project", admin.user.id],
    );
  } finally {
    await t.close();
  }
});

Deno.test("Purging a deleted project removes its rows and its files directory, over several short transactions; other projects stay", async () => {
  const t = await app();
  try {
    const { admin, owner, alice, project } = await team(t);
    const p = project.id;
    const other = expectJson(
      await api(t, "POST", "/api/projects", { cookie: owner.cookie, body: { name: "Other" } }),
      201,
    ).project;
    const keptThread = await createThread(t, owner.cookie, other.id, { title: "Other's" });
    const keptFile = await uploadFile(t, owner.cookie, other.id, "other.pdf", PDF_BYTES);
    const thread = await createThread(t, alice.cookie, p, { title: "Apollo's" });
    await createComment(t, alice.cookie, p, thread.id);
    await uploadFile(t, alice.cookie, p, "apollo.pdf", PDF_BYTES);
    await createTodo(t, alice.cookie, p, { title: "todo" });
    // Enough chat for several batches.
    await t.sql.run(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1200)
       INSERT INTO chat_messages (project_id, author_id, text, created_at, updated_at)
       SELECT CAST(? AS bigint), CAST(? AS bigint), 'message ' || i, CAST(? AS text),
         CAST(? AS text) FROM n`,
      [p, alice.user.id, NOW, NOW],
    );
    assert.ok(await count(t, "project_events", "project_id = ?", p) > 0);
    await remove(t, owner.cookie, `/api/projects/${p}`);
    assert.equal((await storedFiles(t)).length, 2);

    t.clock.advance(30 * DAY);
    const result = await t.app.services.trash.sweep();
    assert.equal(result.projects, 1);
    assert.ok(result.transactions >= 4, `several transactions: ${JSON.stringify(result)}`);
    for (
      const table of [
        "threads",
        "comments",
        "chat_messages",
        "todo_items",
        "todo_columns",
        "files",
        "activity",
        "project_events",
        "project_members",
        "notifications",
      ]
    ) {
      assert.equal(await count(t, table, "project_id = ?", p), 0, table);
    }
    assert.equal(await count(t, "projects", "id = ?", p), 0);
    assert.equal(await count(t, "search_index", "project_id = ?", p), 0);
    if (t.sql.kind === "postgres") {
      assert.equal(await count(t, "search_text", "project_id = ?", p), 0);
    }
    assert.equal(await searchTextOutOfStep(t), 0);
    assert.deepEqual(
      (await storedFiles(t)).map((f) => f.split("/")[0]),
      [String(other.id)],
      "the purged project's directory is gone",
    );
    await Deno.stat(`${t.dataDir}/files/${p}`).then(
      () => assert.fail("the directory is still there"),
      (error) => assert.ok(error instanceof Deno.errors.NotFound),
    );
    assert.equal((await getJson(t, admin.cookie, "/api/admin/trash/projects")).total, 0);
    expectError(
      await api(t, "POST", `/api/admin/trash/projects/${p}/restore`, { cookie: admin.cookie }),
      404,
      "not_found",
    );
    // The other project is whole.
    const got = await getJson(t, owner.cookie, `${base(other.id)}/board/threads/${keptThread.id}`);
    assert.equal(got.thread.title, "Other's");
    assert.equal((await download(t, owner.cookie, keptFile.id)).status, 200);
  } finally {
    await t.close();
  }
});

/** Resolves once `n` more transactions have committed (watching the engine's transactions). */
function transactionsCommitted(t: TestApp, n: number): Promise<void> {
  const { transaction } = t.engine;
  let left = n;
  return new Promise<void>((resolve) => {
    t.engine.transaction = async <T>(fn: (tx: Queries) => Promise<T>): Promise<T> => {
      const result = await transaction<T>(fn);
      if (--left === 0) {
        t.engine.transaction = transaction;
        resolve();
      }
      return result;
    };
  });
}

Deno.test("A project restored before the sweep is left whole; once its purge has begun it cannot be restored", async () => {
  const t = await app({ TRASH_DAYS: "0" });
  try {
    const { admin, owner, alice, project } = await team(t);
    const p = project.id;
    const restoreIt = () =>
      api(t, "POST", `/api/admin/trash/projects/${p}/restore`, { cookie: admin.cookie });
    const file = await uploadFile(t, alice.cookie, p, "kept.pdf", PDF_BYTES);
    await remove(t, owner.cookie, `/api/projects/${p}`);
    expectJson(await restoreIt(), 200);
    assert.deepEqual(await t.app.services.trash.sweep(), {
      items: 0,
      projects: 0,
      transactions: 1,
    });
    assert.equal((await download(t, alice.cookie, file.id)).status, 200);

    // Deleted again, with enough rows for a purge of several batches.
    await t.sql.run(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1200)
       INSERT INTO chat_messages (project_id, author_id, text, created_at, updated_at)
       SELECT CAST(? AS bigint), CAST(? AS bigint), 'message ' || i, CAST(? AS text),
         CAST(? AS text) FROM n`,
      [p, alice.user.id, NOW, NOW],
    );
    await remove(t, owner.cookie, `/api/projects/${p}`);
    // The sweep's transactions: the items' (none), then the project's first batch.
    const begun = transactionsCommitted(t, 2);
    const sweep = t.app.services.trash.sweep();
    await begun;
    expectError(await restoreIt(), 404, "not_found");
    assert.equal((await getJson(t, admin.cookie, "/api/admin/trash/projects")).total, 0);
    assert.equal((await sweep).projects, 1);
    assert.equal(await count(t, "projects", "id = ?", p), 0);
  } finally {
    await t.close();
  }
});

Deno.test("A sweep over many expired rows commits in batches of at most 500, letting other work run between them", async () => {
  const t = await app();
  try {
    const { alice, project } = await team(t);
    const p = project.id;
    await t.sql.run(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1234)
       INSERT INTO notes (project_id, author_id, title, body, created_at, updated_at, deleted_at,
         deleted_by)
       SELECT CAST(?1 AS bigint), CAST(?2 AS bigint), 'note ' || i, '', CAST(?3 AS text),
         CAST(?3 AS text), CAST(?3 AS text), CAST(?2 AS bigint) FROM n`,
      [p, alice.user.id, NOW],
    );
    assert.equal((await trashOf(t, alice.cookie, p)).total, 1234);
    t.clock.advance(30 * DAY);

    // Watch the sweep's transactions: how many notes each removes, and whether a timer set
    // when the one before ended got to run before it.
    // Counted inside each transaction, where its own writes are seen.
    const deletedNotes = async (tx: Queries) =>
      Number(
        (await tx.get<{ n: number }>(
          "SELECT count(*) AS n FROM notes WHERE deleted_at IS NOT NULL",
        ))
          ?.n,
      );
    const batches: Array<{ removed: number; timerRan: boolean }> = [];
    let timerRan = true;
    const { transaction } = t.engine;
    t.engine.transaction = <T>(fn: (tx: Queries) => Promise<T>): Promise<T> =>
      transaction(async (tx) => {
        const ran = timerRan;
        const before = await deletedNotes(tx);
        const result = await fn(tx);
        batches.push({ removed: before - await deletedNotes(tx), timerRan: ran });
        timerRan = false;
        setTimeout(() => timerRan = true, 0);
        return result;
      });
    try {
      const result = await t.app.services.trash.sweep();
      assert.equal(result.items, 1234);
    } finally {
      t.engine.transaction = transaction;
    }
    assert.deepEqual(batches.map((b) => b.removed), [500, 500, 234, 0]);
    assert.ok(batches.every((b) => b.timerRan), "other work ran between batches");
    assert.equal((await trashOf(t, alice.cookie, p)).total, 0);
  } finally {
    await t.close();
  }
});

Deno.test("Requests keep being answered while a long sweep runs", async () => {
  const t = await app();
  try {
    const { alice, project } = await team(t);
    const p = project.id;
    await t.sql.run(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
       INSERT INTO notes (project_id, author_id, title, body, created_at, updated_at, deleted_at)
       SELECT CAST(?1 AS bigint), CAST(?2 AS bigint), 'note ' || i, '', CAST(?3 AS text),
         CAST(?3 AS text), CAST(?3 AS text) FROM n`,
      [p, alice.user.id, NOW],
    );
    t.clock.advance(30 * DAY);
    let done = false;
    const sweep = t.app.services.trash.sweep().then((r) => {
      done = true;
      return r;
    });
    const note = await createNote(t, alice.cookie, p, { title: "During the sweep" });
    assert.equal(done, false, "the request was answered before the sweep ended");
    assert.equal((await sweep).items, 2000);
    // A sweep asked for while one runs joins it; the next one finds nothing.
    const [a, b] = await Promise.all([t.app.services.trash.sweep(), t.app.services.trash.sweep()]);
    assert.equal(a, b);
    assert.equal(a.items, 0);
    assert.equal(
      (await getJson(t, alice.cookie, `${base(p)}/notes/${note.id}`)).note.title,
      "During the sweep",
    );
  } finally {
    await t.close();
  }
});

Deno.test("Sweeps run at once when started, again on their interval, and stop cleanly", async () => {
  const t = await app({ TRASH_DAYS: "0" });
  try {
    const { alice, project } = await team(t);
    const p = project.id;
    const note = await createNote(t, alice.cookie, p);
    await remove(t, alice.cookie, `${base(p)}/notes/${note.id}`);
    const results: number[] = [];
    let wake = () => {};
    const schedule = t.app.services.trash.startSweeps({
      intervalMs: 5,
      onSwept: (r) => {
        results.push(r.items);
        wake();
      },
      onError: (error) => assert.fail(String(error)),
    });
    try {
      while (results.length < 2) await new Promise<void>((resolve) => wake = resolve);
    } finally {
      await schedule.stop();
    }
    assert.deepEqual(results.slice(0, 2), [1, 0]);
    assert.equal(await count(t, "notes", "id = ?", note.id), 0);
  } finally {
    await t.close();
  }
});

Deno.test("Purging a project also empties tables added later that point at it, even without a cascade", async () => {
  const t = await app({ TRASH_DAYS: "0" });
  try {
    const { owner, project } = await team(t);
    const p = project.id;
    const key = t.sql.kind === "sqlite" ? "INTEGER PRIMARY KEY" : "bigserial PRIMARY KEY";
    await t.sql.run(
      `CREATE TABLE later_feature (id ${key},
         project_id bigint NOT NULL REFERENCES projects (id))`,
    );
    await t.sql.run(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 700)
       INSERT INTO later_feature (project_id) SELECT CAST(? AS bigint) FROM n`,
      [p],
    );
    await remove(t, owner.cookie, `/api/projects/${p}`);
    const result = await t.app.services.trash.sweep();
    assert.equal(result.projects, 1);
    assert.equal(await count(t, "later_feature", "project_id = ?", p), 0);
    assert.equal(await count(t, "projects", "id = ?", p), 0);
  } finally {
    await t.close();
  }
});
