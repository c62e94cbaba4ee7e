/**
 * Email verification: a signed-in person asks for a link, mailed to their address
 * (`BASE_URL/verify-email/{token}`, 24 hours, once); opening it marks the address verified.
 * Without mail there is nothing to send: `mail_off`. At most 3 such mails per account within
 * an hour.
 */
import {
  insertAccountLink,
  pruneAccountLinks,
  useAccountLink,
} from "../../db/identity/account_links.ts";
import type { Engine } from "../../db/kernel/engine.ts";
import { findUserById, setEmailVerified } from "../../db/accounts/users.ts";
import type { Actor } from "../accounts/accounts.ts";
import { newLinkToken } from "../accounts/link_tokens.ts";
import { UseLimit } from "../accounts/throttle.ts";
import type { Clock } from "../kernel/clock.ts";
import { DomainError } from "../kernel/errors.ts";
import { queueMail } from "../mail/outbox.ts";
import { type LinkMail, PRUNE_BATCH, readerOf, workingLink } from "./links.ts";
import { verifyMail } from "./templates.ts";
import { audit, type RequestMeta } from "../accounts/audit.ts";

/** How long a verification link works. */
export const VERIFY_LINK_MS = 24 * 60 * 60_000;
/** Verification mails per account within an hour. */
export const VERIFY_MAILS_PER_ACCOUNT = 3;

/** Creates the email verification operations. */
export function createEmailVerification(deps: {
  db: Engine;
  clock: Clock;
  /** How links are mailed; null when mail is off. */
  mail: LinkMail | null;
}) {
  const { db, clock, mail } = deps;
  const perAccount = new UseLimit(
    db,
    clock,
    "verify_account",
    VERIFY_MAILS_PER_ACCOUNT,
    60 * 60_000,
  );
  return {
    /**
     * Mails the caller a verification link. `mail_off` without mail, `conflict` when the
     * address is verified already, `rate_limited` past the hourly allowance.
     */
    async request(actor: Actor): Promise<void> {
      if (mail === null) {
        throw new DomainError("mail_off", "Cannot send a verification mail: mail is off");
      }
      const user = await findUserById(db, actor.id);
      if (!user) throw new DomainError("unauthenticated", "Not logged in");
      if (user.emailVerified) {
        throw new DomainError("conflict", "The email address is verified already");
      }
      const wait = await perAccount.take(`user:${user.id}`);
      if (wait > 0) {
        throw new DomainError("rate_limited", "Too many verification mails; try again later", {
          retryAfter: Math.ceil(wait / 1000),
        });
      }
      const { token, hash } = newLinkToken();
      const now = clock.now();
      const at = now.toISOString();
      const expiresAt = new Date(now.getTime() + VERIFY_LINK_MS).toISOString();
      await db.transaction(async (tx) => {
        await pruneAccountLinks(tx, at, PRUNE_BATCH);
        await insertAccountLink(tx, {
          tokenHash: hash,
          userId: user.id,
          kind: "verify",
          mailed: true,
          createdAt: at,
          expiresAt,
        });
        const url = `${mail.baseUrl}/verify-email/${token}`;
        await queueMail(
          tx,
          { to: user.email, kind: "verify_email", ...verifyMail(readerOf(user), url, expiresAt) },
          { now, host: mail.host },
        );
      });
      mail.onQueued();
    },

    /**
     * Opens verification link `token`: the account's address becomes verified. False for a
     * link that does not work (unknown, used, expired, its account disabled), one answer.
     */
    async verify(token: string, meta: RequestMeta): Promise<boolean> {
      const link = await workingLink(db, token, "verify", clock.now().toISOString());
      if (!link) return false;
      const user = await findUserById(db, link.userId);
      if (!user || user.status !== "active") return false;
      return await db.transaction(async (tx) => {
        const at = clock.now().toISOString();
        if (!await useAccountLink(tx, link.id, at)) return false;
        await setEmailVerified(tx, user.id, true, at);
        await audit(tx, meta, at, {
          action: "auth.email_verified",
          actorId: user.id,
          target: { type: "user", id: user.id },
        });
        return true;
      });
    },
  };
}

/** The email verification operations' type. */
export type EmailVerification = ReturnType<typeof createEmailVerification>;
