/** Attachments on threads and comments: by file id or multipart, their effects and cleanup. */
import assert from "node:assert/strict";
import { type TestApp, testApp, testServer } from "../helpers/app.ts";
import {
  activityOf,
  api,
  attachIds,
  createComment,
  createThread,
  createTodo,
  download,
  expectError,
  expectJson,
  expectNoContent,
  getJson,
  type Json,
  notificationsOf,
  openSse,
  PDF_BYTES,
  PNG_BYTES,
  postFile,
  sendChat,
  storedFiles,
  team,
  uploadFile,
} from "../helpers/api.ts";
import { sweepExpired } from "../helpers/trash.ts";

const base = (projectId: number) => `/api/projects/${projectId}`;
const threadAttach = (projectId: number, id: number) =>
  `${base(projectId)}/board/threads/${id}/attachments`;
const commentAttach = (projectId: number, id: number) =>
  `${base(projectId)}/board/comments/${id}/attachments`;

async function thread(t: TestApp, cookie: string, projectId: number, id: number): Promise<Json> {
  return await getJson(t, cookie, `${base(projectId)}/board/threads/${id}`);
}

const ids = (files: Json[]) => files.map((f: Json) => f.id);

Deno.test("POST .../threads/:id/attachments with JSON {fileIds} links the files; the thread lists them", async () => {
  const t = await testApp();
  try {
    const { alice, bob, project } = await team(t);
    const post = await createThread(t, alice.cookie, project.id);
    const a = await uploadFile(t, bob.cookie, project.id, "a.png", PNG_BYTES);
    const b = await uploadFile(t, bob.cookie, project.id, "b.pdf", PDF_BYTES);

    const res = await attachIds(t, alice.cookie, threadAttach(project.id, post.id), [a.id]);
    assert.deepEqual(expectJson(res, 200), { attachments: [a] });
    const res2 = await attachIds(t, alice.cookie, threadAttach(project.id, post.id), [b.id]);
    assert.deepEqual(ids(expectJson(res2, 200).attachments), [a.id, b.id]);

    const got = await thread(t, bob.cookie, project.id, post.id);
    assert.deepEqual(got.attachments, [a, b]);
    assert.deepEqual(got.thread.attachments, [a, b]);
    const list = await getJson(t, bob.cookie, `${base(project.id)}/board/threads`);
    assert.deepEqual(list.items[0].attachments, [a, b]);
    // Linking keeps them source `upload`.
    const uploads = await getJson(t, bob.cookie, `${base(project.id)}/files?source=upload`);
    assert.equal(uploads.total, 2);
  } finally {
    await t.close();
  }
});

Deno.test("POST .../comments/:id/attachments with JSON {fileIds} links the files to the comment", async () => {
  const t = await testApp();
  try {
    const { alice, bob, project } = await team(t);
    const post = await createThread(t, alice.cookie, project.id);
    const comment = await createComment(t, bob.cookie, project.id, post.id);
    const file = await uploadFile(t, bob.cookie, project.id, "c.txt", "comment file");
    const res = await attachIds(t, bob.cookie, commentAttach(project.id, comment.id), [file.id]);
    assert.deepEqual(expectJson(res, 200), { attachments: [file] });
    const got = await thread(t, alice.cookie, project.id, post.id);
    assert.deepEqual(got.comments[0].attachments, [file]);
    assert.deepEqual(got.attachments, [], "the thread itself has none");
  } finally {
    await t.close();
  }
});

Deno.test("A JSON {fileIds} attach sent chunked (no Content-Length) works like any JSON body", async () => {
  const t = await testServer();
  try {
    const { alice, project } = await team(t);
    const post = await createThread(t, alice.cookie, project.id);
    const file = await uploadFile(t, alice.cookie, project.id, "a.txt", "a");
    const body = new TextEncoder().encode(JSON.stringify({ fileIds: [file.id] }));
    const res = await fetch(`${t.baseUrl}${threadAttach(project.id, post.id)}`, {
      method: "POST",
      headers: { cookie: alice.cookie, "content-type": "application/json" },
      body: ReadableStream.from([body]),
    });
    const text = await res.text();
    assert.equal(res.status, 200, `${text} ${t.logs.filter((l) => l.startsWith("error"))}`);
    assert.deepEqual(ids(JSON.parse(text).attachments), [file.id]);
  } finally {
    await t.close();
  }
});

