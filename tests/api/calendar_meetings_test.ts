/** `GET /calendar?include=meetings` adds meetings; without `include` nothing changes. */
import assert from "node:assert/strict";
import { api, expectError, expectJson, type Json } from "../helpers/api.ts";
import { planned } from "../helpers/planned.ts";

const RANGE = "from=2026-11-23T00:00:00Z&to=2026-11-30T00:00:00Z";

Deno.test("GET /calendar?include=meetings adds the range's meetings as type meeting items", async () => {
  const { t, viewer, base, event, meeting } = await planned();
  try {
    const plain = expectJson(
      await api(t, "GET", `${base}/calendar?${RANGE}`, { cookie: viewer.cookie }),
      200,
    );
    assert.deepEqual(plain.items.map((i: Json) => `${i.type}-${i.id}`), [`event-${event.id}`]);
    assert.equal("location" in plain.items[0], false);
    const withMeetings = expectJson(
      await api(t, "GET", `${base}/calendar?${RANGE}&include=meetings`, { cookie: viewer.cookie }),
      200,
    );
    assert.deepEqual(withMeetings.items, [
      plain.items[0],
      {
        type: "meeting",
        id: meeting.id,
        title: "Standup",
        start: "2026-11-25T08:00:00.000Z",
        end: "2026-11-25T08:15:00.000Z",
        allDay: false,
        location: "Room 4",
      },
    ]);
    expectError(
      await api(t, "GET", `${base}/calendar?${RANGE}&include=chat`, { cookie: viewer.cookie }),
      400,
      "validation",
    );
  } finally {
    await t.close();
  }
});
