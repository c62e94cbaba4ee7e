/** GET /api/admin/backup: a streamed backup of the running server, for system admins only. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { testApp } from "../helpers/app.ts";
import { api, createProject, expectError, register, signUp } from "../helpers/api.ts";
import { runMain } from "../helpers/main_process.ts";
import { ON_POSTGRES } from "../helpers/test_database.ts";

const NOW = "2026-11-22T08:30:00.000Z";

/** The backup work folders in the data directory. */
async function workFolders(dataDir: string): Promise<string[]> {
  return (await Array.fromAsync(Deno.readDir(dataDir)))
    .map((e) => e.name)
    .filter((n) => n.startsWith(".backup-"));
}

Deno.test({
  name: "GET /api/admin/backup streams an archive that restores, while the server goes on serving",
  ignore: ON_POSTGRES, // backup of SQLite's file (on PostgreSQL the endpoint answers 409: pg_dump)
}, async () => {
  const t = await testApp({ now: NOW });
  const dir = await Deno.makeTempDir({ prefix: "backup-api-test-" });
  try {
    const admin = await signUp(t, "root@example.com");
    const project = await createProject(t, admin.cookie);
    const bytes = new TextEncoder().encode("minutes of the first meeting\n".repeat(1000));
    const form = new FormData();
    form.append("file", new File([bytes], "議事録.txt"));
    const uploaded = await api(t, "POST", `/api/projects/${project.id}/files`, {
      cookie: admin.cookie,
      raw: form,
    });
    assert.equal(uploaded.status, 201, uploaded.text);
    const chat = `/api/projects/${project.id}/chat/messages`;
    const before = await api(t, "POST", chat, { cookie: admin.cookie, body: { text: "before" } });
    assert.equal(before.status, 201);

    const res = await t.app.request("/api/admin/backup", { headers: { cookie: admin.cookie } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/gzip");
    assert.equal(
      res.headers.get("content-disposition"),
      'attachment; filename="collab-backup-20261122T083000Z.tar.gz"',
    );
    assert.equal(res.headers.get("cache-control"), "no-store");
    assert.equal(res.headers.get("content-length"), null, "streamed, not buffered");

    // While the archive is being read, requests (writes too) are answered.
    const reader = res.body!.getReader();
    const chunks: Uint8Array[] = [];
    const first = await reader.read();
    assert.ok(!first.done);
    chunks.push(first.value);
    assert.equal((await workFolders(t.dataDir)).length, 1, "the snapshot waits in DATA_DIR");
    const during = await api(t, "POST", chat, { cookie: admin.cookie, body: { text: "during" } });
    assert.equal(during.status, 201);
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
    assert.deepEqual(await workFolders(t.dataDir), [], "removed once the archive was read");

    const archive = join(dir, "download.tar.gz");
    await Deno.writeFile(archive, new Blob(chunks as Uint8Array<ArrayBuffer>[]).stream());
    const listed = await new Deno.Command("tar", { args: ["-tzf", archive] }).output();
    assert.equal(listed.code, 0);
    const names = new TextDecoder().decode(listed.stdout).trim().split("\n");
    assert.equal(names[0], "collab.db");
    assert.equal(names.at(-1), "manifest.json");
    assert.ok(names.some((n) => /^files\/\d+\/[0-9a-f-]+\.txt$/.test(n)), names.join(" "));

    const restoredDir = join(dir, "restored");
    const restored = await runMain(["restore", archive, "--data-dir", restoredDir]);
    assert.equal(restored.code, 0, restored.stderr.join("\n"));
    const db = new DatabaseSync(join(restoredDir, "collab.db"), { readOnly: true });
    const texts = (db.prepare("SELECT text FROM chat_messages ORDER BY id").all() as Array<
      { text: string }
    >).map((r) => r.text);
    const { stored_name } = db.prepare("SELECT stored_name FROM files").get() as {
      stored_name: string;
    };
    db.close();
    assert.deepEqual(texts, ["before"], "the snapshot was taken before the stream began");
    assert.deepEqual(await Deno.readFile(join(restoredDir, "files", stored_name)), bytes);
  } finally {
    await t.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "GET /api/admin/backup cancelled midway removes its snapshot",
  ignore: ON_POSTGRES, // backup of SQLite's file (on PostgreSQL the endpoint answers 409: pg_dump)
}, async () => {
  const t = await testApp({ now: NOW });
  try {
    const admin = await signUp(t, "root@example.com");
    const res = await t.app.request("/api/admin/backup", { headers: { cookie: admin.cookie } });
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    await reader.read();
    await reader.cancel();
    assert.deepEqual(await workFolders(t.dataDir), []);
  } finally {
    await t.close();
  }
});

Deno.test("GET /api/admin/backup is 403 for a member and 401 without a session", async () => {
  const t = await testApp({ now: NOW });
  try {
    await register(t, "root@example.com");
    const member = await register(t, "ada@example.com");
    expectError(await api(t, "GET", "/api/admin/backup", { cookie: member }), 403, "forbidden");
    expectError(await api(t, "GET", "/api/admin/backup"), 401, "unauthenticated");
    assert.deepEqual(await workFolders(t.dataDir), [], "no snapshot was taken");
  } finally {
    await t.close();
  }
});

Deno.test("the OpenAPI document describes GET /api/admin/backup", async () => {
  const t = await testApp();
  try {
    const doc = (await api(t, "GET", "/api/openapi.json")).json;
    const op = doc.paths["/api/admin/backup"].get;
    assert.ok(op.responses["200"].content["application/gzip"]);
    assert.ok(op.responses["403"]);
  } finally {
    await t.close();
  }
});