Deno.test("A multipart attach stores the file with source `attachment`, lists it and logs file_uploaded, notifying nobody", async () => {
  const t = await testApp();
  try {
    const { admin, owner, alice, bob, viewer, project } = await team(t);
    const post = await createThread(t, alice.cookie, project.id);
    const comment = await createComment(t, bob.cookie, project.id, post.id);
    const everyone = [admin, owner, alice, bob, viewer];
    const unread = async () =>
      await Promise.all(
        everyone.map(async (u) => (await notificationsOf(t, u.cookie)).unreadCount),
      );
    const before = await unread();

    const res = await postFile(
      t,
      alice.cookie,
      threadAttach(project.id, post.id),
      "shot.png",
      PNG_BYTES,
    );
    const [onThread] = expectJson(res, 200).attachments;
    assert.equal(onThread.source, "attachment");
    assert.equal(onThread.name, "shot.png");
    assert.equal(onThread.contentType, "image/png");
    assert.equal(onThread.uploaderId, alice.user.id);
    assert.equal(onThread.projectId, project.id);
    assert.equal(onThread.downloadUrl, `/api/files/${onThread.id}/download`);

    const res2 = await postFile(
      t,
      bob.cookie,
      commentAttach(project.id, comment.id),
      "log.txt",
      "line\n",
    );
    const [onComment] = expectJson(res2, 200).attachments;
    assert.equal(onComment.source, "attachment");

    const got = await thread(t, alice.cookie, project.id, post.id);
    assert.deepEqual(got.attachments, [onThread]);
    assert.deepEqual(got.comments[0].attachments, [onComment]);

    const attached = await getJson(t, bob.cookie, `${base(project.id)}/files?source=attachment`);
    assert.deepEqual(ids(attached.items), [onComment.id, onThread.id]);
    const uploads = await getJson(t, bob.cookie, `${base(project.id)}/files?source=upload`);
    assert.equal(uploads.total, 0);
    const all = await getJson(t, bob.cookie, `${base(project.id)}/files`);
    assert.equal(all.total, 2);

    const logged = (await activityOf(t, bob.cookie, project.id)).items.filter((a: Json) =>
      a.kind === "file_uploaded"
    );
    assert.deepEqual(logged.map((a: Json) => [a.subjectType, a.subjectId, a.actorId]), [
      ["file", onComment.id, bob.user.id],
      ["file", onThread.id, alice.user.id],
    ]);

    const after = await unread();
    // Bob's comment notifies Alice (board_commented) before the attach; attaching adds nothing.
    assert.deepEqual(after, before);
    for (const u of everyone) {
      const shared = (await notificationsOf(t, u.cookie)).items.filter((n: Json) =>
        n.kind === "file_shared"
      );
      assert.deepEqual(shared, []);
    }

    const bytes = await download(t, viewer.cookie, onThread.id);
    assert.equal(bytes.status, 200);
    assert.deepEqual(bytes.bytes, PNG_BYTES);
  } finally {
    await t.close();
  }
});

Deno.test("A multipart attach is type-checked (415) and stores nothing then", async () => {
  const t = await testApp();
  try {
    const { alice, project } = await team(t);
    const post = await createThread(t, alice.cookie, project.id);
    for (const [name, bytes] of [["x.exe", "MZ"], ["fake.png", "not png"]] as const) {
      const res = await postFile(t, alice.cookie, threadAttach(project.id, post.id), name, bytes);
      expectError(res, 415, "unsupported_media_type");
    }
    assert.deepEqual((await thread(t, alice.cookie, project.id, post.id)).attachments, []);
    assert.equal((await getJson(t, alice.cookie, `${base(project.id)}/files`)).total, 0);
    assert.deepEqual(await storedFiles(t), []);
  } finally {
    await t.close();
  }
});

Deno.test("A multipart attach sends file.uploaded on the project's stream", async () => {
  const t = await testServer();
  try {
    const { alice, project } = await team(t);
    const post = await createThread(t, alice.cookie, project.id);
    const stream = await openSse(t.baseUrl, alice.cookie, project.id);
    try {
      assert.equal(stream.res.status, 200);
      assert.equal((await stream.reader!.next())?.retry, "3000");
      const res = await postFile(t, alice.cookie, threadAttach(project.id, post.id), "a.txt", "a");
      const [file] = expectJson(res, 200).attachments;
      const frame = await stream.reader!.nextEvent();
      assert.equal(frame?.event, "file.uploaded");
      assert.deepEqual(JSON.parse(frame!.data!), file);
    } finally {
      await stream.close();
    }
  } finally {
    await t.close();
  }
});

