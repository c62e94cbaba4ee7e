/**
 * In a real browser, with mail through the real test SMTP server: "Forgot password?" on the
 * sign-in page, the mail, the link followed, a new password, signed in with it — in English and
 * in Japanese. Then the admin's reset-link button and the account page's "verify my email".
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { type TestServer, testServer } from "../helpers/app.ts";
import { freePort, startSmtp, type TestSmtp } from "../helpers/smtp.ts";
import { browserTest, launch } from "./browser.ts";
import { callJson } from "./every_page.ts";

const NEW_PASSWORD = "a brand new passphrase";

/** A server whose BASE_URL is its own address, mailing through `smtp`. */
async function mailServer(smtp: TestSmtp): Promise<TestServer> {
  const port = freePort();
  return await testServer({
    env: { BASE_URL: `http://127.0.0.1:${port}`, SMTP_URL: smtp.url },
    mail: { connectionTimeoutMs: 2_000, greetingTimeoutMs: 2_000, socketTimeoutMs: 5_000 },
  }, port);
}

/** Sends the outbox and returns the path of the link (`/reset-password/…`) in the one new mail. */
async function linkInMail(t: TestServer, smtp: TestSmtp, route: string) {
  const before = smtp.received.length;
  await t.app.services.mailSender.runOnce();
  const mails = smtp.received.slice(before);
  assert.equal(mails.length, 1);
  const match = new RegExp(`${t.baseUrl}(/${route}/[A-Za-z0-9_-]{43})`).exec(
    mails[0]!.parsed.text ?? "",
  );
  assert.ok(match, String(mails[0]!.parsed.text));
  return { path: match[1]!, mail: mails[0]! };
}

async function visitor(browser: Browser, t: TestServer, locale: string): Promise<Page> {
  const context = await browser.newContext();
  await context.addCookies([{ name: "locale", value: locale, url: t.baseUrl }]);
  return await context.newPage();
}

browserTest(
  "forgot password → mail → link → new password → signed in, in English and Japanese",
  async () => {
    const smtp = await startSmtp();
    const t = await mailServer(smtp);
    const browser = await launch();
    try {
      await callJson(t.baseUrl, "POST", "/api/auth/register", null, {
        email: "root@example.com",
        password: "correct horse battery",
        displayName: "Root",
      });
      for (const [locale, email] of [["en", "ada@example.com"], ["ja", "kana@example.com"]]) {
        const reg = await callJson(t.baseUrl, "POST", "/api/auth/register", null, {
          email,
          password: "correct horse battery",
          displayName: email!.split("@")[0],
        });
        assert.equal(reg.status, 201);
        const me = await callJson(t.baseUrl, "PATCH", "/api/users/me", reg.cookie, { locale });
        assert.equal(me.status, 200);

        const page = await visitor(browser, t, locale!);
        await page.goto(`${t.baseUrl}/login`);
        assert.equal(await page.getAttribute("html", "lang"), locale);
        await page.click("a[href='/forgot-password']");
        await page.waitForURL(`${t.baseUrl}/forgot-password`);
        await page.fill("input[name=email]", email!);
        await page.click("button[type=submit]");
        await page.waitForURL(`${t.baseUrl}/forgot-password?sent=1`);
        assert.match(
          await page.textContent("[role=status]") ?? "",
          locale === "ja" ? /メールをお送りしました/ : /a mail with a link is on its way/,
        );
        // The mail, in the account's language.
        const { path, mail } = await linkInMail(t, smtp, "reset-password");
        assert.deepEqual(mail.rcptTo, [email]);
        assert.match(
          mail.parsed.subject ?? "",
          locale === "ja" ? /パスワードの再設定/ : /Reset your Collab password/,
        );
        await page.goto(`${t.baseUrl}${path}`);
        // Too short first: refused, the link still works.
        await page.fill("input[name=password]", "short");
        await page.evaluate(`document.querySelector("input[name=password]").minLength = 0`);
        await page.click("button[type=submit]");
        await page.waitForSelector(".field-error");
        await page.fill("input[name=password]", NEW_PASSWORD);
        await page.click("button[type=submit]");
        await page.waitForURL(`${t.baseUrl}/login?reset=1`);
        assert.match(
          await page.textContent("[role=status]") ?? "",
          locale === "ja" ? /パスワードを変更しました/ : /Your password was changed/,
        );
        await page.fill("input[name=email]", email!);
        await page.fill("input[name=password]", NEW_PASSWORD);
        await page.click("button[type=submit]");
        await page.waitForURL(`${t.baseUrl}/`);
        assert.equal(await page.getAttribute("html", "lang"), locale);
        // The "your password was changed" mail went too; the link is used up.
        await t.app.services.mailSender.runOnce();
        assert.match(
          smtp.received.at(-1)!.parsed.subject ?? "",
          locale === "ja" ? /パスワードが変更されました/ : /password was changed/,
        );
        const again = await page.goto(`${t.baseUrl}${path}`);
        assert.equal(again?.status(), 404);
        await page.context().close();
      }
    } finally {
      await browser.close();
      await t.close();
      await smtp.close();
    }
  },
);

browserTest(
  "the admin's reset-link button shows a link to copy; 'verify my email' mails a link that verifies",
  async () => {
    const smtp = await startSmtp();
    const t = await mailServer(smtp);
    const browser = await launch();
    try {
      const root = await callJson(t.baseUrl, "POST", "/api/auth/register", null, {
        email: "root@example.com",
        password: "correct horse battery",
        displayName: "Root",
      });
      const bo = await callJson(t.baseUrl, "POST", "/api/auth/register", null, {
        email: "bo@example.com",
        password: "correct horse battery",
        displayName: "Bo",
      });
      const context = await browser.newContext();
      const [name, value] = root.cookie!.split("=") as [string, string];
      await context.addCookies([{ name, value, url: t.baseUrl }]);
      const page = await context.newPage();
      await page.goto(`${t.baseUrl}/admin`);
      await page.click(`form[action='/admin/users/${bo.json.user.id}/password-reset'] button`);
      await page.waitForSelector("[data-reset-link]");
      const url = await page.inputValue("[data-reset-link] input");
      assert.match(url, new RegExp(`^${t.baseUrl}/reset-password/[A-Za-z0-9_-]{43}$`));
      // Also mailed to Bo, the same link.
      const { path } = await linkInMail(t, smtp, "reset-password");
      assert.equal(`${t.baseUrl}${path}`, url);

      // Verify my email, from the account page.
      await page.goto(`${t.baseUrl}/settings`);
      await page.click("form[action='/settings/verify-email'] button");
      await page.waitForURL(`${t.baseUrl}/settings?verify=sent`);
      const verify = await linkInMail(t, smtp, "verify-email");
      await page.goto(`${t.baseUrl}${verify.path}`);
      assert.match(await page.textContent("[role=status]") ?? "", /email address is confirmed/);
      await page.goto(`${t.baseUrl}/settings`);
      assert.match(
        await page.textContent("[data-verify-email]") ?? "",
        /Your email address is confirmed\./,
      );
      assert.equal(await page.$("form[action='/settings/verify-email']"), null);
    } finally {
      await browser.close();
      await t.close();
      await smtp.close();
    }
  },
);
