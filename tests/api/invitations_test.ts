/**
 * Invitations through the API: to a project (an existing account joins at once, anyone else
 * gets a link), to the server (admins), the link's view and acceptance (one transaction: the
 * account, its verified email, the membership and the session), revoking and sending again,
 * the one 404 for every link that does not work, the per-inviter limit, mail through a real
 * SMTP server, and tokens kept out of the database and the log. Expiry and the limit's hour
 * move on the injected clock.
 */
import assert from "node:assert/strict";
import { linkTokenHash } from "../../domain/accounts/link_tokens.ts";
import { type TestApp, testApp } from "../helpers/app.ts";
import {
  api,
  createProject,
  expectError,
  expectJson,
  type Json,
  PASSWORD,
  sessionFrom,
  signUp,
} from "../helpers/api.ts";
import { startSmtp } from "../helpers/smtp.ts";

const DAY = 86_400_000;

/** The token of an invitation link (`…/invite/{token}`). */
function tokenOf(url: string): string {
  const match = /\/invite\/([A-Za-z0-9_-]{43})$/.exec(url);
  assert.ok(match, `not an invitation link: ${url}`);
  return match[1]!;
}

async function invite(
  t: TestApp,
  cookie: string,
  projectId: number,
  email: string,
  role = "member",
): Promise<Json> {
  const res = await api(t, "POST", `/api/projects/${projectId}/invitations`, {
    cookie,
    body: { email, role },
  });
  return expectJson(res, 201);
}

async function ownerWithProject(t: TestApp) {
  const owner = await signUp(t, "owner@example.com", { displayName: "Olivia Owner" });
  const project = await createProject(t, owner.cookie, "Apollo");
  return { owner, project };
}

Deno.test("an invitation to a new person: link, view without a session, accept → account verified, member with the role, signed in; the link works once", async () => {
  const t = await testApp();
  try {
    const { owner, project } = await ownerWithProject(t);
    const made = await invite(t, owner.cookie, project.id, " New.Person@Example.com ", "viewer");
    assert.deepEqual(Object.keys(made).sort(), ["invitation", "url"]);
    const token = tokenOf(made.url);
    assert.ok(made.url.startsWith("http://localhost/invite/"), made.url);
    assert.deepEqual(made.invitation, {
      id: made.invitation.id,
      email: "new.person@example.com",
      role: "viewer",
      projectId: project.id,
      invitedBy: owner.user.id,
      createdAt: "2026-11-22T08:30:00.000Z",
      expiresAt: "2026-11-29T08:30:00.000Z",
      acceptedAt: null,
      revokedAt: null,
    });
    // The database keeps the token's hash, never the token.
    const stored = await t.sql.get<{ token_hash: string }>(
      "SELECT token_hash FROM invitations WHERE id = ?",
      [made.invitation.id],
    );
    assert.equal(stored!.token_hash, linkTokenHash(token));
    const dump = JSON.stringify(await t.sql.all("SELECT * FROM invitations"));
    assert.ok(!dump.includes(token));

    const view = expectJson(await api(t, "GET", `/api/invitations/${token}`), 200);
    assert.deepEqual(view, {
      email: "new.person@example.com",
      projectName: "Apollo",
      invitedByName: "Olivia Owner",
      expiresAt: "2026-11-29T08:30:00.000Z",
    });

    const accepted = await api(t, "POST", `/api/invitations/${token}/accept`, {
      body: { displayName: "Nina", password: PASSWORD },
    });
    const { user } = expectJson(accepted, 201);
    assert.equal(user.email, "new.person@example.com");
    assert.equal(user.displayName, "Nina");
    assert.equal(user.role, "member");
    assert.equal(user.emailVerified, true);
    const cookie = sessionFrom(accepted);
    assert.equal(expectJson(await api(t, "GET", "/api/auth/me", { cookie }), 200).user.id, user.id);
    const members = expectJson(
      await api(t, "GET", `/api/projects/${project.id}/members`, { cookie }),
      200,
    );
    assert.equal(members.items.find((m: Json) => m.userId === user.id)?.role, "viewer");

    // Used: the same answer as an unknown link, and nothing more is made.
    const users = await t.sql.count("users");
    expectError(await api(t, "GET", `/api/invitations/${token}`), 404, "not_found");
    expectError(
      await api(t, "POST", `/api/invitations/${token}/accept`, {
        body: { displayName: "Again", password: PASSWORD },
      }),
      404,
      "not_found",
    );
    for (const unknown of ["x".repeat(43), "x".repeat(500), "%20"]) {
      expectError(await api(t, "GET", `/api/invitations/${unknown}`), 404, "not_found");
    }
    assert.equal(await t.sql.count("users"), users);
    const list = expectJson(
      await api(t, "GET", `/api/projects/${project.id}/invitations`, { cookie: owner.cookie }),
      200,
    );
    assert.equal(list.items[0].acceptedAt, "2026-11-22T08:30:00.000Z");
  } finally {
    await t.close();
  }
});

