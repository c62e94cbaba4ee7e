/** The event logs: one id sequence, each owner keeping its latest events for replay. */
import assert from "node:assert/strict";
import { eventLog } from "../../db/event_log.ts";
import { openDatabase } from "../../db/sqlite.ts";

function logDb() {
  const db = openDatabase(":memory:");
  // The shape the migrations give `user_events` (project_events has the same, per project).
  db.sql.exec(
    `CREATE TABLE user_events (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL,
     name TEXT NOT NULL, data TEXT NOT NULL, created_at TEXT NOT NULL)`,
  );
  return db;
}

Deno.test("an event log reads an owner's events after an id, oldest first, and no one else's", async () => {
  const db = logDb();
  const log = eventLog({ table: "user_events", owner: "user_id" }, 10);
  const at = "2026-11-24T00:00:00.000Z";
  const first = log.append(db, { ownerId: 1, name: "a", data: "{}", createdAt: at });
  log.append(db, { ownerId: 2, name: "b", data: "{}", createdAt: at });
  log.append(db, { ownerId: 1, name: "c", data: '{"x":1}', createdAt: at });
  assert.deepEqual(log.after(db, 1, 0, 10).map((e) => e.name), ["a", "c"]);
  assert.deepEqual(log.after(db, 1, first.id, 10), [
    { id: 3, ownerId: 1, name: "c", data: '{"x":1}' },
  ]);
  assert.deepEqual(log.after(db, 1, 0, 1).map((e) => e.name), ["a"]);
  await db.close();
});

Deno.test("at every thousandth id the appending owner's log is cut to its latest events; others keep theirs", async () => {
  const db = logDb();
  const log = eventLog({ table: "user_events", owner: "user_id" }, 10);
  const at = "2026-11-24T00:00:00.000Z";
  for (let i = 1; i <= 999; i++) {
    log.append(db, { ownerId: i <= 20 ? 2 : 1, name: `e${i}`, data: "{}", createdAt: at });
  }
  assert.equal(log.after(db, 1, 0, 5000).length, 979);
  // Id 1000 belongs to owner 1: its log keeps the latest 10 (plus this one's boundary).
  log.append(db, { ownerId: 1, name: "e1000", data: "{}", createdAt: at });
  const kept = log.after(db, 1, 0, 5000);
  assert.equal(kept.length, 10);
  assert.equal(kept.at(-1)!.name, "e1000");
  assert.equal(log.after(db, 2, 0, 5000).length, 20);
  await db.close();
});
