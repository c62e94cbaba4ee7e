/** The backup's database copy: written in flushed pieces, yet one moment of the database. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { copyDatabase, readSnapshot } from "../../../db/sqlite/snapshot.ts";

async function withDatabase(
  rows: number,
  body: (dir: string, path: string, writer: DatabaseSync) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "snapshot-test-" });
  const path = join(dir, "server.db");
  const writer = new DatabaseSync(path);
  try {
    writer.exec("PRAGMA journal_mode = WAL");
    writer.exec("CREATE TABLE rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
    const insert = writer.prepare("INSERT INTO rows (body) VALUES (?)");
    writer.exec("BEGIN");
    for (let i = 0; i < rows; i++) insert.run(`${i} ${"x".repeat(1000)}`);
    writer.exec("COMMIT");
    await body(dir, path, writer);
  } finally {
    writer.close();
    await Deno.remove(dir, { recursive: true });
  }
}

function count(path: string): number {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return (db.prepare("SELECT count(*) AS n FROM rows").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

Deno.test("a database is copied in many flushed pieces, and writes between them are not in the copy", async () => {
  await withDatabase(3000, async (dir, path, writer) => {
    const source = new DatabaseSync(path, { readOnly: true });
    const pages = (source.prepare("PRAGMA page_count").get() as { page_count: number })
      .page_count;
    const insert = writer.prepare("INSERT INTO rows (body) VALUES ('written meanwhile')");
    const target = join(dir, "copy.db");
    let writes = 0;
    const { steps } = await copyDatabase(source, target, {
      flushBytes: 64 * 1024,
      onStep: () => {
        // Another connection commits (and checkpoints what it can) between two pieces; only
        // the first 20 times, so that a copy that starts over still ends (and then fails).
        if (writes === 20) return;
        insert.run();
        writer.exec("PRAGMA wal_checkpoint(PASSIVE)");
        writes++;
      },
    });
    source.close();
    const perStep = Math.floor(64 * 1024 / 4096);
    // Many pieces, and never started over (a restart would copy more pieces than the pages).
    assert.ok(steps >= 10, `only ${steps} pieces`);
    assert.ok(steps <= Math.ceil(pages / perStep), `${steps} pieces for ${pages} pages`);
    assert.equal(writes, 20);
    assert.equal(count(target), 3000);
    assert.equal(count(path), 3000 + writes);
    assert.deepEqual(readSnapshot(target).problems, []);
  });
});

Deno.test("the copy leaves no read transaction behind: the source can be checkpointed fully", async () => {
  await withDatabase(200, async (dir, path, writer) => {
    const source = new DatabaseSync(path, { readOnly: true });
    await copyDatabase(source, join(dir, "copy.db"));
    writer.exec("INSERT INTO rows (body) VALUES ('after')");
    const result = writer.prepare("PRAGMA wal_checkpoint(TRUNCATE)").get() as { busy: number };
    assert.equal(result.busy, 0);
    source.close();
    assert.equal(count(join(dir, "copy.db")), 200);
  });
});
