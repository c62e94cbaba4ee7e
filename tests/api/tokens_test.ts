/** API tokens: create, list, revoke; `Authorization: Bearer` on /api and its rules. */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { openStreamInProcess, streamEnded } from "../helpers/in_process_stream.ts";
import { type TestApp, testApp } from "../helpers/app.ts";
import {
  api,
  type ApiOptions,
  createProject,
  expectError,
  expectJson,
  expectNoContent,
  type Json,
  login,
  PASSWORD,
  register,
  signUp,
} from "../helpers/api.ts";

const NOW = "2026-11-22T08:30:00.000Z";
const DAY = 86_400_000;
const TOKEN_KEYS = ["createdAt", "expiresAt", "id", "lastUsedAt", "name", "scope"];

/** Creates a token as `cookie` and returns `{token, secret}`. */
async function createToken(
  t: TestApp,
  cookie: string,
  body: Record<string, unknown> = { name: "CI", scope: "write" },
): Promise<{ token: Json; secret: string }> {
  return expectJson(await api(t, "POST", "/api/tokens", { cookie, body }), 201);
}

/** One request with `Authorization: Bearer <secret>`. */
function withToken(
  t: TestApp,
  secret: string,
  method: string,
  path: string,
  options: ApiOptions = {},
) {
  return api(t, method, path, {
    ...options,
    headers: { authorization: `Bearer ${secret}`, ...options.headers },
  });
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

Deno.test("POST /api/tokens answers the token and a clb_ secret that is shown only once", async () => {
  const t = await testApp({ now: NOW });
  try {
    const cookie = await register(t, "ada@example.com");
    const res = await api(t, "POST", "/api/tokens", {
      cookie,
      body: { name: "  Deploy bot  ", scope: "read", expiresInDays: 30 },
    });
    const { token, secret } = expectJson(res, 201);
    assert.deepEqual(Object.keys(res.json).sort(), ["secret", "token"]);
    assert.deepEqual(Object.keys(token).sort(), TOKEN_KEYS);
    assert.match(secret, /^clb_[0-9A-Za-z]{40,}$/);
    assert.equal(token.name, "Deploy bot");
    assert.equal(token.scope, "read");
    assert.equal(token.createdAt, NOW);
    assert.equal(token.expiresAt, new Date(Date.parse(NOW) + 30 * DAY).toISOString());
    assert.equal(token.lastUsedAt, null);

    const list = expectJson(await api(t, "GET", "/api/tokens", { cookie }), 200);
    assert.deepEqual(list, { items: [token] });
    assert.ok(!JSON.stringify(list).includes(secret.slice(4)), "the list never shows a secret");

    const second = await createToken(t, cookie, { name: "Other", scope: "write" });
    assert.notEqual(second.secret, secret, "each secret is random");
    assert.equal(second.token.expiresAt, null, "no expiresInDays: never expires");
  } finally {
    await t.close();
  }
});

Deno.test("The database keeps only the SHA-256 of a token's secret", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "ada@example.com");
    const { secret } = await createToken(t, cookie);
    // Read the table directly only to prove what is (not) stored.
    const rows = await t.sql.all("SELECT * FROM api_tokens");
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.secret_hash, sha256(secret));
    const stored = JSON.stringify(rows);
    assert.ok(!stored.includes(secret.slice(4)), "the secret is not stored");
    assert.ok(!stored.includes(secret.slice(4, 24)), "nor any long part of it");
  } finally {
    await t.close();
  }
});

