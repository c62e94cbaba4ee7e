/**
 * The loan console in a real browser, without any script of ours needed: an admin finds a
 * blacklisted customer by name, unblocks them with a reason through the switch on the list,
 * sees the change in the customer's history, and the next SOAP application for that name is
 * approved and shows first on the decisions page.
 */
import assert from "node:assert/strict";
import type { TestServer } from "../helpers/app.ts";
import { application, registration } from "../helpers/soap.ts";
import { browserTest } from "./browser.ts";
import { pageAs, register, withBrowser } from "./session.ts";

/** Posts a SOAP envelope to the server's loan service; the answer's text. */
async function soap(t: TestServer, envelope: string): Promise<string> {
  const res = await fetch(`${t.baseUrl}/loan`, {
    method: "POST",
    headers: { "content-type": "text/xml; charset=utf-8", soapaction: '""' },
    body: envelope,
  });
  assert.equal(res.status, 200);
  return await res.text();
}

browserTest(
  "loan console: find a customer, unblock them with a reason, see the history and the next decision approved",
  async () => {
    await withBrowser(async (t, browser) => {
      const ann = await register(t, "ann@example.com", "Ann Admin");
      await soap(t, registration("Dana Scully", true));
      await soap(t, registration("Fox Mulder", false));
      assert.match(await soap(t, application("Dana Scully", 5000)), /<approved>false<\/approved>/);

      const page = await pageAs(browser, t, ann, {
        context: { viewport: { width: 390, height: 844 } },
      });
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      await page.goto(`${t.baseUrl}/`);
      await Promise.all([
        page.waitForURL(/\/loan-console$/),
        page.locator("nav.main a", { hasText: "Loan console" }).click(),
      ]);
      await page.locator("[data-loan-chart] svg").waitFor();

      await page.fill("[data-customer-search] input[name=q]", "Scully");
      await Promise.all([
        page.waitForURL(/\/loan-console\?q=Scully/),
        page.locator("[data-customer-search] button[type=submit]").click(),
      ]);
      const row = page.locator('[data-customer="Dana Scully"]');
      assert.equal(await page.locator("[data-customer]").count(), 1);
      assert.equal(await row.getAttribute("data-blacklisted"), "true");

      await row.locator("summary", { hasText: "Unblock" }).click();
      await row.locator("input[name=reason]").fill("Cleared by the fraud team, ticket 4411");
      await Promise.all([
        page.waitForURL(/\/loan-console\/customers\/Dana%20Scully$/),
        row.locator("button[type=submit]", { hasText: "Unblock" }).click(),
      ]);
      const change = page.locator("[data-change]").first();
      assert.equal(await change.getAttribute("data-change-blacklisted"), "false");
      assert.equal(
        await change.locator("[data-change-reason]").textContent(),
        "Cleared by the fraud team, ticket 4411",
      );
      assert.match((await change.textContent()) ?? "", /Ann Admin/);
      assert.equal(
        await page.locator("[data-customer-facts]").getAttribute("data-blacklisted"),
        "false",
      );

      assert.match(await soap(t, application("Dana Scully", 5000)), /<approved>true<\/approved>/);
      await Promise.all([
        page.waitForURL(/\/loan-console\/decisions\?applicant=Dana%20Scully$/),
        page.locator("a", { hasText: "This customer's decisions" }).click(),
      ]);
      const decisions = page.locator("[data-decision]");
      assert.equal(await decisions.count(), 2);
      assert.equal(await decisions.first().getAttribute("data-approved"), "true");
      assert.equal(await decisions.nth(1).getAttribute("data-approved"), "false");
      // Nothing on the page is wider than the phone's screen.
      const [scroll, inner] = await page.evaluate(
        "[document.documentElement.scrollWidth, innerWidth]",
      ) as [number, number];
      assert.ok(scroll <= inner, `${scroll} > ${inner}`);
      assert.deepEqual(errors, []);
    });
  },
);
