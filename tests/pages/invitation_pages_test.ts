/**
 * The invitation pages without a browser: the register page saying why it is closed (en, ja),
 * the invite form on the project page and its refusals, the link shown once, the link's page and
 * its accept form, the one 404 page of a link that does not work, and the admin's list.
 */
import assert from "node:assert/strict";
import { testApp } from "../helpers/app.ts";
import { api, createProject, expectJson, PASSWORD, signUp } from "../helpers/api.ts";
import { page, post } from "./page_requests.ts";

const tokenIn = (html: string) => /\/invite\/([A-Za-z0-9_-]{43})/.exec(html)?.[1];

for (
  const [mode, en, ja] of [
    ["invite", /by invitation only: open the invitation link/, /招待制です。届いた招待リンク/],
    ["closed", /Registration is closed on this server/, /新規登録を受け付けていません/],
  ] as const
) {
  Deno.test(`REGISTRATION=${mode}: the register page says why, in en and ja, and a posted form is refused 403`, async () => {
    const t = await testApp({ env: { REGISTRATION: mode } });
    try {
      // An empty server: the first account registers from the page.
      const empty = await page(t, "", "/register");
      assert.match(empty.html, /name="password"/);
      await signUp(t, "root@example.com");
      const english = await page(t, "locale=en", "/register");
      assert.equal(english.status, 200);
      assert.match(english.html, en);
      assert.doesNotMatch(english.html, /name="password"/);
      assert.match((await page(t, "locale=ja", "/register")).html, ja);
      const refused = await post(t, "locale=en", "/register", {
        displayName: "Late",
        email: "late@example.com",
        password: PASSWORD,
      });
      assert.equal(refused.status, 403);
      assert.match(refused.html, en);
      assert.equal(await t.sql.count("users"), 1);
    } finally {
      await t.close();
    }
  });
}

Deno.test("REGISTRATION_DOMAINS: the register form says the domain is not allowed, next to the email", async () => {
  const t = await testApp({ env: { REGISTRATION_DOMAINS: "example.com" } });
  try {
    await signUp(t, "root@example.com");
    const refused = await post(t, "locale=ja", "/register", {
      displayName: "X",
      email: "x@other.org",
      password: PASSWORD,
    });
    assert.equal(refused.status, 403);
    assert.match(refused.html, /このメールアドレスのドメインではアカウントを登録できません/);
  } finally {
    await t.close();
  }
});

Deno.test("the project page's invite form: link shown once with Copy, the list with Send again and Revoke; refusals shown on the invitations page", async () => {
  const t = await testApp();
  try {
    const owner = await signUp(t, "owner@example.com", { displayName: "Olivia" });
    const member = await signUp(t, "member@example.com");
    const project = await createProject(t, owner.cookie, "Apollo");
    const base = `/projects/${project.id}`;
    const shown = await page(t, owner.cookie, base);
    assert.match(shown.html, /data-invite-form/);
    const made = await post(t, owner.cookie, `${base}/invitations`, {
      email: "guest@example.com",
      role: "viewer",
    });
    assert.equal(made.status, 201);
    assert.match(made.html, /data-copy="invitation-link"/);
    const token = tokenIn(made.html);
    assert.ok(token);
    const listed = await page(t, owner.cookie, base);
    assert.match(listed.html, /data-invitation="guest@example.com" data-state="pending"/);
    assert.ok(!listed.html.includes(token!), "the list never shows a link");

    // Refusals: a member, and a bad address.
    await api(t, "POST", `/api/projects/${project.id}/members`, {
      cookie: owner.cookie,
      body: { email: "member@example.com", role: "member" },
    });
    assert.doesNotMatch((await page(t, member.cookie, base)).html, /data-invite-form/);
    const already = await post(t, owner.cookie, `${base}/invitations`, {
      email: "member@example.com",
      role: "member",
    });
    assert.equal(already.status, 409);
    assert.match(already.html, /This person is already a member/);
    const bad = await post(t, owner.cookie, `${base}/invitations`, {
      email: "nope",
      role: "member",
    });
    assert.equal(bad.status, 400);
    const forbidden = await post(t, member.cookie, `${base}/invitations`, {
      email: "x@example.com",
      role: "member",
    });
    assert.equal(forbidden.status, 403);

    // Revoked from the list: the link's page is the one 404 page.
    const id = expectJson(
      await api(t, "GET", `/api/projects/${project.id}/invitations`, { cookie: owner.cookie }),
      200,
    ).items[0].id;
    const revoked = await post(t, owner.cookie, `${base}/invitations/${id}/revoke`);
    assert.equal(revoked.status, 303);
    const gone = await page(t, "", `/invite/${token}`);
    assert.equal(gone.status, 404);
    assert.match(gone.html, /This link does not work/);
    assert.equal((await page(t, "", "/invite/whatever")).html, gone.html);
  } finally {
    await t.close();
  }
});

