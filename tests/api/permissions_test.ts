/**
 * Who may do what with threads, comments, notes and files: authors, other members, owners,
 * system admins, viewers and outsiders; and an archived project is read-only.
 */
import assert from "node:assert/strict";
import { type TestApp, testApp } from "../helpers/app.ts";
import {
  api,
  type ApiResponse,
  attachIds,
  createComment,
  createNote,
  createThread,
  download,
  expectError,
  expectJson,
  expectNoContent,
  getJson,
  type Json,
  postFile,
  storedFiles,
  type Team,
  team,
  type TestUser,
  uploadFile,
} from "../helpers/api.ts";

/** One kind of authored content and how to create, read, edit and delete it. */
interface Resource {
  name: string;
  /** Creates one as `author` and returns its id. */
  create(t: TestApp, team: Team, author: TestUser): Promise<number>;
  /** Reads it as the owner: its JSON, or null when it is gone. */
  read(t: TestApp, team: Team, id: number): Promise<Json | null>;
  /** Edits it (absent for files, which are not edited). */
  edit?(t: TestApp, team: Team, as: TestUser, id: number): Promise<ApiResponse>;
  remove(t: TestApp, team: Team, as: TestUser, id: number): Promise<ApiResponse>;
}

const p = (team: Team) => `/api/projects/${team.project.id}`;

/** A thread owned by the project owner that comments hang on, one per test app. */
const hosts = new WeakMap<TestApp, number>();
async function host(t: TestApp, team: Team): Promise<number> {
  const known = hosts.get(t);
  if (known !== undefined) return known;
  const thread = await createThread(t, team.owner.cookie, team.project.id, { title: "Host" });
  const id: number = thread.id;
  hosts.set(t, id);
  return id;
}

const RESOURCES: Resource[] = [
  {
    name: "thread",
    create: async (t, team, author) =>
      (await createThread(t, author.cookie, team.project.id, { title: "Original" })).id,
    read: async (t, team, id) => {
      const res = await api(t, "GET", `${p(team)}/board/threads/${id}`, {
        cookie: team.owner.cookie,
      });
      return res.status === 404 ? null : expectJson(res, 200).thread;
    },
    edit: (t, team, as, id) =>
      api(t, "PATCH", `${p(team)}/board/threads/${id}`, {
        cookie: as.cookie,
        body: { title: `Edited by ${as.user.email}`, pinned: true },
      }),
    remove: (t, team, as, id) =>
      api(t, "DELETE", `${p(team)}/board/threads/${id}`, { cookie: as.cookie }),
  },
  {
    name: "comment",
    create: async (t, team, author) =>
      (await createComment(t, author.cookie, team.project.id, await host(t, team), {
        body: "Original",
      })).id,
    read: async (t, team, id) => {
      const got = await getJson(
        t,
        team.owner.cookie,
        `${p(team)}/board/threads/${await host(t, team)}`,
      );
      return got.comments.find((c: Json) => c.id === id) ?? null;
    },
    edit: (t, team, as, id) =>
      api(t, "PATCH", `${p(team)}/board/comments/${id}`, {
        cookie: as.cookie,
        body: { body: `Edited by ${as.user.email}` },
      }),
    remove: (t, team, as, id) =>
      api(t, "DELETE", `${p(team)}/board/comments/${id}`, { cookie: as.cookie }),
  },
  {
    name: "note",
    create: async (t, team, author) =>
      (await createNote(t, author.cookie, team.project.id, { title: "Original" })).id,
    read: async (t, team, id) => {
      const res = await api(t, "GET", `${p(team)}/notes/${id}`, { cookie: team.owner.cookie });
      return res.status === 404 ? null : expectJson(res, 200).note;
    },
    edit: (t, team, as, id) =>
      api(t, "PATCH", `${p(team)}/notes/${id}`, {
        cookie: as.cookie,
        body: { title: `Edited by ${as.user.email}`, tags: ["x"] },
      }),
    remove: (t, team, as, id) => api(t, "DELETE", `${p(team)}/notes/${id}`, { cookie: as.cookie }),
  },
  {
    name: "file",
    create: async (t, team, author) =>
      (await uploadFile(t, author.cookie, team.project.id, "original.txt", "original")).id,
    read: async (t, team, id) => {
      const page = await getJson(t, team.owner.cookie, `${p(team)}/files?pageSize=100`);
      return page.items.find((f: Json) => f.id === id) ?? null;
    },
    remove: (t, team, as, id) => api(t, "DELETE", `${p(team)}/files/${id}`, { cookie: as.cookie }),
  },
];

