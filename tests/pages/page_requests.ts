/**
 * What the in-process page tests share: a page request with a session (the body read as
 * text), a form post as a browser without JavaScript sends it, and a test over a fresh team.
 */
import { type TestApp, testApp } from "../helpers/app.ts";
import { type Team, team } from "../helpers/api.ts";

/** A page answer: status, headers, the `Location` header and the body as text. */
export interface PageAnswer {
  status: number;
  headers: Headers;
  location: string | null;
  html: string;
}

/** A page request with a session; the body read as text. */
export async function page(
  t: TestApp,
  cookie: string,
  path: string,
  init: RequestInit = {},
): Promise<PageAnswer> {
  const headers = new Headers(init.headers);
  headers.set("cookie", cookie);
  const res = await t.app.request(path, { ...init, headers });
  return {
    status: res.status,
    headers: res.headers,
    location: res.headers.get("location"),
    html: await res.text(),
  };
}

/** A urlencoded form post, as a browser without JavaScript sends it (repeated fields too). */
export function post(
  t: TestApp,
  cookie: string,
  path: string,
  fields: Record<string, string | string[]> = {},
): Promise<PageAnswer> {
  const body = new URLSearchParams();
  for (const [key, value] of Object.entries(fields)) {
    for (const v of Array.isArray(value) ? value : [value]) body.append(key, v);
  }
  return page(t, cookie, path, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: body.toString(),
  });
}

/** Runs `fn` with a fresh app and its `team`, and closes the app afterwards. */
export async function withTeam(fn: (t: TestApp, team: Team) => Promise<void>): Promise<void> {
  const t = await testApp();
  try {
    await fn(t, await team(t));
  } finally {
    await t.close();
  }
}
