/**
 * The audit log's remaining actions (operations: "Audit log"): password change and reset,
 * email verification, invitations (create, resend, revoke, accept), project export, import,
 * delete, restore and purge (the sweep's: no actor, no request), and backup download. Each
 * writes exactly one row in its own transaction, with the request's id and address; each
 * refused or failed attempt writes none.
 */
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
  PASSWORD,
  signUp,
} from "../helpers/api.ts";
import { exportProject, importZip } from "../helpers/project_fixture.ts";
import { startSmtp } from "../helpers/smtp.ts";
import { ON_POSTGRES } from "../helpers/test_database.ts";
import { sweepExpired } from "../helpers/trash.ts";

/** The audit rows written after the first `skip`, oldest first, as the admin list shows them. */
async function rowsAfter(t: TestApp, cookie: string, skip: number): Promise<Json[]> {
  const page = expectJson(
    await api(t, "GET", "/api/admin/audit?pageSize=100", { cookie }),
    200,
  );
  return [...page.items].reverse().slice(skip);
}

const count = (t: TestApp) => t.sql.count("audit_log");

Deno.test("a password change and a reset write one row each; a wrong current password, a bad or used link, a short password none", async () => {
  const t = await testApp();
  try {
    const admin = await signUp(t, "root@example.com");
    const ada = await signUp(t, "ada@example.com");
    const base = await count(t);
    const change = (currentPassword: string) =>
      api(t, "POST", "/api/auth/password", {
        cookie: ada.cookie,
        body: { currentPassword, newPassword: "another good passphrase" },
        headers: { "x-request-id": "req-change-1" },
      });
    expectError(await change("not the password"), 400, "validation");
    assert.equal(await count(t), base, "a wrong current password is no change");
    expectNoContent(await change(PASSWORD));

    const issued = expectJson(
      await api(t, "POST", `/api/admin/users/${ada.user.id}/password-reset`, {
        cookie: admin.cookie,
      }),
      201,
    );
    const token = issued.url.split("/reset-password/")[1];
    const reset = (tok: string, password: string) =>
      api(t, "POST", `/api/auth/password-reset/${tok}`, { body: { password } });
    expectError(await reset(token, "short"), 400, "validation");
    expectError(await reset("x".repeat(43), "a reset passphrase"), 404, "not_found");
    const before = await count(t);
    expectNoContent(await reset(token, "a reset passphrase"));
    expectError(await reset(token, "a reset passphrase"), 404, "not_found");
    assert.equal(await count(t), before + 1, "a used link writes nothing");

    const rows = await rowsAfter(t, admin.cookie, base);
    assert.deepEqual(rows.map((r) => r.action), ["auth.password_changed", "auth.password_reset"]);
    const [changed, wasReset] = rows;
    assert.deepEqual([changed.actorId, changed.targetType, changed.targetId], [
      ada.user.id,
      "user",
      ada.user.id,
    ]);
    assert.equal(changed.requestId, "req-change-1");
    assert.equal(changed.clientAddress, "local");
    assert.equal(wasReset.actorId, ada.user.id);
    assert.deepEqual(wasReset.details, { via: "admin_link" });
    const stored = JSON.stringify(await t.sql.all("SELECT * FROM audit_log"));
    assert.ok(!stored.includes("another good passphrase"), "no password in the log");
    assert.ok(!stored.includes(token), "no link in the log");
  } finally {
    await t.close();
  }
});

Deno.test("opening a verification link writes one row; opening it again, or a wrong one, none", async () => {
  const smtp = await startSmtp();
  const t = await testApp({
    env: { BASE_URL: "https://collab.example.org", SMTP_URL: smtp.url },
    mail: { connectionTimeoutMs: 2_000, greetingTimeoutMs: 2_000, socketTimeoutMs: 5_000 },
  });
  try {
    const admin = await signUp(t, "root@example.com");
    const ada = await signUp(t, "ada@example.com");
    expectJson(await api(t, "POST", "/api/auth/verify-email", { cookie: ada.cookie }), 202);
    const sent = smtp.received.length;
    await t.app.services.mailSender.runOnce();
    const text = smtp.received.slice(sent).at(-1)?.parsed.text ?? "";
    const token = /verify-email\/([A-Za-z0-9_-]{43})/.exec(text)?.[1];
    assert.ok(token, text);
    const base = await count(t);
    assert.equal((await api(t, "GET", "/verify-email/not-a-token")).status, 404);
    assert.equal(await count(t), base);
    const page = await api(t, "GET", `/verify-email/${token}`, {
      headers: { "x-request-id": "req-verify-1" },
    });
    assert.equal(page.status, 200);
    assert.equal((await api(t, "GET", `/verify-email/${token}`)).status, 404);
    const rows = await rowsAfter(t, admin.cookie, base);
    assert.deepEqual(rows.map((r) => r.action), ["auth.email_verified"]);
    assert.deepEqual([rows[0].actorId, rows[0].targetId, rows[0].requestId], [
      ada.user.id,
      ada.user.id,
      "req-verify-1",
    ]);
  } finally {
    await t.close();
    await smtp.close();
  }
});

