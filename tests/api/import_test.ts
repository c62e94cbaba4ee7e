/**
 * POST /api/projects/import: the round trip, what is kept, matching by email, and every kind
 * of bad archive refused with nothing created and nothing written outside the work folder.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  ARCHIVE_KINDS,
  type ArchiveSubjectType,
  SUBJECT_KINDS,
} from "../../domain/archives/project_archive.ts";
import {
  api,
  download,
  expectError,
  expectJson,
  expectNoContent,
  getJson,
  type Json,
  PNG_BYTES,
  signUp,
  storedFiles,
} from "../helpers/api.ts";
import { searchRowsTable, searchTextOutOfStep, type TestApp, testApp } from "../helpers/app.ts";
import { refuse } from "../helpers/refusal.ts";
import {
  exportProject,
  importZip,
  projectJsonOf,
  richProject,
} from "../helpers/project_fixture.ts";
import { buildZip, type RawEntry, readZip } from "../helpers/zip.ts";

/**
 * An archive with its ids replaced by positions (elements are listed by id, so the n-th
 * thread of one archive is the n-th of the other), and the differences the contract allows
 * (the project's id and timestamps, `exportedAt`) left out: two exports of the same content
 * give equal maps.
 */
function canonical(entries: Map<string, Uint8Array>): Map<string, unknown> {
  const doc = projectJsonOf(entries);
  const index = new Map<string, Map<number, number>>();
  for (const kind of ARCHIVE_KINDS) {
    index.set(kind, new Map(doc[kind].map((e: Json, i: number) => [e.id, i])));
  }
  const at = (kind: string, id: number | null) => {
    if (id === null) return null;
    const found = index.get(kind)!.get(id);
    assert.ok(found !== undefined, `${kind} ${id} is in the archive`);
    return found;
  };
  const file = (f: Json) => ({
    ...f,
    id: at("files", f.id),
    projectId: 0,
    downloadUrl: `/api/files/${at("files", f.id)}/download`,
    uploadedTo: f.uploadedTo
      ? {
        type: f.uploadedTo.type,
        id: at(SUBJECT_KINDS[f.uploadedTo.type as ArchiveSubjectType], f.uploadedTo.id),
      }
      : null,
  });
  const fix: Record<string, (e: Json) => Json> = {
    comments: (e) => ({ ...e, threadId: at("threads", e.threadId) }),
    items: (e) => ({
      ...e,
      columnId: at("columns", e.columnId),
      milestoneId: at("milestones", e.milestoneId),
    }),
    files: file,
    activity: (e) => ({
      ...e,
      subjectId: e.subjectType === "project"
        ? 0
        : at(SUBJECT_KINDS[e.subjectType as ArchiveSubjectType], e.subjectId),
    }),
  };
  const out = new Map<string, unknown>();
  const { id: _id, createdAt: _c, updatedAt: _u, ...project } = doc.project;
  out.set("project.json", {
    ...doc,
    exportedAt: null,
    project,
    ...Object.fromEntries(ARCHIVE_KINDS.map((kind) => [
      kind,
      doc[kind].map((e: Json) => {
        const fixed = (fix[kind] ?? ((x: Json) => x))(e);
        return {
          ...fixed,
          id: at(kind, e.id),
          projectId: 0,
          ...(e.attachments ? { attachments: e.attachments.map(file) } : {}),
        };
      }),
    ])),
  });
  const text = new TextDecoder();
  for (const [name, bytes] of entries) {
    if (name === "project.json") continue;
    const [folder, rest] = [name.slice(0, name.indexOf("/")), name.slice(name.indexOf("/") + 1)];
    if (folder === "files") {
      const [id, fileName] = rest.split("/");
      out.set(`files/${at("files", Number(id))}/${fileName}`, bytes);
    } else {
      const kind = folder === "board" ? "threads" : "notes";
      const id = Number(rest.slice(0, rest.indexOf("-")));
      const body = text.decode(bytes).replace(
        /files\/(\d+)\//g,
        (_, fileId) => `files/${at("files", Number(fileId))}/`,
      );
      out.set(`${folder}/${at(kind, id)}${rest.slice(rest.indexOf("-"))}`, body);
    }
  }
  return out;
}

