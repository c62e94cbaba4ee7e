/**
 * What the browser tests share around the browser itself: a fresh server with Chromium,
 * accounts registered over HTTP, JSON calls as one of them, and pages logged in as one.
 */
import assert from "node:assert/strict";
import type { Browser, BrowserContextOptions, Page } from "playwright-core";
import type { Json } from "../helpers/api.ts";
import { type TestAppOptions, type TestServer, testServer } from "../helpers/app.ts";
import { launch } from "./browser.ts";

/** Runs `fn` with a fresh server and a browser, and closes both afterwards. */
export async function withBrowser(
  fn: (t: TestServer, browser: Browser) => Promise<void>,
  options: TestAppOptions = {},
): Promise<void> {
  const t = await testServer(options);
  const browser = await launch();
  try {
    await fn(t, browser);
  } finally {
    await browser.close();
    await t.close();
  }
}

/**
 * Registers an account over HTTP (display name: the email's local part unless given) and
 * returns its session cookie's value and its user id.
 */
export async function registerUser(
  t: TestServer,
  email: string,
  displayName: string = email.split("@")[0]!,
): Promise<{ session: string; id: number }> {
  const res = await fetch(`${t.baseUrl}/api/auth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password: "password-123", displayName }),
  });
  assert.equal(res.status, 201);
  const { user } = await res.json();
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith("session="))!;
  return { session: cookie.split(";")[0]!.slice("session=".length), id: user.id as number };
}

/** Registers an account over HTTP and returns its session cookie's value. */
export async function register(
  t: TestServer,
  email: string,
  displayName?: string,
): Promise<string> {
  return (await registerUser(t, email, displayName)).session;
}

/** A JSON request as `session`; answers the status and the body read as JSON (or null). */
export async function call(
  t: TestServer,
  session: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Json }> {
  const res = await fetch(`${t.baseUrl}${path}`, {
    method,
    headers: { cookie: `session=${session}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

/** How `pageAs` sets up the page's browser context. */
export interface PageOptions {
  /** Passed to `browser.newContext`. */
  context?: BrowserContextOptions;
  /** Lets the page read and write the clipboard. */
  clipboard?: boolean;
  /** Accepts confirmation prompts (delete, revoke, reset). */
  acceptDialogs?: boolean;
}

/** A page logged in as `session`, in its own browser context. */
export async function pageAs(
  browser: Browser,
  t: TestServer,
  session: string,
  options: PageOptions = {},
): Promise<Page> {
  // The browser's zone is proposed to people who never chose one: UTC unless a test says
  // otherwise, so no test depends on the machine's zone.
  const context = await browser.newContext({ timezoneId: "UTC", ...options.context });
  if (options.clipboard) {
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: t.baseUrl });
  }
  await context.addCookies([{ name: "session", value: session, url: t.baseUrl }]);
  const page = await context.newPage();
  if (options.acceptDialogs) page.on("dialog", (dialog) => void dialog.accept());
  return page;
}
