/** Project members: add by email, change roles, remove, and the member_added notification. */
import assert from "node:assert/strict";
import { type TestApp, testApp } from "../helpers/app.ts";
import {
  addMember,
  api,
  createProject,
  expectError,
  expectJson,
  expectNoContent,
  type Json,
  signUp,
} from "../helpers/api.ts";

const NOW = "2026-11-22T08:30:00.000Z";
const MEMBER_KEYS = ["displayName", "email", "joinedAt", "role", "userId"];
const NOTIFICATION_KEYS = [
  "actorId",
  "createdAt",
  "id",
  "kind",
  "projectId",
  "read",
  "subjectId",
  "subjectType",
  "text",
];

/** An admin (first account), an owner with a project, and two more users. */
async function setup(t: TestApp) {
  const admin = await signUp(t, "root@example.com", { displayName: "Root" });
  const owner = await signUp(t, "olga@example.com", { displayName: "Olga" });
  const bob = await signUp(t, "bob@example.com", { displayName: "Bob" });
  const cy = await signUp(t, "cy@example.com", { displayName: "Cy" });
  const project = await createProject(t, owner.cookie, "Apollo");
  return { admin, owner, bob, cy, project };
}

async function members(t: TestApp, cookie: string, projectId: number): Promise<Json[]> {
  return expectJson(await api(t, "GET", `/api/projects/${projectId}/members`, { cookie }), 200)
    .items;
}

function roles(items: Json[]): Array<[string, string]> {
  return items.map((m) => [m.email, m.role]);
}