/** Every path under the data directory but the database's own files. */
async function dataFiles(t: TestApp): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string, prefix: string) => {
    for await (const entry of Deno.readDir(dir)) {
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory) await walk(join(dir, entry.name), rel);
      else if (!rel.startsWith("collab.db")) found.push(rel);
    }
  };
  await walk(t.dataDir, "");
  return found.sort();
}

const projectCount = (t: TestApp) => t.sql.count("projects");

Deno.test("export → import → export gives the same archive apart from ids, the project's timestamps and exportedAt", async () => {
  const t = await testApp();
  try {
    const { owner, project } = await richProject(t);
    const first = await exportProject(t, owner.cookie, project.id);
    const entriesA = await readZip(first.bytes);
    t.clock.advance(3_600_000);
    const res = await importZip(t, owner.cookie, first.bytes);
    const body = expectJson(res, 201);
    assert.deepEqual(Object.keys(body), ["project", "report"]);
    assert.notEqual(body.project.id, project.id);
    assert.equal(body.project.name, "Apollo");
    assert.equal(body.project.myRole, "owner");
    assert.equal(body.project.createdAt, t.clock.now().toISOString());
    const doc = projectJsonOf(entriesA);
    // The checklist is in the archive, in its order (so the comparison below covers it).
    const drafted = doc.items.find((i: Json) => i.title === "Draft the spec");
    assert.deepEqual(drafted.checklist, { done: 1, total: 3 });
    assert.deepEqual(
      drafted.checklistEntries.map((e: Json) => [e.text, e.done]),
      [["Sources", false], ["Outline", false], ["日本語の章", true]],
    );
    assert.deepEqual(
      body.report.counts,
      Object.fromEntries(ARCHIVE_KINDS.map((kind) => [kind, doc[kind].length])),
    );
    assert.deepEqual(body.report.unmatchedEmails, []);
    const second = await exportProject(t, owner.cookie, body.project.id);
    const entriesB = await readZip(second.bytes);
    assert.deepEqual([...entriesB.keys()].length, [...entriesA.keys()].length);
    const a = canonical(entriesA);
    const b = canonical(entriesB);
    assert.deepEqual([...b.keys()].sort(), [...a.keys()].sort());
    for (const [name, value] of a) assert.deepEqual(b.get(name), value, name);
  } finally {
    await t.close();
  }
});

