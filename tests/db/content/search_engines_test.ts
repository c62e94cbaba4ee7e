/**
 * The search on both engines gives the same answers on the same data: the SQLite FTS5 trigram
 * index (migrations 006, 008, 016, 029) and the PostgreSQL pg_trgm table (`postgres/006_search.sql`,
 * `postgres/016_todo_checklists.sql`, `postgres/022_search_text.sql`), each kept in step by its
 * triggers. The same rows are
 * written through the storage interface on both, then edited, trashed, restored and purged, and
 * every search (long, two-character and one-character terms, Japanese, case, tags, checklist
 * entries, a type, pages, one project and several) is asked of both and compared: the hits, their
 * order and the total. Needs Debian's postgresql (`.ci/run` installs it).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import type postgres from "postgres";
import type { Engine } from "../../../db/kernel/engine.ts";
import { migrate, MIGRATIONS_DIR } from "../../../db/sqlite/migrate.ts";
import { openPostgresEngine } from "../../../db/postgres/engine.ts";
import { migratePostgres, POSTGRES_MIGRATIONS_DIR } from "../../../db/postgres/migrate.ts";
import { searchProjects } from "../../../db/content/search.ts";
import { openDatabase } from "../../../db/sqlite/sqlite.ts";
import { sqliteEngine } from "../../../db/sqlite/sqlite_engine.ts";
import { postgresTest } from "../../helpers/postgres.ts";

const NOW = () => new Date("2026-11-25T09:00:00.000Z");

/** The n-th minute of the day, as the rows' timestamps. */
const at = (n: number) => `2026-11-25T10:${String(n).padStart(2, "0")}:00.000Z`;

