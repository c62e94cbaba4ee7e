/**
 * The export's page queries walk each table by id, never reading and sorting a whole project;
 * the import's steps read only the next rows. The plans are SQLite's (EXPLAIN QUERY PLAN):
 * these tests are ignored when the suite runs on PostgreSQL.
 */
import assert from "node:assert/strict";
import { pagePlan, showImportedPlan } from "../../../db/archives/project_archive.ts";
import { ARCHIVE_KINDS } from "../../../domain/archives/project_archive.ts";
import { testApp } from "../../helpers/app.ts";
import { ON_POSTGRES } from "../../helpers/test_database.ts";

Deno.test({
  name: "each page of an export is a range of ids: no sort of the project's rows per page",
  ignore: ON_POSTGRES, // SQLite's query plans
}, async () => {
  const t = await testApp();
  try {
    for (const kind of ARCHIVE_KINDS) {
      const plan = await pagePlan(t.engine, kind);
      const outer = plan[0]!;
      assert.match(outer, /USING INTEGER PRIMARY KEY \(rowid>\?\)/, `${kind}: ${plan.join("; ")}`);
      assert.ok(!plan.some((step) => /TEMP B-TREE/.test(step)), `${kind}: ${plan.join("; ")}`);
    }
  } finally {
    await t.close();
  }
});

Deno.test({
  name:
    "each step showing an import's hidden rows reads each kind's next rows from its partial index",
  ignore: ON_POSTGRES, // SQLite's query plans
}, async () => {
  const t = await testApp();
  try {
    const plan = await showImportedPlan(t.engine);
    for (
      const table of [
        "threads",
        "chat_messages",
        "todo_items",
        "files",
        "calendar_events",
        "meetings",
        "milestones",
        "notes",
      ]
    ) {
      // In index order from the project's first hidden row: LIMIT stops the reading; only
      // the few rows taken are sorted, for the merge of the kinds.
      assert.ok(
        plan.includes(`SEARCH ${table} USING COVERING INDEX ${table}_import_order (project_id=?)`),
        `${table}: ${plan.join("; ")}`,
      );
      assert.ok(!plan.some((step) => step.startsWith(`SCAN ${table}`)), plan.join("; "));
    }
  } finally {
    await t.close();
  }
});
