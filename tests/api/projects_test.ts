/** Projects: create, list, read, update, archive, unarchive and delete. */
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
  register,
  signUp,
} from "../helpers/api.ts";

const NOW = "2026-11-22T08:30:00.000Z";
const PROJECT_KEYS = [
  "archived",
  "archivedAt",
  "createdAt",
  "createdBy",
  "description",
  "id",
  "myRole",
  "name",
  "updatedAt",
];
const MEMBER_KEYS = ["displayName", "email", "joinedAt", "role", "userId"];

/** An admin (the first account), an owner and a project, plus a member, a viewer and an outsider. */
async function team(t: TestApp) {
  const admin = await signUp(t, "root@example.com", { displayName: "Root" });
  const owner = await signUp(t, "olga@example.com", { displayName: "Olga" });
  const member = await signUp(t, "mia@example.com", { displayName: "Mia" });
  const viewer = await signUp(t, "vic@example.com", { displayName: "Vic" });
  const outsider = await signUp(t, "oscar@example.com", { displayName: "Oscar" });
  const project = await createProject(t, owner.cookie, "Apollo", "To the moon");
  await addMember(t, owner.cookie, project.id, "mia@example.com", "member");
  await addMember(t, owner.cookie, project.id, "vic@example.com", "viewer");
  return { admin, owner, member, viewer, outsider, project };
}

function names(items: Json[]): string[] {
  return items.map((p) => p.name);
}

Deno.test("POST /api/projects creates a project with the caller as owner", async () => {
  const t = await testApp({ now: NOW });
  try {
    await register(t, "root@example.com");
    const { cookie, user } = await signUp(t, "olga@example.com", { displayName: "Olga" });
    const res = await api(t, "POST", "/api/projects", {
      cookie,
      body: { name: "  Apollo  ", description: "To the moon" },
    });
    const { project } = expectJson(res, 201);
    assert.deepEqual(Object.keys(project).sort(), PROJECT_KEYS);
    assert.ok(Number.isInteger(project.id) && project.id > 0);
    assert.deepEqual({ ...project, id: 0 }, {
      id: 0,
      name: "Apollo",
      description: "To the moon",
      archived: false,
      archivedAt: null,
      createdBy: user.id,
      createdAt: NOW,
      updatedAt: NOW,
      myRole: "owner",
    });

    const got = await api(t, "GET", `/api/projects/${project.id}`, { cookie });
    const body = expectJson(got, 200);
    assert.deepEqual(body.project, project);
    assert.deepEqual(body.members, [{
      userId: user.id,
      email: "olga@example.com",
      displayName: "Olga",
      role: "owner",
      joinedAt: NOW,
    }]);
    const list = await api(t, "GET", "/api/projects", { cookie });
    assert.deepEqual(expectJson(list, 200), { items: [project] });
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/projects without a description stores an empty one", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "olga@example.com");
    const res = await api(t, "POST", "/api/projects", { cookie, body: { name: "Bare" } });
    assert.equal(expectJson(res, 201).project.description, "");
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/projects rejects a blank or missing name and creates nothing", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "olga@example.com");
    for (const body of [{ name: "" }, { name: "   " }, {}, { name: null }, { name: 3 }]) {
      const res = await api(t, "POST", "/api/projects", { cookie, body });
      const error = expectError(res, 400, "validation");
      assert.equal(typeof error.details?.name, "string", JSON.stringify(body));
    }
    const list = await api(t, "GET", "/api/projects?archived=true", { cookie });
    assert.deepEqual(expectJson(list, 200).items, []);
  } finally {
    await t.close();
  }
});

Deno.test("GET /api/projects lists only the caller's projects, with their role in each", async () => {
  const t = await testApp();
  try {
    const ada = await register(t, "ada@example.com");
    const bob = await register(t, "bob@example.com");
    const a1 = await createProject(t, ada, "Ada one");
    await createProject(t, bob, "Bob one");
    const b2 = await createProject(t, bob, "Bob two");
    await addMember(t, bob, b2.id, "ada@example.com", "viewer");

    const adaList = expectJson(await api(t, "GET", "/api/projects", { cookie: ada }), 200).items;
    assert.deepEqual(names(adaList), ["Ada one", "Bob two"]);
    assert.deepEqual(adaList.map((p: Json) => p.myRole), ["owner", "viewer"]);
    assert.equal(adaList[0].id, a1.id);
    const bobList = expectJson(await api(t, "GET", "/api/projects", { cookie: bob }), 200).items;
    assert.deepEqual(names(bobList), ["Bob one", "Bob two"]);
  } finally {
    await t.close();
  }
});

