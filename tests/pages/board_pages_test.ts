/** The board, notes, files and activity pages: access, both languages, forms without JavaScript. */
import assert from "node:assert/strict";
import { testApp } from "../helpers/app.ts";

type T = Awaited<ReturnType<typeof testApp>>;

const HTML = "text/html; charset=UTF-8";
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);

function form(cookie: string, fields: Record<string, string>): RequestInit {
  return {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    body: new URLSearchParams(fields).toString(),
  };
}

function multipart(
  cookie: string,
  fields: Record<string, string>,
  file?: { name: string; bytes: Uint8Array<ArrayBuffer> },
): RequestInit {
  const body = new FormData();
  for (const [key, value] of Object.entries(fields)) body.set(key, value);
  if (file) body.set("file", new File([file.bytes], file.name));
  return { method: "POST", headers: { cookie }, body };
}

function cookiesOf(res: Response): string {
  return res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
}

async function signUp(t: T, email: string, options: { cookie?: string } = {}) {
  const res = await t.app.request("/register", {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      ...(options.cookie ? { cookie: options.cookie } : {}),
    },
    body: new URLSearchParams({
      displayName: email.split("@")[0]!,
      email,
      password: "password-123",
    }).toString(),
  });
  assert.equal(res.status, 303);
  await res.body?.cancel();
  return cookiesOf(res);
}

/** Answers the page at `path`: its status, type and HTML. */
async function get(t: T, path: string, cookie: string) {
  const res = await t.app.request(path, { headers: { cookie } });
  return { status: res.status, type: res.headers.get("content-type"), html: await res.text() };
}

/**
 * Sends a form and returns the status, the redirect and the body; the redirect's created or
 * saved notice (`?created=note-3`) is taken out of `location` into `notice`.
 */
async function send(t: T, path: string, init: RequestInit) {
  const res = await t.app.request(path, init);
  const raw = res.headers.get("location");
  const notice = /[?&]((?:created|saved)=[a-z]+-\d+)/.exec(raw ?? "")?.[1] ?? null;
  const location = raw?.replace(/[?&](?:created|saved)=[a-z]+-\d+/, "") ?? null;
  return { status: res.status, location, notice, html: await res.text() };
}

/** Ann owns a project; Bo is a member with Japanese pages; Cy is a viewer; Di is outside. */
async function world(t: T) {
  const ann = await signUp(t, "ann@example.com");
  const bo = await signUp(t, "bo@example.com", { cookie: "locale=ja; theme=light" });
  const cy = await signUp(t, "cy@example.com");
  const di = await signUp(t, "di@example.com");
  const created = await send(t, "/projects", form(ann, { name: "Launch", description: "" }));
  assert.equal(created.status, 303);
  const base = created.location!;
  for (const [email, role] of [["bo@example.com", "member"], ["cy@example.com", "viewer"]]) {
    const added = await send(t, `${base}/members`, form(ann, { email: email!, role: role! }));
    assert.equal(added.status, 303);
  }
  return { ann, bo, cy, di, base, id: Number(base.split("/").pop()) };
}

async function postThread(t: T, cookie: string, base: string, fields: Record<string, string>) {
  const res = await send(t, `${base}/board`, form(cookie, { category: "general", ...fields }));
  assert.equal(res.status, 303, res.html);
  assert.match(res.location!, /^\/projects\/\d+\/board\/\d+$/);
  return res.location!;
}

Deno.test("the area pages send a visitor without a session to /login with next", async () => {
  const t = await testApp();
  try {
    for (
      const path of [
        "/projects/1/board",
        "/projects/1/board/2",
        "/projects/1/notes?tag=x",
        "/projects/1/notes/3",
        "/projects/1/files",
        "/projects/1/activity",
      ]
    ) {
      const res = await t.app.request(path);
      assert.equal(res.status, 302, path);
      assert.equal(res.headers.get("location"), `/login?next=${encodeURIComponent(path)}`);
    }
  } finally {
    await t.close();
  }
});

