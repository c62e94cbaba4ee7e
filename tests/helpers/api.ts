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
  /** The error lines the server logged while answering (why a 500 was one), if any. */
  serverErrors?: string;
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
  const logged = t.logs.length;
  const res = await t.app.request(path, init);
  const text = await res.text();
  const serverErrors = t.logs.slice(logged).filter((line) => line.startsWith("error"));
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
    ...(serverErrors.length > 0 ? { serverErrors: serverErrors.join("\n") } : {}),
  };
}

/** What a failed status assertion says: the body, and what the server logged as an error. */
function answered(res: ApiResponse): string {
  return res.serverErrors ? `${res.text}\nserver log: ${res.serverErrors}` : res.text;
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
  assert.equal(res.status, status, `expected ${status}, got ${res.status}: ${answered(res)}`);
  assert.match(res.type, /^application\/json/);
  return res.json;
}

/** Asserts a JSON error response with `status` and `code`; returns the error object (without its request id). */
export function expectError(res: ApiResponse, status: number, code: string): Json {
  const body = expectJson(res, status);
  assert.equal(body.error?.code, code, `expected error ${code}: ${res.text}`);
  assert.equal(typeof body.error.message, "string");
  assert.ok(body.error.message.length > 0);
  assert.deepEqual(Object.keys(body), ["error"]);
  for (const key of Object.keys(body.error)) {
    assert.ok(
      ["code", "message", "details", "requestId"].includes(key),
      `unexpected error field ${key}`,
    );
  }
  // Every error body carries the id its response was sent with (operations: "Logs"). What is
  // returned leaves it out, so that two answers can be compared for being the same error.
  assert.equal(body.error.requestId, res.headers.get("x-request-id"));
  const { requestId: _, ...error } = body.error;
  return error;
}

/** Asserts an empty 204 response. */
export function expectNoContent(res: ApiResponse): void {
  assert.equal(res.status, 204, `expected 204, got ${res.status}: ${answered(res)}`);
  assert.equal(res.text, "");
}

/** One hour in milliseconds. */
export const HOUR = 3_600_000;

// ---------------------------------------------------------------------------------------
// Board, notes, files, attachments, activity and the event stream.

/** A test user: its `Cookie` header and the user object. */
export interface TestUser {
  cookie: string;
  user: Json;
}

/** One project with a cast for permission tests. */
export interface Team {
  /** The system admin (first account), not a member of the project. */
  admin: TestUser;
  /** The project's owner. */
  owner: TestUser;
  /** A member who writes content. */
  alice: TestUser;
  /** Another member. */
  bob: TestUser;
  /** A viewer. */
  viewer: TestUser;
  /** Someone who is not a member. */
  outsider: TestUser;
  project: Json;
}

/** Registers admin, owner, alice, bob, viewer and outsider; the owner creates one project. */
export async function team(t: TestApp): Promise<Team> {
  const admin = await signUp(t, "root@example.com");
  const owner = await signUp(t, "olga@example.com");
  const alice = await signUp(t, "alice@example.com");
  const bob = await signUp(t, "bob@example.com");
  const viewer = await signUp(t, "vera@example.com");
  const outsider = await signUp(t, "oscar@example.com");
  const project = await createProject(t, owner.cookie, "Apollo");
  await addMember(t, owner.cookie, project.id, "alice@example.com", "member");
  await addMember(t, owner.cookie, project.id, "bob@example.com", "member");
  await addMember(t, owner.cookie, project.id, "vera@example.com", "viewer");
  return { admin, owner, alice, bob, viewer, outsider, project };
}

/** A small valid PNG (1×1, transparent). */
export const PNG_BYTES = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  ),
  (c) => c.charCodeAt(0),
);

/** A small PDF. */
export const PDF_BYTES = new TextEncoder().encode(
  "%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n",
);

/** Sends `bytes` as multipart field `field` (default `file`) named `name` to `path`. */
export async function postFile(
  t: TestApp,
  cookie: string,
  path: string,
  name: string,
  bytes: Uint8Array | string,
  field = "file",
): Promise<ApiResponse> {
  const form = new FormData();
  const data = typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes;
  form.append(field, new File([data as BlobPart], name, { type: "application/octet-stream" }));
  return await api(t, "POST", path, { cookie, raw: form });
}

/** Uploads a file to a project's files (expects 201) and returns the file. */
export async function uploadFile(
  t: TestApp,
  cookie: string,
  projectId: number,
  name: string,
  bytes: Uint8Array | string,
): Promise<Json> {
  const res = await postFile(t, cookie, `/api/projects/${projectId}/files`, name, bytes);
  return expectJson(res, 201).file;
}

/** Posts a thread (expects 201) and returns it. */
export async function createThread(
  t: TestApp,
  cookie: string,
  projectId: number,
  fields: Record<string, unknown> = {},
): Promise<Json> {
  const res = await api(t, "POST", `/api/projects/${projectId}/board/threads`, {
    cookie,
    body: { title: "Kick-off", body: "Let's *start*.", category: "general", ...fields },
  });
  return expectJson(res, 201).thread;
}

