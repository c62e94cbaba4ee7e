/**
 * Attaching a file the project already has, from the pages without JavaScript: the picker
 * beside the upload control offers the project's files, the choice is linked through the
 * attachments service, and a bad choice is refused with a clear message and changes nothing.
 */
import assert from "node:assert/strict";
import type { TestApp } from "../helpers/app.ts";
import {
  api,
  createProject,
  createTodo,
  getJson,
  type Json,
  PDF_BYTES,
  PNG_BYTES,
  uploadFile,
} from "../helpers/api.ts";
import { page, post, withTeam } from "./page_requests.ts";

async function attachmentsOf(t: TestApp, cookie: string, projectId: number, itemId: number) {
  const item = await getJson(t, cookie, `/api/projects/${projectId}/todos/items/${itemId}`);
  return (item.item ?? item).attachments.map((f: Json) => f.id);
}

/** The options of a page's file picker: value and label. */
function pickerOptions(html: string): Array<[string, string]> {
  const select = /<select name="fileId"[^>]*>([\s\S]*?)<\/select>/.exec(html);
  if (!select) return [];
  return [...select[1]!.matchAll(/<option value="([^"]*)"[^>]*>([^<]*)<\/option>/g)]
    .map((m) => [m[1]!, m[2]!]);
}

Deno.test("a to-do's page offers the project's files and attaches the one chosen", async () => {
  await withTeam(async (t, { alice, project }) => {
    const item = await createTodo(t, alice.cookie, project.id);
    const png = await uploadFile(t, alice.cookie, project.id, "screen.png", PNG_BYTES);
    const pdf = await uploadFile(t, alice.cookie, project.id, "spec.pdf", PDF_BYTES);
    const other = await createProject(t, alice.cookie, "Zeus");
    await uploadFile(t, alice.cookie, other.id, "secret.pdf", PDF_BYTES);
    const path = `/projects/${project.id}/todos/${item.id}`;

    const before = await page(t, alice.cookie, path);
    assert.equal(before.status, 200);
    assert.match(before.html, /Or attach a file of this project/);
    assert.deepEqual(pickerOptions(before.html), [
      ["", "Choose a file"],
      [String(pdf.id), `spec.pdf (${PDF_BYTES.byteLength} B)`],
      [String(png.id), `screen.png (${PNG_BYTES.byteLength} B)`],
    ]);

    const res = await post(t, alice.cookie, `${path}/attachments/existing`, {
      fileId: String(png.id),
    });
    assert.equal(res.status, 303);
    assert.equal(res.location, path);
    assert.deepEqual(await attachmentsOf(t, alice.cookie, project.id, item.id), [png.id]);
    // The attached file shows as a thumbnail and leaves the picker.
    const after = await page(t, alice.cookie, path);
    assert.match(after.html, new RegExp(`data-thumb="${png.id}"`));
    assert.deepEqual(pickerOptions(after.html).map(([v]) => v), ["", String(pdf.id)]);
  });
});

Deno.test("a bad choice is refused with a clear message, in both languages, and attaches nothing", async () => {
  await withTeam(async (t, { alice, project }) => {
    const item = await createTodo(t, alice.cookie, project.id);
    await uploadFile(t, alice.cookie, project.id, "screen.png", PNG_BYTES);
    const other = await createProject(t, alice.cookie, "Zeus");
    const foreign = await uploadFile(t, alice.cookie, other.id, "secret.pdf", PDF_BYTES);
    const path = `/projects/${project.id}/todos/${item.id}`;
    const cases: Array<[string, RegExp]> = [
      [String(foreign.id), /Choose a file of this project\./],
      ["999999", /Choose a file of this project\./],
      ["abc", /Choose a file of this project\./],
      ["", /Choose a file to attach\./],
    ];
    for (const [fileId, message] of cases) {
      const res = await post(t, alice.cookie, `${path}/attachments/existing`, { fileId });
      assert.equal(res.status, 400, fileId);
      assert.match(res.html, message, fileId);
      assert.match(res.html, /role="alert"/, fileId);
    }
    assert.deepEqual(await attachmentsOf(t, alice.cookie, project.id, item.id), []);

    const ja = await api(t, "PATCH", "/api/users/me", {
      cookie: alice.cookie,
      body: { locale: "ja" },
    });
    assert.equal(ja.status, 200);
    const shown = await page(t, alice.cookie, path);
    assert.match(shown.html, /またはこのプロジェクトのファイルを添付/);
    const refused = await post(t, alice.cookie, `${path}/attachments/existing`, {
      fileId: String(foreign.id),
    });
    assert.equal(refused.status, 400);
    assert.match(refused.html, /このプロジェクトのファイルを選んでください。/);
    assert.deepEqual(await attachmentsOf(t, alice.cookie, project.id, item.id), []);
  });
});

Deno.test("a viewer gets no picker and cannot attach; an outsider gets the 404 page", async () => {
  await withTeam(async (t, { alice, viewer, outsider, project }) => {
    const item = await createTodo(t, alice.cookie, project.id);
    const png = await uploadFile(t, alice.cookie, project.id, "screen.png", PNG_BYTES);
    const path = `/projects/${project.id}/todos/${item.id}`;
    const shown = await page(t, viewer.cookie, path);
    assert.equal(shown.status, 200);
    assert.deepEqual(pickerOptions(shown.html), []);
    const refused = await post(t, viewer.cookie, `${path}/attachments/existing`, {
      fileId: String(png.id),
    });
    assert.equal(refused.status, 403);
    const hidden = await post(t, outsider.cookie, `${path}/attachments/existing`, {
      fileId: String(png.id),
    });
    assert.equal(hidden.status, 404);
    assert.deepEqual(await attachmentsOf(t, alice.cookie, project.id, item.id), []);
  });
});

