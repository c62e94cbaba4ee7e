/** Unit tests of the time zone rules: accepted names, dates in a zone, typed times to UTC. */
import assert from "node:assert/strict";
import {
  canonicalTimeZone,
  dateInZone,
  startOfDayInZone,
  timeZoneNames,
  wallTimeInZone,
  wallTimeToUtc,
} from "../../../domain/kernel/time_zones.ts";

Deno.test("timeZoneNames: the runtime's zones and UTC, sorted", () => {
  const names = timeZoneNames();
  assert.ok(names.includes("UTC"));
  assert.ok(names.includes("Asia/Tokyo"));
  assert.ok(names.includes("America/New_York"));
  assert.deepEqual([...names], [...names].sort());
});

Deno.test("canonicalTimeZone: listed names stand, aliases become the listed name, others are refused", () => {
  assert.equal(canonicalTimeZone("Europe/Berlin"), "Europe/Berlin");
  assert.equal(canonicalTimeZone("UTC"), "UTC");
  assert.equal(canonicalTimeZone("Etc/UTC"), "UTC");
  assert.equal(canonicalTimeZone("US/Eastern"), "America/New_York");
  assert.equal(canonicalTimeZone("Mars/Olympus_Mons"), null);
  assert.equal(canonicalTimeZone(""), null);
  assert.equal(canonicalTimeZone("+09:00"), null);
});

Deno.test("dateInZone: an instant's date is Tokyo's next day from 15:00 UTC on", () => {
  assert.equal(dateInZone("2026-11-24T14:59:59Z", "Asia/Tokyo"), "2026-11-24");
  assert.equal(dateInZone("2026-11-24T15:00:00Z", "Asia/Tokyo"), "2026-11-25");
  assert.equal(dateInZone("2026-11-24T15:00:00Z", "UTC"), "2026-11-24");
  // New York is still on the day before until 05:00 UTC in winter.
  assert.equal(dateInZone("2026-11-25T04:59:00Z", "America/New_York"), "2026-11-24");
});

Deno.test("wallTimeToUtc: Tokyo has no daylight saving: always nine hours ahead", () => {
  assert.equal(wallTimeToUtc("2026-01-15T10:00", "Asia/Tokyo"), "2026-01-15T01:00:00.000Z");
  assert.equal(wallTimeToUtc("2026-07-15T10:00", "Asia/Tokyo"), "2026-07-15T01:00:00.000Z");
  assert.equal(wallTimeToUtc("2026-07-15T00:30", "Asia/Tokyo"), "2026-07-14T15:30:00.000Z");
});

Deno.test("wallTimeToUtc: New York is five hours behind in winter and four in summer, either side of its changes", () => {
  // Clocks spring forward on 8 March 2026 at 02:00 and fall back on 1 November 2026 at 02:00.
  assert.equal(wallTimeToUtc("2026-03-08T01:59", "America/New_York"), "2026-03-08T06:59:00.000Z");
  assert.equal(wallTimeToUtc("2026-03-08T03:00", "America/New_York"), "2026-03-08T07:00:00.000Z");
  assert.equal(wallTimeToUtc("2026-11-01T00:30", "America/New_York"), "2026-11-01T04:30:00.000Z");
  assert.equal(wallTimeToUtc("2026-11-01T02:30", "America/New_York"), "2026-11-01T07:30:00.000Z");
});

Deno.test("wallTimeToUtc: a time in the spring gap moves forward by the gap (New York 02:30 is 03:30 EDT)", () => {
  assert.equal(wallTimeToUtc("2026-03-08T02:30", "America/New_York"), "2026-03-08T07:30:00.000Z");
  assert.equal(wallTimeInZone("2026-03-08T07:30:00.000Z", "America/New_York"), "2026-03-08T03:30");
  // Berlin skips 02:00–03:00 on 29 March 2026.
  assert.equal(wallTimeToUtc("2026-03-29T02:15", "Europe/Berlin"), "2026-03-29T01:15:00.000Z");
  assert.equal(wallTimeInZone("2026-03-29T01:15:00.000Z", "Europe/Berlin"), "2026-03-29T03:15");
});

Deno.test("wallTimeToUtc: a time in the autumn overlap is the earlier of its two instants", () => {
  // New York's 01:30 on 1 November 2026 happens at 05:30 UTC (EDT) and again at 06:30 (EST).
  assert.equal(wallTimeToUtc("2026-11-01T01:30", "America/New_York"), "2026-11-01T05:30:00.000Z");
  // Berlin's 02:30 on 25 October 2026 happens at 00:30 UTC (CEST) and again at 01:30 (CET).
  assert.equal(wallTimeToUtc("2026-10-25T02:30", "Europe/Berlin"), "2026-10-25T00:30:00.000Z");
  assert.equal(wallTimeToUtc("2026-10-25T03:00", "Europe/Berlin"), "2026-10-25T02:00:00.000Z");
});

Deno.test("wallTimeToUtc: a time read back in its zone is the time typed (outside the gap)", () => {
  for (const zone of ["America/New_York", "Europe/Berlin", "Asia/Tokyo", "UTC"]) {
    for (
      const wall of ["2026-03-08T01:00", "2026-03-29T04:45", "2026-10-25T03:10", "2026-12-31T23:59"]
    ) {
      assert.equal(wallTimeInZone(wallTimeToUtc(wall, zone)!, zone), wall, `${wall} in ${zone}`);
    }
  }
});

Deno.test("wallTimeToUtc: seconds are kept, and text that is not a wall-clock time is null", () => {
  assert.equal(wallTimeToUtc("2026-06-01T12:00:30", "Europe/Berlin"), "2026-06-01T10:00:30.000Z");
  assert.equal(wallTimeToUtc("2026-02-30T10:00", "UTC"), null);
  assert.equal(wallTimeToUtc("2026-06-01T24:00", "UTC"), null);
  assert.equal(wallTimeToUtc("2026-06-01T10:00Z", "UTC"), null);
  assert.equal(wallTimeToUtc("tomorrow", "UTC"), null);
});

Deno.test("startOfDayInZone: a date begins at its zone's midnight", () => {
  assert.equal(startOfDayInZone("2026-11-25", "Asia/Tokyo"), "2026-11-24T15:00:00.000Z");
  assert.equal(startOfDayInZone("2026-11-25", "UTC"), "2026-11-25T00:00:00.000Z");
  assert.equal(startOfDayInZone("2026-03-29", "Europe/Berlin"), "2026-03-28T23:00:00.000Z");
  assert.equal(startOfDayInZone("2026-03-30", "Europe/Berlin"), "2026-03-29T22:00:00.000Z");
});