Deno.test("Token input is checked: name, scope and expiresInDays; nothing is created on a 400", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "ada@example.com");
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ name: "   ", scope: "read" }, "name"],
      [{ scope: "read" }, "name"],
      [{ name: "x".repeat(101), scope: "read" }, "name"],
      [{ name: "CI", scope: "admin" }, "scope"],
      [{ name: "CI" }, "scope"],
      [{ name: "CI", scope: "read", expiresInDays: 0 }, "expiresInDays"],
      [{ name: "CI", scope: "read", expiresInDays: 1.5 }, "expiresInDays"],
      [{ name: "CI", scope: "read", expiresInDays: 3651 }, "expiresInDays"],
      [{ name: "CI", scope: "read", expiresInDays: "7" }, "expiresInDays"],
    ];
    for (const [body, field] of bad) {
      const error = expectError(
        await api(t, "POST", "/api/tokens", { cookie, body }),
        400,
        "validation",
      );
      assert.ok(
        error.details?.[field],
        `${JSON.stringify(body)} names ${field}: ${JSON.stringify(error)}`,
      );
    }
    expectError(
      await api(t, "POST", "/api/tokens", {
        cookie,
        raw: "{",
        headers: { "content-type": "application/json" },
      }),
      400,
      "validation",
    );
    assert.deepEqual(expectJson(await api(t, "GET", "/api/tokens", { cookie }), 200).items, []);
    const ok = await createToken(t, cookie, { name: "CI", scope: "read", expiresInDays: null });
    assert.equal(ok.token.expiresAt, null, "null means never");
  } finally {
    await t.close();
  }
});

Deno.test("A user holds at most 100 tokens; the 101st is 409", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "ada@example.com");
    for (let i = 0; i < 100; i++) await createToken(t, cookie, { name: `t${i}`, scope: "read" });
    const res = await api(t, "POST", "/api/tokens", {
      cookie,
      body: { name: "one more", scope: "read" },
    });
    expectError(res, 409, "conflict");
    assert.equal(expectJson(await api(t, "GET", "/api/tokens", { cookie }), 200).items.length, 100);
  } finally {
    await t.close();
  }
});

Deno.test("A bearer token authenticates /api routes as its owner", async () => {
  const t = await testApp();
  try {
    await register(t, "root@example.com");
    const ada = await signUp(t, "ada@example.com");
    const { secret } = await createToken(t, ada.cookie);
    const me = expectJson(await withToken(t, secret, "GET", "/api/auth/me"), 200);
    assert.deepEqual(me.user, ada.user);
    const created = await withToken(t, secret, "POST", "/api/projects", {
      body: { name: "Apollo" },
    });
    const project = expectJson(created, 201).project;
    assert.equal(project.createdBy, ada.user.id);
    assert.equal(created.headers.get("cache-control"), "no-store");
    const read = expectJson(await withToken(t, secret, "GET", `/api/projects/${project.id}`), 200);
    assert.equal(read.project.name, "Apollo");
    assert.equal(read.project.myRole, "owner");
    // The scheme name is case-insensitive (RFC 7235).
    expectJson(
      await api(t, "GET", "/api/auth/me", { headers: { authorization: `bearer ${secret}` } }),
      200,
    );
  } finally {
    await t.close();
  }
});

Deno.test("A read token may GET and HEAD; anything else is 403 forbidden and changes nothing", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "ada@example.com");
    const project = await createProject(t, cookie, "Apollo");
    const { secret } = await createToken(t, cookie, { name: "reader", scope: "read" });
    expectJson(await withToken(t, secret, "GET", `/api/projects/${project.id}`), 200);
    const head = await withToken(t, secret, "HEAD", `/api/projects/${project.id}`);
    assert.equal(head.status, 200);
    const writes: Array<[string, string, unknown]> = [
      ["POST", "/api/projects", { name: "Other" }],
      ["PATCH", `/api/projects/${project.id}`, { name: "Renamed" }],
      ["DELETE", `/api/projects/${project.id}`, undefined],
      ["PUT", `/api/projects/${project.id}/notification-level`, { level: "none" }],
      ["POST", `/api/projects/${project.id}/notes`, { title: "n", body: "b" }],
    ];
    for (const [method, path, body] of writes) {
      const res = await withToken(t, secret, method, path, body === undefined ? {} : { body });
      expectError(res, 403, "forbidden");
    }
    const after = expectJson(await api(t, "GET", "/api/projects", { cookie }), 200);
    assert.deepEqual(after.items.map((p: Json) => p.name), ["Apollo"]);
    assert.equal(
      expectJson(await api(t, "GET", `/api/projects/${project.id}/notes`, { cookie }), 200).total,
      0,
    );
  } finally {
    await t.close();
  }
});

