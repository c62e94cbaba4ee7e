/**
 * In a real browser, the settings pages that connect other tools: an API token created (its
 * secret copied with the Copy button), used as a Bearer, revoked; the calendar feed URLs copied
 * and reset; a webhook added for a real loopback receiver, its deliveries listed, redelivered,
 * and the webhook disabled.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import type { TestServer } from "../helpers/app.ts";
import { receiver } from "../helpers/receiver.ts";
import { browserTest } from "./browser.ts";
import { call, pageAs, register, withBrowser } from "./session.ts";

/** The status of a GET with a Bearer token (and no cookie). */
async function withBearer(t: TestServer, secret: string, path: string): Promise<number> {
  const res = await fetch(`${t.baseUrl}${path}`, {
    headers: { authorization: `Bearer ${secret}` },
  });
  await res.body?.cancel();
  return res.status;
}

/**
 * Clicks the Copy button of the text `#id` and checks what was copied: the clipboard holds
 * the text, or (where the browser refuses the clipboard) the fallback selected it and said so.
 */
async function copyAndCheck(page: Page, id: string): Promise<void> {
  const text = (await page.textContent(`#${id}`))!.trim();
  const button = page.locator(`button[data-copy="${id}"]`);
  // The script is a module, run once the page is parsed: on a busy machine after the text shows.
  await button.waitFor({ state: "visible", timeout: 10_000 }).catch(() => {});
  assert.equal(await button.isVisible(), true, "the script shows the Copy button");
  await button.click();
  await page.waitForSelector(`button[data-copy="${id}"][data-copy-state]`);
  const state = await button.getAttribute("data-copy-state");
  if (state === "copied") {
    assert.equal(await page.evaluate("navigator.clipboard.readText()"), text);
    assert.equal(await button.textContent(), "Copied");
  } else {
    assert.equal(state, "failed");
    assert.equal(await page.evaluate("String(getSelection())"), text);
  }
}

browserTest(
  "settings: create an API token, copy its secret, use it as a Bearer, revoke it (then 401)",
  async () => {
    await withBrowser(async (t, browser) => {
      const session = await register(t, "ann@example.com");
      const page = await pageAs(browser, t, session, { clipboard: true, acceptDialogs: true });
      await page.goto(`${t.baseUrl}/settings`);
      await page.click("a[href='/settings/tokens']");
      await page.waitForURL(`${t.baseUrl}/settings/tokens`);
      assert.equal(await page.textContent("h1"), "API tokens");

      await page.fill("input[name=name]", "Nightly export");
      await page.selectOption("select[name=scope]", "read");
      await page.fill("input[name=expiresInDays]", "30");
      await page.click("button:has-text('Create token')");
      await page.waitForSelector("[data-secret] #token-secret");
      const secret = (await page.textContent("#token-secret"))!.trim();
      assert.match(secret, /^clb_[0-9A-Za-z]{40,}$/);
      await copyAndCheck(page, "token-secret");

      assert.equal(await withBearer(t, secret, "/api/projects"), 200);

      // Shown once: the list shows the token and its last use, never the secret again.
      await page.goto(`${t.baseUrl}/settings/tokens`);
      assert.equal(await page.locator("[data-secret]").count(), 0);
      assert.equal((await page.content()).includes(secret), false);
      const row = page.locator("tr[data-token]", { hasText: "Nightly export" });
      assert.match(await row.textContent() ?? "", /Read only/);
      assert.doesNotMatch(await row.textContent() ?? "", /Not yet/);

      await Promise.all([
        page.waitForURL(`${t.baseUrl}/settings/tokens`),
        row.locator("button:has-text('Revoke')").click(),
      ]);
      await page.waitForSelector("text=You have no API tokens.");
      assert.equal(await withBearer(t, secret, "/api/projects"), 401);
    });
  },
);

browserTest(
  "settings: the calendar feed URLs are shown with Copy buttons; Reset links replaces them (old 404)",
  async () => {
    await withBrowser(async (t, browser) => {
      const session = await register(t, "ann@example.com");
      const project = (await call(t, session, "POST", "/api/projects", { name: "Apollo" })).json
        .project;
      const page = await pageAs(browser, t, session, { clipboard: true, acceptDialogs: true });
      await page.goto(`${t.baseUrl}/settings`);
      await page.click("a[href='/settings/calendar']");
      await page.waitForURL(`${t.baseUrl}/settings/calendar`);

      const all = (await page.textContent("#feed-all"))!.trim();
      const one = (await page.textContent(`#feed-${project.id}`))!.trim();
      assert.match(all, /\/ics\/[A-Za-z0-9_-]{43}\/all\.ics$/);
      assert.equal(one, all.replace("all.ics", `projects/${project.id}.ics`));
      const { urls } = (await call(t, session, "GET", "/api/me/calendar-feed")).json;
      assert.equal(all, urls.all);
      const feed = await fetch(all);
      assert.equal(feed.status, 200);
      assert.match(feed.headers.get("content-type") ?? "", /^text\/calendar/);
      await feed.body?.cancel();
      await copyAndCheck(page, "feed-all");
      await copyAndCheck(page, `feed-${project.id}`);

      await Promise.all([
        page.waitForURL(`${t.baseUrl}/settings/calendar?reset=1`),
        page.click("button:has-text('Reset links')"),
      ]);
      assert.match(
        await page.textContent("[role=status]") ?? "",
        /The old links no longer work/,
      );
      const fresh = (await page.textContent("#feed-all"))!.trim();
      assert.notEqual(fresh, all);
      for (const [url, status] of [[all, 404], [one, 404], [fresh, 200]] as const) {
        const res = await fetch(url);
        assert.equal(res.status, status, url);
        await res.body?.cancel();
      }
    });
  },
);

