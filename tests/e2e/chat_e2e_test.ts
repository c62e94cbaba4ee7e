/**
 * The chat page in a real browser: two users on the same page see each other's messages
 * live; a cut stream catches up on reconnect (in order, each message once); Enter sends but
 * not while an IME is composing; Shift+Enter is a new line; @ completes members' emails;
 * edits and deletes reach the other reader live.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { browserTest } from "./browser.ts";
import { call, pageAs, register, withBrowser } from "./session.ts";

/** The texts of the messages on a page, in order. */
function texts(page: Page): Promise<string[]> {
  return page.$$eval(
    "[data-chat-log] > li[data-message] .chat-text",
    (els) => els.map((el) => (el.textContent ?? "").trim()),
  );
}

/** Whether the boxes of the first elements matching `a` and `b` overlap on the page. */
async function overlap(page: Page, a: string, b: string): Promise<boolean> {
  const [x, y] = await Promise.all([page.locator(a).boundingBox(), page.locator(b).boundingBox()]);
  assert.ok(x && y, `${a} and ${b} are both shown`);
  return x.x < y.x + y.width && y.x < x.x + x.width && x.y < y.y + y.height &&
    y.y < x.y + x.height;
}

/** Sends `text` by typing it and pressing Enter, and waits until it is shown. */
async function send(page: Page, text: string): Promise<void> {
  await page.fill("[data-chat-input]", text);
  await page.press("[data-chat-input]", "Enter");
  await page.locator("[data-chat-log] > li[data-message]", { hasText: text }).first().waitFor();
}