for (const resource of RESOURCES) {
  Deno.test(`A ${resource.name} is changed only by its author, the project owner or a system admin`, async () => {
    const t = await testApp();
    try {
      const cast = await team(t);
      const { admin, owner, alice, bob, viewer, outsider } = cast;
      const id = await resource.create(t, cast, alice);
      const original = await resource.read(t, cast, id);
      assert.ok(original, `${resource.name} was not created`);

      // Denied: another member and a viewer (403), an outsider (404); nothing changes.
      for (
        const [who, status, code] of [
          [bob, 403, "forbidden"],
          [viewer, 403, "forbidden"],
          [outsider, 404, "not_found"],
        ] as const
      ) {
        if (resource.edit) {
          const res = await resource.edit(t, cast, who, id);
          expectError(res, status, code);
        }
        expectError(await resource.remove(t, cast, who, id), status, code);
        assert.deepEqual(await resource.read(t, cast, id), original, who.user.email);
      }

      // Allowed edits: author, owner, admin (not a member).
      if (resource.edit) {
        for (const who of [alice, owner, admin]) {
          const res = await resource.edit(t, cast, who, id);
          const body = expectJson(res, 200);
          const edited = body[resource.name];
          assert.ok(edited, `${resource.name} edit answers {${resource.name}}: ${res.text}`);
          assert.equal(edited.authorId, alice.user.id, "the author stays");
          const now = await resource.read(t, cast, id);
          assert.ok(JSON.stringify(now).includes(`Edited by ${who.user.email}`));
        }
      }

      // Allowed deletes: each on its own copy.
      for (const who of [alice, owner, admin]) {
        const copy = await resource.create(t, cast, alice);
        expectNoContent(await resource.remove(t, cast, who, copy));
        assert.equal(await resource.read(t, cast, copy), null, `${who.user.email} deleted it`);
      }
      assert.ok(await resource.read(t, cast, id));
    } finally {
      await t.close();
    }
  });
}

Deno.test("A viewer cannot create threads, comments, notes, files or attachments (403); nothing is stored", async () => {
  const t = await testApp();
  try {
    const cast = await team(t);
    const { alice, viewer, outsider } = cast;
    const post = await createThread(t, alice.cookie, cast.project.id);
    const file = await uploadFile(t, alice.cookie, cast.project.id, "a.txt", "a");
    for (
      const [who, status, code] of [[viewer, 403, "forbidden"], [
        outsider,
        404,
        "not_found",
      ]] as const
    ) {
      const attempts: ApiResponse[] = [
        await api(t, "POST", `${p(cast)}/board/threads`, {
          cookie: who.cookie,
          body: { title: "T", body: "b", category: "general" },
        }),
        await api(t, "POST", `${p(cast)}/board/threads/${post.id}/comments`, {
          cookie: who.cookie,
          body: { body: "c" },
        }),
        await api(t, "POST", `${p(cast)}/notes`, {
          cookie: who.cookie,
          body: { title: "N", body: "b" },
        }),
        await postFile(t, who.cookie, `${p(cast)}/files`, "v.txt", "v"),
        await attachIds(t, who.cookie, `${p(cast)}/board/threads/${post.id}/attachments`, [
          file.id,
        ]),
        await postFile(
          t,
          who.cookie,
          `${p(cast)}/board/threads/${post.id}/attachments`,
          "w.txt",
          "w",
        ),
      ];
      for (const res of attempts) expectError(res, status, code);
    }
    assert.equal((await getJson(t, alice.cookie, `${p(cast)}/board/threads`)).total, 1);
    const got = await getJson(t, alice.cookie, `${p(cast)}/board/threads/${post.id}`);
    assert.deepEqual(got.comments, []);
    assert.deepEqual(got.attachments, []);
    assert.equal((await getJson(t, alice.cookie, `${p(cast)}/notes`)).total, 0);
    assert.equal((await getJson(t, alice.cookie, `${p(cast)}/files`)).total, 1);
    assert.equal((await storedFiles(t)).length, 1);
  } finally {
    await t.close();
  }
});

