/** Server-rendered pages: the login guard, next, language and theme, forms without JavaScript. */
import assert from "node:assert/strict";
import { en } from "../../routes/i18n/en.ts";
import { ja } from "../../routes/i18n/ja.ts";
import { testApp } from "../helpers/app.ts";

type T = Awaited<ReturnType<typeof testApp>>;

function form(fields: Record<string, string>): RequestInit {
  return {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  };
}

function cookiesOf(res: Response): string {
  return res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
}

async function signUp(t: T, email = "ann@example.com", extra: Record<string, string> = {}) {
  const res = await t.app.request(
    "/register",
    form({
      displayName: "Ann",
      email,
      password: "password-ann",
      ...extra,
    }),
  );
  assert.equal(res.status, 303);
  return cookiesOf(res);
}

Deno.test("an unauthenticated page request is redirected to /login with next", async () => {
  const t = await testApp();
  try {
    for (const path of ["/", "/projects?archived=true", "/settings", "/admin", "/projects/7"]) {
      const res = await t.app.request(path);
      assert.equal(res.status, 302, path);
      assert.equal(res.headers.get("location"), `/login?next=${encodeURIComponent(path)}`);
    }
  } finally {
    await t.close();
  }
});

Deno.test("after login the user lands on next when it is a local path, else on /", async () => {
  const t = await testApp();
  try {
    await signUp(t);
    const cases: Array<[string, string]> = [
      ["/projects", "/projects"],
      ["https://evil.example/", "/"],
      ["//evil.example/x", "/"],
      ["/\\evil.example", "/"],
      ["", "/"],
    ];
    for (const [next, expected] of cases) {
      const res = await t.app.request(
        "/login",
        form({
          email: "ann@example.com",
          password: "password-ann",
          next,
        }),
      );
      assert.equal(res.status, 303, next);
      assert.equal(res.headers.get("location"), expected, next);
    }
  } finally {
    await t.close();
  }
});

Deno.test("a failed login form shows one message, keeps the email and answers 401", async () => {
  const t = await testApp();
  try {
    await signUp(t);
    const res = await t.app.request(
      "/login",
      form({ email: "ann@example.com", password: "nope-nope" }),
    );
    assert.equal(res.status, 401);
    assert.equal(res.headers.get("content-type"), "text/html; charset=UTF-8");
    const html = await res.text();
    assert.match(html, /Invalid email or password\./);
    assert.match(html, /value="ann@example.com"/);
  } finally {
    await t.close();
  }
});

Deno.test("pages use the user's language and theme, else the cookies, with lang and data-theme set", async () => {
  const t = await testApp();
  try {
    const anonymous = await t.app.request("/login", {
      headers: { cookie: "locale=ja; theme=light" },
    });
    const html = await anonymous.text();
    assert.match(html, /^<!DOCTYPE html><html lang="ja" data-theme="light">/);
    assert.match(html, /<h1>ログイン<\/h1>/);

    // Registering from a Japanese, light page keeps those choices.
    const res = await t.app.request("/register", {
      ...form({ displayName: "Ann", email: "ann@example.com", password: "password-ann" }),
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        cookie: "locale=ja; theme=light",
      },
    });
    const cookie = cookiesOf(res);
    const me = await (await t.app.request("/api/auth/me", { headers: { cookie } })).json();
    assert.equal(me.user.locale, "ja");
    assert.equal(me.user.theme, "light");

    // The user's own settings win over stale cookies.
    const settings = await t.app.request(
      "/settings",
      form({ displayName: "Ann", theme: "dark", locale: "en" }),
    );
    await settings.body?.cancel();
    const saved = await t.app.request("/settings", {
      ...form({ displayName: "Ann K", theme: "dark", locale: "en" }),
      headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    });
    assert.equal(saved.status, 303);
    assert.equal(saved.headers.get("location"), "/settings?saved=1");
    assert.ok(saved.headers.getSetCookie().some((c) => c.startsWith("theme=dark")));
    const page = await t.app.request("/", {
      headers: { cookie: `${cookie}; locale=ja; theme=light` },
    });
    const body = await page.text();
    assert.match(body, /<html lang="en" data-theme="dark">/);
    assert.match(body, /Welcome, Ann K\./);
  } finally {
    await t.close();
  }
});

