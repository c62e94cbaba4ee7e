/**
 * The personal dashboard's upcoming meetings are found by seeking their end time (migration
 * 037), not by reading every meeting of each project: the meetings that ended grow for years.
 * The plans are SQLite's (EXPLAIN QUERY PLAN): ignored when the suite runs on PostgreSQL.
 */
import assert from "node:assert/strict";
import { upcomingMeetingsPlan } from "../../../db/overview/dashboards.ts";
import { testApp } from "../../helpers/app.ts";
import { ON_POSTGRES } from "../../helpers/test_database.ts";

Deno.test({
  name: "the upcoming meetings and their count seek the end time of each project's meetings",
  ignore: ON_POSTGRES, // SQLite's query plans
}, async () => {
  const t = await testApp();
  try {
    const [list, count] = await upcomingMeetingsPlan(t.engine);
    for (const step of [list!, count!]) {
      assert.match(step, /USING INDEX meetings_not_ended \(project_id=\? AND end_at>\?\)/, step);
    }
  } finally {
    await t.close();
  }
});
