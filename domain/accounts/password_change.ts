/**
 * Changing one's password (signed in with a session, knowing the current password). It
 * hashes twice, so it is throttled before any hashing as logins are: per account and per
 * client address. A change revokes every API token of the account and ends its other
 * sessions: a password is changed when it may have leaked, and what was opened with it goes.
 */
import { deleteUserApiTokens, listApiTokens } from "../../db/accounts/api_tokens.ts";
import { deleteOtherUserSessions } from "../../db/accounts/sessions.ts";
import type { Engine, Queries } from "../../db/kernel/engine.ts";
import { findUserById, setPasswordHash } from "../../db/accounts/users.ts";
import type { Actor } from "./accounts.ts";
import type { Clock } from "../kernel/clock.ts";
import { DomainError, invalid } from "../kernel/errors.ts";
import type { PasswordHasher } from "./passwords.ts";
import type { LoginThrottle } from "./throttle.ts";
import { audit, type RequestMeta } from "./audit.ts";

/** What a new password ends: the revoked API tokens' ids and the ended sessions' hashes. */
export interface EndedAccess {
  tokenIds: number[];
  sessionIdHashes: string[];
}

/**
 * Revokes every API token of user `userId` and ends their sessions but `keepSessionIdHash`
 * (null: every one), in the caller's transaction: what a new password does to what the old
 * one opened (a change here, a reset in `domain/identity/`).
 */
export async function endAccess(
  tx: Queries,
  userId: number,
  keepSessionIdHash: string | null,
): Promise<EndedAccess> {
  const tokenIds = (await listApiTokens(tx, userId)).map((t) => t.id);
  await deleteUserApiTokens(tx, userId);
  // No session's hash is empty: keeping "" keeps none.
  const sessionIdHashes = await deleteOtherUserSessions(tx, userId, keepSessionIdHash ?? "");
  return { tokenIds, sessionIdHashes };
}

/** What a password change needs. */
export interface PasswordChangeDeps {
  db: Engine;
  clock: Clock;
  hasher: PasswordHasher;
  /** A throttle of its own (failures here do not lock the account's login). */
  throttle: LoginThrottle;
  /** Called after the change with the revoked tokens and the ended sessions. */
  onChanged?: (ended: EndedAccess) => void;
}

/** Creates the password change operation. */
export function createPasswordChange(deps: PasswordChangeDeps) {
  const { db, clock, hasher } = deps;
  return {
    /**
     * Sets a new password for the caller, whose session `sessionIdHash` stays. A wrong current
     * password is `validation` on `currentPassword` (not 401: the session is fine).
     */
    async change(
      actor: Actor,
      sessionIdHash: string,
      input: { currentPassword: string; newPassword: string },
      meta: RequestMeta,
    ): Promise<void> {
      const user = await findUserById(db, actor.id);
      if (!user) throw new DomainError("unauthenticated", "Not logged in");
      let attempt;
      try {
        attempt = await deps.throttle.begin(`user:${user.id}`, meta.clientAddress ?? "local");
      } catch (error) {
        if (error instanceof DomainError && error.code === "rate_limited") {
          throw new DomainError(
            "rate_limited",
            "Cannot change the password now: too many wrong current passwords; try again later",
            error.retryAfter === undefined ? {} : { retryAfter: error.retryAfter },
          );
        }
        throw error;
      }
      let hash: string;
      try {
        if (!await hasher.verify(input.currentPassword, user.passwordHash)) {
          await attempt.failed();
          throw invalid("currentPassword", "Cannot change the password: the current one is wrong");
        }
        hash = await hasher.hash(input.newPassword);
      } catch (error) {
        // A busy hasher checked nothing: the attempt neither failed nor succeeded.
        const busy = error instanceof DomainError && error.code === "rate_limited";
        await (busy ? attempt.abandoned() : attempt.failed());
        throw error;
      }
      await attempt.succeeded();
      // Both hashes are done: the transaction awaits only its own queries.
      const ended = await db.transaction(async (tx) => {
        const at = clock.now().toISOString();
        await setPasswordHash(tx, user.id, hash, at);
        const ended = await endAccess(tx, user.id, sessionIdHash);
        await audit(tx, meta, at, {
          action: "auth.password_changed",
          actorId: user.id,
          target: { type: "user", id: user.id },
          details: {
            tokensRevoked: ended.tokenIds.length,
            sessionsEnded: ended.sessionIdHashes.length,
          },
        });
        return ended;
      });
      deps.onChanged?.(ended);
    },
  };
}

/** The password change operation's type. */
export type PasswordChange = ReturnType<typeof createPasswordChange>;