/** Writes the same rows on `e`, then edits, trashes, restores and purges some. */
async function seed(e: Engine): Promise<void> {
  let clock = 0;
  const t = () => at(clock++);
  const run = (text: string, params: Array<string | number | null>) => e.run(text, params);
  await run(
    "INSERT INTO users (id, email, display_name, password_hash, created_at, updated_at) " +
      "VALUES (1, 'olga@example.com', 'Olga', 'x', ?, ?)",
    [at(0), at(0)],
  );
  for (const p of [1, 2]) {
    await run(
      "INSERT INTO projects (id, name, created_by, created_at, updated_at) VALUES (?, ?, 1, ?, ?)",
      [p, `P${p}`, at(0), at(0)],
    );
    await run(
      "INSERT INTO todo_columns (id, project_id, name, position, created_at, updated_at) " +
        "VALUES (?, ?, 'To do', 0, ?, ?)",
      [p, p, at(0), at(0)],
    );
  }
  let id = 100;
  const thread = (p: number, title: string, body: string) =>
    run(
      "INSERT INTO threads (id, project_id, author_id, title, body, category, created_at, " +
        "updated_at) VALUES (?, ?, 1, ?, ?, 'general', ?, ?)",
      [++id, p, title, body, t(), at(0)],
    );
  const chat = (p: number, text: string) =>
    run(
      "INSERT INTO chat_messages (id, project_id, author_id, text, created_at, updated_at) " +
        "VALUES (?, ?, 1, ?, ?, ?)",
      [++id, p, text, t(), at(0)],
    );
  const todo = (p: number, title: string, description: string | null, tags: string[]) =>
    run(
      "INSERT INTO todo_items (id, project_id, column_id, creator_id, title, description, tags, " +
        "order_index, created_at, updated_at) VALUES (?, ?, ?, 1, ?, ?, ?, 0, ?, ?)",
      [++id, p, p, title, description, JSON.stringify(tags), t(), at(0)],
    );
  const file = (p: number, name: string) =>
    run(
      "INSERT INTO files (id, project_id, uploader_id, name, stored_name, content_type, size, " +
        "created_at) VALUES (?, ?, 1, ?, ?, 'image/png', 1, ?)",
      [++id, p, name, `stored-${id}`, t()],
    );
  const event = (p: number, title: string, description: string | null) =>
    run(
      "INSERT INTO calendar_events (id, project_id, creator_id, title, description, start_at, " +
        "end_at, created_at, updated_at) VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?)",
      [++id, p, title, description, at(1), at(2), t(), at(0)],
    );
  const meeting = (p: number, title: string, minutes: string | null, location: string | null) =>
    run(
      "INSERT INTO meetings (id, project_id, creator_id, title, minutes, location, start_at, " +
        "end_at, created_at, updated_at) VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?)",
      [++id, p, title, minutes, location, at(1), at(2), t(), at(0)],
    );
  const milestone = (p: number, title: string, description: string | null) =>
    run(
      "INSERT INTO milestones (id, project_id, creator_id, title, description, created_at, " +
        "updated_at) VALUES (?, ?, 1, ?, ?, ?, ?)",
      [++id, p, title, description, t(), at(0)],
    );
  const note = (p: number, title: string, body: string, tags: string[]) =>
    run(
      "INSERT INTO notes (id, project_id, author_id, title, body, tags, created_at, updated_at) " +
        "VALUES (?, ?, 1, ?, ?, ?, ?, ?)",
      [++id, p, title, body, JSON.stringify(tags), t(), at(0)],
    );

  await thread(1, "Kick-off Meeting", "Let's *start* with the budget review."); // 101
  await chat(1, "週次会議の議事録を共有します"); // 102
  await todo(1, "Book the room", "会議室の予約 for the meeting", ["urgent", "設計"]); // 103
  await file(1, "meeting-notes.png"); // 104
  await event(1, "Budget Review", "Q4 numbers, 50% done"); // 105
  await meeting(1, "Weekly meeting", "Minutes: all good", "会議室A"); // 106
  await milestone(1, "Beta", "プロジェクト計画の完了"); // 107
  await note(1, "Glossary", "API: application interface. Kiosk mode.", ["設計", "docs"]); // 108
  await chat(2, "Another meeting in project two"); // 109
  await note(2, "会議メモ", "Second project's meeting notes", []); // 110
  await thread(1, "Old thread", "to be purged, meeting"); // 111
  await todo(1, "Plan party", null, []); // 112
  // Same timestamps across projects: the order falls back to the project, then creation.
  await chat(2, "meeting at the same minute"); // 113
  await run("UPDATE chat_messages SET created_at = ? WHERE id = 113", [at(10)]);

  // A checklist entry is searched with its item, and a change to it re-indexes the item.
  await run(
    "INSERT INTO todo_checklist_entries (project_id, item_id, text, position, created_at, " +
      "updated_at) VALUES (1, 112, 'Order pizza', 0, ?, ?)",
    [at(30), at(30)],
  );
  await run(
    "INSERT INTO todo_checklist_entries (project_id, item_id, text, position, created_at, " +
      "updated_at) VALUES (1, 112, 'Invite everyone', 1, ?, ?)",
    [at(30), at(30)],
  );
  await run(
    "UPDATE todo_checklist_entries SET text = 'Order sushi' WHERE text = 'Order pizza'",
    [],
  );
  // Edits, a trip to the trash and back (keeps its place), a trashed one, a purged one.
  await run("UPDATE threads SET title = 'Kick-off meeting (moved)' WHERE id = 101", []);
  await run("UPDATE files SET deleted_at = ? WHERE id = 104", [at(40)]);
  await run("UPDATE files SET deleted_at = NULL WHERE id = 104", []);
  await run("UPDATE milestones SET deleted_at = ? WHERE id = 107", [at(40)]);
  await run("DELETE FROM threads WHERE id = 111", []);
  // A purged to-do takes its checklist with it (its entries' triggers find no item left).
  await todo(1, "Purged with its list", "purged", []); // 114
  await run(
    "INSERT INTO todo_checklist_entries (project_id, item_id, text, position, created_at, " +
      "updated_at) VALUES (1, 114, 'gone too', 0, ?, ?)",
    [at(30), at(30)],
  );
  await run("DELETE FROM todo_items WHERE id = 114", []);
  // Two characters on either side of a newline are no match of the two together.
  await note(2, "改行", "週次会\n議の話", []); // 115
}

/**
 * PostgreSQL's `search_text` (migration 022) against what it should hold: the text of every live
 * row of `search_index`, and nothing else.
 */
