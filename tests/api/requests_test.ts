/** What every API request goes through: sessions, CSRF, bodies, errors and headers. */
import assert from "node:assert/strict";
import { testApp } from "../helpers/app.ts";
import {
  api,
  cookieNamed,
  createProject,
  expectError,
  expectJson,
  login,
  PASSWORD,
  register,
  signUp,
  transcript,
} from "../helpers/api.ts";

/** Every session-only route of this part of the API, with sample ids. */
const PROTECTED: Array<[string, string]> = [
  ["POST", "/api/auth/logout"],
  ["GET", "/api/auth/me"],
  ["PATCH", "/api/users/me"],
  ["GET", "/api/admin/users"],
  ["PATCH", "/api/admin/users/1"],
  ["GET", "/api/admin/migrations"],
  ["GET", "/api/projects"],
  ["POST", "/api/projects"],
  ["GET", "/api/projects/1"],
  ["PATCH", "/api/projects/1"],
  ["DELETE", "/api/projects/1"],
  ["POST", "/api/projects/1/archive"],
  ["POST", "/api/projects/1/unarchive"],
  ["GET", "/api/projects/1/members"],
  ["POST", "/api/projects/1/members"],
  ["PATCH", "/api/projects/1/members/1"],
  ["DELETE", "/api/projects/1/members/1"],
  ["GET", "/api/notifications"],
  ["POST", "/api/notifications/1/read"],
  // Routes that do not exist are 401 too without a session.
  ["GET", "/api/nope"],
  ["POST", "/api/nope"],
  ["DELETE", "/api/projects/1/nope/2"],
  ["GET", "/api"],
  ["PUT", "/api/projects/1"],
];

const MUTATING = PROTECTED.filter(([method]) => method !== "GET");

function bodyFor(method: string): { body?: unknown } {
  return method === "GET" || method === "DELETE" ? {} : { body: {} };
}

Deno.test("Every /api route but register, login and the OpenAPI document answers 401 without a session", async () => {
  const t = await testApp();
  try {
    await register(t, "ada@example.com");
    for (const [method, path] of PROTECTED) {
      const res = await api(t, method, path, bodyFor(method));
      const error = expectError(res, 401, "unauthenticated");
      assert.equal(error.details, undefined, `${method} ${path}`);
    }
  } finally {
    await t.close();
  }
});

Deno.test("An /api route with a cookie of an unknown session answers 401", async () => {
  const t = await testApp();
  try {
    for (const [method, path] of PROTECTED) {
      const res = await api(t, method, path, { cookie: "session=abc.def", ...bodyFor(method) });
      expectError(res, 401, "unauthenticated");
    }
  } finally {
    await t.close();
  }
});

Deno.test("An expired session, a tampered cookie or a disabled user's session is 401 on every route", async () => {
  const t = await testApp({ env: { SESSION_TTL_HOURS: "1" } });
  try {
    const admin = await signUp(t, "root@example.com");
    const ada = await signUp(t, "ada@example.com");
    const expiring = await register(t, "bob@example.com");
    const value = ada.cookie.slice("session=".length);
    const tampered = `session=${value.slice(0, -1)}${value.endsWith("A") ? "B" : "A"}`;
    const disable = await api(t, "PATCH", `/api/admin/users/${ada.user.id}`, {
      cookie: admin.cookie,
      body: { status: "disabled" },
    });
    expectJson(disable, 200);
    t.clock.advance(30 * 60_000);
    // The admin logs in again so that only Bob's session is older than an hour afterwards.
    const fresh = await login(t, "root@example.com");
    t.clock.advance(31 * 60_000);
    expectJson(await api(t, "GET", "/api/auth/me", { cookie: fresh }), 200);
    for (const cookie of [expiring, tampered, ada.cookie]) {
      for (const [method, path] of PROTECTED) {
        const res = await api(t, method, path, { cookie, ...bodyFor(method) });
        expectError(res, 401, "unauthenticated");
      }
    }
  } finally {
    await t.close();
  }
});

