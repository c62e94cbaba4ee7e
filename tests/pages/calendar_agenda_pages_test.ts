/**
 * The month calendar's list form for a phone's width: the page carries it next to the grid (the
 * stylesheet shows one of the two), the month's days with entries, in order, each under a
 * heading. The test clock stands at 2026-11-22T08:30:00Z.
 */
import assert from "node:assert/strict";
import { api, expectJson } from "../helpers/api.ts";
import { page, withTeam } from "./page_requests.ts";

/** The month agenda's markup, from its opening tag to the end of its block. */
function agendaOf(html: string): string {
  const match = html.match(/<div class="cal-month-agenda"[^>]*>([\s\S]*?)<\/div>/);
  assert.ok(match, "no month agenda");
  return match[1]!;
}

Deno.test("the month page also lists the month's days with entries, in order, each with a heading", async () => {
  await withTeam(async (t, { alice, project }) => {
    const base = `/projects/${project.id}`;
    const create = async (path: string, body: Record<string, unknown>) =>
      expectJson(await api(t, "POST", `/api${base}${path}`, { cookie: alice.cookie, body }), 201);
    await create("/calendar/events", {
      title: "Late night",
      startAt: "2026-11-20T23:00:00Z",
      endAt: "2026-11-21T01:00:00Z",
    });
    await create("/milestones", { title: "Beta", dueDate: "2026-11-27" });
    await create("/calendar/events", {
      title: "Kickoff",
      startAt: "2026-11-03T09:30:00Z",
      endAt: "2026-11-03T10:00:00Z",
    });
    // In the grid's first week, but October's: not in November's list.
    await create("/calendar/events", {
      title: "October retro",
      startAt: "2026-10-30T09:00:00Z",
      endAt: "2026-10-30T10:00:00Z",
    });

    const month = await page(t, alice.cookie, `${base}/calendar?month=2026-11`);
    assert.equal(month.status, 200);
    assert.match(month.html, /<div class="table-wrap cal-month-grid">/);
    const agenda = agendaOf(month.html);
    const days = [...agenda.matchAll(/class="cal-agenda-day[^"]*" data-day="([^"]+)"/g)]
      .map((m) => m[1]);
    assert.deepEqual(days, ["2026-11-03", "2026-11-20", "2026-11-21", "2026-11-27"]);
    assert.equal(agenda.match(/<h3>/g)?.length, 4);
    assert.match(agenda, /<h3>Tuesday · 3 Nov 2026<\/h3>/);
    assert.match(agenda, /09:30 – 10:00[\s\S]*Kickoff/);
    assert.match(agenda, /Late night/);
    assert.doesNotMatch(agenda, /October retro|Nothing planned this month/);

    // A month with nothing says so; in Japanese too.
    const empty = await page(t, alice.cookie, `${base}/calendar?month=2027-02`);
    assert.match(agendaOf(empty.html), /Nothing planned this month\./);
    assert.doesNotMatch(agendaOf(empty.html), /<h3>/);
    expectJson(
      await api(t, "PATCH", "/api/users/me", { cookie: alice.cookie, body: { locale: "ja" } }),
      200,
    );
    const ja = await page(t, alice.cookie, `${base}/calendar?month=2027-02`);
    assert.match(agendaOf(ja.html), /今月の予定はありません。/);

    // The week view has no month list.
    const week = await page(t, alice.cookie, `${base}/calendar?view=week&week=2026-11-16`);
    assert.doesNotMatch(week.html, /cal-month-agenda/);
  });
});
