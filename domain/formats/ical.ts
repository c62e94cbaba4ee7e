/**
 * Writing iCalendar (RFC 5545) by hand: the format is small and these few functions are fully
 * tested, where a library would bring time-zone machinery we do not use. Everything is UTC
 * (`...Z`) or a whole date (`VALUE=DATE`), so no `VTIMEZONE` is ever needed. Content lines end
 * with CRLF and are folded at 75 octets, never inside a UTF-8 sequence.
 */

/** The longest content line, in octets, without its CRLF (RFC 5545 §3.1). */
export const MAX_LINE_OCTETS = 75;
const CRLF = "\r\n";

/**
 * What TEXT escapes (`\`, `;`, `,`, line breaks as `\n`) or drops (control characters but
 * HTAB), by ASCII code; undefined: kept as it is.
 */
const TEXT_ESCAPES: Array<string | undefined> = Array.from({ length: 128 }, (_, code) => {
  if (code === 0x5c) return "\\\\";
  if (code === 0x3b) return "\\;";
  if (code === 0x2c) return "\\,";
  if (code === 0x0a || code === 0x0d) return "\\n";
  if (code === 0x09) return undefined;
  return code < 0x20 || code === 0x7f ? "" : undefined;
});

/** A TEXT value: `\`, `;`, `,` escaped, every line break as `\n`, other controls dropped. */
export function escapeText(value: string): string {
  // One pass by hand: feeds escape every title, and this is several times faster than
  // regular expressions.
  let out = "";
  let last = 0;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code >= 128) continue;
    const replacement = TEXT_ESCAPES[code];
    if (replacement === undefined) continue;
    out += value.slice(last, i) + replacement;
    if (code === 0x0d && value.charCodeAt(i + 1) === 0x0a) i++; // CRLF is one line break
    last = i + 1;
  }
  return last === 0 ? value : out + value.slice(last);
}

/**
 * A parameter value, always quoted: a quoted value may hold `:`, `;` and `,`, but no DQUOTE
 * and no control character (RFC 5545 §3.1 QSAFE-CHAR), so those are replaced or dropped.
 */
export function paramValue(value: string): string {
  // deno-lint-ignore no-control-regex
  return `"${value.replace(/[\x00-\x08\x0A-\x1F\x7F]/g, " ").replace(/"/g, "'")}"`;
}

const NON_ASCII = /[\u0080-\uffff]/;

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
  // Most lines are short: at most 3 octets per UTF-16 unit, so 25 units always fit, and
  // 75 units fit when they are all ASCII.
  if (line.length <= 25 || (line.length <= MAX_LINE_OCTETS && !NON_ASCII.test(line))) {
    return line + CRLF;
  }
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

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * The DATE value of the day after `date` (`YYYY-MM-DD`): an all-day item's exclusive `DTEND`.
 * Plain arithmetic, no `Date` objects: a feed computes one per item.
 */
export function nextDateValue(date: string): string {
  let year = Number(date.slice(0, 4));
  let month = Number(date.slice(5, 7));
  let day = Number(date.slice(8, 10)) + 1;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (day > (month === 2 && leap ? 29 : MONTH_DAYS[month - 1]!)) {
    day = 1;
    if (++month > 12) {
      month = 1;
      year++;
    }
  }
  return String(year).padStart(4, "0") + (month < 10 ? "0" : "") + month + (day < 10 ? "0" : "") +
    day;
}

/** An ISO 8601 UTC instant as a UTC DATE-TIME (`YYYYMMDDTHHMMSSZ`; milliseconds dropped). */
export function instantValue(iso: string): string {
  return `${dateValue(iso)}T${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
}

/** A `mailto:` URI for a calendar address (`ORGANIZER`, `ATTENDEE`). */
export function mailto(email: string): string {
  return `mailto:${encodeURI(email).replace(/[;,?]/g, (c) => encodeURIComponent(c))}`;
}