Deno.test("A non-numeric or out-of-range id in the path is a JSON client error, never a 500", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "root@example.com");
    const paths: Array<[string, string]> = [
      ["GET", "/api/projects/abc"],
      ["GET", "/api/projects/0"],
      ["GET", "/api/projects/-1"],
      ["GET", "/api/projects/1.5"],
      ["GET", "/api/projects/99999999999999999999999"],
      ["PATCH", "/api/admin/users/abc"],
      ["POST", "/api/notifications/abc/read"],
      ["DELETE", "/api/projects/1/members/abc"],
    ];
    for (const [method, path] of paths) {
      const res = await api(t, method, path, { cookie, ...bodyFor(method) });
      assert.ok(res.status === 400 || res.status === 404, `${method} ${path}: ${res.status}`);
      expectError(res, res.status, res.status === 400 ? "validation" : "not_found");
    }
  } finally {
    await t.close();
  }
});

Deno.test("An unknown /api route answers a JSON 404 not_found with a session", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "ada@example.com");
    const paths: Array<[string, string]> = [
      ["GET", "/api/nope"],
      ["GET", "/api/projects/1/nope"],
      ["GET", "/api/auth"],
      ["GET", "/api"],
      ["DELETE", "/api/nope"],
    ];
    for (const [method, path] of paths) {
      const res = await api(t, method, path, { cookie });
      expectError(res, 404, "not_found");
    }
  } finally {
    await t.close();
  }
});

Deno.test("An unknown /api route answers a JSON 404 not_found to a request with a JSON body", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "ada@example.com");
    for (const method of ["POST", "PATCH", "PUT"]) {
      const res = await api(t, method, "/api/nope", { cookie, body: { any: "thing" } });
      expectError(res, 404, "not_found");
    }
    const project = await api(t, "PUT", "/api/projects/1", { cookie, body: { name: "x" } });
    expectError(project, 404, "not_found");
  } finally {
    await t.close();
  }
});

Deno.test("GET /api/openapi.json is public and describes every account, project and notification route", async () => {
  const t = await testApp();
  try {
    const res = await api(t, "GET", "/api/openapi.json");
    const doc = expectJson(res, 200);
    assert.equal(doc.openapi, "3.1.0");
    assert.equal(typeof doc.info?.title, "string");
    const expected: Record<string, string[]> = {
      "/api/auth/register": ["post"],
      "/api/auth/login": ["post"],
      "/api/auth/logout": ["post"],
      "/api/auth/me": ["get"],
      "/api/users/me": ["patch"],
      "/api/admin/users": ["get"],
      "/api/admin/users/{userId}": ["patch"],
      "/api/admin/migrations": ["get"],
      "/api/projects": ["get", "post"],
      "/api/projects/{projectId}": ["get", "patch", "delete"],
      "/api/projects/{projectId}/archive": ["post"],
      "/api/projects/{projectId}/unarchive": ["post"],
      "/api/projects/{projectId}/members": ["get", "post"],
      "/api/projects/{projectId}/members/{userId}": ["patch", "delete"],
      "/api/notifications": ["get"],
      "/api/notifications/{id}/read": ["post"],
    };
    for (const [path, methods] of Object.entries(expected)) {
      assert.ok(doc.paths?.[path], `paths has ${path}`);
      for (const method of methods) {
        assert.ok(doc.paths[path][method], `paths[${path}] has ${method}`);
      }
    }
    // The user schema never exposes a hash.
    assert.ok(!JSON.stringify(doc).includes("passwordHash"));
  } finally {
    await t.close();
  }
});

