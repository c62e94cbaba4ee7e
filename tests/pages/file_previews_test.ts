/**
 * Image previews: the page-side preview route shows PNG, JPEG, GIF and WebP inline (sniffed from
 * the stored bytes, sandboxed), serves everything else as a download, and only to readers of
 * the file's own project; the Files page and attachment lists show thumbnails of real images.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { TestApp } from "../helpers/app.ts";
import {
  attachIds,
  createProject,
  createTodo,
  download,
  expectJson,
  PDF_BYTES,
  PNG_BYTES,
  uploadFile,
} from "../helpers/api.ts";
import { page, withTeam } from "./page_requests.ts";

const bytes = (...parts: Array<string | number[]>) =>
  Uint8Array.from(
    parts.flatMap((p) => typeof p === "string" ? [...p].map((c) => c.charCodeAt(0)) : p),
  );

/** Tiny images made here: each begins with its format's signature. */
const IMAGES = {
  jpeg: bytes([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10], "JFIF", [
    0,
    1,
    1,
    0,
    0,
    1,
    0,
    1,
    0,
    0,
    0xff,
    0xd9,
  ]),
  gif: bytes("GIF89a", [1, 0, 1, 0, 0x80, 0, 0, 0xff, 0xff, 0xff, 0, 0, 0], [
    0x2c,
    0,
    0,
    0,
    0,
    1,
    0,
    1,
    0,
    0,
    2,
    2,
    0x44,
    1,
    0,
    0x3b,
  ]),
  webp: bytes("RIFF", [0x1a, 0, 0, 0], "WEBPVP8L", [
    0x0d,
    0,
    0,
    0,
    0x2f,
    0,
    0,
    0,
    0x10,
    0x07,
    0x10,
    0x11,
    0x11,
    0x88,
    0x88,
    0xfe,
    0x07,
    0,
  ]),
};

const CSP = "sandbox; default-src 'none'";

/** GETs a preview as `cookie`; the answer with its bytes. */
async function preview(t: TestApp, cookie: string, projectId: number, fileId: number) {
  const headers = { cookie };
  const res = await t.app.request(`/projects/${projectId}/files/${fileId}/preview`, { headers });
  return { res, body: new Uint8Array(await res.arrayBuffer()) };
}

/** Overwrites a stored file's bytes, as a changed disk or an old store might hold them. */
async function replaceStoredBytes(t: TestApp, fileId: number, data: Uint8Array): Promise<void> {
  const row = (await t.sql.get<{ stored_name: string }>(
    "SELECT stored_name FROM files WHERE id = ?",
    [fileId],
  ))!;
  await Deno.writeFile(join(t.dataDir, "files", row.stored_name), data);
}

Deno.test("a PNG, JPEG, GIF and WebP preview is shown inline, sniffed, with nosniff and a sandbox CSP", async () => {
  await withTeam(async (t, { alice, project }) => {
    const cases: Array<[string, Uint8Array, string]> = [
      ["logo.png", PNG_BYTES, "image/png"],
      ["photo.JPG", IMAGES.jpeg, "image/jpeg"],
      ["anim.gif", IMAGES.gif, "image/gif"],
      ["写真.webp", IMAGES.webp, "image/webp"],
    ];
    for (const [name, data, type] of cases) {
      const file = await uploadFile(t, alice.cookie, project.id, name, data);
      const { res, body } = await preview(t, alice.cookie, project.id, file.id);
      assert.equal(res.status, 200, name);
      assert.equal(res.headers.get("content-type"), type, name);
      assert.equal(res.headers.get("x-content-type-options"), "nosniff", name);
      assert.equal(res.headers.get("content-security-policy"), CSP, name);
      assert.match(res.headers.get("content-disposition")!, /^inline; filename="/, name);
      assert.match(
        res.headers.get("content-disposition")!,
        new RegExp(`filename\\*=UTF-8''${encodeURIComponent(name)}$`),
      );
      assert.equal(res.headers.get("content-length"), String(data.byteLength), name);
      assert.deepEqual(body, data, name);
      assert.equal(res.headers.get("cache-control"), "no-store", name);
    }
  });
});

Deno.test("a preview of any other file is a download: markup in text files, PDFs, and bytes that are no image", async () => {
  await withTeam(async (t, { alice, project }) => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>';
    const html = "<!DOCTYPE html><html><body><script>alert(1)</script></body></html>";
    const cases: Array<[string, Uint8Array | string, string]> = [
      ["drawing.txt", svg, "text/plain; charset=utf-8"],
      ["page.txt", html, "text/plain; charset=utf-8"],
      ["data.json", '{"a":1}', "application/json"],
      ["report.pdf", PDF_BYTES, "application/pdf"],
    ];
    for (const [name, data, type] of cases) {
      const file = await uploadFile(t, alice.cookie, project.id, name, data);
      const { res } = await preview(t, alice.cookie, project.id, file.id);
      assert.equal(res.status, 200, name);
      assert.equal(res.headers.get("content-type"), type, name);
      assert.match(res.headers.get("content-disposition")!, /^attachment; filename="/, name);
      assert.equal(res.headers.get("x-content-type-options"), "nosniff", name);
      assert.equal(res.headers.get("content-security-policy"), CSP, name);
    }
    // Stored bytes that no longer begin an image (SVG, HTML or text under a .png name) are
    // never shown inline, nor labelled as an image.
    for (const markup of [svg, html, "just text"]) {
      const file = await uploadFile(t, alice.cookie, project.id, "fake.png", PNG_BYTES);
      await replaceStoredBytes(t, file.id, new TextEncoder().encode(markup));
      const { res, body } = await preview(t, alice.cookie, project.id, file.id);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "application/octet-stream");
      assert.match(res.headers.get("content-disposition")!, /^attachment; /);
      assert.equal(res.headers.get("content-security-policy"), CSP);
      assert.equal(res.headers.get("content-length"), String(body.byteLength));
      assert.equal(new TextDecoder().decode(body), markup);
    }
  });
});