Deno.test("No token may manage tokens, change the password, log out or use the admin routes", async () => {
  const t = await testApp();
  try {
    const admin = await signUp(t, "root@example.com");
    const bob = await signUp(t, "bob@example.com");
    const { token, secret } = await createToken(t, admin.cookie, { name: "all", scope: "write" });
    const refused: Array<[string, string, unknown]> = [
      ["GET", "/api/tokens", undefined],
      ["POST", "/api/tokens", { name: "minted", scope: "write" }],
      ["DELETE", `/api/tokens/${token.id}`, undefined],
      ["GET", "/api/admin/users", undefined],
      ["PATCH", `/api/admin/users/${bob.user.id}`, { status: "disabled" }],
      ["GET", "/api/admin/migrations", undefined],
      ["POST", "/api/auth/password", { currentPassword: PASSWORD, newPassword: "a new password" }],
      ["POST", "/api/auth/logout", undefined],
    ];
    for (const [method, path, body] of refused) {
      const res = await withToken(t, secret, method, path, body === undefined ? {} : { body });
      expectError(res, 403, "forbidden");
    }
    // Nothing happened: one token, Bob active, the old password still works.
    const tokens = expectJson(await api(t, "GET", "/api/tokens", { cookie: admin.cookie }), 200);
    assert.deepEqual(tokens.items.map((x: Json) => x.name), ["all"]);
    const users = expectJson(
      await api(t, "GET", "/api/admin/users", { cookie: admin.cookie }),
      200,
    );
    assert.equal(users.items.find((u: Json) => u.id === bob.user.id).status, "active");
    await login(t, "root@example.com");
    expectJson(await withToken(t, secret, "GET", "/api/auth/me"), 200);
  } finally {
    await t.close();
  }
});

Deno.test("With a bearer header the session cookie is ignored", async () => {
  const t = await testApp();
  try {
    const ada = await signUp(t, "ada@example.com");
    const bob = await signUp(t, "bob@example.com");
    const { secret } = await createToken(t, bob.cookie);
    // A valid cookie with a wrong token: 401, not the cookie's user.
    const wrong = await withToken(t, `clb_${"x".repeat(43)}`, "GET", "/api/auth/me", {
      cookie: ada.cookie,
    });
    expectError(wrong, 401, "unauthenticated");
    assert.equal(wrong.headers.get("www-authenticate"), "Bearer");
    // A valid cookie with another user's valid token: the token's user.
    const me = await withToken(t, secret, "GET", "/api/auth/me", { cookie: ada.cookie });
    assert.equal(expectJson(me, 200).user.id, bob.user.id);
    // Other schemes (Basic from a proxy in front) leave the cookie in charge.
    const basic = await api(t, "GET", "/api/auth/me", {
      cookie: ada.cookie,
      headers: { authorization: "Basic YWRhOnNlY3JldA==" },
    });
    assert.equal(expectJson(basic, 200).user.id, ada.user.id);
  } finally {
    await t.close();
  }
});

Deno.test("Bearer requests pass no CSRF check; cookie requests still do", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "ada@example.com");
    const { secret } = await createToken(t, cookie);
    const crossSite = { origin: "https://evil.example", "sec-fetch-site": "cross-site" };
    const byToken = await withToken(t, secret, "POST", "/api/projects", {
      body: { name: "From CI" },
      headers: crossSite,
    });
    expectJson(byToken, 201);
    const byCookie = await api(t, "POST", "/api/projects", {
      cookie,
      body: { name: "From a page elsewhere" },
      headers: crossSite,
    });
    expectError(byCookie, 403, "forbidden");
    const names = expectJson(await api(t, "GET", "/api/projects", { cookie }), 200).items
      .map((p: Json) => p.name);
    assert.deepEqual(names, ["From CI"]);
  } finally {
    await t.close();
  }
});

