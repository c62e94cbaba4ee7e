/** Unit tests of `agendaOf`: a project's meetings split into upcoming and past. */
import assert from "node:assert/strict";
import { agendaOf, type Meeting } from "../../../domain/planning/meetings.ts";

const meeting = (id: number, startAt: string, endAt: string) => ({ id, startAt, endAt }) as Meeting;
const ids = (meetings: Meeting[]) => meetings.map((m) => m.id);
const NOW = "2026-11-22T08:30:00.000Z";

Deno.test("agendaOf: meetings not yet over come soonest first, those over latest first", () => {
  const { upcoming, past } = agendaOf([
    meeting(1, "2026-11-25T09:00:00.000Z", "2026-11-25T10:00:00.000Z"),
    meeting(2, "2026-11-20T09:00:00.000Z", "2026-11-20T10:00:00.000Z"),
    meeting(3, "2026-11-23T09:00:00.000Z", "2026-11-23T10:00:00.000Z"),
    meeting(4, "2026-11-21T09:00:00.000Z", "2026-11-21T10:00:00.000Z"),
  ], NOW);
  assert.deepEqual(ids(upcoming), [3, 1]);
  assert.deepEqual(ids(past), [4, 2]);
});

Deno.test("agendaOf: a meeting going on is upcoming, one ending now is past", () => {
  const { upcoming, past } = agendaOf([
    meeting(1, "2026-11-22T08:00:00.000Z", "2026-11-22T09:00:00.000Z"),
    meeting(2, "2026-11-22T08:00:00.000Z", NOW),
  ], NOW);
  assert.deepEqual(ids(upcoming), [1]);
  assert.deepEqual(ids(past), [2]);
});

Deno.test("agendaOf: meetings starting together keep the order they were made in", () => {
  const at = ["2026-11-24T09:00:00.000Z", "2026-11-24T10:00:00.000Z"] as const;
  const before = ["2026-11-20T09:00:00.000Z", "2026-11-20T10:00:00.000Z"] as const;
  const { upcoming, past } = agendaOf([
    meeting(7, ...at),
    meeting(5, ...at),
    meeting(8, ...before),
    meeting(6, ...before),
  ], NOW);
  assert.deepEqual(ids(upcoming), [5, 7]);
  assert.deepEqual(ids(past), [8, 6], "latest first: the later-made one first");
  assert.deepEqual(agendaOf([], NOW), { upcoming: [], past: [] });
});
