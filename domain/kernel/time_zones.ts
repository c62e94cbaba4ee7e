/**
 * Time zones of people: which IANA names we accept, the calendar date of an instant in a zone,
 * and a wall-clock time typed in a zone as the UTC instant it means (across daylight-saving
 * changes). Everything is computed with the runtime's `Intl` time zone data; nothing is stored
 * but the zone's name.
 */

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/** The zone of a person who never chose one, and of every rule that is not about a person. */
export const DEFAULT_TIME_ZONE = "UTC";

let zoneList: readonly string[] | null = null;
let zoneSet: ReadonlySet<string> | null = null;

/** Every zone name a person may choose: the runtime's list plus `UTC`, sorted. */
export function timeZoneNames(): readonly string[] {
  if (!zoneList) {
    const names = new Set(Intl.supportedValuesOf("timeZone"));
    names.add(DEFAULT_TIME_ZONE);
    zoneList = [...names].sort();
    zoneSet = new Set(zoneList);
  }
  return zoneList;
}

/**
 * The runtime's own name for `name` when it is a zone a person may choose, else null. Aliases
 * and other spellings the runtime knows (`Asia/Kolkata`, `US/Eastern`, `Etc/UTC`, `asia/tokyo`)
 * become the listed name they stand for, so a browser's name for its zone is accepted.
 */
export function canonicalTimeZone(name: string): string | null {
  timeZoneNames();
  if (zoneSet!.has(name)) return name;
  if (name.length === 0 || name.length > 64) return null;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
  return zoneSet!.has(resolved) ? resolved : null;
}

const partsFormats = new Map<string, Intl.DateTimeFormat>();

/** The year, month, day, hour, minute and second an instant shows on a clock in `zone`. */
function wallClock(ms: number, zone: string): number[] {
  let format = partsFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    partsFormats.set(zone, format);
  }
  const fields: Record<string, number> = {};
  for (const part of format.formatToParts(ms)) {
    if (part.type !== "literal") fields[part.type] = Number(part.value);
  }
  return ["year", "month", "day", "hour", "minute", "second"].map((k) => fields[k] ?? 0);
}

/** How far `zone`'s clocks are ahead of UTC at an instant, in milliseconds. */
export function zoneOffsetMs(ms: number, zone: string): number {
  const whole = Math.floor(ms / 1000) * 1000;
  const [y, mo, d, h, mi, s] = wallClock(whole, zone) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return Date.UTC(y, mo - 1, d, h, mi, s) - whole;
}

/** The calendar date (`YYYY-MM-DD`) an instant falls on in `zone`. */
export function dateInZone(instant: string | Date, zone: string): string {
  const ms = typeof instant === "string" ? Date.parse(instant) : instant.getTime();
  return new Date(ms + zoneOffsetMs(ms, zone)).toISOString().slice(0, 10);
}

/** An instant as the wall-clock time it shows in `zone`, `YYYY-MM-DDTHH:MM` (a form's value). */
export function wallTimeInZone(instant: string, zone: string): string {
  const ms = Date.parse(instant);
  return new Date(ms + zoneOffsetMs(ms, zone)).toISOString().slice(0, 16);
}

const WALL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?$/;

/**
 * The UTC instant (ISO 8601 with `Z`) that a wall-clock time `YYYY-MM-DDTHH:MM[:SS[.mmm]]`
 * means in `zone`, or null when the text is not such a time.
 *
 * Around a daylight-saving change a wall-clock time can name no instant or two:
 * - in the gap when clocks jump forward (02:30 on 8 March 2026 in New York), the time moves
 *   forward by the length of the gap (03:30 EDT), as a clock that was not yet turned would
 *   read it;
 * - in the overlap when clocks fall back (01:30 on 1 November 2026 in New York happens
 *   twice), it is the earlier of the two instants (01:30 EDT, not EST).
 */
export function wallTimeToUtc(wall: string, zone: string): string | null {
  const m = WALL.exec(wall);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map((v) => Number(v ?? 0)) as number[];
  const naive = Date.UTC(y!, mo! - 1, d!, h!, mi!, s!, m[7] ? Number(m[7].padEnd(3, "0")) : 0);
  // Date.UTC rolls 2026-02-30 over into March: such a text is no time at all.
  const shown = `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}`;
  if (Number.isNaN(naive) || new Date(naive).toISOString().slice(0, 16) !== shown) return null;
  // The offsets in force a day and a half either side cover any one change of the clocks.
  const before = zoneOffsetMs(naive - 36 * HOUR_MS, zone);
  const after = zoneOffsetMs(naive + 36 * HOUR_MS, zone);
  const fits = [before, after]
    .map((offset) => naive - offset)
    .filter((instant) => instant + zoneOffsetMs(instant, zone) === naive)
    .sort((a, b) => a - b);
  // No instant fits: a time in the gap, read with the offset before the change.
  const instant = fits[0] ?? naive - before;
  return new Date(instant).toISOString();
}

/** The instant a calendar date begins in `zone` (its first moment, if midnight is skipped). */
export function startOfDayInZone(date: string, zone: string): string {
  return wallTimeToUtc(`${date}T00:00`, zone)!;
}

/** Today's date in `zone` by the instant `now`. */
export function todayInZone(now: Date, zone: string): string {
  return dateInZone(now, zone);
}