Deno.test("invitations: created, resent, revoked and accepted write one row each; refused ones none", async () => {
  const t = await testApp();
  try {
    const admin = await signUp(t, "root@example.com");
    const bea = await signUp(t, "bea@example.com");
    const project = await createProject(t, admin.cookie, "Invites");
    const invites = `/api/projects/${project.id}/invitations`;
    const base = await count(t);

    // Refused: a malformed email, a viewer of nothing, an account that exists (server).
    expectError(
      await api(t, "POST", invites, {
        cookie: admin.cookie,
        body: { email: "not an email", role: "member" },
      }),
      400,
      "validation",
    );
    const refused = await api(t, "POST", invites, {
      cookie: bea.cookie,
      body: { email: "cy@example.com", role: "member" },
    });
    assert.ok(refused.status === 403 || refused.status === 404, String(refused.status));
    expectError(
      await api(t, "POST", "/api/admin/invitations", {
        cookie: admin.cookie,
        body: { email: "bea@example.com", role: "member" },
      }),
      409,
      "account_exists",
    );
    assert.equal(await count(t), base);

    const made = expectJson(
      await api(t, "POST", invites, {
        cookie: admin.cookie,
        body: { email: "cy@example.com", role: "member" },
        headers: { "x-request-id": "req-invite-1" },
      }),
      201,
    );
    const resent = expectJson(
      await api(t, "POST", `${invites}/${made.invitation.id}/resend`, { cookie: admin.cookie }),
      200,
    );
    const server = expectJson(
      await api(t, "POST", "/api/admin/invitations", {
        cookie: admin.cookie,
        body: { email: "dee@example.com", role: "member" },
      }),
      201,
    );
    expectNoContent(
      await api(t, "DELETE", `/api/admin/invitations/${server.invitation.id}`, {
        cookie: admin.cookie,
      }),
    );
    // Revoking a revoked one changes nothing; resending it is a conflict.
    expectNoContent(
      await api(t, "DELETE", `/api/admin/invitations/${server.invitation.id}`, {
        cookie: admin.cookie,
      }),
    );
    expectError(
      await api(t, "POST", `/api/admin/invitations/${server.invitation.id}/resend`, {
        cookie: admin.cookie,
      }),
      409,
      "conflict",
    );
    const accept = (url: string, body: Json) =>
      api(t, "POST", `/api/invitations/${url.split("/invite/")[1]}/accept`, { body });
    // The old link stopped working when it was sent again; a short password is refused.
    expectError(
      await accept(made.url, { displayName: "Cy", password: "a good passphrase" }),
      404,
      "not_found",
    );
    expectError(
      await accept(resent.url, { displayName: "Cy", password: "short" }),
      400,
      "validation",
    );
    const joined = expectJson(
      await accept(resent.url, { displayName: "Cy", password: "a good passphrase" }),
      201,
    );

    const rows = await rowsAfter(t, admin.cookie, base);
    assert.deepEqual(rows.map((r) => r.action), [
      "invitation.created",
      "invitation.resent",
      "invitation.created",
      "invitation.revoked",
      "invitation.accepted",
    ]);
    const [created, again, , revoked, accepted] = rows;
    assert.deepEqual([created.actorId, created.targetType, created.targetId], [
      admin.user.id,
      "invitation",
      made.invitation.id,
    ]);
    assert.equal(created.requestId, "req-invite-1");
    assert.deepEqual(created.details, {
      email: "cy@example.com",
      role: "member",
      projectId: project.id,
      mailed: false,
    });
    assert.equal(again.targetId, made.invitation.id);
    assert.equal(revoked.targetId, server.invitation.id);
    assert.deepEqual([accepted.actorId, accepted.actorEmail, accepted.targetId], [
      joined.user.id,
      "cy@example.com",
      made.invitation.id,
    ]);
    const stored = JSON.stringify(await t.sql.all("SELECT * FROM audit_log"));
    assert.ok(!stored.includes(resent.url.split("/invite/")[1]), "no invitation link in the log");
  } finally {
    await t.close();
  }
});

Deno.test("an invitation accepted by a signed-in account writes one row; one for another email none", async () => {
  const t = await testApp();
  try {
    const admin = await signUp(t, "root@example.com");
    const project = await createProject(t, admin.cookie, "Invites");
    const made = expectJson(
      await api(t, "POST", `/api/projects/${project.id}/invitations`, {
        cookie: admin.cookie,
        body: { email: "eve@example.com", role: "viewer" },
      }),
      201,
    );
    const token = made.url.split("/invite/")[1];
    const other = await signUp(t, "other@example.com");
    const base = await count(t);
    expectError(
      await api(t, "POST", `/api/invitations/${token}/accept`, { cookie: other.cookie, body: {} }),
      403,
      "forbidden",
    );
    assert.equal(await count(t), base);
    // Registered meanwhile under the invited email: accepts signed in.
    const eve = await signUp(t, "eve@example.com");
    const afterSignUp = await count(t);
    expectJson(
      await api(t, "POST", `/api/invitations/${token}/accept`, { cookie: eve.cookie, body: {} }),
      201,
    );
    const rows = await rowsAfter(t, admin.cookie, afterSignUp);
    assert.deepEqual(rows.map((r) => [r.action, r.actorId]), [[
      "invitation.accepted",
      eve.user.id,
    ]]);
  } finally {
    await t.close();
  }
});

