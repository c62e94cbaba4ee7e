/** Test helpers for the JSON API: one request with its body read, and quick sign-ups. */
import assert from "node:assert/strict";
import type { TestApp } from "./app.ts";

/** A JSON body as the tests read it. */
// deno-lint-ignore no-explicit-any
export type Json = any;

/** A response with its body already consumed. */
export interface ApiResponse {
  status: number;
  /** The `content-type` header, or "" when absent. */
  type: string;
  /** The parsed body when it is JSON, else undefined. */
  json: Json;
  /** The raw body text. */
  text: string;
  headers: Headers;
  /** The `Set-Cookie` lines, parsed. */
  cookies: SetCookie[];
}

/** One parsed `Set-Cookie` line. */
export interface SetCookie {
  name: string;
  value: string;
  /** Attribute names in lower case mapped to their values ("" for flags). */
  attributes: Record<string, string>;
  raw: string;
}

/** Options of one API request. */
export interface ApiOptions {
  /** The `Cookie` header, e.g. the string `register` returns. */
  cookie?: string;
  /** Sent as JSON (with `Content-Type: application/json`) unless `raw` is given. */
  body?: unknown;
  /** A body sent as is (no content type added). */
  raw?: BodyInit;
  headers?: Record<string, string>;
}

/** Every response body each test app has sent through `api`, for leak checks. */
const transcripts = new WeakMap<TestApp, string[]>();

/** The bodies `t` has answered through `api` so far. */
export function transcript(t: TestApp): string[] {
  let list = transcripts.get(t);
  if (!list) transcripts.set(t, list = []);
  return list;
}

/** Parses one `Set-Cookie` line. */
export function parseSetCookie(line: string): SetCookie {
  const [pair = "", ...attrs] = line.split(";").map((s) => s.trim());
  const eq = pair.indexOf("=");
  const attributes: Record<string, string> = {};
  for (const attr of attrs) {
    const i = attr.indexOf("=");
    if (i < 0) attributes[attr.toLowerCase()] = "";
    else attributes[attr.slice(0, i).toLowerCase()] = attr.slice(i + 1);
  }
  return { name: pair.slice(0, eq), value: pair.slice(eq + 1), attributes, raw: line };
}

/** Sends one request to the in-process app and reads its whole body. */
export async function api(
  t: TestApp,
  method: string,
  path: string,
  options: ApiOptions = {},
): Promise<ApiResponse> {
  const headers = new Headers(options.headers);
  if (options.cookie !== undefined) headers.set("cookie", options.cookie);
  let body: BodyInit | undefined = options.raw;
  if (body === undefined && options.body !== undefined) {
    body = JSON.stringify(options.body);
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
  }
  const init: RequestInit & { duplex?: "half" } = { method, headers };
  if (body !== undefined) init.body = body;
  if (body instanceof ReadableStream) init.duplex = "half";
  const res = await t.app.request(path, init);
  const text = await res.text();
  transcript(t).push(text);
  const type = res.headers.get("content-type") ?? "";
  const json = type.includes("json") && text ? JSON.parse(text) : undefined;
  return {
    status: res.status,
    type,
    json,
    text,
    headers: res.headers,
    cookies: res.headers.getSetCookie().map(parseSetCookie),
  };
}

/** The `name` cookie a response set, or undefined. */
export function cookieNamed(res: ApiResponse, name: string): SetCookie | undefined {
  return res.cookies.find((c) => c.name === name);
}

/** The `Cookie` header carrying the session a response set (fails when none was set). */
export function sessionFrom(res: ApiResponse): string {
  const session = cookieNamed(res, "session");
  assert.ok(session && session.value, `expected a session cookie, got ${res.status} ${res.text}`);
  return `session=${session.value}`;
}

/** Options for `register`. */
export interface RegisterOptions {
  password?: string;
  displayName?: string;
}

/** The default test password. */
export const PASSWORD = "correct horse battery";

/** Registers an account and returns its user and `Cookie` header. */
export async function signUp(
  t: TestApp,
  email: string,
  options: RegisterOptions = {},
): Promise<{ cookie: string; user: Json }> {
  const res = await api(t, "POST", "/api/auth/register", {
    body: {
      email,
      password: options.password ?? PASSWORD,
      displayName: options.displayName ?? email.split("@")[0],
    },
  });
  assert.equal(res.status, 201, `register ${email}: ${res.text}`);
  return { cookie: sessionFrom(res), user: res.json.user };
}

/** Registers an account and returns its session as a `Cookie` header value. */
export async function register(
  t: TestApp,
  email: string,
  options: RegisterOptions = {},
): Promise<string> {
  return (await signUp(t, email, options)).cookie;
}

/** Logs in and returns the new session as a `Cookie` header value. */
export async function login(t: TestApp, email: string, password = PASSWORD): Promise<string> {
  const res = await api(t, "POST", "/api/auth/login", { body: { email, password } });
  assert.equal(res.status, 200, `login ${email}: ${res.text}`);
  return sessionFrom(res);
}

/** Creates a project as `cookie` and returns it. */
export async function createProject(
  t: TestApp,
  cookie: string,
  name = "Apollo",
  description?: string,
): Promise<Json> {
  const res = await api(t, "POST", "/api/projects", {
    cookie,
    body: description === undefined ? { name } : { name, description },
  });
  assert.equal(res.status, 201, `create project: ${res.text}`);
  return res.json.project;
}

/** Adds `email` to a project as `role`, acting as `cookie`, and returns the member. */
export async function addMember(
  t: TestApp,
  cookie: string,
  projectId: number,
  email: string,
  role: "owner" | "member" | "viewer",
): Promise<Json> {
  const res = await api(t, "POST", `/api/projects/${projectId}/members`, {
    cookie,
    body: { email, role },
  });
  assert.equal(res.status, 201, `add member ${email}: ${res.text}`);
  return res.json.member;
}

/** Asserts a JSON response with `status` and returns its body. */
export function expectJson(res: ApiResponse, status: number): Json {
  assert.equal(res.status, status, `expected ${status}, got ${res.status}: ${res.text}`);
  assert.match(res.type, /^application\/json/);
  return res.json;
}

/** Asserts a JSON error response with `status` and `code`; returns the error object. */
export function expectError(res: ApiResponse, status: number, code: string): Json {
  const body = expectJson(res, status);
  assert.equal(body.error?.code, code, `expected error ${code}: ${res.text}`);
  assert.equal(typeof body.error.message, "string");
  assert.ok(body.error.message.length > 0);
  assert.deepEqual(Object.keys(body), ["error"]);
  for (const key of Object.keys(body.error)) {
    assert.ok(["code", "message", "details"].includes(key), `unexpected error field ${key}`);
  }
  return body.error;
}

/** Asserts an empty 204 response. */
export function expectNoContent(res: ApiResponse): void {
  assert.equal(res.status, 204, `expected 204, got ${res.status}: ${res.text}`);
  assert.equal(res.text, "");
}

/** One hour in milliseconds. */
export const HOUR = 3_600_000;
