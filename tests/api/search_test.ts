/** Search: every type through every searchable field, Japanese substrings, paging, upkeep. */
import assert from "node:assert/strict";
import { testApp } from "../helpers/app.ts";
import {
  addMember,
  api,
  createProject,
  expectError,
  expectJson,
  register,
  uploadFile,
} from "../helpers/api.ts";

type T = Awaited<ReturnType<typeof testApp>>;

async function post(t: T, cookie: string, path: string, body: unknown) {
  const res = await api(t, "POST", path, { cookie, body });
  assert.ok(res.status === 201 || res.status === 200, `${path}: ${res.status} ${res.text}`);
  return res.json;
}

async function search(t: T, cookie: string, projectId: number, query: string) {
  const res = await api(t, "GET", `/api/projects/${projectId}/search?${query}`, { cookie });
  return expectJson(res, 200);
}

const hits = (page: { items: Array<{ type: string; id: number }> }) =>
  page.items.map((i) => `${i.type}:${i.id}`).sort();

async function setup() {
  const t = await testApp();
  await register(t, "root@example.com"); // the first account is a system admin
  const cookie = await register(t, "ann@example.com");
  const project = await createProject(t, cookie, "Search");
  return { t, cookie, p: project.id as number };
}

Deno.test("GET /search finds each type through each of its searchable fields", async () => {
  const { t, cookie, p } = await setup();
  try {
    const base = `/api/projects/${p}`;
    const thread = (await post(t, cookie, `${base}/board/threads`, {
      title: "alphatitle thread",
      body: "bravobody text",
      category: "general",
    })).thread;
    const message = (await post(t, cookie, `${base}/chat/messages`, { text: "charliechat here" }))
      .message;
    const item = (await post(t, cookie, `${base}/todos/items`, {
      title: "deltatodo",
      description: "echodesc",
      tags: ["foxtrottag"],
    })).item;
    const file = await uploadFile(t, cookie, p, "golfreport.txt", "plain");
    const event = (await post(t, cookie, `${base}/calendar/events`, {
      title: "hotelevent",
      description: "indiadesc",
      startAt: "2026-12-01T10:00:00Z",
      endAt: "2026-12-01T11:00:00Z",
    })).event;
    const meeting = (await post(t, cookie, `${base}/meetings`, {
      title: "julietmeeting",
      startAt: "2026-12-02T10:00:00Z",
      endAt: "2026-12-02T11:00:00Z",
      inviteeIds: [],
      location: "kilolocation",
      minutes: "limaminutes",
    })).meeting;
    const milestone = (await post(t, cookie, `${base}/milestones`, {
      title: "mikemilestone",
      description: "novemberdesc",
    })).milestone;
    const note = (await post(t, cookie, `${base}/notes`, {
      title: "oscarnote",
      body: "papabody",
      tags: ["quebectag"],
    })).note;
    const expected: Array<[string, string]> = [
      ["alphatitle", `board:${thread.id}`],
      ["bravobody", `board:${thread.id}`],
      ["charliechat", `chat:${message.id}`],
      ["deltatodo", `todo:${item.id}`],
      ["echodesc", `todo:${item.id}`],
      ["foxtrottag", `todo:${item.id}`],
      ["golfreport", `file:${file.id}`],
      ["hotelevent", `event:${event.id}`],
      ["indiadesc", `event:${event.id}`],
      ["julietmeeting", `meeting:${meeting.id}`],
      ["kilolocation", `meeting:${meeting.id}`],
      ["limaminutes", `meeting:${meeting.id}`],
      ["mikemilestone", `milestone:${milestone.id}`],
      ["novemberdesc", `milestone:${milestone.id}`],
      ["oscarnote", `note:${note.id}`],
      ["papabody", `note:${note.id}`],
      ["quebectag", `note:${note.id}`],
    ];
    for (const [word, hit] of expected) {
      const page = await search(t, cookie, p, `q=${word}`);
      assert.deepEqual(hits(page), [hit], word);
      const [type] = hit.split(":");
      const typed = await search(t, cookie, p, `q=${word}&type=${type}`);
      assert.deepEqual(hits(typed), [hit], `${word} with type`);
      const other = await search(
        t,
        cookie,
        p,
        `q=${word}&type=${type === "note" ? "chat" : "note"}`,
      );
      assert.equal(other.total, 0, `${word} filtered out`);
    }
    // Substrings match too, case-insensitively, with the match marked in the snippet.
    const partial = await search(t, cookie, p, "q=ECHODE");
    assert.deepEqual(hits(partial), [`todo:${item.id}`]);
    assert.match(partial.items[0].snippet, /<mark>echode<\/mark>sc/);
    assert.deepEqual(Object.keys(partial.items[0]).sort(), [
      "createdAt",
      "id",
      "snippet",
      "title",
      "type",
    ]);
  } finally {
    await t.close();
  }
});