Deno.test("an imported project keeps order, states, tags, attachments, subjects, members and search", async () => {
  const t = await testApp();
  try {
    const { owner, alice, project } = await richProject(t);
    const form = new FormData();
    const { bytes } = await exportProject(t, owner.cookie, project.id);
    form.append("archive", new File([bytes as BlobPart], "apollo.zip"));
    const imported = expectJson(
      await api(t, "POST", "/api/projects/import", { cookie: owner.cookie, raw: form }),
      201,
    ).project;
    const before = `/api/projects/${project.id}`;
    const after = `/api/projects/${imported.id}`;
    const pick = (items: Json[], keys: string[]) =>
      items.map((i) => Object.fromEntries(keys.map((k) => [k, i[k]])));
    // To-dos in the same columns, order and states.
    const itemKeys = [
      "title",
      "orderIndex",
      "completed",
      "completedAt",
      "tags",
      "priority",
      "checklist",
    ];
    assert.deepEqual(
      pick((await getJson(t, owner.cookie, `${after}/todos/items`)).items, itemKeys),
      pick((await getJson(t, owner.cookie, `${before}/todos/items`)).items, itemKeys),
    );
    // Threads pinned first, then newest, as before; with their attachments.
    const threads = (await getJson(t, owner.cookie, `${after}/board/threads`)).items as Json[];
    assert.deepEqual(
      threads.map((th) => th.title),
      (await getJson(t, owner.cookie, `${before}/board/threads`)).items.map((th: Json) => th.title),
    );
    const kickoff = threads.find((th) => th.title.startsWith("Kick-off"))!;
    assert.equal(kickoff.attachments[0].name, "plan.pdf");
    assert.equal(kickoff.attachments[0].projectId, imported.id);
    const pdf = await download(t, owner.cookie, kickoff.attachments[0].id);
    assert.equal(pdf.status, 200);
    assert.equal(new TextDecoder().decode(pdf.bytes.subarray(0, 5)), "%PDF-");
    // Members matched by email keep their roles.
    const members = (await getJson(t, owner.cookie, after)).members as Json[];
    assert.deepEqual(
      members.map((m) => [m.email, m.role]).sort(),
      [
        ["alice@example.com", "member"],
        ["bob@example.com", "member"],
        ["olga@example.com", "owner"],
        ["vera@example.com", "viewer"],
      ],
    );
    // Searchable, newest first as in the original.
    const search = async (base: string, q: string) =>
      (await getJson(t, owner.cookie, `${base}/search?q=${encodeURIComponent(q)}`)).items.map(
        (r: Json) => [r.type, r.title],
      );
    for (
      const q of ["spec", "こんにちは", "設計図", "Offsite", "Weekly", "Glossary", "日本語の章"]
    ) {
      const found = await search(after, q);
      assert.ok(found.length > 0, q);
      assert.deepEqual(found, await search(before, q), q);
    }
    assert.deepEqual(await search(after, "e"), await search(before, "e"));
    // The file uploaded to a comment goes with that comment, as it would have before.
    const thread = await getJson(t, owner.cookie, `${after}/board/threads/${kickoff.id}`);
    const withSketch = thread.comments.find((c: Json) => c.attachments.length === 1);
    expectNoContent(
      await api(t, "DELETE", `${after}/board/comments/${withSketch.id}`, { cookie: owner.cookie }),
    );
    const files = (await getJson(t, alice.cookie, `${after}/files`)).items as Json[];
    assert.deepEqual(files.map((f) => f.name).sort(), ["plan.pdf", "設計図.png"]);
    // The dashboard and milestones see the imported work.
    const milestones = (await getJson(t, owner.cookie, `${after}/milestones`)).items as Json[];
    assert.equal(milestones[0].progress, 50);
    const meetings = (await getJson(t, owner.cookie, `${after}/meetings`)).items as Json[];
    assert.deepEqual(meetings[0].inviteeIds.length, 2);
  } finally {
    await t.close();
  }
});

Deno.test("an import matches members and authors by email; unmatched authors' content is the importer's", async () => {
  const source = await testApp();
  const target = await testApp();
  try {
    const { owner, project } = await richProject(source);
    const { bytes } = await exportProject(source, owner.cookie, project.id);
    const importer = await signUp(target, "zed@example.com");
    const alice = await signUp(target, "Alice@Example.com");
    const res = expectJson(await importZip(target, importer.cookie, bytes), 201);
    assert.deepEqual(res.report.unmatchedEmails, [
      "bob@example.com",
      "olga@example.com",
      "vera@example.com",
    ]);
    const p = `/api/projects/${res.project.id}`;
    const members = (await getJson(target, importer.cookie, p)).members as Json[];
    assert.deepEqual(members.map((m) => [m.email, m.role]).sort(), [
      ["alice@example.com", "member"],
      ["zed@example.com", "owner"],
    ]);
    const threads = (await getJson(target, importer.cookie, `${p}/board/threads`)).items as Json[];
    const byTitle = new Map(threads.map((th) => [th.title, th]));
    assert.equal(byTitle.get("Kick-off: 開始")!.authorId, alice.user.id);
    assert.equal(byTitle.get("Rules")!.authorId, importer.user.id);
    const items = (await getJson(target, importer.cookie, `${p}/todos/items`)).items as Json[];
    const drafted = items.find((i) => i.title === "Draft the spec")!;
    assert.equal(drafted.assigneeId, alice.user.id);
    assert.equal(drafted.creatorId, importer.user.id);
    const meetings = (await getJson(target, importer.cookie, `${p}/meetings`)).items as Json[];
    assert.deepEqual(meetings[0].inviteeIds, [alice.user.id]);
    // Alice can read it: she is a member now.
    assert.equal((await getJson(target, alice.cookie, `${p}/notes`)).total, 2);
  } finally {
    await source.close();
    await target.close();
  }
});

