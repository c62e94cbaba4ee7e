/** Each person's time zone through the API: choosing it, and the dashboards' today in it. */
import assert from "node:assert/strict";
import { testApp } from "../helpers/app.ts";
import {
  addMember,
  api,
  createProject,
  expectError,
  expectJson,
  register,
  signUp,
} from "../helpers/api.ts";

Deno.test("a new user's timeZone is UTC, and PATCH /api/users/me changes it", async () => {
  const t = await testApp();
  try {
    const { cookie, user } = await signUp(t, "ada@example.com");
    assert.equal(user.timeZone, "UTC");
    const res = await api(t, "PATCH", "/api/users/me", {
      cookie,
      body: { timeZone: "Asia/Tokyo" },
    });
    assert.deepEqual(expectJson(res, 200).user, { ...user, timeZone: "Asia/Tokyo" });
    const me = expectJson(await api(t, "GET", "/api/auth/me", { cookie }), 200);
    assert.equal(me.user.timeZone, "Asia/Tokyo");
    // Other changes leave the zone as it is.
    const theme = await api(t, "PATCH", "/api/users/me", { cookie, body: { theme: "light" } });
    assert.equal(expectJson(theme, 200).user.timeZone, "Asia/Tokyo");
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /api/users/me stores an alias of a zone under the runtime's listed name", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "ada@example.com");
    const res = await api(t, "PATCH", "/api/users/me", {
      cookie,
      body: { timeZone: "US/Eastern" },
    });
    assert.equal(expectJson(res, 200).user.timeZone, "America/New_York");
  } finally {
    await t.close();
  }
});

Deno.test("PATCH /api/users/me with an unknown time zone is 400 naming the field and changes nothing", async () => {
  const t = await testApp();
  try {
    const cookie = await register(t, "ada@example.com");
    expectJson(
      await api(t, "PATCH", "/api/users/me", { cookie, body: { timeZone: "Europe/Berlin" } }),
      200,
    );
    for (const timeZone of ["Mars/Olympus_Mons", "", "+09:00", 9, null]) {
      const res = await api(t, "PATCH", "/api/users/me", {
        cookie,
        body: { timeZone, theme: "light" },
      });
      const error = expectError(res, 400, "validation");
      assert.ok(error.details?.timeZone, `${JSON.stringify(timeZone)}: ${res.text}`);
    }
    const me = expectJson(await api(t, "GET", "/api/auth/me", { cookie }), 200);
    assert.equal(me.user.timeZone, "Europe/Berlin");
    assert.equal(me.user.theme, "dark");
  } finally {
    await t.close();
  }
});

// 15:30 UTC on 22 November is already 00:30 on 23 November in Tokyo.
const NOW = "2026-11-22T15:30:00.000Z";

async function twoZones() {
  const t = await testApp({ now: NOW });
  const tokyo = await register(t, "tokyo@example.com");
  const utc = await register(t, "utc@example.com");
  expectJson(
    await api(t, "PATCH", "/api/users/me", { cookie: tokyo, body: { timeZone: "Asia/Tokyo" } }),
    200,
  );
  const project = await createProject(t, tokyo, "Zones");
  const member = await addMember(t, tokyo, project.id, "utc@example.com", "member");
  const tokyoId = expectJson(await api(t, "GET", "/api/auth/me", { cookie: tokyo }), 200).user.id;
  const todo = async (title: string, dueDate: string, assigneeId: number) => {
    const res = await api(t, "POST", `/api/projects/${project.id}/todos/items`, {
      cookie: tokyo,
      body: { title, dueDate, assigneeId },
    });
    expectJson(res, 201);
  };
  await todo("tokyo due 22nd", "2026-11-22", tokyoId);
  await todo("utc due 22nd", "2026-11-22", member.userId);
  await todo("due 29th", "2026-11-29", member.userId);
  await todo("due 30th", "2026-11-30", member.userId);
  return { t, tokyo, utc, p: project.id as number };
}

const titles = (items: Array<{ title: string }>) => items.map((i) => i.title).sort();

Deno.test("the project dashboard's near-due to-dos run from the caller's today: Tokyo's is a day ahead of UTC's", async () => {
  const { t, tokyo, utc, p } = await twoZones();
  try {
    const path = `/api/projects/${p}/dashboard`;
    const seenInUtc = expectJson(await api(t, "GET", path, { cookie: utc }), 200);
    assert.deepEqual(titles(seenInUtc.nearDueTodos), [
      "due 29th",
      "tokyo due 22nd",
      "utc due 22nd",
    ]);
    const seenInTokyo = expectJson(await api(t, "GET", path, { cookie: tokyo }), 200);
    assert.deepEqual(titles(seenInTokyo.nearDueTodos), ["due 29th", "due 30th"]);
  } finally {
    await t.close();
  }
});

Deno.test("the personal dashboard's overdue to-dos flip at the caller's midnight: Tokyo's before UTC's", async () => {
  const { t, tokyo, utc } = await twoZones();
  try {
    // 14:59 UTC: still the 22nd in Tokyo (23:59), nothing overdue for anyone.
    t.clock.set("2026-11-22T14:59:00.000Z");
    let d = expectJson(await api(t, "GET", "/api/dashboard", { cookie: tokyo }), 200);
    assert.deepEqual(titles(d.overdueTodos), []);
    // 15:00 UTC: midnight in Tokyo; Tokyo's to-do due on the 22nd is overdue, UTC's is not.
    t.clock.set("2026-11-22T15:00:00.000Z");
    d = expectJson(await api(t, "GET", "/api/dashboard", { cookie: tokyo }), 200);
    assert.deepEqual(titles(d.overdueTodos), ["tokyo due 22nd"]);
    d = expectJson(await api(t, "GET", "/api/dashboard", { cookie: utc }), 200);
    assert.deepEqual(titles(d.overdueTodos), []);
    // Midnight UTC: now the UTC user's is overdue too.
    t.clock.set("2026-11-23T00:00:00.000Z");
    d = expectJson(await api(t, "GET", "/api/dashboard", { cookie: utc }), 200);
    assert.deepEqual(titles(d.overdueTodos), ["utc due 22nd"]);
  } finally {
    await t.close();
  }
});