async function assertTextInStep(sql: postgres.Sql): Promise<void> {
  const rows = (q: Promise<postgres.RowList<postgres.Row[]>>) =>
    q.then((r) => r.map((row) => ({ ...row })));
  const held = await rows(
    sql`SELECT seq::int, project_id::int, type, created_at, doc FROM search_text ORDER BY seq`,
  );
  const live = await rows(
    sql`SELECT seq::int, project_id::int, type, created_at, lower(title || E'\n' || body) AS doc
        FROM search_index WHERE live ORDER BY seq`,
  );
  assert.ok(live.length > 0);
  assert.deepEqual(held, live);
}

/**
 * SQLite's `search_typed` (migration 029) against what it should hold: a row for each row of
 * `search_index`, under the rowid of its type's range (FTS5 lists a contentless table's rowids).
 */
function assertTypedInStep(db: DatabaseSync): void {
  const typed = db.prepare("SELECT rowid AS r FROM search_typed ORDER BY rowid").all()
    .map((row) => BigInt(row.r as number));
  const indexed = db.prepare("SELECT rowid AS r FROM search_index").all()
    .map((row) => BigInt(row.r as number))
    .map((r) => ((r >> 40n) << 40n) + ((r & 7n) << 37n) + ((r >> 3n) & ((1n << 37n) - 1n)))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  assert.ok(indexed.length > 0);
  assert.deepEqual(typed, indexed);
}

/** The searches compared, as the domain would split them. */
const QUERIES: Array<{ q: string; type?: string; projects?: number[]; page?: [number, number] }> = [
  { q: "meeting" },
  { q: "MEETING" },
  { q: "meeting", projects: [1, 2] },
  { q: "meeting", projects: [1, 2], page: [2, 2] },
  { q: "meeting", page: [2, 0] },
  { q: "meeting", page: [2, 2] },
  { q: "meeting", type: "chat", projects: [1, 2] },
  { q: "meeting", type: "file" },
  { q: "会議" },
  { q: "会議", projects: [1, 2] },
  { q: "会議", projects: [2] },
  { q: "次会", projects: [2] },
  { q: "会議 議の", projects: [2] },
  { q: "議" },
  { q: "会議室" },
  { q: "ki" },
  { q: "k" },
  { q: "K" },
  { q: "設計" },
  { q: "urgent" },
  { q: "sushi" },
  { q: "pizza" },
  { q: "everyone" },
  { q: "budget review" },
  { q: "review budget", type: "event" },
  { q: "0%" },
  { q: "50%" },
  { q: "プロジェクト" },
  { q: "purged" },
  { q: "gone too" },
  { q: "zzz" },
  { q: "a" },
  // A type within one project (SQLite: search_typed, migration 029), with every kind of term.
  { q: "meeting", type: "todo" },
  { q: "meeting", type: "board", page: [1, 0] },
  { q: "meeting", type: "board", page: [1, 1] },
  { q: "会議", type: "meeting" },
  { q: "会議", type: "chat" },
  { q: "meeting 会議", type: "todo" },
  { q: "meeting ki", type: "board" },
  { q: "meeting k", type: "board" },
  { q: "urgent 設計", type: "todo" },
  { q: "meeting", type: "milestone" },
  // A long term beside a two-character one (SQLite: both in the FTS5 query).
  { q: "meeting 会議" },
  { q: "meeting 会議", projects: [1, 2] },
  { q: "meeting KI" },
  { q: "議事録 会議" },
  { q: "meeting 議事" },
];

async function answers(e: Engine, tuning: Parameters<typeof searchProjects>[2] = {}) {
  const out = [];
  for (const query of QUERIES) {
    const terms = query.q.split(/\s+/).filter((term) => term !== "");
    const [limit, offset] = query.page ?? [20, 0];
    out.push({
      query,
      ...(await searchProjects(e, {
        projectIds: query.projects ?? [1],
        type: query.type ?? null,
        longTerms: terms.filter((term) => [...term].length >= 3),
        shortTerms: terms.filter((term) => [...term].length < 3),
        limit,
        offset,
      }, tuning)),
    });
  }
  return out;
}