Deno.test("the area pages answer the 404 page to someone outside the project", async () => {
  const t = await testApp();
  try {
    const w = await world(t);
    const thread = await postThread(t, w.ann, w.base, { title: "Plan", body: "x" });
    const note = await send(t, `${w.base}/notes`, form(w.ann, { title: "N", body: "" }));
    for (
      const path of [
        `${w.base}/board`,
        thread,
        `${w.base}/notes`,
        note.location!,
        `${w.base}/files`,
        `${w.base}/activity`,
        "/projects/999/board",
        `${w.base}/board/999`,
        `${w.base}/notes/999`,
      ]
    ) {
      const cookie = path.includes("999") ? w.ann : w.di;
      const page = await get(t, path, cookie);
      assert.equal(page.status, 404, path);
      assert.equal(page.type, HTML);
      assert.match(page.html, /Page not found/);
    }
    // Forms of a project one is not in are refused the same way, and change nothing.
    const post = await send(t, `${w.base}/board`, form(w.di, { title: "X", category: "general" }));
    assert.equal(post.status, 404);
    const board = await get(t, `${w.base}/board`, w.ann);
    assert.doesNotMatch(board.html, />X</);
  } finally {
    await t.close();
  }
});

Deno.test("every area page renders for a member in English and in Japanese with the project tabs", async () => {
  const t = await testApp();
  try {
    const w = await world(t);
    const thread = await postThread(t, w.ann, w.base, { title: "Plan", body: "**hi**" });
    const note = await send(t, `${w.base}/notes`, form(w.ann, { title: "Minutes", body: "" }));
    const upload = await send(
      t,
      `${w.base}/files`,
      multipart(w.ann, {}, { name: "logo.png", bytes: PNG }),
    );
    assert.equal(upload.status, 303);
    const pages: Array<[string, string, string, string]> = [
      [`${w.base}`, "Dashboard", "ダッシュボード", "Launch"],
      [`${w.base}/board`, "Board", "掲示板", "Message board"],
      [thread, "Board", "掲示板", "Plan"],
      [`${w.base}/notes`, "Notes", "ノート", "Notes"],
      [note.location!, "Notes", "ノート", "Minutes"],
      [`${w.base}/files`, "Files", "ファイル", "Files"],
      [`${w.base}/activity`, "Activity", "アクティビティ", "Activity"],
    ];
    for (const [path, tab, tabJa, heading] of pages) {
      const en = await get(t, path, w.ann);
      assert.equal(en.status, 200, path);
      assert.equal(en.type, HTML);
      assert.match(en.html, /<html lang="en" data-theme="dark">/);
      assert.match(en.html, new RegExp(`aria-current="page">${tab}</a>`), path);
      assert.match(en.html, new RegExp(`<h1>${heading}</h1>`), path);
      for (const area of ["board", "notes", "chat", "todos", "files", "calendar", "search"]) {
        assert.ok(en.html.includes(`href="${w.base}/${area}"`), `${path} links ${area}`);
      }
      const ja = await get(t, path, w.bo);
      assert.equal(ja.status, 200, path);
      assert.match(ja.html, /<html lang="ja" data-theme="light">/);
      assert.match(ja.html, new RegExp(`aria-current="page">${tabJa}</a>`), path);
      assert.doesNotMatch(ja.html, /Message board|New thread|Upload a file/, path);
    }
    // A locale cookie picks the language of someone who never chose one.
    const settings = await send(
      t,
      "/settings",
      form(w.ann, { displayName: "ann", theme: "light", locale: "ja" }),
    );
    assert.equal(settings.status, 303);
    const board = await get(t, `${w.base}/board`, w.ann);
    assert.match(board.html, /<h1>掲示板<\/h1>/);
    assert.match(board.html, /新しいスレッド/);
  } finally {
    await t.close();
  }
});