Deno.test("Every 401 under /api carries WWW-Authenticate: Bearer", async () => {
  const t = await testApp({ now: NOW });
  try {
    const cookie = await register(t, "ada@example.com");
    const expiring = await createToken(t, cookie, {
      name: "soon",
      scope: "read",
      expiresInDays: 1,
    });
    const revoked = await createToken(t, cookie, { name: "gone", scope: "read" });
    expectNoContent(await api(t, "DELETE", `/api/tokens/${revoked.token.id}`, { cookie }));
    t.clock.advance(DAY);
    const cases: Array<[string, Promise<Json>]> = [
      ["no credentials", api(t, "GET", "/api/projects")],
      ["an unknown route", api(t, "GET", "/api/nope")],
      ["a POST without credentials", api(t, "POST", "/api/projects", { body: { name: "x" } })],
      [
        "wrong login",
        api(t, "POST", "/api/auth/login", {
          body: { email: "ada@example.com", password: "nope nope" },
        }),
      ],
      ["a wrong token", withToken(t, `clb_${"A".repeat(43)}`, "GET", "/api/projects")],
      ["a malformed token", withToken(t, "not-a-token", "GET", "/api/projects")],
      [
        "the scheme alone",
        api(t, "GET", "/api/projects", { headers: { authorization: "Bearer" } }),
      ],
      ["an expired token", withToken(t, expiring.secret, "GET", "/api/projects")],
      ["a revoked token", withToken(t, revoked.secret, "GET", "/api/projects")],
      ["a token on a public route", withToken(t, revoked.secret, "GET", "/api/openapi.json")],
      ["a bad cookie", api(t, "GET", "/api/auth/me", { cookie: "session=forged.value" })],
    ];
    for (const [label, pending] of cases) {
      const res = await pending;
      expectError(res, 401, "unauthenticated");
      assert.equal(res.headers.get("www-authenticate"), "Bearer", label);
    }
    // Not on other statuses, nor outside /api.
    const ok = await api(t, "GET", "/api/projects", { cookie });
    assert.equal(ok.headers.get("www-authenticate"), null);
    const page = await api(t, "GET", "/projects");
    assert.notEqual(page.status, 401);
    assert.equal(page.headers.get("www-authenticate"), null);
  } finally {
    await t.close();
  }
});

Deno.test("A token stops working when it expires (expiresInDays from creation)", async () => {
  // Sessions outlive the token here, to list it afterwards.
  const t = await testApp({ now: NOW, env: { SESSION_TTL_HOURS: "720" } });
  try {
    const cookie = await register(t, "ada@example.com");
    const { secret, token } = await createToken(t, cookie, {
      name: "week",
      scope: "read",
      expiresInDays: 7,
    });
    t.clock.advance(7 * DAY - 1);
    expectJson(await withToken(t, secret, "GET", "/api/auth/me"), 200);
    t.clock.advance(1);
    expectError(await withToken(t, secret, "GET", "/api/auth/me"), 401, "unauthenticated");
    // It stays listed, expired, until it is revoked.
    const items = expectJson(await api(t, "GET", "/api/tokens", { cookie }), 200).items;
    assert.deepEqual(items.map((x: Json) => x.id), [token.id]);
  } finally {
    await t.close();
  }
});

