/**
 * In a real browser: a thread, a comment and a note whose titles and Markdown bodies carry an
 * XSS corpus run no script, open no dialog, and leave no handler or script link behind, even
 * when every link in the rendered Markdown is clicked. Also a screenshot of the board page.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { testServer } from "../helpers/app.ts";
import { browserTest, launch } from "./browser.ts";

const TITLE = `"><script>window.__xss=1</script><img src=x onerror="window.__xss=1">`;

/** Each entry is its own paragraph, so one cannot swallow the next. */
function corpus(baseUrl: string): string {
  return [
    "<script>window.__xss=1</script>",
    `<img src=x onerror="window.__xss=1">`,
    "[click](javascript:window.__xss=1)",
    "[mixed](JaVaScRiPt:window.__xss=1)",
    "[spaced]( javascript:window.__xss=1 )",
    "[vb](vbscript:window.__xss=1)",
    "<svg onload=window.__xss=1>",
    `<a href="javascript:window.__xss=1">x</a>`,
    "[x](data:text/html,<script>window.__xss=1</script>)",
    "![img](javascript:window.__xss=1)",
    `<iframe src="javascript:window.__xss=1">`,
    "**bold**<style>body{display:none}</style>",
    "javascript:window.__xss=1",
    "<javascript:window.__xss=1>",
    "`<script>`",
    // One harmless local link, so clicking the Markdown's links navigates somewhere real.
    `[home](${baseUrl}/)`,
  ].join("\n\n");
}

/** Everything that must hold on a page showing the corpus. */
async function assertInert(page: Page, where: string): Promise<void> {
  // Give any handler that slipped through (onerror, onload) the chance to run.
  await page.waitForTimeout(200);
  assert.equal(await page.evaluate("typeof window.__xss"), "undefined", `${where}: __xss`);
  const scripts = await page.evaluate(
    "[...document.querySelectorAll('script')].map((s) => s.getAttribute('src'))",
  );
  // Our files only (the live-update script on the pages that follow the stream), no inline one.
  const ours = ["/static/app.js", "/static/notify.js", "/static/markdown_preview.js"];
  assert.deepEqual(
    (scripts as Array<string | null>).filter((src) => src !== "/static/live.js"),
    ours,
    `${where}: only our scripts`,
  );
  const handlers = await page.evaluate(
    "[...document.querySelectorAll('[data-markdown], [data-markdown] *')]" +
      ".flatMap((el) => [...el.attributes].map((a) => a.name))" +
      ".filter((name) => name.toLowerCase().startsWith('on'))",
  );
  assert.deepEqual(handlers, [], `${where}: no on* attributes in the Markdown`);
  assert.equal(await page.locator(`a[href^="javascript" i]`).count(), 0, `${where}: js links`);
  assert.equal(
    await page.locator("[data-markdown] :is(iframe, svg, style, img, object, embed, form)")
      .count(),
    0,
    `${where}: no raw HTML elements`,
  );
  assert.notEqual(await page.evaluate("getComputedStyle(document.body).display"), "none");
  assert.ok((await page.locator("[data-markdown] strong", { hasText: "bold" }).count()) > 0);
  assert.ok(
    (await page.locator("[data-markdown] code").allTextContents()).includes("<script>"),
    `${where}: code shows its text`,
  );
}

/** Clicks every link inside the rendered Markdown, checking the page it leads to each time. */
async function clickMarkdownLinks(page: Page, where: string): Promise<number> {
  const url = page.url();
  const hrefs = await page.evaluate(
    "[...document.querySelectorAll('[data-markdown] a')].map((a) => a.getAttribute('href'))",
  ) as string[];
  for (const href of hrefs) assert.match(href, /^(https?:|mailto:)/i, `${where}: ${href}`);
  for (let i = 0; i < hrefs.length; i++) {
    await page.locator("[data-markdown] a").nth(i).click();
    await page.waitForLoadState("load");
    assert.equal(await page.evaluate("typeof window.__xss"), "undefined", `${where}: link ${i}`);
    await page.goto(url);
  }
  return hrefs.length;
}