Deno.test(
  postgresTest("search gives the same answers on SQLite and PostgreSQL", async (pg, sql) => {
    const dir = await Deno.makeTempDir({ prefix: "search-engines-" });
    const db = openDatabase(join(dir, "collab.db"));
    const lite = sqliteEngine(db);
    const pge = openPostgresEngine(pg.url);
    try {
      migrate(db, MIGRATIONS_DIR, NOW);
      await migratePostgres(sql, POSTGRES_MIGRATIONS_DIR, NOW);
      await seed(lite);
      await seed(pge);
      await assertTextInStep(sql);
      assertTypedInStep(db.sql);
      const fromSqlite = await answers(lite);
      // PostgreSQL reads a page from all the matches sorted, or (past a number of matches)
      // from its newest-first index; it counts a project's matches from a sample of its rows
      // when the sample is all of them, by walking it newest first when the terms are in much
      // of the sample, else through the indexes: every way gives SQLite's answers.
      for (
        const tuning of [
          {},
          { fewMatches: 0 },
          { denseSample: 0 },
          { fewMatches: 0, denseSample: 2, denseShare: 0 },
          { denseSample: 2, denseShare: 1 },
        ]
      ) {
        const fromPostgres = await answers(pge, tuning);
        for (const [i, a] of fromSqlite.entries()) {
          assert.deepEqual(
            fromPostgres[i],
            a,
            `${JSON.stringify(a.query)} ${JSON.stringify(tuning)}`,
          );
        }
      }
      // And the answers are the expected ones, not merely equal.
      const ids = (q: string, projects?: number[]) =>
        fromSqlite.find((a) =>
          a.query.q === q && String(a.query.projects) === String(projects) && !a.query.type &&
          !a.query.page
        )!.items.map((h) => `${h.type}:${h.itemId}`);
      // Newest first; an edit (101) and a trip to the trash and back (104) keep their place.
      assert.deepEqual(ids("meeting"), ["meeting:106", "file:104", "todo:103", "board:101"]);
      assert.deepEqual(ids("会議"), ["meeting:106", "todo:103", "chat:102"]);
      assert.deepEqual(ids("sushi"), ["todo:112"]);
      assert.deepEqual(ids("会議", [2]), ["note:110"], "a newline between them is no match");
      assert.deepEqual(ids("次会", [2]), ["note:115"]);
      assert.deepEqual(ids("pizza"), []);
      assert.deepEqual(ids("プロジェクト"), [], "a trashed milestone is not found");
      assert.deepEqual(ids("purged"), []);
      assert.deepEqual(ids("meeting", [1, 2]).slice(0, 3), ["chat:113", "note:110", "chat:109"]);
    } finally {
      await pge.close();
      await db.close();
      await Deno.remove(dir, { recursive: true });
    }
  }),
);

Deno.test(
  postgresTest(
    "022 moves the text of the items indexed before it, and the answers stay SQLite's",
    async (pg, sql) => {
      const dir = await Deno.makeTempDir({ prefix: "search-engines-" });
      const db = openDatabase(join(dir, "collab.db"));
      const lite = sqliteEngine(db);
      const pge = openPostgresEngine(pg.url);
      try {
        // The PostgreSQL sequence up to 021, rows written under it, then the whole sequence.
        const before = join(dir, "postgres-021");
        await Deno.mkdir(before);
        for await (const entry of Deno.readDir(POSTGRES_MIGRATIONS_DIR)) {
          const version = Number(entry.name.slice(0, 3));
          if (entry.name.endsWith(".sql") && version <= 21) {
            await Deno.copyFile(
              join(POSTGRES_MIGRATIONS_DIR, entry.name),
              join(before, entry.name),
            );
          }
        }
        await migratePostgres(sql, before, NOW);
        await seed(pge);
        assert.deepEqual(
          (await sql`SELECT to_regclass('search_text') AS t`)[0]!.t,
          null,
          "021 has no search_text",
        );
        await migratePostgres(sql, POSTGRES_MIGRATIONS_DIR, NOW);
        await assertTextInStep(sql);
        migrate(db, MIGRATIONS_DIR, NOW);
        await seed(lite);
        assert.deepEqual(await answers(pge), await answers(lite));
        // And the trigger keeps it in step from then on.
        await pge.run("UPDATE notes SET deleted_at = ? WHERE id = 108", [at(50)]);
        await pge.run("UPDATE milestones SET deleted_at = NULL WHERE id = 107", []);
        await pge.run("UPDATE chat_messages SET text = 'renamed' WHERE id = 102", []);
        await pge.run("DELETE FROM chat_messages WHERE id = 109", []);
        await assertTextInStep(sql);
        // A row given another number (nothing does today) leaves no text under the old one.
        await sql`UPDATE search_index SET seq = nextval('search_seq')
          WHERE type = 'note' AND item_id = 110`;
        await assertTextInStep(sql);
        const found = await searchProjects(pge, {
          projectIds: [1, 2],
          type: null,
          longTerms: ["プロジェクト"],
          shortTerms: [],
          limit: 20,
          offset: 0,
        });
        assert.deepEqual(found.items.map((h) => `${h.type}:${h.itemId}`), ["milestone:107"]);
      } finally {
        await pge.close();
        await db.close();
        await Deno.remove(dir, { recursive: true });
      }
    },
  ),
);

