/**
 * Password reset through the API, with mail through a real SMTP server (tests/helpers/smtp.ts):
 * the one answer for known and unknown addresses, the mailed link and what using it does
 * (password, sessions, API tokens, other links, emailVerified, the "changed" mail), bad links,
 * the limits on an injected clock, the admin's link, and the request log.
 */
import assert from "node:assert/strict";
import { type TestApp, testApp } from "../helpers/app.ts";
import {
  api,
  expectError,
  expectJson,
  expectNoContent,
  HOUR,
  login,
  PASSWORD,
  signUp,
} from "../helpers/api.ts";
import { startSmtp, type TestSmtp } from "../helpers/smtp.ts";

const BASE_URL = "https://collab.example.org";
const NEW_PASSWORD = "a brand new passphrase";

async function mailApp(smtp: TestSmtp) {
  return await testApp({
    env: { BASE_URL, SMTP_URL: smtp.url },
    mail: { connectionTimeoutMs: 2_000, greetingTimeoutMs: 2_000, socketTimeoutMs: 5_000 },
  });
}

/** Sends what the outbox holds and returns the mails that arrived meanwhile. */
async function delivered(t: TestApp, smtp: TestSmtp) {
  const before = smtp.received.length;
  await t.app.services.mailSender.runOnce();
  return smtp.received.slice(before);
}

/** The reset token in a mail's text. */
function tokenIn(text: string | undefined): string {
  const match = /https:\/\/collab\.example\.org\/reset-password\/([A-Za-z0-9_-]{43})/.exec(
    text ?? "",
  );
  assert.ok(match, `no reset link in: ${text}`);
  return match[1]!;
}

async function ask(t: TestApp, email: string) {
  return await api(t, "POST", "/api/auth/password-reset", { body: { email } });
}

async function outboxCount(t: TestApp, kind = "password_reset"): Promise<number> {
  return await t.sql.count("mail_outbox WHERE kind = ?", [kind]);
}

