/**
 * Queueing a mail: it is written to the outbox in the caller's transaction (so it goes if and
 * only if what caused it commits), with a Message-ID of its own that every attempt reuses.
 * Header injection is impossible: the address must be one plain address, and the subject and
 * every extra header value lose their control characters (CR and LF among them).
 */
import type { Queries } from "../../db/kernel/engine.ts";
import { insertMail } from "../../db/mail/outbox.ts";
import { invalid } from "../kernel/errors.ts";
import { hasControl, headerValue, isMailAddress } from "./address.ts";

/** A mail to queue. */
export interface MailDraft {
  to: string;
  /** What the mail is (`test`, `invitation`…): the admin's list shows it. */
  kind: string;
  subject: string;
  text: string;
  html: string;
  /** Extra header lines (`In-Reply-To`, `References`…), name to value. */
  headers?: Record<string, string>;
}

/** A header name as RFC 5322 allows it (printable, no colon), and not one the sender sets. */
const HEADER_NAME = /^[!-9;-~]{1,76}$/;
const RESERVED = new Set([
  "from",
  "to",
  "cc",
  "bcc",
  "subject",
  "message-id",
  "date",
  "auto-submitted",
  "content-type",
  "content-transfer-encoding",
  "mime-version",
]);

/**
 * Writes `draft` to the outbox inside `tx`, due now; returns its id and Message-ID
 * (`<random@host>`, `host` the BASE_URL host name without port). Throws `validation` for a
 * malformed address or header name.
 */
export async function queueMail(
  tx: Queries,
  draft: MailDraft,
  options: { now: Date; host: string },
): Promise<{ id: number; messageId: string }> {
  const to = draft.to.trim();
  if (!isMailAddress(to)) throw invalid("to", "Use one address like name@example.org");
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(draft.headers ?? {})) {
    if (!HEADER_NAME.test(name) || RESERVED.has(name.toLowerCase())) {
      throw invalid("headers", `Not an allowed header name: ${JSON.stringify(name)}`);
    }
    headers[name] = headerValue(value);
  }
  if (hasControl(options.host) || !/^[A-Za-z0-9.-]+$/.test(options.host)) {
    throw invalid("host", "Not a host name");
  }
  const random = Array.from(
    crypto.getRandomValues(new Uint8Array(16)),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
  const messageId = `<${random}@${options.host}>`;
  const id = await insertMail(tx, {
    to,
    kind: headerValue(draft.kind),
    subject: headerValue(draft.subject),
    text: draft.text,
    html: draft.html,
    headers,
    messageId,
    createdAt: options.now.toISOString(),
  });
  return { id, messageId };
}
