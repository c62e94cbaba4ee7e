/**
 * Dates and times on pages. Instants are ISO 8601 UTC with `Z`; calendar dates are
 * `YYYY-MM-DD` and count as whole UTC days; every time is shown and entered in UTC.
 */
import { utcDay } from "../../../domain/calendar.ts";
import type { Services } from "../../../domain/services.ts";
import { formatDateTime, type Locale } from "../../i18n/i18n.ts";

/** A calendar date, `YYYY-MM-DD`. */
export const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** What `<input type="datetime-local">` sends: no zone (read as UTC here). */
const LOCAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/;

/** The `Intl` locale of an interface language. */
export function intlLocale(locale: Locale | string): string {
  return locale === "ja" ? "ja-JP" : "en-GB";
}

/** A calendar date (`YYYY-MM-DD`) in the reader's language. */
export function formatDay(date: string, locale: Locale | string): string {
  return new Intl.DateTimeFormat(intlLocale(locale), { dateStyle: "medium", timeZone: "UTC" })
    .format(new Date(`${date}T00:00:00Z`));
}

/** The UTC time of day of an instant, `09:30`. */
export function formatTime(iso: string, locale: Locale | string): string {
  return new Intl.DateTimeFormat(intlLocale(locale), { timeStyle: "short", timeZone: "UTC" })
    .format(new Date(iso));
}

/** The last UTC day an instant range reaches (`end` is exclusive; an empty range is its start). */
export function lastDayOf(start: string, end: string): string {
  const endMs = Date.parse(end);
  return endMs > Date.parse(start) ? utcDay(new Date(endMs - 1).toISOString()) : utcDay(start);
}

/** A span for people: dates, an all-day range, or times (UTC). */
export function formatSpan(
  span: { start: string; end: string; allDay: boolean },
  locale: Locale,
): string {
  const { start, end } = span;
  if (start.length === 10 || span.allDay) {
    const first = start.slice(0, 10);
    const last = end.length === 10 ? end : lastDayOf(start, end);
    return first === last
      ? formatDay(first, locale)
      : `${formatDay(first, locale)} – ${formatDay(last, locale)}`;
  }
  if (start === end) return formatDateTime(start, locale);
  return utcDay(start) === utcDay(end)
    ? `${formatDateTime(start, locale)} – ${formatTime(end, locale)}`
    : `${formatDateTime(start, locale)} – ${formatDateTime(end, locale)}`;
}

/** An instant as the value of a `datetime-local` input (UTC). */
export function inputValue(iso: string): string {
  return iso.slice(0, 16);
}

/**
 * A `datetime-local` value read as UTC, for the domain to judge; blank is left out (the
 * schema then says the field is required).
 */
export function readInstant(raw: string | undefined): string | undefined {
  const value = (raw ?? "").trim();
  if (value === "") return undefined;
  return LOCAL.test(value) ? `${value}Z` : value;
}

/** Today's UTC date by the services' clock. */
export function todayOf(services: Services): string {
  return services.clock.now().toISOString().slice(0, 10);
}
