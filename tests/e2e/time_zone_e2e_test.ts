/**
 * Time zones in a real browser: the first page visit proposes the browser's zone, and
 * choosing another zone on the settings page moves an evening event to the next day in the
 * month calendar.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { browserTest } from "./browser.ts";
import { call, pageAs, registerUser, withBrowser } from "./session.ts";

/** The day (`YYYY-MM-DD`) of the month grid that shows `item`, or null. */
function dayShowing(page: Page, item: string): Promise<string | null> {
  return page.locator(`td.cal-day:has([data-cal-item="${item}"])`).first()
    .getAttribute("data-day", { timeout: 5_000 }).catch(() => null);
}

browserTest(
  "time zones: the browser's zone is proposed once, and choosing Tokyo moves an evening event to the next day",
  async () => {
    await withBrowser(async (t, browser) => {
      await registerUser(t, "root@example.com", "Root");
      const ann = await registerUser(t, "ann@example.com", "Ann");
      const project = (await call(t, ann.session, "POST", "/api/projects", { name: "Zones" }))
        .json.project;
      // 20:00 UTC on 25 November: 21:00 that evening in Berlin, 05:00 on the 26th in Tokyo.
      const created = await call(
        t,
        ann.session,
        "POST",
        `/api/projects/${project.id}/calendar/events`,
        {
          title: "Evening call",
          startAt: "2026-11-25T20:00:00Z",
          endAt: "2026-11-25T21:00:00Z",
        },
      );
      assert.equal(created.status, 201, JSON.stringify(created.json));
      const item = `event-${created.json.event.id}`;

      const page = await pageAs(browser, t, ann.session, {
        context: { timezoneId: "Europe/Berlin" },
      });
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      const proposed = page.waitForResponse((res) =>
        res.url().endsWith("/api/users/me") && res.request().method() === "PATCH"
      );
      const calendar = `${t.baseUrl}/projects/${project.id}/calendar?month=2026-11`;
      await page.goto(calendar);
      assert.equal((await proposed).status(), 200);
      const me = await call(t, ann.session, "GET", "/api/auth/me");
      assert.equal(me.json.user.timeZone, "Europe/Berlin");

      // The next page is in Berlin's time; the proposal is not made again.
      let patches = 0;
      page.on("request", (request) => {
        if (request.method() === "PATCH") patches++;
      });
      await page.goto(calendar);
      assert.equal(await dayShowing(page, item), "2026-11-25");
      assert.match(await page.locator("[data-time-zone]").innerText(), /Europe\/Berlin/);

      await page.goto(`${t.baseUrl}/settings`);
      const select = page.locator("select[name=timeZone]");
      assert.equal(await select.inputValue(), "Europe/Berlin");
      // The settings form saves itself when a choice changes.
      await Promise.all([
        page.waitForURL(/\/settings\?saved=1$/),
        select.selectOption("Asia/Tokyo"),
      ]);
      assert.equal(await page.locator("select[name=timeZone]").inputValue(), "Asia/Tokyo");

      await page.goto(calendar);
      assert.equal(await dayShowing(page, item), "2026-11-26");
      assert.match(await page.locator("[data-time-zone]").innerText(), /Asia\/Tokyo/);
      assert.match(
        await page.locator(`[data-cal-item="${item}"] .cal-time`).innerText(),
        /05:00/,
      );
      assert.equal(patches, 0, "the zone is proposed only once");

      // The meeting form's live conflict check reads typed times in Tokyo too: 10:30–11:30
      // there overlaps Ann's standup at 01:00–02:00 UTC (10:00–11:00 in Tokyo).
      const standup = await call(t, ann.session, "POST", `/api/projects/${project.id}/meetings`, {
        title: "Standup",
        startAt: "2026-11-26T01:00:00Z",
        endAt: "2026-11-26T02:00:00Z",
        inviteeIds: [],
      });
      assert.equal(standup.status, 201);
      await page.goto(`${t.baseUrl}/projects/${project.id}/meetings`);
      await page.click("summary:has-text('New meeting')");
      const form = "form[data-meeting-form]";
      const conflict = `${form} [data-conflict="meeting-${standup.json.meeting.id}"]`;
      await page.fill(`${form} input[name=title]`, "Review");
      await page.fill(`${form} input[name=startAt]`, "2026-11-26T10:30");
      await page.fill(`${form} input[name=endAt]`, "2026-11-26T11:30");
      await page.waitForSelector(conflict);
      assert.match(await page.textContent(conflict) ?? "", /26 Nov 2026, 10:00 – 11:00/);
      // The same digits read as UTC would overlap; in Tokyo they are hours earlier.
      await page.fill(`${form} input[name=startAt]`, "2026-11-26T01:30");
      await page.fill(`${form} input[name=endAt]`, "2026-11-26T02:30");
      await page.waitForSelector(conflict, { state: "detached" });
      await Promise.all([
        page.waitForURL(/\/meetings\/\d+\?saved=1$/),
        page.click(`${form} button[type=submit]`),
      ]);
      const saved = await call(t, ann.session, "GET", `/api/projects/${project.id}/meetings`);
      const review = saved.json.items.find((m: { title: string }) => m.title === "Review");
      assert.equal(review.startAt, "2026-11-25T16:30:00.000Z");
      assert.deepEqual(errors, []);
    });
  },
);
