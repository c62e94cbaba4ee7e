/** GET /api/projects/:id/export: the archive's content, headers, permissions, consistency. */
import assert from "node:assert/strict";
import { ARCHIVE_KINDS } from "../../domain/archives/project_archive.ts";
import { FILE_PIECE_BYTES } from "../../domain/archives/project_export.ts";
import {
  api,
  createProject,
  createThread,
  download,
  expectError,
  getJson,
  type Json,
  PNG_BYTES,
  signUp,
  uploadFile,
} from "../helpers/api.ts";
import { testApp } from "../helpers/app.ts";
import { exportProject, projectJsonOf, richProject } from "../helpers/project_fixture.ts";
import { readZip } from "../helpers/zip.ts";

Deno.test("GET /api/projects/:id/export streams a zip with project.json, every live file and Markdown copies", async () => {
  const t = await testApp();
  try {
    const rich = await richProject(t);
    const { owner, project } = rich;
    const { res, bytes } = await exportProject(t, owner.cookie, project.id);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/zip");
    assert.equal(res.headers.get("content-length"), null, "streamed, not measured first");
    assert.equal(res.headers.get("cache-control"), "no-store");
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    assert.equal(
      res.headers.get("content-disposition"),
      `attachment; filename="Apollo-2026-11-22.zip"; filename*=UTF-8''Apollo-2026-11-22.zip`,
    );
    const entries = await readZip(bytes);
    const doc = projectJsonOf(entries);
    assert.equal(doc.format, "collab-project");
    assert.equal(doc.version, 1);
    assert.equal(doc.exportedAt, t.clock.now().toISOString());
    assert.deepEqual(Object.keys(doc), [
      "format",
      "version",
      "exportedAt",
      "project",
      "members",
      ...ARCHIVE_KINDS,
    ]);
    assert.equal(doc.project.name, "Apollo");
    assert.equal(doc.project.createdBy, "olga@example.com");
    assert.deepEqual(doc.members, [
      { email: "alice@example.com", displayName: "alice", role: "member" },
      { email: "bob@example.com", displayName: "bob", role: "member" },
      { email: "olga@example.com", displayName: "olga", role: "owner" },
      { email: "vera@example.com", displayName: "vera", role: "viewer" },
    ]);

    // Every resource as the API shows it, users as emails; deleted ones left out.
    const p = `/api/projects/${project.id}`;
    const threads = (await getJson(t, owner.cookie, `${p}/board/threads`)).items as Json[];
    assert.equal(doc.threads.length, 2);
    assert.ok(!doc.threads.some((th: Json) => th.id === rich.deletedThreadId));
    for (const thread of doc.threads) {
      const shown = threads.find((th) => th.id === thread.id);
      const { authorId, attachments, ...rest } = shown;
      assert.equal(
        thread.author,
        authorId === rich.alice.user.id ? "alice@example.com" : "olga@example.com",
      );
      assert.deepEqual({ ...thread, author: undefined, attachments: undefined }, {
        ...rest,
        author: undefined,
        attachments: undefined,
      });
      assert.deepEqual(
        thread.attachments.map((f: Json) => f.id),
        attachments.map((f: Json) => f.id),
      );
    }
    assert.equal(doc.comments.length, 2);
    assert.equal(doc.comments[0].author, "bob@example.com");
    assert.equal(doc.comments[0].attachments[0].name, "sketch.png");
    assert.equal(doc.comments[0].attachments[0].source, "attachment");
    assert.deepEqual(doc.notes.map((n: Json) => n.tags), [["meeting", "q1"], []]);
    assert.deepEqual(doc.chat.map((m: Json) => m.text), ["Hello @bob@example.com", "こんにちは"]);
    assert.equal(doc.chat[0].attachments[0].name, "設計図.png");
    assert.deepEqual(doc.columns.map((c: Json) => [c.name, c.key, c.position]), [
      ["To Do", "todo", 0],
      ["In Progress", "in_progress", 1],
      ["Done", "done", 2],
      ["Review", null, 3],
    ]);
    const items = (await getJson(t, owner.cookie, `${p}/todos/items`)).items as Json[];
    assert.equal(doc.items.length, 3);
    for (const item of doc.items) {
      const shown = items.find((i) => i.id === item.id);
      for (
        const key of ["columnId", "orderIndex", "completed", "completedAt", "tags", "priority"]
      ) {
        assert.deepEqual(item[key], shown[key], key);
      }
    }
    const drafted = doc.items.find((i: Json) => i.title === "Draft the spec");
    assert.equal(drafted.assignee, "alice@example.com");
    assert.equal(drafted.creator, "olga@example.com");
    assert.equal(drafted.milestoneId, doc.milestones[0].id);
    assert.equal(doc.milestones[0].progress, 50);
    assert.equal(doc.events[0].title, "Offsite");
    assert.deepEqual(doc.meetings[0].invitees, ["alice@example.com", "bob@example.com"]);
    assert.deepEqual(doc.files.map((f: Json) => f.id).sort(), [...rich.fileIds].sort());
    const sketch = doc.files.find((f: Json) => f.name === "sketch.png");
    assert.deepEqual(sketch.uploadedTo, { type: "comment", id: doc.comments[0].id });
    const activity = (await getJson(t, owner.cookie, `${p}/activity?pageSize=100`)).items as Json[];
    assert.equal(doc.activity.length, activity.length);
    assert.ok(doc.activity.every((a: Json) => typeof a.actor === "string" && !("actorId" in a)));

    // Every live file, byte for byte, under files/<id>/<original name>.
    for (const file of doc.files) {
      const entry = entries.get(`files/${file.id}/${file.name}`);
      assert.ok(entry, `files/${file.id}/${file.name}`);
      assert.deepEqual(entry, (await download(t, owner.cookie, file.id)).bytes);
    }
    // Readable copies of the board (with comments) and the notes.
    const kickoff = doc.threads.find((th: Json) => th.title.startsWith("Kick-off"));
    const board = new TextDecoder().decode(entries.get(`board/${kickoff.id}-kick-off-開始.md`));
    assert.match(board, /^# Kick-off: 開始\n/);
    assert.match(board, /Let's \*start\*\./);
    assert.match(board, /\*\*bob@example\.com\*\*[^\n]*\n[\s\S]*Agreed\./);
    assert.match(board, /Then let's go\./);
    assert.match(board, /\[plan\.pdf\]\(\.\.\/files\/\d+\/plan\.pdf\)/);
    const note = doc.notes.find((n: Json) => n.title === "Glossary");
    const glossary = new TextDecoder().decode(entries.get(`notes/${note.id}-glossary.md`));
    assert.match(glossary, /^# Glossary\n[\s\S]*- API: …/);
    const names = [...entries.keys()];
    assert.equal(names.filter((n) => n.startsWith("board/")).length, 2);
    assert.equal(names.filter((n) => n.startsWith("notes/")).length, 2);
    assert.equal(names.filter((n) => n.startsWith("files/")).length, 3);
  } finally {
    await t.close();
  }
});

Deno.test("GET /api/projects/:id/export copies a file of several read pieces byte for byte", async () => {
  const t = await testApp();
  try {
    const owner = await signUp(t, "olga@example.com");
    const project = await createProject(t, owner.cookie, "Apollo");
    // A PNG header and random bytes: two whole pieces of the export's reads and a partial third.
    const bytes = new Uint8Array(2 * FILE_PIECE_BYTES + 4_321);
    for (let i = 0; i < bytes.length; i += 65_536) {
      crypto.getRandomValues(bytes.subarray(i, i + 65_536));
    }
    bytes.set(PNG_BYTES);
    const file = await uploadFile(t, owner.cookie, project.id, "big.png", bytes);
    const entries = await readZip((await exportProject(t, owner.cookie, project.id)).bytes);
    assert.deepEqual(entries.get(`files/${file.id}/big.png`), bytes);
  } finally {
    await t.close();
  }
});

Deno.test("GET /api/projects/:id/export names a non-ASCII project with an ASCII fallback and filename*", async () => {
  const t = await testApp();
  try {
    const { cookie } = await signUp(t, "olga@example.com");
    const project = await createProject(t, cookie, '設計 "A"/B');
    const { res } = await exportProject(t, cookie, project.id);
    assert.equal(res.status, 200);
    assert.equal(
      res.headers.get("content-disposition"),
      `attachment; filename="__ _A__B-2026-11-22.zip"; filename*=UTF-8''` +
        `${encodeURIComponent('設計 "A"_B')}-2026-11-22.zip`,
    );
  } finally {
    await t.close();
  }
});

Deno.test("GET /api/projects/:id/export is for owners and admins: members and viewers 403, others 404", async () => {
  const t = await testApp();
  try {
    const { admin, owner, alice, viewer, outsider, project } = await richProject(t);
    const path = `/api/projects/${project.id}/export`;
    expectError(await api(t, "GET", path, { cookie: alice.cookie }), 403, "forbidden");
    expectError(await api(t, "GET", path, { cookie: viewer.cookie }), 403, "forbidden");
    expectError(await api(t, "GET", path, { cookie: outsider.cookie }), 404, "not_found");
    expectError(
      await api(t, "GET", "/api/projects/999/export", { cookie: owner.cookie }),
      404,
      "not_found",
    );
    expectError(await api(t, "GET", path), 401, "unauthenticated");
    assert.equal((await exportProject(t, admin.cookie, project.id)).res.status, 200);
    // An archived project is read-only, and can still be exported.
    const archived = await api(t, "POST", `/api/projects/${project.id}/archive`, {
      cookie: owner.cookie,
    });
    assert.equal(archived.status, 200);
    const { res, bytes } = await exportProject(t, owner.cookie, project.id);
    assert.equal(res.status, 200);
    const doc = projectJsonOf(await readZip(bytes));
    assert.equal(doc.project.archived, true);
    assert.equal(doc.project.archivedAt, t.clock.now().toISOString());
  } finally {
    await t.close();
  }
});

Deno.test("GET /api/projects/:id/export gives the project as it was when the export began, whatever is written meanwhile", async () => {
  const t = await testApp();
  try {
    const { cookie } = await signUp(t, "olga@example.com");
    const project = await createProject(t, cookie);
    await createThread(t, cookie, project.id, { title: "Before" });
    const res = await t.app.request(`/api/projects/${project.id}/export`, { headers: { cookie } });
    assert.equal(res.status, 200);
    // Written after the export began, before its body is read.
    await createThread(t, cookie, project.id, { title: "After" });
    await uploadFile(t, cookie, project.id, "late.png", PNG_BYTES);
    const doc = projectJsonOf(await readZip(new Uint8Array(await res.arrayBuffer())));
    assert.deepEqual(doc.threads.map((th: Json) => th.title), ["Before"]);
    assert.deepEqual(doc.files, []);
  } finally {
    await t.close();
  }
});

Deno.test("GET /api/projects/:id/export is 409 when a file's bytes are missing, before a byte is sent", async () => {
  const t = await testApp();
  try {
    const { cookie } = await signUp(t, "olga@example.com");
    const project = await createProject(t, cookie);
    const file = await uploadFile(t, cookie, project.id, "lost.png", PNG_BYTES);
    const stored = (await t.sql.get<{ stored_name: string }>(
      "SELECT stored_name FROM files WHERE id = ?",
      [file.id],
    ))!;
    await Deno.remove(`${t.dataDir}/files/${stored.stored_name}`);
    const error = expectError(
      await api(t, "GET", `/api/projects/${project.id}/export`, { cookie }),
      409,
      "conflict",
    );
    assert.match(error.message, /bytes of file \d+ \(lost\.png\) are missing/);
  } finally {
    await t.close();
  }
});

Deno.test("GET /api/projects/:id/export stops reading when the client goes away", async () => {
  const t = await testApp();
  try {
    const { cookie } = await signUp(t, "olga@example.com");
    const project = await createProject(t, cookie);
    await uploadFile(t, cookie, project.id, "a.png", PNG_BYTES);
    const res = await t.app.request(`/api/projects/${project.id}/export`, { headers: { cookie } });
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    await reader.read();
    await reader.cancel();
    // The snapshot is released: a later export sees later writes.
    await createThread(t, cookie, project.id, { title: "Later" });
    const doc = projectJsonOf(await readZip((await exportProject(t, cookie, project.id)).bytes));
    assert.deepEqual(doc.threads.map((th: Json) => th.title), ["Later"]);
  } finally {
    await t.close();
  }
});
