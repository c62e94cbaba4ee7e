/**
 * Dates, times and sizes in the reader's language. An instant is shown in the reader's time
 * zone (`zone`, an IANA name); a calendar date (`YYYY-MM-DD`) is a date wherever the reader is.
 */
import { lastDayOf } from "../../domain/kernel/days.ts";
import { dateInZone } from "../../domain/kernel/time_zones.ts";
import type { Locale } from "./i18n.ts";

/** The `Intl` locale of an interface language. */
export function intlLocale(locale: Locale | string): string {
  return locale === "ja" ? "ja-JP" : "en-GB";
}

/** A calendar date (its UTC midnight, so it never moves) as `options` say. */
export function formatUtc(
  when: string,
  locale: Locale | string,
  options: Intl.DateTimeFormatOptions,
): string {
  return formatInZone(when.length === 10 ? `${when}T00:00:00Z` : when, locale, "UTC", options);
}

/**
 * The formatters made so far, by language, zone and options. Making one costs far more than
 * using it (a board of 250 cards with due dates spent most of its rendering here), and a page
 * formats many dates alike; the few languages, zones and option sets in use keep this small
 * (it starts again past `FORMATTERS_MAX`).
 */
const formatters = new Map<string, Intl.DateTimeFormat>();
const FORMATTERS_MAX = 500;

/** The formatter of `zone`'s clocks as `options` say, in the reader's language (kept). */
function formatterOf(
  locale: Locale | string,
  zone: string,
  options: Intl.DateTimeFormatOptions,
): Intl.DateTimeFormat {
  const key = `${locale}\n${zone}\n${JSON.stringify(options)}`;
  let format = formatters.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(intlLocale(locale), { ...options, timeZone: zone });
    if (formatters.size >= FORMATTERS_MAX) formatters.clear();
    formatters.set(key, format);
  }
  return format;
}

/** An instant on the clocks of `zone` as `options` say, in the reader's language. */
export function formatInZone(
  iso: string,
  locale: Locale | string,
  zone: string,
  options: Intl.DateTimeFormatOptions,
): string {
  return formatterOf(locale, zone, options).format(new Date(iso));
}

/** A calendar date (`YYYY-MM-DD`) in the reader's language. */
export function formatDay(date: string, locale: Locale | string): string {
  return formatUtc(date, locale, { dateStyle: "medium" });
}

/** The time of day of an instant in `zone`, `09:30`; with `withZone`, `09:30 JST`. */
export function formatTime(
  iso: string,
  locale: Locale | string,
  zone: string,
  withZone = false,
): string {
  const time = formatInZone(iso, locale, zone, { timeStyle: "short" });
  return withZone ? `${time} ${zoneLabel(iso, locale, zone)}` : time;
}

/** An instant as a date and a time in `zone`; with `withZone`, the zone's abbreviation too. */
export function formatDateTime(
  iso: string,
  locale: Locale | string,
  zone: string,
  withZone = false,
): string {
  const text = formatInZone(iso, locale, zone, { dateStyle: "medium", timeStyle: "short" });
  return withZone ? `${text} ${zoneLabel(iso, locale, zone)}` : text;
}

/** The short name of `zone` at an instant in the reader's language: "JST", "CET", "GMT-5". */
export function zoneLabel(iso: string, locale: Locale | string, zone: string): string {
  // The formatter is kept, as the others are: a chat page of 50 messages made 50 of them.
  const parts = formatterOf(locale, zone, { timeZoneName: "short" }).formatToParts(new Date(iso));
  return parts.find((part) => part.type === "timeZoneName")?.value ?? zone;
}

/**
 * A span for people: dates, an all-day range, or times in `zone`. With `withZone`, the zone's
 * abbreviation or offset follows the end ("10:00 – 11:00 JST"): meeting times are agreed
 * between people who may live in different zones.
 */
export function formatSpan(
  span: { start: string; end: string; allDay: boolean },
  locale: Locale,
  zone: string,
  withZone = false,
): string {
  const { start, end } = span;
  if (start.length === 10 || span.allDay) {
    const first = start.slice(0, 10);
    const last = end.length === 10 ? end : lastDayOf(start, end);
    return first === last
      ? formatDay(first, locale)
      : `${formatDay(first, locale)} – ${formatDay(last, locale)}`;
  }
  if (start === end) return formatDateTime(start, locale, zone, withZone);
  return dateInZone(start, zone) === dateInZone(end, zone)
    ? `${formatDateTime(start, locale, zone)} – ${formatTime(end, locale, zone, withZone)}`
    : `${formatDateTime(start, locale, zone)} – ${formatDateTime(end, locale, zone, withZone)}`;
}

const RELATIVE_STEPS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ["second", 60],
  ["minute", 60],
  ["hour", 24],
  ["day", 7],
];

/**
 * How long before (or after) `now` an instant is, for people scanning a list: "just now" for
 * under a minute, then "3 minutes ago", "2 hours ago", "yesterday", "5 days ago"; a week or
 * more away is the date and time in `zone` instead.
 */
export function formatRelative(
  iso: string,
  now: Date,
  locale: Locale | string,
  zone: string,
): string {
  const seconds = Math.round((Date.parse(iso) - now.getTime()) / 1000);
  const format = new Intl.RelativeTimeFormat(intlLocale(locale), { numeric: "auto" });
  if (Math.abs(seconds) < 60) return format.format(0, "second");
  let value = seconds;
  for (const [unit, size] of RELATIVE_STEPS) {
    if (Math.abs(value) < size) return format.format(Math.trunc(value), unit);
    value /= size;
  }
  return formatDateTime(iso, locale, zone);
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
