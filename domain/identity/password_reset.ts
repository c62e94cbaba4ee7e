/**
 * Password reset. Anyone may ask for a reset link by email address: the answer is the same,
 * and takes about the same time, whether or not an account has that address (the same work is
 * done either way: both limits counted, one lookup, one token made and hashed, one mail
 * composed, one write transaction). The link (`BASE_URL/reset-password/{token}`, 60 minutes,
 * once) goes by mail to an existing, active account only, at most 3 per address and 20
 * requests per client address within an hour. Admins can make a link for an account to pass
 * on by other means (for servers without mail); using that one proves nothing about the
 * address. A reset sets the password, ends every session, revokes every API token, ends every
 * other reset link of the account and mails "your password was changed".
 */
import {
  endAccountLinks,
  insertAccountLink,
  pruneAccountLinks,
  useAccountLink,
} from "../../db/identity/account_links.ts";
import type { Engine } from "../../db/kernel/engine.ts";
import {
  findUserByEmail,
  findUserById,
  setEmailVerified,
  setPasswordHash,
} from "../../db/accounts/users.ts";
import { type Actor, normaliseEmail } from "../accounts/accounts.ts";
import { newLinkToken } from "../accounts/link_tokens.ts";
import { endAccess, type EndedAccess } from "../accounts/password_change.ts";
import { audit, type RequestMeta } from "../accounts/audit.ts";
import type { PasswordHasher } from "../accounts/passwords.ts";
import { UseLimit } from "../accounts/throttle.ts";
import type { Clock } from "../kernel/clock.ts";
import { DomainError } from "../kernel/errors.ts";
import { queueMail } from "../mail/outbox.ts";
import { type LinkMail, PRUNE_BATCH, readerOf, workingLink } from "./links.ts";
import { passwordChangedMail, resetMail } from "./templates.ts";

/** How long a reset link works. */
export const RESET_LINK_MS = 60 * 60_000;
const HOUR_MS = 60 * 60_000;
/** Reset requests per client address within an hour. */
export const RESET_REQUESTS_PER_CLIENT = 20;
/** Reset mails per address within an hour. */
export const RESET_MAILS_PER_ADDRESS = 3;

/** The one answer for every link that does not work. */
function badLink(): DomainError {
  return new DomainError("not_found", "This reset link does not work: ask for a new one");
}

/** What password reset needs. */
export interface PasswordResetDeps {
  db: Engine;
  clock: Clock;
  hasher: PasswordHasher;
  /** How links are mailed; null when mail is off. */
  mail: LinkMail | null;
  /** Called after a reset with the revoked tokens and the ended sessions (closes streams). */
  onReset?: (ended: EndedAccess) => void;
}

