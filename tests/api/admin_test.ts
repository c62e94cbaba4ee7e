/** Administration: users, roles, disabling, and the migration listing. */
import assert from "node:assert/strict";
import { testApp } from "../helpers/app.ts";
import { api, expectError, expectJson, login, PASSWORD, register, signUp } from "../helpers/api.ts";

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

Deno.test("GET /api/admin/users lists every user for an admin", async () => {
  const t = await testApp();
  try {
    const admin = await signUp(t, "root@example.com");
    const ada = await signUp(t, "ada@example.com");
    const bob = await signUp(t, "bob@example.com");
    const res = await api(t, "GET", "/api/admin/users", { cookie: admin.cookie });
    const { items } = expectJson(res, 200);
    assert.equal(items.length, 3);
    for (const user of items) assert.deepEqual(Object.keys(user).sort(), USER_KEYS);
    const byId = new Map(items.map((u: { id: number }) => [u.id, u]));
    assert.deepEqual(byId.get(admin.user.id), admin.user);
    assert.deepEqual(byId.get(ada.user.id), ada.user);
    assert.deepEqual(byId.get(bob.user.id), bob.user);
    assert.ok(!res.text.includes("scrypt"));
    assert.equal(res.headers.get("cache-control"), "no-store");
  } finally {
    await t.close();
  }
});