/** Comments on a thread (expects 201) and returns the comment. */
export async function createComment(
  t: TestApp,
  cookie: string,
  projectId: number,
  threadId: number,
  fields: Record<string, unknown> = {},
): Promise<Json> {
  const res = await api(
    t,
    "POST",
    `/api/projects/${projectId}/board/threads/${threadId}/comments`,
    { cookie, body: { body: "Agreed.", ...fields } },
  );
  return expectJson(res, 201).comment;
}

/** Creates a note (expects 201) and returns it. */
export async function createNote(
  t: TestApp,
  cookie: string,
  projectId: number,
  fields: Record<string, unknown> = {},
): Promise<Json> {
  const res = await api(t, "POST", `/api/projects/${projectId}/notes`, {
    cookie,
    body: { title: "Minutes", body: "# Minutes\n\n- one", ...fields },
  });
  return expectJson(res, 201).note;
}

/** GETs `path` as `cookie`, expecting a 200 JSON body. */
export async function getJson(t: TestApp, cookie: string, path: string): Promise<Json> {
  return expectJson(await api(t, "GET", path, { cookie }), 200);
}

/** A project's activity page (first 100 entries). */
export async function activityOf(t: TestApp, cookie: string, projectId: number): Promise<Json> {
  return await getJson(t, cookie, `/api/projects/${projectId}/activity?pageSize=100`);
}

/** The caller's unread notifications page (first 100). */
export async function notificationsOf(t: TestApp, cookie: string): Promise<Json> {
  return await getJson(t, cookie, "/api/notifications?pageSize=100");
}

/** Every file under `DATA_DIR/files`, as paths relative to it (temporary files included). */
export async function storedFiles(t: TestApp): Promise<string[]> {
  const root = `${t.dataDir}/files`;
  const found: string[] = [];
  const walk = async (dir: string, prefix: string) => {
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(dir));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return;
      throw error;
    }
    for (const entry of entries) {
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory) await walk(`${dir}/${entry.name}`, rel);
      else found.push(rel);
    }
  };
  await walk(root, "");
  return found.sort();
}

/** Waits until `check` is true (polling every 10 ms), failing after `ms`. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  message: string,
  ms = 3000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out: ${message}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** One server-sent-events frame: its raw lines and the fields they give. */
export interface SseFrame {
  lines: string[];
  id?: string;
  event?: string;
  data?: string;
  retry?: string;
  /** Comment lines, without the leading `:` and one space. */
  comments: string[];
}

/** Parses one frame's lines. */
export function parseSseFrame(lines: string[]): SseFrame {
  const frame: SseFrame = { lines, comments: [] };
  const data: string[] = [];
  for (const line of lines) {
    if (line.startsWith(":")) {
      frame.comments.push(line.slice(1).replace(/^ /, ""));
      continue;
    }
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "data") data.push(value);
    else if (field === "id" || field === "event" || field === "retry") frame[field] = value;
  }
  if (data.length > 0) frame.data = data.join("\n");
  return frame;
}

/** Reads server-sent-events frames from a response body, one at a time. */
export class SseReader {
  readonly #reader: ReadableStreamDefaultReader<string>;
  #buffer = "";
  #pending: Promise<ReadableStreamReadResult<string>> | null = null;
  #done = false;

  constructor(body: ReadableStream<Uint8Array>) {
    this.#reader = body.pipeThrough(new TextDecoderStream()).getReader();
  }

  /** The next frame; null when the stream ended; fails after `ms` without one. */
  async next(ms = 3000): Promise<SseFrame | null> {
    const deadline = Date.now() + ms;
    while (true) {
      const end = this.#buffer.search(/\r?\n\r?\n/);
      if (end >= 0) {
        const block = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end).replace(/^\r?\n\r?\n/, "");
        return parseSseFrame(block.split(/\r?\n/));
      }
      if (this.#done) return null;
      const result = await this.#read(deadline - Date.now());
      if (result === "timeout") assert.fail(`no SSE frame within ${ms} ms`);
      if (result.done) this.#done = true;
      else this.#buffer += result.value;
    }
  }

  /** The next frame that is not a heartbeat. */
  async nextEvent(ms = 3000): Promise<SseFrame | null> {
    while (true) {
      const frame = await this.next(ms);
      if (frame === null || frame.lines.some((l) => !l.startsWith(":"))) return frame;
    }
  }