Deno.test("an expired, revoked or replaced link is one 404 and creates nothing; sending again gives a new link and expiry", async () => {
  // Sessions outlive the week the clock moves on.
  const t = await testApp({ env: { SESSION_TTL_HOURS: "720" } });
  try {
    const { owner, project } = await ownerWithProject(t);
    const expiring = await invite(t, owner.cookie, project.id, "late@example.com");
    const revoked = await invite(t, owner.cookie, project.id, "gone@example.com");
    expectJson(await api(t, "GET", `/api/invitations/${tokenOf(revoked.url)}`), 200);
    const del = await api(
      t,
      "DELETE",
      `/api/projects/${project.id}/invitations/${revoked.invitation.id}`,
      { cookie: owner.cookie },
    );
    assert.equal(del.status, 204);

    // Seven days less a millisecond: still works; then no more.
    t.clock.advance(7 * DAY - 1);
    expectJson(await api(t, "GET", `/api/invitations/${tokenOf(expiring.url)}`), 200);
    t.clock.advance(1);
    const users = await t.sql.count("users");
    const members = await t.sql.count("project_members");
    for (const made of [expiring, revoked]) {
      const token = tokenOf(made.url);
      expectError(await api(t, "GET", `/api/invitations/${token}`), 404, "not_found");
      const res = await api(t, "POST", `/api/invitations/${token}/accept`, {
        body: { displayName: "Late", password: PASSWORD },
      });
      expectError(res, 404, "not_found");
      assert.equal(res.cookies.length, 0);
    }
    assert.equal(await t.sql.count("users"), users);
    assert.equal(await t.sql.count("project_members"), members);

    // Sent again: a new link working seven days from now; the old link stays dead.
    const resent = expectJson(
      await api(
        t,
        "POST",
        `/api/projects/${project.id}/invitations/${expiring.invitation.id}/resend`,
        { cookie: owner.cookie },
      ),
      200,
    );
    assert.notEqual(resent.url, expiring.url);
    assert.equal(
      resent.invitation.expiresAt,
      new Date(t.clock.now().getTime() + 7 * DAY).toISOString(),
    );
    expectError(await api(t, "GET", `/api/invitations/${tokenOf(expiring.url)}`), 404, "not_found");
    expectJson(await api(t, "GET", `/api/invitations/${tokenOf(resent.url)}`), 200);
    // A revoked one is not sent again; an accepted one is not revoked.
    expectError(
      await api(
        t,
        "POST",
        `/api/projects/${project.id}/invitations/${revoked.invitation.id}/resend`,
        { cookie: owner.cookie },
      ),
      409,
      "conflict",
    );
    expectJson(
      await api(t, "POST", `/api/invitations/${tokenOf(resent.url)}/accept`, {
        body: { displayName: "Late", password: PASSWORD },
      }),
      201,
    );
    expectError(
      await api(t, "DELETE", `/api/projects/${project.id}/invitations/${expiring.invitation.id}`, {
        cookie: owner.cookie,
      }),
      409,
      "conflict",
    );
  } finally {
    await t.close();
  }
});

Deno.test("an existing account is added at once with a notification; already a member is 409 already_member", async () => {
  const t = await testApp();
  try {
    const { owner, project } = await ownerWithProject(t);
    const bob = await signUp(t, "bob@example.com");
    const added = expectJson(
      await api(t, "POST", `/api/projects/${project.id}/invitations`, {
        cookie: owner.cookie,
        body: { email: "BOB@example.com", role: "owner" },
      }),
      201,
    );
    assert.deepEqual(Object.keys(added), ["member"]);
    assert.equal(added.member.userId, bob.user.id);
    assert.equal(added.member.role, "owner");
    const notes = expectJson(
      await api(t, "GET", "/api/notifications", { cookie: bob.cookie }),
      200,
    );
    assert.equal(notes.items[0]?.kind, "member_added");
    assert.equal(await t.sql.count("invitations"), 0);
    const before = await t.sql.count("project_members");
    for (const email of ["bob@example.com", "owner@example.com"]) {
      expectError(
        await api(t, "POST", `/api/projects/${project.id}/invitations`, {
          cookie: owner.cookie,
          body: { email, role: "member" },
        }),
        409,
        "already_member",
      );
    }
    assert.equal(await t.sql.count("project_members"), before);
  } finally {
    await t.close();
  }
});

