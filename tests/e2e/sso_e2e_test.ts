/**
 * Single sign-on in a real browser against a real provider (npm oidc-provider, started here on
 * 127.0.0.2: another site than our app on 127.0.0.1, as a real provider is, so the state cookie
 * must travel back on the provider's cross-site redirect). A person clicks the SSO button on our
 * sign-in page, signs in on the provider's login page and lands signed in; signs out, which ends
 * our session and the provider's (the next SSO sign-in asks for the login again). A person whose
 * provider email is unverified but whose account here has that email types the account's
 * password on the link page and lands signed in, the identity linked.
 */
import assert from "node:assert/strict";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { type TestServer, testServer } from "../helpers/app.ts";
import { CLIENT_ID, CLIENT_SECRET, startOidc, type TestOidc } from "../helpers/oidc.ts";
import { freePort } from "../helpers/smtp.ts";
import { seriousViolations } from "./axe.ts";
import { browserTest, launch } from "./browser.ts";
import { callJson } from "./every_page.ts";

const PASSWORD = "correct horse battery";

/** Our app on a known port (its BASE_URL is the provider's redirect target) using `op`. */
async function ssoServer(op: TestOidc, port: number): Promise<TestServer> {
  return await testServer({
    // The ID token's times are the provider's, on the real clock: ours starts there too.
    now: new Date().toISOString(),
    env: {
      BASE_URL: `http://127.0.0.1:${port}`,
      OIDC_ISSUER: op.issuer,
      OIDC_CLIENT_ID: CLIENT_ID,
      OIDC_CLIENT_SECRET: CLIENT_SECRET,
    },
  }, port);
}

/** Our injected clock catches up with real time (the provider's) before a step. */
function tick(t: TestServer): void {
  t.clock.set(new Date());
}

/** A browser context that reaches only this machine's loopback addresses. */
async function offlineContext(browser: Browser): Promise<BrowserContext> {
  const context = await browser.newContext({ timezoneId: "UTC" });
  // The provider's development pages import a web font: nothing leaves the machine.
  await context.route(
    (url) => !/^127\.0\.0\.\d+$/.test(url.hostname),
    (route) => route.abort(),
  );
  return context;
}

/**
 * On the provider's pages from our SSO button: signs in as `login` (any password), consents
 * when asked, and waits until the browser is back at our app.
 */
async function signInAtProvider(page: Page, op: TestOidc, t: TestServer, login: string) {
  await page.waitForURL((url) => url.origin === op.issuer);
  await page.fill("input[name=login]", login);
  await page.fill("input[name=password]", "any password");
  await page.click("button[type=submit]");
  await page.waitForURL((url) => url.origin === t.baseUrl || /\/interaction\//.test(url.pathname));
  if (new URL(page.url()).origin === op.issuer) {
    // The consent page: "Continue".
    assert.equal(await page.getAttribute("input[name=prompt]", "value"), "consent");
    await page.click("button[type=submit]");
  }
  await page.waitForURL((url) => url.origin === t.baseUrl);
}

/**
 * Presses "Log out" on an SSO session's page, with our answer (the page that sends the browser
 * on to the provider) kept without its refresh, so that it stays to be checked: in `locale`, with
 * axe-core, its link going where the refresh went. Then follows the link to the provider's
 * sign-out page. Returns the violations found.
 */
async function signOutByLink(page: Page, op: TestOidc, t: TestServer, locale: string) {
  let refresh: string | null = null;
  await page.route(`${t.baseUrl}/logout`, async (route) => {
    // The browser's Origin header is not among those the route sees: given again.
    const res = await route.fetch({
      headers: { ...route.request().headers(), origin: t.baseUrl },
    });
    const html = await res.text();
    refresh = /<meta http-equiv="refresh" content="0; url=([^"]+)"/.exec(html)?.[1] ?? null;
    await route.fulfill({
      response: res,
      body: html.replace(/<meta http-equiv="refresh"[^>]*>/, ""),
    });
  });
  await page.click("form[action='/logout'] button");
  await page.waitForSelector("[data-signing-out] [role=status]");
  await page.unroute(`${t.baseUrl}/logout`);
  assert.equal(await page.getAttribute("html", "lang"), locale);
  const link = await page.getAttribute("[data-signing-out] a", "href");
  assert.ok(refresh !== null, "the page goes on to the provider by itself");
  assert.equal(link, (refresh as string).replaceAll("&amp;", "&"));
  assert.equal(new URL(link!).origin, op.issuer);
  const found = (await seriousViolations(page)).map((v) =>
    `signing-out page (${locale}): ${v.impact} ${v.id} ${v.help}`
  );
  await page.click("[data-signing-out] a");
  await page.waitForURL((url) => url.origin === op.issuer);
  return found;
}

/** The signed-in user of the page's browser, or null. */
async function me(page: Page, t: TestServer) {
  const res = await page.request.get(`${t.baseUrl}/api/auth/me`);
  return res.status() === 200 ? (await res.json()).user : null;
}

