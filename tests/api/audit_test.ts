/**
 * The audit log (operations: "Audit log"): each audited action writes exactly one row in its
 * own transaction (with actor, target, details, client address and request id), a failed one
 * none; a failed sign-in keeps the email tried and never the password, within the login
 * throttle's bounds; the admin list filters, pages and refuses malformed filters; old rows
 * are swept with the trash.
 */
import assert from "node:assert/strict";
import { testApp } from "../helpers/app.ts";
import {
  api,
  createProject,
  expectError,
  expectJson,
  expectNoContent,
  type Json,
  PASSWORD,
  signUp,
} from "../helpers/api.ts";

/** Every audit row, oldest first, as the admin list shows it. */
async function rows(t: Awaited<ReturnType<typeof testApp>>, cookie: string): Promise<Json[]> {
  const page = expectJson(
    await api(t, "GET", "/api/admin/audit?pageSize=100", { cookie }),
    200,
  );
  return [...page.items].reverse();
}

Deno.test("sign-in, its failures and sign-out write one row each, with the request's id and address; never the password", async () => {
  const t = await testApp();
  try {
    const admin = await signUp(t, "root@example.com");
    const wrong = "a secret wrong password";
    const failed = await api(t, "POST", "/api/auth/login", {
      body: { email: "Root@Example.com", password: wrong },
      headers: { "x-request-id": "req-failed-1" },
    });
    expectError(failed, 401, "unauthenticated");
    const unknown = await api(t, "POST", "/api/auth/login", {
      body: { email: "nobody@example.com", password: wrong },
    });
    expectError(unknown, 401, "unauthenticated");
    const ok = await api(t, "POST", "/api/auth/login", {
      body: { email: "root@example.com", password: PASSWORD },
      headers: { "x-request-id": "req-login-1" },
    });
    expectJson(ok, 200);
    const cookie = ok.headers.get("set-cookie")!.split(";")[0]!;
    const all = await rows(t, admin.cookie);
    assert.deepEqual(all.map((r) => r.action), [
      "auth.login_failed",
      "auth.login_failed",
      "auth.login",
    ]);
    const [first, second, login] = all;
    assert.equal(first.actorId, null);
    assert.equal(first.actorEmail, "root@example.com");
    assert.equal(first.requestId, "req-failed-1");
    assert.equal(first.clientAddress, "local");
    assert.deepEqual(first.details, { reason: "wrong_password" });
    assert.equal(second.actorEmail, "nobody@example.com");
    assert.equal(second.requestId, unknown.headers.get("x-request-id"));
    assert.equal(login.actorId, admin.user.id);
    assert.equal(login.actorEmail, "root@example.com");
    assert.equal(login.requestId, "req-login-1");
    assert.deepEqual([login.targetType, login.targetId], ["user", admin.user.id]);
    const stored = JSON.stringify(await t.sql.all("SELECT * FROM audit_log"));
    assert.ok(!stored.includes(wrong), "the password tried is nowhere in the log");

    expectNoContent(await api(t, "POST", "/api/auth/logout", { cookie }));
    const after = await rows(t, admin.cookie);
    assert.equal(after.at(-1).action, "auth.logout");
    assert.equal(after.at(-1).actorId, admin.user.id);
  } finally {
    await t.close();
  }
});

Deno.test("failed sign-ins are recorded only as far as the login throttle admits them", async () => {
  const t = await testApp();
  try {
    const admin = await signUp(t, "root@example.com");
    let refused = 0;
    for (let i = 0; i < 12; i++) {
      const res = await api(t, "POST", "/api/auth/login", {
        body: { email: "victim@example.com", password: `guess ${i}` },
      });
      if (res.status === 429) refused++;
    }
    assert.ok(refused > 0, "the throttle refused some");
    const failures = (await rows(t, admin.cookie)).filter((r) => r.action === "auth.login_failed");
    assert.equal(failures.length, 12 - refused, "a refused attempt writes no row");
  } finally {
    await t.close();
  }
});