Deno.test("an archived project is imported archived", async () => {
  const t = await testApp();
  try {
    const { owner, project } = await richProject(t);
    expectJson(
      await api(t, "POST", `/api/projects/${project.id}/archive`, { cookie: owner.cookie }),
      200,
    );
    const { bytes } = await exportProject(t, owner.cookie, project.id);
    const imported = expectJson(await importZip(t, owner.cookie, bytes), 201).project;
    assert.equal(imported.archived, true);
    assert.equal(imported.archivedAt, t.clock.now().toISOString());
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/projects/import needs a session, and the archive in `archive` or as application/zip", async () => {
  const t = await testApp();
  try {
    const { cookie } = await signUp(t, "olga@example.com");
    expectError(
      await api(t, "POST", "/api/projects/import", {
        raw: new Uint8Array([1]),
        headers: { "content-type": "application/zip" },
      }),
      401,
      "unauthenticated",
    );
    expectError(
      await api(t, "POST", "/api/projects/import", {
        cookie,
        raw: "x",
        headers: { "content-type": "text/plain" },
      }),
      415,
      "unsupported_media_type",
    );
    expectError(
      await api(t, "POST", "/api/projects/import", { cookie, body: {} }),
      415,
      "unsupported_media_type",
    );
    const form = new FormData();
    form.append("file", new File([PNG_BYTES as BlobPart], "a.zip"));
    const error = expectError(
      await api(t, "POST", "/api/projects/import", { cookie, raw: form }),
      400,
      "validation",
    );
    assert.ok(error.details.archive);
  } finally {
    await t.close();
  }
});

// ---------------------------------------------------------------------------------------
// Bad archives: each is refused naming its problem, and leaves nothing behind.

/** A minimal valid project.json, with `change` applied. */
function projectJson(change: (doc: Json) => void = () => {}): string {
  const at = "2026-11-01T00:00:00.000Z";
  const doc: Json = {
    format: "collab-project",
    version: 1,
    exportedAt: at,
    project: { name: "Imported", description: "", archivedAt: null },
    members: [],
    threads: [],
    comments: [],
    notes: [],
    chat: [],
    columns: [{ id: 1, name: "To Do", key: "todo", position: 0, createdAt: at, updatedAt: at }],
    items: [{
      id: 1,
      columnId: 1,
      creator: "olga@example.com",
      title: "One",
      description: null,
      assignee: null,
      priority: "normal",
      startDate: null,
      dueDate: null,
      tags: [],
      orderIndex: 0,
      completed: false,
      completedAt: null,
      milestoneId: null,
      attachments: [{ id: 7 }],
      createdAt: at,
      updatedAt: at,
    }],
    milestones: [],
    events: [],
    meetings: [],
    files: [{
      id: 7,
      name: "pic.png",
      size: PNG_BYTES.byteLength,
      source: "upload",
      uploader: "olga@example.com",
      uploadedTo: null,
      createdAt: at,
    }],
    activity: [],
  };
  change(doc);
  return JSON.stringify(doc);
}

/** A hand-built archive: project.json (as given) and the picture of file 7. */
function entriesWith(json = projectJson(), extra: RawEntry[] = []): RawEntry[] {
  return [
    { name: "project.json", data: json, deflate: true },
    { name: "files/7/pic.png", data: PNG_BYTES },
    ...extra,
  ];
}

/**
 * Imports `archive` and checks the refusal: status, code, a message matching `problem`, and
 * that nothing was created or left: no project, no stored bytes, no temporary file, nothing
 * anywhere else under the data directory.
 */
async function expectRefused(
  t: TestApp,
  cookie: string,
  archive: Uint8Array,
  status: 400 | 413,
  problem: RegExp,
): Promise<Json> {
  const projects = await projectCount(t);
  const stored = await storedFiles(t);
  const everything = await dataFiles(t);
  const error = expectError(
    await importZip(t, cookie, archive),
    status,
    status === 413 ? "too_large" : "validation",
  );
  assert.match(error.message, problem);
  assert.equal(await projectCount(t), projects, "no project created");
  assert.deepEqual(await storedFiles(t), stored, "no bytes stored or left in tmp");
  assert.deepEqual(await dataFiles(t), everything, "nothing written anywhere else");
  return error;
}

Deno.test("a hand-built archive of the documented format imports (the base of the refusals below)", async () => {
  const t = await testApp();
  try {
    const { cookie } = await signUp(t, "olga@example.com");
    const res = expectJson(await importZip(t, cookie, await buildZip(entriesWith())), 201);
    assert.equal(res.report.counts.items, 1);
    assert.equal(res.report.counts.files, 1);
    const items = (await getJson(t, cookie, `/api/projects/${res.project.id}/todos/items`)).items;
    assert.equal(items[0].attachments[0].name, "pic.png");
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/projects/import refuses unsafe entry names: ../, absolute, backslash, duplicate, symlink", async () => {
  const t = await testApp();
  try {
    const { cookie } = await signUp(t, "olga@example.com");
    const cases: Array<[RawEntry, RegExp]> = [
      [{ name: "../evil.txt", data: "pwned" }, /"\.\.\/evil\.txt" has a parent directory/],
      [{ name: "files/7/../../../evil.txt", data: "pwned" }, /has a parent directory/],
      [{ name: "/tmp/evil.txt", data: "pwned" }, /"\/tmp\/evil\.txt" has an absolute path/],
      [{ name: "C:/evil.txt", data: "pwned" }, /has an absolute path/],
      [{ name: "..\\evil.txt", data: "pwned" }, /has a backslash/],
      [{ name: "files/7/pic.png", data: PNG_BYTES }, /"files\/7\/pic\.png" appears twice/],
      [
        { name: "files/8/link.png", data: "/etc/passwd", unixMode: 0o120777 },
        /"files\/8\/link\.png" is a symbolic link/,
      ],
    ];
    for (const [entry, problem] of cases) {
      const archive = await buildZip(entriesWith(projectJson(), [entry]));
      await expectRefused(t, cookie, archive, 400, problem);
    }
    // The symbolic link is refused even where a file's bytes are expected.
    const link = await buildZip([
      { name: "project.json", data: projectJson(), deflate: true },
      { name: "files/7/pic.png", data: "/etc/passwd", unixMode: 0o120777 },
    ]);
    await expectRefused(t, cookie, link, 400, /is a symbolic link/);
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/projects/import: a zip bomb or an archive over MAX_IMPORT_MB is 413 too_large", async () => {
  const t = await testApp({ env: { MAX_IMPORT_MB: "1" } });
  try {
    const { cookie } = await signUp(t, "olga@example.com");
    // A few KiB that inflate to 8 MiB.
    const bomb = await buildZip(entriesWith(projectJson(), [
      { name: "files/9/zeros.txt", data: new Uint8Array(8 * 1024 * 1024), deflate: true },
    ]));
    assert.ok(bomb.byteLength < 64 * 1024);
    await expectRefused(t, cookie, bomb, 413, /at most 1 MiB, inflated or not/);
    // Many entries, each small, that add up past the limit.
    const many = await buildZip(entriesWith(
      projectJson(),
      Array.from({ length: 20 }, (_, i) => ({
        name: `notes/${i}.md`,
        data: new Uint8Array(100 * 1024),
        deflate: true,
      })),
    ));
    await expectRefused(t, cookie, many, 413, /at most 1 MiB/);
    // The archive itself over the limit, as the body and as a multipart field.
    const big = await buildZip(entriesWith(projectJson(), [
      { name: "notes/big.md", data: crypto.getRandomValues(new Uint8Array(60_000)) },
      ...Array.from({ length: 20 }, (_, i) => ({
        name: `notes/r${i}.md`,
        data: crypto.getRandomValues(new Uint8Array(60_000)),
      })),
    ]));
    assert.ok(big.byteLength > 1024 * 1024);
    await expectRefused(t, cookie, big, 413, /at most 1 MiB/);
    const form = new FormData();
    form.append("archive", new File([big as BlobPart], "big.zip"));
    const projects = await projectCount(t);
    expectError(
      await api(t, "POST", "/api/projects/import", { cookie, raw: form }),
      413,
      "too_large",
    );
    assert.equal(await projectCount(t), projects);
    assert.deepEqual(await storedFiles(t), []);
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/projects/import: a zip bomb whose headers lie stops at MAX_IMPORT_MB while inflating (413)", async () => {
  const t = await testApp({ env: { MAX_IMPORT_MB: "1" } });
  try {
    const { cookie } = await signUp(t, "olga@example.com");
    // Its headers say 70 bytes; it inflates to 16 MiB. Inflating stops at the limit.
    const bomb = await buildZip([
      { name: "project.json", data: projectJson(), deflate: true },
      {
        name: "files/7/pic.png",
        data: new Uint8Array(16 * 1024 * 1024),
        deflate: true,
        declaredSize: PNG_BYTES.byteLength,
      },
    ]);
    assert.ok(bomb.byteLength < 64 * 1024);
    await expectRefused(t, cookie, bomb, 413, /at most 1 MiB, inflated or not/);
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/projects/import: an entry that inflates past its declared size is refused (400)", async () => {
  const t = await testApp();
  try {
    const { cookie } = await signUp(t, "olga@example.com");
    const lying = await buildZip([
      { name: "project.json", data: projectJson(), deflate: true },
      {
        name: "files/7/pic.png",
        data: new Uint8Array(100 * 1024),
        deflate: true,
        declaredSize: PNG_BYTES.byteLength,
      },
    ]);
    await expectRefused(
      t,
      cookie,
      lying,
      400,
      /"files\/7\/pic\.png" inflates to more than the 70 bytes declared/,
    );
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/projects/import refuses damaged, foreign and too-new archives", async () => {
  const t = await testApp();
  try {
    const { cookie } = await signUp(t, "olga@example.com");
    const good = await buildZip(entriesWith());
    await expectRefused(
      t,
      cookie,
      good.subarray(0, good.byteLength - 30),
      400,
      /not a readable zip archive/,
    );
    await expectRefused(
      t,
      cookie,
      new TextEncoder().encode("hello, not a zip"),
      400,
      /not a readable zip archive/,
    );
    const badCrc = await buildZip([
      { name: "project.json", data: projectJson(), deflate: true },
      { name: "files/7/pic.png", data: PNG_BYTES, crc: 12345 },
    ]);
    await expectRefused(t, cookie, badCrc, 400, /"files\/7\/pic\.png" cannot be inflated/);
    await expectRefused(
      t,
      cookie,
      await buildZip([{ name: "readme.txt", data: "hi" }]),
      400,
      /not a project archive \(it holds no project\.json\)/,
    );
    await expectRefused(
      t,
      cookie,
      await buildZip([{ name: "project.json", data: '{"hello": "world"}' }]),
      400,
      /not a project archive \(project\.json's format is null/,
    );
    await expectRefused(
      t,
      cookie,
      await buildZip([{ name: "project.json", data: "{not json" }]),
      400,
      /project\.json is not valid JSON/,
    );
    const error = await expectRefused(
      t,
      cookie,
      await buildZip(entriesWith(projectJson((doc) => doc.version = 2))),
      400,
      /version 2, made by a newer server; this server reads version 1/,
    );
    assert.ok(error.details.version);
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/projects/import refuses files whose bytes do not match, and references to missing ids", async () => {
  const t = await testApp();
  try {
    const { cookie } = await signUp(t, "olga@example.com");
    const sizeOff = projectJson((doc) => doc.files[0].size = 10);
    await expectRefused(
      t,
      cookie,
      await buildZip(entriesWith(sizeOff)),
      400,
      /bytes of file 7 do not match: 70 bytes in the archive, 10 in project\.json/,
    );
    await expectRefused(
      t,
      cookie,
      await buildZip([{ name: "project.json", data: projectJson() }]),
      400,
      /bytes of file 7 are missing \(no entry files\/7\/pic\.png\)/,
    );
    const missingFile = projectJson((doc) => doc.items[0].attachments = [{ id: 99 }]);
    let error = await expectRefused(
      t,
      cookie,
      await buildZip(entriesWith(missingFile)),
      400,
      /items\.0\.attachments\.0\.id: files 99 is not in the archive/,
    );
    assert.ok(error.details["items.0.attachments.0.id"]);
    const missingColumn = projectJson((doc) => doc.items[0].columnId = 5);
    await expectRefused(
      t,
      cookie,
      await buildZip(entriesWith(missingColumn)),
      400,
      /columns 5 is not in the archive/,
    );
    const badPriority = projectJson((doc) => doc.items[0].priority = "urgent");
    error = await expectRefused(
      t,
      cookie,
      await buildZip(entriesWith(badPriority)),
      400,
      /items\.0\.priority/,
    );
    assert.ok(error.details["items.0.priority"]);
    const twice = projectJson((doc) => doc.columns.push({ ...doc.columns[0], key: null }));
    await expectRefused(
      t,
      cookie,
      await buildZip(entriesWith(twice)),
      400,
      /columns\.1\.id: 1 appears twice/,
    );
    const notAllowed = projectJson((doc) => doc.files[0].name = "run.exe");
    await expectRefused(
      t,
      cookie,
      await buildZip([{ name: "project.json", data: notAllowed }, {
        name: "files/7/run.exe",
        data: PNG_BYTES,
      }]),
      400,
      /files\.0\.name: the type of "run\.exe" is not allowed/,
    );
    await expectRefused(
      t,
      cookie,
      await buildZip([{ name: "project.json", data: projectJson() }, {
        name: "files/7/pic.png",
        data: "not a png at all",
      }]),
      400,
      /files\.0\.size|content of file 7 does not match its type/,
    );
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/projects/import writes all or none: a failure inside the transaction leaves no row and no bytes", async () => {
  const t = await testApp();
  try {
    const { cookie } = await signUp(t, "olga@example.com");
    // A rule the checks do not know of, broken by the last rows written.
    await refuse(t, "BEFORE INSERT ON activity", {
      message: "activity refused: constraint failed",
    });
    const archive = await buildZip(entriesWith(projectJson((doc) => {
      doc.activity = [{
        id: 1,
        kind: "todo_created",
        actor: "olga@example.com",
        subjectType: "item",
        subjectId: 1,
        summary: "One",
        createdAt: doc.exportedAt,
      }];
    })));
    const counts = () =>
      Promise.all(
        ["projects", "todo_items", "files", "attachments", searchRowsTable(t)].map((table) =>
          t.sql.count(table)
        ),
      );
    const before = await counts();
    await expectRefused(t, cookie, archive, 400, /breaks a rule of the database/);
    assert.deepEqual(await counts(), before);
    assert.equal(await searchTextOutOfStep(t), 0);
  } finally {
    await t.close();
  }
});
