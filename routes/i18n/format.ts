/**
 * Dates, times and sizes in the reader's language. Every time is shown in UTC, the zone calendar
 * dates count in; a calendar date (`YYYY-MM-DD`) is a whole UTC day.
 */
import { lastDayOf, utcDay } from "../../domain/days.ts";
import type { Locale } from "./i18n.ts";

/** The `Intl` locale of an interface language. */
export function intlLocale(locale: Locale | string): string {
  return locale === "ja" ? "ja-JP" : "en-GB";
}

/** An instant, or a calendar date's UTC midnight, as `options` say, in the reader's language. */
export function formatUtc(
  when: string,
  locale: Locale | string,
  options: Intl.DateTimeFormatOptions,
): string {
  const date = new Date(when.length === 10 ? `${when}T00:00:00Z` : when);
  return new Intl.DateTimeFormat(intlLocale(locale), { ...options, timeZone: "UTC" }).format(date);
}

/** A calendar date (`YYYY-MM-DD`) in the reader's language. */
export function formatDay(date: string, locale: Locale | string): string {
  return formatUtc(date, locale, { dateStyle: "medium" });
}

/** The UTC time of day of an instant, `09:30`. */
export function formatTime(iso: string, locale: Locale | string): string {
  return formatUtc(iso, locale, { timeStyle: "short" });
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

/** An instant as a date and a time. */
export function formatDateTime(iso: string, locale: Locale | string): string {
  return formatUtc(iso, locale, { dateStyle: "medium", timeStyle: "short" });
}

/** A byte count for people: "980 B", "12.5 kB", "3.1 MB". */
export function formatSize(bytes: number, locale: string): string {
  const units = ["B", "kB", "MB", "GB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  const number = new Intl.NumberFormat(intlLocale(locale), {
    maximumFractionDigits: unit === 0 ? 0 : 1,
  }).format(value);
  return `${number} ${units[unit]}`;
}