Deno.test("Error bodies have the shape {error: {code, message, details?}}", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "ada@example.com");
    const invalid = await api(t, "POST", "/api/projects", { cookie, body: { name: "" } });
    const error = expectError(invalid, 400, "validation");
    assert.deepEqual(Object.keys(error).sort(), ["code", "details", "message"]);
    assert.equal(typeof error.details.name, "string");
    for (const value of Object.values(error.details)) assert.equal(typeof value, "string");

    const missing = await api(t, "GET", "/api/projects/999", { cookie });
    assert.deepEqual(Object.keys(expectError(missing, 404, "not_found")).sort(), [
      "code",
      "message",
    ]);
  } finally {
    await t.close();
  }
});

Deno.test("A malformed JSON body is a 400 naming body, and nothing is created", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "ada@example.com");
    for (const raw of ["{", '{"name": "x",}', "not json", '{"name": "x"} trailing']) {
      const res = await api(t, "POST", "/api/projects", {
        cookie,
        raw,
        headers: { "content-type": "application/json" },
      });
      const error = expectError(res, 400, "validation");
      assert.equal(typeof error.details?.body, "string", raw);
    }
    const list = await api(t, "GET", "/api/projects", { cookie });
    assert.deepEqual(expectJson(list, 200).items, []);
  } finally {
    await t.close();
  }
});

Deno.test("A malformed JSON body on the public register route is a 400 naming body", async () => {
  const t = await testApp();
  try {
    const res = await api(t, "POST", "/api/auth/register", {
      raw: '{"email": ',
      headers: { "content-type": "application/json" },
    });
    assert.equal(typeof expectError(res, 400, "validation").details?.body, "string");
  } finally {
    await t.close();
  }
});

Deno.test("A JSON body that is not an object is a 400", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "ada@example.com");
    for (const body of [[], "name", 42, null]) {
      const res = await api(t, "POST", "/api/projects", { cookie, body });
      expectError(res, 400, "validation");
    }
    assert.deepEqual(expectJson(await api(t, "GET", "/api/projects", { cookie }), 200).items, []);
  } finally {
    await t.close();
  }
});

Deno.test("A JSON body over 1 MiB is a 413", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "ada@example.com");
    const body = JSON.stringify({ name: "big", description: "x".repeat(1024 * 1024) });
    const res = await api(t, "POST", "/api/projects", {
      cookie,
      raw: body,
      headers: { "content-type": "application/json" },
    });
    expectError(res, 413, "too_large");
    assert.deepEqual(expectJson(await api(t, "GET", "/api/projects", { cookie }), 200).items, []);
    const login = await api(t, "POST", "/api/auth/login", {
      raw: JSON.stringify({ email: "ada@example.com", password: "x".repeat(2 * 1024 * 1024) }),
      headers: { "content-type": "application/json" },
    });
    expectError(login, 413, "too_large");
    const signup = await api(t, "POST", "/api/auth/register", {
      raw: JSON.stringify({ email: "bob@example.com", password: PASSWORD, displayName: body }),
      headers: { "content-type": "application/json" },
    });
    expectError(signup, 413, "too_large");
    const bob = await api(t, "POST", "/api/auth/login", {
      body: { email: "bob@example.com", password: PASSWORD },
    });
    expectError(bob, 401, "unauthenticated");
  } finally {
    await t.close();
  }
});

Deno.test("A JSON body of exactly 1 MiB is read, not refused as too large", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "ada@example.com");
    const prefix = '{"displayName": "Ada", "padding": "';
    const suffix = '"}';
    const body = prefix + "x".repeat(1024 * 1024 - prefix.length - suffix.length) + suffix;
    assert.equal(new TextEncoder().encode(body).byteLength, 1024 * 1024);
    const res = await api(t, "PATCH", "/api/users/me", {
      cookie,
      raw: body,
      headers: { "content-type": "application/json" },
    });
    assert.equal(expectJson(res, 200).user.displayName, "Ada");
  } finally {
    await t.close();
  }
});