Deno.test("role and status changes, tokens and webhooks write exactly one row each; refused ones none", async () => {
  const t = await testApp({ env: { WEBHOOK_ALLOW_HOSTS: "127.0.0.1" } });
  try {
    const admin = await signUp(t, "root@example.com");
    const bea = await signUp(t, "bea@example.com");
    const base = await t.sql.count("audit_log");
    const patch = (userId: number, body: unknown) =>
      api(t, "PATCH", `/api/admin/users/${userId}`, { cookie: admin.cookie, body });

    // The last admin cannot lose their rights: the transaction rolls back, no row.
    expectError(await patch(admin.user.id, { role: "member" }), 409, "conflict");
    assert.equal(await t.sql.count("audit_log"), base);

    expectJson(await patch(bea.user.id, { role: "admin" }), 200);
    expectJson(await patch(bea.user.id, { status: "disabled" }), 200);
    // No change, no row.
    expectJson(await patch(bea.user.id, { status: "disabled" }), 200);

    const token = expectJson(
      await api(t, "POST", "/api/tokens", {
        cookie: admin.cookie,
        body: { name: "ci", scope: "read" },
      }),
      201,
    );
    expectError(
      await api(t, "DELETE", "/api/tokens/999999", { cookie: admin.cookie }),
      404,
      "not_found",
    );
    expectNoContent(
      await api(t, "DELETE", `/api/tokens/${token.token.id}`, { cookie: admin.cookie }),
    );

    const project = await createProject(t, admin.cookie, "Hooks");
    const hooks = `/api/projects/${project.id}/webhooks`;
    const secretQuery = "key=receiver-secret-123";
    const hook = expectJson(
      await api(t, "POST", hooks, {
        cookie: admin.cookie,
        body: { url: `http://127.0.0.1:9/hook?${secretQuery}`, events: ["chat.message.created"] },
      }),
      201,
    );
    expectError(
      await api(t, "POST", hooks, {
        cookie: admin.cookie,
        body: { url: "http://127.0.0.1:9/hook", events: ["no.such.event"] },
      }),
      400,
      "validation",
    );
    expectJson(
      await api(t, "PATCH", `${hooks}/${hook.webhook.id}`, {
        cookie: admin.cookie,
        body: { active: false },
      }),
      200,
    );
    expectNoContent(
      await api(t, "DELETE", `${hooks}/${hook.webhook.id}`, { cookie: admin.cookie }),
    );

    const all = (await rows(t, admin.cookie)).slice(base);
    assert.deepEqual(all.map((r) => r.action), [
      "user.role_changed",
      "user.status_changed",
      "token.created",
      "token.revoked",
      "webhook.created",
      "webhook.updated",
      "webhook.deleted",
    ]);
    const [role, status, created, revoked, hookCreated] = all;
    assert.deepEqual(role.details, { from: "member", to: "admin" });
    assert.deepEqual([role.actorId, role.targetType, role.targetId], [
      admin.user.id,
      "user",
      bea.user.id,
    ]);
    assert.deepEqual(status.details, { from: "active", to: "disabled" });
    assert.deepEqual([created.targetType, created.targetId], ["token", token.token.id]);
    assert.equal(revoked.targetId, token.token.id);
    assert.equal(hookCreated.details.host, "127.0.0.1:9");
    const stored = JSON.stringify(await t.sql.all("SELECT * FROM audit_log"));
    assert.ok(!stored.includes(secretQuery), "a webhook URL's query is not recorded");
    assert.ok(!stored.includes(token.secret), "a token's secret is not recorded");
  } finally {
    await t.close();
  }
});

Deno.test("GET /api/admin/audit filters by action, actor, target type and time, newest first, paged; malformed filters are 400; admins only", async () => {
  const t = await testApp();
  try {
    const admin = await signUp(t, "root@example.com");
    const bea = await signUp(t, "bea@example.com");
    for (let i = 0; i < 3; i++) {
      await api(t, "POST", "/api/auth/login", {
        body: { email: "bea@example.com", password: PASSWORD },
      });
      t.clock.advance(60_000);
    }
    await api(t, "POST", "/api/auth/login", {
      body: { email: "bea@example.com", password: "wrong password" },
    });
    const get = (query: string, cookie = admin.cookie) =>
      api(t, "GET", `/api/admin/audit${query}`, { cookie });

    const logins = expectJson(await get("?action=auth.login&pageSize=2"), 200);
    assert.equal(logins.total, 3);
    assert.equal(logins.items.length, 2);
    assert.equal(logins.hasMore, true);
    assert.ok(logins.items[0].id > logins.items[1].id, "newest first");
    const second = expectJson(await get("?action=auth.login&pageSize=2&page=2"), 200);
    assert.equal(second.items.length, 1);

    assert.equal(expectJson(await get(`?actorId=${bea.user.id}`), 200).total, 3);
    assert.equal(expectJson(await get("?targetType=user"), 200).total, 3);
    assert.equal(expectJson(await get("?action=auth.login_failed"), 200).total, 1);
    const from = new Date(Date.parse("2026-11-22T08:30:00.000Z") + 60_000).toISOString();
    const to = new Date(Date.parse("2026-11-22T08:30:00.000Z") + 120_000).toISOString();
    const window = expectJson(await get(`?from=${from}&to=${to}`), 200);
    assert.deepEqual(window.items.map((r: Json) => r.at), [from]);

    for (
      const bad of [
        "?action=auth.nothing",
        "?actorId=abc",
        "?actorId=0",
        "?targetType=User%20X",
        "?from=yesterday",
        "?to=2026-13-40T00:00:00Z",
      ]
    ) {
      expectError(await get(bad), 400, "validation");
    }
    expectError(await get("", bea.cookie), 403, "forbidden");
    expectError(await api(t, "GET", "/api/admin/audit"), 401, "unauthenticated");
  } finally {
    await t.close();
  }
});

Deno.test("rows older than AUDIT_DAYS are swept (after the trash, hourly); younger ones stay", async () => {
  const t = await testApp({ env: { AUDIT_DAYS: "10" } });
  try {
    await signUp(t, "root@example.com");
    await api(t, "POST", "/api/auth/login", {
      body: { email: "root@example.com", password: "wrong password" },
    });
    t.clock.advance(10 * 86_400_000 - 1);
    await api(t, "POST", "/api/auth/login", {
      body: { email: "root@example.com", password: "wrong password" },
    });
    assert.equal(await t.app.services.auditLog.sweep(), 0, "a moment early");
    t.clock.advance(1);
    assert.equal(await t.app.services.auditLog.sweep(), 1);
    assert.equal(await t.sql.count("audit_log"), 1);
  } finally {
    await t.close();
  }
});
