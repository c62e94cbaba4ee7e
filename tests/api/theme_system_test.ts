/** The third theme, `system`: stored, sent in the cookie, and drawn by the page as `system`. */
import assert from "node:assert/strict";
import { testApp } from "../helpers/app.ts";
import {
  api,
  cookieNamed,
  expectError,
  expectJson,
  login,
  PASSWORD,
  signUp,
} from "../helpers/api.ts";

Deno.test("PATCH /api/users/me stores the theme `system` and sets the theme cookie to it", async () => {
  const t = await testApp();
  try {
    const { cookie, user } = await signUp(t, "ada@example.com");
    const res = await api(t, "PATCH", "/api/users/me", { cookie, body: { theme: "system" } });
    assert.deepEqual(expectJson(res, 200), { user: { ...user, theme: "system" } });
    assert.equal(cookieNamed(res, "theme")?.value, "system");
    const me = expectJson(await api(t, "GET", "/api/auth/me", { cookie }), 200);
    assert.equal(me.user.theme, "system");
    // A new login brings the choice back in the cookie.
    const again = await api(t, "POST", "/api/auth/login", {
      body: { email: "ada@example.com", password: PASSWORD },
    });
    assert.equal(expectJson(again, 200).user.theme, "system");
    assert.equal(cookieNamed(again, "theme")?.value, "system");
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /api/users/me still refuses a theme that is none of dark, light, system", async () => {
  const t = await testApp();
  try {
    const { cookie } = await signUp(t, "ada@example.com");
    expectJson(await api(t, "PATCH", "/api/users/me", { cookie, body: { theme: "system" } }), 200);
    for (const theme of ["auto", "System", "", null]) {
      const res = await api(t, "PATCH", "/api/users/me", { cookie, body: { theme } });
      assert.equal(typeof expectError(res, 400, "validation").details?.theme, "string");
      assert.equal(cookieNamed(res, "theme"), undefined);
    }
    const me = expectJson(await api(t, "GET", "/api/auth/me", { cookie }), 200);
    assert.equal(me.user.theme, "system");
  } finally {
    await t.close();
  }
});

Deno.test("the OpenAPI document lists `system` among the theme values", async () => {
  const t = await testApp();
  try {
    const doc = expectJson(await api(t, "GET", "/api/openapi.json"), 200);
    const schemas = doc.components.schemas;
    const themeOf = (name: string) => {
      const theme = schemas[name].properties.theme;
      return theme.enum ?? schemas[theme.$ref.split("/").pop()].enum;
    };
    assert.deepEqual(themeOf("User"), ["dark", "light", "system"]);
    assert.deepEqual(themeOf("ProfileInput"), ["dark", "light", "system"]);
  } finally {
    await t.close();
  }
});

Deno.test("a page for a user with the theme `system` carries data-theme=system and both colour schemes", async () => {
  const t = await testApp();
  try {
    const { cookie } = await signUp(t, "ada@example.com");
    // Chosen on the settings page, as a form.
    const saved = await t.app.request("/settings", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie },
      body: new URLSearchParams({ displayName: "Ada", theme: "system", locale: "en" }).toString(),
    });
    assert.equal(saved.status, 303);
    assert.ok(saved.headers.getSetCookie().some((c) => c.startsWith("theme=system;")));
    const res = await api(t, "GET", "/settings", { cookie });
    assert.equal(res.status, 200);
    assert.match(res.text, /<html lang="en" data-theme="system">/);
    assert.match(res.text, /<meta name="color-scheme" content="light dark"\/?>/);
    assert.match(res.text, /<option value="system" selected>Same as the device<\/option>/);
    // A fresh login: the page follows the stored choice, not a stale cookie.
    const fresh = await login(t, "ada@example.com");
    const page = await api(t, "GET", "/", { cookie: `${fresh}; theme=dark` });
    assert.match(page.text, /<html lang="en" data-theme="system">/);
  } finally {
    await t.close();
  }
});

Deno.test("a page before login follows the theme cookie `system`; an unknown cookie value is dark", async () => {
  const t = await testApp();
  try {
    const system = await api(t, "GET", "/login", { cookie: "theme=system" });
    assert.match(system.text, /<html lang="en" data-theme="system">/);
    assert.match(system.text, /<meta name="color-scheme" content="light dark"\/?>/);
    const odd = await api(t, "GET", "/login", { cookie: "theme=sepia" });
    assert.match(odd.text, /<html lang="en" data-theme="dark">/);
    assert.match(odd.text, /<meta name="color-scheme" content="dark"\/?>/);
  } finally {
    await t.close();
  }
});