Deno.test("bad input changes nothing: malformed email and days 400, members and viewers 403, strangers 404; a too-short password leaves the invitation usable", async () => {
  const t = await testApp();
  try {
    const { owner, project } = await ownerWithProject(t);
    const member = await signUp(t, "member@example.com");
    const stranger = await signUp(t, "stranger@example.com");
    await api(t, "POST", `/api/projects/${project.id}/members`, {
      cookie: owner.cookie,
      body: { email: "member@example.com", role: "member" },
    });
    const path = `/api/projects/${project.id}/invitations`;
    for (
      const body of [
        { email: "not-an-email", role: "member" },
        { email: "a@b.c, d@e.f", role: "member" },
        { email: "x@example.com", role: "admin" },
        { email: "x@example.com", role: "member", expiresInDays: 31 },
        { email: "x@example.com", role: "member", expiresInDays: 0 },
      ]
    ) {
      expectError(await api(t, "POST", path, { cookie: owner.cookie, body }), 400, "validation");
    }
    const ok = { email: "x@example.com", role: "member" };
    expectError(await api(t, "POST", path, { cookie: member.cookie, body: ok }), 403, "forbidden");
    expectError(await api(t, "GET", path, { cookie: member.cookie }), 403, "forbidden");
    expectError(
      await api(t, "POST", path, { cookie: stranger.cookie, body: ok }),
      404,
      "not_found",
    );
    expectError(await api(t, "POST", path, { body: ok }), 401, "unauthenticated");
    assert.equal(await t.sql.count("invitations"), 0);

    const made = await invite(t, owner.cookie, project.id, "short@example.com");
    const token = tokenOf(made.url);
    const users = await t.sql.count("users");
    const short = await api(t, "POST", `/api/invitations/${token}/accept`, {
      body: { displayName: "Shorty", password: "short" },
    });
    assert.equal(
      expectError(short, 400, "validation").details.password,
      "Use at least 8 characters",
    );
    expectError(
      await api(t, "POST", `/api/invitations/${token}/accept`, { body: { password: PASSWORD } }),
      400,
      "validation",
    );
    assert.equal(await t.sql.count("users"), users);
    expectJson(await api(t, "GET", `/api/invitations/${token}`), 200);
    expectJson(
      await api(t, "POST", `/api/invitations/${token}/accept`, {
        body: { displayName: "Shorty", password: PASSWORD },
      }),
      201,
    );
  } finally {
    await t.close();
  }
});

Deno.test("20 invitations per inviter per hour: the 21st is 429 and makes nothing; an hour on, invitations go again", async () => {
  const t = await testApp();
  try {
    const { owner, project } = await ownerWithProject(t);
    const other = await signUp(t, "other@example.com");
    const otherProject = await createProject(t, other.cookie, "Other");
    for (let i = 1; i <= 20; i++) await invite(t, owner.cookie, project.id, `p${i}@example.com`);
    const res = await api(t, "POST", `/api/projects/${project.id}/invitations`, {
      cookie: owner.cookie,
      body: { email: "p21@example.com", role: "member" },
    });
    expectError(res, 429, "rate_limited");
    assert.ok(Number(res.headers.get("retry-after")) > 0);
    assert.equal(await t.sql.count("invitations"), 20);
    // Another inviter is not held back.
    await invite(t, other.cookie, otherProject.id, "p21@example.com");
    t.clock.advance(3_600_000);
    await invite(t, owner.cookie, project.id, "p21@example.com");
  } finally {
    await t.close();
  }
});