Deno.test("GET /api/projects hides archived projects unless ?archived=true", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "olga@example.com");
    await createProject(t, cookie, "Live");
    const old = await createProject(t, cookie, "Old");
    expectJson(await api(t, "POST", `/api/projects/${old.id}/archive`, { cookie }), 200);

    const live = expectJson(await api(t, "GET", "/api/projects", { cookie }), 200).items;
    assert.deepEqual(names(live), ["Live"]);
    const off = expectJson(await api(t, "GET", "/api/projects?archived=false", { cookie }), 200);
    assert.deepEqual(names(off.items), ["Live"]);
    const all = expectJson(await api(t, "GET", "/api/projects?archived=true", { cookie }), 200);
    assert.deepEqual(names(all.items), ["Live", "Old"]);
    assert.deepEqual(all.items.map((p: Json) => p.archived), [false, true]);
  } finally {
    await t.close();
  }
});

Deno.test("GET /api/projects/:id answers the project and its members for every member", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { owner, member, viewer, project } = await team(t);
    const expected = [
      ["olga@example.com", "Olga", "owner"],
      ["mia@example.com", "Mia", "member"],
      ["vic@example.com", "Vic", "viewer"],
    ];
    const callers: Array<[string, string]> = [
      [owner.cookie, "owner"],
      [member.cookie, "member"],
      [viewer.cookie, "viewer"],
    ];
    for (const [cookie, role] of callers) {
      const body = expectJson(await api(t, "GET", `/api/projects/${project.id}`, { cookie }), 200);
      assert.deepEqual(Object.keys(body).sort(), ["members", "project"]);
      assert.equal(body.project.id, project.id);
      assert.equal(body.project.myRole, role);
      for (const m of body.members) assert.deepEqual(Object.keys(m).sort(), MEMBER_KEYS);
      assert.deepEqual(
        body.members.map((m: Json) => [m.email, m.displayName, m.role]),
        expected,
      );
    }
  } finally {
    await t.close();
  }
});

