/**
 * The settings page's mail choices: how notifications are mailed and the digest's hour are
 * saved from the form (the hour comes as text), a bad value is refused and changes nothing,
 * and the page says them in Japanese too.
 */
import assert from "node:assert/strict";
import { api, expectJson } from "../helpers/api.ts";
import { page, post, withTeam } from "./page_requests.ts";

const FORM = { displayName: "Alice", theme: "dark", locale: "en", timeZone: "UTC" };

Deno.test("the settings form saves the mail choice and the digest hour; a bad hour changes nothing", async () => {
  await withTeam(async (t, { alice }) => {
    const me = async () =>
      expectJson(await api(t, "GET", "/api/auth/me", { cookie: alice.cookie }), 200).user;
    const before = await me();
    assert.deepEqual([before.emailNotifications, before.digestHour], ["immediate", 9]);
    const settings = (await page(t, alice.cookie, "/settings")).html;
    assert.match(settings, /<select name="emailNotifications"/);
    assert.match(settings, /<select name="digestHour"/);

    const saved = await post(t, alice.cookie, "/settings", {
      ...FORM,
      emailNotifications: "daily",
      digestHour: "18",
    });
    assert.equal(saved.status, 303);
    const after = await me();
    assert.deepEqual([after.emailNotifications, after.digestHour], ["daily", 18]);
    assert.match(
      (await page(t, alice.cookie, "/settings")).html,
      /<option value="daily" selected>/,
    );

    for (const bad of [{ digestHour: "24" }, { emailNotifications: "hourly" }]) {
      const refused = await post(t, alice.cookie, "/settings", {
        ...FORM,
        displayName: "Alicia",
        emailNotifications: "off",
        digestHour: "7",
        ...bad,
      });
      assert.equal(refused.status, 400, JSON.stringify(bad));
      assert.match(refused.html, /class="field-error"/);
      const unchanged = await me();
      assert.deepEqual(
        [unchanged.displayName, unchanged.emailNotifications, unchanged.digestHour],
        ["Alice", "daily", 18],
      );
    }

    await post(t, alice.cookie, "/settings", { ...FORM, locale: "ja", emailNotifications: "off" });
    const ja = (await page(t, alice.cookie, "/settings")).html;
    assert.match(ja, /<option value="off" selected>/);
    assert.match(ja, /メール/);
  });
});
