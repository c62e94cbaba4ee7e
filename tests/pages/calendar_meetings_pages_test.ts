/** The month and week calendar pages show meetings with the events, by day. */
import assert from "node:assert/strict";
import { api } from "../helpers/api.ts";
import { planned } from "../helpers/planned.ts";

Deno.test("the month and week calendar pages show meetings on their day, linked", async () => {
  const { t, alice, project, meeting } = await planned();
  try {
    const get = async (path: string) =>
      await (await t.app.request(path, { headers: { cookie: alice.cookie } })).text();
    const base = `/projects/${project.id}/calendar`;
    for (const path of [`${base}?month=2026-11`, `${base}?view=week&week=2026-11-23`]) {
      const html = await get(path);
      assert.match(html, new RegExp(`data-cal-item="meeting-${meeting.id}"`), path);
      assert.match(
        html,
        new RegExp(`<a href="/projects/${project.id}/meetings/${meeting.id}">Standup</a>`),
        path,
      );
      assert.match(html, /Meeting/, path);
      assert.doesNotMatch(html, />(Cancelled|Next month)</, path);
    }
    await api(t, "PATCH", "/api/users/me", { cookie: alice.cookie, body: { locale: "ja" } });
    assert.match(await get(`${base}?month=2026-11`), /会議/);
  } finally {
    await t.close();
  }
});