browserTest(
  "titles and Markdown bodies with an XSS corpus stay inert on the thread, comment and note pages",
  async () => {
    const t = await testServer();
    const shots = await Deno.makeTempDir({ prefix: "e2e-xss-" });
    const browser = await launch();
    const dialogs: string[] = [];
    try {
      const context = await browser.newContext();
      await context.addCookies([
        { name: "locale", value: "ja", url: t.baseUrl },
        { name: "theme", value: "light", url: t.baseUrl },
      ]);
      const page = await context.newPage();
      page.on("dialog", (dialog) => {
        dialogs.push(dialog.message());
        dialog.dismiss().catch(() => {});
      });
      const body = corpus(t.baseUrl);

      await page.goto(`${t.baseUrl}/register`);
      await page.fill("input[name=displayName]", "Ann");
      await page.fill("input[name=email]", "ann@example.com");
      await page.fill("input[name=password]", "password-ann");
      await page.click("form[action='/register'] button[type=submit]");
      await page.waitForURL(`${t.baseUrl}/`);

      await page.goto(`${t.baseUrl}/projects`);
      await page.fill("form[action='/projects'] input[name=name]", "安全確認");
      await page.click("form[action='/projects'] button[type=submit]");
      await page.waitForURL(/\/projects\/\d+\?created=project-\d+$/);
      const project = page.url().split("?")[0]!;

      // A thread, through the board's form.
      await page.goto(`${project}/board`);
      await page.click("summary:has-text('新しいスレッド')");
      await page.fill("form[action$='/board'] input[name=title]", TITLE);
      await page.fill("form[action$='/board'] textarea[name=body]", body);
      await page.click("form[action$='/board'] button[type=submit]");
      await page.waitForURL(/\/board\/\d+\?created=thread-\d+$/);
      const thread = page.url().split("?")[0]!;
      assert.equal(await page.textContent("h1"), TITLE);

      // A comment, through the reply form.
      await page.fill("form[action$='/comments'] textarea[name=body]", body);
      await page.click("form[action$='/comments'] button[type=submit]");
      await page.waitForURL(/\/board\/\d+#comment-\d+$/);
      assert.equal(await page.locator("[data-comment] [data-markdown]").count(), 1);
      await assertInert(page, "thread and comment");
      assert.equal(await clickMarkdownLinks(page, "thread and comment"), 2);
      await assertInert(page, "thread after clicks");

      // A note, through the notes form.
      await page.goto(`${project}/notes`);
      await page.click("summary:has-text('新しいノート')");
      await page.fill("form[action$='/notes'] input[name=title]", TITLE);
      await page.fill("form[action$='/notes'] textarea[name=body]", body);
      await page.fill("form[action$='/notes'] input[name=tags]", "<script>, 安全");
      await page.click("form[action$='/notes'] button[type=submit]");
      await page.waitForURL(/\/notes\/\d+\?created=note-\d+$/);
      assert.equal(await page.textContent("h1"), TITLE);
      await assertInert(page, "note");
      assert.equal(await clickMarkdownLinks(page, "note"), 1);

      // The lists show the titles as text too.
      for (const path of [`${project}/board`, `${project}/notes`, `${project}/activity`, thread]) {
        await page.goto(path);
        await page.waitForTimeout(100);
        assert.equal(await page.evaluate("typeof window.__xss"), "undefined", path);
        assert.equal(await page.locator("script:not([src])").count(), 0, path);
      }
      assert.deepEqual(dialogs, []);

      // The board page in Japanese and the light theme.
      await page.goto(`${project}/board`);
      await page.waitForSelector("html[lang=ja][data-theme=light]");
      assert.equal(await page.textContent("h1"), "掲示板");
      const shot = join(shots, "board-ja-light.png");
      await page.screenshot({ path: shot, fullPage: true });
      const png = await Deno.readFile(shot);
      assert.deepEqual([...png.slice(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      await context.close();
    } finally {
      await browser.close();
      await t.close();
      if (Deno.env.get("KEEP_SCREENSHOTS") !== "1") await Deno.remove(shots, { recursive: true });
      else console.log(`screenshots in ${shots}`);
    }
  },
);