Deno.test("GET /api/admin/users is 403 for a member", async () => {
  const t = await testApp();
  try {
    await register(t, "root@example.com");
    const cookie = await register(t, "ada@example.com");
    expectError(await api(t, "GET", "/api/admin/users", { cookie }), 403, "forbidden");
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /api/admin/users/:id promotes a member to admin, who may then administer", async () => {
  const t = await testApp();
  try {
    const admin = await signUp(t, "root@example.com");
    const ada = await signUp(t, "ada@example.com");
    const res = await api(t, "PATCH", `/api/admin/users/${ada.user.id}`, {
      cookie: admin.cookie,
      body: { role: "admin" },
    });
    assert.deepEqual(expectJson(res, 200), { user: { ...ada.user, role: "admin" } });
    // Her existing session now acts as an admin.
    expectJson(await api(t, "GET", "/api/admin/users", { cookie: ada.cookie }), 200);
    const me = await api(t, "GET", "/api/auth/me", { cookie: ada.cookie });
    assert.equal(expectJson(me, 200).user.role, "admin");
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /api/admin/users/:id demotes an admin when another admin remains", async () => {
  const t = await testApp();
  try {
    const admin = await signUp(t, "root@example.com");
    const ada = await signUp(t, "ada@example.com");
    await api(t, "PATCH", `/api/admin/users/${ada.user.id}`, {
      cookie: admin.cookie,
      body: { role: "admin" },
    });
    const res = await api(t, "PATCH", `/api/admin/users/${admin.user.id}`, {
      cookie: ada.cookie,
      body: { role: "member" },
    });
    assert.equal(expectJson(res, 200).user.role, "member");
    expectError(
      await api(t, "GET", "/api/admin/users", { cookie: admin.cookie }),
      403,
      "forbidden",
    );
    // Now Ada is the last admin.
    const last = await api(t, "PATCH", `/api/admin/users/${ada.user.id}`, {
      cookie: ada.cookie,
      body: { role: "member" },
    });
    expectError(last, 409, "conflict");
    assert.equal(
      expectJson(await api(t, "GET", "/api/auth/me", { cookie: ada.cookie }), 200)
        .user.role,
      "admin",
    );
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /api/admin/users/:id refuses to demote or disable the last admin with 409", async () => {
  const t = await testApp();
  try {
    const admin = await signUp(t, "root@example.com");
    await register(t, "ada@example.com");
    for (
      const body of [{ role: "member" }, { status: "disabled" }, {
        role: "member",
        status: "disabled",
      }]
    ) {
      const res = await api(t, "PATCH", `/api/admin/users/${admin.user.id}`, {
        cookie: admin.cookie,
        body,
      });
      expectError(res, 409, "conflict");
    }
    const me = await api(t, "GET", "/api/auth/me", { cookie: admin.cookie });
    assert.deepEqual(expectJson(me, 200).user, admin.user);
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /api/admin/users/:id disabling a user ends their sessions and stops their login", async () => {
  const t = await testApp();
  try {
    const admin = await signUp(t, "root@example.com");
    const ada = await signUp(t, "ada@example.com");
    const second = await login(t, "ada@example.com");
    expectJson(await api(t, "GET", "/api/auth/me", { cookie: ada.cookie }), 200);

    const res = await api(t, "PATCH", `/api/admin/users/${ada.user.id}`, {
      cookie: admin.cookie,
      body: { status: "disabled" },
    });
    assert.deepEqual(expectJson(res, 200), { user: { ...ada.user, status: "disabled" } });

    for (const cookie of [ada.cookie, second]) {
      expectError(await api(t, "GET", "/api/auth/me", { cookie }), 401, "unauthenticated");
      expectError(await api(t, "GET", "/api/projects", { cookie }), 401, "unauthenticated");
    }
    // One request id for both, so that the bodies may be the same to the byte.
    const headers = { "x-request-id": "same-id" };
    const wrong = await api(t, "POST", "/api/auth/login", {
      body: { email: "ada@example.com", password: "wrong password" },
      headers,
    });
    const refused = await api(t, "POST", "/api/auth/login", {
      body: { email: "ada@example.com", password: PASSWORD },
      headers,
    });
    expectError(refused, 401, "unauthenticated");
    assert.equal(refused.text, wrong.text, "a disabled account looks like wrong credentials");

    const list = await api(t, "GET", "/api/admin/users", { cookie: admin.cookie });
    const listed = expectJson(list, 200).items.find((u: { id: number }) => u.id === ada.user.id);
    assert.equal(listed.status, "disabled");
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /api/admin/users/:id re-enabling a user lets them log in, but old sessions stay ended", async () => {
  const t = await testApp();
  try {
    const admin = await signUp(t, "root@example.com");
    const ada = await signUp(t, "ada@example.com");
    await api(t, "PATCH", `/api/admin/users/${ada.user.id}`, {
      cookie: admin.cookie,
      body: { status: "disabled" },
    });
    const res = await api(t, "PATCH", `/api/admin/users/${ada.user.id}`, {
      cookie: admin.cookie,
      body: { status: "active" },
    });
    assert.equal(expectJson(res, 200).user.status, "active");
    expectError(
      await api(t, "GET", "/api/auth/me", { cookie: ada.cookie }),
      401,
      "unauthenticated",
    );
    const fresh = await login(t, "ada@example.com");
    expectJson(await api(t, "GET", "/api/auth/me", { cookie: fresh }), 200);
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /api/admin/users/:id is 404 for an unknown user", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "root@example.com");
    const res = await api(t, "PATCH", "/api/admin/users/9999", {
      cookie,
      body: { role: "admin" },
    });
    expectError(res, 404, "not_found");
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /api/admin/users/:id rejects an unknown role or status with 400", async () => {
  const t = await testApp();
  try {
    const admin = await signUp(t, "root@example.com");
    const ada = await signUp(t, "ada@example.com");
    const role = await api(t, "PATCH", `/api/admin/users/${ada.user.id}`, {
      cookie: admin.cookie,
      body: { role: "owner" },
    });
    assert.equal(typeof expectError(role, 400, "validation").details?.role, "string");
    const status = await api(t, "PATCH", `/api/admin/users/${ada.user.id}`, {
      cookie: admin.cookie,
      body: { status: "banned" },
    });
    assert.equal(typeof expectError(status, 400, "validation").details?.status, "string");
    const me = await api(t, "GET", "/api/auth/me", { cookie: ada.cookie });
    assert.deepEqual(expectJson(me, 200).user, ada.user);
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /api/admin/users/:id is 403 for a member and changes nothing", async () => {
  const t = await testApp();
  try {
    const admin = await signUp(t, "root@example.com");
    const ada = await signUp(t, "ada@example.com");
    const self = await api(t, "PATCH", `/api/admin/users/${ada.user.id}`, {
      cookie: ada.cookie,
      body: { role: "admin" },
    });
    expectError(self, 403, "forbidden");
    const other = await api(t, "PATCH", `/api/admin/users/${admin.user.id}`, {
      cookie: ada.cookie,
      body: { status: "disabled" },
    });
    expectError(other, 403, "forbidden");
    const missing = await api(t, "PATCH", "/api/admin/users/9999", {
      cookie: ada.cookie,
      body: { role: "admin" },
    });
    expectError(missing, 403, "forbidden");
    assert.equal(
      expectJson(await api(t, "GET", "/api/auth/me", { cookie: ada.cookie }), 200).user.role,
      "member",
    );
    assert.equal(
      expectJson(await api(t, "GET", "/api/auth/me", { cookie: admin.cookie }), 200).user.status,
      "active",
    );
  } finally {
    await t.close();
  }
});

Deno.test("GET /api/admin/migrations lists the applied migrations in order for an admin", async () => {
  const t = await testApp({ now: NOW });
  try {
    const cookie = await register(t, "root@example.com");
    const res = await api(t, "GET", "/api/admin/migrations", { cookie });
    const { items } = expectJson(res, 200);
    assert.deepEqual(
      items.slice(0, 5).map((m: { version: number; name: string }) => [m.version, m.name]),
      [
        [1, "collaboration_base"],
        [2, "attachments"],
        [3, "todo_tags"],
        [4, "user_theme_locale"],
        [5, "loan_service"],
      ],
    );
    assert.deepEqual(items[0], { version: 1, name: "collaboration_base", appliedAt: NOW });
    for (const m of items) {
      assert.deepEqual(Object.keys(m).sort(), ["appliedAt", "name", "version"]);
      assert.ok(Number.isInteger(m.version));
      assert.match(m.appliedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    for (let i = 1; i < items.length; i++) assert.ok(items[i].version > items[i - 1].version);
  } finally {
    await t.close();
  }
});

Deno.test("GET /api/admin/migrations is 403 for a member", async () => {
  const t = await testApp();
  try {
    await register(t, "root@example.com");
    const cookie = await register(t, "ada@example.com");
    expectError(await api(t, "GET", "/api/admin/migrations", { cookie }), 403, "forbidden");
  } finally {
    await t.close();
  }
});