Deno.test("pages carry a CSP without inline script and no-store when logged in", async () => {
  const t = await testApp();
  try {
    const cookie = await signUp(t);
    const res = await t.app.request("/", { headers: { cookie } });
    const csp = res.headers.get("content-security-policy") ?? "";
    assert.match(csp, /default-src 'self'/);
    assert.doesNotMatch(csp, /unsafe-inline/);
    assert.equal(res.headers.get("cache-control"), "no-store");
    const html = await res.text();
    assert.doesNotMatch(html, /<script>(?!<\/script>)/, "no inline script");
    assert.doesNotMatch(html, /style="/, "no inline style");
  } finally {
    await t.close();
  }
});

Deno.test("a project can be created and a member added with plain forms", async () => {
  const t = await testApp();
  try {
    const bo = await signUp(t, "bo@example.com");
    assert.ok(bo);
    const cookie = await signUp(t, "ann@example.com");
    const headers = { "content-type": "application/x-www-form-urlencoded", cookie };
    const created = await t.app.request("/projects", {
      method: "POST",
      headers,
      body: "name=%3Cb%3EPlan%3C%2Fb%3E&description=Q1",
    });
    assert.equal(created.status, 303);
    const createdAt = created.headers.get("location")!;
    assert.match(createdAt, /^\/projects\/\d+\?created=project-\d+$/);
    const path = createdAt.split("?")[0]!;
    const createdPage = await (await t.app.request(createdAt, { headers: { cookie } })).text();
    assert.match(createdPage, /<div class="success" role="status"[^>]*>Project created\.<\/div>/);
    const added = await t.app.request(`${path}/members`, {
      method: "POST",
      headers,
      body: "email=BO%40example.com&role=viewer",
    });
    assert.equal(added.status, 303);
    const addedAt = added.headers.get("location")!;
    assert.match(addedAt, new RegExp(`^${path}\\?created=member-\\d+#members$`));
    const addedPage = await (await t.app.request(addedAt, { headers: { cookie } })).text();
    assert.match(addedPage, /role="status"[^>]*>Member added\.<\/div>/);
    const page = await (await t.app.request(path, { headers: { cookie } })).text();
    assert.doesNotMatch(page, /Member added/, "the notice belongs to the redirect only");
    assert.match(page, /<h1>&lt;b&gt;Plan&lt;\/b&gt;<\/h1>/, "user text is escaped");
    assert.match(page, /data-member="bo@example.com"/);
    // Adding again is refused with a message on the page, not a crash.
    const again = await t.app.request(`${path}/members`, {
      method: "POST",
      headers,
      body: "email=bo@example.com&role=member",
    });
    assert.equal(again.status, 409);
    const againPage = await again.text();
    assert.match(againPage, /This user is already a member\./);
    assert.doesNotMatch(againPage, /at least one owner/);
  } finally {
    await t.close();
  }
});

Deno.test("member and project forms explain each refusal on the project page, in the user's language", async () => {
  const t = await testApp();
  try {
    const cookie = await signUp(t, "ann@example.com");
    const headers = { "content-type": "application/x-www-form-urlencoded", cookie };
    const created = await t.app.request("/projects", {
      method: "POST",
      headers,
      body: "name=Plan",
    });
    const path = created.headers.get("location")!.split("?")[0]!;
    const post = (suffix: string, body: string) =>
      t.app.request(`${path}${suffix}`, { method: "POST", headers, body });

    const unknown = await post("/members", "email=nobody%40example.com&role=member");
    assert.equal(unknown.status, 404);
    const unknownPage = await unknown.text();
    assert.match(unknownPage, /No user has this email\./);
    assert.match(unknownPage, /<h1>Plan<\/h1>/, "the project page, not the 404 page");

    const badRoleForNew = await post("/members", "email=ann%40example.com&role=emperor");
    assert.equal(badRoleForNew.status, 400);
    assert.match(await badRoleForNew.text(), /Please correct the highlighted fields\./);

    const blank = await post("", "name=+++&description=");
    assert.equal(blank.status, 400);
    assert.match(await blank.text(), /Please correct the highlighted fields\./);
    const page = await (await t.app.request(path, { headers: { cookie } })).text();
    assert.match(page, /<h1>Plan<\/h1>/, "the name is unchanged");

    const me = (await (await t.app.request("/api/auth/me", { headers: { cookie } })).json()).user;
    const badRole = await post(`/members/${me.id}`, "role=emperor");
    assert.equal(badRole.status, 400);
    await badRole.body?.cancel();

    // In Japanese too.
    const settings = await t.app.request("/settings", {
      method: "POST",
      headers,
      body: "displayName=Ann&locale=ja&theme=dark",
    });
    await settings.body?.cancel();
    const ja = await post("/members", "email=nobody%40example.com&role=member");
    assert.equal(ja.status, 404);
    assert.match(await ja.text(), /このメールアドレスのユーザーは見つかりません。/);
  } finally {
    await t.close();
  }
});

Deno.test("the admin page is for admins; others get the 404 page", async () => {
  const t = await testApp();
  try {
    const admin = await signUp(t, "root@example.com");
    const member = await signUp(t, "ann@example.com");
    const ok = await t.app.request("/admin", { headers: { cookie: admin } });
    assert.equal(ok.status, 200);
    const html = await ok.text();
    assert.match(html, /collaboration_base/);
    assert.match(html, /data-user-row="ann@example.com"/);
    const refused = await t.app.request("/admin", { headers: { cookie: member } });
    assert.equal(refused.status, 404);
    await refused.body?.cancel();
  } finally {
    await t.close();
  }
});

Deno.test("every English string has a Japanese translation that is not a placeholder", () => {
  assert.deepEqual(Object.keys(ja).sort(), Object.keys(en).sort());
  const sameAllowed = new Set(["app.name", "locale.en", "locale.ja"]);
  for (const key of Object.keys(en) as Array<keyof typeof en>) {
    if (sameAllowed.has(key)) continue;
    assert.notEqual(ja[key], en[key], key);
    assert.match(ja[key], /[\u3040-\u30ff\u4e00-\u9fff]/, `${key} is Japanese`);
  }
});

Deno.test("static files are served with a type and an ETag", async () => {
  const t = await testApp();
  try {
    const css = await t.app.request("/static/app.css");
    assert.equal(css.status, 200);
    assert.equal(css.headers.get("content-type"), "text/css; charset=utf-8");
    const etag = css.headers.get("etag")!;
    assert.match(await css.text(), /data-theme="light"/);
    const again = await t.app.request("/static/app.css", { headers: { "if-none-match": etag } });
    assert.equal(again.status, 304);
    const missing = await t.app.request("/static/../deno.json");
    assert.notEqual(missing.status, 200);
    await missing.body?.cancel();
  } finally {
    await t.close();
  }
});

Deno.test("the register, login and logout forms answer Cache-Control: no-store with the session cookie", async () => {
  const t = await testApp();
  try {
    const registered = await t.app.request(
      "/register",
      form({ displayName: "Ann", email: "ann@example.com", password: "password-ann" }),
    );
    const loggedIn = await t.app.request(
      "/login",
      form({ email: "ann@example.com", password: "password-ann", next: "/" }),
    );
    const loggedOut = await t.app.request("/logout", {
      ...form({}),
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        cookie: cookiesOf(loggedIn),
      },
    });
    for (
      const [what, res] of [["register", registered], ["login", loggedIn], [
        "logout",
        loggedOut,
      ]] as const
    ) {
      assert.equal(res.status, 303, what);
      assert.ok(res.headers.getSetCookie().some((c) => c.startsWith("session=")), what);
      assert.equal(res.headers.get("cache-control"), "no-store", what);
    }
  } finally {
    await t.close();
  }
});

Deno.test("the register, login and add-member forms accept an email with blanks around it, in any case", async () => {
  const t = await testApp();
  try {
    const owner = await signUp(t, " ANN@Example.com ");
    const loggedIn = await t.app.request(
      "/login",
      form({ email: "\tann@EXAMPLE.com ", password: "password-ann", next: "/" }),
    );
    assert.equal(loggedIn.status, 303);
    await signUp(t, "bo@example.com");
    const created = await t.app.request("/projects", {
      ...form({ name: "Launch", description: "" }),
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: owner },
    });
    assert.equal(created.status, 303);
    const base = created.headers.get("location")!.split("?")[0]!;
    const added = await t.app.request(`${base}/members`, {
      ...form({ email: "  BO@example.COM  ", role: "member" }),
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: owner },
    });
    assert.equal(added.status, 303, await added.text());
    const members = (await t.sql.all<{ email: string }>(
      "SELECT u.email FROM project_members m JOIN users u ON u.id = m.user_id ORDER BY u.email",
    )).map((r) => r.email);
    assert.deepEqual(members, ["ann@example.com", "bo@example.com"]);
  } finally {
    await t.close();
  }
});
