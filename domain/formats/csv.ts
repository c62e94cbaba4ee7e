/**
 * CSV as RFC 4180 writes it: records end with CRLF, a field holding a comma, a double quote, a
 * CR or a LF is quoted, and a double quote inside a quoted field is doubled.
 *
 * A text field a spreadsheet would run as a formula (its first character `=`, `+`, `-` or `@`)
 * is prefixed with `'`, which spreadsheets show as text. Only text passes through that rule:
 * numbers are written by `csvNumber` as they are, never prefixed, because a `'` would turn a
 * negative number into text and a number is never run as a formula (the loan history's amounts
 * and ids are positive anyway).
 */

const FORMULA_START = /^[=+\-@]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** A text field: neutralised when it starts like a formula, quoted when it must be. */
export function csvText(value: string): string {
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** A numeric field, as JavaScript writes the number. */
export function csvNumber(value: number): string {
  return String(value);
}

/** One record: the fields joined with commas, ended by CRLF. */
export function csvRecord(fields: readonly string[]): string {
  return `${fields.join(",")}\r\n`;
}
