/**
 * The chat and to-do pages, in process: who sees them (members in English and Japanese, the
 * 404 page for anyone else, the login redirect when logged out), the forms that work without
 * JavaScript (send, attach, edit, delete; create, move, complete, edit, upload), the
 * fragments `chat.js` and `kanban.js` fetch, and that user text is escaped.
 */
import assert from "node:assert/strict";
import { testApp } from "../helpers/app.ts";
import { api, expectJson, getJson, type Json, notificationsOf, PNG_BYTES } from "../helpers/api.ts";
import { sweepExpired } from "../helpers/trash.ts";
import { page, post, withTeam } from "./page_requests.ts";

type T = Awaited<ReturnType<typeof testApp>>;

/** A multipart form post with one file. */
function postMultipart(
  t: T,
  cookie: string,
  path: string,
  fields: Record<string, string>,
  file: { name: string; bytes: Uint8Array } | null,
) {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  if (file) form.append("file", new File([file.bytes as BlobPart], file.name));
  else form.append("file", new File([], ""));
  return page(t, cookie, path, { method: "POST", body: form });
}

async function messages(t: T, cookie: string, projectId: number): Promise<Json[]> {
  return (await getJson(t, cookie, `/api/projects/${projectId}/chat/messages?limit=200`)).items;
}

async function items(t: T, cookie: string, projectId: number): Promise<Json[]> {
  return (await getJson(t, cookie, `/api/projects/${projectId}/todos/items`)).items;
}

/**
 * The name of the board's control of `itemId` whose `aria-labelledby` ends with `words`
 * (`w-right`, `w-complete`, ...): the texts of its ids, joined by spaces, as a browser names it.
 */
function controlName(html: string, itemId: number, words: string): string {
  const ids = new RegExp(`aria-labelledby="((?:w0-\\w+ )?ct-${itemId} ${words})"`).exec(html)?.[1];
  assert.ok(ids, `a control of item ${itemId} named by ${words}`);
  return ids.split(" ").map((id) => {
    const text = new RegExp(`id="${id}"[^>]*>([^<]*)<`).exec(html)?.[1];
    assert.ok(text, `the element #${id}`);
    return text;
  }).join(" ");
}

async function columns(t: T, cookie: string, projectId: number): Promise<Json[]> {
  return (await getJson(t, cookie, `/api/projects/${projectId}/todos/columns`)).items;
}

async function createItem(t: T, cookie: string, projectId: number, body: Record<string, unknown>) {
  return expectJson(
    await api(t, "POST", `/api/projects/${projectId}/todos/items`, { cookie, body }),
    201,
  ).item;
}

