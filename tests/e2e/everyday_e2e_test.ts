/**
 * Two people in a real browser, for the everyday pieces that are about the other person: a
 * mention shows as the member's name (marked strongest for the one mentioned), Markdown is
 * drawn rather than shown raw, and a meeting someone else organised is on the calendar, in
 * the month grid at 1280 px and in the agenda list at phone width.
 */
import assert from "node:assert/strict";
import { browserTest } from "./browser.ts";
import { call, pageAs, registerUser, withBrowser } from "./session.ts";

browserTest(
  "everyday: another member's mention reads as my name, Markdown is drawn, and their meeting is on my calendar",
  async () => {
    await withBrowser(async (t, browser) => {
      await registerUser(t, "root@example.com", "Root"); // the admin, not one of the two
      const ann = await registerUser(t, "ann@example.com", "Ann Archer");
      const bo = await registerUser(t, "bo@example.com", "Bo Baker");
      const created = await call(t, ann.session, "POST", "/api/projects", {
        name: "Launch",
        description: "The **spring** launch.",
      });
      const projectId = created.json.project.id as number;
      const p = `/api/projects/${projectId}`;
      assert.equal(
        (await call(t, ann.session, "POST", `${p}/members`, {
          email: "bo@example.com",
          role: "member",
        })).status,
        201,
      );
      const said = await call(t, bo.session, "POST", `${p}/chat/messages`, {
        text: "@ann@example.com please check the **final** slides",
      });
      assert.equal(said.status, 201);
      const meeting = await call(t, bo.session, "POST", `${p}/meetings`, {
        title: "Dry run",
        startAt: "2026-11-18T10:00:00Z",
        endAt: "2026-11-18T11:00:00Z",
        inviteeIds: [ann.id],
      });
      assert.equal(meeting.status, 201);
      const meetingItem = `[data-cal-item="meeting-${meeting.json.meeting.id}"]`;

      const annPage = await pageAs(browser, t, ann.session);
      await annPage.goto(`${t.baseUrl}/projects/${projectId}/chat`);
      const mine = annPage.locator(".mention.mention-me").first();
      await mine.waitFor();
      assert.equal((await mine.textContent())?.trim(), "@Ann Archer");
      assert.equal(await annPage.locator("strong", { hasText: "final" }).count() > 0, true);
      const text = await annPage.innerText("main");
      assert.doesNotMatch(text, /\*\*final\*\*/);
      assert.doesNotMatch(text, /@ann@example\.com/);

      // Bo sees the same mention as Ann's name, not marked as his own.
      const boPage = await pageAs(browser, t, bo.session);
      await boPage.goto(`${t.baseUrl}/projects/${projectId}/chat`);
      const theirs = boPage.locator(".mention").first();
      await theirs.waitFor();
      assert.equal((await theirs.textContent())?.trim(), "@Ann Archer");
      assert.equal(await boPage.locator(".mention-me").count(), 0);

      // The project's description is drawn, on the project page and the list.
      for (const path of [`/projects/${projectId}`, "/projects"]) {
        await annPage.goto(`${t.baseUrl}${path}`);
        assert.equal(await annPage.locator("strong", { hasText: "spring" }).count() > 0, true);
        assert.doesNotMatch(await annPage.innerText("main"), /\*\*spring\*\*/, path);
      }

      // Bo's meeting is on Ann's month calendar: in the grid, and in the agenda on a phone.
      const month = `${t.baseUrl}/projects/${projectId}/calendar?month=2026-11`;
      await annPage.setViewportSize({ width: 1280, height: 900 });
      await annPage.goto(month);
      const inGrid = annPage.locator(`td[data-day="2026-11-18"] ${meetingItem}`);
      assert.equal(await inGrid.isVisible(), true);
      assert.match(await inGrid.textContent() ?? "", /Dry run/);
      await annPage.setViewportSize({ width: 390, height: 844 });
      await annPage.goto(month);
      const inAgenda = annPage.locator(`li.cal-agenda-day[data-day="2026-11-18"] ${meetingItem}`);
      assert.equal(await inAgenda.isVisible(), true);
      assert.equal(await inGrid.isVisible(), false);
    });
  },
);
