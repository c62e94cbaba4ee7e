/**
 * Markdown on the pages: descriptions rendered (project page and list), plain text where a
 * page shows one line (dashboards, notifications), mentions as members' names in a mention
 * span (`mention-me` for the reader), and the Write/Preview boxes in both languages.
 */
import assert from "node:assert/strict";
import { testApp } from "../helpers/app.ts";
import { addMember, api, createProject, expectJson, signUp } from "../helpers/api.ts";
import { page, post } from "./page_requests.ts";

async function setup() {
  const t = await testApp();
  await signUp(t, "root@example.com");
  const ann = await signUp(t, "ann@example.com", { displayName: "Ann Archer" });
  const bob = await signUp(t, "bob@example.com", { displayName: "Bob Baker" });
  const project = await createProject(
    t,
    ann.cookie,
    "Apollo",
    "The **marketing** site, see [the brief](https://example.com/brief)",
  );
  await addMember(t, ann.cookie, project.id, "bob@example.com", "member");
  return { t, ann, bob, project, base: `/projects/${project.id}` };
}

Deno.test("a project's description is rendered on its page and in the list, plain on the dashboard", async () => {
  const { t, ann, base } = await setup();
  try {
    const rendered =
      /<strong>marketing<\/strong> site, see <a href="https:\/\/example.com\/brief" rel="noopener noreferrer nofollow">the brief<\/a>/;
    const projectPage = await page(t, ann.cookie, base);
    assert.equal(projectPage.status, 200);
    const description = projectPage.html.match(/<div class="project-description"[\s\S]*?<\/div>/);
    assert.ok(description);
    assert.match(description[0], rendered);
    assert.doesNotMatch(description[0], /\*\*marketing/);
    const list = await page(t, ann.cookie, "/projects");
    assert.match(list.html, rendered);
    // The personal dashboard lists projects on one line each: the description's plain text.
    const dashboard = await page(t, ann.cookie, "/");
    assert.match(dashboard.html, /<span>The marketing site, see the brief<\/span>/);
    assert.doesNotMatch(dashboard.html, /\*\*marketing|\]\(https/);
  } finally {
    await t.close();
  }
});

Deno.test("the project's description box is a Markdown box with its preview tabs' words", async () => {
  const { t, ann, base } = await setup();
  try {
    const html = (await page(t, ann.cookie, base)).html;
    assert.match(
      html,
      /<div class="markdown-box" data-markdown-box="true" data-tabs="Write or preview"/,
    );
    assert.match(html, /data-write="Write" data-preview="Preview"/);
    assert.match(html, /<script type="module" src="\/static\/markdown_preview.js"><\/script>/);
    await api(t, "PATCH", "/api/users/me", { cookie: ann.cookie, body: { locale: "ja" } });
    const ja = (await page(t, ann.cookie, base)).html;
    assert.match(ja, /data-write="編集" data-preview="プレビュー"/);
  } finally {
    await t.close();
  }
});

Deno.test("chat mentions show the member's name, highlighted, and more strongly for the one mentioned", async () => {
  const { t, ann, bob, project, base } = await setup();
  try {
    await api(t, "POST", `/api/projects/${project.id}/chat/messages`, {
      cookie: ann.cookie,
      body: { text: "**Ship it**, @bob@example.com and @zed@example.com" },
    });
    const asBob = (await page(t, bob.cookie, `${base}/chat`)).html;
    assert.match(
      asBob,
      /<strong>Ship it<\/strong>, <span class="mention mention-me" data-mention="\d+" title="bob@example.com">@Bob Baker<\/span> and @zed@example.com/,
    );
    const asAnn = (await page(t, ann.cookie, `${base}/chat`)).html;
    assert.match(
      asAnn,
      /<span class="mention" data-mention="\d+" title="bob@example.com">@Bob Baker<\/span>/,
    );
    assert.doesNotMatch(asAnn, /mention-me/);
    // The dashboard's latest chat is one plain line, the mention a name.
    const dashboard = (await page(t, ann.cookie, base)).html;
    assert.match(
      dashboard,
      /<strong>Ann Archer<\/strong> Ship it, @Bob Baker and @zed@example.com/,
    );
    // Bob's notification reads the same way, on the notifications page and his dashboard.
    for (const path of ["/notifications", "/"]) {
      const html = (await page(t, bob.cookie, path)).html;
      assert.match(html, /<span>Ship it, @Bob Baker and @zed@example.com<\/span>/, path);
      assert.doesNotMatch(html, /\*\*Ship/, path);
    }
  } finally {
    await t.close();
  }
});

Deno.test("board threads, comments and notes render Markdown with mentions as names", async () => {
  const { t, ann, bob, project, base } = await setup();
  try {
    const p = project.id;
    const thread = expectJson(
      await api(t, "POST", `/api/projects/${p}/board/threads`, {
        cookie: ann.cookie,
        body: { title: "Plan", category: "general", body: "# Plan\n\nOver to @bob@example.com" },
      }),
      201,
    ).thread;
    await api(t, "POST", `/api/projects/${p}/board/threads/${thread.id}/comments`, {
      cookie: bob.cookie,
      body: { body: "Thanks _@ann@example.com_" },
    });
    const note = expectJson(
      await api(t, "POST", `/api/projects/${p}/notes`, {
        cookie: ann.cookie,
        body: { title: "Notes", body: "- asked @bob@example.com\n- <script>alert(1)</script>" },
      }),
      201,
    ).note;
    const board = (await page(t, bob.cookie, `${base}/board/${thread.id}`)).html;
    assert.match(
      board,
      /<h1>Plan<\/h1>\n<p>Over to <span class="mention mention-me"[^>]*>@Bob Baker<\/span>/,
    );
    assert.match(board, /Thanks <em><span class="mention"[^>]*>@Ann Archer<\/span><\/em>/);
    // Bob's Markdown boxes here: the new comment and the edit of his own comment.
    assert.equal((board.match(/data-markdown-box/g) ?? []).length, 2);
    const notePage = (await page(t, ann.cookie, `${base}/notes/${note.id}`)).html;
    assert.match(notePage, /<li>asked <span class="mention"[^>]*>@Bob Baker<\/span><\/li>/);
    assert.match(notePage, /<li>&lt;script&gt;alert\(1\)&lt;\/script&gt;<\/li>/);
  } finally {
    await t.close();
  }
});

Deno.test("creating a milestone shows in the activity as created or updated, not as updated", async () => {
  const { t, ann, base } = await setup();
  try {
    const created = await post(t, ann.cookie, `${base}/milestones`, { title: "Beta" });
    assert.equal(created.status, 303);
    const activity = (await page(t, ann.cookie, `${base}/activity`)).html;
    assert.match(activity, /Created or updated a milestone/);
    assert.doesNotMatch(activity, />Updated a milestone</);
    await api(t, "PATCH", "/api/users/me", { cookie: ann.cookie, body: { locale: "ja" } });
    const ja = (await page(t, ann.cookie, `${base}/activity`)).html;
    assert.match(ja, /マイルストーンを作成または更新しました/);
  } finally {
    await t.close();
  }
});
