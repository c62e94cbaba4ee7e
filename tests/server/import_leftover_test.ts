/**
 * An import a crash cut short: the data directory as a kill -9 in the middle of an import
 * leaves it (some batches committed, some bytes moved into place, the work folder there) is
 * cleaned at the next start-up: the hidden project goes with its rows, search rows and bytes.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { sqliteOf, testApp } from "../helpers/app.ts";
import { eventually, expectJson } from "../helpers/api.ts";
import { spawnMain } from "../helpers/main_process.ts";
import { exportProject, importZip, richProject } from "../helpers/project_fixture.ts";
import { ON_POSTGRES } from "../helpers/test_database.ts";

/** Copies a folder's contents (the database's own files left out). */
async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.name.startsWith("collab.db")) continue;
    if (entry.isDirectory) await copyTree(join(from, entry.name), join(to, entry.name));
    else await Deno.copyFile(join(from, entry.name), join(to, entry.name));
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

Deno.test({
  name:
    "start-up removes the hidden project of an import a crash cut short, with its rows, search rows and bytes",
  ignore: ON_POSTGRES, // the crash image is a copy of the SQLite file (VACUUM INTO)
}, async () => {
  const image = await Deno.makeTempDir({ prefix: "collab-crash-" });
  let half = 0;
  let taken = false;
  // Held once some bytes are in place: the data directory is copied then, as a crash leaves it.
  const t = await testApp({
    imports: {
      batchRows: 1,
      betweenBatches: async () => {
        if (taken) return;
        const row = sqliteOf(t).sql.prepare(
          "SELECT id FROM projects WHERE importing_since IS NOT NULL",
        )
          .get() as { id: number } | undefined;
        half = row?.id ?? 0;
        if (half === 0 || !(await exists(join(t.dataDir, "files", String(half))))) return;
        taken = true;
        sqliteOf(t).sql.exec(`VACUUM INTO '${join(image, "collab.db")}'`);
        await copyTree(t.dataDir, image);
      },
    },
  });
  try {
    const { owner, project } = await richProject(t);
    const { bytes } = await exportProject(t, owner.cookie, project.id);
    // The import goes on after the copy and succeeds; the copy is the crash's image.
    expectJson(await importZip(t, owner.cookie, bytes), 201);
    assert.ok(taken, "the image was taken during the import");
  } finally {
    await t.close();
  }

  // The image holds what a crash leaves: the hidden project, rows, search rows, bytes.
  const inImage = (sql: string) => {
    const db = new DatabaseSync(join(image, "collab.db"));
    try {
      return (db.prepare(sql).get(half) as { n: number }).n;
    } finally {
      db.close();
    }
  };
  const left = {
    project: "SELECT count(*) AS n FROM projects WHERE id = ?",
    items: "SELECT count(*) AS n FROM todo_items WHERE project_id = ?",
    activity: "SELECT count(*) AS n FROM activity WHERE project_id = ?",
    search: `SELECT count(*) AS n FROM search_docs
      WHERE id BETWEEN ?1 * 1099511627776 AND ?1 * 1099511627776 + 1099511627775`,
  };
  assert.equal(inImage(left.project), 1);
  assert.ok(inImage(left.items) > 0);
  assert.ok(inImage(left.search) > 0, "some rows were shown to search");
  assert.ok(await exists(join(image, "files", String(half))), "some bytes were moved");

  const server = spawnMain([], { DATA_DIR: image });
  try {
    await server.waitFor(/^listening on /);
    await eventually(
      () => server.stdout.includes("import leftovers: removed 1 unfinished projects"),
      `start-up removes the leftover: ${[...server.stdout, ...server.stderr].join("\n")}`,
      15_000,
    );
  } finally {
    server.child.kill("SIGTERM");
    const { code, stderr } = await server.done;
    assert.equal(code, 0, stderr.join("\n"));
  }
  try {
    for (const [what, sql] of Object.entries(left)) assert.equal(inImage(sql), 0, what);
    assert.equal(await exists(join(image, "files", String(half))), false, "its bytes are gone");
    const tmp = await Array.fromAsync(Deno.readDir(join(image, "files", "tmp")));
    assert.deepEqual(tmp.map((e) => e.name), [], "its work folder is gone");
  } finally {
    await Deno.remove(image, { recursive: true });
  }
});