Deno.test("a thread is posted, edited, pinned, commented on and deleted with plain forms", async () => {
  const t = await testApp();
  try {
    const w = await world(t);
    const first = await postThread(t, w.ann, w.base, { title: "Older", body: "" });
    const path = await postThread(t, w.bo, w.base, {
      title: "Kickoff",
      body: "Agenda:\n\n- **scope**\n- `dates`",
      category: "announcement",
    });
    let page = await get(t, path, w.bo);
    assert.match(page.html, /<h1>Kickoff<\/h1>/);
    assert.match(page.html, /<li><strong>scope<\/strong><\/li>/, "Markdown is rendered");
    assert.match(page.html, /お知らせ/);

    const edited = await send(
      t,
      path,
      form(w.bo, { title: "Kickoff 2", body: "New *body*", category: "idea" }),
    );
    assert.equal(edited.status, 303);
    assert.equal(edited.location, path);
    const pinned = await send(t, `${path}/pin`, form(w.bo, { pinned: "true" }));
    assert.equal(pinned.status, 303);
    page = await get(t, path, w.ann);
    assert.match(page.html, /<h1>Kickoff 2<\/h1>/);
    assert.match(page.html, /<em>body<\/em>/);
    assert.match(page.html, /Unpin/);

    // Pinned first on the board, then newest; the category filter narrows the list.
    const board = await get(t, `${w.base}/board`, w.ann);
    assert.ok(board.html.indexOf("Kickoff 2") < board.html.indexOf("Older"));
    const ideas = await get(t, `${w.base}/board?category=idea`, w.ann);
    assert.match(ideas.html, /Kickoff 2/);
    assert.doesNotMatch(ideas.html, /Older/);

    const reply = await send(t, `${path}/comments`, form(w.ann, { body: "Sounds _good_" }));
    assert.equal(reply.status, 303);
    assert.match(reply.location!, new RegExp(`^${path}#comment-\\d+$`));
    const commentId = reply.location!.split("-").pop();
    page = await get(t, path, w.bo);
    assert.match(page.html, /Sounds <em>good<\/em>/);
    const commentEdit = await send(
      t,
      `${path}/comments/${commentId}`,
      form(w.ann, { body: "Sounds great" }),
    );
    assert.equal(commentEdit.status, 303);
    // Bo may not edit Ann's comment; the page says so with 403.
    const refused = await send(
      t,
      `${path}/comments/${commentId}/delete`,
      form(w.bo, {}),
    );
    assert.equal(refused.status, 403);
    assert.match(refused.html, /role="alert">[^<]+</);
    const removedComment = await send(
      t,
      `${path}/comments/${commentId}/delete`,
      form(w.ann, {}),
    );
    assert.equal(removedComment.status, 303);
    page = await get(t, path, w.bo);
    assert.doesNotMatch(page.html, /Sounds great/);

    // The owner may delete anyone's thread.
    const removed = await send(t, `${path}/delete`, form(w.ann, {}));
    assert.equal(removed.status, 303);
    assert.match(removed.location!, new RegExp(`^${w.base}/board\\?deleted=thread-\\d+$`));
    assert.equal((await get(t, path, w.ann)).status, 404);
    assert.equal((await get(t, first, w.ann)).status, 200);
  } finally {
    await t.close();
  }
});

Deno.test("a thread and a reply carry an uploaded attachment with a download link", async () => {
  const t = await testApp();
  try {
    const w = await world(t);
    const posted = await send(
      t,
      `${w.base}/board`,
      multipart(w.ann, { title: "With file", body: "see file", category: "general" }, {
        name: "設計図.png",
        bytes: PNG,
      }),
    );
    assert.equal(posted.status, 303, posted.html);
    const reply = await send(
      t,
      `${posted.location}/comments`,
      multipart(w.bo, { body: "notes attached" }, {
        name: "notes.txt",
        bytes: new TextEncoder().encode("hello"),
      }),
    );
    assert.equal(reply.status, 303, reply.html);
    const page = await get(t, posted.location!, w.ann);
    const links = [...page.html.matchAll(/href="(\/api\/files\/\d+\/download)"[^>]*>([^<]+)</g)];
    assert.deepEqual(links.map((m) => m[2]), ["設計図.png", "notes.txt"]);
    const download = await t.app.request(links[0]![1]!, { headers: { cookie: w.bo } });
    assert.equal(download.status, 200);
    assert.deepEqual(new Uint8Array(await download.arrayBuffer()), PNG);
    // The attachments are listed on the files page as attachments.
    const files = await get(t, `${w.base}/files?source=attachment`, w.ann);
    assert.match(files.html, /設計図\.png/);
    assert.match(files.html, /notes\.txt/);
  } finally {
    await t.close();
  }
});