/** Creates the password reset operations. */
export function createPasswordReset(deps: PasswordResetDeps) {
  const { db, clock, hasher, mail } = deps;
  const perClient = new UseLimit(
    db,
    clock,
    "reset_client",
    RESET_REQUESTS_PER_CLIENT,
    HOUR_MS,
  );
  const perAddress = new UseLimit(db, clock, "reset_address", RESET_MAILS_PER_ADDRESS, HOUR_MS);
  const linkUrl = (base: string, token: string) => `${base}/reset-password/${token}`;

  return {
    /**
     * Asks for a reset link for `email` from client address `client`. Resolves alike whether
     * or not the account exists or a limit was reached; mails the link only to an existing,
     * active account within the limits while mail is on.
     */
    async request(email: string, client: string): Promise<void> {
      const address = normaliseEmail(email);
      const clientWait = await perClient.take(client);
      // A refused client counts nothing against the address it named.
      const addressWait = clientWait > 0 ? clientWait : await perAddress.take(address);
      const user = await findUserByEmail(db, address);
      const { token, hash } = newLinkToken();
      const now = clock.now();
      const at = now.toISOString();
      const expiresAt = new Date(now.getTime() + RESET_LINK_MS).toISOString();
      // Composed whether or not it goes, for the same work either way.
      const composed = resetMail(
        user ? readerOf(user) : { locale: "en", timeZone: null, displayName: address },
        linkUrl(mail?.baseUrl ?? "", token),
        expiresAt,
      );
      const to = user?.status === "active" && clientWait === 0 && addressWait === 0 && mail
        ? user
        : null;
      await db.transaction(async (tx) => {
        await pruneAccountLinks(tx, at, PRUNE_BATCH);
        if (to === null || mail === null) return;
        await insertAccountLink(tx, {
          tokenHash: hash,
          userId: to.id,
          kind: "reset",
          mailed: true,
          createdAt: at,
          expiresAt,
        });
        await queueMail(tx, { to: to.email, kind: "password_reset", ...composed }, {
          now,
          host: mail.host,
        });
      });
      if (to !== null) mail?.onQueued();
    },

    /**
     * Sets a new password through reset link `token`. `not_found` for a link that does not
     * work (unknown, used, ended, expired, or its account disabled), one answer for all. The
     * caller checks the password's length first, so a short one leaves the link usable.
     */
    async complete(token: string, password: string, meta: RequestMeta): Promise<void> {
      const link = await workingLink(db, token, "reset", clock.now().toISOString());
      if (!link) throw badLink();
      const user = await findUserById(db, link.userId);
      if (!user || user.status !== "active") throw badLink();
      const hash = await hasher.hash(password);
      const ended = await db.transaction(async (tx) => {
        const at = clock.now().toISOString();
        // Used once: of two requests at once, one gets here.
        if (!await useAccountLink(tx, link.id, at)) throw badLink();
        await endAccountLinks(tx, user.id, "reset", at);
        await setPasswordHash(tx, user.id, hash, at);
        // An admin's link proves nothing about the address; a mailed one does.
        if (link.mailed && !user.emailVerified) await setEmailVerified(tx, user.id, true, at);
        const ended = await endAccess(tx, user.id, null);
        // Who made the link tells whether the mailbox was proven: "mail" or "admin_link".
        await audit(tx, meta, at, {
          action: "auth.password_reset",
          actorId: user.id,
          target: { type: "user", id: user.id },
          details: { via: link.mailed ? "mail" : "admin_link" },
        });
        if (mail) {
          await queueMail(
            tx,
            {
              to: user.email,
              kind: "password_changed",
              ...passwordChangedMail(readerOf(user), at),
            },
            { now: new Date(at), host: mail.host },
          );
        }
        return ended;
      });
      mail?.onQueued();
      deps.onReset?.(ended);
    },

    /**
     * Makes a reset link for user `userId` (admins only), mailed to them too while mail is on;
     * `base` is where the link points (BASE_URL, or the request's origin without it). Using it
     * does not verify the address. `not_found` for no such user; `conflict` for a disabled one.
     */
    async issue(
      actor: Actor,
      userId: number,
      base: string,
    ): Promise<{ url: string; expiresAt: string }> {
      if (actor.role !== "admin") throw new DomainError("forbidden", "Administrators only");
      const user = await findUserById(db, userId);
      if (!user) throw new DomainError("not_found", "No such user");
      if (user.status !== "active") {
        throw new DomainError("conflict", "Cannot make a reset link: the account is disabled");
      }
      const { token, hash } = newLinkToken();
      const now = clock.now();
      const at = now.toISOString();
      const expiresAt = new Date(now.getTime() + RESET_LINK_MS).toISOString();
      const url = linkUrl(mail?.baseUrl ?? base.replace(/\/+$/, ""), token);
      await db.transaction(async (tx) => {
        await pruneAccountLinks(tx, at, PRUNE_BATCH);
        await insertAccountLink(tx, {
          tokenHash: hash,
          userId: user.id,
          kind: "reset",
          mailed: false,
          createdAt: at,
          expiresAt,
        });
        if (mail) {
          await queueMail(
            tx,
            {
              to: user.email,
              kind: "password_reset",
              ...resetMail(readerOf(user), url, expiresAt),
            },
            { now, host: mail.host },
          );
        }
      });
      mail?.onQueued();
      return { url, expiresAt };
    },

    /** Whether reset link `token` works now (the reset page shows its form, or says it does not). */
    async works(token: string): Promise<boolean> {
      return (await workingLink(db, token, "reset", clock.now().toISOString())) !== null;
    },
  };
}

/** The password reset operations' type. */
export type PasswordReset = ReturnType<typeof createPasswordReset>;
