/**
 * UTC day arithmetic the planning modules share: instants are ISO 8601 UTC with `Z`, calendar
 * dates `YYYY-MM-DD`, and a date counts as a whole UTC day.
 */

const DAY_MS = 86_400_000;

/** The UTC date (`YYYY-MM-DD`) of an instant stored as ISO 8601 UTC. */
export function utcDay(instant: string): string {
  return instant.slice(0, 10);
}

/** `date` moved by `days` whole days. */
export function addDays(date: string, days: number): string {
  const moved = new Date(Date.parse(`${date}T00:00:00.000Z`) + days * DAY_MS);
  return moved.toISOString().slice(0, 10);
}

/** The last UTC day an instant range reaches (`end` is exclusive; an empty range is its start). */
export function lastDayOf(start: string, end: string): string {
  const endMs = Date.parse(end);
  return endMs > Date.parse(start) ? utcDay(new Date(endMs - 1).toISOString()) : utcDay(start);
}

/** The Monday on or before a date: weeks start on Monday. */
export function mondayOf(date: string): string {
  const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
  return addDays(date, -((weekday + 6) % 7));
}
