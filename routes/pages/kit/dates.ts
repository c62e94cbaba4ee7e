/**
 * Dates and times read from page forms and the page's today. Instants are ISO 8601 UTC with
 * `Z`; calendar dates are `YYYY-MM-DD` and count as whole UTC days; every time is entered in
 * UTC. (Showing them: `i18n/format.ts`.)
 */
import type { Services } from "../../../domain/services.ts";

/** What `<input type="datetime-local">` sends: no zone (read as UTC here). */
const LOCAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/;

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