Deno.test("lastUsedAt is written on first use, then at most once a minute", async () => {
  const t = await testApp({ now: NOW });
  try {
    const cookie = await register(t, "ada@example.com");
    const { secret } = await createToken(t, cookie, { name: "CI", scope: "read" });
    const lastUsed = async () =>
      expectJson(await api(t, "GET", "/api/tokens", { cookie }), 200).items[0].lastUsedAt;
    assert.equal(await lastUsed(), null);
    t.clock.advance(5_000);
    const first = t.clock.now().toISOString();
    await withToken(t, secret, "GET", "/api/auth/me");
    assert.equal(await lastUsed(), first);
    t.clock.advance(59_000);
    await withToken(t, secret, "GET", "/api/auth/me");
    assert.equal(await lastUsed(), first, "not again within the minute");
    t.clock.advance(1_000);
    await withToken(t, secret, "GET", "/api/auth/me");
    assert.equal(await lastUsed(), t.clock.now().toISOString(), "a minute later it is");
    // A refused request (read token, POST) is still a use of the token.
    t.clock.advance(120_000);
    await withToken(t, secret, "POST", "/api/projects", { body: { name: "x" } });
    assert.equal(await lastUsed(), t.clock.now().toISOString());
  } finally {
    await t.close();
  }
});

Deno.test("DELETE /api/tokens/{id} revokes the caller's token; another user's is 404 and stays", async () => {
  const t = await testApp();
  try {
    const ada = await register(t, "ada@example.com");
    const bob = await register(t, "bob@example.com");
    const adas = await createToken(t, ada);
    const bobs = await createToken(t, bob);
    expectError(
      await api(t, "DELETE", `/api/tokens/${bobs.token.id}`, { cookie: ada }),
      404,
      "not_found",
    );
    expectError(await api(t, "DELETE", "/api/tokens/999", { cookie: ada }), 404, "not_found");
    expectError(await api(t, "DELETE", "/api/tokens/abc", { cookie: ada }), 400, "validation");
    expectJson(await withToken(t, bobs.secret, "GET", "/api/auth/me"), 200);
    assert.equal(
      expectJson(await api(t, "GET", "/api/tokens", { cookie: bob }), 200).items.length,
      1,
    );

    expectNoContent(await api(t, "DELETE", `/api/tokens/${adas.token.id}`, { cookie: ada }));
    expectError(await withToken(t, adas.secret, "GET", "/api/auth/me"), 401, "unauthenticated");
    assert.deepEqual(
      expectJson(await api(t, "GET", "/api/tokens", { cookie: ada }), 200).items,
      [],
    );
    expectError(
      await api(t, "DELETE", `/api/tokens/${adas.token.id}`, { cookie: ada }),
      404,
      "not_found",
    );
  } finally {
    await t.close();
  }
});