Deno.test("A chunked JSON body over 1 MiB without content-length is a 413, refused while reading", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "ada@example.com");
    const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
    const totalChunks = 256; // 16 MiB if read to the end
    let pulled = 0;
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulled === 0) controller.enqueue(new TextEncoder().encode('{"name": "'));
        if (pulled >= totalChunks) {
          controller.enqueue(new TextEncoder().encode('"}'));
          controller.close();
          return;
        }
        pulled++;
        controller.enqueue(chunk);
      },
      cancel() {
        cancelled = true;
      },
    });
    const res = await api(t, "POST", "/api/projects", {
      cookie,
      raw: stream,
      headers: { "content-type": "application/json" },
    });
    expectError(res, 413, "too_large");
    assert.ok(pulled < totalChunks / 2, `read ${pulled} of ${totalChunks} chunks before refusing`);
    assert.ok(cancelled, "the rest of the body was cancelled");
    assert.deepEqual(expectJson(await api(t, "GET", "/api/projects", { cookie }), 200).items, []);
  } finally {
    await t.close();
  }
});

Deno.test("A chunked JSON body under 1 MiB without content-length is accepted", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "ada@example.com");
    const parts = ['{"displayName":', ' "Stream', 'ed"}'].map((s) => new TextEncoder().encode(s));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const part of parts) controller.enqueue(part);
        controller.close();
      },
    });
    const res = await api(t, "PATCH", "/api/users/me", {
      cookie,
      raw: stream,
      headers: { "content-type": "application/json" },
    });
    assert.equal(expectJson(res, 200).user.displayName, "Streamed");
    const me = await api(t, "GET", "/api/auth/me", { cookie });
    assert.equal(expectJson(me, 200).user.displayName, "Streamed");
  } finally {
    await t.close();
  }
});

Deno.test("Invalid UTF-8 in a JSON body is a 400, not replaced", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "ada@example.com");
    const bytes = new Uint8Array([
      ...new TextEncoder().encode('{"name": "bad'),
      0xff,
      0xfe,
      ...new TextEncoder().encode('"}'),
    ]);
    const res = await api(t, "POST", "/api/projects", {
      cookie,
      raw: bytes,
      headers: { "content-type": "application/json" },
    });
    assert.equal(typeof expectError(res, 400, "validation").details?.body, "string");
    assert.deepEqual(expectJson(await api(t, "GET", "/api/projects", { cookie }), 200).items, []);
  } finally {
    await t.close();
  }
});

Deno.test("A text/plain body is a 415", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "ada@example.com");
    const res = await api(t, "POST", "/api/projects", {
      cookie,
      raw: '{"name": "Plain"}',
      headers: { "content-type": "text/plain" },
    });
    expectError(res, 415, "unsupported_media_type");
    const login = await api(t, "POST", "/api/auth/login", {
      raw: JSON.stringify({ email: "ada@example.com", password: PASSWORD }),
      headers: { "content-type": "text/plain;charset=UTF-8" },
    });
    expectError(login, 415, "unsupported_media_type");
    assert.equal(cookieNamed(login, "session"), undefined);
    assert.deepEqual(expectJson(await api(t, "GET", "/api/projects", { cookie }), 200).items, []);
  } finally {
    await t.close();
  }
});

Deno.test("A JSON body with a charset parameter is accepted", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "ada@example.com");
    const res = await api(t, "PATCH", "/api/users/me", {
      cookie,
      raw: '{"displayName": "日本語の名前"}',
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    assert.equal(expectJson(res, 200).user.displayName, "日本語の名前");
    const me = await api(t, "GET", "/api/auth/me", { cookie });
    assert.equal(expectJson(me, 200).user.displayName, "日本語の名前");
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/projects from another Origin is 403 and creates nothing", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "ada@example.com");
    const res = await api(t, "POST", "/api/projects", {
      cookie,
      body: { name: "Evil" },
      headers: { origin: "https://evil.example" },
    });
    expectError(res, 403, "forbidden");
    assert.deepEqual(expectJson(await api(t, "GET", "/api/projects", { cookie }), 200).items, []);
  } finally {
    await t.close();
  }
});

