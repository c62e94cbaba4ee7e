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
