/**
 * An invitation end to end, in English and in Japanese: an owner invites a newcomer from the
 * project page, the real test SMTP server receives the mail (in the owner's language), the
 * newcomer follows the mailed link in a browser, creates the account on the invitation's page
 * and lands in the project as a member with the invited role. The link then no longer works.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { testApp } from "../helpers/app.ts";
import { freePort, startSmtp } from "../helpers/smtp.ts";
import { browserTest, launch } from "./browser.ts";
import { callJson } from "./every_page.ts";

const WORDS = {
  en: { mail: /invited you to the project/, page: "invited", accept: "Accept the invitation" },
  ja: { mail: /招待しました/, page: "招待しました", accept: "招待を受ける" },
} as const;

async function signedIn(browser: Browser, baseUrl: string, cookies: Record<string, string>) {
  const context = await browser.newContext();
  await context.addCookies(
    Object.entries(cookies).map(([name, value]) => ({ name, value, url: baseUrl })),
  );
  const page = await context.newPage();
  page.on("pageerror", (error) => {
    throw error;
  });
  return { context, page };
}

browserTest(
  "invite from the project page → mail received → link followed → account made → in the project, in en and ja",
  async () => {
    const smtp = await startSmtp();
    // The server listens on the port BASE_URL names: the mailed link is followed as it is.
    const port = freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const t = await testApp({ env: { BASE_URL: baseUrl, SMTP_URL: smtp.url } });
    const server = Deno.serve({ hostname: "127.0.0.1", port, onListen: () => {} }, t.app.fetch);
    const browser = await launch();
    try {
      const owner = await callJson(baseUrl, "POST", "/api/auth/register", null, {
        email: "owner@example.com",
        password: "correct horse battery",
        displayName: "Olivia Owner",
      });
      assert.equal(owner.status, 201);
      const session = owner.cookie!.slice("session=".length);
      for (const locale of ["en", "ja"] as const) {
        const words = WORDS[locale];
        const set = await callJson(baseUrl, "PATCH", "/api/users/me", owner.cookie, { locale });
        assert.equal(set.status, 200);
        const name = locale === "en" ? "Harbour works" : "港湾工事";
        const { json } = await callJson(baseUrl, "POST", "/api/projects", owner.cookie, { name });
        const projectId = json.project.id as number;
        const email = `newcomer.${locale}@example.com`;

        // The owner invites from the project page; the link is shown once, to copy.
        const own = await signedIn(browser, baseUrl, { session });
        await own.page.goto(`${baseUrl}/projects/${projectId}`);
        await own.page.fill("[data-invite-form] input[name=email]", email);
        await own.page.selectOption("[data-invite-form] select[name=role]", "viewer");
        await Promise.all([
          own.page.waitForNavigation(),
          own.page.click("[data-invite-form] button[type=submit]"),
        ]);
        const shown = await own.page.textContent("#invitation-link");
        assert.ok(shown?.startsWith(`${baseUrl}/invite/`), shown ?? "");
        await own.context.close();

        // The mail goes out through the outbox to the real SMTP server.
        const before = smtp.received.length;
        await t.app.services.mailSender.runOnce();
        const mail = smtp.received.slice(before).find((m) => m.rcptTo[0] === email);
        assert.ok(mail, `no mail to ${email}`);
        assert.match(mail.parsed.text ?? "", words.mail);
        const link = /(https?:\/\/\S+\/invite\/[A-Za-z0-9_-]+)/.exec(mail.parsed.text ?? "")?.[1];
        assert.equal(link, shown);

        // The newcomer follows the link, in their language, and accepts.
        const guest = await signedIn(browser, baseUrl, { locale });
        const res = await guest.page.goto(link!);
        assert.equal(res?.status(), 200);
        assert.equal(await guest.page.getAttribute("html", "lang"), locale);
        const what = await guest.page.textContent("[data-invite-what]");
        assert.ok(what?.includes("Olivia Owner") && what.includes(name), what ?? "");
        assert.ok(what?.includes(words.page), what ?? "");
        await guest.page.fill("input[name=displayName]", `Newcomer ${locale}`);
        await guest.page.fill("input[name=password]", "a long enough password");
        await Promise.all([
          guest.page.waitForNavigation(),
          guest.page.click(`button:has-text("${words.accept}")`),
        ]);
        assert.equal(new URL(guest.page.url()).pathname, `/projects/${projectId}`);
        assert.equal(await guest.page.textContent("h1"), name);
        const me = await guest.context.cookies(baseUrl);
        const cookie = `session=${me.find((c) => c.name === "session")!.value}`;
        const members = await callJson(
          baseUrl,
          "GET",
          `/api/projects/${projectId}/members`,
          cookie,
        );
        const joined = members.json.items.find((m: { email: string }) => m.email === email);
        assert.equal(joined?.role, "viewer");
        const user = await callJson(baseUrl, "GET", "/api/auth/me", cookie);
        assert.equal(user.json.user.emailVerified, true);
        assert.equal(user.json.user.locale, locale);

        // Used: the link is the page of links that do not work.
        const again = await guest.page.goto(link!);
        assert.equal(again?.status(), 404);
        assert.ok(await guest.page.$("[data-invite-broken]"));
        await guest.context.close();
      }
    } finally {
      await browser.close();
      await server.shutdown();
      await t.close();
      await smtp.close();
    }
  },
);
