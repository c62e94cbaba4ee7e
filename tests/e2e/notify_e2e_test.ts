/**
 * Two people in a real browser: a mention in the chat raises the other's header badge without
 * a reload, "Mark all as read" brings it to 0 on every open page, and the header's search box
 * finds an item in another project.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { testServer } from "../helpers/app.ts";
import { browserTest, launch } from "./browser.ts";

type Server = Awaited<ReturnType<typeof testServer>>;

async function register(t: Server, email: string, displayName: string): Promise<string> {
  const res = await fetch(`${t.baseUrl}/api/auth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password: "password-123", displayName }),
  });
  assert.equal(res.status, 201);
  await res.body?.cancel();
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith("session="))!;
  return cookie.split(";")[0]!.slice("session=".length);
}

async function call(t: Server, session: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${t.baseUrl}${path}`, {
    method,
    headers: { cookie: `session=${session}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

async function pageAs(browser: Browser, t: Server, session: string): Promise<Page> {
  const context = await browser.newContext();
  await context.addCookies([{ name: "session", value: session, url: t.baseUrl }]);
  const page = await context.newPage();
  page.on("pageerror", (error) => {
    throw error;
  });
  return page;
}

/** The badge's count, and whether it is shown. */
function badge(page: Page) {
  return page.$eval("[data-unread]", (el) => ({
    count: el.getAttribute("data-unread"),
    shown: !el.hasAttribute("hidden"),
  }));
}

browserTest(
  "notifications: a mention raises the badge live, Mark all as read clears it, the header searches every project",
  async () => {
    const t = await testServer();
    const browser = await launch();
    try {
      const ann = await register(t, "ann@example.com", "Ann");
      const bo = await register(t, "bo@example.com", "Bo");
      const launchProject = (await call(t, bo, "POST", "/api/projects", { name: "Launch" }))
        .project;
      await call(t, bo, "POST", `/api/projects/${launchProject.id}/members`, {
        email: "ann@example.com",
        role: "member",
      });
      const zephyr = (await call(t, ann, "POST", "/api/projects", { name: "Zephyr" })).project;
      await call(t, ann, "POST", `/api/projects/${zephyr.id}/notes`, {
        title: "Rocket party plan",
        body: "",
      });
      await call(t, ann, "POST", "/api/notifications/read-all");

      // Ann reads her dashboard; her badge is live and at 0.
      const a = await pageAs(browser, t, ann);
      await a.goto(`${t.baseUrl}/`);
      await a.waitForSelector("body[data-user-stream=open]");
      assert.deepEqual(await badge(a), { count: "0", shown: false });
      await a.evaluate(() => Object.assign(globalThis, { notReloaded: true }));

      // Bo mentions Ann in the chat; Ann's badge goes to 1 without a reload.
      const b = await pageAs(browser, t, bo);
      await b.goto(`${t.baseUrl}/projects/${launchProject.id}/chat`);
      await b.waitForSelector("body[data-stream=open]");
      await b.fill("[data-chat-input]", "hi @ann@example.com, see the plan");
      await b.press("[data-chat-input]", "Enter");
      await a.waitForSelector("[data-unread='1']:not([hidden])");
      assert.equal(await a.evaluate(() => "notReloaded" in globalThis), true);
      assert.equal(await a.textContent("[data-unread]"), "1");

      // In a second tab Ann marks all read; both tabs show 0, the first without a reload.
      const a2 = await a.context().newPage();
      await a2.goto(`${t.baseUrl}/notifications`);
      await a2.click("[data-mark-all-read]");
      await a2.waitForURL(`${t.baseUrl}/notifications`);
      assert.deepEqual(await badge(a2), { count: "0", shown: false });
      await a.waitForSelector("[data-unread='0'][hidden]", { state: "attached" });
      assert.equal(await a.evaluate(() => "notReloaded" in globalThis), true);

      // The header's search box, from a page of the Launch project, finds Zephyr's note.
      await a.goto(`${t.baseUrl}/projects/${launchProject.id}`);
      await a.fill(".header-search input[name=q]", "rocket");
      await a.press(".header-search input[name=q]", "Enter");
      await a.waitForURL(/\/search\?q=rocket/);
      const hit = a.locator(".search-hit", { hasText: "Rocket party plan" });
      await hit.waitFor();
      assert.equal(await hit.locator("[data-hit-project]").textContent(), "Zephyr");
    } finally {
      await browser.close();
      await t.close();
    }
  },
);