/** A multipart page form post, with a file or an empty file input as a browser sends it. */
function postMultipart(
  t: TestApp,
  cookie: string,
  path: string,
  fields: Record<string, string>,
  file: { name: string; bytes: Uint8Array } | null = null,
) {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  form.append("file", file ? new File([file.bytes as BlobPart], file.name) : new File([], ""));
  return page(t, cookie, path, { method: "POST", body: form });
}

const ids = (files: Json[]) => files.map((f: Json) => f.id).sort((a: number, b: number) => a - b);

Deno.test("a new thread, a thread's edit and a reply attach a chosen project file", async () => {
  await withTeam(async (t, { alice, project }) => {
    const png = await uploadFile(t, alice.cookie, project.id, "screen.png", PNG_BYTES);
    const pdf = await uploadFile(t, alice.cookie, project.id, "spec.pdf", PDF_BYTES);
    const board = `/projects/${project.id}/board`;
    assert.deepEqual(
      pickerOptions((await page(t, alice.cookie, board)).html).map(([v]) => v),
      ["", String(pdf.id), String(png.id)],
    );
    const created = await postMultipart(t, alice.cookie, board, {
      title: "Layout",
      category: "general",
      body: "See the screen.",
      fileId: String(png.id),
    });
    assert.equal(created.status, 303);
    const threadId = Number(/\/board\/(\d+)/.exec(created.location!)![1]);
    const api = `/api/projects/${project.id}/board/threads/${threadId}`;
    assert.deepEqual(ids((await getJson(t, alice.cookie, api)).thread.attachments), [png.id]);

    // The edit takes an upload and a chosen file together.
    const edited = await postMultipart(t, alice.cookie, `${board}/${threadId}`, {
      title: "Layout",
      category: "general",
      body: "See the screen and the spec.",
      fileId: String(pdf.id),
    }, { name: "more.png", bytes: PNG_BYTES });
    assert.equal(edited.status, 303);
    const thread = (await getJson(t, alice.cookie, api)).thread;
    assert.equal(thread.attachments.length, 3);
    assert.ok(ids(thread.attachments).includes(pdf.id));

    const replied = await postMultipart(t, alice.cookie, `${board}/${threadId}/comments`, {
      body: "Here it is.",
      fileId: String(pdf.id),
    });
    assert.equal(replied.status, 303);
    const [comment] = (await getJson(t, alice.cookie, api)).comments;
    assert.deepEqual(ids(comment.attachments), [pdf.id]);
  });
});

Deno.test("a chat message attaches a chosen project file", async () => {
  await withTeam(async (t, { alice, project }) => {
    const png = await uploadFile(t, alice.cookie, project.id, "screen.png", PNG_BYTES);
    const chat = `/projects/${project.id}/chat`;
    assert.match((await page(t, alice.cookie, chat)).html, /<select name="fileId"/);
    const sent = await postMultipart(t, alice.cookie, chat, {
      text: "The screen",
      fileId: String(png.id),
    });
    assert.equal(sent.status, 303);
    const { items } = await getJson(t, alice.cookie, `/api/projects/${project.id}/chat/messages`);
    assert.deepEqual(items.map((m: Json) => [m.text, ids(m.attachments)]), [
      ["The screen", [png.id]],
    ]);
  });
});

Deno.test("a foreign or unknown chosen file refuses the whole post: no thread, reply, message or upload", async () => {
  await withTeam(async (t, { alice, project }) => {
    const other = await createProject(t, alice.cookie, "Zeus");
    const foreign = await uploadFile(t, alice.cookie, other.id, "secret.pdf", PDF_BYTES);
    const board = `/projects/${project.id}/board`;
    const thread = await postMultipart(t, alice.cookie, board, {
      title: "Kept",
      category: "general",
      body: "Body",
    });
    const threadId = Number(/\/board\/(\d+)/.exec(thread.location!)![1]);
    const api = `/api/projects/${project.id}/board/threads/${threadId}`;
    const filesBefore = (await getJson(t, alice.cookie, `/api/projects/${project.id}/files`)).total;
    const upload = { name: "new.png", bytes: PNG_BYTES };
    for (const fileId of [String(foreign.id), "999999", "x"]) {
      const posts: Array<[string, Record<string, string>]> = [
        [board, { title: "Refused", category: "general", body: "No", fileId }],
        [`${board}/${threadId}`, { title: "Changed", category: "idea", body: "No", fileId }],
        [`${board}/${threadId}/comments`, { body: "No", fileId }],
        [`/projects/${project.id}/chat`, { text: "No", fileId }],
      ];
      for (const [path, fields] of posts) {
        const res = await postMultipart(t, alice.cookie, path, fields, upload);
        assert.equal(res.status, 400, `${path} ${fileId}`);
        assert.match(res.html, /Choose a file of this project\./, `${path} ${fileId}`);
      }
    }
    const { items: threads } = await getJson(
      t,
      alice.cookie,
      `/api/projects/${project.id}/board/threads`,
    );
    assert.deepEqual(threads.map((th: Json) => th.title), ["Kept"]);
    const kept = await getJson(t, alice.cookie, api);
    assert.equal(kept.thread.category, "general");
    assert.deepEqual([kept.thread.attachments, kept.comments], [[], []]);
    const chat = await getJson(t, alice.cookie, `/api/projects/${project.id}/chat/messages`);
    assert.deepEqual(chat.items, []);
    const filesAfter = (await getJson(t, alice.cookie, `/api/projects/${project.id}/files`)).total;
    assert.equal(filesAfter, filesBefore);
  });
});