Deno.test("project export, import, delete, restore and the sweep's purge write one row each; refused ones none", async () => {
  const t = await testApp();
  try {
    const admin = await signUp(t, "root@example.com");
    const owner = await signUp(t, "owner@example.com");
    const member = await signUp(t, "member@example.com");
    const project = await createProject(t, owner.cookie, "Apollo");
    await addMember(t, owner.cookie, project.id, "member@example.com", "member");
    const base = await count(t);

    // Export: a member who does not own it is refused; the owner's is audited as it starts.
    const { res: refusedExport } = await exportProject(t, member.cookie, project.id);
    assert.equal(refusedExport.status, 403);
    const { res, bytes } = await exportProject(t, owner.cookie, project.id);
    assert.equal(res.status, 200);
    // Import: a damaged archive is refused; a good one is audited with its last transaction.
    expectError(await importZip(t, owner.cookie, new Uint8Array([1, 2, 3])), 400, "validation");
    const imported = expectJson(await importZip(t, owner.cookie, bytes), 201).project;
    assert.equal(await t.sql.count("projects WHERE importing_since IS NOT NULL"), 0);

    // Delete: a member is refused; the owner's delete is audited.
    const remove = (cookie: string, id: number) =>
      api(t, "DELETE", `/api/projects/${id}`, { cookie });
    expectError(await remove(member.cookie, project.id), 403, "forbidden");
    expectNoContent(await remove(owner.cookie, project.id));
    expectNoContent(await remove(owner.cookie, imported.id));
    // Restore: an id not in the trash is refused; the admin's restore is audited.
    const restore = (id: number) =>
      api(t, "POST", `/api/admin/trash/projects/${id}/restore`, { cookie: admin.cookie });
    expectError(await restore(999_999), 404, "not_found");
    expectJson(await restore(project.id), 200);
    expectError(await restore(project.id), 404, "not_found");

    // The sweep purges the imported project, which stayed in the trash.
    const swept = await sweepExpired(t);
    assert.equal(swept.projects, 1);

    const rows = await rowsAfter(t, admin.cookie, base);
    assert.deepEqual(rows.map((r) => [r.action, r.targetId]), [
      ["project.exported", project.id],
      ["project.imported", imported.id],
      ["project.deleted", project.id],
      ["project.deleted", imported.id],
      ["project.restored", project.id],
      ["project.purged", imported.id],
    ]);
    for (const row of rows.slice(0, 4)) {
      assert.equal(row.actorId, owner.user.id);
      assert.equal(row.targetType, "project");
      assert.equal(row.clientAddress, "local");
      assert.ok(row.requestId, "a request's id");
    }
    assert.deepEqual(rows[0].details, { name: "Apollo" });
    assert.equal(rows[4].actorId, admin.user.id);
    const purged = rows[5];
    assert.deepEqual(
      [purged.actorId, purged.actorEmail, purged.clientAddress, purged.requestId],
      [null, null, null, null],
      "the sweep's purge: no actor, no request",
    );
  } finally {
    await t.close();
  }
});

Deno.test("a backup download writes one row when it starts; a member's, or one on PostgreSQL (409), none", async () => {
  const t = await testApp();
  try {
    const admin = await signUp(t, "root@example.com");
    const bea = await signUp(t, "bea@example.com");
    const base = await count(t);
    const download = (cookie: string) =>
      t.app.request("/api/admin/backup", {
        headers: { cookie, "x-request-id": "req-backup-1" },
      });
    const refused = await download(bea.cookie);
    assert.equal(refused.status, 403);
    await refused.body?.cancel();
    assert.equal(await count(t), base);
    const res = await download(admin.cookie);
    if (ON_POSTGRES) {
      // The server backs up no PostgreSQL database: refused, nothing recorded.
      assert.equal(res.status, 409);
      await res.body?.cancel();
      assert.equal(await count(t), base);
      return;
    }
    assert.equal(res.status, 200);
    // Recorded as the download starts, before its bytes are read.
    const rows = await rowsAfter(t, admin.cookie, base);
    await res.body?.cancel();
    assert.deepEqual(rows.map((r) => r.action), ["backup.downloaded"]);
    assert.equal(rows[0].actorId, admin.user.id);
    assert.equal(rows[0].requestId, "req-backup-1");
    assert.equal(typeof rows[0].details.files, "number");
  } finally {
    await t.close();
  }
});
