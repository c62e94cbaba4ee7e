/** Chat: history paging, send, edit, soft delete, permissions, attachments and @mentions. */
import assert from "node:assert/strict";
import { type TestApp, testApp, testServer } from "../helpers/app.ts";
import {
  api,
  attachIds,
  createProject,
  expectError,
  expectJson,
  expectNoContent,
  getJson,
  type Json,
  notificationsOf,
  postFile,
  sendChat,
  signUp,
  storedEvents,
  storedFiles,
  team,
  uploadFile,
} from "../helpers/api.ts";
import { sweepExpired } from "../helpers/trash.ts";

const MESSAGE_KEYS = [
  "attachments",
  "authorId",
  "createdAt",
  "id",
  "projectId",
  "text",
  "updatedAt",
];

const chat = (projectId: number, rest = "") => `/api/projects/${projectId}/chat/messages${rest}`;

/** The history page as `cookie` for `query` (e.g. "?limit=3"). */
async function history(t: TestApp, cookie: string, projectId: number, query = ""): Promise<Json> {
  const body = await getJson(t, cookie, chat(projectId, query));
  assert.deepEqual(Object.keys(body).sort(), ["hasMore", "items"]);
  return body;
}

const ids = (items: Json[]) => items.map((m: Json) => m.id);

/** Sends `n` messages "m1".."mn", one second apart, and returns their ids in order. */
async function sendMany(t: TestApp, cookie: string, projectId: number, n: number) {
  const sent: number[] = [];
  for (let i = 1; i <= n; i++) {
    sent.push((await sendChat(t, cookie, projectId, `m${i}`)).id);
    t.clock.advance(1000);
  }
  return sent;
}

/** The caller's unread `mention` notifications. */
async function mentions(t: TestApp, cookie: string): Promise<Json[]> {
  return (await notificationsOf(t, cookie)).items.filter((n: Json) => n.kind === "mention");
}

Deno.test("POST /chat/messages: 201 {message, attachments}; the message is in the history", async () => {
  const t = await testApp();
  try {
    const { alice, bob, viewer, project } = await team(t);
    const res = await api(t, "POST", chat(project.id), {
      cookie: alice.cookie,
      body: { text: "Hello *team*  ", unknownField: 1 },
    });
    const body = expectJson(res, 201);
    assert.deepEqual(Object.keys(body).sort(), ["attachments", "message"]);
    const { message } = body;
    assert.deepEqual(Object.keys(message).sort(), MESSAGE_KEYS);
    assert.equal(typeof message.id, "number");
    assert.ok(message.id > 0);
    assert.equal(message.projectId, project.id);
    assert.equal(message.authorId, alice.user.id);
    assert.equal(message.text, "Hello *team*  ");
    assert.equal(message.createdAt, "2026-11-22T08:30:00.000Z");
    assert.equal(message.updatedAt, message.createdAt);
    assert.deepEqual(message.attachments, []);
    assert.deepEqual(body.attachments, []);

    // Everyone in the project reads it, the viewer too.
    for (const reader of [alice, bob, viewer]) {
      const page = await history(t, reader.cookie, project.id);
      assert.deepEqual(page, { items: [message], hasMore: false });
    }
  } finally {
    await t.close();
  }
});

Deno.test("POST /chat/messages: blank, missing, too long or malformed text is 400 and nothing is stored", async () => {
  const t = await testApp();
  try {
    const { alice, project } = await team(t);
    const events = await storedEvents(t, project.id); // the team's member.added
    for (
      const body of [{ text: "" }, { text: "  \n " }, {}, { text: 5 }, { text: "x".repeat(10_001) }]
    ) {
      const res = await api(t, "POST", chat(project.id), { cookie: alice.cookie, body });
      assert.ok(expectError(res, 400, "validation").details?.text, JSON.stringify(body));
    }
    const malformed = await api(t, "POST", chat(project.id), {
      cookie: alice.cookie,
      raw: "{not json",
      headers: { "content-type": "application/json" },
    });
    expectError(malformed, 400, "validation");
    assert.deepEqual(await history(t, alice.cookie, project.id), { items: [], hasMore: false });
    assert.deepEqual(await storedEvents(t, project.id), events);
  } finally {
    await t.close();
  }
});