Deno.test("GET /search finds a Japanese word inside a sentence and a two-character term", async () => {
  const { t, cookie, p } = await setup();
  try {
    const note = (await post(t, cookie, `/api/projects/${p}/notes`, {
      title: "先週の定例会議の議事録をまとめました",
      body: "参加者は<五名>です",
    })).note;
    const long = await search(t, cookie, p, `q=${encodeURIComponent("議事録")}`);
    assert.deepEqual(hits(long), [`note:${note.id}`]);
    assert.match(long.items[0].snippet, /<mark>議事録<\/mark>/);
    const short = await search(t, cookie, p, `q=${encodeURIComponent("会議")}`);
    assert.deepEqual(hits(short), [`note:${note.id}`]);
    assert.match(short.items[0].snippet, /<mark>会議<\/mark>/);
    // Snippets are escaped text: user markup never comes back as markup.
    const escaped = await search(t, cookie, p, `q=${encodeURIComponent("五名")}`);
    assert.match(escaped.items[0].snippet, /&#60;<mark>五名<\/mark>&#62;/);
  } finally {
    await t.close();
  }
});

Deno.test("GET /search pages over all matches, newest first", async () => {
  const { t, cookie, p } = await setup();
  try {
    const ids: number[] = [];
    for (let i = 0; i < 25; i++) {
      t.clock.advance(1000);
      ids.push(
        (await post(t, cookie, `/api/projects/${p}/chat/messages`, { text: `zulu number ${i}` }))
          .message.id,
      );
    }
    const first = await search(t, cookie, p, "q=zulu&pageSize=10");
    assert.equal(first.total, 25);
    assert.equal(first.hasMore, true);
    assert.deepEqual(first.items.map((i: { id: number }) => i.id), ids.slice(-10).reverse());
    const third = await search(t, cookie, p, "q=zulu&pageSize=10&page=3");
    assert.deepEqual(third.items.map((i: { id: number }) => i.id), ids.slice(0, 5).reverse());
    assert.equal(third.hasMore, false);
  } finally {
    await t.close();
  }
});

Deno.test("an edit removes the old text from the index and a delete removes the item", async () => {
  const { t, cookie, p } = await setup();
  try {
    const note =
      (await post(t, cookie, `/api/projects/${p}/notes`, { title: "whiskey", body: "x" }))
        .note;
    const res = await api(t, "PATCH", `/api/projects/${p}/notes/${note.id}`, {
      cookie,
      body: { title: "xrayed" },
    });
    expectJson(res, 200);
    assert.equal((await search(t, cookie, p, "q=whiskey")).total, 0);
    assert.equal((await search(t, cookie, p, "q=xrayed")).total, 1);
    const gone = await api(t, "DELETE", `/api/projects/${p}/notes/${note.id}`, { cookie });
    assert.equal(gone.status, 204);
    assert.equal((await search(t, cookie, p, "q=xrayed")).total, 0);
    assert.equal((await search(t, cookie, p, "q=xr")).total, 0);
  } finally {
    await t.close();
  }
});

Deno.test("GET /search rejects a blank query or an unknown type and hides other projects", async () => {
  const { t, cookie, p } = await setup();
  try {
    for (const query of ["q=", "q=%20%20", "", "q=abc&type=wiki"]) {
      const res = await api(t, "GET", `/api/projects/${p}/search?${query}`, { cookie });
      expectError(res, 400, "validation");
    }
    const other = await register(t, "bo@example.com");
    const theirs = await createProject(t, other, "Theirs");
    await post(t, other, `/api/projects/${theirs.id}/notes`, { title: "yankee secret", body: "" });
    assert.equal((await search(t, cookie, p, "q=yankee")).total, 0);
    const res = await api(t, "GET", `/api/projects/${theirs.id}/search?q=yankee`, { cookie });
    expectError(res, 404, "not_found");
    await addMember(t, other, theirs.id, "ann@example.com", "viewer");
    assert.equal((await search(t, cookie, theirs.id, "q=yankee")).total, 1);
  } finally {
    await t.close();
  }
});
