/** Escaping for the XML this server writes. */

const TEXT_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  "\r": "&#13;",
};
const ATTRIBUTE_ESCAPES: Record<string, string> = {
  ...TEXT_ESCAPES,
  '"': "&quot;",
  "'": "&apos;",
  "\n": "&#10;",
  "\t": "&#9;",
};

/**
 * Escapes character data as JAX-WS does: `&`, `<`, `>`, and a carriage return as `&#13;`
 * (a reader turns a raw one into a line feed); the rest is written as is.
 */
export function escapeText(text: string): string {
  return /[&<>\r]/.test(text) ? text.replace(/[&<>\r]/g, (c) => TEXT_ESCAPES[c]!) : text;
}

/**
 * Escapes a double-quoted attribute value; line breaks and tabs too, which a reader would
 * otherwise turn into spaces.
 */
export function escapeAttribute(text: string): string {
  return text.replace(/[&<>"'\r\n\t]/g, (c) => ATTRIBUTE_ESCAPES[c]!);
}
