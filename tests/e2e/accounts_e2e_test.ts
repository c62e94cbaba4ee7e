/** In a real browser: register, log out and in, switch language and theme, projects, members. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { testServer } from "../helpers/app.ts";
import { browserTest, launch } from "./browser.ts";

browserTest(
  "a user registers, logs out and in, switches to Japanese and light, creates a project and adds a member",
  async () => {
    const t = await testServer();
    const shots = await Deno.makeTempDir({ prefix: "e2e-shots-" });
    const browser = await launch();
    try {
      // A second account to add as a member later.
      const other = await fetch(`${t.baseUrl}/api/auth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          email: "bo@example.com",
          password: "password-bo",
          displayName: "Bo",
        }),
      });
      assert.equal(other.status, 201);
      await other.body?.cancel();

      const page = await browser.newPage();
      await page.goto(`${t.baseUrl}/projects`);
      // Not logged in: sent to the login page, remembering where we were going.
      assert.match(page.url(), /\/login\?next=%2Fprojects$/);
      await page.click("text=Register");
      await page.fill("input[name=displayName]", "Ann");
      await page.fill("input[name=email]", "ann@example.com");
      await page.fill("input[name=password]", "password-ann");
      await page.click("button[type=submit]:has-text('Create account')");
      await page.waitForURL(`${t.baseUrl}/`);
      assert.equal(await page.textContent("h1"), "My dashboard");
      assert.equal(await page.getAttribute("html", "data-theme"), "dark");
      await page.screenshot({ path: join(shots, "dashboard-dark.png"), fullPage: true });

      await page.click("button:has-text('Log out')");
      await page.waitForURL(/\/login$/);
      await page.goto(`${t.baseUrl}/settings`);
      await page.fill("input[name=email]", "ann@example.com");
      await page.fill("input[name=password]", "wrong-password");
      await page.click("button[type=submit]");
      assert.match(await page.textContent("[role=alert]") ?? "", /Invalid email or password/);
      await page.fill("input[name=password]", "password-ann");
      await page.click("button[type=submit]");
      await page.waitForURL(`${t.baseUrl}/settings`);

      // Switching language and theme takes effect at once.
      // The settings form submits itself on change (progressive enhancement).
      await Promise.all([
        page.waitForResponse((r) => r.url().endsWith("/settings?saved=1")),
        page.selectOption("select[name=locale]", "ja"),
      ]);
      await page.waitForSelector("html[lang=ja]");
      await Promise.all([
        page.waitForResponse((r) => r.url().endsWith("/settings?saved=1")),
        page.selectOption("select[name=theme]", "light"),
      ]);
      await page.waitForSelector("html[lang=ja][data-theme=light] h1");
      assert.equal(await page.getAttribute("html", "lang"), "ja");
      assert.equal(await page.getAttribute("html", "data-theme"), "light");
      assert.equal(await page.textContent("h1"), "設定");
      assert.equal(await page.textContent("nav.main a[href='/projects']"), "プロジェクト");
      const background = await page.evaluate(
        "getComputedStyle(document.documentElement).backgroundColor",
      );
      assert.equal(background, "rgb(246, 247, 249)");

      await page.goto(`${t.baseUrl}/projects`);
      await page.fill("input[name=name]", "月次レポート");
      await page.fill("textarea[name=description]", "毎月の報告書");
      await page.click("button:has-text('プロジェクトを作成')");
      await page.waitForURL(/\/projects\/\d+\?created=project-\d+$/);
      assert.equal(await page.textContent("h1"), "月次レポート");
      assert.equal(await page.textContent("[data-notice]"), "プロジェクトを作成しました。");

      await page.fill("input[name=email]", "bo@example.com");
      await page.selectOption("form[action$='/members'] select[name=role]", "viewer");
      await page.click("button:has-text('メンバーを追加')");
      await page.waitForSelector("tr[data-member='bo@example.com']");
      assert.equal(await page.textContent("[data-notice]"), "メンバーを追加しました。");
      const row = await page.textContent("tr[data-member='bo@example.com']");
      assert.match(row ?? "", /Bo/);
      assert.equal(
        await page.$eval(
          "tr[data-member='bo@example.com'] select",
          (el) => (el as unknown as { value: string }).value,
        ),
        "viewer",
      );

      await page.goto(`${t.baseUrl}/`);
      assert.equal(await page.textContent("h1"), "マイダッシュボード");
      assert.match(await page.textContent("[data-project]") ?? "", /月次レポート/);
      await page.screenshot({ path: join(shots, "dashboard-light.png"), fullPage: true });

      for (const name of ["dashboard-dark.png", "dashboard-light.png"]) {
        const png = await Deno.readFile(join(shots, name));
        assert.deepEqual([...png.slice(1, 4)], [0x50, 0x4e, 0x47], name);
      }
      // The added member sees the notification through the API.
      const login = await fetch(`${t.baseUrl}/api/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "bo@example.com", password: "password-bo" }),
      });
      const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
      await login.body?.cancel();
      const notes = await (await fetch(`${t.baseUrl}/api/notifications`, { headers: { cookie } }))
        .json();
      assert.equal(notes.items[0].kind, "member_added");
    } finally {
      await browser.close();
      await t.close();
      if (Deno.env.get("KEEP_SCREENSHOTS") !== "1") await Deno.remove(shots, { recursive: true });
      else console.log(`screenshots in ${shots}`);
    }
  },
);