Deno.test("a preview is for readers of the file's own project: viewers yes, outsiders and other projects' files 404", async () => {
  await withTeam(async (t, { owner, alice, viewer, outsider, project }) => {
    const file = await uploadFile(t, alice.cookie, project.id, "logo.png", PNG_BYTES);
    assert.equal((await preview(t, viewer.cookie, project.id, file.id)).res.status, 200);
    assert.equal((await preview(t, outsider.cookie, project.id, file.id)).res.status, 404);
    // Alice's other project: the file is not one of its files, even for someone in both.
    const other = await createProject(t, alice.cookie, "Zeus");
    const otherFile = await uploadFile(t, alice.cookie, other.id, "other.png", PNG_BYTES);
    for (const [projectId, fileId] of [[project.id, otherFile.id], [other.id, file.id]]) {
      const { res, body } = await preview(t, alice.cookie, projectId!, fileId!);
      assert.equal(res.status, 404);
      assert.equal(res.headers.get("content-disposition"), null);
      assert.doesNotMatch(new TextDecoder().decode(body), /PNG/);
    }
    assert.equal((await preview(t, owner.cookie, project.id, 999_999)).res.status, 404);
    // Without a session the page asks to sign in; nothing of the file is sent.
    const anonymous = await t.app.request(`/projects/${project.id}/files/${file.id}/preview`);
    assert.notEqual(anonymous.status, 200);
    assert.equal(anonymous.headers.get("content-disposition"), null);
    await anonymous.body?.cancel();
    // A trashed file is gone from previews too.
    const trashed = await t.app.request(`/api/projects/${project.id}/files/${file.id}`, {
      method: "DELETE",
      headers: { cookie: alice.cookie },
    });
    assert.equal(trashed.status, 204);
    assert.equal((await preview(t, alice.cookie, project.id, file.id)).res.status, 404);
  });
});

Deno.test("the API download keeps its contract: an image is still an attachment", async () => {
  await withTeam(async (t, { alice, project }) => {
    const file = await uploadFile(t, alice.cookie, project.id, "logo.png", PNG_BYTES);
    const got = await download(t, alice.cookie, file.id);
    assert.equal(got.status, 200);
    assert.match(got.headers.get("content-disposition")!, /^attachment; /);
    assert.equal(got.headers.get("content-security-policy"), "default-src 'none'; sandbox");
    assert.equal(got.headers.get("cache-control"), "no-store");
  });
});

/** The `<img>` thumbnails of a page: each one's file id, source and alt text. */
function thumbnails(html: string): Array<{ id: string; src: string; alt: string }> {
  return [...html.matchAll(/<a class="thumb" href="([^"]+)" data-thumb="(\d+)"><img ([^>]*)>/g)]
    .map((m) => ({
      id: m[2]!,
      src: /src="([^"]+)"/.exec(m[3]!)![1]!,
      alt: /alt="([^"]*)"/.exec(m[3]!)![1]!,
    }));
}

Deno.test("the Files page shows a thumbnail, linked to the full image, only for real images", async () => {
  await withTeam(async (t, { alice, viewer, project }) => {
    const png = await uploadFile(t, alice.cookie, project.id, "logo & mark.png", PNG_BYTES);
    const gif = await uploadFile(t, alice.cookie, project.id, "anim.gif", IMAGES.gif);
    await uploadFile(t, alice.cookie, project.id, "report.pdf", PDF_BYTES);
    await uploadFile(t, alice.cookie, project.id, "drawing.txt", "<svg></svg>");
    for (const cookie of [alice.cookie, viewer.cookie]) {
      const { status, html } = await page(t, cookie, `/projects/${project.id}/files`);
      assert.equal(status, 200);
      const base = `/projects/${project.id}/files`;
      assert.deepEqual(thumbnails(html), [
        { id: String(gif.id), src: `${base}/${gif.id}/preview`, alt: "anim.gif" },
        { id: String(png.id), src: `${base}/${png.id}/preview`, alt: "logo &amp; mark.png" },
      ]);
      assert.match(html, /<img [^>]*loading="lazy"[^>]*decoding="async"/);
      assert.match(html, new RegExp(`href="${base}/${png.id}/preview" data-thumb`));
    }
  });
});

Deno.test("a to-do's attachments show thumbnails only for real images", async () => {
  await withTeam(async (t, { alice, project }) => {
    const item = await createTodo(t, alice.cookie, project.id);
    const png = await uploadFile(t, alice.cookie, project.id, "screen.png", PNG_BYTES);
    const pdf = await uploadFile(t, alice.cookie, project.id, "spec.pdf", PDF_BYTES);
    expectJson(
      await attachIds(
        t,
        alice.cookie,
        `/api/projects/${project.id}/todos/items/${item.id}/attachments`,
        [png.id, pdf.id],
      ),
      200,
    );
    const { html } = await page(t, alice.cookie, `/projects/${project.id}/todos/${item.id}`);
    assert.deepEqual(thumbnails(html).map((i) => [i.id, i.alt]), [[String(png.id), "screen.png"]]);
    assert.match(html, /spec\.pdf/);
  });
});
