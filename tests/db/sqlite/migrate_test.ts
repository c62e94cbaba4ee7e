/** The migration runner: order, idempotence, atomic failure, refusal of edited files. */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  appliedMigrations,
  migrate,
  MigrationError,
  MIGRATIONS_DIR,
  readMigrations,
} from "../../../db/sqlite/migrate.ts";
import { openDatabase } from "../../../db/sqlite/sqlite.ts";

const now = () => new Date("2026-11-22T08:30:00.000Z");

async function withDir(
  files: Record<string, string>,
  fn: (dir: string, dbPath: string) => Promise<void> | void,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "migrate-test-" });
  const migrations = join(dir, "migrations");
  await Deno.mkdir(migrations);
  for (const [name, sql] of Object.entries(files)) {
    await Deno.writeTextFile(join(migrations, name), sql);
  }
  try {
    await fn(migrations, join(dir, "test.db"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function tables(db: ReturnType<typeof openDatabase>): string[] {
  return (db.sql.prepare(
    "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
  ).all() as Array<{ name: string }>).map((r) => r.name);
}

Deno.test("migrations apply in version order and are recorded with name, checksum and time", async () => {
  await withDir({
    "002_second.sql": "ALTER TABLE a ADD COLUMN y INTEGER;",
    "001_first.sql": "CREATE TABLE a (x INTEGER);",
    "README.txt": "ignored",
  }, async (dir, path) => {
    const db = openDatabase(path);
    assert.deepEqual(migrate(db, dir, now), [1, 2]);
    const applied = appliedMigrations(db);
    assert.deepEqual(applied.map((m) => [m.version, m.name, m.appliedAt]), [
      [1, "first", "2026-11-22T08:30:00.000Z"],
      [2, "second", "2026-11-22T08:30:00.000Z"],
    ]);
    assert.match(applied[0]!.checksum, /^[0-9a-f]{64}$/);
    await db.close();
  });
});

Deno.test("running the migrations again applies nothing and changes nothing", async () => {
  await withDir({ "001_first.sql": "CREATE TABLE a (x INTEGER);" }, async (dir, path) => {
    const db = openDatabase(path);
    migrate(db, dir, now);
    const before = appliedMigrations(db);
    assert.deepEqual(migrate(db, dir, () => new Date("2030-01-01T00:00:00Z")), []);
    assert.deepEqual(appliedMigrations(db), before);
    await db.close();
  });
});

Deno.test("a failing migration is refused with a clear message and leaves nothing behind", async () => {
  await withDir({
    "001_first.sql": "CREATE TABLE a (x INTEGER);",
  }, async (dir, path) => {
    const db = openDatabase(path);
    migrate(db, dir, now);
    await Deno.writeTextFile(join(dir, "002_good.sql"), "CREATE TABLE b (x INTEGER);");
    await Deno.writeTextFile(
      join(dir, "003_bad.sql"),
      "CREATE TABLE c (x INTEGER); INSERT INTO nowhere VALUES (1);",
    );
    assert.throws(
      () => migrate(db, dir, now),
      (e: unknown) =>
        e instanceof MigrationError &&
        /^Cannot apply migration 003_bad\.sql: .*no such table: nowhere/.test(e.message),
    );
    // Neither the failing file nor the one before it in the same run left anything.
    assert.deepEqual(tables(db), ["a", "schema_migrations"]);
    assert.deepEqual(appliedMigrations(db).map((m) => m.version), [1]);
    await db.close();
  });
});

Deno.test("an applied migration whose file was edited or removed is refused before anything runs", async () => {
  await withDir({ "001_first.sql": "CREATE TABLE a (x INTEGER);" }, async (dir, path) => {
    const db = openDatabase(path);
    migrate(db, dir, now);
    await Deno.writeTextFile(join(dir, "001_first.sql"), "CREATE TABLE a (x INTEGER, y TEXT);");
    await Deno.writeTextFile(join(dir, "002_next.sql"), "CREATE TABLE b (x INTEGER);");
    assert.throws(
      () => migrate(db, dir, now),
      (e: unknown) =>
        e instanceof MigrationError &&
        /001_first\.sql was edited after it was applied/.test(e.message),
    );
    assert.deepEqual(tables(db), ["a", "schema_migrations"]);
    await Deno.remove(join(dir, "001_first.sql"));
    assert.throws(
      () => migrate(db, dir, now),
      (e: unknown) =>
        e instanceof MigrationError &&
        /001_first\.sql was applied but its file is missing/.test(e.message),
    );
    await db.close();
  });
});

Deno.test("badly named or duplicate migration files are refused", async () => {
  await withDir({ "1_first.sql": "SELECT 1;" }, (dir) => {
    assert.throws(() => readMigrations(dir), /1_first\.sql is not named NNN_name\.sql/);
  });
  await withDir({ "001_a.sql": "SELECT 1;", "001_b.sql": "SELECT 1;" }, (dir) => {
    assert.throws(() => readMigrations(dir), /001_a\.sql and 001_b\.sql share a version/);
  });
});

Deno.test("the server's own migrations are numbered from 001 with their fixed meanings", () => {
  const files = readMigrations(MIGRATIONS_DIR);
  assert.deepEqual(files.map((f) => f.fileName), [
    "001_collaboration_base.sql",
    "002_attachments.sql",
    "003_todo_tags.sql",
    "004_user_theme_locale.sql",
    "005_loan_service.sql",
    "006_search.sql",
    "007_dashboard_indexes.sql",
    "008_search_order.sql",
    "009_file_upload_subject.sql",
    "010_trash.sql",
    "011_api_tokens.sql",
    "012_calendar_feeds.sql",
    "013_webhooks.sql",
    "014_staged_import.sql",
    "015_user_stream_notification_levels.sql",
    "016_todo_checklists.sql",
    "017_user_time_zone.sql",
    "018_theme_system.sql",
    "019_webhook_outbox.sql",
    "020_throttles.sql",
    "021_instance_holds.sql",
    "022_search_text.sql",
    "023_checklist_search_triggers.sql",
    "024_todo_done_order.sql",
    "025_open_item_indexes.sql",
    "026_mail_outbox.sql",
    "027_calendar_todo_dates.sql",
    "028_notification_mail.sql",
    "029_search_typed.sql",
    "030_email_verified.sql",
    "031_invitations.sql",
    "032_account_links.sql",
    "033_mail_bodies.sql",
    "034_sso_identities.sql",
    "035_audit_log.sql",
    "036_loan_console.sql",
    "037_meetings_not_ended.sql",
    "038_loan_csv_line.sql",
  ]);
});

Deno.test("the schema holds the contract's tables and the spec's loan record fields", async () => {
  await withDir({}, async (_dir, path) => {
    const db = openDatabase(path);
    migrate(db, MIGRATIONS_DIR, now);
    for (
      const table of [
        "users",
        "sessions",
        "projects",
        "project_members",
        "threads",
        "comments",
        "notes",
        "chat_messages",
        "todo_columns",
        "todo_items",
        "files",
        "attachments",
        "calendar_events",
        "milestones",
        "meetings",
        "meeting_invitees",
        "notifications",
        "activity",
        "project_events",
        "customers",
        "loan_history",
      ]
    ) {
      assert.ok(tables(db).includes(table), table);
    }
    const columns = (table: string) =>
      (db.sql.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as Array<
        { name: string }
      >)
        .map((c) => c.name);
    assert.deepEqual(columns("customers"), ["customer_name", "is_blacklisted", "registered_at"]);
    assert.deepEqual(columns("loan_history"), [
      "id",
      "applicant_name",
      "requested_amount",
      "approved",
      "approved_rate",
      "rejection_reason",
      "processed_at",
    ]);
    assert.ok(columns("files").includes("source"));
    assert.ok(columns("todo_items").includes("tags"));
    assert.ok(columns("users").includes("theme") && columns("users").includes("locale"));
    const pragma = (name: string) => Object.values(db.sql.prepare(`PRAGMA ${name}`).get()!)[0];
    assert.equal(pragma("journal_mode"), "wal");
    assert.equal(pragma("foreign_keys"), 1);
    assert.equal(pragma("synchronous"), 2);
    await db.close();
  });
});

Deno.test("009 gives existing attachment uploads the subject of their first link, and uploads none", async () => {
  await withDir({}, async (dir, path) => {
    for (const file of readMigrations(MIGRATIONS_DIR).filter((f) => f.version < 9)) {
      await Deno.copyFile(join(MIGRATIONS_DIR, file.fileName), join(dir, file.fileName));
    }
    const db = openDatabase(path);
    migrate(db, dir, now);
    const at = "2026-01-01T00:00:00.000Z";
    db.sql.exec(`
      INSERT INTO users (id, email, display_name, password_hash, created_at, updated_at)
        VALUES (1, 'a@example.com', 'A', 'x', '${at}', '${at}');
      INSERT INTO projects (id, name, created_by, created_at, updated_at)
        VALUES (1, 'P', 1, '${at}', '${at}');
      INSERT INTO files (id, project_id, uploader_id, name, stored_name, content_type, size,
        source, created_at) VALUES
        (1, 1, 1, 'up.txt', '1/a.txt', 'text/plain', 1, 'upload', '${at}'),
        (2, 1, 1, 'att.txt', '1/b.txt', 'text/plain', 1, 'attachment', '${at}');
      INSERT INTO attachments (id, project_id, file_id, subject_type, subject_id, created_at) VALUES
        (1, 1, 2, 'comment', 7, '${at}'),
        (2, 1, 2, 'item', 3, '${at}'),
        (3, 1, 1, 'thread', 5, '${at}');
    `);
    const file = readMigrations(MIGRATIONS_DIR).find((f) => f.version === 9)!;
    await Deno.copyFile(join(MIGRATIONS_DIR, file.fileName), join(dir, file.fileName));
    assert.deepEqual(migrate(db, dir, now), [9]);
    const rows = db.sql.prepare(
      "SELECT id, uploaded_to_type, uploaded_to_id FROM files ORDER BY id",
    ).all();
    assert.deepEqual(rows.map((r) => ({ ...r })), [
      { id: 1, uploaded_to_type: null, uploaded_to_id: null },
      { id: 2, uploaded_to_type: "comment", uploaded_to_id: 7 },
    ]);
    await db.close();
  });
});

Deno.test("010 purges files deleted before it, marks comments that went with their thread, records no deleter", async () => {
  await withDir({}, async (dir, path) => {
    for (const file of readMigrations(MIGRATIONS_DIR).filter((f) => f.version < 10)) {
      await Deno.copyFile(join(MIGRATIONS_DIR, file.fileName), join(dir, file.fileName));
    }
    const db = openDatabase(path);
    migrate(db, dir, now);
    const at = "2026-01-01T00:00:00.000Z";
    const gone = "2026-01-02T00:00:00.000Z";
    db.sql.exec(`
      INSERT INTO users (id, email, display_name, password_hash, created_at, updated_at)
        VALUES (1, 'a@example.com', 'A', 'x', '${at}', '${at}');
      INSERT INTO projects (id, name, created_by, created_at, updated_at)
        VALUES (1, 'P', 1, '${at}', '${at}');
      INSERT INTO files (id, project_id, uploader_id, name, stored_name, content_type, size,
        created_at, deleted_at) VALUES
        (1, 1, 1, 'live.txt', '1/a.txt', 'text/plain', 1, '${at}', NULL),
        (2, 1, 1, 'deleted.txt', '1/b.txt', 'text/plain', 1, '${at}', '${gone}');
      INSERT INTO activity (project_id, kind, actor_id, subject_type, subject_id, created_at)
        VALUES (1, 'file_uploaded', 1, 'file', 1, '${at}'), (1, 'file_uploaded', 1, 'file', 2, '${at}');
      INSERT INTO threads (id, project_id, author_id, title, body, category, created_at,
        updated_at, deleted_at) VALUES (1, 1, 1, 'T', '', 'general', '${at}', '${gone}', '${gone}');
      INSERT INTO comments (id, project_id, thread_id, author_id, body, created_at, updated_at,
        deleted_at) VALUES
        (1, 1, 1, 1, 'went with the thread', '${at}', '${gone}', '${gone}'),
        (2, 1, 1, 1, 'deleted before', '${at}', '${at}', '${at}');
    `);
    const file = readMigrations(MIGRATIONS_DIR).find((f) => f.version === 10)!;
    await Deno.copyFile(join(MIGRATIONS_DIR, file.fileName), join(dir, file.fileName));
    assert.deepEqual(migrate(db, dir, now), [10]);
    const rows = (sql: string) => db.sql.prepare(sql).all().map((r) => ({ ...r }));
    assert.deepEqual(rows("SELECT id, deleted_by FROM files"), [{ id: 1, deleted_by: null }]);
    assert.deepEqual(rows("SELECT subject_id FROM activity"), [{ subject_id: 1 }]);
    assert.deepEqual(rows("SELECT id, deleted_with_thread, deleted_by FROM comments ORDER BY id"), [
      { id: 1, deleted_with_thread: 1, deleted_by: null },
      { id: 2, deleted_with_thread: 0, deleted_by: null },
    ]);
    assert.deepEqual(rows("SELECT deleted_by, purge_started_at FROM projects"), [
      { deleted_by: null, purge_started_at: null },
    ]);
    await db.close();
  });
});

Deno.test("018 lets a user's theme be `system`, keeping every user's theme and their sessions", async () => {
  await withDir({}, async (dir, path) => {
    for (const file of readMigrations(MIGRATIONS_DIR).filter((f) => f.version < 18)) {
      await Deno.copyFile(join(MIGRATIONS_DIR, file.fileName), join(dir, file.fileName));
    }
    const db = openDatabase(path);
    migrate(db, dir, now);
    const at = "2026-01-01T00:00:00.000Z";
    db.sql.exec(`
      INSERT INTO users (id, email, display_name, password_hash, theme, locale, created_at,
        updated_at) VALUES
        (1, 'a@example.com', 'A', 'x', 'light', 'ja', '${at}', '${at}'),
        (2, 'b@example.com', 'B', 'x', 'dark', 'en', '${at}', '${at}');
      INSERT INTO sessions (id_hash, user_id, issued_at, last_used_at, expires_at)
        VALUES ('h1', 1, '${at}', '${at}', '${at}');
    `);
    const setSystem = () => db.sql.exec("UPDATE users SET theme = 'system' WHERE id = 2");
    assert.throws(setSystem, /CHECK constraint failed/);
    const file = readMigrations(MIGRATIONS_DIR).find((f) => f.version === 18)!;
    await Deno.copyFile(join(MIGRATIONS_DIR, file.fileName), join(dir, file.fileName));
    assert.deepEqual(migrate(db, dir, now), [18]);
    const rows = (sql: string) => db.sql.prepare(sql).all().map((r) => ({ ...r }));
    assert.deepEqual(rows("SELECT id, theme, locale FROM users ORDER BY id"), [
      { id: 1, theme: "light", locale: "ja" },
      { id: 2, theme: "dark", locale: "en" },
    ]);
    assert.deepEqual(rows("SELECT user_id FROM sessions"), [{ user_id: 1 }]);
    setSystem();
    assert.deepEqual(rows("SELECT theme FROM users WHERE id = 2"), [{ theme: "system" }]);
    assert.throws(
      () => db.sql.exec("UPDATE users SET theme = 'blue' WHERE id = 1"),
      /CHECK constraint failed/,
    );
    const newUser = () =>
      db.sql.exec(`INSERT INTO users (id, email, display_name, password_hash, created_at,
        updated_at) VALUES (3, 'c@example.com', 'C', 'x', '${at}', '${at}')`);
    newUser();
    assert.deepEqual(rows("SELECT theme FROM users WHERE id = 3"), [{ theme: "dark" }]);
    assert.deepEqual(rows("PRAGMA foreign_key_check"), []);
    await db.close();
  });
});

Deno.test("033 moves the contents of pending mail to mail_bodies and lets the sent and failed mails' go", async () => {
  await withDir({}, async (dir, path) => {
    for (const file of readMigrations(MIGRATIONS_DIR).filter((f) => f.version < 33)) {
      await Deno.copyFile(join(MIGRATIONS_DIR, file.fileName), join(dir, file.fileName));
    }
    const db = openDatabase(path);
    migrate(db, dir, now);
    const at = "2026-01-01T00:00:00.000Z";
    db.sql.exec(`
      INSERT INTO mail_outbox (id, to_address, kind, subject, text_body, html_body, headers,
        message_id, status, attempts, next_attempt_at, created_at, sent_at) VALUES
        (1, 'a@example.com', 'test', 'Sent', 'sent text', '<p>sent</p>', '{}', '<1@h>', 'sent', 1,
          NULL, '${at}', '${at}'),
        (2, 'b@example.com', 'test', 'Waiting', 'waiting text', '<p>waiting</p>',
          '{"List-Id":"<p.h>"}', '<2@h>', 'pending', 2, '${at}', '${at}', NULL),
        (3, 'c@example.com', 'test', 'Failed', 'failed text', '<p>failed</p>', '{}', '<3@h>',
          'failed', 1, NULL, '${at}', NULL);
    `);
    const file = readMigrations(MIGRATIONS_DIR).find((f) => f.version === 33)!;
    await Deno.copyFile(join(MIGRATIONS_DIR, file.fileName), join(dir, file.fileName));
    assert.deepEqual(migrate(db, dir, now), [33]);
    const rows = (sql: string) => db.sql.prepare(sql).all().map((r) => ({ ...r }));
    assert.deepEqual(rows("SELECT * FROM mail_bodies"), [
      {
        mail_id: 2,
        text_body: "waiting text",
        html_body: "<p>waiting</p>",
        headers: '{"List-Id":"<p.h>"}',
      },
    ]);
    assert.deepEqual(rows("SELECT id, subject, status, message_id FROM mail_outbox ORDER BY id"), [
      { id: 1, subject: "Sent", status: "sent", message_id: "<1@h>" },
      { id: 2, subject: "Waiting", status: "pending", message_id: "<2@h>" },
      { id: 3, subject: "Failed", status: "failed", message_id: "<3@h>" },
    ]);
    const columns = rows("SELECT name FROM pragma_table_info('mail_outbox')").map((r) => r.name);
    assert.equal(columns.includes("text_body"), false);
    db.sql.exec("DELETE FROM mail_outbox WHERE id = 2");
    assert.deepEqual(rows("SELECT * FROM mail_bodies"), [], "contents go with their mail");
    assert.deepEqual(rows("PRAGMA foreign_key_check"), []);
    await db.close();
  });
});
