/**
 * Every change is an event: each create, update, delete and restore of a project's resources
 * reaches the project stream (a viewer's too) and a webhook subscribed to it, with the
 * documented data; replay after Last-Event-ID gives the same events; a removed member's
 * stream ends with `member.removed`.
 */
import assert from "node:assert/strict";
import { EVENT_NAMES } from "../../domain/projects/event_names.ts";
import { eventComponent } from "../../routes/api/event_doc.ts";
import { type TestApp, testApp } from "../helpers/app.ts";
import {
  addMember,
  api,
  createComment,
  createNote,
  createThread,
  createTodo,
  expectJson,
  expectNoContent,
  type Json,
  type SseFrame,
  SseReader,
  team,
  uploadFile,
} from "../helpers/api.ts";
import { OpenApiValidator } from "../helpers/openapi_validator.ts";
import { receiver } from "../helpers/receiver.ts";

/** Opens a project's stream in process, after `lastEventId` (or from now); skips `retry:`. */
async function openStream(
  t: TestApp,
  cookie: string,
  projectId: number,
  lastEventId?: number,
): Promise<SseReader> {
  const headers: Record<string, string> = { cookie };
  if (lastEventId !== undefined) headers["last-event-id"] = String(lastEventId);
  const res = await t.app.request(`/api/projects/${projectId}/chat/stream`, { headers });
  if (res.status !== 200) assert.fail(`stream: ${res.status} ${await res.text()}`);
  const reader = new SseReader(res.body!);
  assert.deepEqual((await reader.next())?.lines, ["retry: 3000"]);
  return reader;
}

/** The next `n` events of a stream. */
async function events(reader: SseReader, n: number): Promise<SseFrame[]> {
  const out: SseFrame[] = [];
  while (out.length < n) {
    const frame = await reader.nextEvent();
    assert.ok(frame, `the stream ended after ${out.map((f) => f.event).join(", ")}`);
    out.push(frame);
  }
  return out;
}

/** Sends a JSON request and answers its body (expects `status`). */
async function call(
  t: TestApp,
  cookie: string,
  method: string,
  path: string,
  status: number,
  body?: unknown,
): Promise<Json> {
  const res = await api(t, method, path, { cookie, ...(body === undefined ? {} : { body }) });
  if (status === 204) return expectNoContent(res);
  return expectJson(res, status);
}

