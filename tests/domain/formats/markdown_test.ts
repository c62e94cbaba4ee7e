/**
 * Unit tests of the one Markdown set-up: `markdownToText` (the one-line plain text of
 * notifications, snippets and dashboards), `clipText`, and `renderMarkdown` (the pages' HTML):
 * no Markdown marks left in text, hostile input escaped, mentions shown as members' names.
 */
import assert from "node:assert/strict";
import { clipText, markdownToText, type MentionContext } from "../../../domain/formats/markdown.ts";
import { renderMarkdown } from "../../../routes/markdown.ts";

const TEAM: MentionContext = {
  members: [
    { userId: 7, email: "alice@example.com", displayName: "Alice Liddell" },
    { userId: 8, email: "bob@example.com", displayName: "Bob <b>Builder</b>" },
  ],
  viewerId: 8,
};

Deno.test("markdownToText: emphasis, headings, lists, quotes and code read as their words", () => {
  assert.equal(markdownToText("Plan the **marketing** launch"), "Plan the marketing launch");
  assert.equal(markdownToText("# Launch\n\nWe _ship_ ~~soon~~ now"), "Launch We ship soon now");
  assert.equal(markdownToText("- one\n- two\n\n1. three"), "one two three");
  assert.equal(
    markdownToText("> quoted\n\n`code` and\n\n```ts\nlet x = 1;\n```"),
    "quoted code and let x = 1;",
  );
  assert.equal(
    markdownToText("line one\nline two\n\n\n   spaced   out  "),
    "line one line two spaced out",
  );
  assert.equal(markdownToText(""), "");
});

Deno.test("markdownToText: a link shows its words, an image its description, whatever the target", () => {
  assert.equal(markdownToText("See [the docs](https://example.com/docs) now"), "See the docs now");
  assert.equal(markdownToText("[click](javascript:alert(1))"), "click");
  assert.equal(markdownToText("![a chart](https://example.com/c.png)"), "a chart");
  assert.equal(markdownToText("bare https://example.com link"), "bare https://example.com link");
  for (const source of ["**bold**", "# Heading", "[a](https://x.io)", "*x*", "__y__"]) {
    assert.doesNotMatch(markdownToText(source), /[*#_[\]()]/, source);
  }
});

Deno.test("markdownToText: raw HTML stays text (the caller escapes it where it is shown)", () => {
  assert.equal(markdownToText("<script>alert(1)</script> hi"), "<script>alert(1)</script> hi");
  assert.equal(markdownToText("a <b>bold</b> word"), "a <b>bold</b> word");
});

Deno.test("markdownToText: mentions of members read @Display Name, others stay as typed", () => {
  assert.equal(
    markdownToText("Thanks @alice@example.com and @ALICE@Example.com!", TEAM),
    "Thanks @Alice Liddell and @Alice Liddell!",
  );
  assert.equal(markdownToText("**@alice@example.com** please", TEAM), "@Alice Liddell please");
  assert.equal(markdownToText("hi @zed@example.com.", TEAM), "hi @zed@example.com.");
  assert.equal(markdownToText("hi @alice@example.com"), "hi @alice@example.com", "no members");
  // In code the address is code, not a mention.
  assert.equal(markdownToText("`@alice@example.com`", TEAM), "@alice@example.com");
});

Deno.test("clipText: cuts with an ellipsis, never inside a character", () => {
  assert.equal(clipText("short", 10), "short");
  assert.equal(clipText("abcdefghij", 10), "abcdefghij");
  assert.equal(clipText("abcdefghijk", 10), "abcdefghi…");
  assert.equal(clipText("😀😀😀😀", 3), "😀😀…");
});

Deno.test("renderMarkdown: Markdown becomes HTML", () => {
  assert.equal(
    renderMarkdown("the **marketing** plan"),
    "<p>the <strong>marketing</strong> plan</p>\n",
  );
  assert.match(renderMarkdown("# Title"), /<h1>Title<\/h1>/);
  assert.match(
    renderMarkdown("[docs](https://example.com)"),
    /<a href="https:\/\/example.com" rel="noopener noreferrer nofollow">docs<\/a>/,
  );
});

Deno.test("renderMarkdown: raw HTML, script links and event handlers are escaped or dropped", () => {
  const attempts = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    '<a href="javascript:alert(1)">x</a>',
    "[x](javascript:alert(1))",
    "[x](JAVASCRIPT:alert(1))",
    "[x](data:text/html;base64,PHNjcmlwdD4=)",
    "![x](javascript:alert(1))",
    "<iframe src=https://evil.example>",
    '[x](https://ok.example "a\\" onmouseover=\\"alert(1)")',
  ];
  for (const source of attempts) {
    const html = renderMarkdown(source);
    assert.doesNotMatch(html, /<(script|img|iframe)|href="(javascript|data):|\son\w+="/i, source);
  }
  assert.match(
    renderMarkdown("<script>alert(1)</script>"),
    /&lt;script&gt;alert\(1\)&lt;\/script&gt;/,
  );
});

Deno.test("renderMarkdown: a member's mention is their name in a mention span, the reader's own stands out", () => {
  const html = renderMarkdown("ask @alice@example.com or @bob@example.com", TEAM);
  assert.match(
    html,
    /<span class="mention" data-mention="7" title="alice@example.com">@Alice Liddell<\/span>/,
  );
  // Bob reads it: his own mention is marked more strongly, and his name is escaped.
  assert.match(
    html,
    /<span class="mention mention-me" data-mention="8" title="bob@example.com">@Bob &lt;b&gt;Builder&lt;\/b&gt;<\/span>/,
  );
  assert.doesNotMatch(html, /mailto:/);
  // Another reader: nobody's mention is theirs.
  const other = renderMarkdown("ask @bob@example.com", { ...TEAM, viewerId: 7 });
  assert.doesNotMatch(other, /mention-me/);
  assert.match(other, /class="mention"/);
});

Deno.test("renderMarkdown: an unknown mention stays as typed text; code and links are left alone", () => {
  assert.equal(renderMarkdown("hi @zed@example.com", TEAM), "<p>hi @zed@example.com</p>\n");
  assert.equal(renderMarkdown("hi @alice@example.com"), "<p>hi @alice@example.com</p>\n");
  assert.equal(
    renderMarkdown("`@alice@example.com`", TEAM),
    "<p><code>@alice@example.com</code></p>\n",
  );
  assert.match(
    renderMarkdown("[write](mailto:alice@example.com)", TEAM),
    /<a href="mailto:alice@example.com"[^>]*>write<\/a>/,
  );
  // A plain address without the @ mark is still a mail link, as before.
  assert.match(renderMarkdown("mail alice@example.com", TEAM), /href="mailto:alice@example.com"/);
});