browserTest(
  "chat: messages arrive live, a cut stream catches up once and in order, IME Enter does not send",
  async () => {
    await withBrowser(async (t, browser) => {
      const ann = await register(t, "ann@example.com", "Ann");
      const bo = await register(t, "bo@example.com", "Bo");
      const project = (await call(t, ann, "POST", "/api/projects", { name: "Launch" })).json
        .project;
      const added = await call(t, ann, "POST", `/api/projects/${project.id}/members`, {
        email: "bo@example.com",
        role: "member",
      });
      assert.equal(added.status, 201);
      const url = `${t.baseUrl}/projects/${project.id}/chat`;

      const a = await pageAs(browser, t, ann);
      const b = await pageAs(browser, t, bo);
      const errors: string[] = [];
      for (const page of [a, b]) {
        page.on("pageerror", (error) => errors.push(error.message));
        page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
        await page.goto(url);
        await page.waitForSelector("body[data-stream=open]");
      }
      // B's page must never reload: a marker set now would be lost.
      await b.evaluate(() => Object.assign(globalThis, { notReloaded: true }));

      // A presses Enter; B sees the message without reloading.
      await send(a, "Hello from Ann");
      await b.locator("li[data-message]", { hasText: "Hello from Ann" }).waitFor();
      assert.equal(await b.evaluate(() => "notReloaded" in globalThis), true);
      assert.match(
        await b.textContent("li[data-message] .chat-author") ?? "",
        /Ann/,
      );

      // B's stream is cut; A sends two more meanwhile; B reconnects and gets both.
      await b.evaluate(() =>
        (globalThis as unknown as { collabChat: { disconnect(): void } }).collabChat.disconnect()
      );
      await b.waitForSelector("body[data-stream=closed]");
      await send(a, "second message");
      await send(a, "third message");
      assert.deepEqual(await texts(b), ["Hello from Ann"]);
      await b.evaluate(() =>
        (globalThis as unknown as { collabChat: { reconnect(): void } }).collabChat.reconnect()
      );
      await b.waitForSelector("body[data-stream=open]");
      await b.locator("li[data-message]", { hasText: "third message" }).waitFor();
      // One more live message: once it is shown, everything before it has been applied.
      await send(a, "fourth message");
      await b.locator("li[data-message]", { hasText: "fourth message" }).waitFor();
      assert.deepEqual(await texts(b), [
        "Hello from Ann",
        "second message",
        "third message",
        "fourth message",
      ]);
      assert.equal(await b.evaluate(() => "notReloaded" in globalThis), true);

      // Enter while an IME is composing confirms the conversion: nothing is sent.
      const posts: string[] = [];
      a.on("request", (r) => {
        if (r.method() === "POST" && r.url().includes("/chat/messages")) posts.push(r.url());
      });
      await a.fill("[data-chat-input]", "へんかんちゅう");
      // (A string: these tests are type-checked without the DOM library.)
      const prevented = await a.evaluate(`(() => {
        const input = document.querySelector("[data-chat-input]");
        const composing = new KeyboardEvent("keydown", {
          key: "Enter", code: "Enter", isComposing: true, bubbles: true, cancelable: true,
        });
        input.dispatchEvent(composing);
        // Safari reports the IME's Enter as keyCode 229 once composition has ended.
        const legacy = new KeyboardEvent("keydown", { key: "Enter", bubbles: true, cancelable: true });
        Object.defineProperty(legacy, "keyCode", { value: 229 });
        input.dispatchEvent(legacy);
        return composing.defaultPrevented || legacy.defaultPrevented;
      })()`);
      assert.equal(prevented, false);
      assert.equal(await a.inputValue("[data-chat-input]"), "へんかんちゅう");
      // A real Enter sends it, once.
      await a.press("[data-chat-input]", "Enter");
      await b.locator("li[data-message]", { hasText: "へんかんちゅう" }).waitFor();
      // The sender's page has finished sending too (its input is cleared, its list shows it).
      await a.locator("li[data-message]", { hasText: "へんかんちゅう" }).waitFor();
      assert.equal(posts.length, 1);
      const history = await call(t, ann, "GET", `/api/projects/${project.id}/chat/messages`);
      assert.deepEqual(
        history.json.items.map((m: { text: string }) => m.text),
        ["Hello from Ann", "second message", "third message", "fourth message", "へんかんちゅう"],
      );

      // Only spaces: nothing is sent, and the page says why.
      await a.fill("[data-chat-input]", "   ");
      await a.press("[data-chat-input]", "Enter");
      assert.equal(
        (await a.locator("[data-chat-error]").textContent())?.trim(),
        "Write a message first.",
      );
      assert.equal(posts.length, 1);

      // Shift+Enter starts a new line instead of sending.
      await a.fill("[data-chat-input]", "line one");
      await a.press("[data-chat-input]", "Shift+Enter");
      await a.type("[data-chat-input]", "line two");
      assert.equal(await a.inputValue("[data-chat-input]"), "line one\nline two");
      await a.press("[data-chat-input]", "Enter");
      const multi = b.locator("li[data-message]", { hasText: "line two" });
      await multi.waitFor();
      assert.equal(await multi.locator(".chat-text br").count(), 1);

      // @ offers the members; choosing one inserts the email, and the mention notifies.
      await a.fill("[data-chat-input]", "");
      await a.type("[data-chat-input]", "thanks @b");
      await a.waitForSelector("[data-chat-mentions]:not([hidden]) [role=option]");
      assert.match(await a.textContent("[data-chat-mentions]") ?? "", /bo@example\.com/);
      // The list opens below the box: it once covered the box's "Message" label. Wide and narrow.
      for (const width of [1280, 390]) {
        await a.setViewportSize({ width, height: 844 });
        assert.equal(
          await overlap(a, "label[for=chat-text]", "[data-chat-mentions]"),
          false,
          `the mention list leaves the Message label in sight at ${width} px`,
        );
      }
      await a.setViewportSize({ width: 1280, height: 720 });
      await a.press("[data-chat-input]", "Enter");
      assert.equal(await a.inputValue("[data-chat-input]"), "thanks @bo@example.com ");
      assert.equal(await a.isHidden("[data-chat-mentions]"), true);
      await a.type("[data-chat-input]", "for the review");
      await a.press("[data-chat-input]", "Enter");
      await b.locator("li[data-message]", { hasText: "for the review" }).waitFor();
      const notes = await call(t, bo, "GET", "/api/notifications");
      assert.ok(notes.json.items.some((n: { kind: string }) => n.kind === "mention"));

      // Text is shown as text, never as markup.
      await send(a, "<img src=x onerror=alert(1)> **bold**");
      const unsafe = b.locator("li[data-message]", { hasText: "<img src=x" });
      await unsafe.waitFor();
      assert.equal(await unsafe.locator("img").count(), 0);
      assert.equal(await unsafe.locator(".chat-text strong").textContent(), "bold");

      // A edits and then deletes a message; B sees both live.
      const edited = a.locator("li[data-message]", { hasText: "second message" });
      await edited.locator("summary").click();
      await edited.locator("textarea[name=text]").fill("second message, edited");
      await edited.locator("button[type=submit]", { hasText: "Save" }).click();
      await b.locator("li[data-message]", { hasText: "second message, edited" }).waitFor();
      a.on("dialog", (dialog) => void dialog.accept());
      await a.locator("li[data-message]", { hasText: "third message" })
        .locator("button", { hasText: "Delete" }).click();
      await b.locator("li[data-message]", { hasText: "third message" }).waitFor({
        state: "detached",
      });
      // B has no buttons for A's messages.
      assert.equal(await b.locator("[data-chat-edit]").count(), 0);
      assert.deepEqual(errors, []);
    });
  },
);

browserTest("chat: scrolling to the top loads older messages in order", async () => {
  await withBrowser(async (t, browser) => {
    const ann = await register(t, "ann@example.com", "Ann");
    const project = (await call(t, ann, "POST", "/api/projects", { name: "History" })).json
      .project;
    for (let i = 1; i <= 120; i++) {
      const res = await call(t, ann, "POST", `/api/projects/${project.id}/chat/messages`, {
        text: `note ${i}`,
      });
      assert.equal(res.status, 201);
    }
    const page = await pageAs(browser, t, ann);
    await page.goto(`${t.baseUrl}/projects/${project.id}/chat`);
    await page.waitForSelector("body[data-stream=open]");
    assert.equal((await texts(page)).length, 50);
    for (const expected of [100, 120]) {
      await page.$eval("[data-chat-log]", (log) => log.scrollTop = 0);
      await page.locator("[data-chat-log] > li[data-message]").nth(expected - 1).waitFor();
    }
    const all = await texts(page);
    assert.deepEqual(all, Array.from({ length: 120 }, (_, i) => `note ${i + 1}`));
    assert.equal(await page.isHidden("[data-chat-more]"), true);
  });
});