browserTest(
  "project webhooks: add one for a real receiver, see its delivery with status and code, redeliver, disable",
  async () => {
    const options = {
      env: { WEBHOOK_ALLOW_HOSTS: "127.0.0.1" },
      webhooks: { timeoutMs: 2000, pollMs: 100 },
    };
    await withBrowser(async (t, browser) => {
      t.app.services.webhookSender.start();
      const rx = receiver();
      try {
        const session = await register(t, "olga@example.com");
        const project = (await call(t, session, "POST", "/api/projects", { name: "Apollo" })).json
          .project;
        const page = await pageAs(browser, t, session, { clipboard: true, acceptDialogs: true });
        await page.goto(`${t.baseUrl}/projects/${project.id}`);
        await page.click(`a[href='/projects/${project.id}/webhooks']`);
        await page.waitForURL(`${t.baseUrl}/projects/${project.id}/webhooks`);

        // Without events the form is refused in words.
        await page.fill("input[name=url]", rx.url);
        await page.click("button:has-text('Add webhook')");
        await page.waitForSelector("text=Choose at least one event.");
        assert.equal(await page.inputValue("input[name=url]"), rx.url);

        await page.fill("input[name=description]", "Build server");
        await page.check("input[name=events][value='*']");
        await page.click("button:has-text('Add webhook')");
        await page.waitForSelector("[data-secret] #webhook-secret");
        const secret = (await page.textContent("#webhook-secret"))!.trim();
        assert.match(secret, /^whsec_/);
        await copyAndCheck(page, "webhook-secret");

        // An event of the project goes to the receiver, signed with that secret.
        const sent = await call(t, session, "POST", `/api/projects/${project.id}/chat/messages`, {
          text: "Deploy done",
        });
        assert.equal(sent.status, 201);
        await rx.waitFor(1);
        assert.match(
          rx.received[0]!.headers.get("x-collab-signature") ?? "",
          /^t=\d+,v1=[0-9a-f]+$/,
        );

        const hook = page.locator("[data-webhook]");
        const delivered = () => hook.locator("tr[data-delivery][data-status=succeeded]").count();
        await reloadUntil(page, async () => await delivered() === 1);
        assert.equal((await page.content()).includes(secret), false, "the secret is shown once");
        const row = hook.locator("tr[data-delivery]").first();
        assert.match(await row.textContent() ?? "", /chat\.message\.created/);
        assert.match(await row.textContent() ?? "", /Delivered/);
        assert.equal((await row.locator("[data-code]").textContent())?.trim(), "200");

        // Redeliver: a new delivery of the same event arrives.
        await Promise.all([
          page.waitForURL(/\/webhooks#webhook-\d+$/),
          row.locator("button:has-text('Redeliver')").click(),
        ]);
        await rx.waitFor(2);
        assert.equal(rx.received[1]!.body, rx.received[0]!.body);
        await reloadUntil(page, async () => await delivered() === 2);

        // Disable: the state shows, new events queue nothing.
        await Promise.all([
          page.waitForURL(/\/webhooks#webhook-\d+$/),
          hook.locator("button:has-text('Disable')").click(),
        ]);
        await page.waitForSelector("[data-webhook] [data-state]:has-text('Disabled')");
        assert.equal(await hook.locator("button:has-text('Enable')").count(), 1);
        assert.equal(await hook.locator("button:has-text('Redeliver')").count(), 0);
        const hooks = (await call(t, session, "GET", `/api/projects/${project.id}/webhooks`)).json;
        assert.equal(hooks.items[0].active, false);
      } finally {
        await rx.close();
      }
    }, options);
  },
);

/** Reloads `page` until `done` holds (the sender records deliveries after the request). */
async function reloadUntil(page: Page, done: () => Promise<boolean>, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) assert.fail(`not done after ${ms} ms: ${await page.content()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await page.reload();
  }
}
