/**
 * Export and import from the pages, in process: the Export link on the project page (owners
 * and admins), the Import form on the projects page, the report an import shows, and every
 * refusal (no archive, a damaged one, one too large) in the user's words, nothing created.
 */
import assert from "node:assert/strict";
import { testApp } from "../helpers/app.ts";
import { api, getJson, type Json, signUp, team } from "../helpers/api.ts";
import { exportProject, richProject } from "../helpers/project_fixture.ts";
import { buildZip } from "../helpers/zip.ts";
import { page } from "./page_requests.ts";

type T = Awaited<ReturnType<typeof testApp>>;

/** The import form as a browser sends it: multipart, the archive in `file`. */
function importForm(t: T, cookie: string, file: { name: string; bytes: Uint8Array } | null) {
  const form = new FormData();
  form.append("file", file ? new File([file.bytes as BlobPart], file.name) : new File([], ""));
  return page(t, cookie, "/projects/import", { method: "POST", body: form });
}

async function projectNames(t: T, cookie: string): Promise<string[]> {
  const { items } = await getJson(t, cookie, "/api/projects");
  return (items as Json[]).map((p) => p.name).sort();
}

Deno.test("the project page offers Export to owners and admins only", async () => {
  const t = await testApp();
  try {
    const { admin, owner, alice, viewer, project } = await team(t);
    const href = `href="/api/projects/${project.id}/export"`;
    for (const who of [owner, admin]) {
      const shown = await page(t, who.cookie, `/projects/${project.id}`);
      assert.ok(shown.html.includes(href), "an owner or admin sees Export");
      assert.match(shown.html, /data-export[^>]*>Export<\/a>/);
    }
    for (const who of [alice, viewer]) {
      const shown = await page(t, who.cookie, `/projects/${project.id}`);
      assert.ok(!shown.html.includes(href), "a member or viewer does not");
    }
    // The link is the API's download, answered to the page's cookie.
    const { res, bytes } = await exportProject(t, owner.cookie, project.id);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/zip");
    assert.ok(bytes.length > 0);
  } finally {
    await t.close();
  }
});

Deno.test("an archive imported from the projects page shows its report and the new project", async () => {
  const t = await testApp();
  const elsewhere = await testApp();
  try {
    const rich = await richProject(t);
    const { bytes } = await exportProject(t, rich.owner.cookie, rich.project.id);
    // Another server, where only Olga has an account: the others' emails stay unmatched.
    const olga = await signUp(elsewhere, "olga@example.com");

    const list = await page(elsewhere, olga.cookie, "/projects");
    assert.match(list.html, /<h2>Import a project<\/h2>/);
    assert.match(list.html, /action="\/projects\/import"[^>]*enctype="multipart\/form-data"/);

    const imported = await importForm(elsewhere, olga.cookie, { name: "apollo.zip", bytes });
    assert.equal(imported.status, 201);
    assert.match(imported.html, /<h1>Project imported<\/h1>/);
    const id = Number(/data-imported="(\d+)"/.exec(imported.html)?.[1]);
    assert.ok(imported.html.includes(`<a href="/projects/${id}"><strong>Apollo</strong></a>`));
    const doc = (await getJson(elsewhere, olga.cookie, `/api/projects/${id}/notes`)).items;
    assert.match(
      imported.html,
      new RegExp(`data-count="notes"><td>Notes</td><td>${doc.length}</td>`),
    );
    assert.match(imported.html, /data-unmatched/);
    assert.ok(imported.html.includes("<li>alice@example.com</li>"));
    assert.ok(!imported.html.includes("<li>olga@example.com</li>"));
    assert.deepEqual(await projectNames(elsewhere, olga.cookie), ["Apollo"]);

    await api(elsewhere, "PATCH", "/api/users/me", { cookie: olga.cookie, body: { locale: "ja" } });
    const ja = await importForm(elsewhere, olga.cookie, { name: "apollo.zip", bytes });
    assert.equal(ja.status, 201);
    assert.match(ja.html, /<h1>プロジェクトをインポートしました<\/h1>/);
    assert.match(ja.html, /<td>ノート<\/td>/);
  } finally {
    await t.close();
    await elsewhere.close();
  }
});

Deno.test("a refused import says why in the user's words, with the API's status, creating nothing", async () => {
  const t = await testApp({ env: { MAX_IMPORT_MB: "1" } });
  try {
    const ann = await signUp(t, "ann@example.com");

    const none = await importForm(t, ann.cookie, null);
    assert.equal(none.status, 400);
    assert.match(none.html, /Choose an archive to import\./);

    const damaged = await importForm(t, ann.cookie, {
      name: "broken.zip",
      bytes: new TextEncoder().encode("PK\u0003\u0004 this is not a zip"),
    });
    assert.equal(damaged.status, 400);
    assert.match(damaged.html, /role="alert">/);
    assert.match(damaged.html, /This archive cannot be imported: it is damaged/);
    assert.match(damaged.html, /<h2>Import a project<\/h2>/);

    // Over MAX_IMPORT_MB: 413, said with the limit.
    const big = new Uint8Array(1024 * 1024 + 10);
    const tooLarge = await importForm(t, ann.cookie, { name: "big.zip", bytes: big });
    assert.equal(tooLarge.status, 413);
    assert.match(tooLarge.html, /The archive is too large \(at most 1 MiB, unpacked too\)\./);

    // Small, but inflating past the limit: the same 413, next to the archive field.
    const bomb = await buildZip([
      { name: "project.json", data: `{${" ".repeat(2 * 1024 * 1024)}}`, deflate: true },
    ]);
    assert.ok(bomb.byteLength < 64 * 1024);
    const inflated = await importForm(t, ann.cookie, { name: "bomb.zip", bytes: bomb });
    assert.equal(inflated.status, 413);
    assert.match(inflated.html, /The archive is too large \(at most 1 MiB, unpacked too\)\./);

    await api(t, "PATCH", "/api/users/me", { cookie: ann.cookie, body: { locale: "ja" } });
    const ja = await importForm(t, ann.cookie, null);
    assert.equal(ja.status, 400);
    assert.match(ja.html, /インポートするアーカイブを選んでください。/);

    assert.deepEqual(await projectNames(t, ann.cookie), []);
  } finally {
    await t.close();
  }
});
