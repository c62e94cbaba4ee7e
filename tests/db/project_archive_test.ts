/** The export's page queries walk each table by id, never reading and sorting a whole project. */
import assert from "node:assert/strict";
import { type PagedKind, pagePlan } from "../../db/project_archive.ts";
import { testApp } from "../helpers/app.ts";

const KINDS: PagedKind[] = [
  "threads",
  "comments",
  "notes",
  "chat",
  "columns",
  "items",
  "milestones",
  "events",
  "meetings",
  "files",
  "activity",
];

Deno.test("each page of an export is a range of ids: no sort of the project's rows per page", async () => {
  const t = await testApp();
  try {
    for (const kind of KINDS) {
      const plan = pagePlan(t.db, kind);
      const outer = plan[0]!;
      assert.match(outer, /USING INTEGER PRIMARY KEY \(rowid>\?\)/, `${kind}: ${plan.join("; ")}`);
      assert.ok(!plan.some((step) => /TEMP B-TREE/.test(step)), `${kind}: ${plan.join("; ")}`);
    }
  } finally {
    await t.close();
  }
});