Deno.test("A cross-site request is 403 whatever the content type", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "ada@example.com");
    for (
      const headers of [
        { origin: "https://evil.example", "content-type": "text/plain" },
        { origin: "https://evil.example", "content-type": "application/x-www-form-urlencoded" },
        { origin: "https://evil.example", "content-type": "multipart/form-data; boundary=x" },
        { "sec-fetch-site": "cross-site", "content-type": "application/json" },
      ]
    ) {
      const res = await api(t, "POST", "/api/projects", {
        cookie,
        raw: '{"name": "Evil"}',
        headers,
      });
      expectError(res, 403, "forbidden");
    }
    assert.deepEqual(expectJson(await api(t, "GET", "/api/projects", { cookie }), 200).items, []);
  } finally {
    await t.close();
  }
});

Deno.test("A cross-site mutating request is 403 before the session is checked, on every route", async () => {
  const t = await testApp();
  try {
    for (const [method, path] of MUTATING) {
      for (const headers of [{ origin: "https://evil.example" }, { origin: "null" }]) {
        const res = await api(t, method, path, { headers, ...bodyFor(method) });
        expectError(res, 403, "forbidden");
      }
    }
  } finally {
    await t.close();
  }
});

Deno.test("Origin: null is 403 with any Sec-Fetch-Site but same-origin", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "ada@example.com");
    // docs/decisions/0001-csrf-origin-null.md allows only the same-origin form-post pair.
    for (const site of ["cross-site", "same-site", "none", undefined]) {
      const headers: Record<string, string> = { origin: "null" };
      if (site !== undefined) headers["sec-fetch-site"] = site;
      const res = await api(t, "POST", "/api/projects", { cookie, body: { name: "x" }, headers });
      expectError(res, 403, "forbidden");
    }
    assert.deepEqual(expectJson(await api(t, "GET", "/api/projects", { cookie }), 200).items, []);
  } finally {
    await t.close();
  }
});

Deno.test("A cross-site request is 403 before the body is read", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "ada@example.com");
    const malformed = await api(t, "POST", "/api/projects", {
      cookie,
      raw: "{",
      headers: { origin: "https://evil.example", "content-type": "application/json" },
    });
    expectError(malformed, 403, "forbidden");
    const large = await api(t, "POST", "/api/projects", {
      cookie,
      raw: JSON.stringify({ name: "x".repeat(2 * 1024 * 1024) }),
      headers: { "sec-fetch-site": "cross-site", "content-type": "application/json" },
    });
    expectError(large, 403, "forbidden");
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/auth/login from another Origin is 403 even with the right password", async () => {
  const t = await testApp();
  try {
    await register(t, "ada@example.com");
    for (
      const headers of [
        { origin: "https://evil.example" },
        { "sec-fetch-site": "cross-site" },
        { origin: "null" },
      ]
    ) {
      const res = await api(t, "POST", "/api/auth/login", {
        body: { email: "ada@example.com", password: PASSWORD },
        headers,
      });
      expectError(res, 403, "forbidden");
      assert.equal(cookieNamed(res, "session"), undefined, "no session from a cross-site login");
    }
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/auth/register from another Origin is 403 and creates no account", async () => {
  const t = await testApp();
  try {
    const res = await api(t, "POST", "/api/auth/register", {
      body: { email: "ada@example.com", password: PASSWORD, displayName: "Ada" },
      headers: { origin: "https://evil.example" },
    });
    expectError(res, 403, "forbidden");
    assert.equal(cookieNamed(res, "session"), undefined);
    // The account does not exist: registering it now succeeds, as the first (admin) account.
    const ok = await api(t, "POST", "/api/auth/register", {
      body: { email: "ada@example.com", password: PASSWORD, displayName: "Ada" },
    });
    assert.equal(expectJson(ok, 201).user.role, "admin");
  } finally {
    await t.close();
  }
});

