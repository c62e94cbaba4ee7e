/**
 * Email verification: the signed-in request (409 `mail_off` without mail, `conflict` once
 * verified, 429 past 3 an hour), the mailed link (24 hours, once) and its page, which verifies
 * on opening, and the one page for a link that does not work.
 */
import assert from "node:assert/strict";
import { type TestApp, testApp } from "../helpers/app.ts";
import { api, expectError, expectJson, HOUR, signUp } from "../helpers/api.ts";
import { startSmtp, type TestSmtp } from "../helpers/smtp.ts";

const BASE_URL = "https://collab.example.org";

async function mailApp(smtp: TestSmtp) {
  return await testApp({
    env: { BASE_URL, SMTP_URL: smtp.url },
    mail: { connectionTimeoutMs: 2_000, greetingTimeoutMs: 2_000, socketTimeoutMs: 5_000 },
  });
}

/** Asks for a verification mail, sends it, and returns the link's token. */
async function mailedToken(t: TestApp, smtp: TestSmtp, cookie: string): Promise<string> {
  expectJson(await api(t, "POST", "/api/auth/verify-email", { cookie }), 202);
  const before = smtp.received.length;
  await t.app.services.mailSender.runOnce();
  const mail = smtp.received.slice(before)[0];
  assert.ok(mail, "a verification mail arrived");
  const match = /https:\/\/collab\.example\.org\/verify-email\/([A-Za-z0-9_-]{43})/.exec(
    mail.parsed.text ?? "",
  );
  assert.ok(match, String(mail.parsed.text));
  return match[1]!;
}

async function verified(t: TestApp, cookie: string): Promise<boolean> {
  return expectJson(await api(t, "GET", "/api/auth/me", { cookie }), 200).user.emailVerified;
}

Deno.test("the mailed link verifies the address on opening, once; in the account's language", async () => {
  const smtp = await startSmtp();
  const t = await mailApp(smtp);
  try {
    await signUp(t, "root@example.com");
    const ada = await signUp(t, "ada@example.com", { displayName: "Ada" });
    expectJson(
      await api(t, "PATCH", "/api/users/me", { cookie: ada.cookie, body: { locale: "ja" } }),
      200,
    );
    const token = await mailedToken(t, smtp, ada.cookie);
    assert.match(smtp.received.at(-1)!.parsed.subject ?? "", /メールアドレスの確認/);
    assert.equal(await verified(t, ada.cookie), false);
    // Opening it needs no session.
    const page = await api(t, "GET", `/verify-email/${token}`);
    assert.equal(page.status, 200);
    assert.match(page.text, /Email address confirmed/);
    assert.equal(await verified(t, ada.cookie), true);
    // Once only: the same page for a used link as for a wrong one.
    const again = await api(t, "GET", `/verify-email/${token}`);
    const wrong = await api(t, "GET", "/verify-email/not-a-token");
    assert.equal(again.status, 404);
    assert.equal(wrong.status, 404);
    assert.match(again.text, /This link does not work/);
    assert.equal(again.text, wrong.text);
    // Verified: nothing more to mail.
    expectError(
      await api(t, "POST", "/api/auth/verify-email", { cookie: ada.cookie }),
      409,
      "conflict",
    );
  } finally {
    await t.close();
    await smtp.close();
  }
});

Deno.test("verification links live 24 hours; a reset link does not verify through this page", async () => {
  const smtp = await startSmtp();
  const t = await mailApp(smtp);
  try {
    await signUp(t, "root@example.com");
    const ada = await signUp(t, "ada@example.com");
    const late = await mailedToken(t, smtp, ada.cookie);
    t.clock.advance(24 * HOUR);
    assert.equal((await api(t, "GET", `/verify-email/${late}`)).status, 404);
    assert.equal(await verified(t, ada.cookie), false);
    const inTime = await mailedToken(t, smtp, ada.cookie);
    t.clock.advance(24 * HOUR - 1000);
    await api(t, "POST", "/api/auth/password-reset", { body: { email: "ada@example.com" } });
    await t.app.services.mailSender.runOnce();
    const reset = /reset-password\/([A-Za-z0-9_-]{43})/.exec(
      smtp.received.at(-1)!.parsed.text!,
    )![1]!;
    assert.equal((await api(t, "GET", `/verify-email/${reset}`)).status, 404);
    assert.equal(await verified(t, ada.cookie), false);
    assert.equal((await api(t, "GET", `/verify-email/${inTime}`)).status, 200);
    assert.equal(await verified(t, ada.cookie), true);
  } finally {
    await t.close();
    await smtp.close();
  }
});

Deno.test("asking: signed in only (401), 409 mail_off without mail, 429 past 3 mails an hour", async () => {
  const smtp = await startSmtp();
  const t = await mailApp(smtp);
  const off = await testApp();
  try {
    expectError(await api(t, "POST", "/api/auth/verify-email"), 401, "unauthenticated");
    await signUp(t, "root@example.com");
    const ada = await signUp(t, "ada@example.com");
    for (let i = 0; i < 3; i++) {
      expectJson(await api(t, "POST", "/api/auth/verify-email", { cookie: ada.cookie }), 202);
    }
    const refused = await api(t, "POST", "/api/auth/verify-email", { cookie: ada.cookie });
    expectError(refused, 429, "rate_limited");
    assert.ok(Number(refused.headers.get("retry-after")) > 0);
    assert.equal(await t.sql.count("mail_outbox WHERE kind = 'verify_email'"), 3);
    t.clock.advance(HOUR);
    expectJson(await api(t, "POST", "/api/auth/verify-email", { cookie: ada.cookie }), 202);

    const offUser = await signUp(off, "root@example.com");
    expectError(
      await api(off, "POST", "/api/auth/verify-email", { cookie: offUser.cookie }),
      409,
      "mail_off",
    );
    assert.equal(await off.sql.count("account_links"), 0);
  } finally {
    await t.close();
    await off.close();
    await smtp.close();
  }
});