Deno.test("A non-member gets 404 for every project route, as for a project that does not exist", async () => {
  const t = await testApp();
  try {
    const { owner, member, outsider, project } = await team(t);
    const routes: Array<[string, string, unknown?]> = [
      ["GET", ""],
      ["PATCH", "", { name: "Mine" }],
      ["POST", "/archive"],
      ["POST", "/unarchive"],
      ["GET", "/members"],
      ["POST", "/members", { email: "oscar@example.com", role: "owner" }],
      ["PATCH", `/members/${member.user.id}`, { role: "owner" }],
      ["DELETE", `/members/${member.user.id}`],
      ["DELETE", `/members/${outsider.user.id}`],
      ["DELETE", ""],
    ];
    for (const [method, suffix, body] of routes) {
      // One request id for both: the error bodies carry it, and are otherwise the same.
      const headers = { "x-request-id": "same-request-id" };
      const res = await api(t, method, `/api/projects/${project.id}${suffix}`, {
        cookie: outsider.cookie,
        headers,
        ...(body === undefined ? {} : { body }),
      });
      const error = expectError(res, 404, "not_found");
      const missing = await api(t, method, `/api/projects/99999${suffix}`, {
        cookie: outsider.cookie,
        headers,
        ...(body === undefined ? {} : { body }),
      });
      assert.deepEqual(expectError(missing, 404, "not_found"), error, `${method} ${suffix}`);
    }
    // Nothing changed.
    const got = expectJson(
      await api(t, "GET", `/api/projects/${project.id}`, {
        cookie: owner.cookie,
      }),
      200,
    );
    assert.equal(got.project.name, "Apollo");
    assert.equal(got.project.archived, false);
    assert.equal(got.members.length, 3);
    const list = await api(t, "GET", "/api/projects?archived=true", { cookie: outsider.cookie });
    assert.deepEqual(expectJson(list, 200).items, []);
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /api/projects/:id lets the owner rename and re-describe the project", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { owner, member, project } = await team(t);
    t.clock.advance(60_000);
    const res = await api(t, "PATCH", `/api/projects/${project.id}`, {
      cookie: owner.cookie,
      body: { name: " Artemis ", description: "Back to the moon" },
    });
    const updated = expectJson(res, 200).project;
    assert.deepEqual(updated, {
      ...project,
      name: "Artemis",
      description: "Back to the moon",
      updatedAt: "2026-11-22T08:31:00.000Z",
    });
    const seen = await api(t, "GET", `/api/projects/${project.id}`, { cookie: member.cookie });
    assert.deepEqual(expectJson(seen, 200).project, { ...updated, myRole: "member" });
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /api/projects/:id leaves absent fields unchanged", async () => {
  const t = await testApp();
  try {
    const { owner, project } = await team(t);
    const res = await api(t, "PATCH", `/api/projects/${project.id}`, {
      cookie: owner.cookie,
      body: { description: "Only this" },
    });
    const updated = expectJson(res, 200).project;
    assert.equal(updated.name, "Apollo");
    assert.equal(updated.description, "Only this");
    const again = await api(t, "PATCH", `/api/projects/${project.id}`, {
      cookie: owner.cookie,
      body: { name: "Renamed" },
    });
    assert.equal(expectJson(again, 200).project.description, "Only this");
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /api/projects/:id rejects a blank name and changes nothing", async () => {
  const t = await testApp();
  try {
    const { owner, project } = await team(t);
    for (const name of ["", "   ", null]) {
      const res = await api(t, "PATCH", `/api/projects/${project.id}`, {
        cookie: owner.cookie,
        body: { name, description: "changed" },
      });
      assert.equal(typeof expectError(res, 400, "validation").details?.name, "string");
    }
    const got = await api(t, "GET", `/api/projects/${project.id}`, { cookie: owner.cookie });
    assert.deepEqual(expectJson(got, 200).project, project);
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /api/projects/:id is 403 for a member or a viewer", async () => {
  const t = await testApp();
  try {
    const { owner, member, viewer, project } = await team(t);
    for (const cookie of [member.cookie, viewer.cookie]) {
      const res = await api(t, "PATCH", `/api/projects/${project.id}`, {
        cookie,
        body: { name: "Taken over" },
      });
      expectError(res, 403, "forbidden");
    }
    const got = await api(t, "GET", `/api/projects/${project.id}`, { cookie: owner.cookie });
    assert.equal(expectJson(got, 200).project.name, "Apollo");
  } finally {
    await t.close();
  }
});

Deno.test("Archive, unarchive and delete are 403 for a member or a viewer", async () => {
  const t = await testApp();
  try {
    const { owner, member, viewer, project } = await team(t);
    for (const cookie of [member.cookie, viewer.cookie]) {
      const actions: Array<[string, string]> = [
        ["POST", "/archive"],
        ["POST", "/unarchive"],
        ["DELETE", ""],
      ];
      for (const [method, suffix] of actions) {
        const res = await api(t, method, `/api/projects/${project.id}${suffix}`, { cookie });
        expectError(res, 403, "forbidden");
      }
    }
    const got = await api(t, "GET", `/api/projects/${project.id}`, { cookie: owner.cookie });
    assert.equal(expectJson(got, 200).project.archived, false);
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/projects/:id/archive makes the project read-only until unarchived", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { owner, member, outsider, project } = await team(t);
    t.clock.advance(60_000);
    const archivedAt = "2026-11-22T08:31:00.000Z";
    const res = await api(t, "POST", `/api/projects/${project.id}/archive`, {
      cookie: owner.cookie,
    });
    const archived = expectJson(res, 200).project;
    assert.equal(archived.archived, true);
    assert.equal(archived.archivedAt, archivedAt);
    assert.equal(archived.name, "Apollo");
    assert.equal(archived.myRole, "owner");

    // Still readable by its members.
    const got = await api(t, "GET", `/api/projects/${project.id}`, { cookie: member.cookie });
    assert.equal(expectJson(got, 200).project.archived, true);
    expectJson(
      await api(t, "GET", `/api/projects/${project.id}/members`, {
        cookie: member.cookie,
      }),
      200,
    );

    // Every write is 403.
    const writes: Array<[string, string, unknown?]> = [
      ["PATCH", "", { name: "Renamed" }],
      ["POST", "/members", { email: "oscar@example.com", role: "member" }],
      ["PATCH", `/members/${member.user.id}`, { role: "viewer" }],
      ["DELETE", `/members/${member.user.id}`],
    ];
    for (const [method, suffix, body] of writes) {
      const w = await api(t, method, `/api/projects/${project.id}${suffix}`, {
        cookie: owner.cookie,
        ...(body === undefined ? {} : { body }),
      });
      expectError(w, 403, "forbidden");
    }

    // Hidden from the plain list, shown with ?archived=true.
    assert.deepEqual(
      expectJson(await api(t, "GET", "/api/projects", { cookie: owner.cookie }), 200).items,
      [],
    );
    const all = await api(t, "GET", "/api/projects?archived=true", { cookie: owner.cookie });
    assert.deepEqual(names(expectJson(all, 200).items), ["Apollo"]);

    // Nothing was changed by the refused writes.
    const after = expectJson(
      await api(t, "GET", `/api/projects/${project.id}`, {
        cookie: owner.cookie,
      }),
      200,
    );
    assert.equal(after.project.name, "Apollo");
    assert.deepEqual(after.members.map((m: Json) => [m.email, m.role]), [
      ["olga@example.com", "owner"],
      ["mia@example.com", "member"],
      ["vic@example.com", "viewer"],
    ]);
    const oscar = await api(t, "GET", `/api/projects/${project.id}`, { cookie: outsider.cookie });
    expectError(oscar, 404, "not_found");
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/projects/:id/unarchive reopens the project for writes", async () => {
  const t = await testApp();
  try {
    const { owner, project } = await team(t);
    await api(t, "POST", `/api/projects/${project.id}/archive`, { cookie: owner.cookie });
    const res = await api(t, "POST", `/api/projects/${project.id}/unarchive`, {
      cookie: owner.cookie,
    });
    const reopened = expectJson(res, 200).project;
    assert.equal(reopened.archived, false);
    assert.equal(reopened.archivedAt, null);

    const patch = await api(t, "PATCH", `/api/projects/${project.id}`, {
      cookie: owner.cookie,
      body: { name: "Reopened" },
    });
    assert.equal(expectJson(patch, 200).project.name, "Reopened");
    await addMember(t, owner.cookie, project.id, "oscar@example.com", "viewer");
    const list = await api(t, "GET", "/api/projects", { cookie: owner.cookie });
    assert.deepEqual(names(expectJson(list, 200).items), ["Reopened"]);
  } finally {
    await t.close();
  }
});

Deno.test("Unarchiving an open project answers it unchanged; archiving an archived one is 403", async () => {
  const t = await testApp();
  try {
    const { owner, project } = await team(t);
    const open = await api(t, "POST", `/api/projects/${project.id}/unarchive`, {
      cookie: owner.cookie,
    });
    assert.deepEqual(expectJson(open, 200).project, project);
    const first = expectJson(
      await api(t, "POST", `/api/projects/${project.id}/archive`, { cookie: owner.cookie }),
      200,
    ).project;
    t.clock.advance(60_000);
    // Only unarchive and delete are allowed in an archived project.
    const second = await api(t, "POST", `/api/projects/${project.id}/archive`, {
      cookie: owner.cookie,
    });
    expectError(second, 403, "forbidden");
    const got = await api(t, "GET", `/api/projects/${project.id}`, { cookie: owner.cookie });
    assert.equal(expectJson(got, 200).project.archivedAt, first.archivedAt);
  } finally {
    await t.close();
  }
});

Deno.test("DELETE /api/projects/:id answers 204, then the project is gone for everyone", async () => {
  const t = await testApp();
  try {
    const { admin, owner, member, project } = await team(t);
    expectNoContent(
      await api(t, "DELETE", `/api/projects/${project.id}`, { cookie: owner.cookie }),
    );
    for (const cookie of [owner.cookie, member.cookie, admin.cookie]) {
      expectError(
        await api(t, "GET", `/api/projects/${project.id}`, { cookie }),
        404,
        "not_found",
      );
      expectError(
        await api(t, "GET", `/api/projects/${project.id}/members`, { cookie }),
        404,
        "not_found",
      );
      const list = await api(t, "GET", "/api/projects?archived=true", { cookie });
      assert.deepEqual(expectJson(list, 200).items, []);
    }
    const again = await api(t, "DELETE", `/api/projects/${project.id}`, { cookie: owner.cookie });
    expectError(again, 404, "not_found");
  } finally {
    await t.close();
  }
});

Deno.test("DELETE /api/projects/:id works on an archived project", async () => {
  const t = await testApp();
  try {
    const { owner, project } = await team(t);
    await api(t, "POST", `/api/projects/${project.id}/archive`, { cookie: owner.cookie });
    expectNoContent(
      await api(t, "DELETE", `/api/projects/${project.id}`, { cookie: owner.cookie }),
    );
    const list = await api(t, "GET", "/api/projects?archived=true", { cookie: owner.cookie });
    assert.deepEqual(expectJson(list, 200).items, []);
  } finally {
    await t.close();
  }
});

Deno.test("A system admin who is not a member reads and manages any project as its owner, with myRole null", async () => {
  const t = await testApp();
  try {
    const { admin, owner, project } = await team(t);
    const got = await api(t, "GET", `/api/projects/${project.id}`, { cookie: admin.cookie });
    const body = expectJson(got, 200);
    assert.equal(body.project.myRole, null);
    assert.equal(body.members.length, 3);
    assert.ok(!body.members.some((m: Json) => m.userId === admin.user.id));

    const patch = await api(t, "PATCH", `/api/projects/${project.id}`, {
      cookie: admin.cookie,
      body: { name: "Admin renamed" },
    });
    const patched = expectJson(patch, 200).project;
    assert.equal(patched.name, "Admin renamed");
    assert.equal(patched.myRole, null);

    const members = await api(t, "GET", `/api/projects/${project.id}/members`, {
      cookie: admin.cookie,
    });
    assert.equal(expectJson(members, 200).items.length, 3);
    await addMember(t, admin.cookie, project.id, "oscar@example.com", "viewer");
    const archived = await api(t, "POST", `/api/projects/${project.id}/archive`, {
      cookie: admin.cookie,
    });
    assert.equal(expectJson(archived, 200).project.archived, true);
    const reopened = await api(t, "POST", `/api/projects/${project.id}/unarchive`, {
      cookie: admin.cookie,
    });
    assert.equal(expectJson(reopened, 200).project.archived, false);

    const seen = await api(t, "GET", `/api/projects/${project.id}`, { cookie: owner.cookie });
    assert.equal(expectJson(seen, 200).project.name, "Admin renamed");
    assert.equal(expectJson(seen, 200).members.length, 4);

    expectNoContent(
      await api(t, "DELETE", `/api/projects/${project.id}`, { cookie: admin.cookie }),
    );
    expectError(
      await api(t, "GET", `/api/projects/${project.id}`, { cookie: owner.cookie }),
      404,
      "not_found",
    );
  } finally {
    await t.close();
  }
});

Deno.test("A member removed from a project no longer sees it", async () => {
  const t = await testApp();
  try {
    const { owner, member, project } = await team(t);
    expectNoContent(
      await api(t, "DELETE", `/api/projects/${project.id}/members/${member.user.id}`, {
        cookie: owner.cookie,
      }),
    );
    expectError(
      await api(t, "GET", `/api/projects/${project.id}`, { cookie: member.cookie }),
      404,
      "not_found",
    );
    assert.deepEqual(
      expectJson(await api(t, "GET", "/api/projects", { cookie: member.cookie }), 200).items,
      [],
    );
  } finally {
    await t.close();
  }
});
