/** The event logs: one id sequence, each owner keeping its latest events for replay. */
import assert from "node:assert/strict";
import { eventLog } from "../../db/event_log.ts";
import type { Queries } from "../../db/engine.ts";
import { openDatabase } from "../../db/sqlite.ts";
import { sqliteEngine } from "../../db/sqlite_engine.ts";

/** Runs `fn` in a transaction over a fresh database holding a `user_events` table. */
async function withLog(fn: (q: Queries) => Promise<void>): Promise<void> {
  const db = openDatabase(":memory:");
  // The shape the migrations give `user_events` (project_events has the same, per project).
  db.sql.exec(
    `CREATE TABLE user_events (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL,
     name TEXT NOT NULL, data TEXT NOT NULL, created_at TEXT NOT NULL)`,
  );
  const engine = sqliteEngine(db);
  try {
    await engine.transaction(fn);
  } finally {
    await engine.close();
  }
}

Deno.test("an event log reads an owner's events after an id, oldest first, and no one else's", async () => {
  await withLog(async (db) => {
    const log = eventLog({ table: "user_events", owner: "user_id" }, 10);
    const at = "2026-11-24T00:00:00.000Z";
    const first = await log.append(db, { ownerId: 1, name: "a", data: "{}", createdAt: at });
    await log.append(db, { ownerId: 2, name: "b", data: "{}", createdAt: at });
    await log.append(db, { ownerId: 1, name: "c", data: '{"x":1}', createdAt: at });
    assert.deepEqual((await log.after(db, 1, 0, 10)).map((e) => e.name), ["a", "c"]);
    assert.deepEqual(await log.after(db, 1, first.id, 10), [
      { id: 3, ownerId: 1, name: "c", data: '{"x":1}' },
    ]);
    assert.deepEqual((await log.after(db, 1, 0, 1)).map((e) => e.name), ["a"]);
  });
});

Deno.test("at every thousandth id the appending owner's log is cut to its latest events; others keep theirs", async () => {
  await withLog(async (db) => {
    const log = eventLog({ table: "user_events", owner: "user_id" }, 10);
    const at = "2026-11-24T00:00:00.000Z";
    for (let i = 1; i <= 999; i++) {
      await log.append(db, { ownerId: i <= 20 ? 2 : 1, name: `e${i}`, data: "{}", createdAt: at });
    }
    assert.equal((await log.after(db, 1, 0, 5000)).length, 979);
    // Id 1000 belongs to owner 1: its log keeps the latest 10 (plus this one's boundary).
    await log.append(db, { ownerId: 1, name: "e1000", data: "{}", createdAt: at });
    const kept = await log.after(db, 1, 0, 5000);
    assert.equal(kept.length, 10);
    assert.equal(kept.at(-1)!.name, "e1000");
    assert.equal((await log.after(db, 2, 0, 5000)).length, 20);
  });
});