Deno.test("GET /chat/messages pages backwards: newest page first, oldest first within it, hasMore", async () => {
  const t = await testApp();
  try {
    const { alice, bob, project } = await team(t);
    const sent = await sendMany(t, alice.cookie, project.id, 7);

    const first = await history(t, bob.cookie, project.id, "?limit=3");
    assert.deepEqual(ids(first.items), sent.slice(4, 7));
    assert.deepEqual(first.items.map((m: Json) => m.text), ["m5", "m6", "m7"]);
    assert.equal(first.hasMore, true);

    const second = await history(t, bob.cookie, project.id, `?before=${sent[4]}&limit=3`);
    assert.deepEqual(ids(second.items), sent.slice(1, 4));
    assert.equal(second.hasMore, true);

    const third = await history(t, bob.cookie, project.id, `?before=${sent[1]}&limit=3`);
    assert.deepEqual(ids(third.items), sent.slice(0, 1));
    assert.equal(third.hasMore, false);

    // Exactly `limit` older messages left: no more after them.
    const exact = await history(t, bob.cookie, project.id, `?before=${sent[3]}&limit=3`);
    assert.deepEqual(ids(exact.items), sent.slice(0, 3));
    assert.equal(exact.hasMore, false);

    const none = await history(t, bob.cookie, project.id, `?before=${sent[0]}`);
    assert.deepEqual(none, { items: [], hasMore: false });

    // Without `limit` the whole (short) history comes back, oldest first.
    const all = await history(t, bob.cookie, project.id);
    assert.deepEqual(ids(all.items), sent);
    assert.equal(all.hasMore, false);
  } finally {
    await t.close();
  }
});

Deno.test("GET /chat/messages: limit defaults to 50 and is at most 200", async () => {
  const t = await testApp();
  try {
    const { alice, project } = await team(t);
    const sent = await sendMany(t, alice.cookie, project.id, 205);

    const byDefault = await history(t, alice.cookie, project.id);
    assert.equal(byDefault.items.length, 50);
    assert.deepEqual(ids(byDefault.items), sent.slice(155));
    assert.equal(byDefault.hasMore, true);

    const capped = await history(t, alice.cookie, project.id, "?limit=500");
    assert.equal(capped.items.length, 200);
    assert.deepEqual(ids(capped.items), sent.slice(5));
    assert.equal(capped.hasMore, true);

    const max = await history(t, alice.cookie, project.id, "?limit=200");
    assert.deepEqual(ids(max.items), sent.slice(5));

    const rest = await history(t, alice.cookie, project.id, `?before=${sent[5]}&limit=500`);
    assert.deepEqual(ids(rest.items), sent.slice(0, 5));
    assert.equal(rest.hasMore, false);

    const olderDefault = await history(t, alice.cookie, project.id, `?before=${sent[155]}`);
    assert.deepEqual(ids(olderDefault.items), sent.slice(105, 155));
    assert.equal(olderDefault.hasMore, true);
  } finally {
    await t.close();
  }
});

Deno.test("History: messages of other projects never show; deleted ones vanish and do not count", async () => {
  const t = await testApp();
  try {
    const { alice, owner, project } = await team(t);
    const other = await createProject(t, owner.cookie, "Other");
    await sendChat(t, owner.cookie, other.id, "elsewhere");
    const sent = await sendMany(t, alice.cookie, project.id, 5);

    expectNoContent(
      await api(t, "DELETE", chat(project.id, `/${sent[0]}`), { cookie: alice.cookie }),
    );
    expectNoContent(
      await api(t, "DELETE", chat(project.id, `/${sent[3]}`), { cookie: alice.cookie }),
    );

    const all = await history(t, alice.cookie, project.id);
    assert.deepEqual(ids(all.items), [sent[1], sent[2], sent[4]]);
    assert.equal(all.hasMore, false);

    // A page of 2 skips the deleted one; only a deleted message is older than the last page.
    const page = await history(t, alice.cookie, project.id, "?limit=2");
    assert.deepEqual(ids(page.items), [sent[2], sent[4]]);
    assert.equal(page.hasMore, true);
    const older = await history(t, alice.cookie, project.id, `?before=${sent[2]}&limit=1`);
    assert.deepEqual(ids(older.items), [sent[1]]);
    assert.equal(older.hasMore, false, "only a deleted message is older");

    const elsewhere = await history(t, owner.cookie, other.id);
    assert.deepEqual(elsewhere.items.map((m: Json) => m.text), ["elsewhere"]);
  } finally {
    await t.close();
  }
});