Deno.test("fileIds of another project, deleted or unknown files are 400 and nothing is linked", async () => {
  const t = await testApp();
  try {
    const { owner, alice, project } = await team(t);
    const other = expectJson(
      await api(t, "POST", "/api/projects", { cookie: owner.cookie, body: { name: "Other" } }),
      201,
    ).project;
    const foreign = await uploadFile(t, owner.cookie, other.id, "foreign.txt", "f");
    const mine = await uploadFile(t, alice.cookie, project.id, "mine.txt", "m");
    const deleted = await uploadFile(t, alice.cookie, project.id, "deleted.txt", "d");
    expectNoContent(
      await api(t, "DELETE", `${base(project.id)}/files/${deleted.id}`, { cookie: alice.cookie }),
    );
    const post = await createThread(t, alice.cookie, project.id);
    const comment = await createComment(t, alice.cookie, project.id, post.id);

    for (const bad of [[foreign.id], [mine.id, foreign.id], [deleted.id], [99999]]) {
      for (
        const path of [threadAttach(project.id, post.id), commentAttach(project.id, comment.id)]
      ) {
        const res = await attachIds(t, owner.cookie, path, bad);
        assert.ok(expectError(res, 400, "validation").details?.fileIds, JSON.stringify(bad));
      }
    }
    for (const bad of ["1", [0], [-1], [1.5], ["1"]]) {
      const res = await attachIds(t, alice.cookie, threadAttach(project.id, post.id), bad);
      expectError(res, 400, "validation");
    }
    const got = await thread(t, alice.cookie, project.id, post.id);
    assert.deepEqual(got.attachments, []);
    assert.deepEqual(got.comments[0].attachments, []);

    // The same on create: nothing is created.
    const badThread = await api(t, "POST", `${base(project.id)}/board/threads`, {
      cookie: alice.cookie,
      body: { title: "T", body: "b", category: "general", fileIds: [mine.id, foreign.id] },
    });
    assert.ok(expectError(badThread, 400, "validation").details?.fileIds);
    const badComment = await api(
      t,
      "POST",
      `${base(project.id)}/board/threads/${post.id}/comments`,
      {
        cookie: alice.cookie,
        body: { body: "c", fileIds: [foreign.id] },
      },
    );
    assert.ok(expectError(badComment, 400, "validation").details?.fileIds);
    const list = await getJson(t, alice.cookie, `${base(project.id)}/board/threads`);
    assert.equal(list.total, 1);
    assert.equal(list.items[0].commentCount, 1);
    assert.equal((await thread(t, alice.cookie, project.id, post.id)).comments.length, 1);
  } finally {
    await t.close();
  }
});

Deno.test("An attach with neither fileIds nor a file is 400", async () => {
  const t = await testApp();
  try {
    const { alice, project } = await team(t);
    const post = await createThread(t, alice.cookie, project.id);
    const res = await api(t, "POST", threadAttach(project.id, post.id), {
      cookie: alice.cookie,
      raw: "{}",
      headers: { "content-type": "application/json", "content-length": "2" },
    });
    expectError(res, 400, "validation");
  } finally {
    await t.close();
  }
});

Deno.test("fileIds on thread and comment create attach the files", async () => {
  const t = await testApp();
  try {
    const { alice, bob, project } = await team(t);
    const a = await uploadFile(t, alice.cookie, project.id, "a.txt", "a");
    const b = await uploadFile(t, bob.cookie, project.id, "b.pdf", PDF_BYTES);
    const post = await createThread(t, alice.cookie, project.id, { fileIds: [a.id, b.id] });
    assert.deepEqual(post.attachments, [a, b]);
    const res = await api(t, "POST", `${base(project.id)}/board/threads/${post.id}/comments`, {
      cookie: bob.cookie,
      body: { body: "see file", fileIds: [b.id] },
    });
    const body = expectJson(res, 201);
    assert.deepEqual(body.comment.attachments, [b]);
    const got = await thread(t, bob.cookie, project.id, post.id);
    assert.deepEqual(got.attachments, [a, b]);
    assert.deepEqual(got.comments[0].attachments, [b]);
  } finally {
    await t.close();
  }
});