Deno.test("028 indexes by type the items indexed before it, and keeps the index in step", async () => {
  const dir = await Deno.makeTempDir({ prefix: "search-engines-" });
  const before = openDatabase(join(dir, "before.db"));
  const fresh = openDatabase(join(dir, "fresh.db"));
  try {
    // The SQLite sequence up to 026, rows written under it, then the whole sequence.
    const upTo26 = join(dir, "sqlite-026");
    await Deno.mkdir(upTo26);
    for await (const entry of Deno.readDir(MIGRATIONS_DIR)) {
      if (entry.name.endsWith(".sql") && Number(entry.name.slice(0, 3)) <= 26) {
        await Deno.copyFile(join(MIGRATIONS_DIR, entry.name), join(upTo26, entry.name));
      }
    }
    migrate(before, upTo26, NOW);
    await seed(sqliteEngine(before));
    assert.equal(
      before.sql.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'search_typed'")
        .get()!.n,
      0,
      "026 has no search_typed",
    );
    migrate(before, MIGRATIONS_DIR, NOW);
    assertTypedInStep(before.sql);
    migrate(fresh, MIGRATIONS_DIR, NOW);
    await seed(sqliteEngine(fresh));
    assert.deepEqual(await answers(sqliteEngine(before)), await answers(sqliteEngine(fresh)));
    // Edits, a trip to the trash, a restore and purges after it, through the triggers.
    for (const db of [before, fresh]) {
      const e = sqliteEngine(db);
      await e.run("UPDATE notes SET deleted_at = ? WHERE id = 108", [at(50)]);
      await e.run("UPDATE milestones SET deleted_at = NULL WHERE id = 107", []);
      await e.run("UPDATE chat_messages SET text = 'renamed meeting' WHERE id = 102", []);
      await e.run("DELETE FROM chat_messages WHERE id = 109", []);
      await e.run("UPDATE todo_checklist_entries SET text = 'Order ramen' WHERE item_id = 112", []);
      await e.run("DELETE FROM todo_checklist_entries WHERE text = 'Invite everyone'", []);
      assertTypedInStep(db.sql);
      // FTS5's own check of the index's structure.
      db.sql.exec("INSERT INTO search_typed (search_typed) VALUES ('integrity-check')");
    }
    const after = await answers(sqliteEngine(before));
    assert.deepEqual(after, await answers(sqliteEngine(fresh)));
    const ids = (q: string, type: string) =>
      after.find((a) => a.query.q === q && a.query.type === type && !a.query.page)!.items
        .map((h) => `${h.type}:${h.itemId}`);
    assert.deepEqual(ids("会議", "chat"), [], "an edited message leaves its old text behind");
    assert.deepEqual(ids("meeting", "milestone"), []);
    const typed = await searchProjects(sqliteEngine(before), {
      projectIds: [1],
      type: "chat",
      longTerms: ["renamed"],
      shortTerms: [],
      limit: 20,
      offset: 0,
    });
    assert.deepEqual(typed.items.map((h) => `${h.type}:${h.itemId}`), ["chat:102"]);
  } finally {
    before.close();
    fresh.close();
    await Deno.remove(dir, { recursive: true });
  }
});
