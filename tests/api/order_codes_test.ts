/**
 * A rule between two fields is reported as a code in `details` under the later field, with the
 * sentence in `message`: callers (the pages) say it in their own words, never parse ours.
 */
import assert from "node:assert/strict";
import { testApp } from "../helpers/app.ts";
import { api, expectError, team } from "../helpers/api.ts";

Deno.test("an end before the start, or a due date before the start date, is the code before_start", async () => {
  const t = await testApp();
  try {
    const { alice, project } = await team(t);
    const base = `/api/projects/${project.id}`;
    const event = await api(t, "POST", `${base}/calendar/events`, {
      cookie: alice.cookie,
      body: { title: "Backwards", startAt: "2026-12-01T10:00:00Z", endAt: "2026-12-01T09:00:00Z" },
    });
    const eventError = expectError(event, 400, "validation");
    assert.deepEqual(eventError.details, { endAt: "before_start" });
    assert.match(eventError.message, /^Cannot save: the end lies before the start/);

    const meeting = await api(t, "POST", `${base}/meetings`, {
      cookie: alice.cookie,
      body: {
        title: "Backwards",
        startAt: "2026-12-01T10:00:00Z",
        endAt: "2026-12-01T09:00:00Z",
        inviteeIds: [],
      },
    });
    assert.deepEqual(expectError(meeting, 400, "validation").details, { endAt: "before_start" });

    const todo = await api(t, "POST", `${base}/todos/items`, {
      cookie: alice.cookie,
      body: { title: "Backwards", startDate: "2026-12-02", dueDate: "2026-12-01" },
    });
    const todoError = expectError(todo, 400, "validation");
    assert.deepEqual(todoError.details, { dueDate: "before_start" });
    assert.match(todoError.message, /due date lies before the start date/);

    const range = await api(
      t,
      "GET",
      `${base}/calendar?from=2026-12-02T00:00:00Z&to=2026-12-01T00:00:00Z`,
      { cookie: alice.cookie },
    );
    assert.deepEqual(expectError(range, 400, "validation").details, { to: "not_after_start" });
  } finally {
    await t.close();
  }
});
