/** A planned week: an event and meetings, for the calendar tests. */
import { testApp } from "./app.ts";
import { api, expectJson, team } from "./api.ts";

/** A project with an event and meetings in the week of 23 November 2026. */
export async function planned() {
  const t = await testApp();
  const cast = await team(t);
  const base = `/api/projects/${cast.project.id}`;
  const post = async (path: string, body: unknown) =>
    expectJson(await api(t, "POST", `${base}${path}`, { cookie: cast.alice.cookie, body }), 201);
  const event = (await post("/calendar/events", {
    title: "Offsite",
    startAt: "2026-11-24T09:00:00Z",
    endAt: "2026-11-24T17:00:00Z",
  })).event;
  const meeting = (await post("/meetings", {
    title: "Standup",
    startAt: "2026-11-25T08:00:00Z",
    endAt: "2026-11-25T08:15:00Z",
    location: "Room 4",
    inviteeIds: [],
  })).meeting;
  // Outside the range, and a deleted one: neither is shown.
  await post("/meetings", {
    title: "Next month",
    startAt: "2026-12-25T08:00:00Z",
    endAt: "2026-12-25T09:00:00Z",
    inviteeIds: [],
  });
  const gone = (await post("/meetings", {
    title: "Cancelled",
    startAt: "2026-11-26T08:00:00Z",
    endAt: "2026-11-26T09:00:00Z",
    inviteeIds: [],
  })).meeting;
  await api(t, "DELETE", `${base}/meetings/${gone.id}`, { cookie: cast.alice.cookie });
  return { t, ...cast, base, event, meeting };
}