Deno.test("a refused thread form re-renders with its message and values, and stores nothing", async () => {
  const t = await testApp();
  try {
    const w = await world(t);
    const blank = await send(
      t,
      `${w.base}/board`,
      form(w.ann, { title: "  ", body: "keep <this>", category: "general" }),
    );
    assert.equal(blank.status, 400);
    assert.match(blank.html, /Please correct the highlighted fields\./);
    assert.match(blank.html, /This field is required\./);
    assert.match(blank.html, /keep &lt;this&gt;<\/textarea>/);
    assert.match(blank.html, /<details class="card" open>/);

    // A type that is not allowed, and content that does not match its extension: 415.
    for (
      const file of [{ name: "run.exe", bytes: PNG }, { name: "fake.png", bytes: PNG.slice(4) }]
    ) {
      const res = await send(
        t,
        `${w.base}/board`,
        multipart(w.ann, { title: "Bad file", body: "", category: "general" }, file),
      );
      assert.equal(res.status, 415, file.name);
      assert.match(res.html, /This file type is not allowed/);
    }
    const board = await get(t, `${w.base}/board`, w.ann);
    assert.match(board.html, /No threads yet\./);
    const files = await get(t, `${w.base}/files`, w.ann);
    assert.match(files.html, /No files yet\./);

    const thread = await postThread(t, w.ann, w.base, { title: "T", body: "" });
    const emptyReply = await send(t, `${thread}/comments`, form(w.ann, { body: " " }));
    assert.equal(emptyReply.status, 400);
    assert.match(emptyReply.html, /This field is required\./);
    const badEdit = await send(t, thread, form(w.ann, { title: "", category: "general" }));
    assert.equal(badEdit.status, 400);
    assert.match(badEdit.html, /<h1>T<\/h1>/);
    // An edit whose file is refused changes nothing: the title stays, no file is kept.
    const refusedEdit = await send(
      t,
      thread,
      multipart(w.ann, { title: "Renamed", body: "", category: "general" }, {
        name: "run.exe",
        bytes: PNG,
      }),
    );
    assert.equal(refusedEdit.status, 415);
    assert.match((await get(t, thread, w.ann)).html, /<h1>T<\/h1>/);
    assert.match((await get(t, `${w.base}/files`, w.ann)).html, /No files yet\./);
  } finally {
    await t.close();
  }
});