Deno.test("Deleting a thread removes its links and its attachment-source files; uploads survive", async () => {
  const t = await testApp();
  try {
    const { alice, bob, project } = await team(t);
    const shared = await uploadFile(t, alice.cookie, project.id, "shared.pdf", PDF_BYTES);
    const post = await createThread(t, alice.cookie, project.id, { fileIds: [shared.id] });
    const comment = await createComment(t, bob.cookie, project.id, post.id, {
      fileIds: [shared.id],
    });
    const own = expectJson(
      await postFile(t, alice.cookie, threadAttach(project.id, post.id), "own.png", PNG_BYTES),
      200,
    ).attachments.find((f: Json) => f.source === "attachment");
    const onComment = expectJson(
      await postFile(t, bob.cookie, commentAttach(project.id, comment.id), "c.txt", "c"),
      200,
    ).attachments.find((f: Json) => f.source === "attachment");
    // A second thread links the shared upload too; it keeps it.
    const other = await createThread(t, bob.cookie, project.id, { fileIds: [shared.id] });
    assert.equal((await storedFiles(t)).length, 3);

    expectNoContent(
      await api(t, "DELETE", `${base(project.id)}/board/threads/${post.id}`, {
        cookie: alice.cookie,
      }),
    );

    const left = await getJson(t, bob.cookie, `${base(project.id)}/files`);
    assert.deepEqual(ids(left.items), [shared.id]);
    assert.equal(left.total, 1);
    const attachments = await getJson(t, bob.cookie, `${base(project.id)}/files?source=attachment`);
    assert.equal(attachments.total, 0);
    assert.equal((await storedFiles(t)).length, 3, "the trash keeps the bytes");
    await sweepExpired(t);
    const onDisk = await storedFiles(t);
    assert.equal(onDisk.length, 1, onDisk.join(", "));
    assert.ok(onDisk[0]!.endsWith(".pdf"));
    const survived = await download(t, bob.cookie, shared.id);
    assert.equal(survived.status, 200);
    assert.deepEqual(survived.bytes, PDF_BYTES);
    assert.equal((await download(t, bob.cookie, own.id)).status, 404);
    assert.equal((await download(t, bob.cookie, onComment.id)).status, 404);
    assert.deepEqual((await thread(t, bob.cookie, project.id, other.id)).attachments, [shared]);
  } finally {
    await t.close();
  }
});

Deno.test("Deleting a comment removes its attachment-source files; a linked upload survives", async () => {
  const t = await testApp();
  try {
    const { alice, bob, project } = await team(t);
    const post = await createThread(t, alice.cookie, project.id);
    const upload = await uploadFile(t, alice.cookie, project.id, "up.txt", "up");
    const comment = await createComment(t, bob.cookie, project.id, post.id, {
      fileIds: [upload.id],
    });
    const own = expectJson(
      await postFile(t, bob.cookie, commentAttach(project.id, comment.id), "own.txt", "own"),
      200,
    ).attachments.find((f: Json) => f.source === "attachment");
    expectNoContent(
      await api(t, "DELETE", `${base(project.id)}/board/comments/${comment.id}`, {
        cookie: bob.cookie,
      }),
    );
    const left = await getJson(t, alice.cookie, `${base(project.id)}/files`);
    assert.deepEqual(ids(left.items), [upload.id]);
    assert.equal((await storedFiles(t)).length, 2, "the trash keeps the bytes");
    await sweepExpired(t);
    assert.equal((await storedFiles(t)).length, 1);
    assert.equal((await download(t, alice.cookie, own.id)).status, 404);
    assert.equal((await download(t, alice.cookie, upload.id)).status, 200);
  } finally {
    await t.close();
  }
});

Deno.test("Attaching to a deleted or unknown thread or comment is 404", async () => {
  const t = await testApp();
  try {
    const { alice, project } = await team(t);
    const file = await uploadFile(t, alice.cookie, project.id, "a.txt", "a");
    const post = await createThread(t, alice.cookie, project.id);
    const comment = await createComment(t, alice.cookie, project.id, post.id);
    expectNoContent(
      await api(t, "DELETE", `${base(project.id)}/board/threads/${post.id}`, {
        cookie: alice.cookie,
      }),
    );
    for (
      const path of [
        threadAttach(project.id, post.id),
        commentAttach(project.id, comment.id),
        threadAttach(project.id, 99999),
        commentAttach(project.id, 99999),
      ]
    ) {
      expectError(await attachIds(t, alice.cookie, path, [file.id]), 404, "not_found");
      const res = await postFile(t, alice.cookie, path, "b.txt", "b");
      expectError(res, 404, "not_found");
    }
    assert.equal((await getJson(t, alice.cookie, `${base(project.id)}/files`)).total, 1);
    assert.equal((await storedFiles(t)).length, 1);
  } finally {
    await t.close();
  }
});

