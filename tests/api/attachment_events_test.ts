/** Adding attachments to a chat message or a to-do announces the change on the stream. */
import assert from "node:assert/strict";
import { testApp } from "../helpers/app.ts";
import {
  api,
  attachIds,
  createProject,
  expectJson,
  postFile,
  register,
  storedEvents,
  uploadFile,
} from "../helpers/api.ts";

Deno.test("attaching files to a chat message sends chat.message.updated with the attachments", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "ann@example.com");
    const project = await createProject(t, cookie);
    const file = await uploadFile(t, cookie, project.id, "a.txt", "hello");
    const sent = expectJson(
      await api(t, "POST", `/api/projects/${project.id}/chat/messages`, {
        cookie,
        body: { text: "see file" },
      }),
      201,
    ).message;
    const path = `/api/projects/${project.id}/chat/messages/${sent.id}/attachments`;
    expectJson(await attachIds(t, cookie, path, [file.id]), 200);
    expectJson(await postFile(t, cookie, path, "b.txt", "world"), 200);
    const updates = (await storedEvents(t, project.id)).filter((e) =>
      e.name === "chat.message.updated"
    );
    assert.equal(updates.length, 2);
    assert.equal(updates[0]!.data.id, sent.id);
    assert.deepEqual(updates[0]!.data.attachments.map((f: { name: string }) => f.name), ["a.txt"]);
    assert.deepEqual(updates[1]!.data.attachments.map((f: { name: string }) => f.name), [
      "a.txt",
      "b.txt",
    ]);
  } finally {
    await t.close();
  }
});

Deno.test("attaching files to a to-do item sends todo.updated", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "ann@example.com");
    const project = await createProject(t, cookie);
    const item = expectJson(
      await api(t, "POST", `/api/projects/${project.id}/todos/items`, {
        cookie,
        body: { title: "with files" },
      }),
      201,
    ).item;
    const before = (await storedEvents(t, project.id)).length;
    const path = `/api/projects/${project.id}/todos/items/${item.id}/attachments`;
    expectJson(await postFile(t, cookie, path, "c.txt", "x"), 200);
    const events = (await storedEvents(t, project.id)).slice(before);
    assert.deepEqual(events.map((e) => [e.name, e.data.action, e.data.itemIds]), [
      ["file.uploaded", undefined, undefined],
      ["todo.updated", "attachments", [item.id]],
    ]);
  } finally {
    await t.close();
  }
});
