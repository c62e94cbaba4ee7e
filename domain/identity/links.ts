/**
 * What reset and verification links share: where mail goes (on or off, BASE_URL), how a token
 * from a request finds its link, and who a mail is written for.
 */
import {
  type AccountLinkKind,
  type AccountLinkRow,
  findAccountLink,
} from "../../db/identity/account_links.ts";
import type { Queries } from "../../db/kernel/engine.ts";
import type { UserRow } from "../../db/accounts/users.ts";
import { lookupHash, sameHash } from "../accounts/link_tokens.ts";
import type { MailReader } from "../mail/notification_templates.ts";

/** How links are mailed: `null` when mail is off (no `SMTP_URL`, or no `BASE_URL`). */
export interface LinkMail {
  /** BASE_URL without a trailing slash: links in mail are absolute. */
  baseUrl: string;
  /** The Message-ID host (BASE_URL's host name). */
  host: string;
  /** Called after a commit that queued mail (wakes the sender). */
  onQueued: () => void;
}

/** At most this many expired links are pruned by one write. */
export const PRUNE_BATCH = 100;

/** The recipient of an account's mail. */
export function readerOf(user: UserRow): MailReader {
  return { locale: user.locale, timeZone: user.timeZone, displayName: user.displayName };
}

/**
 * The link of `kind` that `token` opens at `now`, or null: an unknown, used, ended or expired
 * token, or one for another kind of link, alike. The stored hash is compared in constant time.
 */
export async function workingLink(
  q: Queries,
  token: string,
  kind: AccountLinkKind,
  now: string,
): Promise<AccountLinkRow | null> {
  const looked = lookupHash(token);
  if (looked === null) return null;
  const link = await findAccountLink(q, looked);
  if (!link || !sameHash(link.tokenHash, looked)) return null;
  if (link.kind !== kind || link.usedAt !== null || link.expiresAt <= now) return null;
  return link;
}