// ---------------------------------------------------------------------------------------
// Linking a file by id never makes it the linker's: deleting the linking item leaves it.

/** Alice's thread carrying `contract.pdf`, uploaded to it as an attachment. */
async function aliceContract(t: TestApp, cookie: string, projectId: number) {
  const post = await createThread(t, cookie, projectId, { title: "Contract" });
  const res = await postFile(
    t,
    cookie,
    threadAttach(projectId, post.id),
    "contract.pdf",
    PDF_BYTES,
  );
  const [file] = expectJson(res, 200).attachments;
  return { post, file };
}

/** The file is still live, downloadable, on disk and on Alice's thread. */
async function assertIntact(
  t: TestApp,
  cookie: string,
  projectId: number,
  contract: { post: Json; file: Json },
) {
  const got = await download(t, cookie, contract.file.id);
  assert.equal(got.status, 200, "the file is still downloadable");
  assert.deepEqual(got.bytes, PDF_BYTES);
  assert.deepEqual((await thread(t, cookie, projectId, contract.post.id)).attachments, [
    contract.file,
  ]);
  assert.equal((await storedFiles(t)).length, 1, "the bytes are still stored");
}

Deno.test("A member who links someone else's attachment to their own to-do, message, comment or thread and deletes it leaves the file whole", async () => {
  const t = await testApp();
  try {
    const { alice, bob, project } = await team(t);
    const contract = await aliceContract(t, alice.cookie, project.id);
    const fileId = contract.file.id;
    // Deleting the file itself is rightly refused to Bob.
    expectError(
      await api(t, "DELETE", `${base(project.id)}/files/${fileId}`, { cookie: bob.cookie }),
      403,
      "forbidden",
    );

    const item = await createTodo(t, bob.cookie, project.id, { fileIds: [fileId] });
    assert.deepEqual(ids(item.attachments), [fileId]);
    expectNoContent(
      await api(t, "DELETE", `${base(project.id)}/todos/items/${item.id}`, { cookie: bob.cookie }),
    );
    await assertIntact(t, bob.cookie, project.id, contract);

    const message = await sendChat(t, bob.cookie, project.id, "see this", { fileIds: [fileId] });
    expectNoContent(
      await api(t, "DELETE", `${base(project.id)}/chat/messages/${message.id}`, {
        cookie: bob.cookie,
      }),
    );
    await assertIntact(t, bob.cookie, project.id, contract);

    const comment = await createComment(t, bob.cookie, project.id, contract.post.id, {
      fileIds: [fileId],
    });
    expectNoContent(
      await api(t, "DELETE", `${base(project.id)}/board/comments/${comment.id}`, {
        cookie: bob.cookie,
      }),
    );
    await assertIntact(t, bob.cookie, project.id, contract);

    const own = await createThread(t, bob.cookie, project.id, { fileIds: [fileId] });
    const later = await createTodo(t, bob.cookie, project.id);
    expectJson(
      await attachIds(t, bob.cookie, `${base(project.id)}/todos/items/${later.id}/attachments`, [
        fileId,
      ]),
      200,
    );
    expectNoContent(
      await api(t, "DELETE", `${base(project.id)}/board/threads/${own.id}`, {
        cookie: bob.cookie,
      }),
    );
    expectNoContent(
      await api(t, "DELETE", `${base(project.id)}/todos/items/${later.id}`, { cookie: bob.cookie }),
    );
    await assertIntact(t, bob.cookie, project.id, contract);

    // Alice deleting her own thread still removes her upload, and purging its bytes.
    expectNoContent(
      await api(t, "DELETE", `${base(project.id)}/board/threads/${contract.post.id}`, {
        cookie: alice.cookie,
      }),
    );
    assert.equal((await download(t, alice.cookie, fileId)).status, 404);
    await sweepExpired(t);
    assert.deepEqual(await storedFiles(t), []);
  } finally {
    await t.close();
  }
});