Deno.test("Attaching to a thread or comment: author, owner or admin; another member or viewer 403; outsider 404", async () => {
  const t = await testApp();
  try {
    const cast = await team(t);
    const { admin, owner, alice, bob, viewer, outsider } = cast;
    const post = await createThread(t, alice.cookie, cast.project.id);
    const comment = await createComment(t, alice.cookie, cast.project.id, post.id);
    for (
      const path of [
        `${p(cast)}/board/threads/${post.id}/attachments`,
        `${p(cast)}/board/comments/${comment.id}/attachments`,
      ]
    ) {
      const file = await uploadFile(t, bob.cookie, cast.project.id, "b.txt", "b");
      expectError(await attachIds(t, bob.cookie, path, [file.id]), 403, "forbidden");
      expectError(await attachIds(t, viewer.cookie, path, [file.id]), 403, "forbidden");
      expectError(await attachIds(t, outsider.cookie, path, [file.id]), 404, "not_found");
      expectError(await postFile(t, bob.cookie, path, "x.txt", "x"), 403, "forbidden");
      for (const who of [alice, owner, admin]) {
        const res = await attachIds(t, who.cookie, path, [file.id]);
        assert.deepEqual(expectJson(res, 200).attachments.map((f: Json) => f.id), [file.id]);
      }
    }
    // The refused multipart attach stored nothing.
    const attachments = await getJson(t, alice.cookie, `${p(cast)}/files?source=attachment`);
    assert.equal(attachments.total, 0);
  } finally {
    await t.close();
  }
});

Deno.test("Reads: members, viewers and admins read the board, notes and files; outsiders get 404", async () => {
  const t = await testApp();
  try {
    const cast = await team(t);
    const { admin, alice, bob, viewer, outsider } = cast;
    const post = await createThread(t, alice.cookie, cast.project.id, { title: "Secret thread" });
    const note = await createNote(t, alice.cookie, cast.project.id, { title: "Secret note" });
    const file = await uploadFile(t, alice.cookie, cast.project.id, "secret.txt", "secret");
    const paths = [
      `${p(cast)}/board/threads`,
      `${p(cast)}/board/threads/${post.id}`,
      `${p(cast)}/notes`,
      `${p(cast)}/notes/${note.id}`,
      `${p(cast)}/files`,
      `${p(cast)}/activity`,
    ];
    for (const who of [bob, viewer, admin]) {
      for (const path of paths) expectJson(await api(t, "GET", path, { cookie: who.cookie }), 200);
      assert.equal((await download(t, who.cookie, file.id)).status, 200);
    }
    for (const path of paths) {
      const res = await api(t, "GET", path, { cookie: outsider.cookie });
      expectError(res, 404, "not_found");
      assert.ok(!res.text.includes("Secret"), path);
    }
    assert.equal((await download(t, outsider.cookie, file.id)).status, 404);
  } finally {
    await t.close();
  }
});

