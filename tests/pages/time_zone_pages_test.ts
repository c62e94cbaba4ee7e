/** Pages in each viewer's time zone: shown times, typed times, today, and the zone setting. */
import assert from "node:assert/strict";
import type { TestApp } from "../helpers/app.ts";
import { api, expectJson } from "../helpers/api.ts";
import { page, post, withTeam } from "./page_requests.ts";

/** Sets the time zone of the person signed in with `cookie` through the API. */
async function zone(t: TestApp, cookie: string, timeZone: string) {
  expectJson(await api(t, "PATCH", "/api/users/me", { cookie, body: { timeZone } }), 200);
}

/** The text of the page with tags dropped and blanks collapsed. */
const textOf = (html: string) => html.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");

Deno.test("the same meeting shows at each viewer's own local time, with the zone", async () => {
  await withTeam(async (t, { owner, alice, bob, project }) => {
    await zone(t, alice.cookie, "Asia/Tokyo");
    await zone(t, bob.cookie, "America/New_York");
    const res = await api(t, "POST", `/api/projects/${project.id}/meetings`, {
      cookie: owner.cookie,
      body: {
        title: "Planning",
        startAt: "2026-11-25T01:00:00Z",
        endAt: "2026-11-25T02:00:00Z",
        inviteeIds: [],
      },
    });
    const meetingId = expectJson(res, 201).meeting.id;
    const path = `/projects/${project.id}/meetings/${meetingId}`;
    const tokyo = textOf((await page(t, alice.cookie, path)).html);
    assert.match(tokyo, /25 Nov 2026, 10:00 – 11:00 GMT\+9/);
    const newYork = textOf((await page(t, bob.cookie, path)).html);
    assert.match(newYork, /24 Nov 2026, 20:00 – 21:00 GMT-5/);
    const utc = textOf((await page(t, owner.cookie, path)).html);
    assert.match(utc, /25 Nov 2026, 01:00 – 02:00 UTC/);
    // The edit form holds each viewer's wall-clock time.
    assert.match(
      (await page(t, alice.cookie, path)).html,
      /name="startAt"[^>]*value="2026-11-25T10:00"/,
    );
    assert.match(
      (await page(t, bob.cookie, path)).html,
      /name="startAt"[^>]*value="2026-11-24T20:00"/,
    );
    // In Japanese, Tokyo's zone is named JST.
    expectJson(
      await api(t, "PATCH", "/api/users/me", { cookie: alice.cookie, body: { locale: "ja" } }),
      200,
    );
    assert.match(textOf((await page(t, alice.cookie, path)).html), /10:00 – 11:00 JST/);
  });
});

