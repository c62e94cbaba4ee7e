/**
 * Dates and times read from page forms and the page's today, in the viewer's time zone.
 * Instants are ISO 8601 UTC with `Z`; calendar dates are `YYYY-MM-DD` and stay dates. A time
 * typed into a form is a wall-clock time in the viewer's zone (`domain/kernel/time_zones.ts` says how
 * a time in a daylight-saving gap or overlap is read). (Showing them: `i18n/format.ts`.)
 */
import type { Services } from "../../../domain/services.ts";
import { todayInZone, wallTimeInZone, wallTimeToUtc } from "../../../domain/kernel/time_zones.ts";

/** An instant as the value of a `datetime-local` input: its wall-clock time in `zone`. */
export function inputValue(iso: string, zone: string): string {
  return wallTimeInZone(iso, zone);
}

/**
 * A `datetime-local` value read as a wall-clock time in `zone`, for the domain to judge; blank
 * is left out (the schema then says the field is required), and text that is no such time is
 * passed on as typed (the domain refuses it).
 */
export function readInstant(raw: string | undefined, zone: string): string | undefined {
  const value = (raw ?? "").trim();
  if (value === "") return undefined;
  return wallTimeToUtc(value, zone) ?? value;
}

/** Today's date in `zone` by the services' clock. */
export function todayOf(services: Services, zone: string): string {
  return todayInZone(services.clock.now(), zone);
}
