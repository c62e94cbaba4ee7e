/** A notification links to what it is about, not only to its project. */
import assert from "node:assert/strict";
import type { Notification } from "../../domain/projects/notifications.ts";
import { link } from "../../routes/pages/notification_pages.tsx";
import { testApp } from "../helpers/app.ts";
import { api, team } from "../helpers/api.ts";

Deno.test("each subject type links to its page", () => {
  const n = (subjectType: string, subjectId = 7, projectId: number | null = 3) =>
    ({ subjectType, subjectId, projectId }) as unknown as Notification;
  assert.equal(link(n("thread")), "/projects/3/board/7");
  assert.equal(link(n("comment")), "/projects/3/board");
  assert.equal(link(n("note")), "/projects/3/notes/7");
  assert.equal(link(n("message")), "/projects/3/chat#message-7");
  assert.equal(link(n("item")), "/projects/3/todos/7");
  assert.equal(link(n("file")), "/projects/3/files");
  assert.equal(link(n("event")), "/projects/3/calendar");
  assert.equal(link(n("milestone")), "/projects/3/milestones");
  assert.equal(link(n("meeting")), "/projects/3/meetings/7");
  assert.equal(link(n("project")), "/projects/3");
  assert.equal(link(n("project", 7, null)), "/");
});

Deno.test("the notifications page links a mention to the message and an assignment to the to-do", async () => {
  const t = await testApp();
  try {
    const { alice, bob, project } = await team(t);
    const sent = await api(t, "POST", `/api/projects/${project.id}/chat/messages`, {
      cookie: alice.cookie,
      body: { text: "@bob@example.com look" },
    });
    const item = await api(t, "POST", `/api/projects/${project.id}/todos/items`, {
      cookie: alice.cookie,
      body: { title: "Slides", assigneeId: bob.user.id },
    });
    assert.equal(item.status, 201, item.text);
    const page = await (await t.app.request("/notifications", { headers: { cookie: bob.cookie } }))
      .text();
    assert.ok(
      page.includes(`href="/projects/${project.id}/chat#message-${sent.json.message.id}"`),
      page,
    );
    assert.ok(page.includes(`href="/projects/${project.id}/todos/${item.json.item.id}"`));
  } finally {
    await t.close();
  }
});