Deno.test("the link's page: who invited whom to what and until when; its form makes the account and leads into the project; a short password is refused and the link still works", async () => {
  const t = await testApp();
  try {
    const owner = await signUp(t, "owner@example.com", { displayName: "Olivia" });
    const project = await createProject(t, owner.cookie, "Apollo");
    const made = expectJson(
      await api(t, "POST", `/api/projects/${project.id}/invitations`, {
        cookie: owner.cookie,
        body: { email: "guest@example.com", role: "member" },
      }),
      201,
    );
    const path = new URL(made.url).pathname;
    const ja = await page(t, "locale=ja", path);
    assert.equal(ja.status, 200);
    assert.match(
      ja.html,
      /Oliviaさんが guest@example.com をプロジェクト「Apollo」にメンバーとして招待しました/,
    );
    const en = await page(t, "locale=en", path);
    assert.match(en.html, /Olivia invited guest@example.com to the project “Apollo” as member/);
    assert.match(en.html, /This link works until 29 Nov 2026, 08:30/);
    const short = await post(t, "", path, { displayName: "Guest", password: "short" });
    assert.equal(short.status, 400);
    assert.equal(await t.sql.count("users"), 1);
    const done = await post(t, "locale=ja", path, { displayName: "Guest", password: PASSWORD });
    assert.equal(done.status, 303);
    assert.equal(done.location, `/projects/${project.id}`);
    const cookie = done.headers.getSetCookie().find((c) => c.startsWith("session="))!
      .split(";")[0]!;
    const me = expectJson(await api(t, "GET", "/api/auth/me", { cookie }), 200).user;
    assert.equal(me.email, "guest@example.com");
    assert.equal(me.locale, "ja");
    assert.equal((await page(t, cookie, `/projects/${project.id}`)).status, 200);
    const again = await post(t, "", path, { displayName: "Guest", password: PASSWORD });
    assert.equal(again.status, 404);
    assert.match(again.html, /data-invite-broken/);
  } finally {
    await t.close();
  }
});

Deno.test("the admin page lists the server's invitations and invites as admin or member; others get the 404 page", async () => {
  const t = await testApp();
  try {
    const admin = await signUp(t, "root@example.com");
    const member = await signUp(t, "member@example.com");
    const made = await post(t, admin.cookie, "/admin/invitations", {
      email: "boss@example.com",
      role: "admin",
    });
    assert.equal(made.status, 201);
    assert.ok(tokenIn(made.html));
    const shown = await page(t, admin.cookie, "/admin");
    assert.match(shown.html, /data-invitation="boss@example.com" data-state="pending"/);
    assert.equal((await page(t, member.cookie, "/admin/invitations")).status, 404);
    assert.equal(
      (await post(t, member.cookie, "/admin/invitations", {
        email: "x@example.com",
        role: "member",
      }))
        .status,
      404,
    );
  } finally {
    await t.close();
  }
});
