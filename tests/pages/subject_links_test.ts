/** One address per thing with a page of its own, whatever name the domain gives its type. */
import assert from "node:assert/strict";
import { activityHref, subjectHref } from "../../routes/pages/kit/content.tsx";
import type { Activity } from "../../domain/projects/activity.ts";

Deno.test("each subject type, by any of its names, links to its page", () => {
  const cases: Array<[string, string | null]> = [
    ["thread", "/projects/3/board/7"],
    ["board", "/projects/3/board/7"],
    ["note", "/projects/3/notes/7"],
    ["item", "/projects/3/todos/7"],
    ["todo", "/projects/3/todos/7"],
    ["meeting", "/projects/3/meetings/7"],
    ["milestone", "/projects/3/milestones#milestone-7"],
    ["event", "/projects/3/calendar/events/7"],
    ["file", "/api/files/7/download"],
    ["project", null],
    ["comment", null],
  ];
  for (const [type, href] of cases) assert.equal(subjectHref(3, type, 7), href, type);
});

Deno.test("an activity entry links to its subject's page, or nowhere when it has none", () => {
  const entry = (subjectType: string) =>
    ({ projectId: 3, subjectType, subjectId: 7 }) as unknown as Activity;
  assert.equal(activityHref(entry("item")), "/projects/3/todos/7");
  assert.equal(activityHref(entry("project")), null);
});