Deno.test("Each resource's create, update, delete and restore is a stream event and a webhook delivery with its data; replay gives them again", async () => {
  const t = await testApp({
    env: { WEBHOOK_ALLOW_HOSTS: "127.0.0.1" },
    webhooks: { timeoutMs: 2000 },
  });
  const rx = receiver();
  try {
    const { owner, alice, viewer, outsider, project } = await team(t);
    const p = `/api/projects/${project.id}`;
    expectJson(
      await api(t, "POST", `${p}/webhooks`, {
        cookie: owner.cookie,
        body: { url: rx.url, events: ["*"] },
      }),
      201,
    );
    // The viewer reads everything a member changes.
    const stream = await openStream(t, viewer.cookie, project.id);
    const expected: Array<[string, unknown]> = [];
    const deleted = (id: number) => ({ id, projectId: project.id });

    // Board: a thread and a comment.
    const thread = await createThread(t, alice.cookie, project.id, { title: "Plan" });
    expected.push(["board.thread.created", thread]);
    const threadEdited =
      (await call(t, alice.cookie, "PATCH", `${p}/board/threads/${thread.id}`, 200, {
        title: "Plan B",
      })).thread;
    expected.push(["board.thread.updated", threadEdited]);
    const comment = await createComment(t, alice.cookie, project.id, thread.id, { body: "first" });
    expected.push(["board.comment.created", comment]);
    const commentEdited =
      (await call(t, alice.cookie, "PATCH", `${p}/board/comments/${comment.id}`, 200, {
        body: "first!",
      })).comment;
    expected.push(["board.comment.updated", commentEdited]);
    await call(t, alice.cookie, "DELETE", `${p}/board/comments/${comment.id}`, 204);
    expected.push(["board.comment.deleted", { ...deleted(comment.id), threadId: thread.id }]);
    await call(t, alice.cookie, "DELETE", `${p}/board/threads/${thread.id}`, 204);
    expected.push(["board.thread.deleted", deleted(thread.id)]);

    // Notes.
    const note = await createNote(t, alice.cookie, project.id, { title: "N" });
    expected.push(["note.created", note]);
    const noteEdited = (await call(t, alice.cookie, "PATCH", `${p}/notes/${note.id}`, 200, {
      body: "more",
    })).note;
    expected.push(["note.updated", noteEdited]);
    await call(t, alice.cookie, "DELETE", `${p}/notes/${note.id}`, 204);
    expected.push(["note.deleted", deleted(note.id)]);

    // To-do columns and items.
    await call(t, alice.cookie, "GET", `${p}/todos/columns`, 200); // the standard columns
    const column = (await call(t, alice.cookie, "POST", `${p}/todos/columns`, 201, {
      name: "Later",
    })).column;
    expected.push(["todo.column.created", column]);
    const renamed = (await call(t, alice.cookie, "PATCH", `${p}/todos/columns/${column.id}`, 200, {
      name: "Someday",
    })).column;
    expected.push(["todo.column.updated", renamed]);
    await call(t, alice.cookie, "DELETE", `${p}/todos/columns/${column.id}`, 204);
    expected.push(["todo.column.deleted", deleted(column.id)]);
    const item = await createTodo(t, alice.cookie, project.id, { title: "Do" });
    expected.push(["todo.created", item]);
    const edited = (await call(t, alice.cookie, "PATCH", `${p}/todos/items/${item.id}`, 200, {
      title: "Do it",
    })).item;
    expected.push(["todo.updated", {
      projectId: project.id,
      itemIds: [item.id],
      columnId: edited.columnId,
      action: "edited",
    }]);
    const done =
      (await call(t, alice.cookie, "POST", `${p}/todos/items/${item.id}/toggle-complete`, 200))
        .item;
    expected.push(["todo.completed", done]);
    const reopened =
      (await call(t, alice.cookie, "POST", `${p}/todos/items/${item.id}/toggle-complete`, 200))
        .item;
    expected.push(["todo.reopened", reopened]);
    await call(t, alice.cookie, "DELETE", `${p}/todos/items/${item.id}`, 204);
    expected.push(["todo.deleted", deleted(item.id)]);

    // Milestones (never deleted).
    const milestone = (await call(t, alice.cookie, "POST", `${p}/milestones`, 201, {
      title: "M1",
    })).milestone;
    expected.push(["milestone.created", milestone]);
    const milestoneEdited =
      (await call(t, alice.cookie, "PATCH", `${p}/milestones/${milestone.id}`, 200, {
        dueDate: "2026-12-01",
      })).milestone;
    expected.push(["milestone.updated", milestoneEdited]);

    // Calendar events.
    const times = { startAt: "2026-12-01T09:00:00.000Z", endAt: "2026-12-01T10:00:00.000Z" };
    const event = (await call(t, alice.cookie, "POST", `${p}/calendar/events`, 201, {
      title: "Review",
      ...times,
    })).event;
    expected.push(["calendar.event.created", event]);
    const eventEdited =
      (await call(t, alice.cookie, "PATCH", `${p}/calendar/events/${event.id}`, 200, {
        title: "Review 2",
      })).event;
    expected.push(["calendar.event.updated", eventEdited]);
    await call(t, alice.cookie, "DELETE", `${p}/calendar/events/${event.id}`, 204);
    expected.push(["calendar.event.deleted", deleted(event.id)]);

    // Meetings: the meeting alone (never the creator's warnings).
    const meeting = (await call(t, alice.cookie, "POST", `${p}/meetings`, 201, {
      title: "Sync",
      ...times,
      inviteeIds: [],
    })).meeting;
    expected.push(["meeting.created", meeting]);
    const meetingEdited =
      (await call(t, alice.cookie, "PATCH", `${p}/meetings/${meeting.id}`, 200, {
        location: "Room 1",
      })).meeting;
    expected.push(["meeting.updated", meetingEdited]);
    await call(t, alice.cookie, "DELETE", `${p}/meetings/${meeting.id}`, 204);
    expected.push(["meeting.deleted", deleted(meeting.id)]);

    // Files.
    const file = await uploadFile(t, alice.cookie, project.id, "a.txt", "a");
    expected.push(["file.uploaded", file]);
    await call(t, alice.cookie, "DELETE", `${p}/files/${file.id}`, 204);
    expected.push(["file.deleted", deleted(file.id)]);

    // A restore.
    await call(t, alice.cookie, "POST", `${p}/trash/note/${note.id}/restore`, 200);
    expected.push(["item.restored", { type: "note", id: note.id }]);

    // Members.
    const added = await addMember(t, owner.cookie, project.id, "oscar@example.com", "member");
    expected.push(["member.added", { ...added, projectId: project.id }]);
    const changed = (await call(t, owner.cookie, "PATCH", `${p}/members/${outsider.user.id}`, 200, {
      role: "viewer",
    })).member;
    expected.push(["member.updated", { ...changed, projectId: project.id }]);
    await call(t, owner.cookie, "DELETE", `${p}/members/${outsider.user.id}`, 204);
    expected.push(["member.removed", { projectId: project.id, userId: outsider.user.id }]);

    // The project: without the reader's own myRole.
    const { myRole: _1, ...renamedProject } = (await call(t, owner.cookie, "PATCH", p, 200, {
      name: "Apollo 2",
    })).project;
    expected.push(["project.updated", renamedProject]);
    const { myRole: _2, ...archived } =
      (await call(t, owner.cookie, "POST", `${p}/archive`, 200)).project;
    expected.push(["project.archived", archived]);
    const { myRole: _3, ...unarchived } =
      (await call(t, owner.cookie, "POST", `${p}/unarchive`, 200)).project;
    expected.push(["project.unarchived", unarchived]);

    const seen = await events(stream, expected.length);
    await stream.cancel();
    assert.deepEqual(seen.map((f) => f.event), expected.map(([name]) => name));
    for (const [i, [name, data]] of expected.entries()) {
      assert.deepEqual(JSON.parse(seen[i]!.data!), data, name);
    }
    // Every event name of the contract was sent (but chat, covered by its own tests).
    assert.deepEqual(
      EVENT_NAMES.filter((n) => !n.startsWith("chat.") && !expected.some(([e]) => e === n)),
      [],
    );

    // Webhooks get each event once, its data as the stream's, as the document describes.
    while (await t.app.services.webhookSender.runOnce() > 0) { /* until none is due */ }
    const document = expectJson(await api(t, "GET", "/api/openapi.json"), 200);
    const validator = new OpenApiValidator(document);
    const bodies = rx.received.map((r) => JSON.parse(r.body)).sort((a, b) => a.id - b.id);
    assert.deepEqual(
      bodies.map((b) => [b.id, b.event]),
      seen.map((f) => [Number(f.id), f.event]),
    );
    for (const [i, body] of bodies.entries()) {
      assert.deepEqual(body.data, JSON.parse(seen[i]!.data!), body.event);
      assert.equal(body.projectId, project.id);
      assert.deepEqual(validator.checkComponent(eventComponent(body.event), body), []);
    }

    // Replay after the first event gives the rest, in order, with the same ids and data.
    const replay = await openStream(t, viewer.cookie, project.id, Number(seen[0]!.id));
    const replayed = await events(replay, seen.length - 1);
    await replay.cancel();
    assert.deepEqual(
      replayed.map((f) => [f.id, f.event, f.data]),
      seen.slice(1).map((f) => [f.id, f.event, f.data]),
    );
  } finally {
    await rx.close();
    await t.close();
  }
});