  /** Whether the stream ends within `ms` (frames before the end are skipped). */
  async ended(ms = 3000): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (!this.#done) {
      const result = await this.#read(deadline - Date.now());
      if (result === "timeout") return false;
      if (result.done) this.#done = true;
    }
    return true;
  }

  /** Stops reading and releases the body. */
  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
    if (this.#pending) await this.#pending.catch(() => {});
    this.#pending = null;
  }

  async #read(ms: number): Promise<ReadableStreamReadResult<string> | "timeout"> {
    this.#pending ??= this.#reader.read();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), Math.max(0, ms));
    });
    try {
      const result = await Promise.race([this.#pending, timeout]);
      if (result !== "timeout") this.#pending = null;
      return result;
    } catch (error) {
      this.#pending = null;
      this.#done = true;
      if (error instanceof Error && error.name === "AbortError") {
        return { done: true } as ReadableStreamReadDoneResult<string>;
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** An opened event stream (or a refused one, whose body is already read). */
export interface OpenedSse {
  res: Response;
  /** Set when the status is 200. */
  reader: SseReader | null;
  /** The body text of a refused stream. */
  text: string;
  /** Aborts the request and releases the body. */
  close(): Promise<void>;
}

/** Opens `GET /api/projects/{projectId}/chat/stream` against a real server. */
export function openSse(
  baseUrl: string,
  cookie: string | null,
  projectId: number,
  headers: Record<string, string> = {},
): Promise<OpenedSse> {
  return openSsePath(baseUrl, cookie, `/api/projects/${projectId}/chat/stream`, headers);
}

/** Opens any event stream (such as `/api/me/stream`) against a real server. */
export async function openSsePath(
  baseUrl: string,
  cookie: string | null,
  path: string,
  headers: Record<string, string> = {},
): Promise<OpenedSse> {
  const controller = new AbortController();
  const h = new Headers(headers);
  if (cookie !== null) h.set("cookie", cookie);
  const res = await fetch(`${baseUrl}${path}`, {
    headers: h,
    signal: controller.signal,
  });
  if (res.status !== 200 || !res.body) {
    const text = await res.text();
    return { res, reader: null, text, close: () => Promise.resolve() };
  }
  const reader = new SseReader(res.body);
  return {
    res,
    reader,
    text: "",
    async close() {
      controller.abort();
      await reader.cancel();
    },
  };
}

/** A download: the response (body consumed) and its bytes. */
export interface Download {
  status: number;
  headers: Headers;
  bytes: Uint8Array;
  /** The parsed JSON body of an error answer. */
  json: Json;
}

/** GETs `/api/files/{fileId}/download` as `cookie` and reads the bytes. */
export async function download(t: TestApp, cookie: string, fileId: number): Promise<Download> {
  const res = await t.app.request(`/api/files/${fileId}/download`, { headers: { cookie } });
  const bytes = new Uint8Array(await res.arrayBuffer());
  const type = res.headers.get("content-type") ?? "";
  const json = res.status !== 200 && type.includes("json")
    ? JSON.parse(new TextDecoder().decode(bytes))
    : undefined;
  return { status: res.status, headers: res.headers, bytes, json };
}

/**
 * POSTs JSON `{fileIds}` to an attachments path with a `Content-Length`, as HTTP clients send
 * a fixed body (the in-process request would otherwise carry none).
 */
export async function attachIds(
  t: TestApp,
  cookie: string,
  path: string,
  fileIds: unknown,
): Promise<ApiResponse> {
  const text = JSON.stringify({ fileIds });
  return await api(t, "POST", path, {
    cookie,
    raw: text,
    headers: {
      "content-type": "application/json",
      "content-length": String(new TextEncoder().encode(text).byteLength),
    },
  });
}

// ---------------------------------------------------------------------------------------
// Chat and to-dos.

/** Sends a chat message as `cookie` (expects 201) and returns the message. */
export async function sendChat(
  t: TestApp,
  cookie: string,
  projectId: number,
  text: string,
  fields: Record<string, unknown> = {},
): Promise<Json> {
  const res = await api(t, "POST", `/api/projects/${projectId}/chat/messages`, {
    cookie,
    body: { text, ...fields },
  });
  return expectJson(res, 201).message;
}

/** A project's to-do columns by position (the standard ones are created on first use). */
export async function todoColumns(t: TestApp, cookie: string, projectId: number): Promise<Json[]> {
  return (await getJson(t, cookie, `/api/projects/${projectId}/todos/columns`)).items;
}

/** Creates a to-do item (expects 201) and returns it. */
export async function createTodo(
  t: TestApp,
  cookie: string,
  projectId: number,
  fields: Record<string, unknown> = {},
): Promise<Json> {
  const res = await api(t, "POST", `/api/projects/${projectId}/todos/items`, {
    cookie,
    body: { title: "Write the plan", ...fields },
  });
  return expectJson(res, 201).item;
}

/** One stored stream event of a project, its data parsed. */
export interface StoredEvent {
  id: number;
  name: string;
  data: Json;
}

/** The stream events stored for a project (the `project_events` table), oldest first. */
export async function storedEvents(t: TestApp, projectId: number): Promise<StoredEvent[]> {
  const rows = await t.sql.all<{ id: number; name: string; data: string }>(
    "SELECT id, name, data FROM project_events WHERE project_id = ? ORDER BY id",
    [projectId],
  );
  return rows.map((r) => ({ id: r.id, name: r.name, data: JSON.parse(r.data) }));
}

/** The next SSE frame that names an event (heartbeats and `retry:` hints skipped). */
export async function nextNamedEvent(reader: SseReader, ms = 3000): Promise<SseFrame> {
  const deadline = Date.now() + ms;
  while (true) {
    const frame = await reader.next(Math.max(1, deadline - Date.now()));
    assert.ok(frame !== null, "the event stream ended");
    if (frame.event !== undefined) return frame;
  }
}
