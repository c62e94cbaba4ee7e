/**
 * Meetings and the project dashboard in a real browser: choosing a time that overlaps an
 * invitee's other meeting shows a conflict warning live, before anything is submitted, and
 * choosing another time clears it; the project dashboard follows another member's chat
 * message and completed to-do without a reload.
 */
import assert from "node:assert/strict";
import type { TestServer } from "../helpers/app.ts";
import { browserTest } from "./browser.ts";
import { call, pageAs, registerUser, withBrowser } from "./session.ts";

/** A project of `owner` with the others added as members. */
async function projectWith(t: TestServer, owner: string, name: string, emails: string[]) {
  const project = (await call(t, owner, "POST", "/api/projects", { name })).json.project;
  for (const email of emails) {
    const added = await call(t, owner, "POST", `/api/projects/${project.id}/members`, {
      email,
      role: "member",
    });
    assert.equal(added.status, 201);
  }
  return project as { id: number };
}

browserTest(
  "meetings: an invitee's overlapping meeting is warned about live, and clears with another time",
  async () => {
    await withBrowser(async (t, browser) => {
      // The first account is the system admin, who sees every project: not Ann.
      await registerUser(t, "root@example.com", "Root");
      const ann = await registerUser(t, "ann@example.com", "Ann");
      const bo = await registerUser(t, "bo@example.com", "Bo");
      const cy = await registerUser(t, "cy@example.com", "Cy");
      const project = await projectWith(t, ann.session, "Launch", [
        "bo@example.com",
        "cy@example.com",
      ]);
      // Cy organises a meeting Bo is invited to; Bo has another one in a project Ann is not in.
      const review = await call(t, cy.session, "POST", `/api/projects/${project.id}/meetings`, {
        title: "Design review",
        startAt: "2026-11-25T10:00:00Z",
        endAt: "2026-11-25T11:00:00Z",
        inviteeIds: [bo.id],
      });
      assert.equal(review.status, 201);
      const hidden = await projectWith(t, bo.session, "Hidden", []);
      const secret = await call(t, bo.session, "POST", `/api/projects/${hidden.id}/meetings`, {
        title: "Secret one-on-one",
        startAt: "2026-11-25T11:00:00Z",
        endAt: "2026-11-25T11:30:00Z",
        inviteeIds: [],
      });
      assert.equal(secret.status, 201);

      const page = await pageAs(browser, t, ann.session);
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      const submitted: string[] = [];
      page.on("request", (request) => {
        if (request.method() === "POST") submitted.push(request.url());
      });
      await page.goto(`${t.baseUrl}/projects/${project.id}/meetings`);
      await page.click("summary:has-text('New meeting')");
      const form = "form[data-meeting-form]";
      const conflict =
        `${form} [data-conflict-list] [data-conflict="meeting-${review.json.meeting.id}"]`;
      await page.fill(`${form} input[name=title]`, "Planning");
      await page.check(`${form} input[name=inviteeIds][value="${bo.id}"]`);

      // 10:30–11:30 overlaps the review (for Bo) and Bo's hidden meeting.
      await page.fill(`${form} input[name=startAt]`, "2026-11-25T10:30");
      await page.fill(`${form} input[name=endAt]`, "2026-11-25T11:30");
      await page.waitForSelector(conflict);
      const text = await page.textContent(`${form} [data-meeting-conflicts]`) ?? "";
      assert.match(text, /Design review/);
      assert.match(text, /for Bo/);
      assert.match(text, /a private item in another project/);
      assert.doesNotMatch(text, /Secret one-on-one/);
      assert.match(text, /Conflicts found: 2/);
      assert.equal(
        await page.getAttribute(`${form} [data-meeting-conflicts]`, "data-state"),
        "found",
      );
      assert.deepEqual(submitted, [], "nothing was submitted");

      // Another time clears the warning.
      await page.fill(`${form} input[name=startAt]`, "2026-11-25T13:00");
      await page.fill(`${form} input[name=endAt]`, "2026-11-25T14:00");
      await page.waitForSelector(conflict, { state: "detached" });
      await page.waitForSelector(`${form} [data-meeting-conflicts][data-state=clear]`);
      assert.match(await page.textContent(`${form} [data-conflict-status]`) ?? "", /No conflicts/);
      assert.equal(await page.locator(`${form} [data-conflict-list] li`).count(), 0);

      // Back to the overlap; unchecking Bo clears it too (Ann herself is free).
      await page.fill(`${form} input[name=startAt]`, "2026-11-25T10:30");
      await page.fill(`${form} input[name=endAt]`, "2026-11-25T11:30");
      await page.waitForSelector(conflict);
      await page.uncheck(`${form} input[name=inviteeIds][value="${bo.id}"]`);
      await page.waitForSelector(conflict, { state: "detached" });
      await page.check(`${form} input[name=inviteeIds][value="${bo.id}"]`);
      await page.waitForSelector(conflict);
      assert.deepEqual(submitted, []);

      // Saving anyway works; the meeting's page then lists the conflicts.
      await Promise.all([
        page.waitForURL(/\/meetings\/\d+\?saved=1$/),
        page.click(`${form} button[type=submit]`),
      ]);
      await page.waitForSelector("[data-saved]");
      assert.match(await page.textContent("[data-saved]") ?? "", /conflicts with 2 other/);
      assert.match(await page.textContent("[data-meeting-warnings]") ?? "", /Design review/);
      const meetings = await call(t, ann.session, "GET", `/api/projects/${project.id}/meetings`);
      assert.equal(meetings.json.items.length, 2);
      assert.deepEqual(errors, []);
    });
  },
);