Deno.test("PATCH and DELETE from another site are 403 and change nothing", async () => {
  const t = await testApp();
  try {
    const { cookie, user } = await signUp(t, "ada@example.com");
    const project = await createProject(t, cookie, "Keep");
    const patch = await api(t, "PATCH", "/api/users/me", {
      cookie,
      body: { displayName: "Hacked" },
      headers: { "sec-fetch-site": "cross-site" },
    });
    expectError(patch, 403, "forbidden");
    const del = await api(t, "DELETE", `/api/projects/${project.id}`, {
      cookie,
      headers: { origin: "https://evil.example" },
    });
    expectError(del, 403, "forbidden");
    const logout = await api(t, "POST", "/api/auth/logout", {
      cookie,
      headers: { origin: "null" },
    });
    expectError(logout, 403, "forbidden");

    assert.deepEqual(expectJson(await api(t, "GET", "/api/auth/me", { cookie }), 200), { user });
    const got = await api(t, "GET", `/api/projects/${project.id}`, { cookie });
    assert.equal(expectJson(got, 200).project.name, "Keep");
  } finally {
    await t.close();
  }
});

Deno.test("Same-origin requests, and requests without Origin or Sec-Fetch-Site, pass the CSRF check", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "ada@example.com");
    const cases: Array<[string, Record<string, string>]> = [
      ["Same origin", { origin: "http://localhost" }],
      ["Same site", { "sec-fetch-site": "same-origin" }],
      ["Both", { origin: "http://localhost", "sec-fetch-site": "same-origin" }],
      ["Typed", { "sec-fetch-site": "none" }],
      ["No headers", {}],
    ];
    for (const [name, headers] of cases) {
      const res = await api(t, "POST", "/api/projects", { cookie, body: { name }, headers });
      assert.equal(expectJson(res, 201).project.name, name);
    }
    const list = await api(t, "GET", "/api/projects", { cookie });
    assert.deepEqual(
      expectJson(list, 200).items.map((p: { name: string }) => p.name),
      cases.map(([name]) => name),
    );
  } finally {
    await t.close();
  }
});

Deno.test("With an https BASE_URL, requests from that origin pass and others are 403", async () => {
  const t = await testApp({ env: { BASE_URL: "https://x.example" } });
  try {
    const cookie = await register(t, "ada@example.com");
    const ok = await api(t, "POST", "/api/projects", {
      cookie,
      body: { name: "Ours" },
      headers: { origin: "https://x.example" },
    });
    expectJson(ok, 201);
    const evil = await api(t, "POST", "/api/projects", {
      cookie,
      body: { name: "Theirs" },
      headers: { origin: "https://evil.x.example" },
    });
    expectError(evil, 403, "forbidden");
    const list = await api(t, "GET", "/api/projects", { cookie });
    assert.deepEqual(expectJson(list, 200).items.map((p: { name: string }) => p.name), ["Ours"]);
  } finally {
    await t.close();
  }
});