Deno.test("chat and to-do pages render for members in English and Japanese", async () => {
  await withTeam(async (t, { owner, alice, project }) => {
    const ja = await api(t, "PATCH", "/api/users/me", {
      cookie: owner.cookie,
      body: { locale: "ja" },
    });
    assert.equal(ja.status, 200);
    const item = await createItem(t, alice.cookie, project.id, { title: "Write the report" });
    await api(t, "POST", `/api/projects/${project.id}/chat/messages`, {
      cookie: alice.cookie,
      body: { text: "Hello team" },
    });

    const chatEn = await page(t, alice.cookie, `/projects/${project.id}/chat`);
    assert.equal(chatEn.status, 200);
    assert.match(chatEn.headers.get("content-security-policy") ?? "", /default-src 'self'/);
    assert.match(chatEn.html, /<html lang="en"/);
    assert.match(chatEn.html, /<h1>Chat<\/h1>/);
    assert.match(chatEn.html, /<script type="module" src="\/static\/chat.js"><\/script>/);
    assert.match(chatEn.html, /Hello team/);
    assert.match(chatEn.html, /<strong class="chat-author">alice<\/strong>/);
    assert.match(chatEn.html, /aria-current="page"[^>]*>Chat</);
    // The members for @-completion, without the reader, in a data attribute.
    const members = chatEn.html.match(/data-members="([^"]*)"/)![1]!.replaceAll("&quot;", '"');
    const emails = JSON.parse(members).map((m: Json) => m.email).sort();
    assert.deepEqual(emails, ["bob@example.com", "olga@example.com", "vera@example.com"]);

    const chatJa = await page(t, owner.cookie, `/projects/${project.id}/chat`);
    assert.equal(chatJa.status, 200);
    assert.match(chatJa.html, /<html lang="ja"/);
    assert.match(chatJa.html, /<h1>チャット<\/h1>/);
    assert.match(chatJa.html, />送信</);

    const todosEn = await page(t, alice.cookie, `/projects/${project.id}/todos`);
    assert.equal(todosEn.status, 200);
    assert.match(todosEn.html, /<h1>To-dos<\/h1>/);
    assert.match(todosEn.html, /<script type="module" src="\/static\/kanban.js"><\/script>/);
    for (const name of ["To Do", "In Progress", "Done"]) assert.ok(todosEn.html.includes(name));
    assert.match(todosEn.html, new RegExp(`data-item="${item.id}"`));
    assert.equal(
      controlName(todosEn.html, item.id, "w-right"),
      "Move Write the report to the next column",
    );
    assert.equal(
      controlName(todosEn.html, item.id, "w-complete"),
      "Mark Write the report as complete",
    );

    const todosJa = await page(t, owner.cookie, `/projects/${project.id}/todos`);
    assert.match(todosJa.html, /<h1>ToDoリスト<\/h1>/);
    for (const name of ["未着手", "進行中", "完了"]) assert.ok(todosJa.html.includes(name), name);
    assert.equal(controlName(todosJa.html, item.id, "w-right"), "Write the report を次の列へ移動");
    assert.equal(controlName(todosJa.html, item.id, "w-complete"), "Write the report を完了にする");

    const detail = await page(t, owner.cookie, `/projects/${project.id}/todos/${item.id}`);
    assert.equal(detail.status, 200);
    assert.match(detail.html, /<h1>Write the report<\/h1>/);
    assert.match(detail.html, /ToDo を編集/);
  });
});

Deno.test("non-members get the 404 page and logged-out visitors the login redirect", async () => {
  await withTeam(async (t, { alice, outsider, project }) => {
    const item = await createItem(t, alice.cookie, project.id, { title: "Secret" });
    const sent = expectJson(
      await api(t, "POST", `/api/projects/${project.id}/chat/messages`, {
        cookie: alice.cookie,
        body: { text: "secret words" },
      }),
      201,
    ).message;
    const paths = [
      `/projects/${project.id}/chat`,
      `/projects/${project.id}/chat/fragment`,
      `/projects/${project.id}/chat/fragment/${sent.id}`,
      `/projects/${project.id}/todos`,
      `/projects/${project.id}/todos?fragment=1`,
      `/projects/${project.id}/todos/${item.id}`,
      `/projects/999/chat`,
      `/projects/999/todos`,
    ];
    for (const path of paths) {
      const res = await page(t, outsider.cookie, path);
      assert.equal(res.status, 404, path);
      assert.doesNotMatch(res.html, /Secret|secret words/, path);
      assert.match(res.html, /Page not found/, path);
    }
    // Writes by an outsider are 404 too, and change nothing.
    const refused = [
      post(t, outsider.cookie, `/projects/${project.id}/chat`, { text: "hi" }),
      post(t, outsider.cookie, `/projects/${project.id}/chat/${sent.id}/delete`, {}),
      post(t, outsider.cookie, `/projects/${project.id}/todos`, { title: "x" }),
      post(t, outsider.cookie, `/projects/${project.id}/todos/${item.id}/toggle`, {}),
    ];
    for (const res of await Promise.all(refused)) assert.equal(res.status, 404);
    assert.equal((await messages(t, alice.cookie, project.id)).length, 1);
    assert.equal((await items(t, alice.cookie, project.id))[0].completed, false);
    // A to-do of this project seen through another project's path is not found either.
    const other = expectJson(
      await api(t, "POST", "/api/projects", { cookie: alice.cookie, body: { name: "Other" } }),
      201,
    ).project;
    const crossed = await page(t, alice.cookie, `/projects/${other.id}/todos/${item.id}`);
    assert.equal(crossed.status, 404);

    for (const path of paths.slice(0, 6)) {
      const res = await t.app.request(path);
      assert.equal(res.status, 302, path);
      assert.equal(res.headers.get("location"), `/login?next=${encodeURIComponent(path)}`);
      await res.body?.cancel();
    }
  });
});