browserTest(
  "dashboard: the project dashboard follows another member's chat message and completed to-do",
  async () => {
    await withBrowser(async (t, browser) => {
      const ann = await registerUser(t, "ann@example.com", "Ann");
      const bo = await registerUser(t, "bo@example.com", "Bo");
      const project = await projectWith(t, ann.session, "Launch", ["bo@example.com"]);
      const columns =
        (await call(t, ann.session, "GET", `/api/projects/${project.id}/todos/columns`))
          .json.items as Array<{ id: number; key: string | null }>;
      const doing = columns.find((c) => c.key === "in_progress")!;
      const item = (await call(t, ann.session, "POST", `/api/projects/${project.id}/todos/items`, {
        title: "Ship the beta",
        columnId: doing.id,
        assigneeId: bo.id,
      })).json.item;

      const page = await pageAs(browser, t, ann.session);
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      await page.goto(`${t.baseUrl}/projects/${project.id}`);
      await page.waitForSelector("body[data-stream=open]");
      await page.waitForSelector(`[data-section="inProgress"] [data-item="${item.id}"]`);
      // A mark that a reload would lose.
      await page.evaluate("document.body.dataset.marker = 'kept'");

      const sent = await call(t, bo.session, "POST", `/api/projects/${project.id}/chat/messages`, {
        text: "Hello from <b>Bo</b>",
      });
      assert.equal(sent.status, 201);
      await page.waitForSelector(`[data-section="chat"] [data-message="${sent.json.message.id}"]`);
      assert.match(
        await page.textContent(`[data-section="chat"]`) ?? "",
        /Bo\s+Hello from <b>Bo<\/b>/,
      );
      assert.equal(await page.locator(`[data-section="chat"] b`).count(), 0, "text stays text");

      const done = await call(
        t,
        bo.session,
        "POST",
        `/api/projects/${project.id}/todos/items/${item.id}/toggle-complete`,
      );
      assert.equal(done.status, 200);
      await page.waitForSelector(`[data-section="inProgress"] [data-item="${item.id}"]`, {
        state: "detached",
      });
      assert.match(
        await page.textContent(`[data-section="inProgress"]`) ?? "",
        /Nothing is in progress/,
      );
      assert.match(await page.textContent(`[data-section="activity"]`) ?? "", /Completed a to-do/);
      assert.equal(await page.evaluate("document.body.dataset.marker"), "kept", "no reload");
      assert.deepEqual(errors, []);
    });
  },
);