Deno.test("Disabling a user revokes their tokens; enabling them again does not bring them back", async () => {
  const t = await testApp();
  try {
    const admin = await register(t, "root@example.com");
    const bob = await signUp(t, "bob@example.com");
    const { secret } = await createToken(t, bob.cookie);
    const disable = (status: string) =>
      api(t, "PATCH", `/api/admin/users/${bob.user.id}`, { cookie: admin, body: { status } });
    expectJson(await disable("disabled"), 200);
    expectError(await withToken(t, secret, "GET", "/api/auth/me"), 401, "unauthenticated");
    expectJson(await disable("active"), 200);
    expectError(await withToken(t, secret, "GET", "/api/auth/me"), 401, "unauthenticated");
    const again = await login(t, "bob@example.com");
    assert.deepEqual(
      expectJson(await api(t, "GET", "/api/tokens", { cookie: again }), 200).items,
      [],
    );
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/auth/password changes the password, revokes every token and ends the other sessions", async () => {
  const t = await testApp();
  try {
    const ada = await signUp(t, "ada@example.com");
    const other = await login(t, "ada@example.com");
    const one = await createToken(t, ada.cookie, { name: "one", scope: "read" });
    const two = await createToken(t, ada.cookie, { name: "two", scope: "write" });
    const bob = await register(t, "bob@example.com");
    const bobs = await createToken(t, bob);
    const res = await api(t, "POST", "/api/auth/password", {
      cookie: ada.cookie,
      body: { currentPassword: PASSWORD, newPassword: "a brand new password" },
    });
    expectNoContent(res);
    for (const secret of [one.secret, two.secret]) {
      expectError(await withToken(t, secret, "GET", "/api/auth/me"), 401, "unauthenticated");
    }
    expectJson(await api(t, "GET", "/api/auth/me", { cookie: ada.cookie }), 200);
    expectError(await api(t, "GET", "/api/auth/me", { cookie: other }), 401, "unauthenticated");
    assert.deepEqual(
      expectJson(await api(t, "GET", "/api/tokens", { cookie: ada.cookie }), 200).items,
      [],
    );
    // Someone else's tokens are untouched.
    expectJson(await withToken(t, bobs.secret, "GET", "/api/auth/me"), 200);
    // Only the new password logs in.
    const old = await api(t, "POST", "/api/auth/login", {
      body: { email: "ada@example.com", password: PASSWORD },
    });
    expectError(old, 401, "unauthenticated");
    await login(t, "ada@example.com", "a brand new password");
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/auth/password: a wrong current password is 400 on currentPassword and changes nothing", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "ada@example.com");
    const { secret } = await createToken(t, cookie);
    const wrong = await api(t, "POST", "/api/auth/password", {
      cookie,
      body: { currentPassword: "not my password", newPassword: "a brand new password" },
    });
    const error = expectError(wrong, 400, "validation");
    assert.ok(error.details.currentPassword);
    const short = await api(t, "POST", "/api/auth/password", {
      cookie,
      body: { currentPassword: PASSWORD, newPassword: "short" },
    });
    assert.ok(expectError(short, 400, "validation").details.newPassword);
    const missing = await api(t, "POST", "/api/auth/password", {
      cookie,
      body: { newPassword: "long enough" },
    });
    assert.ok(expectError(missing, 400, "validation").details.currentPassword);
    expectJson(await withToken(t, secret, "GET", "/api/auth/me"), 200);
    await login(t, "ada@example.com", PASSWORD);
    // Without a session: 401.
    const anonymous = await api(t, "POST", "/api/auth/password", {
      body: { currentPassword: PASSWORD, newPassword: "a brand new password" },
    });
    expectError(anonymous, 401, "unauthenticated");
    // From another site with the cookie: the CSRF check refuses it.
    const crossSite = await api(t, "POST", "/api/auth/password", {
      cookie,
      headers: { origin: "https://evil.example" },
      body: { currentPassword: PASSWORD, newPassword: "a brand new password" },
    });
    expectError(crossSite, 403, "forbidden");
    await login(t, "ada@example.com", PASSWORD);
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/auth/password is throttled like login: 5 wrong current passwords lock it for 15 minutes", async () => {
  const t = await testApp({ now: NOW });
  try {
    const cookie = await register(t, "ada@example.com");
    const attempt = (currentPassword: string) =>
      api(t, "POST", "/api/auth/password", {
        cookie,
        body: { currentPassword, newPassword: "a brand new password" },
      });
    for (let i = 0; i < 5; i++) expectError(await attempt("wrong password"), 400, "validation");
    const locked = await attempt(PASSWORD);
    expectError(locked, 429, "rate_limited");
    assert.ok(Number(locked.headers.get("retry-after")) > 0);
    // Logging in is not locked by it.
    await login(t, "ada@example.com", PASSWORD);
    t.clock.advance(15 * 60_000);
    expectNoContent(await attempt(PASSWORD));
  } finally {
    await t.close();
  }
});

Deno.test("A bearer header outside /api is ignored: pages use the cookie alone", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "ada@example.com");
    const { secret } = await createToken(t, cookie);
    const page = await api(t, "GET", "/", { headers: { authorization: `Bearer ${secret}` } });
    assert.equal(page.status, 302, "no session: redirected to the login page");
    assert.match(page.headers.get("location") ?? "", /^\/login/);
    const signedIn = await api(t, "GET", "/", {
      cookie,
      headers: { authorization: `Bearer clb_${"x".repeat(43)}` },
    });
    assert.equal(signedIn.status, 200);
  } finally {
    await t.close();
  }
});