Deno.test("Deleting the item a file was uploaded to keeps it for an item that still links it; the last link takes it", async () => {
  const t = await testApp();
  try {
    const { alice, bob, project } = await team(t);
    const contract = await aliceContract(t, alice.cookie, project.id);
    const item = await createTodo(t, bob.cookie, project.id, { fileIds: [contract.file.id] });
    expectNoContent(
      await api(t, "DELETE", `${base(project.id)}/board/threads/${contract.post.id}`, {
        cookie: alice.cookie,
      }),
    );
    // Bob's to-do keeps showing the attachment, and it still downloads.
    const got = await getJson(t, bob.cookie, `${base(project.id)}/todos/items/${item.id}`);
    assert.deepEqual(got.attachments, [contract.file]);
    assert.equal((await download(t, bob.cookie, contract.file.id)).status, 200);
    assert.equal((await storedFiles(t)).length, 1);
    // Once nothing links it, it goes, and its bytes with the purge.
    expectNoContent(
      await api(t, "DELETE", `${base(project.id)}/todos/items/${item.id}`, { cookie: bob.cookie }),
    );
    assert.equal((await download(t, bob.cookie, contract.file.id)).status, 404);
    await sweepExpired(t);
    assert.deepEqual(await storedFiles(t), []);
    assert.equal((await getJson(t, bob.cookie, `${base(project.id)}/files`)).total, 0);
  } finally {
    await t.close();
  }
});

Deno.test("A thread's deletion takes its comments' uploads, except one another thread still links", async () => {
  const t = await testApp();
  try {
    const { alice, bob, project } = await team(t);
    const post = await createThread(t, alice.cookie, project.id);
    const comment = await createComment(t, bob.cookie, project.id, post.id);
    const first = expectJson(
      await postFile(t, bob.cookie, commentAttach(project.id, comment.id), "kept.txt", "kept"),
      200,
    ).attachments[0];
    const second = expectJson(
      await postFile(t, bob.cookie, commentAttach(project.id, comment.id), "gone.txt", "gone"),
      200,
    ).attachments[1];
    const elsewhere = await createThread(t, alice.cookie, project.id, { fileIds: [first.id] });
    assert.equal((await storedFiles(t)).length, 2);

    expectNoContent(
      await api(t, "DELETE", `${base(project.id)}/board/threads/${post.id}`, {
        cookie: alice.cookie,
      }),
    );
    assert.equal((await download(t, alice.cookie, first.id)).status, 200);
    assert.equal((await download(t, alice.cookie, second.id)).status, 404);
    assert.deepEqual((await thread(t, alice.cookie, project.id, elsewhere.id)).attachments, [
      first,
    ]);
    await sweepExpired(t);
    assert.equal((await storedFiles(t)).length, 1);
  } finally {
    await t.close();
  }
});

Deno.test("A chat message's own upload goes with it; an upload it only links stays", async () => {
  const t = await testApp();
  try {
    const { alice, bob, project } = await team(t);
    const contract = await aliceContract(t, alice.cookie, project.id);
    const message = await sendChat(t, bob.cookie, project.id, "two files", {
      fileIds: [contract.file.id],
    });
    const own = expectJson(
      await postFile(
        t,
        bob.cookie,
        `${base(project.id)}/chat/messages/${message.id}/attachments`,
        "mine.txt",
        "mine",
      ),
      200,
    ).attachments.find((f: Json) => f.name === "mine.txt");
    assert.equal((await storedFiles(t)).length, 2);
    expectNoContent(
      await api(t, "DELETE", `${base(project.id)}/chat/messages/${message.id}`, {
        cookie: bob.cookie,
      }),
    );
    assert.equal((await download(t, bob.cookie, own.id)).status, 404);
    await sweepExpired(t);
    await assertIntact(t, bob.cookie, project.id, contract);
  } finally {
    await t.close();
  }
});

Deno.test("Deleting a project removes no stored bytes: its files stay on disk, other projects' files stay whole", async () => {
  const t = await testApp();
  try {
    const { owner, alice, project } = await team(t);
    const other = expectJson(
      await api(t, "POST", "/api/projects", { cookie: owner.cookie, body: { name: "Other" } }),
      201,
    ).project;
    const kept = await uploadFile(t, owner.cookie, other.id, "kept.pdf", PDF_BYTES);
    const contract = await aliceContract(t, alice.cookie, project.id);
    await createTodo(t, alice.cookie, project.id, { fileIds: [contract.file.id] });
    assert.equal((await storedFiles(t)).length, 2);
    expectNoContent(
      await api(t, "DELETE", `/api/projects/${project.id}`, { cookie: owner.cookie }),
    );
    assert.equal((await storedFiles(t)).length, 2, "a soft delete keeps the bytes");
    const got = await download(t, owner.cookie, kept.id);
    assert.equal(got.status, 200);
    assert.deepEqual(got.bytes, PDF_BYTES);
  } finally {
    await t.close();
  }
});
