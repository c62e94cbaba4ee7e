/**
 * Mail addresses and header values: what may go into a header, so that no input (a user's
 * name, a title, an address typed in a form) can add a header or a recipient.
 */

/**
 * An address as the outbox accepts it: `local@domain`, an unquoted local part (no spaces,
 * quotes, angle brackets, commas or controls) and a host name of letters, digits and hyphens.
 */
const ADDRESS =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** Whether `text` is one plain address (at most 254 characters). */
export function isMailAddress(text: string): boolean {
  return text.length <= 254 && ADDRESS.test(text);
}

/** Whether `text` holds a control character (CR and LF among them). */
export function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

/** A header value on one line: every control character (CR, LF, tab…) becomes a space. */
export function headerValue(text: string): string {
  let out = "";
  for (const ch of text) {
    const c = ch.charCodeAt(0);
    out += c < 0x20 || c === 0x7f ? " " : ch;
  }
  return out.replace(/ {2,}/g, " ").trim();
}

/** Whether `text` is `addr` or `Display Name <addr>`, on one line, the name without quotes or brackets. */
export function isMailbox(text: string): boolean {
  if (hasControl(text)) return false;
  if (isMailAddress(text)) return true;
  const match = /^([^"<>\\]{1,100}) <([^<>]+)>$/.exec(text);
  return match !== null && isMailAddress(match[2]!);
}