Deno.test("POST /api/projects/:id/members adds a user by email and answers 201 {member}", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { owner, bob, project } = await setup(t);
    t.clock.advance(60_000);
    const res = await api(t, "POST", `/api/projects/${project.id}/members`, {
      cookie: owner.cookie,
      body: { email: "BOB@Example.com", role: "member" },
    });
    const { member } = expectJson(res, 201);
    assert.deepEqual(Object.keys(member).sort(), MEMBER_KEYS);
    assert.deepEqual(member, {
      userId: bob.user.id,
      email: "bob@example.com",
      displayName: "Bob",
      role: "member",
      joinedAt: "2026-11-22T08:31:00.000Z",
    });
    assert.deepEqual(await members(t, owner.cookie, project.id), [
      {
        userId: owner.user.id,
        email: "olga@example.com",
        displayName: "Olga",
        role: "owner",
        joinedAt: NOW,
      },
      member,
    ]);
    // Bob now sees the project, as a member.
    const list = expectJson(await api(t, "GET", "/api/projects", { cookie: bob.cookie }), 200);
    assert.deepEqual(list.items.map((p: Json) => [p.id, p.myRole]), [[project.id, "member"]]);
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/projects/:id/members sends the added user a member_added notification", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { owner, bob, project } = await setup(t);
    await addMember(t, owner.cookie, project.id, "bob@example.com", "viewer");

    const res = await api(t, "GET", "/api/notifications", { cookie: bob.cookie });
    const page = expectJson(res, 200);
    assert.deepEqual(Object.keys(page).sort(), [
      "hasMore",
      "items",
      "page",
      "pageSize",
      "total",
      "unreadCount",
    ]);
    assert.equal(page.page, 1);
    assert.equal(page.pageSize, 20);
    assert.equal(page.total, 1);
    assert.equal(page.hasMore, false);
    assert.equal(page.unreadCount, 1);
    assert.equal(page.items.length, 1);
    const n = page.items[0];
    assert.deepEqual(Object.keys(n).sort(), NOTIFICATION_KEYS);
    assert.ok(Number.isInteger(n.id) && n.id > 0);
    assert.equal(n.kind, "member_added");
    assert.equal(n.projectId, project.id);
    assert.equal(n.actorId, owner.user.id);
    assert.equal(n.subjectType, "project");
    assert.equal(n.subjectId, project.id);
    assert.equal(typeof n.text, "string");
    assert.equal(n.read, false);
    assert.equal(n.createdAt, NOW);

    // The actor is never notified of their own action.
    const mine = expectJson(
      await api(t, "GET", "/api/notifications", { cookie: owner.cookie }),
      200,
    );
    assert.deepEqual(mine.items, []);
    assert.equal(mine.total, 0);
    assert.equal(mine.unreadCount, 0);
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/projects/:id/members is 404 for an unknown email and adds nobody", async () => {
  const t = await testApp();
  try {
    const { owner, project } = await setup(t);
    const res = await api(t, "POST", `/api/projects/${project.id}/members`, {
      cookie: owner.cookie,
      body: { email: "ghost@example.com", role: "member" },
    });
    expectError(res, 404, "not_found");
    assert.deepEqual(roles(await members(t, owner.cookie, project.id)), [
      ["olga@example.com", "owner"],
    ]);
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/projects/:id/members is 409 for someone already a member", async () => {
  const t = await testApp();
  try {
    const { owner, bob, project } = await setup(t);
    await addMember(t, owner.cookie, project.id, "bob@example.com", "viewer");
    for (
      const body of [
        { email: "bob@example.com", role: "owner" },
        { email: "Bob@Example.COM", role: "viewer" },
        { email: "olga@example.com", role: "member" },
      ]
    ) {
      const res = await api(t, "POST", `/api/projects/${project.id}/members`, {
        cookie: owner.cookie,
        body,
      });
      expectError(res, 409, "conflict");
    }
    assert.deepEqual(roles(await members(t, owner.cookie, project.id)), [
      ["olga@example.com", "owner"],
      ["bob@example.com", "viewer"],
    ]);
    // One notification only, for the add that happened.
    const page = expectJson(await api(t, "GET", "/api/notifications", { cookie: bob.cookie }), 200);
    assert.equal(page.total, 1);
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/projects/:id/members rejects an unknown role or a missing email with 400", async () => {
  const t = await testApp();
  try {
    const { owner, bob, project } = await setup(t);
    for (const role of ["admin", "OWNER", "", null, undefined]) {
      const res = await api(t, "POST", `/api/projects/${project.id}/members`, {
        cookie: owner.cookie,
        body: { email: "bob@example.com", ...(role === undefined ? {} : { role }) },
      });
      assert.equal(typeof expectError(res, 400, "validation").details?.role, "string", `${role}`);
    }
    const noEmail = await api(t, "POST", `/api/projects/${project.id}/members`, {
      cookie: owner.cookie,
      body: { role: "member" },
    });
    assert.equal(typeof expectError(noEmail, 400, "validation").details?.email, "string");
    assert.equal((await members(t, owner.cookie, project.id)).length, 1);
    const page = expectJson(await api(t, "GET", "/api/notifications", { cookie: bob.cookie }), 200);
    assert.equal(page.total, 0);
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/projects/:id/members is 403 for a member or a viewer", async () => {
  const t = await testApp();
  try {
    const { owner, bob, cy, project } = await setup(t);
    await addMember(t, owner.cookie, project.id, "bob@example.com", "member");
    await addMember(t, owner.cookie, project.id, "cy@example.com", "viewer");
    for (const cookie of [bob.cookie, cy.cookie]) {
      const res = await api(t, "POST", `/api/projects/${project.id}/members`, {
        cookie,
        body: { email: "root@example.com", role: "viewer" },
      });
      expectError(res, 403, "forbidden");
    }
    assert.equal((await members(t, owner.cookie, project.id)).length, 3);
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /api/projects/:id/members/:userId changes a member's role", async () => {
  const t = await testApp();
  try {
    const { owner, bob, project } = await setup(t);
    const added = await addMember(t, owner.cookie, project.id, "bob@example.com", "member");
    const res = await api(t, "PATCH", `/api/projects/${project.id}/members/${bob.user.id}`, {
      cookie: owner.cookie,
      body: { role: "viewer" },
    });
    assert.deepEqual(expectJson(res, 200), { member: { ...added, role: "viewer" } });
    assert.deepEqual(roles(await members(t, owner.cookie, project.id)), [
      ["olga@example.com", "owner"],
      ["bob@example.com", "viewer"],
    ]);
    const got = await api(t, "GET", `/api/projects/${project.id}`, { cookie: bob.cookie });
    assert.equal(expectJson(got, 200).project.myRole, "viewer");
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /api/projects/:id/members/:userId rejects an unknown role with 400", async () => {
  const t = await testApp();
  try {
    const { owner, bob, project } = await setup(t);
    await addMember(t, owner.cookie, project.id, "bob@example.com", "member");
    for (const body of [{ role: "admin" }, {}]) {
      const res = await api(t, "PATCH", `/api/projects/${project.id}/members/${bob.user.id}`, {
        cookie: owner.cookie,
        body,
      });
      assert.equal(typeof expectError(res, 400, "validation").details?.role, "string");
    }
    assert.deepEqual(roles(await members(t, owner.cookie, project.id))[1], [
      "bob@example.com",
      "member",
    ]);
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /api/projects/:id/members/:userId is 404 for a user who is not a member", async () => {
  const t = await testApp();
  try {
    const { owner, cy, project } = await setup(t);
    for (const userId of [cy.user.id, 9999]) {
      const res = await api(t, "PATCH", `/api/projects/${project.id}/members/${userId}`, {
        cookie: owner.cookie,
        body: { role: "viewer" },
      });
      expectError(res, 404, "not_found");
    }
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /api/projects/:id/members/:userId refuses to demote the last owner with 409", async () => {
  const t = await testApp();
  try {
    const { owner, project } = await setup(t);
    for (const role of ["member", "viewer"]) {
      const res = await api(t, "PATCH", `/api/projects/${project.id}/members/${owner.user.id}`, {
        cookie: owner.cookie,
        body: { role },
      });
      expectError(res, 409, "conflict");
    }
    assert.deepEqual(roles(await members(t, owner.cookie, project.id)), [
      ["olga@example.com", "owner"],
    ]);
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /api/projects/:id/members/:userId demotes an owner while another owner remains", async () => {
  const t = await testApp();
  try {
    const { owner, bob, project } = await setup(t);
    await addMember(t, owner.cookie, project.id, "bob@example.com", "owner");
    const res = await api(t, "PATCH", `/api/projects/${project.id}/members/${owner.user.id}`, {
      cookie: owner.cookie,
      body: { role: "member" },
    });
    assert.equal(expectJson(res, 200).member.role, "member");
    // Olga is no longer an owner: she cannot manage members any more.
    const denied = await api(t, "PATCH", `/api/projects/${project.id}/members/${bob.user.id}`, {
      cookie: owner.cookie,
      body: { role: "member" },
    });
    expectError(denied, 403, "forbidden");
    // Bob is now the last owner.
    const last = await api(t, "PATCH", `/api/projects/${project.id}/members/${bob.user.id}`, {
      cookie: bob.cookie,
      body: { role: "viewer" },
    });
    expectError(last, 409, "conflict");
    assert.deepEqual(roles(await members(t, bob.cookie, project.id)), [
      ["olga@example.com", "member"],
      ["bob@example.com", "owner"],
    ]);
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /api/projects/:id/members/:userId is 403 for a member or a viewer", async () => {
  const t = await testApp();
  try {
    const { owner, bob, cy, project } = await setup(t);
    await addMember(t, owner.cookie, project.id, "bob@example.com", "member");
    await addMember(t, owner.cookie, project.id, "cy@example.com", "viewer");
    const attempts: Array<[string, number]> = [
      [bob.cookie, bob.user.id],
      [bob.cookie, cy.user.id],
      [cy.cookie, cy.user.id],
      [cy.cookie, owner.user.id],
    ];
    for (const [cookie, userId] of attempts) {
      const res = await api(t, "PATCH", `/api/projects/${project.id}/members/${userId}`, {
        cookie,
        body: { role: "owner" },
      });
      expectError(res, 403, "forbidden");
    }
    assert.deepEqual(roles(await members(t, owner.cookie, project.id)), [
      ["olga@example.com", "owner"],
      ["bob@example.com", "member"],
      ["cy@example.com", "viewer"],
    ]);
  } finally {
    await t.close();
  }
});

Deno.test("DELETE /api/projects/:id/members/:userId removes a member with 204", async () => {
  const t = await testApp();
  try {
    const { owner, bob, cy, project } = await setup(t);
    await addMember(t, owner.cookie, project.id, "bob@example.com", "member");
    await addMember(t, owner.cookie, project.id, "cy@example.com", "viewer");
    const res = await api(t, "DELETE", `/api/projects/${project.id}/members/${bob.user.id}`, {
      cookie: owner.cookie,
    });
    expectNoContent(res);
    assert.deepEqual(roles(await members(t, owner.cookie, project.id)), [
      ["olga@example.com", "owner"],
      ["cy@example.com", "viewer"],
    ]);
    const gone = await api(t, "GET", `/api/projects/${project.id}`, { cookie: bob.cookie });
    expectError(gone, 404, "not_found");
    const kept = await api(t, "GET", `/api/projects/${project.id}`, { cookie: cy.cookie });
    assert.equal(expectJson(kept, 200).project.myRole, "viewer");
    const again = await api(t, "DELETE", `/api/projects/${project.id}/members/${bob.user.id}`, {
      cookie: owner.cookie,
    });
    expectError(again, 404, "not_found");
    // Removed members can be added back.
    await addMember(t, owner.cookie, project.id, "bob@example.com", "viewer");
  } finally {
    await t.close();
  }
});

Deno.test("DELETE /api/projects/:id/members/:userId refuses to remove the last owner with 409", async () => {
  const t = await testApp();
  try {
    const { admin, owner, project } = await setup(t);
    await addMember(t, owner.cookie, project.id, "bob@example.com", "member");
    for (const cookie of [owner.cookie, admin.cookie]) {
      const res = await api(t, "DELETE", `/api/projects/${project.id}/members/${owner.user.id}`, {
        cookie,
      });
      expectError(res, 409, "conflict");
    }
    assert.deepEqual(roles(await members(t, owner.cookie, project.id)), [
      ["olga@example.com", "owner"],
      ["bob@example.com", "member"],
    ]);
  } finally {
    await t.close();
  }
});

Deno.test("DELETE /api/projects/:id/members/:userId is 403 for a member or a viewer removing someone else", async () => {
  const t = await testApp();
  try {
    const { owner, bob, cy, project } = await setup(t);
    await addMember(t, owner.cookie, project.id, "bob@example.com", "member");
    await addMember(t, owner.cookie, project.id, "cy@example.com", "viewer");
    const attempts: Array<[string, number]> = [
      [bob.cookie, cy.user.id],
      [bob.cookie, owner.user.id],
      [cy.cookie, bob.user.id],
    ];
    for (const [cookie, userId] of attempts) {
      const res = await api(t, "DELETE", `/api/projects/${project.id}/members/${userId}`, {
        cookie,
      });
      expectError(res, 403, "forbidden");
    }
    assert.equal((await members(t, owner.cookie, project.id)).length, 3);
  } finally {
    await t.close();
  }
});

Deno.test("A system admin who is not a member manages members as the owner would", async () => {
  const t = await testApp();
  try {
    const { admin, owner, bob, project } = await setup(t);
    const added = await addMember(t, admin.cookie, project.id, "bob@example.com", "member");
    assert.equal(added.userId, bob.user.id);
    const changed = await api(t, "PATCH", `/api/projects/${project.id}/members/${bob.user.id}`, {
      cookie: admin.cookie,
      body: { role: "owner" },
    });
    assert.equal(expectJson(changed, 200).member.role, "owner");
    const removed = await api(t, "DELETE", `/api/projects/${project.id}/members/${owner.user.id}`, {
      cookie: admin.cookie,
    });
    expectNoContent(removed);
    assert.deepEqual(roles(await members(t, bob.cookie, project.id)), [
      ["bob@example.com", "owner"],
    ]);
    // The notification names the admin as the actor.
    const page = expectJson(await api(t, "GET", "/api/notifications", { cookie: bob.cookie }), 200);
    assert.equal(page.items[0].actorId, admin.user.id);
  } finally {
    await t.close();
  }
});

Deno.test("A system admin adding themselves to a project is not notified of their own action", async () => {
  const t = await testApp();
  try {
    const { admin, project } = await setup(t);
    const member = await addMember(t, admin.cookie, project.id, "root@example.com", "member");
    assert.equal(member.userId, admin.user.id);
    const page = expectJson(
      await api(t, "GET", "/api/notifications", { cookie: admin.cookie }),
      200,
    );
    assert.equal(page.total, 0);
    assert.equal(page.unreadCount, 0);
    const got = await api(t, "GET", `/api/projects/${project.id}`, { cookie: admin.cookie });
    assert.equal(expectJson(got, 200).project.myRole, "member");
  } finally {
    await t.close();
  }
});
