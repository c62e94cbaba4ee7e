/** Registration throttling per client address: REGISTER_LIMIT_PER_HOUR, API and pages alike. */
import assert from "node:assert/strict";
import { en } from "../../routes/i18n/en.ts";
import { type TestApp, testApp } from "../helpers/app.ts";
import { api, expectError, expectJson, HOUR, PASSWORD } from "../helpers/api.ts";

function registerVia(t: TestApp, email: string) {
  return api(t, "POST", "/api/auth/register", {
    body: { email, password: PASSWORD, displayName: email.split("@")[0] },
  });
}

function registerForm(t: TestApp, email: string) {
  return t.app.request("/register", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ displayName: "Ann", email, password: PASSWORD }).toString(),
  });
}

function userCount(t: TestApp): Promise<number> {
  return t.sql.count("users");
}

Deno.test("POST /api/auth/register accepts 20 registrations from one address an hour by default; the 21st is 429 with Retry-After", async () => {
  const t = await testApp();
  try {
    for (let i = 0; i < 20; i++) expectJson(await registerVia(t, `user${i}@example.com`), 201);
    const refused = await registerVia(t, "one-too-many@example.com");
    expectError(refused, 429, "rate_limited");
    assert.equal(refused.headers.get("retry-after"), "3600");
    assert.equal(refused.cookies.length, 0, "no session for a refused registration");
    assert.equal(await userCount(t), 20, "nothing was created");
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/auth/register reopens as the hour slides past the earliest registrations", async () => {
  const t = await testApp({ env: { REGISTER_LIMIT_PER_HOUR: "3" } });
  try {
    expectJson(await registerVia(t, "a@example.com"), 201);
    t.clock.advance(20 * 60_000);
    expectJson(await registerVia(t, "b@example.com"), 201);
    expectJson(await registerVia(t, "c@example.com"), 201);
    t.clock.advance(30 * 60_000);
    const early = await registerVia(t, "d@example.com");
    expectError(early, 429, "rate_limited");
    // The first registration leaves the window ten minutes from now.
    assert.equal(early.headers.get("retry-after"), String(10 * 60));
    t.clock.advance(10 * 60_000 - 1);
    expectError(await registerVia(t, "d@example.com"), 429, "rate_limited");
    t.clock.advance(1);
    expectJson(await registerVia(t, "d@example.com"), 201);
    // b and c still hold two of the three places.
    expectError(await registerVia(t, "e@example.com"), 429, "rate_limited");
    t.clock.advance(HOUR);
    expectJson(await registerVia(t, "e@example.com"), 201);
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/auth/register counts only accepted registrations: refused ones spend nothing", async () => {
  const t = await testApp({ env: { REGISTER_LIMIT_PER_HOUR: "2" } });
  try {
    expectJson(await registerVia(t, "ann@example.com"), 201);
    for (let i = 0; i < 10; i++) {
      expectError(await registerVia(t, "ANN@example.com"), 409, "conflict");
      const invalid = await api(t, "POST", "/api/auth/register", {
        body: { email: `x${i}@example.com`, password: "short", displayName: "X" },
      });
      expectError(invalid, 400, "validation");
    }
    expectJson(await registerVia(t, "bob@example.com"), 201);
    expectError(await registerVia(t, "cy@example.com"), 429, "rate_limited");
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/auth/register: registrations sent at once cannot pass the limit together", async () => {
  const t = await testApp({ env: { REGISTER_LIMIT_PER_HOUR: "5" } });
  try {
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => registerVia(t, `user${i}@example.com`)),
    );
    const statuses = answers.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 201).length, 5, statuses.join(","));
    assert.equal(statuses.filter((s) => s === 429).length, 25, statuses.join(","));
    assert.equal(await userCount(t), 5);
  } finally {
    await t.close();
  }
});

Deno.test("the registration page shares the limit with the API and says when to try again", async () => {
  const t = await testApp({ env: { REGISTER_LIMIT_PER_HOUR: "2" } });
  try {
    expectJson(await registerVia(t, "a@example.com"), 201);
    const page = await registerForm(t, "b@example.com");
    assert.equal(page.status, 303, await page.text());
    const refused = await registerForm(t, "c@example.com");
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get("retry-after"), "3600");
    assert.equal(refused.headers.getSetCookie().some((c) => c.startsWith("session=")), false);
    const html = await refused.text();
    assert.ok(
      html.includes(en["register.throttled"].replace("{seconds}", "3600")),
      "the page says why and how long to wait",
    );
    assert.ok(html.includes('value="c@example.com"'), "the form keeps what was typed");
    expectError(await registerVia(t, "d@example.com"), 429, "rate_limited");
    assert.equal(await userCount(t), 2);
  } finally {
    await t.close();
  }
});

Deno.test("the OpenAPI document lists 429 for registration", async () => {
  const t = await testApp();
  try {
    const doc = expectJson(await api(t, "GET", "/api/openapi.json"), 200);
    assert.ok(doc.paths["/api/auth/register"].post.responses["429"]);
  } finally {
    await t.close();
  }
});
