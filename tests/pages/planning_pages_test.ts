/**
 * The planning, search and dashboard pages, in process: milestones, the calendar and its
 * events, meetings with their conflicts, project search and both dashboards. Who sees them
 * (members in English and Japanese, the 404 page for anyone else, the login redirect when
 * logged out), the forms that work without JavaScript (create, edit, delete, then 303),
 * escaping of user text, search highlighting, and the dashboards' sections and fragments.
 * The test clock stands at 2026-11-22T08:30:00Z, a Sunday.
 */
import assert from "node:assert/strict";
import { testApp } from "../helpers/app.ts";
import {
  addMember,
  api,
  createProject,
  expectJson,
  getJson,
  type Json,
  PNG_BYTES,
  uploadFile,
} from "../helpers/api.ts";
import { page, post, withTeam } from "./page_requests.ts";

type T = Awaited<ReturnType<typeof testApp>>;

async function create(t: T, cookie: string, path: string, body: Record<string, unknown>) {
  return expectJson(await api(t, "POST", path, { cookie, body }), 201);
}

/** The cell of a day in the month grid. */
function dayCell(html: string, day: string): string {
  const match = html.match(new RegExp(`<td[^>]*data-day="${day}"[^>]*>([\\s\\S]*?)</td>`));
  assert.ok(match, `no cell for ${day}`);
  return match[1]!;
}

/** The content of a dashboard section. */
function section(html: string, name: string): string {
  const match = html.match(
    new RegExp(`<section[^>]*data-section="${name}"[^>]*>([\\s\\S]*?)</section>`),
  );
  assert.ok(match, `no section ${name}`);
  return match[1]!;
}

Deno.test("the planning pages send a visitor without a session to /login with next", async () => {
  const t = await testApp();
  try {
    for (
      const path of [
        "/projects/1/milestones",
        "/projects/1/calendar?month=2026-11",
        "/projects/1/calendar?view=week&week=2026-11-16",
        "/projects/1/calendar/events/2",
        "/projects/1/meetings",
        "/projects/1/meetings/3",
        "/projects/1/search?q=plan&type=note",
        "/projects/1?fragment=1",
        "/?fragment=1",
      ]
    ) {
      const res = await t.app.request(path);
      assert.equal(res.status, 302, path);
      assert.equal(res.headers.get("location"), `/login?next=${encodeURIComponent(path)}`);
      await res.body?.cancel();
    }
  } finally {
    await t.close();
  }
});

