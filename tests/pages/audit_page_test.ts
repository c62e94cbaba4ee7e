/**
 * The audit log's page (/admin/audit): admins only (others the 404 page), linked from the
 * admin page, the API's filters (action, actor, target type, dates in the viewer's zone,
 * paging that keeps the filters), a malformed filter refused with 400, in English and Japanese.
 */
import assert from "node:assert/strict";
import { type TestApp, testApp } from "../helpers/app.ts";
import { api, expectJson, signUp } from "../helpers/api.ts";
import { page } from "./page_requests.ts";

/** The ids of the audit rows a page shows, in its order. */
function shownIds(html: string): number[] {
  return [...html.matchAll(/data-audit-row="(\d+)"/g)].map((m) => Number(m[1]));
}

async function failLogin(t: TestApp, email: string) {
  await api(t, "POST", "/api/auth/login", { body: { email, password: "wrong password" } });
}

async function idsOf(t: TestApp, action: string): Promise<number[]> {
  return (await t.sql.all<{ id: number }>(
    "SELECT id FROM audit_log WHERE action = ? ORDER BY id DESC",
    [action],
  )).map((r) => Number(r.id));
}

Deno.test("the audit page filters by action, actor and target type, newest first; admins only, linked from /admin", async () => {
  const t = await testApp();
  try {
    const admin = await signUp(t, "root@example.com");
    const bea = await signUp(t, "bea@example.com");
    await failLogin(t, "bea@example.com");
    expectJson(
      await api(t, "PATCH", `/api/admin/users/${bea.user.id}`, {
        cookie: admin.cookie,
        body: { role: "admin" },
      }),
      200,
    );
    expectJson(
      await api(t, "PATCH", `/api/admin/users/${bea.user.id}`, {
        cookie: admin.cookie,
        body: { role: "member" },
      }),
      200,
    );
    const roles = await idsOf(t, "user.role_changed");
    const failed = await idsOf(t, "auth.login_failed");

    const adminPage = await page(t, admin.cookie, "/admin");
    assert.match(adminPage.html, /<a href="\/admin\/audit" data-audit-link="true">/);

    const all = await page(t, admin.cookie, "/admin/audit");
    assert.equal(all.status, 200);
    assert.match(all.html, /<h1>Audit log<\/h1>/);
    const every = shownIds(all.html);
    assert.deepEqual(every, [...every].sort((a, b) => b - a), "newest first");
    assert.ok(roles.every((id) => every.includes(id)) && failed.every((id) => every.includes(id)));

    const byAction = await page(t, admin.cookie, "/admin/audit?action=user.role_changed");
    assert.deepEqual(shownIds(byAction.html), roles);
    assert.match(byAction.html, /<option value="user.role_changed" selected>/);
    const byActor = await page(t, admin.cookie, `/admin/audit?actorId=${admin.user.id}`);
    assert.deepEqual(shownIds(byActor.html), roles);
    const byTarget = await page(t, admin.cookie, "/admin/audit?targetType=user&action=");
    assert.deepEqual(shownIds(byTarget.html), roles);
    const none = await page(t, admin.cookie, "/admin/audit?action=backup.downloaded");
    assert.deepEqual(shownIds(none.html), []);
    assert.match(none.html, /No audit entries match/);

    // Refused: not an admin, or not signed in.
    assert.equal((await page(t, bea.cookie, "/admin/audit")).status, 404);
    assert.notEqual((await t.app.request("/admin/audit")).status, 200);
  } finally {
    await t.close();
  }
});

Deno.test("the audit page's dates are the viewer's days in their zone; a date that is none is 400", async () => {
  // 2026-11-22 08:30 UTC is 17:30 in Tokyo.
  const t = await testApp();
  try {
    const admin = await signUp(t, "root@example.com");
    expectJson(
      await api(t, "PATCH", "/api/users/me", {
        cookie: admin.cookie,
        body: { timeZone: "Asia/Tokyo", locale: "ja" },
      }),
      200,
    );
    await failLogin(t, "a@example.com"); // 22 November in UTC and in Tokyo
    t.clock.advance(7 * 3_600_000);
    await failLogin(t, "b@example.com"); // 15:30 UTC on the 22nd: 00:30 on the 23rd in Tokyo
    const [late, early] = await idsOf(t, "auth.login_failed");

    const day = (from: string, to: string) =>
      page(t, admin.cookie, `/admin/audit?action=auth.login_failed&from=${from}&to=${to}`);
    assert.deepEqual(shownIds((await day("2026-11-23", "2026-11-23")).html), [late]);
    assert.deepEqual(shownIds((await day("2026-11-22", "2026-11-22")).html), [early]);
    assert.deepEqual(shownIds((await day("2026-11-22", "2026-11-23")).html), [late, early]);
    assert.deepEqual(shownIds((await day("2026-11-24", "")).html), []);

    const ja = await day("2026-11-23", "2026-11-23");
    assert.match(ja.html, /<h1>監査ログ<\/h1>/);
    assert.match(ja.html, /Asia\/Tokyo/);

    for (const bad of ["from=2026-02-30", "to=yesterday", "action=auth.nothing", "actorId=abc"]) {
      const refused = await page(t, admin.cookie, `/admin/audit?${bad}`);
      assert.equal(refused.status, 400, bad);
      assert.deepEqual(shownIds(refused.html), [], bad);
      assert.match(refused.html, /正しくない条件があります/, bad);
    }
  } finally {
    await t.close();
  }
});

Deno.test("the audit page pages its rows, and its page links keep the filters", async () => {
  const t = await testApp();
  try {
    const admin = await signUp(t, "root@example.com");
    for (let i = 0; i < 25; i++) {
      await t.sql.run(
        `INSERT INTO audit_log (at, actor_id, actor_email, action, target_type, target_id, details,
           client_address, request_id)
         VALUES (?, NULL, ?, 'auth.login_failed', NULL, NULL, '{}', 'local', ?)`,
        [
          new Date(Date.parse("2026-11-20T00:00:00Z") + i * 1000).toISOString(),
          `x${i}@e.org`,
          `r${i}`,
        ],
      );
    }
    const first = await page(t, admin.cookie, "/admin/audit?action=auth.login_failed");
    assert.equal(shownIds(first.html).length, 20);
    const next = /<a href="([^"]+)" rel="next">/.exec(first.html)?.[1]?.replaceAll("&amp;", "&");
    assert.equal(next, "/admin/audit?action=auth.login_failed&page=2");
    const second = await page(t, admin.cookie, next!);
    assert.equal(shownIds(second.html).length, 5);
    assert.match(second.html, /x0@e\.org/);
  } finally {
    await t.close();
  }
});
