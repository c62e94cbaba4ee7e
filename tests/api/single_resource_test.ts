/**
 * Attachable resources (thread, comment, chat message, to-do item): every single-resource
 * answer gives `attachments` beside the resource as well as inside it, and says so in OpenAPI.
 */
import assert from "node:assert/strict";
import { testApp } from "../helpers/app.ts";
import {
  api,
  createComment,
  createThread,
  createTodo,
  expectJson,
  type Json,
  sendChat,
  team,
  todoColumns,
  uploadFile,
} from "../helpers/api.ts";

const ATTACHABLE = ["thread", "comment", "message", "item"];

/** Every (method, path, status) of the OpenAPI document answering one attachable resource. */
function singleResourceAnswers(doc: Json): Map<string, Json> {
  const found = new Map<string, Json>();
  for (const [path, operations] of Object.entries<Json>(doc.paths)) {
    for (const [method, operation] of Object.entries<Json>(operations)) {
      for (const [status, response] of Object.entries<Json>(operation.responses ?? {})) {
        if (!status.startsWith("2")) continue;
        const schema = response.content?.["application/json"]?.schema;
        const keys = Object.keys(schema?.properties ?? {});
        if (keys.some((k) => ATTACHABLE.includes(k))) {
          found.set(`${method.toUpperCase()} ${path} ${status}`, schema);
        }
      }
    }
  }
  return found;
}

Deno.test("every single-resource answer of a thread, comment, chat message or to-do item has attachments beside it", async () => {
  const t = await testApp();
  try {
    const { alice, project } = await team(t);
    const p = `/api/projects/${project.id}`;
    const file = async (name: string) =>
      (await uploadFile(t, alice.cookie, project.id, name, "x")).id;
    const thread = await createThread(t, alice.cookie, project.id);
    const comment = await createComment(t, alice.cookie, project.id, thread.id);
    const message = await sendChat(t, alice.cookie, project.id, "hello");
    const item = await createTodo(t, alice.cookie, project.id);
    const columns = await todoColumns(t, alice.cookie, project.id);

    // Template (as OpenAPI spells it), the request, and the expected status.
    const calls: Array<[string, string, string, unknown, number]> = [
      [
        "POST /api/projects/{projectId}/board/threads",
        "POST",
        `${p}/board/threads`,
        { title: "T", body: "B", category: "idea", fileIds: [await file("t.txt")] },
        201,
      ],
      [
        "GET /api/projects/{projectId}/board/threads/{threadId}",
        "GET",
        `${p}/board/threads/${thread.id}`,
        undefined,
        200,
      ],
      [
        "PATCH /api/projects/{projectId}/board/threads/{threadId}",
        "PATCH",
        `${p}/board/threads/${thread.id}`,
        { pinned: true },
        200,
      ],
      [
        "POST /api/projects/{projectId}/board/threads/{threadId}/comments",
        "POST",
        `${p}/board/threads/${thread.id}/comments`,
        { body: "C", fileIds: [await file("c.txt")] },
        201,
      ],
      [
        "PATCH /api/projects/{projectId}/board/comments/{commentId}",
        "PATCH",
        `${p}/board/comments/${comment.id}`,
        { body: "C2" },
        200,
      ],
      [
        "POST /api/projects/{projectId}/chat/messages",
        "POST",
        `${p}/chat/messages`,
        { text: "M", fileIds: [await file("m.txt")] },
        201,
      ],
      [
        "PATCH /api/projects/{projectId}/chat/messages/{messageId}",
        "PATCH",
        `${p}/chat/messages/${message.id}`,
        { text: "M2" },
        200,
      ],
      [
        "POST /api/projects/{projectId}/todos/items",
        "POST",
        `${p}/todos/items`,
        { title: "I", fileIds: [await file("i.txt")] },
        201,
      ],
      [
        "GET /api/projects/{projectId}/todos/items/{itemId}",
        "GET",
        `${p}/todos/items/${item.id}`,
        undefined,
        200,
      ],
      [
        "PATCH /api/projects/{projectId}/todos/items/{itemId}",
        "PATCH",
        `${p}/todos/items/${item.id}`,
        { title: "I2" },
        200,
      ],
      [
        "POST /api/projects/{projectId}/todos/items/{itemId}/toggle-complete",
        "POST",
        `${p}/todos/items/${item.id}/toggle-complete`,
        undefined,
        200,
      ],
      [
        "POST /api/projects/{projectId}/todos/items/{itemId}/move",
        "POST",
        `${p}/todos/items/${item.id}/move`,
        { columnId: columns[1].id, orderIndex: 0 },
        200,
      ],
    ];

    for (const [route, method, path, body, status] of calls) {
      const res = await api(t, method, path, {
        cookie: alice.cookie,
        ...(body === undefined ? {} : { body }),
      });
      const json = expectJson(res, status);
      const key = ATTACHABLE.find((k) => k in json);
      assert.ok(key, `${route}: ${res.text}`);
      assert.ok(Array.isArray(json.attachments), `${route} has attachments beside ${key}`);
      assert.deepEqual(json.attachments, json[key].attachments, route);
      if ((body as { fileIds?: number[] } | undefined)?.fileIds) {
        assert.equal(json.attachments.length, 1, `${route} lists the attached file`);
      }
    }

    // The walk above covers every such answer the OpenAPI document describes, and each
    // described one names attachments beside the resource.
    const doc = expectJson(await api(t, "GET", "/api/openapi.json"), 200);
    const described = singleResourceAnswers(doc);
    assert.deepEqual(
      [...described.keys()].map((k) => k.replace(/ \d+$/, "")).sort(),
      calls.map(([route]) => route).sort(),
    );
    for (const [route, schema] of described) {
      assert.ok(schema.properties.attachments, `${route} describes attachments`);
      assert.ok(schema.required?.includes("attachments"), `${route} requires attachments`);
    }
  } finally {
    await t.close();
  }
});