Deno.test("Chat permissions: viewers read only, non-members see nothing, outsiders get 404", async () => {
  const t = await testApp();
  try {
    const { alice, viewer, outsider, admin, project } = await team(t);
    const message = await sendChat(t, alice.cookie, project.id, "hi");

    expectError(
      await api(t, "POST", chat(project.id), { cookie: viewer.cookie, body: { text: "me too" } }),
      403,
      "forbidden",
    );
    expectError(
      await api(t, "POST", chat(project.id), { cookie: outsider.cookie, body: { text: "hey" } }),
      404,
      "not_found",
    );
    expectError(
      await api(t, "GET", chat(project.id), { cookie: outsider.cookie }),
      404,
      "not_found",
    );
    expectError(
      await api(t, "PATCH", chat(project.id, `/${message.id}`), {
        cookie: outsider.cookie,
        body: { text: "hacked" },
      }),
      404,
      "not_found",
    );
    expectError(
      await api(t, "DELETE", chat(project.id, `/${message.id}`), { cookie: outsider.cookie }),
      404,
      "not_found",
    );
    expectError(await api(t, "GET", chat(project.id)), 401, "unauthenticated");
    expectError(
      await api(t, "POST", chat(project.id), { body: { text: "anon" } }),
      401,
      "unauthenticated",
    );
    expectError(
      await api(t, "GET", "/api/projects/999999/chat/messages", { cookie: alice.cookie }),
      404,
      "not_found",
    );

    // A system admin sees every project and may write in it.
    const fromAdmin = await sendChat(t, admin.cookie, project.id, "admin here");
    assert.equal(fromAdmin.authorId, admin.user.id);

    const page = await history(t, viewer.cookie, project.id);
    assert.deepEqual(page.items.map((m: Json) => m.text), ["hi", "admin here"]);
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /chat/messages/:id: the author, the owner or an admin edits; others 403", async () => {
  const t = await testApp();
  try {
    const { alice, bob, owner, admin, viewer, project } = await team(t);
    const message = await sendChat(t, alice.cookie, project.id, "first");
    const path = chat(project.id, `/${message.id}`);

    t.clock.advance(60_000);
    const edited = expectJson(
      await api(t, "PATCH", path, { cookie: alice.cookie, body: { text: "second" } }),
      200,
    );
    assert.deepEqual(Object.keys(edited).sort(), ["attachments", "message"]);
    assert.deepEqual(edited.message, {
      ...message,
      text: "second",
      updatedAt: "2026-11-22T08:31:00.000Z",
    });

    expectError(
      await api(t, "PATCH", path, { cookie: bob.cookie, body: { text: "bob was here" } }),
      403,
      "forbidden",
    );
    expectError(
      await api(t, "PATCH", path, { cookie: viewer.cookie, body: { text: "viewer" } }),
      403,
      "forbidden",
    );
    assert.deepEqual(
      (await history(t, alice.cookie, project.id)).items.map((m: Json) => m.text),
      ["second"],
    );

    const byOwner = expectJson(
      await api(t, "PATCH", path, { cookie: owner.cookie, body: { text: "by owner" } }),
      200,
    );
    assert.equal(byOwner.message.text, "by owner");
    assert.equal(byOwner.message.authorId, alice.user.id, "the author stays");
    const byAdmin = expectJson(
      await api(t, "PATCH", path, { cookie: admin.cookie, body: { text: "by admin" } }),
      200,
    );
    assert.equal(byAdmin.message.text, "by admin");

    const blank = await api(t, "PATCH", path, { cookie: alice.cookie, body: { text: " " } });
    assert.ok(expectError(blank, 400, "validation").details?.text);
    assert.deepEqual(
      (await history(t, alice.cookie, project.id)).items.map((m: Json) => m.text),
      ["by admin"],
    );

    expectError(
      await api(t, "PATCH", chat(project.id, "/999999"), {
        cookie: alice.cookie,
        body: { text: "x" },
      }),
      404,
      "not_found",
    );
  } finally {
    await t.close();
  }
});

Deno.test("DELETE /chat/messages/:id soft-deletes (author, owner, admin); then 404 everywhere", async () => {
  const t = await testApp();
  try {
    const { alice, bob, owner, admin, viewer, project } = await team(t);
    const a = await sendChat(t, alice.cookie, project.id, "a");
    const b = await sendChat(t, alice.cookie, project.id, "b");
    const c = await sendChat(t, alice.cookie, project.id, "c");

    expectError(
      await api(t, "DELETE", chat(project.id, `/${a.id}`), { cookie: bob.cookie }),
      403,
      "forbidden",
    );
    expectError(
      await api(t, "DELETE", chat(project.id, `/${a.id}`), { cookie: viewer.cookie }),
      403,
      "forbidden",
    );
    assert.deepEqual(ids((await history(t, alice.cookie, project.id)).items), [a.id, b.id, c.id]);

    expectNoContent(await api(t, "DELETE", chat(project.id, `/${a.id}`), { cookie: alice.cookie }));
    expectNoContent(await api(t, "DELETE", chat(project.id, `/${b.id}`), { cookie: owner.cookie }));
    expectNoContent(await api(t, "DELETE", chat(project.id, `/${c.id}`), { cookie: admin.cookie }));
    assert.deepEqual(await history(t, bob.cookie, project.id), { items: [], hasMore: false });

    // The rows stay (soft delete) but are gone for the API.
    const row = await t.sql.get<{ deleted_at: string | null }>(
      "SELECT deleted_at FROM chat_messages WHERE id = ?",
      [a.id],
    );
    assert.equal(row?.deleted_at, "2026-11-22T08:30:00.000Z");
    expectError(
      await api(t, "DELETE", chat(project.id, `/${a.id}`), { cookie: alice.cookie }),
      404,
      "not_found",
    );
    expectError(
      await api(t, "PATCH", chat(project.id, `/${a.id}`), {
        cookie: alice.cookie,
        body: { text: "z" },
      }),
      404,
      "not_found",
    );
  } finally {
    await t.close();
  }
});

Deno.test("A message is addressed through its own project only", async () => {
  const t = await testApp();
  try {
    const { owner, project } = await team(t);
    const other = await createProject(t, owner.cookie, "Other");
    const message = await sendChat(t, owner.cookie, other.id, "over there");
    expectError(
      await api(t, "PATCH", chat(project.id, `/${message.id}`), {
        cookie: owner.cookie,
        body: { text: "moved?" },
      }),
      404,
      "not_found",
    );
    expectError(
      await api(t, "DELETE", chat(project.id, `/${message.id}`), { cookie: owner.cookie }),
      404,
      "not_found",
    );
    assert.deepEqual(
      (await history(t, owner.cookie, other.id)).items.map((m: Json) => m.text),
      ["over there"],
    );
  } finally {
    await t.close();
  }
});

Deno.test("POST /chat/messages with fileIds lists the attachments; another project's file is 400", async () => {
  const t = await testApp();
  try {
    const { alice, bob, owner, project } = await team(t);
    const file = await uploadFile(t, alice.cookie, project.id, "plan.txt", "the plan");
    const other = await createProject(t, owner.cookie, "Other");
    const foreign = await uploadFile(t, owner.cookie, other.id, "secret.txt", "secret");

    const res = await api(t, "POST", chat(project.id), {
      cookie: alice.cookie,
      body: { text: "see attached", fileIds: [file.id] },
    });
    const body = expectJson(res, 201);
    assert.deepEqual(ids(body.attachments), [file.id]);
    assert.deepEqual(body.message.attachments, body.attachments);
    assert.equal(body.attachments[0].name, "plan.txt");
    assert.equal(body.attachments[0].projectId, project.id);
    const listed = await history(t, alice.cookie, project.id);
    assert.deepEqual(ids(listed.items[0].attachments), [file.id]);

    const eventsBefore = (await storedEvents(t, project.id)).length;
    for (const fileIds of [[foreign.id], [file.id, foreign.id], [999999]]) {
      const bad = await api(t, "POST", chat(project.id), {
        cookie: alice.cookie,
        body: { text: "leak @bob@example.com", fileIds },
      });
      assert.ok(expectError(bad, 400, "validation").details?.fileIds, JSON.stringify(fileIds));
    }
    // Nothing of the refused sends remains: no message, no event, no mention.
    assert.deepEqual(ids((await history(t, alice.cookie, project.id)).items), [body.message.id]);
    assert.equal((await storedEvents(t, project.id)).length, eventsBefore);
    assert.deepEqual(await mentions(t, bob.cookie), []);
  } finally {
    await t.close();
  }
});

Deno.test("POST /chat/messages/:id/attachments: JSON fileIds or a multipart upload", async () => {
  const t = await testApp();
  try {
    const { alice, bob, owner, viewer, outsider, project } = await team(t);
    const message = await sendChat(t, alice.cookie, project.id, "files below");
    const path = chat(project.id, `/${message.id}/attachments`);
    const shared = await uploadFile(t, alice.cookie, project.id, "shared.txt", "shared");

    const byIds = expectJson(await attachIds(t, alice.cookie, path, [shared.id]), 200);
    assert.deepEqual(Object.keys(byIds), ["attachments"]);
    assert.deepEqual(ids(byIds.attachments), [shared.id]);

    const uploaded = expectJson(
      await postFile(t, alice.cookie, path, "photo notes.txt", "attached bytes"),
      200,
    );
    assert.equal(uploaded.attachments.length, 2);
    const attachment = uploaded.attachments.find((f: Json) => f.id !== shared.id);
    assert.equal(attachment.name, "photo notes.txt");
    assert.equal(attachment.source, "attachment");
    assert.equal(attachment.uploaderId, alice.user.id);

    // The message carries them everywhere.
    const listed = (await history(t, bob.cookie, project.id)).items[0];
    assert.deepEqual(
      ids(listed.attachments).sort((a: number, b: number) => a - b),
      [shared.id, attachment.id].sort((a, b) => a - b),
    );

    // Authored content: another member or a viewer may not attach; the owner may.
    const other = await uploadFile(t, bob.cookie, project.id, "bob.txt", "bob");
    expectError(await attachIds(t, bob.cookie, path, [other.id]), 403, "forbidden");
    expectError(await attachIds(t, viewer.cookie, path, [other.id]), 403, "forbidden");
    expectError(await attachIds(t, outsider.cookie, path, [other.id]), 404, "not_found");
    expectJson(await attachIds(t, owner.cookie, path, [other.id]), 200);

    // A file of another project is refused.
    const elsewhere = await createProject(t, owner.cookie, "Elsewhere");
    const foreign = await uploadFile(t, owner.cookie, elsewhere.id, "f.txt", "f");
    const bad = await attachIds(t, alice.cookie, path, [foreign.id]);
    assert.ok(expectError(bad, 400, "validation").details?.fileIds);
    assert.equal((await history(t, alice.cookie, project.id)).items[0].attachments.length, 3);

    // A missing message is 404.
    expectError(
      await attachIds(t, alice.cookie, chat(project.id, "/999999/attachments"), [shared.id]),
      404,
      "not_found",
    );

    // Deleting the message drops its attachments; the uploaded attachment goes too, its
    // bytes once the trash is purged.
    const storedBefore = (await storedFiles(t)).length;
    expectNoContent(
      await api(t, "DELETE", chat(project.id, `/${message.id}`), { cookie: alice.cookie }),
    );
    assert.equal((await storedFiles(t)).length, storedBefore);
    await sweepExpired(t);
    assert.equal((await storedFiles(t)).length, storedBefore - 1);
    const files = await getJson(t, alice.cookie, `/api/projects/${project.id}/files?pageSize=100`);
    const fileIds = ids(files.items);
    assert.ok(fileIds.includes(shared.id), "an uploaded file stays");
    assert.ok(!fileIds.includes(attachment.id), "the attachment upload is gone");
  } finally {
    await t.close();
  }
});

Deno.test("Mentions: a member whose email follows @ is notified once per message", async () => {
  const t = await testApp();
  try {
    const { alice, bob, owner, viewer, outsider, project } = await team(t);
    const m1 = await sendChat(t, alice.cookie, project.id, "ping @bob@example.com.");
    let bobs = await mentions(t, bob.cookie);
    assert.equal(bobs.length, 1);
    assert.deepEqual(
      {
        kind: bobs[0].kind,
        projectId: bobs[0].projectId,
        actorId: bobs[0].actorId,
        subjectType: bobs[0].subjectType,
        subjectId: bobs[0].subjectId,
        read: bobs[0].read,
      },
      {
        kind: "mention",
        projectId: project.id,
        actorId: alice.user.id,
        subjectType: "message",
        subjectId: m1.id,
        read: false,
      },
    );
    assert.equal(typeof bobs[0].text, "string");

    // Upper case, twice in one message, and trailing punctuation: still one notification.
    const m2 = await sendChat(
      t,
      alice.cookie,
      project.id,
      "@BOB@EXAMPLE.COM, are you there? @bob@example.com!",
    );
    bobs = await mentions(t, bob.cookie);
    assert.equal(bobs.filter((n: Json) => n.subjectId === m2.id).length, 1);
    assert.equal(bobs.length, 2);

    // Full-width mark and Japanese punctuation; parentheses; a viewer is a member too.
    const m3 = await sendChat(
      t,
      alice.cookie,
      project.id,
      "確認お願いします＠olga@example.com。 (cc @vera@example.com)",
    );
    assert.deepEqual(ids(await mentions(t, owner.cookie)).length, 1);
    assert.equal((await mentions(t, owner.cookie))[0].subjectId, m3.id);
    assert.equal((await mentions(t, viewer.cookie))[0].subjectId, m3.id);

    // A non-member, the author, and an address glued to a word mention nobody.
    await sendChat(
      t,
      alice.cookie,
      project.id,
      "@oscar@example.com @alice@example.com x@bob@example.com mail bob@example.com",
    );
    assert.equal((await mentions(t, outsider.cookie)).length, 0);
    assert.equal((await mentions(t, alice.cookie)).length, 0);
    assert.equal((await mentions(t, bob.cookie)).length, 2);
  } finally {
    await t.close();
  }
});

Deno.test("Mentions on edit: only newly mentioned members are notified", async () => {
  const t = await testApp();
  try {
    const { alice, bob, owner, project } = await team(t);
    const message = await sendChat(t, alice.cookie, project.id, "hi @bob@example.com");
    assert.equal((await mentions(t, bob.cookie)).length, 1);

    const path = chat(project.id, `/${message.id}`);
    expectJson(
      await api(t, "PATCH", path, {
        cookie: alice.cookie,
        body: { text: "hi @BOB@example.com and @olga@example.com!" },
      }),
      200,
    );
    assert.equal((await mentions(t, bob.cookie)).length, 1, "bob was already mentioned");
    const olgas = await mentions(t, owner.cookie);
    assert.equal(olgas.length, 1);
    assert.equal(olgas[0].subjectId, message.id);
    assert.equal(olgas[0].actorId, alice.user.id);

    // An edit that mentions nobody new notifies nobody.
    expectJson(
      await api(t, "PATCH", path, { cookie: alice.cookie, body: { text: "@olga@example.com" } }),
      200,
    );
    assert.equal((await mentions(t, bob.cookie)).length, 1);
    assert.equal((await mentions(t, owner.cookie)).length, 1);
  } finally {
    await t.close();
  }
});

Deno.test("Mentions: an address with an apostrophe (accepted at sign-up) is mentioned too", async () => {
  const t = await testApp();
  try {
    const { alice, owner, project } = await team(t);
    const oneil = await signUp(t, "o'neil@example.com");
    const added = await api(t, "POST", `/api/projects/${project.id}/members`, {
      cookie: owner.cookie,
      body: { email: "o'neil@example.com", role: "member" },
    });
    expectJson(added, 201);
    const message = await sendChat(t, alice.cookie, project.id, "thanks @o'neil@example.com!");
    const got = await mentions(t, oneil.cookie);
    assert.equal(got.length, 1, "o'neil@example.com follows @ and is a member");
    assert.equal(got[0].subjectId, message.id);
  } finally {
    await t.close();
  }
});

Deno.test("Mentions: nobody is notified of their own edit (the owner editing in their own address)", async () => {
  const t = await testApp();
  try {
    const { alice, owner, project } = await team(t);
    const message = await sendChat(t, alice.cookie, project.id, "draft");
    expectJson(
      await api(t, "PATCH", chat(project.id, `/${message.id}`), {
        cookie: owner.cookie,
        body: { text: "draft, see @olga@example.com" },
      }),
      200,
    );
    assert.deepEqual(
      await mentions(t, owner.cookie),
      [],
      "the owner made this edit and must not be notified of it",
    );
  } finally {
    await t.close();
  }
});

Deno.test("Mentions: once per message, even when an edit drops and a later edit restores the mention", async () => {
  const t = await testApp();
  try {
    const { alice, bob, project } = await team(t);
    const message = await sendChat(t, alice.cookie, project.id, "hi @bob@example.com");
    const path = chat(project.id, `/${message.id}`);
    for (const text of ["hi everyone", "hi @bob@example.com, again"]) {
      expectJson(await api(t, "PATCH", path, { cookie: alice.cookie, body: { text } }), 200);
    }
    const bobs = (await mentions(t, bob.cookie)).filter((n: Json) => n.subjectId === message.id);
    assert.equal(bobs.length, 1, "bob is notified once for this message");
  } finally {
    await t.close();
  }
});

Deno.test("Chat in an archived project is read-only", async () => {
  const t = await testApp();
  try {
    const { alice, owner, project } = await team(t);
    const message = await sendChat(t, alice.cookie, project.id, "before archiving");
    expectJson(
      await api(t, "POST", `/api/projects/${project.id}/archive`, { cookie: owner.cookie }),
      200,
    );
    expectError(
      await api(t, "POST", chat(project.id), { cookie: alice.cookie, body: { text: "late" } }),
      403,
      "forbidden",
    );
    expectError(
      await api(t, "PATCH", chat(project.id, `/${message.id}`), {
        cookie: alice.cookie,
        body: { text: "edited" },
      }),
      403,
      "forbidden",
    );
    expectError(
      await api(t, "DELETE", chat(project.id, `/${message.id}`), { cookie: owner.cookie }),
      403,
      "forbidden",
    );
    const page = await history(t, alice.cookie, project.id);
    assert.deepEqual(page.items.map((m: Json) => m.text), ["before archiving"]);
  } finally {
    await t.close();
  }
});

/** POSTs `body` as JSON with chunked transfer encoding (no Content-Length), as streaming clients do. */
async function postChunkedJson(
  baseUrl: string,
  cookie: string,
  path: string,
  body: unknown,
): Promise<{ status: number; json: Json }> {
  const bytes = new TextEncoder().encode(JSON.stringify(body));
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
  const init: RequestInit & { duplex: "half" } = {
    method: "POST",
    headers: { cookie, "content-type": "application/json" },
    body: stream,
    duplex: "half",
  };
  const res = await fetch(`${baseUrl}${path}`, init);
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

Deno.test("POST /chat/messages/:id/attachments: JSON {fileIds} sent chunked (no Content-Length) works", async () => {
  const t = await testServer();
  try {
    const { alice, project } = await team(t);
    const file = await uploadFile(t, alice.cookie, project.id, "a.txt", "a");
    const message = await sendChat(t, alice.cookie, project.id, "chunked");
    const path = chat(project.id, `/${message.id}/attachments`);
    const res = await postChunkedJson(t.baseUrl, alice.cookie, path, { fileIds: [file.id] });
    assert.equal(res.status, 200, JSON.stringify(res.json));
    assert.deepEqual(ids(res.json.attachments), [file.id]);
    // A plain JSON send without a length is fine too.
    const sent = await postChunkedJson(t.baseUrl, alice.cookie, chat(project.id), {
      text: "streamed",
      fileIds: [file.id],
    });
    assert.equal(sent.status, 201, JSON.stringify(sent.json));
  } finally {
    await t.close();
  }
});