Deno.test("the calendar places a meeting on each viewer's own day and names their zone", async () => {
  await withTeam(async (t, { owner, alice, bob, project }) => {
    await zone(t, alice.cookie, "Asia/Tokyo");
    await zone(t, bob.cookie, "America/New_York");
    const res = await api(t, "POST", `/api/projects/${project.id}/meetings`, {
      cookie: owner.cookie,
      body: {
        title: "Planning",
        startAt: "2026-11-25T01:00:00Z",
        endAt: "2026-11-25T02:00:00Z",
        inviteeIds: [],
      },
    });
    const meetingId = expectJson(res, 201).meeting.id;
    const week = `/projects/${project.id}/calendar?view=week&week=2026-11-23`;
    const dayOfMeeting = (html: string) => {
      const days = html.split(/(?=<li class="cal-agenda-day)/);
      const day = days.find((d) => d.includes(`data-cal-item="meeting-${meetingId}"`));
      return day?.match(/data-day="([\d-]+)"/)?.[1];
    };
    const tokyo = (await page(t, alice.cookie, week)).html;
    assert.equal(dayOfMeeting(tokyo), "2026-11-25");
    assert.match(tokyo, /Days and times are shown in your time zone, Asia\/Tokyo\./);
    assert.doesNotMatch(tokyo, /shown in UTC/);
    const newYork = (await page(t, bob.cookie, week)).html;
    assert.equal(dayOfMeeting(newYork), "2026-11-24");
    assert.match(newYork, /America\/New_York/);
  });
});

Deno.test("the calendar's today is the viewer's date: already tomorrow in Tokyo", async () => {
  await withTeam(async (t, { alice, bob, project }) => {
    // 15:30 UTC on 22 November is 00:30 on 23 November in Tokyo.
    t.clock.set("2026-11-22T15:30:00.000Z");
    await zone(t, alice.cookie, "Asia/Tokyo");
    const path = `/projects/${project.id}/calendar?month=2026-11`;
    const todayOf = (html: string) =>
      html.match(/<td class="cal-day today" data-day="([\d-]+)"/)?.[1];
    assert.equal(todayOf((await page(t, alice.cookie, path)).html), "2026-11-23");
    assert.equal(todayOf((await page(t, bob.cookie, path)).html), "2026-11-22");
  });
});

Deno.test("a meeting form's typed local time is stored as the instant it means in the viewer's zone", async () => {
  await withTeam(async (t, { alice, project }) => {
    await zone(t, alice.cookie, "Europe/Berlin");
    const base = `/projects/${project.id}/meetings`;
    const create = async (startAt: string, endAt: string) => {
      const res = await post(t, alice.cookie, base, { title: "Call", startAt, endAt });
      assert.equal(res.status, 303, res.html);
      const id = res.location!.match(/meetings\/(\d+)/)![1];
      const got = await api(t, "GET", `/api/projects/${project.id}/meetings/${id}`, {
        cookie: alice.cookie,
      });
      return expectJson(got, 200).meeting;
    };
    // Winter: Berlin is an hour ahead of UTC.
    let m = await create("2026-01-15T10:00", "2026-01-15T11:00");
    assert.equal(m.startAt, "2026-01-15T09:00:00.000Z");
    assert.equal(m.endAt, "2026-01-15T10:00:00.000Z");
    // Summer: two hours ahead.
    m = await create("2026-07-15T10:00", "2026-07-15T11:00");
    assert.equal(m.startAt, "2026-07-15T08:00:00.000Z");
    // 02:30 on 29 March does not exist in Berlin: it is read as 03:30 CEST.
    m = await create("2026-03-29T02:30", "2026-03-29T04:00");
    assert.equal(m.startAt, "2026-03-29T01:30:00.000Z");
    assert.equal(m.endAt, "2026-03-29T02:00:00.000Z");
    // 02:30 on 25 October happens twice: the earlier one (CEST) is meant.
    m = await create("2026-10-25T02:30", "2026-10-25T03:30");
    assert.equal(m.startAt, "2026-10-25T00:30:00.000Z");
    assert.equal(m.endAt, "2026-10-25T02:30:00.000Z");
  });
});

Deno.test("an event form's typed local time is stored in the viewer's zone, an all-day event keeps its dates", async () => {
  await withTeam(async (t, { alice, project }) => {
    await zone(t, alice.cookie, "America/New_York");
    const base = `/projects/${project.id}/calendar`;
    const res = await post(t, alice.cookie, `${base}/events`, {
      title: "Late call",
      startAt: "2026-11-24T21:00",
      endAt: "2026-11-24T22:30",
    });
    assert.equal(res.status, 303, res.html);
    // The month shown after saving is the event's month in New York.
    assert.match(res.location!, /month=2026-11/);
    const allDay = await post(t, alice.cookie, `${base}/events`, {
      title: "Holiday",
      startAt: "2026-11-26T00:00",
      allDay: "on",
    });
    assert.equal(allDay.status, 303, allDay.html);
    const list = await api(t, "GET", `/api/projects/${project.id}/calendar/events`, {
      cookie: alice.cookie,
    });
    const events = expectJson(list, 200).items;
    const late = events.find((e: { title: string }) => e.title === "Late call");
    assert.equal(late.startAt, "2026-11-25T02:00:00.000Z");
    assert.equal(late.endAt, "2026-11-25T03:30:00.000Z");
    const holiday = events.find((e: { title: string }) => e.title === "Holiday");
    assert.equal(holiday.startAt, "2026-11-26T00:00:00.000Z");
    assert.equal(holiday.endAt, "2026-11-27T00:00:00.000Z");
    // The late call is on the 24th in New York, though it is the 25th in UTC.
    const week = (await page(t, alice.cookie, `${base}?view=week&week=2026-11-23`)).html;
    const day24 = week.split(/(?=<li class="cal-agenda-day)/).find((d) =>
      d.includes('data-day="2026-11-24"')
    )!;
    assert.match(day24, /Late call/);
    // The all-day event's edit form shows its date, not the evening before.
    const holidayPage = (await page(t, alice.cookie, `${base}/events/${holiday.id}`)).html;
    assert.match(holidayPage, /name="startAt"[^>]*value="2026-11-26T00:00"/);
  });
});

Deno.test("the settings page chooses a time zone from a grouped list; an unknown one is refused and changes nothing", async () => {
  await withTeam(async (t, { alice }) => {
    const settings = (await page(t, alice.cookie, "/settings")).html;
    assert.match(settings, /<select name="timeZone"/);
    assert.match(settings, /<option value="UTC" selected>UTC<\/option>/);
    assert.match(
      settings,
      /<optgroup label="Asia">[^]*<option value="Asia\/Tokyo"\s*>Tokyo<\/option>/,
    );
    const saved = await post(t, alice.cookie, "/settings", {
      displayName: "Alice",
      theme: "dark",
      locale: "en",
      timeZone: "Asia/Tokyo",
    });
    assert.equal(saved.status, 303);
    const me = expectJson(await api(t, "GET", "/api/auth/me", { cookie: alice.cookie }), 200);
    assert.equal(me.user.timeZone, "Asia/Tokyo");
    assert.match(
      (await page(t, alice.cookie, "/settings")).html,
      /<option value="Asia\/Tokyo" selected>Tokyo<\/option>/,
    );
    const refused = await post(t, alice.cookie, "/settings", {
      displayName: "Alicia",
      theme: "light",
      locale: "en",
      timeZone: "Atlantis/Capital",
    });
    assert.equal(refused.status, 400);
    assert.match(refused.html, /class="field-error">Choose a time zone from the list\.</);
    const after = expectJson(await api(t, "GET", "/api/auth/me", { cookie: alice.cookie }), 200);
    assert.equal(after.user.timeZone, "Asia/Tokyo");
    assert.equal(after.user.displayName, "Alice");
    assert.equal(after.user.theme, "dark");
  });
});

Deno.test("the browser's zone is proposed until the person chooses one, and saving other settings is no choice", async () => {
  await withTeam(async (t, { alice }) => {
    const script = /<script type="module" src="\/static\/time_zone\.js">/;
    assert.match((await page(t, alice.cookie, "/")).html, script);
    // Changing the theme posts the zone shown (UTC) along: that is not choosing UTC.
    const saved = await post(t, alice.cookie, "/settings", {
      displayName: "Alice",
      theme: "light",
      locale: "en",
      timeZone: "UTC",
    });
    assert.equal(saved.status, 303);
    assert.match((await page(t, alice.cookie, "/")).html, script);
    // What the script sends: from then on the zone is the person's.
    await zone(t, alice.cookie, "Europe/Berlin");
    assert.doesNotMatch((await page(t, alice.cookie, "/")).html, script);
    // Choosing UTC deliberately is a choice too.
    await zone(t, alice.cookie, "UTC");
    assert.doesNotMatch((await page(t, alice.cookie, "/settings")).html, script);
    const js = await t.app.request("/static/time_zone.js");
    assert.equal(js.status, 200);
    assert.match(await js.text(), /resolvedOptions\(\)\.timeZone/);
  });
});

Deno.test("chat, activity and notifications show relative times, with the exact local time on hover", async () => {
  await withTeam(async (t, { owner, alice, project }) => {
    await zone(t, alice.cookie, "Asia/Tokyo");
    expectJson(
      await api(t, "POST", `/api/projects/${project.id}/chat/messages`, {
        cookie: owner.cookie,
        body: { text: "hello @alice" },
      }),
      201,
    );
    expectJson(
      await api(t, "POST", `/api/projects/${project.id}/notes`, {
        cookie: owner.cookie,
        body: { title: "Agenda", body: "b" },
      }),
      201,
    );
    const sentAt = t.clock.now().toISOString();
    t.clock.advance(3 * 60_000);
    const relative = new RegExp(
      `<time datetime="${sentAt.replace(/\./g, "\\.")}" title="22 Nov 2026, 17:30 GMT\\+9">` +
        "3 minutes ago</time>",
    );
    for (const path of [`/projects/${project.id}/chat`, `/projects/${project.id}/activity`]) {
      assert.match((await page(t, alice.cookie, path)).html, relative, path);
    }
    assert.match((await page(t, alice.cookie, "/notifications")).html, relative);
    expectJson(
      await api(t, "PATCH", "/api/users/me", { cookie: alice.cookie, body: { locale: "ja" } }),
      200,
    );
    t.clock.advance(2 * 3600_000);
    const chat = (await page(t, alice.cookie, `/projects/${project.id}/chat`)).html;
    assert.match(chat, /title="2026\/11\/22 17:30 JST">2 時間前<\/time>/);
  });
});