Deno.test("the planning pages render for members in English and Japanese", async () => {
  await withTeam(async (t, { owner, alice, bob, project }) => {
    const ja = await api(t, "PATCH", "/api/users/me", {
      cookie: owner.cookie,
      body: { locale: "ja" },
    });
    assert.equal(ja.status, 200);
    const base = `/projects/${project.id}`;
    const milestone = (await create(t, alice.cookie, `/api${base}/milestones`, {
      title: "Beta release",
      dueDate: "2026-11-27",
    })).milestone;
    const event = (await create(t, alice.cookie, `/api${base}/calendar/events`, {
      title: "Offsite",
      startAt: "2026-11-24T09:00:00Z",
      endAt: "2026-11-24T17:00:00Z",
    })).event;
    const meeting = (await create(t, alice.cookie, `/api${base}/meetings`, {
      title: "Planning",
      startAt: "2026-11-25T10:00:00Z",
      endAt: "2026-11-25T11:00:00Z",
      inviteeIds: [bob.user.id],
    })).meeting;

    const pages: Array<[string, RegExp, RegExp]> = [
      [`${base}/milestones`, /<h1>Milestones<\/h1>/, /<h1>マイルストーン<\/h1>/],
      [`${base}/calendar`, /<h1>Calendar<\/h1>[\s\S]*November 2026/, /2026年11月/],
      [`${base}/calendar?view=week&week=2026-11-23`, /Week of 23 Nov 2026/, /からの週/],
      [`${base}/calendar/events/${event.id}`, /<h1>Offsite<\/h1>/, /予定を編集/],
      [`${base}/meetings`, /<h1>Meetings<\/h1>/, /<h1>会議<\/h1>/],
      [`${base}/meetings/${meeting.id}`, /<h1>Planning<\/h1>/, /議事録/],
      [`${base}/search`, /<h1>Search<\/h1>/, /<h1>検索<\/h1>/],
      [`${base}/search?q=Planning`, /<mark>Planning<\/mark>/, /<mark>Planning<\/mark>/],
      [base, /In progress/, /進行中/],
      ["/", /My dashboard/, /未読の通知/],
    ];
    for (const [path, en, jaText] of pages) {
      const mine = await page(t, alice.cookie, path);
      assert.equal(mine.status, 200, path);
      assert.match(mine.html, /<html lang="en"/, path);
      assert.match(mine.html, en, path);
      assert.match(mine.headers.get("content-security-policy") ?? "", /script-src 'self'/);
      assert.doesNotMatch(mine.html, /style="/, `${path}: no inline style`);
      assert.doesNotMatch(mine.html, /<script>(?!<\/script>)/, `${path}: no inline script`);
      const theirs = await page(t, owner.cookie, path);
      assert.equal(theirs.status, 200, path);
      assert.match(theirs.html, /<html lang="ja"/, path);
      assert.match(theirs.html, jaText, path);
    }
    // The area pages mark their tab.
    const milestones = await page(t, alice.cookie, `${base}/milestones`);
    assert.match(milestones.html, /aria-current="page"[^>]*>Milestones</);
    assert.match(milestones.html, new RegExp(`id="milestone-${milestone.id}"`));
    const calendar = await page(t, alice.cookie, `${base}/calendar`);
    assert.match(calendar.html, /aria-current="page"[^>]*>Calendar</);
    const meetings = await page(t, alice.cookie, `${base}/meetings`);
    assert.match(meetings.html, /<script type="module" src="\/static\/meetings.js"><\/script>/);
    const dashboard = await page(t, alice.cookie, base);
    assert.match(dashboard.html, /aria-current="page"[^>]*>Dashboard</);
    assert.match(dashboard.html, /<script type="module" src="\/static\/dashboard.js"><\/script>/);
  });
});

Deno.test("non-members get the 404 page on every planning page and form, and change nothing", async () => {
  await withTeam(async (t, { alice, outsider, project }) => {
    const base = `/projects/${project.id}`;
    const milestone = (await create(t, alice.cookie, `/api${base}/milestones`, {
      title: "Hidden milestone",
    })).milestone;
    const event = (await create(t, alice.cookie, `/api${base}/calendar/events`, {
      title: "Hidden event",
      startAt: "2026-11-24T09:00:00Z",
      endAt: "2026-11-24T10:00:00Z",
    })).event;
    const meeting = (await create(t, alice.cookie, `/api${base}/meetings`, {
      title: "Hidden meeting",
      startAt: "2026-11-25T10:00:00Z",
      endAt: "2026-11-25T11:00:00Z",
      inviteeIds: [],
    })).meeting;
    const paths = [
      `${base}/milestones`,
      `${base}/calendar`,
      `${base}/calendar?view=week`,
      `${base}/calendar/events/${event.id}`,
      `${base}/meetings`,
      `${base}/meetings/${meeting.id}`,
      `${base}/search?q=Hidden`,
      base,
      `${base}?fragment=1`,
      "/projects/999/milestones",
      "/projects/999/calendar",
      "/projects/999/meetings",
      "/projects/999/search?q=x",
    ];
    for (const path of paths) {
      const res = await page(t, outsider.cookie, path);
      assert.equal(res.status, 404, path);
      assert.match(res.html, /Page not found/, path);
      assert.doesNotMatch(res.html, /Hidden/, path);
    }
    const refused = [
      post(t, outsider.cookie, `${base}/milestones`, { title: "X" }),
      post(t, outsider.cookie, `${base}/milestones/${milestone.id}`, { title: "X" }),
      post(t, outsider.cookie, `${base}/calendar/events`, {
        title: "X",
        startAt: "2026-11-24T09:00",
        endAt: "2026-11-24T10:00",
      }),
      post(t, outsider.cookie, `${base}/calendar/events/${event.id}`, { title: "X" }),
      post(t, outsider.cookie, `${base}/calendar/events/${event.id}/delete`, {}),
      post(t, outsider.cookie, `${base}/meetings`, { title: "X" }),
      post(t, outsider.cookie, `${base}/meetings/${meeting.id}`, { title: "X" }),
      post(t, outsider.cookie, `${base}/meetings/${meeting.id}/delete`, {}),
    ];
    for (const res of await Promise.all(refused)) assert.equal(res.status, 404);
    assert.equal((await getJson(t, alice.cookie, `/api${base}/milestones`)).items.length, 1);
    assert.equal(
      (await getJson(t, alice.cookie, `/api${base}/calendar/events/${event.id}`)).event.title,
      "Hidden event",
    );
    assert.equal((await getJson(t, alice.cookie, `/api${base}/meetings`)).items.length, 1);
    // Things of this project seen through another project's path are not found either.
    const other = await createProject(t, alice.cookie, "Other");
    for (
      const path of [
        `/projects/${other.id}/calendar/events/${event.id}`,
        `/projects/${other.id}/meetings/${meeting.id}`,
      ]
    ) {
      assert.equal((await page(t, alice.cookie, path)).status, 404, path);
    }
    const crossed = await post(
      t,
      alice.cookie,
      `/projects/${other.id}/milestones/${milestone.id}`,
      {
        title: "Moved",
      },
    );
    assert.equal(crossed.status, 404);
  });
});

Deno.test("milestones are created and edited with plain forms and show their progress", async () => {
  await withTeam(async (t, { alice, viewer, project }) => {
    const base = `/projects/${project.id}`;
    const created = await post(t, alice.cookie, `${base}/milestones`, {
      title: "<script>alert(1)</script> Launch",
      dueDate: "2026-12-01",
      description: "**Ship** it <img src=x onerror=alert(2)>",
    });
    assert.equal(created.status, 303, created.html);
    assert.match(
      created.location!,
      new RegExp(`^${base}/milestones\\?created=milestone-\\d+#milestone-\\d+$`),
    );
    const createdPage = await page(t, alice.cookie, created.location!);
    assert.match(createdPage.html, /role="status"[^>]*>Milestone created\.</);
    const [milestone] = (await getJson(t, alice.cookie, `/api${base}/milestones`)).items;
    assert.equal(milestone.dueDate, "2026-12-01");

    // Three linked to-dos, one complete: 33 %.
    const ids: number[] = [];
    for (const title of ["a", "b", "c"]) {
      ids.push(
        (await create(t, alice.cookie, `/api${base}/todos/items`, {
          title,
          milestoneId: milestone.id,
        })).item.id,
      );
    }
    await api(t, "POST", `/api${base}/todos/items/${ids[0]}/toggle-complete`, {
      cookie: alice.cookie,
    });
    const list = await page(t, alice.cookie, `${base}/milestones`);
    assert.equal(list.status, 200);
    assert.match(list.html, /<progress max="100" value="33"/);
    assert.match(list.html, />33%</);
    assert.match(list.html, /1 of 3 linked to-dos done\./);
    assert.match(list.html, /&lt;script&gt;alert\(1\)&lt;\/script&gt; Launch/);
    assert.doesNotMatch(list.html, /<script>alert/);
    assert.match(list.html, /<strong>Ship<\/strong>/);
    assert.doesNotMatch(list.html, /<img src=x/);
    assert.match(list.html, /data-milestone-edit=/);
    // A deleted to-do no longer counts, in the progress and in the counts alike.
    const gone = await api(t, "DELETE", `/api${base}/todos/items/${ids[2]}`, {
      cookie: alice.cookie,
    });
    assert.equal(gone.status, 204);
    const fewer = await page(t, alice.cookie, `${base}/milestones`);
    assert.match(fewer.html, /<progress max="100" value="50"/);
    assert.match(fewer.html, /1 of 2 linked to-dos done\./);

    // Edit: a new title; an empty due date and description clear them.
    const edited = await post(t, alice.cookie, `${base}/milestones/${milestone.id}`, {
      title: "Launch v2",
      dueDate: "",
      description: "",
    });
    assert.equal(edited.status, 303, edited.html);
    assert.equal(
      edited.location,
      `${base}/milestones?saved=milestone-${milestone.id}#milestone-${milestone.id}`,
    );
    const after = (await getJson(t, alice.cookie, `/api${base}/milestones/${milestone.id}`))
      .milestone;
    assert.equal(after.title, "Launch v2");
    assert.equal(after.dueDate, null);
    assert.equal(after.description, null);

    // Refused forms re-render with their message and values, and store nothing.
    const blank = await post(t, alice.cookie, `${base}/milestones`, { title: "  ", dueDate: "" });
    assert.equal(blank.status, 400);
    assert.match(blank.html, /Please correct the highlighted fields\./);
    assert.match(blank.html, /This field is required\./);
    const badDate = await post(t, alice.cookie, `${base}/milestones/${milestone.id}`, {
      title: "Kept <b>",
      dueDate: "2026-13-45",
    });
    assert.equal(badDate.status, 400);
    assert.match(badDate.html, /value="Kept &lt;b&gt;"/);
    assert.equal((await getJson(t, alice.cookie, `/api${base}/milestones`)).items.length, 1);

    // A viewer reads without forms and is refused.
    const read = await page(t, viewer.cookie, `${base}/milestones`);
    assert.equal(read.status, 200);
    assert.doesNotMatch(read.html, /data-milestone-edit|data-milestone-create/);
    const refused = await post(t, viewer.cookie, `${base}/milestones`, { title: "Nope" });
    assert.equal(refused.status, 403);
    assert.match(refused.html, /You are not allowed to do this\./);
  });
});

Deno.test("the calendar shows events, milestones and to-dos on their UTC days, by month and week", async () => {
  await withTeam(async (t, { alice, project }) => {
    const base = `/projects/${project.id}`;
    await create(t, alice.cookie, `/api${base}/calendar/events`, {
      title: "Kickoff <b>",
      startAt: "2026-11-20T09:30:00Z",
      endAt: "2026-11-20T10:30:00Z",
    });
    await create(t, alice.cookie, `/api${base}/calendar/events`, {
      title: "Late night",
      startAt: "2026-11-20T23:00:00Z",
      endAt: "2026-11-21T01:00:00Z",
    });
    await create(t, alice.cookie, `/api${base}/milestones`, {
      title: "Beta",
      dueDate: "2026-11-27",
    });
    const item = (await create(t, alice.cookie, `/api${base}/todos/items`, {
      title: "Write docs",
      startDate: "2026-11-23",
      dueDate: "2026-11-25",
    })).item;
    await create(t, alice.cookie, `/api${base}/calendar/events`, {
      title: "December party",
      startAt: "2026-12-18T18:00:00Z",
      endAt: "2026-12-18T22:00:00Z",
    });

    const month = await page(t, alice.cookie, `${base}/calendar?month=2026-11`);
    assert.equal(month.status, 200);
    assert.match(month.html, /data-calendar-month="2026-11"/);
    // The grid runs Monday 26 October to Sunday 6 December.
    assert.ok(month.html.includes('data-day="2026-10-26"'));
    assert.ok(month.html.includes('data-day="2026-12-06"'));
    assert.ok(!month.html.includes('data-day="2026-12-07"'));
    assert.match(dayCell(month.html, "2026-11-20"), /Kickoff &lt;b&gt;/);
    assert.match(dayCell(month.html, "2026-11-20"), /09:30/);
    // An event past midnight reaches the next UTC day too.
    assert.match(dayCell(month.html, "2026-11-21"), /Late night/);
    assert.match(dayCell(month.html, "2026-11-27"), /Beta/);
    for (const day of ["2026-11-23", "2026-11-24", "2026-11-25"]) {
      assert.match(dayCell(month.html, day), new RegExp(`href="${base}/todos/${item.id}"`), day);
    }
    assert.doesNotMatch(dayCell(month.html, "2026-11-26"), /Write docs/);
    assert.doesNotMatch(month.html, /December party/);
    assert.match(month.html, /class="cal-day today" data-day="2026-11-22"/);
    assert.match(month.html, new RegExp(`href="${base}/calendar\\?month=2026-10" rel="prev"`));
    assert.match(month.html, new RegExp(`href="${base}/calendar\\?month=2026-12" rel="next"`));
    assert.doesNotMatch(month.html, /<b>/);

    const december = await page(t, alice.cookie, `${base}/calendar?month=2026-12`);
    assert.match(december.html, /December 2026/);
    assert.match(dayCell(december.html, "2026-12-18"), /December party/);
    // A malformed month shows the current one.
    const bad = await page(t, alice.cookie, `${base}/calendar?month=2026-13`);
    assert.equal(bad.status, 200);
    assert.match(bad.html, /data-calendar-month="2026-11"/);
    const badWeek = await page(t, alice.cookie, `${base}/calendar?view=week&week=2026-02-30`);
    assert.equal(badWeek.status, 200);
    assert.match(badWeek.html, /data-calendar-week="2026-11-16"/);

    // The week view starts on the Monday of the asked day.
    const week = await page(t, alice.cookie, `${base}/calendar?view=week&week=2026-11-25`);
    assert.equal(week.status, 200);
    assert.match(week.html, /data-calendar-week="2026-11-23"/);
    assert.equal(week.html.match(/class="cal-agenda-day[^"]*" data-day=/g)?.length, 7);
    assert.match(week.html, /Write docs/);
    assert.match(week.html, /Beta/);
    assert.doesNotMatch(week.html, /Kickoff/);
    assert.match(week.html, new RegExp(`week=2026-11-16" rel="prev"`));
    assert.match(week.html, new RegExp(`week=2026-11-30" rel="next"`));
  });
});

Deno.test("calendar events are created, edited and deleted with plain forms", async () => {
  await withTeam(async (t, { alice, viewer, project }) => {
    const base = `/projects/${project.id}`;
    const created = await post(t, alice.cookie, `${base}/calendar/events`, {
      title: "Review",
      startAt: "2026-11-20T09:00",
      endAt: "2026-11-20T10:30",
      description: "Bring **notes** <script>alert(1)</script>",
    });
    assert.equal(created.status, 303, created.html);
    const [event] = (await getJson(t, alice.cookie, `/api${base}/calendar/events`)).items;
    assert.equal(created.location, `${base}/calendar?month=2026-11&created=event-${event.id}`);
    assert.equal(event.startAt, "2026-11-20T09:00:00.000Z");
    assert.equal(event.endAt, "2026-11-20T10:30:00.000Z");
    assert.equal(event.allDay, false);

    const detail = await page(t, alice.cookie, `${base}/calendar/events/${event.id}`);
    assert.equal(detail.status, 200);
    assert.match(detail.html, /20 Nov 2026, 09:00 – 10:30/);
    assert.match(detail.html, /<strong>notes<\/strong>/);
    assert.doesNotMatch(detail.html, /<script>alert/);
    assert.match(detail.html, /name="startAt" required value="2026-11-20T09:00"/);

    // End before start: refused with a message, nothing stored.
    const backwards = await post(t, alice.cookie, `${base}/calendar/events`, {
      title: "Backwards",
      startAt: "2026-11-20T10:00",
      endAt: "2026-11-20T09:00",
    });
    assert.equal(backwards.status, 400);
    assert.match(backwards.html, /The end cannot be before the start\./);
    assert.match(backwards.html, /value="Backwards"/);
    const missing = await post(t, alice.cookie, `${base}/calendar/events`, {
      title: "No time",
      startAt: "",
      endAt: "",
    });
    assert.equal(missing.status, 400);
    assert.equal((await getJson(t, alice.cookie, `/api${base}/calendar/events`)).items.length, 1);

    // An all-day event covers whole UTC days, its last day included.
    const allDay = await post(t, alice.cookie, `${base}/calendar/events`, {
      title: "Holiday",
      startAt: "2026-11-24T00:00",
      endAt: "2026-11-25T00:00",
      allDay: "on",
    });
    assert.equal(allDay.status, 303, allDay.html);
    const holiday = (await getJson(t, alice.cookie, `/api${base}/calendar/events`)).items
      .find((e: Json) => e.title === "Holiday");
    assert.equal(holiday.startAt, "2026-11-24T00:00:00.000Z");
    assert.equal(holiday.endAt, "2026-11-26T00:00:00.000Z");
    assert.equal(holiday.allDay, true);
    const month = await page(t, alice.cookie, `${base}/calendar`);
    assert.match(dayCell(month.html, "2026-11-24"), /Holiday/);
    assert.match(dayCell(month.html, "2026-11-25"), /Holiday/);
    assert.doesNotMatch(dayCell(month.html, "2026-11-26"), /Holiday/);
    const holidayPage = await page(t, alice.cookie, `${base}/calendar/events/${holiday.id}`);
    assert.match(holidayPage.html, /name="endAt" value="2026-11-25T00:00"/);

    // Edit, then delete.
    const edited = await post(t, alice.cookie, `${base}/calendar/events/${event.id}`, {
      title: "Review <i>moved</i>",
      startAt: "2026-12-02T14:00",
      endAt: "2026-12-02T15:00",
      description: "",
    });
    assert.equal(edited.status, 303, edited.html);
    assert.equal(edited.location, `${base}/calendar/events/${event.id}?saved=event-${event.id}`);
    const savedPage = await page(t, alice.cookie, edited.location!);
    assert.match(savedPage.html, /role="status"[^>]*>Event saved\.</);
    const after = (await getJson(t, alice.cookie, `/api${base}/calendar/events/${event.id}`))
      .event;
    assert.equal(after.title, "Review <i>moved</i>");
    assert.equal(after.startAt, "2026-12-02T14:00:00.000Z");
    assert.equal(after.description, null);
    const shown = await page(t, alice.cookie, `${base}/calendar/events/${event.id}`);
    assert.match(shown.html, /<h1>Review &lt;i&gt;moved&lt;\/i&gt;<\/h1>/);

    const viewerPage = await page(t, viewer.cookie, `${base}/calendar/events/${event.id}`);
    assert.equal(viewerPage.status, 200);
    assert.doesNotMatch(viewerPage.html, /data-event-edit/);
    const viewerDelete = await post(
      t,
      viewer.cookie,
      `${base}/calendar/events/${event.id}/delete`,
      {},
    );
    assert.equal(viewerDelete.status, 403);

    const deleted = await post(t, alice.cookie, `${base}/calendar/events/${event.id}/delete`, {});
    assert.equal(deleted.status, 303);
    assert.equal(deleted.location, `${base}/calendar?month=2026-12&deleted=event-${event.id}`);
    assert.equal((await page(t, alice.cookie, `${base}/calendar/events/${event.id}`)).status, 404);
    assert.equal(
      (await post(t, alice.cookie, `${base}/calendar/events/${event.id}/delete`, {})).status,
      404,
    );
  });
});

Deno.test("meetings are scheduled with invitees, list their conflicts after saving, edited and deleted", async () => {
  await withTeam(async (t, { owner, alice, bob, viewer, outsider, project }) => {
    const base = `/projects/${project.id}`;
    // Bob is invited to a meeting here, and organises one in a project Alice cannot see.
    const standup = (await create(t, owner.cookie, `/api${base}/meetings`, {
      title: "Standup",
      startAt: "2026-11-25T10:00:00Z",
      endAt: "2026-11-25T11:00:00Z",
      inviteeIds: [bob.user.id],
    })).meeting;
    const secret = await createProject(t, bob.cookie, "Secret");
    await create(t, bob.cookie, `/api/projects/${secret.id}/meetings`, {
      title: "Secret interview",
      startAt: "2026-11-25T10:30:00Z",
      endAt: "2026-11-25T11:30:00Z",
      inviteeIds: [],
    });
    await create(t, alice.cookie, `/api${base}/meetings`, {
      title: "Retro (past)",
      startAt: "2026-11-02T10:00:00Z",
      endAt: "2026-11-02T11:00:00Z",
      inviteeIds: [],
    });

    // The form lists the members but the organiser as invitee checkboxes.
    const list = await page(t, alice.cookie, `${base}/meetings`);
    assert.match(list.html, new RegExp(`name="inviteeIds" value="${bob.user.id}"`));
    assert.doesNotMatch(list.html, new RegExp(`name="inviteeIds" value="${alice.user.id}"`));
    assert.match(list.html, new RegExp(`data-meeting-form="true" data-project="${project.id}"`));
    assert.match(list.html, /data-meeting-conflicts/);
    // Upcoming first, then past.
    assert.ok(list.html.indexOf("Standup") < list.html.indexOf("Retro (past)"));
    assert.match(list.html, /data-meetings="past"[\s\S]*Retro \(past\)/);

    const created = await post(t, alice.cookie, `${base}/meetings`, {
      title: "Sync <b>now</b>",
      startAt: "2026-11-25T10:15",
      endAt: "2026-11-25T10:45",
      inviteeIds: [String(bob.user.id), String(owner.user.id)],
      location: "Room 1",
      minutes: "**Agreed** <script>alert(1)</script>",
    });
    assert.equal(created.status, 303, created.html);
    assert.match(created.location!, new RegExp(`^${base}/meetings/\\d+\\?saved=1$`));
    const meetingId = Number(created.location!.match(/meetings\/(\d+)/)![1]);
    const meeting = (await getJson(t, alice.cookie, `/api${base}/meetings/${meetingId}`)).meeting;
    assert.deepEqual(meeting.inviteeIds, [owner.user.id, bob.user.id].sort((a, b) => a - b));
    assert.equal(meeting.startAt, "2026-11-25T10:15:00.000Z");
    assert.equal(meeting.location, "Room 1");

    const saved = await page(t, alice.cookie, created.location!);
    assert.equal(saved.status, 200);
    assert.match(saved.html, /data-saved/);
    assert.match(saved.html, /The meeting was saved, but it conflicts with 3 other commitments/);
    assert.match(saved.html, /<h1>Sync &lt;b&gt;now&lt;\/b&gt;<\/h1>/);
    assert.match(saved.html, new RegExp(`<a href="${base}/meetings/${standup.id}">Standup</a>`));
    assert.match(saved.html, /a private item in another project/);
    assert.doesNotMatch(saved.html, /Secret interview/);
    assert.match(saved.html, /<strong>Agreed<\/strong>/);
    assert.doesNotMatch(saved.html, /<script>alert/);
    assert.match(saved.html, /Room 1/);
    assert.match(saved.html, new RegExp(`data-exclude="${meetingId}"`));

    // Without ?saved=1 there is no notice, but the conflicts are still listed.
    const plain = await page(t, alice.cookie, `${base}/meetings/${meetingId}`);
    assert.doesNotMatch(plain.html, /data-saved/);
    assert.match(plain.html, /data-meeting-warnings/);

    // Moving it away from everyone's commitments: saved without conflicts.
    const edited = await post(t, alice.cookie, `${base}/meetings/${meetingId}`, {
      title: "Sync",
      startAt: "2026-11-26T14:00",
      endAt: "2026-11-26T15:00",
      inviteeIds: [String(owner.user.id)],
      location: "",
      minutes: "",
    });
    assert.equal(edited.status, 303, edited.html);
    assert.equal(edited.location, `${base}/meetings/${meetingId}?saved=1`);
    const after = (await getJson(t, alice.cookie, `/api${base}/meetings/${meetingId}`)).meeting;
    assert.deepEqual(after.inviteeIds, [owner.user.id]);
    assert.equal(after.location, null);
    assert.equal(after.minutes, null);
    const clean = await page(t, alice.cookie, edited.location!);
    assert.match(clean.html, /The meeting was saved\./);
    assert.match(clean.html, /No conflicts\./);

    // Refusals: a non-member invitee, an end before the start.
    const stranger = await post(t, alice.cookie, `${base}/meetings`, {
      title: "Bad",
      startAt: "2026-11-27T10:00",
      endAt: "2026-11-27T11:00",
      inviteeIds: [String(outsider.user.id)],
    });
    assert.equal(stranger.status, 400);
    assert.match(stranger.html, /Invite only members of this project\./);
    const backwards = await post(t, alice.cookie, `${base}/meetings`, {
      title: "Backwards",
      startAt: "2026-11-27T10:00",
      endAt: "2026-11-27T09:00",
    });
    assert.equal(backwards.status, 400);
    assert.match(backwards.html, /The end cannot be before the start\./);
    assert.equal((await getJson(t, alice.cookie, `/api${base}/meetings`)).items.length, 3);

    // A viewer reads without forms and is refused.
    const viewerPage = await page(t, viewer.cookie, `${base}/meetings/${meetingId}`);
    assert.equal(viewerPage.status, 200);
    assert.doesNotMatch(viewerPage.html, /data-meeting-form/);
    assert.equal(
      (await post(t, viewer.cookie, `${base}/meetings/${meetingId}/delete`, {})).status,
      403,
    );

    const deleted = await post(t, alice.cookie, `${base}/meetings/${meetingId}/delete`, {});
    assert.equal(deleted.status, 303);
    assert.equal(deleted.location, `${base}/meetings?deleted=meeting-${meetingId}`);
    assert.equal((await page(t, alice.cookie, `${base}/meetings/${meetingId}`)).status, 404);
  });
});

Deno.test("a meeting's page lists the conflicts of its organiser and invitees still in the project", async () => {
  await withTeam(async (t, { admin, owner, alice, bob, project }) => {
    const base = `/projects/${project.id}`;
    const at = { startAt: "2026-11-25T10:00:00Z", endAt: "2026-11-25T11:00:00Z" };
    const schedule = async (cookie: string, title: string, inviteeIds: number[]) =>
      (await create(t, cookie, `/api${base}/meetings`, { title, ...at, inviteeIds })).meeting;
    // A system admin who is not a member organises one; their other meeting conflicts with it.
    const board = await schedule(admin.cookie, "Board review", []);
    const audit = await schedule(admin.cookie, "Audit", []);
    const adminPage = await page(t, admin.cookie, `${base}/meetings/${board.id}`);
    assert.match(adminPage.html, new RegExp(`<a href="${base}/meetings/${audit.id}">Audit</a>`));

    // Alice views a meeting she does not take part in: her own commitments are not listed.
    const planning = await schedule(owner.cookie, "Planning", [bob.user.id]);
    const aliceOwn = await schedule(alice.cookie, "Alice's call", []);
    const bobsOwn = await schedule(bob.cookie, "Bob's call", []);
    const before = await page(t, alice.cookie, `${base}/meetings/${planning.id}`);
    assert.match(before.html, new RegExp(`meetings/${bobsOwn.id}"`));
    assert.doesNotMatch(before.html, new RegExp(`meetings/${aliceOwn.id}"`));

    // Once Bob has left the project, his commitments no longer count.
    const removed = await api(t, "DELETE", `/api/projects/${project.id}/members/${bob.user.id}`, {
      cookie: owner.cookie,
    });
    assert.equal(removed.status, 204);
    const after = await page(t, alice.cookie, `${base}/meetings/${planning.id}`);
    assert.equal(after.status, 200);
    assert.doesNotMatch(after.html, new RegExp(`meetings/${bobsOwn.id}"`));
  });
});

Deno.test("search highlights matches with <mark>, escapes user markup, links, filters and pages", async () => {
  await withTeam(async (t, { alice, project }) => {
    const base = `/projects/${project.id}`;
    const api_ = `/api${base}`;
    const note = (await create(t, alice.cookie, `${api_}/notes`, {
      title: "<i>Zebra</i> notes",
      body: "The <b>zebra</b> <script>alert(1)</script> crossing",
    })).note;
    const thread = (await create(t, alice.cookie, `${api_}/board/threads`, {
      title: "Zebra thread",
      body: "x",
      category: "general",
    })).thread;
    const message = (await create(t, alice.cookie, `${api_}/chat/messages`, {
      text: "zebra in chat",
    })).message;
    const item = (await create(t, alice.cookie, `${api_}/todos/items`, { title: "Feed zebra" }))
      .item;
    const file = await uploadFile(t, alice.cookie, project.id, "zebra.png", PNG_BYTES);
    const event = (await create(t, alice.cookie, `${api_}/calendar/events`, {
      title: "Zebra day",
      startAt: "2026-11-24T09:00:00Z",
      endAt: "2026-11-24T10:00:00Z",
    })).event;
    const meeting = (await create(t, alice.cookie, `${api_}/meetings`, {
      title: "Weekly",
      startAt: "2026-11-25T10:00:00Z",
      endAt: "2026-11-25T11:00:00Z",
      inviteeIds: [],
      minutes: "定例会議の議事録: zebra",
    })).meeting;
    const milestone = (await create(t, alice.cookie, `${api_}/milestones`, { title: "Zebra v1" }))
      .milestone;

    const all = await page(t, alice.cookie, `${base}/search?q=zebra`);
    assert.equal(all.status, 200);
    assert.match(all.html, /Matches: 8/);
    const links: Array<[string, string]> = [
      ["note", `${base}/notes/${note.id}`],
      ["board", `${base}/board/${thread.id}`],
      ["chat", `${base}/chat`],
      ["todo", `${base}/todos/${item.id}`],
      ["file", `/api/files/${file.id}/download`],
      ["event", `${base}/calendar/events/${event.id}`],
      ["meeting", `${base}/meetings/${meeting.id}`],
      ["milestone", `${base}/milestones`],
    ];
    const ids: Record<string, number> = {
      note: note.id,
      board: thread.id,
      chat: message.id,
      todo: item.id,
      file: file.id,
      event: event.id,
      meeting: meeting.id,
      milestone: milestone.id,
    };
    for (const [type, href] of links) {
      const hit = all.html.match(
        new RegExp(`<li class="card search-hit" data-hit="${type}-${ids[type]}">([\\s\\S]*?)</li>`),
      );
      assert.ok(hit, type);
      assert.match(hit[1]!, new RegExp(`class="hit-title" href="${href.replace("?", "\\?")}"`));
      assert.match(hit[1]!, /data-hit-type/);
      assert.match(hit[1]!, /<mark>/, type);
    }
    // The snippet keeps user markup as text; only <mark> is HTML. Titles are escaped.
    assert.match(all.html, /&#60;b&#62;<mark>zebra<\/mark>&#60;\/b&#62;/);
    assert.match(all.html, /&lt;i&gt;Zebra&lt;\/i&gt; notes/);
    assert.doesNotMatch(all.html, /<b>zebra|<i>Zebra|<script>alert/);
    assert.match(all.html, /<span class="tag" data-hit-type="note">Note<\/span>/);

    // A type filter, from the form or the filter links.
    const notes = await page(t, alice.cookie, `${base}/search?q=zebra&type=note`);
    assert.equal(notes.html.match(/class="card search-hit"/g)?.length, 1);
    assert.match(notes.html, /<option value="note" selected>/);
    assert.match(notes.html, /aria-current="page" data-search-filter="note"/);
    // Japanese text is found by substring (two characters).
    const ja = await page(t, alice.cookie, `${base}/search?q=${encodeURIComponent("会議")}`);
    assert.match(ja.html, new RegExp(`data-hit="meeting-${meeting.id}"`));
    assert.match(ja.html, /定例<mark>会議<\/mark>/);
    const none = await page(t, alice.cookie, `${base}/search?q=okapi`);
    assert.equal(none.status, 200);
    assert.match(none.html, /Nothing matches “okapi”\./);

    // A blank query shows the form without an error; an unknown type shows a message.
    for (const path of [`${base}/search`, `${base}/search?q=`, `${base}/search?q=%20%20`]) {
      const blank = await page(t, alice.cookie, path);
      assert.equal(blank.status, 200, path);
      assert.match(blank.html, /role="search"/);
      assert.doesNotMatch(blank.html, /role="alert"/);
      assert.doesNotMatch(blank.html, /search-hit/);
    }
    const badType = await page(t, alice.cookie, `${base}/search?q=zebra&type=people`);
    assert.equal(badType.status, 400);
    assert.match(badType.html, /role="alert">Unknown type\./);
    assert.doesNotMatch(badType.html, /search-hit/);

    // Paging: 25 matches make two pages, the query and type kept in the links.
    for (let i = 0; i < 24; i++) {
      await create(t, alice.cookie, `${api_}/chat/messages`, { text: `kiwi ${i}` });
    }
    await create(t, alice.cookie, `${api_}/notes`, { title: "kiwi note", body: "" });
    const first = await page(t, alice.cookie, `${base}/search?q=kiwi`);
    assert.equal(first.html.match(/class="card search-hit"/g)?.length, 20);
    assert.match(first.html, new RegExp(`href="${base}/search\\?q=kiwi&amp;page=2" rel="next"`));
    const second = await page(t, alice.cookie, `${base}/search?q=kiwi&page=2`);
    assert.equal(second.html.match(/class="card search-hit"/g)?.length, 5);
    assert.match(second.html, /Page 2 of 2/);
    const chatOnly = await page(t, alice.cookie, `${base}/search?q=kiwi&type=chat&page=2`);
    assert.equal(chatOnly.html.match(/class="card search-hit"/g)?.length, 4);
    assert.match(chatOnly.html, /q=kiwi&amp;type=chat" rel="prev"/);
  });
});

Deno.test("the project dashboard shows every section; the personal dashboard mine", async () => {
  await withTeam(async (t, { owner, alice, bob, project }) => {
    const base = `/projects/${project.id}`;
    const api_ = `/api${base}`;
    const columns = (await getJson(t, alice.cookie, `${api_}/todos/columns`)).items;
    const doing = columns.find((c: Json) => c.key === "in_progress");
    await create(t, alice.cookie, `${api_}/todos/items`, {
      title: "Build <b>API</b>",
      columnId: doing.id,
      assigneeId: bob.user.id,
    });
    await create(t, owner.cookie, `${api_}/todos/items`, {
      title: "Due soon",
      dueDate: "2026-11-25",
      assigneeId: alice.user.id,
    });
    await create(t, owner.cookie, `${api_}/todos/items`, {
      title: "Overdue task",
      dueDate: "2026-11-20",
      assigneeId: alice.user.id,
      priority: "high",
    });
    await create(t, alice.cookie, `${api_}/chat/messages`, {
      text: "Hello <img src=x onerror=alert(1)>",
    });
    await create(t, alice.cookie, `${api_}/board/threads`, {
      title: "Roadmap thread",
      body: "x",
      category: "general",
    });
    await create(t, alice.cookie, `${api_}/notes`, { title: "Design note", body: "" });
    await uploadFile(t, alice.cookie, project.id, "diagram.png", PNG_BYTES);
    await create(t, owner.cookie, `${api_}/meetings`, {
      title: "Kickoff meeting",
      startAt: "2026-11-24T09:00:00Z",
      endAt: "2026-11-24T10:00:00Z",
      inviteeIds: [alice.user.id],
    });
    await create(t, alice.cookie, `${api_}/milestones`, { title: "Alpha", dueDate: "2026-12-01" });

    const dash = await page(t, alice.cookie, base);
    assert.equal(dash.status, 200);
    assert.match(dash.html, /<h1>Apollo<\/h1>/);
    assert.match(section(dash.html, "inProgress"), /Build &lt;b&gt;API&lt;\/b&gt;/);
    assert.match(section(dash.html, "inProgress"), /bob/);
    assert.match(section(dash.html, "nearDue"), /Due soon/);
    assert.doesNotMatch(section(dash.html, "nearDue"), /Overdue task/);
    assert.match(section(dash.html, "chat"), /Hello &lt;img src=x onerror=alert\(1\)&gt;/);
    assert.match(section(dash.html, "threads"), /Roadmap thread/);
    assert.match(section(dash.html, "notes"), /Design note/);
    assert.match(section(dash.html, "files"), /diagram\.png/);
    assert.match(section(dash.html, "nextMeeting"), /Kickoff meeting/);
    assert.match(section(dash.html, "milestones"), /Alpha[\s\S]*<progress max="100" value="0"/);
    assert.match(section(dash.html, "activity"), /Scheduled a meeting/);
    assert.doesNotMatch(dash.html, /<img src=x/);
    // Member management stays on the project page, below the dashboard.
    assert.match(dash.html, /data-member="alice@example.com"/);
    assert.ok(dash.html.indexOf('data-dashboard="project"') < dash.html.indexOf('id="members"'));

    // The fragment is the dashboard alone, the same markup.
    const fragment = await page(t, alice.cookie, `${base}?fragment=1`);
    assert.equal(fragment.status, 200);
    assert.match(fragment.html, /^<div class="dashboard" data-dashboard="project"/);
    assert.doesNotMatch(fragment.html, /<html|data-member=/);
    assert.match(fragment.html, /Kickoff meeting/);

    const home = await page(t, alice.cookie, "/");
    assert.equal(home.status, 200);
    assert.match(home.html, /Welcome, alice\./);
    assert.match(section(home.html, "projects"), new RegExp(`href="${base}"`));
    assert.match(section(home.html, "overdue"), /Overdue task/);
    assert.doesNotMatch(section(home.html, "overdue"), /Due soon/);
    assert.match(section(home.html, "myTodos"), /Due soon/);
    assert.match(section(home.html, "meetings"), /Kickoff meeting[\s\S]*Apollo/);
    assert.match(section(home.html, "notifications"), /data-unread-count="4"/);
    assert.match(section(home.html, "notifications"), /You were invited to a meeting/);
    assert.match(section(home.html, "activity"), /Apollo/);
    assert.match(home.html, /<script type="module" src="\/static\/dashboard.js"><\/script>/);
    const homeFragment = await page(t, alice.cookie, "/?fragment=1");
    assert.match(
      homeFragment.html,
      /^<div class="dashboard" data-dashboard="personal" data-unread="4"/,
    );
    assert.doesNotMatch(homeFragment.html, /<html/);

    // Someone in no project sees the empty sections and the way to create one.
    const loner = (await api(t, "POST", "/api/auth/register", {
      body: { email: "lone@example.com", password: "password-123", displayName: "Lone" },
    })).headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
    const empty = await page(t, loner, "/");
    assert.match(empty.html, /You are not in any project yet\./);
    assert.match(section(empty.html, "overdue"), /Nothing is overdue\./);
  });
});

Deno.test("a project the user was added to later appears with its name on the personal dashboard", async () => {
  await withTeam(async (t, { alice, outsider }) => {
    const other = await createProject(t, outsider.cookie, "Zeta <x>");
    await addMember(t, outsider.cookie, other.id, "alice@example.com", "member");
    const home = await page(t, alice.cookie, "/");
    assert.match(section(home.html, "projects"), /Zeta &lt;x&gt;/);
    assert.match(section(home.html, "notifications"), /You were added to a project/);
  });
});