Deno.test("The OpenAPI document declares the cookie and bearer schemes on every operation", async () => {
  const t = await testApp();
  try {
    const doc = expectJson(await api(t, "GET", "/api/openapi.json"), 200);
    assert.deepEqual(doc.components.securitySchemes.session, {
      type: "apiKey",
      in: "cookie",
      name: "session",
      description: doc.components.securitySchemes.session.description,
    });
    assert.equal(doc.components.securitySchemes.bearer.type, "http");
    assert.equal(doc.components.securitySchemes.bearer.scheme, "bearer");
    const both = [{ session: [] }, { bearer: [] }];
    const sessionOnly = [{ session: [] }];
    assert.deepEqual(doc.paths["/api/auth/register"].post.security, []);
    assert.deepEqual(doc.paths["/api/auth/login"].post.security, []);
    assert.deepEqual(doc.paths["/api/projects"].post.security, both);
    assert.deepEqual(doc.paths["/api/projects/{projectId}"].get.security, both);
    assert.deepEqual(doc.paths["/api/tokens"].post.security, sessionOnly);
    assert.deepEqual(doc.paths["/api/tokens/{tokenId}"].delete.security, sessionOnly);
    assert.deepEqual(doc.paths["/api/admin/users"].get.security, sessionOnly);
    assert.deepEqual(doc.paths["/api/auth/password"].post.security, sessionOnly);
    for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
      for (const [method, operation] of Object.entries(item as Record<string, Json>)) {
        assert.ok(Array.isArray(operation.security), `${method} ${path} declares security`);
      }
    }
  } finally {
    await t.close();
  }
});

Deno.test("Event streams opened with a token end when that token is revoked or the password changes", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "ada@example.com");
    const project = await createProject(t, cookie, "Apollo");
    const one = await createToken(t, cookie, { name: "one", scope: "read" });
    const two = await createToken(t, cookie, { name: "two", scope: "read" });
    const byOne = await openStreamInProcess(
      t,
      { authorization: `Bearer ${one.secret}` },
      project.id,
    );
    const byTwo = await openStreamInProcess(
      t,
      { authorization: `Bearer ${two.secret}` },
      project.id,
    );
    const byCookie = await openStreamInProcess(t, { cookie }, project.id);
    assert.equal(t.app.services.hub.size, 3);

    expectNoContent(await api(t, "DELETE", `/api/tokens/${one.token.id}`, { cookie }));
    assert.equal(await streamEnded(byOne), true);
    assert.equal(await streamEnded(byTwo), false);

    expectNoContent(
      await api(t, "POST", "/api/auth/password", {
        cookie,
        body: { currentPassword: PASSWORD, newPassword: "a brand new password" },
      }),
    );
    assert.equal(await streamEnded(byTwo), true);
    assert.equal(await streamEnded(byCookie), false, "the session that changed it goes on");
    assert.equal(t.app.services.hub.size, 1);
    await byCookie.cancel();
  } finally {
    await t.close();
  }
});

Deno.test("An event stream opened with a token ends at the first heartbeat after the token expired", async () => {
  const t = await testApp({ now: NOW, env: { SSE_HEARTBEAT_MS: "20", SESSION_TTL_HOURS: "720" } });
  try {
    const cookie = await register(t, "ada@example.com");
    const project = await createProject(t, cookie, "Apollo");
    const { secret } = await createToken(t, cookie, {
      name: "day",
      scope: "read",
      expiresInDays: 1,
    });
    const stream = await openStreamInProcess(t, { authorization: `Bearer ${secret}` }, project.id);
    const other = await openStreamInProcess(t, { cookie }, project.id);
    t.clock.advance(DAY);
    let done = false;
    for (let frames = 0; frames < 50 && !done; frames++) done = (await stream.read()).done;
    assert.ok(done, "the expired token's stream is still open");
    const { value } = await other.read();
    assert.equal(new TextDecoder().decode(value), ": heartbeat\n\n");
    await other.cancel();
  } finally {
    await t.close();
  }
});