Deno.test("The OpenAPI document has a component and a webhook per event name, and the stream names them all", async () => {
  const t = await testApp();
  try {
    const document = expectJson(await api(t, "GET", "/api/openapi.json"), 200);
    for (const name of EVENT_NAMES) {
      const schema = document.components.schemas[eventComponent(name)];
      assert.ok(schema, `${name} has a component`);
      assert.equal(schema.properties.event.const ?? schema.properties.event.enum?.[0], name);
      assert.ok(schema.properties.data, `${name} documents its data`);
      // The webhook a receiver subscribed to it is sent, with that component as its body.
      const hook = document.webhooks?.[name]?.post;
      assert.ok(hook, `${name} is in the document's webhooks`);
      assert.equal(
        hook.requestBody.content["application/json"].schema.$ref,
        `#/components/schemas/${eventComponent(name)}`,
      );
    }
    assert.deepEqual(Object.keys(document.webhooks).sort(), [...EVENT_NAMES].sort());
    const stream = document.paths["/api/projects/{projectId}/chat/stream"].get.description;
    for (const name of EVENT_NAMES) assert.ok(stream.includes(name), name);
  } finally {
    await t.close();
  }
});

Deno.test("A removed member's stream ends with member.removed; later events of the project never reach it", async () => {
  const t = await testApp();
  try {
    const { owner, alice, bob, project } = await team(t);
    const bobs = await openStream(t, bob.cookie, project.id);
    const alices = await openStream(t, alice.cookie, project.id);
    expectNoContent(
      await api(t, "DELETE", `/api/projects/${project.id}/members/${bob.user.id}`, {
        cookie: owner.cookie,
      }),
    );
    await createThread(t, alice.cookie, project.id, { title: "After Bob left" });
    const last = await bobs.nextEvent();
    assert.equal(last?.event, "member.removed");
    assert.deepEqual(JSON.parse(last!.data!), { projectId: project.id, userId: bob.user.id });
    assert.equal(await bobs.nextEvent(), null, "Bob's stream ends: no later event reaches it");
    // The others go on.
    assert.deepEqual((await events(alices, 2)).map((f) => f.event), [
      "member.removed",
      "board.thread.created",
    ]);
    await alices.cancel();
    // Bob cannot come back with Last-Event-ID either.
    const again = await api(t, "GET", `/api/projects/${project.id}/chat/stream`, {
      cookie: bob.cookie,
    });
    assert.equal(again.status, 404);
  } finally {
    await t.close();
  }
});