Deno.test("a signed-in person with the invited email accepts with {}; another email is 403; accepting works with REGISTRATION=closed", async () => {
  const t = await testApp({ env: { REGISTRATION: "closed" } });
  try {
    const { owner, project } = await ownerWithProject(t);
    // Registration is closed: an invitation makes the account anyway.
    const first = await invite(t, owner.cookie, project.id, "carol@example.com");
    const carol = await api(t, "POST", `/api/invitations/${tokenOf(first.url)}/accept`, {
      body: { displayName: "Carol", password: PASSWORD },
    });
    const cookie = sessionFrom(carol);
    const second = await createProject(t, owner.cookie, "Second");
    const made = await invite(t, owner.cookie, second.id, "dave@example.com");
    const token = tokenOf(made.url);
    expectError(
      await api(t, "POST", `/api/invitations/${token}/accept`, { cookie, body: {} }),
      403,
      "forbidden",
    );
    // Carol's own invitation to the second project, accepted while signed in.
    await t.sql.run("UPDATE invitations SET email = 'carol@example.com' WHERE id = ?", [
      made.invitation.id,
    ]);
    const res = await api(t, "POST", `/api/invitations/${token}/accept`, { cookie, body: {} });
    assert.equal(expectJson(res, 201).user.email, "carol@example.com");
    assert.equal(res.cookies.find((c) => c.name === "session"), undefined);
    const projects = expectJson(await api(t, "GET", "/api/projects", { cookie }), 200);
    assert.deepEqual(projects.items.map((p: Json) => p.name).sort(), ["Apollo", "Second"]);
  } finally {
    await t.close();
  }
});

Deno.test("admin invitations: to the server as admin or member, all listed newest first in pages; account_exists 409; members 403", async () => {
  const t = await testApp();
  try {
    const { owner: admin, project } = await ownerWithProject(t);
    const member = await signUp(t, "member@example.com");
    await invite(t, admin.cookie, project.id, "proj@example.com");
    const made = expectJson(
      await api(t, "POST", "/api/admin/invitations", {
        cookie: admin.cookie,
        body: { email: "boss@example.com", role: "admin", expiresInDays: 30 },
      }),
      201,
    );
    assert.equal(made.invitation.projectId, null);
    assert.equal(made.invitation.expiresAt, "2026-12-22T08:30:00.000Z");
    const view = expectJson(await api(t, "GET", `/api/invitations/${tokenOf(made.url)}`), 200);
    assert.equal(view.projectName, null);
    expectError(
      await api(t, "POST", "/api/admin/invitations", {
        cookie: admin.cookie,
        body: { email: "member@example.com", role: "member" },
      }),
      409,
      "account_exists",
    );
    expectError(
      await api(t, "POST", "/api/admin/invitations", {
        cookie: member.cookie,
        body: { email: "x@example.com", role: "member" },
      }),
      403,
      "forbidden",
    );
    expectError(
      await api(t, "GET", "/api/admin/invitations", { cookie: member.cookie }),
      403,
      "forbidden",
    );
    const page = expectJson(
      await api(t, "GET", "/api/admin/invitations?pageSize=1", { cookie: admin.cookie }),
      200,
    );
    assert.deepEqual(page.items.map((i: Json) => i.email), ["boss@example.com"]);
    assert.equal(page.total, 2);
    assert.equal(page.hasMore, true);
    const accepted = expectJson(
      await api(t, "POST", `/api/invitations/${tokenOf(made.url)}/accept`, {
        body: { displayName: "Boss", password: PASSWORD },
      }),
      201,
    );
    assert.equal(accepted.user.role, "admin");
    assert.equal(accepted.user.emailVerified, true);
    // Revoke and send again through the admin's routes.
    const other = expectJson(
      await api(t, "POST", "/api/admin/invitations", {
        cookie: admin.cookie,
        body: { email: "later@example.com", role: "member" },
      }),
      201,
    );
    const resent = expectJson(
      await api(t, "POST", `/api/admin/invitations/${other.invitation.id}/resend`, {
        cookie: admin.cookie,
      }),
      200,
    );
    assert.equal(
      (await api(t, "DELETE", `/api/admin/invitations/${other.invitation.id}`, {
        cookie: admin.cookie,
      })).status,
      204,
    );
    expectError(await api(t, "GET", `/api/invitations/${tokenOf(resent.url)}`), 404, "not_found");
  } finally {
    await t.close();
  }
});

Deno.test("tokens never reach the request log: the links are logged as their routes", async () => {
  const t = await testApp();
  try {
    const { owner, project } = await ownerWithProject(t);
    const made = await invite(t, owner.cookie, project.id, "log@example.com");
    const token = tokenOf(made.url);
    await api(t, "GET", `/api/invitations/${token}`);
    await api(t, "POST", `/api/invitations/${token}/accept`, { body: { displayName: "L" } });
    await t.app.request(`/invite/${token}`);
    const log = t.logs.join("\n");
    assert.ok(!log.includes(token), log);
    assert.match(log, /^GET \/api\/invitations\/:token 200 /m);
    assert.match(log, /^POST \/api\/invitations\/:token\/accept 400 /m);
    assert.match(log, /^GET \/invite\/:token 200 /m);
  } finally {
    await t.close();
  }
});

