/** Accounts and sessions: register, login, logout, me and the caller's profile. */
import assert from "node:assert/strict";
import { DomainError } from "../../domain/kernel/errors.ts";
import { scryptHasher } from "../../domain/accounts/passwords.ts";
import { testApp } from "../helpers/app.ts";
import {
  api,
  cookieNamed,
  expectError,
  expectJson,
  expectNoContent,
  HOUR,
  login,
  PASSWORD,
  register,
  sessionFrom,
  signUp,
} from "../helpers/api.ts";

const NOW = "2026-11-22T08:30:00.000Z";
const USER_KEYS = [
  "createdAt",
  "digestHour",
  "displayName",
  "email",
  "emailNotifications",
  "emailVerified",
  "id",
  "loanOfficer",
  "locale",
  "role",
  "status",
  "theme",
  "timeZone",
];

Deno.test("POST /api/auth/register creates the first account as an admin and logs it in", async () => {
  const t = await testApp({ now: NOW });
  try {
    const res = await api(t, "POST", "/api/auth/register", {
      body: { email: "ada@example.com", password: PASSWORD, displayName: "Ada" },
    });
    const { user } = expectJson(res, 201);
    assert.deepEqual(Object.keys(user).sort(), USER_KEYS);
    assert.ok(Number.isInteger(user.id) && user.id > 0);
    assert.equal(user.email, "ada@example.com");
    assert.equal(user.displayName, "Ada");
    assert.equal(user.role, "admin");
    assert.equal(user.status, "active");
    assert.equal(user.theme, "dark");
    assert.equal(user.locale, "en");
    assert.equal(user.timeZone, "UTC");
    assert.equal(user.createdAt, NOW);
    assert.ok(!res.text.includes("scrypt"), "no hash in the body");
    assert.ok(!res.text.toLowerCase().includes("password"), "no password field in the body");

    const me = await api(t, "GET", "/api/auth/me", { cookie: sessionFrom(res) });
    assert.deepEqual(expectJson(me, 200), { user });
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/auth/register makes every later account a member", async () => {
  const t = await testApp();
  try {
    await register(t, "first@example.com");
    const res = await api(t, "POST", "/api/auth/register", {
      body: { email: "second@example.com", password: PASSWORD, displayName: "Second" },
    });
    assert.equal(expectJson(res, 201).user.role, "member");
    const me = await api(t, "GET", "/api/auth/me", { cookie: sessionFrom(res) });
    assert.equal(expectJson(me, 200).user.role, "member");
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/auth/register sets an HttpOnly, SameSite=Lax session cookie without Secure over http", async () => {
  const t = await testApp();
  try {
    const res = await api(t, "POST", "/api/auth/register", {
      body: { email: "ada@example.com", password: PASSWORD, displayName: "Ada" },
    });
    expectJson(res, 201);
    const session = cookieNamed(res, "session");
    assert.ok(session, "a session cookie is set");
    assert.ok(session.value.length > 40, "the cookie carries a long id and signature");
    assert.ok("httponly" in session.attributes, session.raw);
    assert.equal(session.attributes.samesite?.toLowerCase(), "lax", session.raw);
    assert.equal(session.attributes.path, "/", session.raw);
    assert.ok(!("secure" in session.attributes), session.raw);
    assert.equal(cookieNamed(res, "theme")?.value, "dark");
    assert.equal(cookieNamed(res, "locale")?.value, "en");
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/auth/register marks the session cookie Secure when BASE_URL is https", async () => {
  const t = await testApp({ env: { BASE_URL: "https://x.example" } });
  try {
    const res = await api(t, "POST", "/api/auth/register", {
      body: { email: "ada@example.com", password: PASSWORD, displayName: "Ada" },
    });
    expectJson(res, 201);
    const session = cookieNamed(res, "session");
    assert.ok(session);
    assert.ok("secure" in session.attributes, session.raw);
    assert.ok("httponly" in session.attributes, session.raw);
    assert.equal(session.attributes.samesite?.toLowerCase(), "lax");
    assert.equal(session.attributes.path, "/");
    assert.equal(res.headers.get("strict-transport-security")?.startsWith("max-age="), true);
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/auth/register lower-cases the email", async () => {
  const t = await testApp();
  try {
    const res = await api(t, "POST", "/api/auth/register", {
      body: { email: "Ada.Lovelace@Example.COM", password: PASSWORD, displayName: "Ada" },
    });
    assert.equal(expectJson(res, 201).user.email, "ada.lovelace@example.com");
    const again = await api(t, "POST", "/api/auth/login", {
      body: { email: "ada.lovelace@example.com", password: PASSWORD },
    });
    assert.equal(expectJson(again, 200).user.email, "ada.lovelace@example.com");
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/auth/register rejects an email already taken, whatever its case, with 409", async () => {
  const t = await testApp();
  try {
    const first = await signUp(t, "ada@example.com");
    const res = await api(t, "POST", "/api/auth/register", {
      body: { email: "ADA@Example.com", password: "another password", displayName: "Other" },
    });
    expectError(res, 409, "conflict");
    assert.equal(cookieNamed(res, "session"), undefined, "no session for a refused sign-up");

    const users = await api(t, "GET", "/api/admin/users", { cookie: first.cookie });
    assert.deepEqual(expectJson(users, 200).items.map((u: { email: string }) => u.email), [
      "ada@example.com",
    ]);
    const other = await api(t, "POST", "/api/auth/login", {
      body: { email: "ada@example.com", password: "another password" },
    });
    expectError(other, 401, "unauthenticated");
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/auth/register rejects a password shorter than 8 characters", async () => {
  const t = await testApp();
  try {
    const res = await api(t, "POST", "/api/auth/register", {
      body: { email: "ada@example.com", password: "1234567", displayName: "Ada" },
    });
    const error = expectError(res, 400, "validation");
    assert.equal(typeof error.details?.password, "string");
    assert.deepEqual(Object.keys(error.details), ["password"]);
    assert.equal(cookieNamed(res, "session"), undefined);

    // Nothing was stored: the same email can still register, and as the first (admin) account.
    const ok = await api(t, "POST", "/api/auth/register", {
      body: { email: "ada@example.com", password: "12345678", displayName: "Ada" },
    });
    assert.equal(expectJson(ok, 201).user.role, "admin");
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/auth/register rejects a password longer than 128 characters", async () => {
  const t = await testApp();
  try {
    const res = await api(t, "POST", "/api/auth/register", {
      body: { email: "ada@example.com", password: "x".repeat(129), displayName: "Ada" },
    });
    assert.equal(typeof expectError(res, 400, "validation").details?.password, "string");
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/auth/register rejects a malformed email", async () => {
  const t = await testApp();
  try {
    for (const email of ["not-an-email", "", "ada@", 42]) {
      const res = await api(t, "POST", "/api/auth/register", {
        body: { email, password: PASSWORD, displayName: "Ada" },
      });
      const error = expectError(res, 400, "validation");
      assert.equal(typeof error.details?.email, "string", `email ${JSON.stringify(email)}`);
    }
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/auth/register rejects a missing or blank displayName", async () => {
  const t = await testApp();
  try {
    for (
      const body of [
        { email: "ada@example.com", password: PASSWORD },
        { email: "ada@example.com", password: PASSWORD, displayName: "   " },
        { email: "ada@example.com", password: PASSWORD, displayName: null },
      ]
    ) {
      const res = await api(t, "POST", "/api/auth/register", { body });
      const error = expectError(res, 400, "validation");
      assert.equal(typeof error.details?.displayName, "string", JSON.stringify(body));
    }
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/auth/register names every missing field for an empty object", async () => {
  const t = await testApp();
  try {
    const res = await api(t, "POST", "/api/auth/register", { body: {} });
    const error = expectError(res, 400, "validation");
    assert.deepEqual(Object.keys(error.details).sort(), ["displayName", "email", "password"]);
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/auth/register ignores unknown fields and never takes a role from the body", async () => {
  const t = await testApp();
  try {
    await register(t, "root@example.com");
    const res = await api(t, "POST", "/api/auth/register", {
      body: {
        email: "eve@example.com",
        password: PASSWORD,
        displayName: "Eve",
        role: "admin",
        passwordHash: "x",
      },
    });
    assert.equal(expectJson(res, 201).user.role, "member");
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/auth/login answers 200 {user} and sets a new session cookie", async () => {
  const t = await testApp();
  try {
    const { cookie: registered, user } = await signUp(t, "ada@example.com");
    const res = await api(t, "POST", "/api/auth/login", {
      body: { email: "ada@example.com", password: PASSWORD },
    });
    assert.deepEqual(expectJson(res, 200), { user });
    const session = cookieNamed(res, "session");
    assert.ok(session);
    assert.ok("httponly" in session.attributes);
    assert.equal(session.attributes.samesite?.toLowerCase(), "lax");
    assert.equal(session.attributes.path, "/");
    assert.equal(cookieNamed(res, "theme")?.value, "dark");
    assert.equal(cookieNamed(res, "locale")?.value, "en");

    const loggedIn = sessionFrom(res);
    assert.notEqual(loggedIn, registered, "a new session id on login");
    const me = await api(t, "GET", "/api/auth/me", { cookie: loggedIn });
    assert.deepEqual(expectJson(me, 200), { user });
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/auth/login issues a different session id on every login", async () => {
  const t = await testApp();
  try {
    await register(t, "ada@example.com");
    const ids = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const cookie = await login(t, "ada@example.com");
      ids.add(cookie.split(".")[0]!);
      const me = await api(t, "GET", "/api/auth/me", { cookie });
      expectJson(me, 200);
    }
    assert.equal(ids.size, 3);
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/auth/login accepts the email in any case", async () => {
  const t = await testApp();
  try {
    await register(t, "ada@example.com");
    const res = await api(t, "POST", "/api/auth/login", {
      body: { email: "ADA@EXAMPLE.COM", password: PASSWORD },
    });
    assert.equal(expectJson(res, 200).user.email, "ada@example.com");
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/auth/login gives a wrong password and an unknown email the same 401", async () => {
  const t = await testApp();
  try {
    await register(t, "ada@example.com");
    // The same request id for both, so that the bodies may be the same to the byte.
    const headers = { "x-request-id": "same-id" };
    const wrong = await api(t, "POST", "/api/auth/login", {
      body: { email: "ada@example.com", password: "wrong password" },
      headers,
    });
    const unknown = await api(t, "POST", "/api/auth/login", {
      body: { email: "nobody@example.com", password: "wrong password" },
      headers,
    });
    expectError(wrong, 401, "unauthenticated");
    expectError(unknown, 401, "unauthenticated");
    assert.equal(wrong.text, unknown.text);
    assert.equal(cookieNamed(wrong, "session"), undefined);
    assert.equal(cookieNamed(unknown, "session"), undefined);
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/auth/login rejects a body without email or password with 400", async () => {
  const t = await testApp();
  try {
    const res = await api(t, "POST", "/api/auth/login", { body: { email: "ada@example.com" } });
    assert.equal(typeof expectError(res, 400, "validation").details?.password, "string");
    const noEmail = await api(t, "POST", "/api/auth/login", { body: { password: PASSWORD } });
    assert.equal(typeof expectError(noEmail, 400, "validation").details?.email, "string");
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/auth/login locks an email for 15 minutes after 5 failures, even for the right password", async () => {
  const t = await testApp();
  try {
    await register(t, "ada@example.com");
    for (let i = 0; i < 5; i++) {
      const res = await api(t, "POST", "/api/auth/login", {
        body: { email: "ada@example.com", password: `wrong ${i}` },
      });
      expectError(res, 401, "unauthenticated");
      t.clock.advance(1000);
    }
    const locked = await api(t, "POST", "/api/auth/login", {
      body: { email: "ada@example.com", password: PASSWORD },
    });
    expectError(locked, 429, "rate_limited");
    const retryAfter = Number(locked.headers.get("retry-after"));
    assert.ok(Number.isInteger(retryAfter), `Retry-After: ${locked.headers.get("retry-after")}`);
    assert.ok(retryAfter > 0 && retryAfter <= 15 * 60, `Retry-After: ${retryAfter}`);
    assert.equal(cookieNamed(locked, "session"), undefined);

    // Another email is not locked by this one's failures.
    await register(t, "bob@example.com");
    await login(t, "bob@example.com");

    t.clock.advance(14 * 60_000);
    const stillLocked = await api(t, "POST", "/api/auth/login", {
      body: { email: "ada@example.com", password: PASSWORD },
    });
    expectError(stillLocked, 429, "rate_limited");

    t.clock.advance(60_000);
    const res = await api(t, "POST", "/api/auth/login", {
      body: { email: "ada@example.com", password: PASSWORD },
    });
    assert.equal(expectJson(res, 200).user.email, "ada@example.com");
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/auth/login counts failures for an email in any case together", async () => {
  const t = await testApp();
  try {
    await register(t, "ada@example.com");
    for (
      const email of ["ada@example.com", "ADA@example.com", "Ada@Example.com", "aDa@example.com"]
    ) {
      const res = await api(t, "POST", "/api/auth/login", { body: { email, password: "nope" } });
      expectError(res, 401, "unauthenticated");
    }
    const fifth = await api(t, "POST", "/api/auth/login", {
      body: { email: "ADA@EXAMPLE.COM", password: "nope" },
    });
    expectError(fifth, 401, "unauthenticated");
    const locked = await api(t, "POST", "/api/auth/login", {
      body: { email: "ada@example.com", password: PASSWORD },
    });
    expectError(locked, 429, "rate_limited");
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/auth/login locks a client address after 20 failures within a minute", async () => {
  const t = await testApp();
  try {
    await register(t, "ada@example.com");
    for (let i = 0; i < 20; i++) {
      const res = await api(t, "POST", "/api/auth/login", {
        body: { email: `user${i}@example.com`, password: "wrong password" },
      });
      expectError(res, 401, "unauthenticated");
    }
    const locked = await api(t, "POST", "/api/auth/login", {
      body: { email: "ada@example.com", password: PASSWORD },
    });
    expectError(locked, 429, "rate_limited");
    const retryAfter = Number(locked.headers.get("retry-after"));
    assert.ok(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 60);

    t.clock.advance(61_000);
    const res = await api(t, "POST", "/api/auth/login", {
      body: { email: "ada@example.com", password: PASSWORD },
    });
    expectJson(res, 200);
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/auth/login does not let a forwarded-for header escape the address lock", async () => {
  const t = await testApp();
  try {
    await register(t, "ada@example.com");
    for (let i = 0; i < 20; i++) {
      const res = await api(t, "POST", "/api/auth/login", {
        body: { email: `user${i}@example.com`, password: "wrong password" },
        headers: { "x-forwarded-for": `10.0.0.${i}`, "x-real-ip": `10.0.1.${i}` },
      });
      expectError(res, 401, "unauthenticated");
    }
    const res = await api(t, "POST", "/api/auth/login", {
      body: { email: "ada@example.com", password: PASSWORD },
      headers: { "x-forwarded-for": "192.0.2.1", "x-real-ip": "192.0.2.1" },
    });
    expectError(res, 429, "rate_limited");
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/auth/login does not lock an address for failures spread over minutes", async () => {
  const t = await testApp();
  try {
    await register(t, "ada@example.com");
    for (let i = 0; i < 25; i++) {
      const res = await api(t, "POST", "/api/auth/login", {
        body: { email: `user${i}@example.com`, password: "wrong password" },
      });
      expectError(res, 401, "unauthenticated");
      t.clock.advance(10_000);
    }
    await login(t, "ada@example.com");
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/auth/logout answers 204, clears the cookie and revokes the session", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "ada@example.com");
    const other = await login(t, "ada@example.com");
    const res = await api(t, "POST", "/api/auth/logout", { cookie });
    expectNoContent(res);
    const cleared = cookieNamed(res, "session");
    assert.ok(cleared, "the session cookie is cleared");
    assert.equal(cleared.value, "");
    assert.ok(
      cleared.attributes["max-age"] === "0" || "expires" in cleared.attributes,
      cleared.raw,
    );

    const me = await api(t, "GET", "/api/auth/me", { cookie });
    expectError(me, 401, "unauthenticated");
    const again = await api(t, "POST", "/api/auth/logout", { cookie });
    expectError(again, 401, "unauthenticated");
    // Only that session ended.
    expectJson(await api(t, "GET", "/api/auth/me", { cookie: other }), 200);
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/auth/logout without a session is 401", async () => {
  const t = await testApp();
  try {
    expectError(await api(t, "POST", "/api/auth/logout"), 401, "unauthenticated");
  } finally {
    await t.close();
  }
});

Deno.test("GET /api/auth/me answers the logged-in user, and 401 without a session", async () => {
  const t = await testApp();
  try {
    const { cookie, user } = await signUp(t, "ada@example.com", { displayName: "Ada L." });
    const res = await api(t, "GET", "/api/auth/me", { cookie });
    const body = expectJson(res, 200);
    assert.deepEqual(body, { user });
    assert.equal(body.user.displayName, "Ada L.");
    expectError(await api(t, "GET", "/api/auth/me"), 401, "unauthenticated");
  } finally {
    await t.close();
  }
});

Deno.test("A tampered session cookie is 401", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "ada@example.com");
    const value = cookie.slice("session=".length);
    const dot = value.indexOf(".");
    assert.ok(dot > 0);
    const flip = (s: string, i: number) =>
      s.slice(0, i) + (s[i] === "A" ? "B" : "A") + s.slice(i + 1);
    const tampered = [
      flip(value, value.length - 2), // the signature
      flip(value, dot + 1), // the signature's first character
      flip(value, 0), // the id
      flip(value, dot - 1), // the id's last character
      value.slice(0, dot), // the id without a signature
      `${value}x`,
      "garbage",
      "",
    ];
    for (const v of tampered) {
      const res = await api(t, "GET", "/api/auth/me", { cookie: `session=${v}` });
      expectError(res, 401, "unauthenticated");
    }
    expectJson(await api(t, "GET", "/api/auth/me", { cookie }), 200);
  } finally {
    await t.close();
  }
});

async function sign(id: string, secret: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(id)));
  return btoa(String.fromCharCode(...mac)).replace(/\+/g, "-").replace(/\//g, "_")
    .replace(/=+$/, "");
}

Deno.test("A session id signed with another key is 401", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "ada@example.com");
    const id = cookie.slice("session=".length).split(".")[0]!;
    const forged = `session=${id}.${await sign(id, "not-the-server-secret-0123456789abcdef")}`;
    expectError(await api(t, "GET", "/api/auth/me", { cookie: forged }), 401, "unauthenticated");
  } finally {
    await t.close();
  }
});

Deno.test("A correctly signed cookie for a session the server never issued is 401", async () => {
  const t = await testApp();
  try {
    // The test app's signing key (tests/helpers/app.ts): the server's record must decide.
    const secret = "test-secret-0123456789abcdef0123456789abcdef";
    const real = (await register(t, "ada@example.com")).slice("session=".length).split(".");
    assert.equal(await sign(real[0]!, secret), real[1], "the forger signs as the server does");
    const id = "A".repeat(43);
    const cookie = `session=${id}.${await sign(id, secret)}`;
    expectError(await api(t, "GET", "/api/auth/me", { cookie }), 401, "unauthenticated");
  } finally {
    await t.close();
  }
});

Deno.test("A session expires after SESSION_TTL_HOURS (default 168) even when used", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "ada@example.com");
    t.clock.advance(100 * HOUR);
    expectJson(await api(t, "GET", "/api/auth/me", { cookie }), 200);
    t.clock.advance(67 * HOUR + 59 * 60_000);
    expectJson(await api(t, "GET", "/api/auth/me", { cookie }), 200);
    t.clock.advance(2 * 60_000);
    expectError(await api(t, "GET", "/api/auth/me", { cookie }), 401, "unauthenticated");
    expectError(await api(t, "GET", "/api/projects", { cookie }), 401, "unauthenticated");
    // A fresh login works again.
    const fresh = await login(t, "ada@example.com");
    expectJson(await api(t, "GET", "/api/auth/me", { cookie: fresh }), 200);
  } finally {
    await t.close();
  }
});

Deno.test("A session expires after the SESSION_TTL_HOURS from the environment", async () => {
  const t = await testApp({ env: { SESSION_TTL_HOURS: "2" } });
  try {
    const res = await api(t, "POST", "/api/auth/register", {
      body: { email: "ada@example.com", password: PASSWORD, displayName: "Ada" },
    });
    expectJson(res, 201);
    const maxAge = cookieNamed(res, "session")?.attributes["max-age"];
    if (maxAge !== undefined) assert.ok(Number(maxAge) <= 2 * 3600, `Max-Age ${maxAge}`);
    const cookie = sessionFrom(res);
    t.clock.advance(HOUR + 59 * 60_000);
    expectJson(await api(t, "GET", "/api/auth/me", { cookie }), 200);
    t.clock.advance(2 * 60_000);
    expectError(await api(t, "GET", "/api/auth/me", { cookie }), 401, "unauthenticated");
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /api/users/me changes displayName, theme and locale and sets their cookies", async () => {
  const t = await testApp();
  try {
    const { cookie, user } = await signUp(t, "ada@example.com", { displayName: "Ada" });
    const res = await api(t, "PATCH", "/api/users/me", {
      cookie,
      body: { displayName: "  Countess  ", theme: "light", locale: "ja" },
    });
    const body = expectJson(res, 200);
    assert.deepEqual(body, {
      user: { ...user, displayName: "Countess", theme: "light", locale: "ja" },
    });
    const theme = cookieNamed(res, "theme");
    const locale = cookieNamed(res, "locale");
    assert.equal(theme?.value, "light");
    assert.equal(locale?.value, "ja");
    assert.equal(theme?.attributes.path, "/");
    assert.equal(locale?.attributes.path, "/");
    assert.equal(res.headers.get("cache-control"), "no-store");

    const me = await api(t, "GET", "/api/auth/me", { cookie });
    assert.deepEqual(expectJson(me, 200), body);
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/auth/login sets the theme and locale cookies from the saved preferences", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "ada@example.com");
    const patch = await api(t, "PATCH", "/api/users/me", {
      cookie,
      body: { theme: "light", locale: "ja" },
    });
    expectJson(patch, 200);
    const res = await api(t, "POST", "/api/auth/login", {
      body: { email: "ada@example.com", password: PASSWORD },
    });
    const { user } = expectJson(res, 200);
    assert.equal(user.theme, "light");
    assert.equal(user.locale, "ja");
    assert.equal(cookieNamed(res, "theme")?.value, "light");
    assert.equal(cookieNamed(res, "locale")?.value, "ja");
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /api/users/me leaves absent fields unchanged", async () => {
  const t = await testApp();
  try {
    const { cookie, user } = await signUp(t, "ada@example.com", { displayName: "Ada" });
    const first = await api(t, "PATCH", "/api/users/me", { cookie, body: { theme: "light" } });
    assert.deepEqual(expectJson(first, 200).user, { ...user, theme: "light" });
    assert.equal(cookieNamed(first, "theme")?.value, "light");
    assert.equal(cookieNamed(first, "locale")?.value, "en");
    const second = await api(t, "PATCH", "/api/users/me", { cookie, body: { locale: "ja" } });
    assert.deepEqual(expectJson(second, 200).user, { ...user, theme: "light", locale: "ja" });
    const empty = await api(t, "PATCH", "/api/users/me", { cookie, body: {} });
    assert.deepEqual(expectJson(empty, 200).user, { ...user, theme: "light", locale: "ja" });
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /api/users/me rejects an unknown theme with details.theme", async () => {
  const t = await testApp();
  try {
    const { cookie, user } = await signUp(t, "ada@example.com");
    const res = await api(t, "PATCH", "/api/users/me", {
      cookie,
      body: { theme: "blue", displayName: "Changed" },
    });
    const error = expectError(res, 400, "validation");
    assert.equal(typeof error.details?.theme, "string");
    assert.equal(cookieNamed(res, "theme"), undefined);
    assert.deepEqual(expectJson(await api(t, "GET", "/api/auth/me", { cookie }), 200), { user });
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /api/users/me rejects an unknown locale with details.locale", async () => {
  const t = await testApp();
  try {
    const { cookie, user } = await signUp(t, "ada@example.com");
    const res = await api(t, "PATCH", "/api/users/me", { cookie, body: { locale: "fr" } });
    assert.equal(typeof expectError(res, 400, "validation").details?.locale, "string");
    assert.equal(cookieNamed(res, "locale"), undefined);
    assert.deepEqual(expectJson(await api(t, "GET", "/api/auth/me", { cookie }), 200), { user });
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /api/users/me rejects a blank displayName with details.displayName", async () => {
  const t = await testApp();
  try {
    const { cookie, user } = await signUp(t, "ada@example.com");
    for (const displayName of ["", "   ", 7]) {
      const res = await api(t, "PATCH", "/api/users/me", { cookie, body: { displayName } });
      assert.equal(typeof expectError(res, 400, "validation").details?.displayName, "string");
    }
    assert.deepEqual(expectJson(await api(t, "GET", "/api/auth/me", { cookie }), 200), { user });
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /api/users/me ignores attempts to change role, status or email", async () => {
  const t = await testApp();
  try {
    await register(t, "root@example.com");
    const { cookie, user } = await signUp(t, "ada@example.com");
    const res = await api(t, "PATCH", "/api/users/me", {
      cookie,
      body: { role: "admin", status: "disabled", email: "x@example.com" },
    });
    assert.deepEqual(expectJson(res, 200).user, user);
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/auth/login: 50 wrong passwords sent at once for one email hash at most 5; the rest are 429", async () => {
  const t = await testApp();
  try {
    await register(t, "ada@example.com");
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        api(t, "POST", "/api/auth/login", {
          body: { email: "ada@example.com", password: "wrong password" },
        })),
    );
    const statuses = results.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 401).length, 5, statuses.join(","));
    assert.equal(statuses.filter((s) => s === 429).length, 45);
    for (const r of results.filter((r) => r.status === 429)) {
      expectError(r, 429, "rate_limited");
      assert.ok(Number(r.headers.get("retry-after")) > 0);
    }
    // Five failures lock the account, the right password included.
    const locked = await api(t, "POST", "/api/auth/login", {
      body: { email: "ada@example.com", password: PASSWORD },
    });
    expectError(locked, 429, "rate_limited");
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/auth/login: 50 attempts at once from one address hash at most 20; right passwords in parallel all pass", async () => {
  const t = await testApp();
  try {
    await register(t, "ada@example.com");
    const wrong = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        api(t, "POST", "/api/auth/login", {
          body: { email: `user${i}@example.com`, password: "wrong password" },
        })),
    );
    const statuses = wrong.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 401).length, 20, statuses.join(","));
    assert.equal(statuses.filter((s) => s === 429).length, 30);

    const other = await testApp();
    try {
      await register(other, "bea@example.com");
      // Three correct logins at once are within the allowance and all succeed, and leave
      // nothing reserved behind.
      const ok = await Promise.all(
        Array.from({ length: 3 }, () =>
          api(other, "POST", "/api/auth/login", {
            body: { email: "bea@example.com", password: PASSWORD },
          })),
      );
      for (const r of ok) expectJson(r, 200);
      for (let i = 0; i < 4; i++) {
        const r = await api(other, "POST", "/api/auth/login", {
          body: { email: "bea@example.com", password: "wrong password" },
        });
        expectError(r, 401, "unauthenticated");
      }
      expectJson(
        await api(other, "POST", "/api/auth/login", {
          body: { email: "bea@example.com", password: PASSWORD },
        }),
        200,
      );
    } finally {
      await other.close();
    }
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/auth/login while the hasher is busy is 429 and does not count against the account", async () => {
  const real = scryptHasher({ N: 1024, r: 8, p: 1 });
  let busy = false;
  const refuse = () => {
    throw new DomainError("rate_limited", "The server is busy; try again shortly", {
      retryAfter: 1,
    });
  };
  const t = await testApp({
    hasher: {
      hash: (password) => real.hash(password),
      verify: (password, stored) => busy ? refuse() : real.verify(password, stored),
      burn: (password) => busy ? refuse() : real.burn(password),
    },
  });
  try {
    await register(t, "ada@example.com");
    busy = true;
    for (let i = 0; i < 12; i++) {
      const res = await api(t, "POST", "/api/auth/login", {
        body: { email: "ada@example.com", password: PASSWORD },
      });
      expectError(res, 429, "rate_limited");
    }
    busy = false;
    expectJson(
      await api(t, "POST", "/api/auth/login", {
        body: { email: "ada@example.com", password: PASSWORD },
      }),
      200,
    );
  } finally {
    await t.close();
  }
});

Deno.test("every answer that sets or clears the session cookie is Cache-Control: no-store", async () => {
  const t = await testApp();
  try {
    const registered = await api(t, "POST", "/api/auth/register", {
      body: { email: "ada@example.com", password: PASSWORD, displayName: "Ada" },
    });
    const loggedIn = await api(t, "POST", "/api/auth/login", {
      body: { email: "ada@example.com", password: PASSWORD },
    });
    const loggedOut = await api(t, "POST", "/api/auth/logout", {
      cookie: sessionFrom(loggedIn),
    });
    for (
      const [what, res] of [["register", registered], ["login", loggedIn], [
        "logout",
        loggedOut,
      ]] as const
    ) {
      assert.ok(cookieNamed(res, "session"), `${what} sets the session cookie`);
      assert.equal(res.headers.get("cache-control"), "no-store", what);
    }
  } finally {
    await t.close();
  }
});

Deno.test("emails are trimmed and compared case-insensitively in register, login and member-add", async () => {
  const t = await testApp();
  try {
    const padded = " USER@EXAMPLE.COM ";
    const res = await api(t, "POST", "/api/auth/register", {
      body: { email: padded, password: PASSWORD, displayName: "User" },
    });
    assert.equal(expectJson(res, 201).user.email, "user@example.com");
    const taken = await api(t, "POST", "/api/auth/register", {
      body: { email: "\tuser@example.com\n", password: PASSWORD, displayName: "Again" },
    });
    expectError(taken, 409, "conflict");
    const loggedIn = await api(t, "POST", "/api/auth/login", {
      body: { email: "  User@Example.Com\t", password: PASSWORD },
    });
    assert.equal(expectJson(loggedIn, 200).user.email, "user@example.com");

    const owner = await register(t, "owner@example.com");
    const project = expectJson(
      await api(t, "POST", "/api/projects", { cookie: owner, body: { name: "Apollo" } }),
      201,
    ).project;
    const added = await api(t, "POST", `/api/projects/${project.id}/members`, {
      cookie: owner,
      body: { email: padded, role: "member" },
    });
    assert.equal(expectJson(added, 201).member.email, "user@example.com");
    // A padded address is still an address: blanks inside or nothing but blanks are refused.
    for (const email of ["   ", "us er@example.com", " @example.com "]) {
      const bad = await api(t, "POST", "/api/auth/register", {
        body: { email, password: PASSWORD, displayName: "X" },
      });
      assert.ok(expectError(bad, 400, "validation").details.email, email);
    }
  } finally {
    await t.close();
  }
});
