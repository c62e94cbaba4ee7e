/**
 * Two people in a real browser: a thread, a comment, a note and a calendar event that one
 * makes appear on the other's open pages without a reload; while the other is typing a
 * reply, a quiet notice appears instead and what they typed stays.
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

/** Opens `path` and waits for its live stream; marks the page so a reload would show. */
async function openLive(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.waitForSelector("body[data-stream=open]");
  await page.evaluate(() => Object.assign(globalThis, { notReloaded: true }));
}

async function notReloaded(page: Page): Promise<boolean> {
  return await page.evaluate(() => "notReloaded" in globalThis);
}

browserTest(
  "live pages: another's thread, comment, note and calendar event appear without a reload; typing gets a notice",
  async () => {
    const t = await testServer();
    const browser = await launch();
    try {
      const ann = await register(t, "ann@example.com", "Ann");
      const bo = await register(t, "bo@example.com", "Bo");
      const project = (await call(t, ann, "POST", "/api/projects", { name: "Live" })).project;
      const p = `/api/projects/${project.id}`;
      await call(t, ann, "POST", `${p}/members`, { email: "bo@example.com", role: "member" });
      const base = `${t.baseUrl}/projects/${project.id}`;
      const b = await pageAs(browser, t, bo);

      // The board list.
      await openLive(b, `${base}/board`);
      const thread = (await call(t, ann, "POST", `${p}/board/threads`, {
        title: "Launch checklist",
        body: "What is left?",
        category: "general",
      })).thread;
      await b.locator(".threads", { hasText: "Launch checklist" }).waitFor();
      assert.equal(await notReloaded(b), true);

      // A thread's comments.
      await openLive(b, `${base}/board/${thread.id}`);
      await call(t, ann, "POST", `${p}/board/threads/${thread.id}/comments`, {
        body: "Only the press release",
      });
      await b.locator(".comment", { hasText: "Only the press release" }).waitFor();
      assert.equal(await notReloaded(b), true);

      // Typing a reply: a notice instead, and the typed text stays until "Show".
      const reply = b.locator("textarea[name=body]").last();
      await reply.fill("I will draft it");
      await call(t, ann, "POST", `${p}/board/threads/${thread.id}/comments`, {
        body: "Thanks in advance",
      });
      await b.locator("[data-live-notice]:not([hidden])").waitFor();
      assert.equal(await reply.inputValue(), "I will draft it");
      assert.equal(await b.locator(".comment", { hasText: "Thanks in advance" }).count(), 0);
      await b.click("[data-live-show]");
      await b.locator(".comment", { hasText: "Thanks in advance" }).waitFor();
      assert.equal(await notReloaded(b), true);

      // The notes list.
      await openLive(b, `${base}/notes`);
      await call(t, ann, "POST", `${p}/notes`, { title: "Press contacts", body: "" });
      await b.locator("main", { hasText: "Press contacts" }).waitFor();
      assert.equal(await notReloaded(b), true);

      // The calendar (this month).
      await openLive(b, `${base}/calendar`);
      await call(t, ann, "POST", `${p}/calendar/events`, {
        title: "Launch party",
        startAt: "2026-11-24T10:00:00.000Z",
        endAt: "2026-11-24T11:00:00.000Z",
      });
      await b.locator("main", { hasText: "Launch party" }).waitFor();
      assert.equal(await notReloaded(b), true);
    } finally {
      await browser.close();
      await t.close();
    }
  },
);