Deno.test("a reset link is mailed to an existing account only; the answer is 202 {} either way", async () => {
  const smtp = await startSmtp();
  const t = await mailApp(smtp);
  try {
    await signUp(t, "root@example.com");
    await signUp(t, "ada@example.com", { displayName: "Ada" });
    const known = await ask(t, "  Ada@Example.com ");
    const unknown = await ask(t, "nobody@example.com");
    assert.equal(known.status, 202);
    assert.equal(unknown.status, 202);
    assert.deepEqual(known.json, {});
    assert.equal(known.text, unknown.text);
    const mails = await delivered(t, smtp);
    assert.equal(mails.length, 1);
    assert.deepEqual(mails[0]!.rcptTo, ["ada@example.com"]);
    assert.match(mails[0]!.parsed.subject ?? "", /Reset your Collab password/);
    assert.match(String(mails[0]!.parsed.html), /reset-password\//);
    tokenIn(mails[0]!.parsed.text);
    // Only the hash is stored.
    const stored = await t.sql.all<{ token_hash: string; kind: string; mailed: number }>(
      "SELECT token_hash, kind, mailed FROM account_links",
    );
    assert.equal(stored.length, 1);
    assert.equal(stored[0]!.kind, "reset");
    assert.equal(Number(stored[0]!.mailed), 1);
    assert.ok(!mails[0]!.raw.includes(stored[0]!.token_hash));
    assert.match(stored[0]!.token_hash, /^[0-9a-f]{64}$/);
  } finally {
    await t.close();
    await smtp.close();
  }
});

Deno.test("a disabled account gets no mail; a malformed address is 400 and nothing is counted", async () => {
  const smtp = await startSmtp();
  const t = await mailApp(smtp);
  try {
    const root = await signUp(t, "root@example.com");
    const bob = await signUp(t, "bob@example.com");
    expectJson(
      await api(t, "PATCH", `/api/admin/users/${bob.user.id}`, {
        cookie: root.cookie,
        body: { status: "disabled" },
      }),
      200,
    );
    assert.equal((await ask(t, "bob@example.com")).status, 202);
    assert.equal(await outboxCount(t), 0);
    for (const email of ["not an address", "", "a@b@c", "x".repeat(300) + "@example.com"]) {
      expectError(await ask(t, email), 400, "validation");
    }
    expectError(await api(t, "POST", "/api/auth/password-reset", { body: {} }), 400, "validation");
    // The one accepted request counted once per limit (its client, its address).
    assert.equal(await t.sql.count("throttle_entries WHERE rule LIKE 'reset%'"), 2);
  } finally {
    await t.close();
    await smtp.close();
  }
});

Deno.test("using the link sets the password, ends sessions and API tokens and other links, verifies the address, and mails the change", async () => {
  const smtp = await startSmtp();
  const t = await mailApp(smtp);
  try {
    await signUp(t, "root@example.com");
    const ada = await signUp(t, "ada@example.com", { displayName: "Ada" });
    assert.equal(ada.user.emailVerified, false);
    const other = await login(t, "ada@example.com");
    const token = expectJson(
      await api(t, "POST", "/api/tokens", {
        cookie: ada.cookie,
        body: { name: "ci", scope: "read" },
      }),
      201,
    ).secret as string;
    assert.equal(
      (await api(t, "GET", "/api/auth/me", { headers: { authorization: `Bearer ${token}` } }))
        .status,
      200,
    );
    await ask(t, "ada@example.com");
    const first = tokenIn((await delivered(t, smtp))[0]!.parsed.text);
    t.clock.advance(60_000);
    await ask(t, "ada@example.com");
    const second = tokenIn((await delivered(t, smtp))[0]!.parsed.text);
    assert.notEqual(first, second);

    expectNoContent(
      await api(t, "POST", `/api/auth/password-reset/${second}`, {
        body: { password: NEW_PASSWORD },
      }),
    );
    // Every session ended, the API token revoked.
    expectError(
      await api(t, "GET", "/api/auth/me", { cookie: ada.cookie }),
      401,
      "unauthenticated",
    );
    expectError(await api(t, "GET", "/api/auth/me", { cookie: other }), 401, "unauthenticated");
    expectError(
      await api(t, "GET", "/api/auth/me", { headers: { authorization: `Bearer ${token}` } }),
      401,
      "unauthenticated",
    );
    // The old password is gone, the new one works, the address is verified.
    expectError(
      await api(t, "POST", "/api/auth/login", {
        body: { email: "ada@example.com", password: PASSWORD },
      }),
      401,
      "unauthenticated",
    );
    const cookie = await login(t, "ada@example.com", NEW_PASSWORD);
    assert.equal(
      expectJson(await api(t, "GET", "/api/auth/me", { cookie }), 200).user.emailVerified,
      true,
    );
    // The link worked once; the other link of the account stopped working too.
    for (const used of [second, first]) {
      expectError(
        await api(t, "POST", `/api/auth/password-reset/${used}`, {
          body: { password: "another one 123" },
        }),
        404,
        "not_found",
      );
    }
    const changed = await delivered(t, smtp);
    assert.equal(changed.length, 1);
    assert.deepEqual(changed[0]!.rcptTo, ["ada@example.com"]);
    assert.match(changed[0]!.parsed.subject ?? "", /password was changed/);
  } finally {
    await t.close();
    await smtp.close();
  }
});

Deno.test("bad links are one 404; a short password is 400 and the link stays usable; links live 60 minutes", async () => {
  const smtp = await startSmtp();
  const t = await mailApp(smtp);
  try {
    await signUp(t, "root@example.com");
    await signUp(t, "ada@example.com");
    await ask(t, "ada@example.com");
    const token = tokenIn((await delivered(t, smtp))[0]!.parsed.text);
    const use = (tok: string, password = NEW_PASSWORD) =>
      api(t, "POST", `/api/auth/password-reset/${tok}`, { body: { password } });
    const answers = new Set<string>();
    for (
      const bad of [
        "nope",
        "A".repeat(43),
        "x".repeat(500),
        token.slice(0, -1) + (token.endsWith("A") ? "B" : "A"),
      ]
    ) {
      answers.add(expectError(await use(bad), 404, "not_found").message);
    }
    expectError(await use(token, "short"), 400, "validation");
    // Still usable after the refusal, but not after 60 minutes.
    t.clock.advance(HOUR);
    answers.add(expectError(await use(token), 404, "not_found").message);
    assert.equal(answers.size, 1, "one answer for every bad link");
    // A fresh link, used just before its hour ends.
    await ask(t, "ada@example.com");
    const fresh = tokenIn((await delivered(t, smtp))[0]!.parsed.text);
    t.clock.advance(HOUR - 1000);
    expectError(await use(fresh, "short"), 400, "validation");
    expectNoContent(await use(fresh));
    // A verification link is no reset link.
    const cookie = await login(t, "ada@example.com", NEW_PASSWORD);
    assert.equal((await api(t, "POST", "/api/auth/verify-email", { cookie })).status, 409);
  } finally {
    await t.close();
    await smtp.close();
  }
});

Deno.test("limits: 3 mails per address and 20 requests per client address within an hour, still 202", async () => {
  const smtp = await startSmtp();
  const t = await mailApp(smtp);
  try {
    await signUp(t, "root@example.com");
    await signUp(t, "ada@example.com");
    await signUp(t, "bob@example.com");
    for (let i = 0; i < 4; i++) assert.equal((await ask(t, "ada@example.com")).status, 202);
    assert.equal(await outboxCount(t), 3, "the 4th request for one address mails nothing");
    // Another address still gets its mail (5 requests so far from this client; 15 more make 20).
    await ask(t, "bob@example.com");
    assert.equal(await outboxCount(t), 4);
    // The client's allowance: 20 requests, whatever the address.
    for (let i = 0; i < 15; i++) await ask(t, `nobody${i}@example.com`);
    t.clock.advance(HOUR / 2);
    const over = await ask(t, "bob@example.com");
    assert.equal(over.status, 202);
    assert.deepEqual(over.json, {});
    assert.equal(await outboxCount(t), 4, "the 21st request from the client mails nothing");
    // An hour after the first requests, both allowances are back.
    t.clock.advance(HOUR / 2 + 1000);
    await ask(t, "ada@example.com");
    assert.equal(await outboxCount(t), 5);
  } finally {
    await t.close();
    await smtp.close();
  }
});

Deno.test("the admin's reset link: 201 {url, expiresAt}, mailed when mail is on, does not verify; admins only", async () => {
  const smtp = await startSmtp();
  const t = await mailApp(smtp);
  const off = await testApp();
  try {
    const root = await signUp(t, "root@example.com");
    const ada = await signUp(t, "ada@example.com");
    const link = expectJson(
      await api(t, "POST", `/api/admin/users/${ada.user.id}/password-reset`, {
        cookie: root.cookie,
      }),
      201,
    );
    assert.deepEqual(Object.keys(link).sort(), ["expiresAt", "url"]);
    assert.equal(link.expiresAt, new Date(t.clock.now().getTime() + HOUR).toISOString());
    const token = tokenIn(link.url);
    const mailed = await delivered(t, smtp);
    assert.equal(mailed.length, 1);
    assert.equal(tokenIn(mailed[0]!.parsed.text), token);
    expectError(
      await api(t, "POST", `/api/admin/users/${root.user.id}/password-reset`, {
        cookie: ada.cookie,
      }),
      403,
      "forbidden",
    );
    expectError(
      await api(t, "POST", "/api/admin/users/9999/password-reset", { cookie: root.cookie }),
      404,
      "not_found",
    );
    expectNoContent(
      await api(t, "POST", `/api/auth/password-reset/${token}`, {
        body: { password: NEW_PASSWORD },
      }),
    );
    const cookie = await login(t, "ada@example.com", NEW_PASSWORD);
    assert.equal(
      expectJson(await api(t, "GET", "/api/auth/me", { cookie }), 200).user.emailVerified,
      false,
      "an admin's link proves nothing about the address",
    );
    // A disabled account gets no link.
    expectJson(
      await api(t, "PATCH", `/api/admin/users/${ada.user.id}`, {
        cookie: root.cookie,
        body: { status: "disabled" },
      }),
      200,
    );
    expectError(
      await api(t, "POST", `/api/admin/users/${ada.user.id}/password-reset`, {
        cookie: root.cookie,
      }),
      409,
      "conflict",
    );
    // The sign-in page offers "Forgot password?" only while mail is on.
    assert.match((await api(t, "GET", "/login")).text, /href="\/forgot-password"/);
    assert.doesNotMatch((await api(off, "GET", "/login")).text, /forgot-password/);
    // Without mail and BASE_URL: the link points at the request's origin, nothing is queued.
    const offRoot = await signUp(off, "root@example.com");
    const offAda = await signUp(off, "ada@example.com");
    const offLink = expectJson(
      await api(
        off,
        "POST",
        `http://localhost:9/api/admin/users/${offAda.user.id}/password-reset`,
        {
          cookie: offRoot.cookie,
        },
      ),
      201,
    );
    assert.match(offLink.url, /^http:\/\/localhost:9\/reset-password\/[A-Za-z0-9_-]{43}$/);
    assert.equal(await off.sql.count("mail_outbox"), 0);
    const offToken = offLink.url.split("/").pop();
    expectNoContent(
      await api(off, "POST", `/api/auth/password-reset/${offToken}`, {
        body: { password: NEW_PASSWORD },
      }),
    );
    await login(off, "ada@example.com", NEW_PASSWORD);
  } finally {
    await t.close();
    await off.close();
    await smtp.close();
  }
});

Deno.test("reset tokens never reach the request log: it shows the routes", async () => {
  const smtp = await startSmtp();
  const t = await mailApp(smtp);
  try {
    await signUp(t, "root@example.com");
    await signUp(t, "ada@example.com");
    await ask(t, "ada@example.com");
    const token = tokenIn((await delivered(t, smtp))[0]!.parsed.text);
    await t.app.request(`/reset-password/${token}`);
    await t.app.request(`/verify-email/${token}`);
    await api(t, "POST", `/api/auth/password-reset/${token}`, { body: { password: NEW_PASSWORD } });
    const lines = t.logs.join("\n");
    assert.ok(!lines.includes(token), lines);
    assert.match(lines, /GET \/reset-password\/:token 200/);
    assert.match(lines, /GET \/verify-email\/:token 404/);
    assert.match(lines, /POST \/api\/auth\/password-reset\/:token 204/);
  } finally {
    await t.close();
    await smtp.close();
  }
});