Deno.test("a viewer reads the areas without forms and is refused with 403", async () => {
  const t = await testApp();
  try {
    const w = await world(t);
    const thread = await postThread(t, w.ann, w.base, { title: "Plan", body: "" });
    for (const path of [`${w.base}/board`, thread, `${w.base}/notes`, `${w.base}/files`]) {
      const page = await get(t, path, w.cy);
      assert.equal(page.status, 200, path);
      assert.doesNotMatch(page.html, /<form class="stack|type="file"|Delete/, path);
    }
    const post = await send(t, `${w.base}/board`, form(w.cy, { title: "No", category: "general" }));
    assert.equal(post.status, 403);
    assert.match(post.html, /You are not allowed to do this\./);
    const reply = await send(t, `${thread}/comments`, form(w.cy, { body: "no" }));
    assert.equal(reply.status, 403);
    const note = await send(t, `${w.base}/notes`, form(w.cy, { title: "No", body: "" }));
    assert.equal(note.status, 403);
  } finally {
    await t.close();
  }
});

Deno.test("notes are created with tags, filtered by tag, edited and deleted", async () => {
  const t = await testApp();
  try {
    const w = await world(t);
    const a = await send(
      t,
      `${w.base}/notes`,
      form(w.ann, { title: "Minutes", body: "# Day 1\n\ntext", tags: "meeting, 議事録、 meeting" }),
    );
    assert.equal(a.status, 303);
    assert.match(a.location!, /^\/projects\/\d+\/notes\/\d+$/);
    const b = await send(
      t,
      `${w.base}/notes`,
      form(w.bo, { title: "Ideas", body: "", tags: "", pinned: "on" }),
    );
    assert.equal(b.status, 303);

    const list = await get(t, `${w.base}/notes`, w.ann);
    assert.ok(list.html.indexOf("Ideas") < list.html.indexOf("Minutes"), "pinned first");
    assert.match(list.html, /data-tag="meeting"/);
    assert.match(list.html, /data-tag="議事録"/);
    const filtered = await get(t, `${w.base}/notes?tag=${encodeURIComponent("議事録")}`, w.ann);
    assert.match(filtered.html, /Minutes/);
    assert.doesNotMatch(filtered.html, /Ideas/);
    assert.match(filtered.html, /Notes tagged “議事録”/);

    let note = await get(t, a.location!, w.bo);
    assert.match(note.html, /<h1>Day 1<\/h1>/, "the body is Markdown");
    assert.doesNotMatch(note.html, /Edit note/, "Bo is not the author");

    const badTags = await send(
      t,
      a.location!,
      form(w.ann, { title: "Minutes", body: "", tags: "x".repeat(51) }),
    );
    assert.equal(badTags.status, 400);
    assert.match(badTags.html, /at most 20 tags/);
    const edited = await send(
      t,
      a.location!,
      form(w.ann, { title: "Minutes v2", body: "done", tags: "final", pinned: "on" }),
    );
    assert.equal(edited.status, 303);
    assert.equal(edited.location, a.location);
    note = await get(t, a.location!, w.ann);
    assert.match(note.html, /<h1>Minutes v2<\/h1>/);
    assert.match(note.html, /data-tag="final"/);
    assert.doesNotMatch(note.html, /data-tag="meeting"/);

    const refused = await send(t, `${a.location}/delete`, form(w.bo, {}));
    assert.equal(refused.status, 403);
    const removed = await send(t, `${a.location}/delete`, form(w.ann, {}));
    assert.equal(removed.status, 303);
    assert.match(removed.location!, new RegExp(`^${w.base}/notes\\?deleted=note-\\d+$`));
    assert.equal((await get(t, a.location!, w.ann)).status, 404);
  } finally {
    await t.close();
  }
});

Deno.test("files are uploaded, listed newest first with size and uploader, and deleted", async () => {
  const t = await testApp();
  try {
    const w = await world(t);
    const first = await send(
      t,
      `${w.base}/files`,
      multipart(w.ann, {}, { name: "a.txt", bytes: new TextEncoder().encode("x".repeat(2048)) }),
    );
    assert.equal(first.status, 303);
    assert.equal(first.location, `${w.base}/files`);
    t.clock.advance(1000);
    const second = await send(
      t,
      `${w.base}/files`,
      multipart(w.bo, {}, { name: "報告.png", bytes: PNG }),
    );
    assert.equal(second.status, 303);

    const page = await get(t, `${w.base}/files`, w.ann);
    assert.ok(page.html.indexOf("報告.png") < page.html.indexOf("a.txt"), "newest first");
    assert.match(page.html, /2\.0 kB|2 kB/);
    assert.match(page.html, /<td>bo<\/td>/);
    assert.match(page.html, /href="\/api\/files\/\d+\/download"/);

    const missing = await send(t, `${w.base}/files`, multipart(w.ann, {}));
    assert.equal(missing.status, 400);
    assert.match(missing.html, /Choose a file to upload\./);
    const bad = await send(
      t,
      `${w.base}/files`,
      multipart(w.ann, {}, { name: "x.html", bytes: new TextEncoder().encode("<b>") }),
    );
    assert.equal(bad.status, 415);

    const id = page.html.match(/data-file="(\d+)"/)![1];
    const refused = await send(t, `${w.base}/files/${id}/delete`, form(w.cy, {}));
    assert.equal(refused.status, 403);
    const removed = await send(t, `${w.base}/files/${id}/delete`, form(w.bo, {}));
    assert.equal(removed.status, 303);
    const after = await get(t, `${w.base}/files`, w.ann);
    assert.doesNotMatch(after.html, /報告\.png/);
    assert.match(after.html, /a\.txt/);
  } finally {
    await t.close();
  }
});

Deno.test("an upload larger than the limit is stopped with a 413 page", async () => {
  const t = await testApp({ env: { MAX_UPLOAD_MB: "1" } });
  try {
    const w = await world(t);
    const big = new Uint8Array(1024 * 1024 + 100 * 1024).fill(0x61);
    const res = await send(
      t,
      `${w.base}/files`,
      multipart(w.ann, {}, { name: "big.txt", bytes: big }),
    );
    assert.equal(res.status, 413);
    assert.match(res.html, /The file is too large \(at most 1 MiB\)\./);
    const page = await get(t, `${w.base}/files`, w.ann);
    assert.match(page.html, /No files yet\./);
  } finally {
    await t.close();
  }
});

Deno.test("the activity page lists entries newest first, translated, with links to their subjects", async () => {
  const t = await testApp();
  try {
    const w = await world(t);
    const thread = await postThread(t, w.ann, w.base, { title: "Plan <b>", body: "" });
    const note = await send(t, `${w.base}/notes`, form(w.bo, { title: "Memo", body: "" }));
    await send(t, `${thread}/comments`, form(w.bo, { body: "ok" }));

    const page = await get(t, `${w.base}/activity`, w.ann);
    assert.equal(page.status, 200);
    const rows = [...page.html.matchAll(/data-activity="(\w+)"/g)].map((m) => m[1]);
    assert.deepEqual(rows, ["comment_added", "note_created", "board_posted"]);
    assert.match(page.html, /Posted a thread/);
    assert.ok(page.html.includes(`<a href="${thread}">Plan &lt;b&gt;</a>`));
    assert.ok(page.html.includes(`<a href="${note.location}">Memo</a>`));
    const ja = await get(t, `${w.base}/activity`, w.bo);
    assert.match(ja.html, /スレッドを投稿しました/);
    assert.match(ja.html, /ノートを作成しました/);
  } finally {
    await t.close();
  }
});

Deno.test("the board pages its threads, keeping the category", async () => {
  const t = await testApp();
  try {
    const w = await world(t);
    for (let i = 1; i <= 21; i++) {
      await postThread(t, w.ann, w.base, { title: `Thread ${i}`, category: "idea", body: "" });
    }
    const first = await get(t, `${w.base}/board?category=idea`, w.ann);
    assert.equal([...first.html.matchAll(/data-thread=/g)].length, 20);
    assert.match(first.html, /Page 1 of 2/);
    assert.ok(first.html.includes(`href="${w.base}/board?category=idea&amp;page=2"`));
    const second = await get(t, `${w.base}/board?category=idea&page=2`, w.ann);
    assert.equal([...second.html.matchAll(/data-thread=/g)].length, 1);
    assert.match(second.html, /rel="prev"/);
  } finally {
    await t.close();
  }
});

Deno.test("user text is escaped everywhere and Markdown keeps no raw HTML or script links", async () => {
  const t = await testApp();
  try {
    const w = await world(t);
    const evil = `"><script>alert(1)</script><img src=x onerror=alert(1)>`;
    const body = `${evil}\n\n[x](javascript:alert(1)) <a href="javascript:alert(1)">y</a>`;
    const thread = await postThread(t, w.ann, w.base, { title: evil, body });
    await send(t, `${thread}/comments`, form(w.ann, { body }));
    const note = await send(
      t,
      `${w.base}/notes`,
      form(w.ann, { title: evil, body, tags: "<script>alert(1)</script>" }),
    );
    const uploaded = await send(
      t,
      `${w.base}/files`,
      multipart(w.ann, {}, { name: "<script>alert(1)</script>.txt", bytes: PNG.slice(1, 4) }),
    );
    assert.equal(uploaded.status, 303);
    for (
      const path of [
        `${w.base}/board`,
        thread,
        `${w.base}/notes`,
        note.location!,
        `${w.base}/files`,
        `${w.base}/activity`,
      ]
    ) {
      const page = await get(t, path, w.ann);
      assert.equal(page.status, 200, path);
      assert.doesNotMatch(
        page.html,
        /<script>alert|<img|onerror=alert\(1\)>|href="javascript:/i,
        path,
      );
      assert.match(page.html, /&lt;script&gt;alert\(1\)/, path);
      assert.doesNotMatch(page.html, /style="/, path);
      // The lists and a thread follow the project stream (live.js).
      const live = path !== note.location && !path.endsWith("/activity");
      assert.deepEqual(
        [...page.html.matchAll(/<script[^>]*>/g)].map((m) => m[0]),
        [
          '<script type="module" src="/static/app.js">',
          '<script type="module" src="/static/notify.js">',
          // The reader never chose a time zone: the browser's is proposed.
          '<script type="module" src="/static/time_zone.js">',
          '<script type="module" src="/static/markdown_preview.js">',
          ...(live ? ['<script type="module" src="/static/live.js">'] : []),
        ],
        path,
      );
    }
  } finally {
    await t.close();
  }
});