Deno.test("the chat form sends without JavaScript, renders Markdown, escapes HTML, mentions", async () => {
  await withTeam(async (t, { alice, bob, viewer, project }) => {
    const text = "**bold** <script>alert(1)</script> [x](javascript:alert(2)) @bob@example.com";
    const res = await post(t, alice.cookie, `/projects/${project.id}/chat`, { text });
    assert.equal(res.status, 303);
    const [message] = await messages(t, alice.cookie, project.id);
    assert.equal(message.text, text);
    assert.equal(
      res.headers.get("location"),
      `/projects/${project.id}/chat#message-${message.id}`,
    );
    const html = (await page(t, bob.cookie, `/projects/${project.id}/chat`)).html;
    assert.match(html, /<strong>bold<\/strong>/);
    assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.doesNotMatch(html, /<script>alert/);
    assert.doesNotMatch(html, /href="javascript:/);
    assert.match(html, new RegExp(`id="message-${message.id}"`));
    const mention = (await notificationsOf(t, bob.cookie)).items[0];
    assert.equal(mention.kind, "mention");

    // A blank message is refused with the form's message and nothing is stored.
    const blank = await post(t, alice.cookie, `/projects/${project.id}/chat`, { text: "   " });
    assert.equal(blank.status, 400);
    assert.match(blank.html, /role="alert"/);
    assert.equal((await messages(t, alice.cookie, project.id)).length, 1);

    // A viewer reads the chat but has no form, and a post is refused.
    const read = await page(t, viewer.cookie, `/projects/${project.id}/chat`);
    assert.equal(read.status, 200);
    assert.doesNotMatch(read.html, /data-chat-send/);
    assert.match(read.html, /You can read this chat but not write in it\./);
    const refused = await post(t, viewer.cookie, `/projects/${project.id}/chat`, { text: "hi" });
    assert.equal(refused.status, 403);
    assert.equal((await messages(t, alice.cookie, project.id)).length, 1);
  });
});

Deno.test("a chat message can carry an attachment; a refused type stores nothing", async () => {
  await withTeam(async (t, { alice, bob, project }) => {
    const path = `/projects/${project.id}/chat`;
    const res = await postMultipart(t, alice.cookie, path, { text: "the chart" }, {
      name: "chart.png",
      bytes: PNG_BYTES,
    });
    assert.equal(res.status, 303, res.html);
    const [message] = await messages(t, alice.cookie, project.id);
    assert.equal(message.attachments.length, 1);
    const file = message.attachments[0];
    assert.equal(file.name, "chart.png");
    assert.equal(file.source, "attachment");
    const html = (await page(t, bob.cookie, path)).html;
    assert.match(html, new RegExp(`href="/api/files/${file.id}/download"[^>]*>chart.png</a>`));
    // Attachments notify nobody.
    const kinds = (await notificationsOf(t, bob.cookie)).items.map((n: Json) => n.kind);
    assert.deepEqual(kinds, ["member_added"]);

    const exe = await postMultipart(t, alice.cookie, path, { text: "run me" }, {
      name: "tool.exe",
      bytes: new Uint8Array([0x4d, 0x5a, 0, 0]),
    });
    assert.equal(exe.status, 415);
    assert.match(exe.html, /This file type is not allowed/);
    // The text typed survives the refusal.
    assert.match(exe.html, /run me<\/textarea>/);
    // A PNG name over other bytes is refused after reading: no message, no file.
    const fake = await postMultipart(t, alice.cookie, path, { text: "fake" }, {
      name: "fake.png",
      bytes: new TextEncoder().encode("not a png"),
    });
    assert.equal(fake.status, 415);
    assert.equal((await messages(t, alice.cookie, project.id)).length, 1);
    const files = await getJson(t, alice.cookie, `/api/projects/${project.id}/files`);
    assert.equal(files.total, 1);
    // A message with an empty file field is just a message.
    const plain = await postMultipart(t, alice.cookie, path, { text: "no file" }, null);
    assert.equal(plain.status, 303);
    assert.equal((await messages(t, alice.cookie, project.id)).length, 2);
  });
});

Deno.test("authors edit and delete their messages with forms; others get no buttons", async () => {
  await withTeam(async (t, { alice, bob, owner, project }) => {
    const sent = expectJson(
      await api(t, "POST", `/api/projects/${project.id}/chat/messages`, {
        cookie: alice.cookie,
        body: { text: "first draft" },
      }),
      201,
    ).message;
    const base = `/projects/${project.id}/chat/${sent.id}`;
    const mine = (await page(t, alice.cookie, `/projects/${project.id}/chat`)).html;
    assert.match(mine, new RegExp(`data-chat-edit="${sent.id}"`));
    assert.match(mine, new RegExp(`data-chat-delete="${sent.id}"`));
    const theirs = (await page(t, bob.cookie, `/projects/${project.id}/chat`)).html;
    assert.doesNotMatch(theirs, /data-chat-edit=/);
    // The owner may moderate.
    const owners = (await page(t, owner.cookie, `/projects/${project.id}/chat`)).html;
    assert.match(owners, new RegExp(`data-chat-delete="${sent.id}"`));

    const forbidden = await post(t, bob.cookie, base, { text: "hijacked" });
    assert.equal(forbidden.status, 403);
    const edited = await post(t, alice.cookie, base, { text: "final *text*" });
    assert.equal(edited.status, 303);
    assert.equal((await messages(t, alice.cookie, project.id))[0].text, "final *text*");
    const fragment = await page(t, bob.cookie, `/projects/${project.id}/chat/fragment/${sent.id}`);
    assert.equal(fragment.status, 200);
    assert.match(fragment.html, /^<li class="chat-message"/);
    assert.match(fragment.html, /<em>text<\/em>/);
    assert.doesNotMatch(fragment.html, /<html/);

    const removed = await post(t, alice.cookie, `${base}/delete`, {});
    assert.equal(removed.status, 303);
    assert.equal((await messages(t, alice.cookie, project.id)).length, 0);
    const gone = await page(t, bob.cookie, `/projects/${project.id}/chat/fragment/${sent.id}`);
    assert.equal(gone.status, 404);
  });
});

Deno.test("the chat page shows the latest 50 messages; older ones come by link or fragment", async () => {
  await withTeam(async (t, { alice, project }) => {
    for (let i = 1; i <= 55; i++) {
      const res = await api(t, "POST", `/api/projects/${project.id}/chat/messages`, {
        cookie: alice.cookie,
        body: { text: `message number ${i}` },
      });
      assert.equal(res.status, 201);
    }
    const all = await messages(t, alice.cookie, project.id);
    const html = (await page(t, alice.cookie, `/projects/${project.id}/chat`)).html;
    assert.equal(html.match(/<li class="chat-message/g)?.length, 50);
    assert.doesNotMatch(html, /message number 5</);
    assert.match(html, /message number 6</);
    assert.match(html, /data-has-more="true"/);
    // In order, oldest first.
    assert.ok(html.indexOf("message number 6<") < html.indexOf("message number 55<"));
    const oldest = all[5].id;
    assert.match(html, new RegExp(`href="/projects/${project.id}/chat\\?before=${oldest}"`));

    const older = await page(
      t,
      alice.cookie,
      `/projects/${project.id}/chat/fragment?before=${oldest}`,
    );
    assert.equal(older.status, 200);
    assert.equal(older.headers.get("x-has-more"), "false");
    assert.equal(older.html.match(/<li class="chat-message/g)?.length, 5);
    assert.ok(older.html.indexOf("message number 1<") < older.html.indexOf("message number 5<"));

    // Without JavaScript the older page is a link, with a way back.
    const before = await page(t, alice.cookie, `/projects/${project.id}/chat?before=${oldest}`);
    assert.match(before.html, /message number 1</);
    assert.match(before.html, /data-live="false"/);
    assert.match(before.html, /Back to the latest messages/);
  });
});

Deno.test("the kanban create form, move buttons and complete toggle work without JavaScript", async () => {
  await withTeam(async (t, { alice, bob, project }) => {
    const board = `/projects/${project.id}/todos`;
    const created = await post(t, alice.cookie, board, {
      title: "Draft <the> plan",
      assigneeId: String(bob.user.id),
      priority: "high",
      startDate: "2026-11-20",
      dueDate: "2026-11-30",
      tags: "planning, q4",
      milestoneId: "",
      description: "Some *details*",
    });
    assert.equal(created.status, 303, created.html);
    const [item] = await items(t, alice.cookie, project.id);
    assert.equal(
      created.headers.get("location"),
      `${board}?created=item-${item.id}#item-${item.id}`,
    );
    assert.equal(item.title, "Draft <the> plan");
    assert.equal(item.assigneeId, bob.user.id);
    assert.equal(item.priority, "high");
    assert.equal(item.dueDate, "2026-11-30");
    assert.deepEqual(item.tags, ["planning", "q4"]);
    assert.equal(item.description, "Some *details*");
    const second = await createItem(t, alice.cookie, project.id, { title: "Second" });
    const cols = await columns(t, alice.cookie, project.id);

    const html = (await page(t, alice.cookie, board)).html;
    assert.match(html, /Draft &lt;the&gt; plan/);
    assert.match(html, /Assignee: bob/);
    assert.match(html, /class="tag priority-high" title="Priority: High">High</);
    assert.match(html, /#planning/);
    assert.match(html, /data-due="2026-11-30"/);
    assert.match(html, /Due 30 Nov 2026/);

    // The first card moves down below the second, then right into In Progress.
    const down = await post(t, alice.cookie, `${board}/${item.id}/move`, {
      columnId: String(cols[0].id),
      orderIndex: "1",
    });
    assert.equal(down.status, 303);
    assert.deepEqual((await items(t, alice.cookie, project.id)).map((i: Json) => i.id), [
      second.id,
      item.id,
    ]);
    const right = await post(t, alice.cookie, `${board}/${item.id}/move`, {
      columnId: String(cols[1].id),
      orderIndex: "0",
    });
    assert.equal(right.status, 303);
    const moved = (await items(t, alice.cookie, project.id)).find((i: Json) => i.id === item.id);
    assert.equal(moved.columnId, cols[1].id);
    // The page's own buttons carry those targets (`to`: column id and index), and a button
    // sends its own: ← takes it back to the end of To Do.
    const after = (await page(t, alice.cookie, board)).html;
    const card = after.slice(after.indexOf(`data-item="${item.id}"`));
    assert.match(
      card,
      new RegExp(`name="to" value="${cols[0].id}\\.1" aria-labelledby="w0-left ct-${item.id} `),
    );
    const left = await post(t, alice.cookie, `${board}/${item.id}/move`, {
      to: `${cols[0].id}.1`,
    });
    assert.equal(left.status, 303);
    assert.equal(left.headers.get("location"), `${board}#item-${item.id}`);
    assert.deepEqual((await items(t, alice.cookie, project.id)).map((i: Json) => i.id), [
      second.id,
      item.id,
    ]);
    // A malformed target is refused and moves nothing.
    const malformed = await post(t, alice.cookie, `${board}/${item.id}/move`, { to: "1.x" });
    assert.equal(malformed.status, 400);
    assert.deepEqual((await items(t, alice.cookie, project.id)).map((i: Json) => i.id), [
      second.id,
      item.id,
    ]);

    const toggled = await post(t, alice.cookie, `${board}/${item.id}/toggle`, {});
    assert.equal(toggled.status, 303);
    assert.equal((await items(t, alice.cookie, project.id))[1].completed, true);
    const back = await post(t, alice.cookie, `${board}/${item.id}/toggle`, { from: "item" });
    assert.equal(back.headers.get("location"), `${board}/${item.id}`);

    // A refused form keeps what was typed and stores nothing.
    const bad = await post(t, alice.cookie, board, {
      title: "  ",
      dueDate: "30/11/2026",
      tags: "x",
    });
    assert.equal(bad.status, 400);
    assert.match(bad.html, /This field is required\./);
    assert.match(bad.html, /Use a date like 2026-11-22\./);
    const span = await post(t, alice.cookie, board, {
      title: "Backwards",
      startDate: "2026-12-01",
      dueDate: "2026-11-01",
    });
    assert.equal(span.status, 400);
    assert.match(span.html, /The due date cannot be before the start date\./);
    assert.match(span.html, /value="Backwards"/);
    assert.equal((await items(t, alice.cookie, project.id)).length, 2);
  });
});

Deno.test("the board fragment is the board alone; viewers get no buttons and cannot move", async () => {
  await withTeam(async (t, { alice, viewer, project }) => {
    const item = await createItem(t, alice.cookie, project.id, {
      title: `<img src=x onerror="alert(1)">`,
      tags: ["<b>"],
    });
    const fragment = await page(t, alice.cookie, `/projects/${project.id}/todos?fragment=1`);
    assert.equal(fragment.status, 200);
    assert.match(fragment.html, /^<div class="kanban" data-kanban-board/);
    assert.doesNotMatch(fragment.html, /<html|<nav/);
    assert.doesNotMatch(fragment.html, /<img/);
    assert.doesNotMatch(fragment.html, /<b>/);
    assert.match(fragment.html, /&lt;img src=x onerror=&quot;alert\(1\)&quot;&gt;/);

    const read = await page(t, viewer.cookie, `/projects/${project.id}/todos`);
    assert.equal(read.status, 200);
    assert.match(read.html, new RegExp(`data-item="${item.id}"`));
    assert.doesNotMatch(
      read.html,
      /card-moves|card-toggle|data-kanban-words|data-todo-create|draggable|data-drag-handle/,
    );
    const cols = await columns(t, alice.cookie, project.id);
    const refused = await post(t, viewer.cookie, `/projects/${project.id}/todos/${item.id}/move`, {
      columnId: String(cols[1].id),
      orderIndex: "0",
    });
    assert.equal(refused.status, 403);
    assert.equal((await items(t, alice.cookie, project.id))[0].columnId, cols[0].id);
  });
});

Deno.test("the item page edits every field and uploads attachments with download links", async () => {
  await withTeam(async (t, { alice, bob, owner, project }) => {
    const milestone = await t.app.services.milestones.create(
      { id: alice.user.id, role: "member" },
      project.id,
      { title: "Beta" },
    );
    const item = await createItem(t, alice.cookie, project.id, {
      title: "Old title",
      assigneeId: bob.user.id,
      tags: ["a"],
      dueDate: "2026-12-24",
    });
    const path = `/projects/${project.id}/todos/${item.id}`;
    const form = (await page(t, alice.cookie, path)).html;
    assert.match(form, /value="Old title"/);
    assert.match(form, new RegExp(`<option value="${bob.user.id}" selected>`));
    assert.match(form, /name="dueDate" value="2026-12-24"/);
    assert.match(form, /<option value="[0-9]+" ?>Beta<\/option>/);

    const saved = await post(t, alice.cookie, path, {
      title: "New title",
      description: "",
      assigneeId: String(owner.user.id),
      priority: "low",
      startDate: "2026-12-01",
      dueDate: "",
      tags: "",
      milestoneId: String(milestone.id),
    });
    assert.equal(saved.status, 303, saved.html);
    assert.equal(saved.headers.get("location"), `${path}?saved=item-${item.id}`);
    const updated =
      (await getJson(t, alice.cookie, `/api/projects/${project.id}/todos/items/${item.id}`))
        .item;
    assert.equal(updated.title, "New title");
    assert.equal(updated.assigneeId, owner.user.id);
    assert.equal(updated.priority, "low");
    assert.equal(updated.startDate, "2026-12-01");
    assert.equal(updated.dueDate, null);
    assert.deepEqual(updated.tags, []);
    assert.equal(updated.milestoneId, milestone.id);

    // A stranger as assignee is refused.
    const stranger = await post(t, alice.cookie, path, {
      title: "x",
      assigneeId: "99999",
      priority: "normal",
    });
    assert.equal(stranger.status, 400);

    const upload = await postMultipart(t, alice.cookie, `${path}/attachments`, {}, {
      name: "スクリーン.png",
      bytes: PNG_BYTES,
    });
    assert.equal(upload.status, 303, upload.html);
    const shown = (await page(t, bob.cookie, path)).html;
    const { attachments } = await getJson(
      t,
      alice.cookie,
      `/api/projects/${project.id}/todos/items/${item.id}`,
    );
    assert.equal(attachments.length, 1);
    assert.match(
      shown,
      new RegExp(`href="/api/files/${attachments[0].id}/download"[^>]*>スクリーン.png</a>`),
    );
    const missing = await postMultipart(t, alice.cookie, `${path}/attachments`, {}, null);
    assert.equal(missing.status, 400);
    assert.match(missing.html, /Choose a file to upload\./);
    const refused = await postMultipart(t, alice.cookie, `${path}/attachments`, {}, {
      name: "x.exe",
      bytes: new Uint8Array([1, 2, 3]),
    });
    assert.equal(refused.status, 415);
    // The reason once, next to the field; the page's alert only says to correct it.
    assert.equal(refused.html.split("This file type is not allowed").length - 1, 1, refused.html);
    assert.match(refused.html, /Please correct the highlighted fields\./);

    const removed = await post(t, alice.cookie, `${path}/delete`, {});
    assert.equal(removed.status, 303);
    assert.equal((await items(t, alice.cookie, project.id)).length, 0);
    assert.equal((await page(t, alice.cookie, path)).status, 404);
  });
});

Deno.test("a file sent with the chat form is the message's own: deleting the message removes it", async () => {
  await withTeam(async (t, { alice, bob, project }) => {
    const path = `/projects/${project.id}/chat`;
    const res = await postMultipart(t, alice.cookie, path, { text: "the chart" }, {
      name: "chart.png",
      bytes: PNG_BYTES,
    });
    assert.equal(res.status, 303, res.html);
    const [message] = await messages(t, alice.cookie, project.id);
    const file = message.attachments[0];
    // Bob links it to his to-do, deletes that: the file is not his to remove.
    const item = await createItem(t, bob.cookie, project.id, { title: "t", fileIds: [file.id] });
    const gone = await api(t, "DELETE", `/api/projects/${project.id}/todos/items/${item.id}`, {
      cookie: bob.cookie,
    });
    assert.equal(gone.status, 204);
    const files = `/api/projects/${project.id}/files`;
    assert.equal((await getJson(t, alice.cookie, files)).total, 1);
    assert.equal((await post(t, alice.cookie, `${path}/${message.id}/delete`, {})).status, 303);
    assert.equal((await getJson(t, alice.cookie, files)).total, 0);
    // Its bytes stay in the trash until the sweep purges them.
    const stored = () => Array.fromAsync(Deno.readDir(`${t.dataDir}/files/${project.id}`));
    assert.equal((await stored()).length, 1);
    await sweepExpired(t);
    assert.deepEqual(await stored(), []);
  });
});
