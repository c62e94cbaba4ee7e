/** Escaping for the XML this server writes. */

const TEXT_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;" };
const ATTRIBUTE_ESCAPES: Record<string, string> = {
  ...TEXT_ESCAPES,
  '"': "&quot;",
  "'": "&apos;",
};

/** Escapes character data as JAX-WS does: `&`, `<` and `>`; the rest is written as is. */
export function escapeText(text: string): string {
  return /[&<>]/.test(text) ? text.replace(/[&<>]/g, (c) => TEXT_ESCAPES[c]!) : text;
}

/** Escapes a double-quoted attribute value. */
export function escapeAttribute(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ATTRIBUTE_ESCAPES[c]!);
}
