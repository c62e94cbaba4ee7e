/**
 * Writing iCalendar (RFC 5545) by hand: the format is small and these few functions are fully
 * tested, where a library would bring time-zone machinery we do not use. Everything is UTC
 * (`...Z`) or a whole date (`VALUE=DATE`), so no `VTIMEZONE` is ever needed. Content lines end
 * with CRLF and are folded at 75 octets, never inside a UTF-8 sequence.
 */

/** The longest content line, in octets, without its CRLF (RFC 5545 §3.1). */
export const MAX_LINE_OCTETS = 75;
const CRLF = "\r\n";

/** Control characters TEXT may not hold (HTAB is allowed; line breaks are escaped as `\n`). */
// deno-lint-ignore no-control-regex
const CONTROLS = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F]/g;

/** A TEXT value: `\`, `;`, `,` escaped, every line break as `\n`, other controls dropped. */
export function escapeText(value: string): string {
  return value
    .replace(CONTROLS, "")
    .replace(/\\/g, "\\\\")
    .replace(/;/g, "\\;")
    .replace(/,/g, "\\,")
    .replace(/\r\n|\r|\n/g, "\\n");
}

/**
 * A parameter value, always quoted: a quoted value may hold `:`, `;` and `,`, but no DQUOTE
 * and no control character (RFC 5545 §3.1 QSAFE-CHAR), so those are replaced or dropped.
 */
export function paramValue(value: string): string {
  // deno-lint-ignore no-control-regex
  return `"${value.replace(/[\x00-\x08\x0A-\x1F\x7F]/g, " ").replace(/"/g, "'")}"`;
}

/** The octets a code point takes in UTF-8. */
function utf8Length(codePoint: number): number {
  return codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
}

/**
 * Folds one content line (RFC 5545 §3.1): no physical line over 75 octets; each continuation
 * starts with one space, which counts. Breaks fall between code points, so a UTF-8 sequence
 * (a Japanese character, an emoji) is never split. Returns the line with its CRLF.
 */
export function foldLine(line: string): string {
  // Most lines are short: at most 3 octets per UTF-16 unit, so 25 units always fit.
  if (line.length <= 25) return line + CRLF;
  let out = "";
  let start = 0;
  let octets = 0;
  let limit = MAX_LINE_OCTETS;
  let i = 0;
  while (i < line.length) {
    const codePoint = line.codePointAt(i)!;
    const units = codePoint > 0xffff ? 2 : 1;
    const size = utf8Length(codePoint);
    if (octets + size > limit) {
      out += line.slice(start, i) + CRLF + " ";
      start = i;
      octets = 1;
      limit = MAX_LINE_OCTETS;
    }
    octets += size;
    i += units;
  }
  return out + line.slice(start) + CRLF;
}

/** One property: its name, its parameters (already valid) and its value (already encoded). */
export function contentLine(
  name: string,
  value: string,
  params: ReadonlyArray<readonly [string, string]> = [],
): string {
  let head = name;
  for (const [key, param] of params) head += `;${key}=${param}`;
  return foldLine(`${head}:${value}`);
}

/** A `YYYY-MM-DD` date as a DATE value (`YYYYMMDD`). */
export function dateValue(date: string): string {
  return date.slice(0, 4) + date.slice(5, 7) + date.slice(8, 10);
}

/** An ISO 8601 UTC instant as a UTC DATE-TIME (`YYYYMMDDTHHMMSSZ`; milliseconds dropped). */
export function instantValue(iso: string): string {
  return `${dateValue(iso)}T${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
}

/** A `mailto:` URI for a calendar address (`ORGANIZER`, `ATTENDEE`). */
export function mailto(email: string): string {
  return `mailto:${encodeURI(email).replace(/[;,?]/g, (c) => encodeURIComponent(c))}`;
}