browserTest(
  "SSO in Chromium: the button, the provider's login, signed in; sign-out ends both sessions; a same-email account links with its password",
  async () => {
    const port = freePort();
    const op = await startOidc({ baseUrl: `http://127.0.0.1:${port}`, host: "127.0.0.2" });
    let t: TestServer | null = null;
    let browser: Browser | null = null;
    try {
      t = await ssoServer(op, port);
      browser = await launch();
      // The first account (the admin) signs up with a password; Bob has an account here with
      // the email the provider calls unverified.
      for (const email of ["root@example.org", "bob@example.com"]) {
        const res = await callJson(t.baseUrl, "POST", "/api/auth/register", null, {
          email,
          password: PASSWORD,
          displayName: email.split("@")[0],
        });
        assert.equal(res.status, 201);
      }

      // Ada: the SSO button on our sign-in page, the provider's login page, back signed in.
      const context = await offlineContext(browser);
      const page = await context.newPage();
      tick(t);
      await page.goto(`${t.baseUrl}/login`);
      await page.click("[data-sso] a");
      await signInAtProvider(page, op, t, "verified");
      assert.equal(page.url(), `${t.baseUrl}/`);
      assert.ok(await page.isVisible("form[action='/logout'] button"), "the sign-out button");
      const ada = await me(page, t);
      assert.equal(ada?.email, "ada@example.com");
      assert.equal(ada?.displayName, "Ada Lovelace");
      assert.ok(
        (await context.cookies(t.baseUrl)).some((c) => c.name === "session"),
        "our session cookie",
      );
      assert.equal(await t.sql.count("sso_sessions"), 1);

      // Sign-out: our session ends, then the provider's own page confirms its sign-out and
      // sends the browser back to BASE_URL.
      tick(t);
      await page.click("form[action='/logout'] button");
      // Our page goes on to the provider by itself (a refresh: no script, no redirect).
      await page.waitForURL((url) => url.origin === op.issuer);
      assert.equal(await me(page, t), null, "our session is gone");
      assert.equal(await t.sql.count("sso_sessions"), 0);
      assert.equal(
        await t.sql.count("sessions WHERE user_id = ?", [ada.id]),
        0,
        "no session of Ada's is left",
      );
      await page.click("button[name=logout][value=yes]");
      await page.waitForURL((url) => url.origin === t!.baseUrl);
      assert.ok(!(await context.cookies(t.baseUrl)).some((c) => c.name === "session"));
      // The provider's session ended too: the next SSO sign-in asks for the login again,
      // instead of coming straight back signed in.
      tick(t);
      await page.goto(`${t.baseUrl}/login`);
      await page.click("[data-sso] a");
      await page.waitForURL((url) => url.origin === op.issuer);
      await page.waitForSelector("input[name=login]");
      assert.equal(await page.getAttribute("input[name=prompt]", "value"), "login");
      assert.equal(await me(page, t), null);
      await context.close();

      // Bob: the provider says his email is unverified; our account has it. The link page asks
      // for that account's password, once.
      const bobContext = await offlineContext(browser);
      const bob = await bobContext.newPage();
      tick(t);
      await bob.goto(`${t.baseUrl}/login`);
      await bob.click("[data-sso] a");
      await signInAtProvider(bob, op, t, "unverified");
      assert.equal(bob.url(), `${t.baseUrl}/auth/oidc/link`);
      assert.match(await bob.textContent("[data-sso-link]") ?? "", /bob@example\.com/);
      assert.equal(await me(bob, t), null, "not signed in before the password");
      // A wrong password links nothing, and the page stays.
      tick(t);
      await bob.fill("input[name=password]", "not the password");
      await bob.click("[data-sso-link] button[type=submit]");
      await bob.waitForSelector("[data-sso-link] [role=alert]");
      assert.equal(await t.sql.count("sso_identities"), 1, "only Ada's");
      assert.equal(await me(bob, t), null);
      // The right one: signed in as Bob, the identity linked to his account.
      tick(t);
      await bob.fill("input[name=password]", PASSWORD);
      await bob.click("[data-sso-link] button[type=submit]");
      await bob.waitForURL(`${t.baseUrl}/`);
      assert.ok(await bob.isVisible("form[action='/logout'] button"));
      const signedIn = await me(bob, t);
      assert.equal(signedIn?.email, "bob@example.com");
      const identities = await bob.request.get(`${t.baseUrl}/api/users/me/identities`);
      assert.equal(identities.status(), 200);
      const { items } = await identities.json();
      assert.deepEqual(
        items.map((i: { issuer: string; subject: string }) => [i.issuer, i.subject]),
        [[op.issuer, "unverified"]],
      );
      assert.equal(await t.sql.count("sso_pending_links"), 0, "the link is used up");
      assert.equal(await t.sql.count("users"), 3, "Root, Bob and Ada: no second Bob");
      // Bob, in Japanese and the light theme, signs out: the same way through the provider.
      const prefs = await bob.request.patch(`${t.baseUrl}/api/users/me`, {
        data: { locale: "ja", theme: "light" },
        headers: { origin: t.baseUrl },
      });
      assert.equal(prefs.status(), 200);
      await bob.reload();
      tick(t);
      const found = await signOutByLink(bob, op, t, "ja");
      assert.equal(await me(bob, t), null);
      await bob.click("button[name=logout][value=yes]");
      await bob.waitForURL((url) => url.origin === t!.baseUrl);
      assert.equal(await t.sql.count("sso_sessions"), 0);
      await bobContext.close();
      assert.deepEqual(found, [], `axe-core violations:\n${found.join("\n")}`);
    } finally {
      await browser?.close();
      await t?.close();
      await op.close();
    }
  },
);
