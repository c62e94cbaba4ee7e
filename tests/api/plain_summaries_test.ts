/**
 * One-line summaries of Markdown through the API: a mention's notification text and search
 * snippets are plain text (no `**`, `#` or link syntax), mentions read as names, and a
 * snippet stays escaped with only the match in `<mark>`.
 */
import assert from "node:assert/strict";
import { testApp } from "../helpers/app.ts";
import {
  addMember,
  api,
  createNote,
  createProject,
  expectJson,
  notificationsOf,
  signUp,
} from "../helpers/api.ts";

async function setup() {
  const t = await testApp();
  await signUp(t, "root@example.com");
  const ann = await signUp(t, "ann@example.com", { displayName: "Ann Archer" });
  const bob = await signUp(t, "bob@example.com", { displayName: "Bob Baker" });
  const project = await createProject(t, ann.cookie, "Apollo");
  await addMember(t, ann.cookie, project.id, "bob@example.com", "member");
  return { t, ann, bob, project };
}

async function say(
  t: Awaited<ReturnType<typeof setup>>["t"],
  cookie: string,
  p: number,
  text: string,
) {
  return expectJson(
    await api(t, "POST", `/api/projects/${p}/chat/messages`, { cookie, body: { text } }),
    201,
  ).message;
}

async function search(t: Awaited<ReturnType<typeof setup>>["t"], cookie: string, path: string) {
  return expectJson(await api(t, "GET", path, { cookie }), 200);
}

Deno.test("a mention (in bold too) notifies with the message's plain text, mentions as names", async () => {
  const { t, ann, bob, project } = await setup();
  try {
    await say(
      t,
      ann.cookie,
      project.id,
      "# Heads up\n\n**@bob@example.com** see [the plan](https://example.com/plan) _today_",
    );
    const notes = await notificationsOf(t, bob.cookie);
    const mention = notes.items.find((n: { kind: string }) => n.kind === "mention");
    assert.ok(mention);
    assert.equal(mention.text, "Heads up @Bob Baker see the plan today");
  } finally {
    await t.close();
  }
});

Deno.test("a mention's notification text is cut to 200 characters with an ellipsis", async () => {
  const { t, ann, bob, project } = await setup();
  try {
    await say(t, ann.cookie, project.id, `@bob@example.com ${"**word** ".repeat(60)}`);
    const mention = (await notificationsOf(t, bob.cookie)).items[0];
    assert.equal([...mention.text].length, 200);
    assert.ok(mention.text.startsWith("@Bob Baker word word"));
    assert.ok(mention.text.endsWith("…"));
    assert.doesNotMatch(mention.text, /\*\*/);
  } finally {
    await t.close();
  }
});

Deno.test("search snippets are plain text with the match marked and user markup escaped", async () => {
  const { t, ann, project } = await setup();
  try {
    const p = project.id;
    const note = await createNote(t, ann.cookie, p, {
      title: "Quarterly plan",
      body: "## Goals\n\nGrow the **marketing** list via [the site](https://example.com).\n\n" +
        "<img src=x onerror=alert(1)> *marketing*",
    });
    const page = await search(t, ann.cookie, `/api/projects/${p}/search?q=marketing`);
    assert.equal(page.items[0].id, note.id);
    const snippet: string = page.items[0].snippet;
    assert.match(snippet, /Grow the <mark>marketing<\/mark> list via the site\./);
    assert.match(snippet, /&#60;img src=x onerror=alert\(1\)&#62; <mark>marketing<\/mark>$/);
    assert.doesNotMatch(snippet, /\*\*|##|\]\(|<img/);
    // Only <mark> is markup.
    assert.deepEqual([...new Set(snippet.match(/<\/?[a-z]+/g))].sort(), ["</mark", "<mark"]);
  } finally {
    await t.close();
  }
});

Deno.test("search: a chat hit's title and snippet read as text, mentions as names, short terms marked", async () => {
  const { t, ann, bob, project } = await setup();
  try {
    const p = project.id;
    const message = await say(t, ann.cookie, p, "**Launch** at noon, @bob@example.com");
    const page = await search(t, bob.cookie, `/api/projects/${p}/search?q=noon`);
    assert.equal(page.items[0].id, message.id);
    assert.equal(page.items[0].title, "Launch at noon, @Bob Baker");
    assert.equal(page.items[0].snippet, "Launch at <mark>noon</mark>, @Bob Baker");
    // Across projects too.
    const everywhere = await search(t, bob.cookie, `/api/search?q=launch`);
    assert.equal(everywhere.items[0].snippet, "<mark>Launch</mark> at noon, @Bob Baker");
    // A two-character term (the substring path).
    await say(t, ann.cookie, p, "明日の **会議** は十時");
    const short = await search(
      t,
      ann.cookie,
      `/api/projects/${p}/search?q=${encodeURIComponent("会議")}`,
    );
    assert.equal(short.items[0].snippet, "明日の <mark>会議</mark> は十時");
  } finally {
    await t.close();
  }
});

Deno.test("search: a match only in the title shows the title marked", async () => {
  const { t, ann, project } = await setup();
  try {
    const p = project.id;
    await createNote(t, ann.cookie, p, { title: "Zebra crossing", body: "**nothing** here" });
    const page = await search(t, ann.cookie, `/api/projects/${p}/search?q=zebra`);
    assert.equal(page.items[0].snippet, "<mark>Zebra</mark> crossing");
  } finally {
    await t.close();
  }
});

Deno.test("search: a snippet's cut never splits a character", async () => {
  const { t, ann, project } = await setup();
  try {
    const p = project.id;
    await createNote(t, ann.cookie, p, {
      title: "Faces",
      body: `${"😀".repeat(40)} marketing ${"😀".repeat(40)}`,
    });
    const page = await search(t, ann.cookie, `/api/projects/${p}/search?q=marketing`);
    const snippet: string = page.items[0].snippet;
    assert.match(snippet, /^…😀+ <mark>marketing<\/mark> 😀+…$/u);
    assert.ok(snippet.isWellFormed(), "no lone surrogate");
  } finally {
    await t.close();
  }
});