Deno.test("with mail on: the invitation is mailed in the inviter's language with its link; an existing account gets a direct mail, its notification not mailed again", async () => {
  const smtp = await startSmtp();
  const t = await testApp({
    env: { BASE_URL: "https://collab.example.org", SMTP_URL: smtp.url, MAIL_DELAY_SECONDS: "0" },
    mail: { connectionTimeoutMs: 2_000, greetingTimeoutMs: 2_000, socketTimeoutMs: 5_000 },
  });
  try {
    const { owner, project } = await ownerWithProject(t);
    await api(t, "PATCH", "/api/users/me", {
      cookie: owner.cookie,
      body: { locale: "ja", timeZone: "Asia/Tokyo" },
    });
    const made = await invite(t, owner.cookie, project.id, "new@example.com");
    assert.ok(made.url.startsWith("https://collab.example.org/invite/"));
    const bob = await signUp(t, "bob@example.com");
    // Bob's digest is scheduled (09:00 UTC, for what comes after now); then he is added.
    await t.app.services.mailSender.runOnce();
    t.clock.advance(60_000);
    await invite(t, owner.cookie, project.id, "bob@example.com");
    await t.app.services.mailSender.runOnce();
    await t.app.services.mailSender.runOnce();
    const byRcpt = new Map(smtp.received.map((m) => [m.rcptTo[0], m]));
    assert.equal(smtp.received.length, 2, smtp.received.map((m) => m.parsed.subject).join("\n"));
    const invitation = byRcpt.get("new@example.com")!.parsed;
    assert.match(invitation.subject ?? "", /Olivia Owner.*Apollo/);
    assert.match(invitation.text ?? "", /招待しました/);
    assert.ok(invitation.text?.includes(made.url), invitation.text ?? "");
    assert.match(invitation.text ?? "", /\(Asia\/Tokyo\)/);
    assert.ok(String(invitation.html).includes(made.url));
    const added = byRcpt.get("bob@example.com")!.parsed;
    // Bob's own language (English), not the inviter's.
    assert.equal(added.subject, "You were added to Apollo");
    assert.ok(added.text?.includes("https://collab.example.org/projects/"), added.text ?? "");
    assert.equal(bob.user.emailNotifications, "immediate");
    // The member_added notification was told by that mail: the mailer does not send it again.
    // Bob's digest (09:00 UTC) comes due and is composed, then sent: it has nothing to tell.
    t.clock.advance(3_600_000);
    await t.app.services.mailSender.runOnce();
    await t.app.services.mailSender.runOnce();
    assert.deepEqual(smtp.received.map((m) => m.rcptTo[0]).sort(), [
      "bob@example.com",
      "new@example.com",
    ]);
  } finally {
    await t.close();
    await smtp.close();
  }
});

Deno.test("accepting is one transaction: when its last step (the session) fails, no account, membership or acceptance is left, and the link still works", async () => {
  const t = await testApp();
  try {
    const { owner, project } = await ownerWithProject(t);
    const made = await invite(t, owner.cookie, project.id, "atomic@example.com");
    const token = tokenOf(made.url);
    const users = await t.sql.count("users");
    const members = await t.sql.count("project_members");
    // The sessions table gone for a moment: the account and membership are written first.
    await t.sql.run("ALTER TABLE sessions RENAME TO sessions_away");
    const failed = await api(t, "POST", `/api/invitations/${token}/accept`, {
      body: { displayName: "Atom", password: PASSWORD },
    });
    await t.sql.run("ALTER TABLE sessions_away RENAME TO sessions");
    t.logs.length = 0;
    assert.equal(failed.status, 500);
    assert.equal(failed.cookies.length, 0);
    assert.equal(await t.sql.count("users"), users);
    assert.equal(await t.sql.count("project_members"), members);
    assert.equal(await t.sql.count("invitations WHERE accepted_at IS NOT NULL"), 0);
    expectJson(
      await api(t, "POST", `/api/invitations/${token}/accept`, {
        body: { displayName: "Atom", password: PASSWORD },
      }),
      201,
    );
  } finally {
    await t.close();
  }
});