Deno.test("An archived project is read-only: every board, note and file write is 403, reads work", async () => {
  const t = await testApp();
  try {
    const cast = await team(t);
    const { admin, owner, alice } = cast;
    const post = await createThread(t, alice.cookie, cast.project.id);
    const comment = await createComment(t, alice.cookie, cast.project.id, post.id);
    const note = await createNote(t, alice.cookie, cast.project.id);
    const file = await uploadFile(t, alice.cookie, cast.project.id, "a.txt", "a");
    const archived = await api(t, "POST", `${p(cast)}/archive`, { cookie: owner.cookie });
    expectJson(archived, 200);
    const filesBefore = await storedFiles(t);

    for (const who of [alice, owner, admin]) {
      const writes: Array<[string, ApiResponse]> = [
        [
          "create thread",
          await api(t, "POST", `${p(cast)}/board/threads`, {
            cookie: who.cookie,
            body: { title: "T", body: "b", category: "general" },
          }),
        ],
        [
          "edit thread",
          await api(t, "PATCH", `${p(cast)}/board/threads/${post.id}`, {
            cookie: who.cookie,
            body: { pinned: true },
          }),
        ],
        [
          "delete thread",
          await api(t, "DELETE", `${p(cast)}/board/threads/${post.id}`, { cookie: who.cookie }),
        ],
        [
          "comment",
          await api(t, "POST", `${p(cast)}/board/threads/${post.id}/comments`, {
            cookie: who.cookie,
            body: { body: "c" },
          }),
        ],
        [
          "edit comment",
          await api(t, "PATCH", `${p(cast)}/board/comments/${comment.id}`, {
            cookie: who.cookie,
            body: { body: "x" },
          }),
        ],
        [
          "delete comment",
          await api(t, "DELETE", `${p(cast)}/board/comments/${comment.id}`, {
            cookie: who.cookie,
          }),
        ],
        [
          "create note",
          await api(t, "POST", `${p(cast)}/notes`, {
            cookie: who.cookie,
            body: { title: "N", body: "b" },
          }),
        ],
        [
          "edit note",
          await api(t, "PATCH", `${p(cast)}/notes/${note.id}`, {
            cookie: who.cookie,
            body: { title: "x" },
          }),
        ],
        [
          "delete note",
          await api(t, "DELETE", `${p(cast)}/notes/${note.id}`, { cookie: who.cookie }),
        ],
        ["upload", await postFile(t, who.cookie, `${p(cast)}/files`, "b.txt", "b")],
        [
          "delete file",
          await api(t, "DELETE", `${p(cast)}/files/${file.id}`, { cookie: who.cookie }),
        ],
        [
          "attach ids",
          await attachIds(t, who.cookie, `${p(cast)}/board/threads/${post.id}/attachments`, [
            file.id,
          ]),
        ],
        [
          "attach upload",
          await postFile(
            t,
            who.cookie,
            `${p(cast)}/board/comments/${comment.id}/attachments`,
            "c.txt",
            "c",
          ),
        ],
      ];
      for (const [what, res] of writes) {
        assert.equal(res.status, 403, `${who.user.email} ${what}: ${res.status} ${res.text}`);
        expectError(res, 403, "forbidden");
      }
    }

    // Nothing changed, and reads still work.
    const thread = await getJson(t, alice.cookie, `${p(cast)}/board/threads/${post.id}`);
    assert.equal(thread.thread.pinned, false);
    assert.deepEqual(thread.comments.map((c: Json) => [c.id, c.body]), [[comment.id, "Agreed."]]);
    assert.deepEqual(thread.attachments, []);
    assert.equal((await getJson(t, alice.cookie, `${p(cast)}/board/threads`)).total, 1);
    const notes = await getJson(t, alice.cookie, `${p(cast)}/notes`);
    assert.deepEqual(notes.items.map((n: Json) => n.title), [note.title]);
    expectJson(await api(t, "GET", `${p(cast)}/notes/${note.id}`, { cookie: alice.cookie }), 200);
    const files = await getJson(t, alice.cookie, `${p(cast)}/files`);
    assert.deepEqual(files.items.map((f: Json) => f.id), [file.id]);
    assert.equal((await download(t, alice.cookie, file.id)).status, 200);
    expectJson(await api(t, "GET", `${p(cast)}/activity`, { cookie: alice.cookie }), 200);
    assert.deepEqual(await storedFiles(t), filesBefore);

    // Unarchived, writes work again.
    expectJson(await api(t, "POST", `${p(cast)}/unarchive`, { cookie: owner.cookie }), 200);
    await createComment(t, alice.cookie, cast.project.id, post.id);
    await uploadFile(t, alice.cookie, cast.project.id, "b.txt", "b");
  } finally {
    await t.close();
  }
});
