/**
 * The `system` theme in a browser: light or dark as the device's colour scheme says, from the
 * first paint (the stylesheet decides; no script), while `light` and `dark` stay put.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { browserTest } from "./browser.ts";
import { call, pageAs, register, withBrowser } from "./session.ts";

const LIGHT_BG = "rgb(246, 247, 249)";
const DARK_BG = "rgb(20, 22, 26)";

/** The page's background and its used colour scheme (the page runs no script). */
async function looks(page: Page, url: string): Promise<[string, string]> {
  await page.goto(url);
  return await page.evaluate(
    `[getComputedStyle(document.documentElement).backgroundColor, getComputedStyle(document.documentElement).colorScheme]`,
  ) as [string, string];
}

browserTest(
  "the theme `system` follows an emulated light or dark device; light and dark do not",
  async () => {
    await withBrowser(async (t, browser) => {
      const ann = await register(t, "ann@example.com", "Ann");
      const page = await pageAs(browser, t, ann, {
        context: { javaScriptEnabled: false },
      });
      const url = `${t.baseUrl}/settings`;
      assert.equal((await call(t, ann, "PATCH", "/api/users/me", { theme: "system" })).status, 200);
      await page.emulateMedia({ colorScheme: "light" });
      assert.deepEqual(await looks(page, url), [LIGHT_BG, "light"]);
      assert.equal(await page.getAttribute("html", "data-theme"), "system");
      await page.emulateMedia({ colorScheme: "dark" });
      assert.deepEqual(await looks(page, url), [DARK_BG, "dark"]);

      assert.equal((await call(t, ann, "PATCH", "/api/users/me", { theme: "light" })).status, 200);
      assert.deepEqual(await looks(page, url), [LIGHT_BG, "light"]);
      assert.equal((await call(t, ann, "PATCH", "/api/users/me", { theme: "dark" })).status, 200);
      await page.emulateMedia({ colorScheme: "light" });
      assert.deepEqual(await looks(page, url), [DARK_BG, "dark"]);
    });
  },
);