Deno.test("API responses carry the security headers, and authenticated ones Cache-Control: no-store", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "ada@example.com");
    const authenticated = [
      await api(t, "GET", "/api/auth/me", { cookie }),
      await api(t, "GET", "/api/projects", { cookie }),
      await api(t, "GET", "/api/admin/migrations", { cookie }),
      await api(t, "PATCH", "/api/users/me", { cookie, body: { theme: "light" } }),
      await api(t, "GET", "/api/notifications", { cookie }),
      await api(t, "GET", "/api/admin/users", { cookie }),
      await api(t, "GET", "/api/nope", { cookie }),
      await api(t, "GET", "/api/projects/999", { cookie }),
    ];
    const anonymous = [
      await api(t, "GET", "/api/auth/me"),
      await api(t, "GET", "/api/openapi.json"),
      await api(t, "POST", "/api/auth/login", { body: { email: "x@example.com", password: "y" } }),
      await api(t, "POST", "/api/projects", { headers: { origin: "https://evil.example" } }),
    ];
    for (const res of [...authenticated, ...anonymous]) {
      assert.equal(res.headers.get("x-content-type-options"), "nosniff", `${res.status}`);
      assert.equal(res.headers.get("referrer-policy"), "no-referrer");
      assert.equal(res.headers.get("x-frame-options"), "DENY");
      assert.equal(res.headers.get("strict-transport-security"), null, "no HSTS over http");
    }
    for (const res of authenticated) {
      assert.equal(res.headers.get("cache-control"), "no-store", `${res.status} ${res.text}`);
    }
  } finally {
    await t.close();
  }
});

Deno.test("No response body ever carries a password hash or a session id, and logs hold no secrets", async () => {
  const t = await testApp();
  try {
    const password = "s3cret-passw0rd-for-leak-check";
    const admin = await signUp(t, "ada@example.com", { password });
    const bob = await signUp(t, "bob@example.com", { password });
    const login = await api(t, "POST", "/api/auth/login", {
      body: { email: "ada@example.com", password },
    });
    expectJson(login, 200);
    const cookies = [admin.cookie, bob.cookie, `session=${cookieNamed(login, "session")!.value}`];
    const created = await api(t, "POST", "/api/projects", {
      cookie: admin.cookie,
      body: { name: "Leak check" },
    });
    const project = created.json?.project ?? { id: 1 };
    await api(t, "POST", `/api/projects/${project.id}/members`, {
      cookie: admin.cookie,
      body: { email: "bob@example.com", role: "member" },
    });
    await api(t, "GET", `/api/projects/${project.id}`, { cookie: admin.cookie });
    await api(t, "GET", `/api/projects/${project.id}/members`, { cookie: bob.cookie });
    await api(t, "GET", "/api/admin/users", { cookie: admin.cookie });
    await api(t, "PATCH", `/api/admin/users/${bob.user.id}`, {
      cookie: admin.cookie,
      body: { role: "admin" },
    });
    await api(t, "GET", "/api/auth/me", { cookie: bob.cookie });
    await api(t, "PATCH", "/api/users/me", { cookie: bob.cookie, body: { theme: "light" } });
    await api(t, "GET", "/api/notifications", { cookie: bob.cookie });
    await api(t, "POST", "/api/auth/login", { body: { email: "ada@example.com", password: "x" } });
    await api(t, "POST", "/api/auth/register", {
      body: { email: "ada@example.com", password, displayName: "Dup" },
    });
    await api(t, "GET", "/api/openapi.json");
    await api(t, "POST", "/api/auth/logout", { cookie: bob.cookie });

    const bodies = transcript(t);
    assert.ok(bodies.length >= 15);
    for (const body of bodies) {
      assert.ok(!body.includes("scrypt$"), "no password hash in a body");
      assert.ok(!body.includes(password), "no password in a body");
      for (const cookie of cookies) {
        const [id, signature] = cookie.slice("session=".length).split(".");
        assert.ok(!body.includes(id!), "no session id in a body");
        assert.ok(!body.includes(signature!), "no session signature in a body");
      }
    }
    assert.ok(t.logs.length > 0, "requests are logged");
    for (const line of t.logs) {
      assert.ok(!line.includes(password), `no password in the log: ${line}`);
      assert.ok(!line.includes("scrypt$"), `no hash in the log: ${line}`);
      for (const cookie of cookies) {
        const [id, signature] = cookie.slice("session=".length).split(".");
        assert.ok(!line.includes(id!), `no session id in the log: ${line}`);
        assert.ok(!line.includes(signature!), `no session signature in the log: ${line}`);
      }
    }
  } finally {
    await t.close();
  }
});
