/** Accounts: registration, login and logout, the profile, and user administration. */
import { deleteUserApiTokens } from "../../db/accounts/api_tokens.ts";
import { deleteSession, deleteUserSessions } from "../../db/accounts/sessions.ts";
import type { Engine } from "../../db/kernel/engine.ts";
import {
  countActiveAdmins,
  countUsers,
  type EmailNotifications,
  findUserByEmail,
  findUserById,
  insertUser,
  listUsers,
  mailNothingBefore,
  type Theme,
  updateUser,
  type UserRow,
} from "../../db/accounts/users.ts";
import type { LocalLogin, RegistrationMode } from "../config.ts";
import type { Clock } from "../kernel/clock.ts";
import { DomainError, invalid } from "../kernel/errors.ts";
import type { PasswordHasher } from "./passwords.ts";
import type { Sessions } from "./sessions.ts";
import type { LoginThrottle, RegistrationThrottle } from "./throttle.ts";
import { audit, type RequestMeta } from "./audit.ts";
import { canonicalTimeZone, DEFAULT_TIME_ZONE } from "../kernel/time_zones.ts";

export type { EmailNotifications, Theme };

/** A user as the API shows it: never a hash. */
export interface PublicUser {
  id: number;
  email: string;
  displayName: string;
  role: "admin" | "member";
  status: "active" | "disabled";
  theme: Theme;
  locale: "en" | "ja";
  /** An IANA zone name; `UTC` until the person chooses one. */
  timeZone: string;
  /** Which notifications are mailed (`immediate` until the person chooses). */
  emailNotifications: EmailNotifications;
  /** The hour (0–23) of the daily digest, in `timeZone`. */
  digestHour: number;
  /** Whether the owner has shown they read this address's mail (or an invitation made it). */
  emailVerified: boolean;
  /** Whether an admin lets this user run the loan console (admins may without it). */
  loanOfficer: boolean;
  createdAt: string;
}

/** The caller of a domain operation. */
export interface Actor {
  id: number;
  role: "admin" | "member";
}

/** Strips a stored user down to its public fields. */
export function publicUser(u: UserRow): PublicUser {
  return {
    id: u.id,
    email: u.email,
    displayName: u.displayName,
    role: u.role,
    status: u.status,
    theme: u.theme,
    locale: u.locale,
    timeZone: u.timeZone ?? DEFAULT_TIME_ZONE,
    emailNotifications: u.emailNotifications,
    digestHour: u.digestHour,
    emailVerified: u.emailVerified,
    loanOfficer: u.loanOfficer,
    createdAt: u.createdAt,
  };
}

/** Lower-cases and trims an email address. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** What accounts need. */
export interface AccountDeps {
  db: Engine;
  clock: Clock;
  hasher: PasswordHasher;
  throttle: LoginThrottle;
  registrations: RegistrationThrottle;
  sessions: Sessions;
  /** Called when a user's sessions end (to close their event streams). */
  onSessionsEnded?: (userId: number) => void;
  /** Called after one session ended (logout). */
  onSessionEnded?: (sessionIdHash: string) => void;
  /** Called after a user stopped being an admin (they see only their own projects now). */
  onAdminRightsLost?: (userId: number) => void | Promise<void>;
  /** Who may register (`REGISTRATION`; default `open`). */
  registration?: RegistrationMode;
  /** With `open`: the email domains allowed, lower case (`REGISTRATION_DOMAINS`); empty: any. */
  registrationDomains?: readonly string[];
  /** Who may sign in with a password (`LOCAL_LOGIN`; default `on`). */
  localLogin?: LocalLogin;
}

/**
 * Throws unless `email` may register now: the first account of an empty server always may;
 * after it, `registration_closed` unless registration is `open`, and `registration_domain`
 * for an email whose domain is not listed (when domains are listed).
 */
export function checkRegistration(
  policy: { mode: RegistrationMode; domains: readonly string[] },
  email: string,
  usersSoFar: number,
): void {
  if (usersSoFar === 0) return;
  if (policy.mode !== "open") {
    throw new DomainError("registration_closed", "Registration is by invitation only");
  }
  const domain = email.slice(email.lastIndexOf("@") + 1);
  if (policy.domains.length > 0 && !policy.domains.includes(domain)) {
    throw new DomainError(
      "registration_domain",
      "Accounts cannot be registered with this email domain",
    );
  }
}

/** A user together with a new session's cookie value. */
export interface LoggedIn {
  user: PublicUser;
  cookie: string;
}

const LOGIN_FAILED = "Invalid email or password";

/** The fields an admin changes on a user, each audited as its own action when it changed. */
const AUDITED_USER_FIELDS = [
  ["role", "user.role_changed"],
  ["status", "user.status_changed"],
  ["loanOfficer", "user.loan_officer_changed"],
] as const;

/** The account operations. */
export function createAccounts(deps: AccountDeps) {
  const { db, clock } = deps;
  const policy = {
    mode: deps.registration ?? "open",
    domains: deps.registrationDomains ?? [],
  };

  function requireAdmin(actor: Actor): void {
    if (actor.role !== "admin") throw new DomainError("forbidden", "Administrators only");
  }

  return {
    /**
     * Creates an account (the very first one is an admin) and logs it in. Accepted
     * registrations are limited per client `address` (checked before any hashing).
     */
    async register(
      input: { email: string; password: string; displayName: string },
      address: string,
    ): Promise<LoggedIn> {
      const email = normaliseEmail(input.email);
      const displayName = input.displayName.trim();
      if (!displayName) throw invalid("displayName", "Display name cannot be blank");
      // Refused before the throttle and any hashing; checked again where the account is made.
      checkRegistration(policy, email, await countUsers(db));
      const attempt = await deps.registrations.begin(address);
      let user: UserRow | null;
      try {
        if (await findUserByEmail(db, email)) {
          throw new DomainError("conflict", "An account with this email already exists");
        }
        // Hashed before the transaction: a transaction awaits only its own queries.
        const passwordHash = await deps.hasher.hash(input.password);
        user = await db.transaction(async (tx) => {
          const usersSoFar = await countUsers(tx);
          checkRegistration(policy, email, usersSoFar);
          return await insertUser(tx, {
            email,
            displayName,
            passwordHash,
            role: usersSoFar === 0 ? "admin" : "member",
            createdAt: clock.now().toISOString(),
          });
        });
      } catch (error) {
        await attempt.abandoned();
        throw error;
      }
      if (!user) {
        await attempt.abandoned();
        throw new DomainError("conflict", "An account with this email already exists");
      }
      await attempt.accepted();
      return { user: publicUser(user), cookie: await deps.sessions.issue(user.id) };
    },

    /**
     * Whether registering works now: `open` on an empty server (its first account), else
     * `REGISTRATION` (the register page says why it does not).
     */
    async registration(): Promise<RegistrationMode> {
      return (await countUsers(db)) === 0 ? "open" : policy.mode;
    },

    /**
     * Checks credentials (throttled before any hashing) and starts a new session. Both
     * outcomes are audited: a failure with the email tried (never the password), in the
     * transaction that counts it against the throttle, so failures recorded are bounded by
     * the throttle's limits (a refused attempt is neither checked nor recorded).
     */
    async login(input: { email: string; password: string }, meta: RequestMeta): Promise<LoggedIn> {
      const localLogin = deps.localLogin ?? "on";
      if (localLogin === "off") {
        throw new DomainError("local_login_off", "Sign in with single sign-on");
      }
      const email = normaliseEmail(input.email);
      const attempt = await deps.throttle.begin(email, meta.clientAddress ?? "local");
      let ok = false;
      let user: UserRow | null = null;
      try {
        user = await findUserByEmail(db, email);
        ok = user
          ? await deps.hasher.verify(input.password, user.passwordHash)
          : (await deps.hasher.burn(input.password), false);
      } catch (error) {
        // A busy hasher checked nothing: the attempt neither failed nor succeeded.
        const busy = error instanceof DomainError && error.code === "rate_limited";
        await (busy ? attempt.abandoned() : attempt.failed());
        throw error;
      }
      if (!user || !ok || user.status !== "active") {
        const reason = !user ? "unknown_email" : !ok ? "wrong_password" : "disabled";
        await attempt.failed((tx) =>
          audit(tx, meta, clock.now().toISOString(), {
            action: "auth.login_failed",
            actorId: null,
            actorEmail: email.slice(0, 254),
            details: { reason },
          })
        );
        throw new DomainError("unauthenticated", LOGIN_FAILED);
      }
      await attempt.succeeded();
      if (localLogin === "admins" && user.role !== "admin") {
        throw new DomainError("local_login_off", "Sign in with single sign-on");
      }
      const minted = await deps.sessions.mint();
      const signedIn = user;
      await db.transaction(async (tx) => {
        await deps.sessions.store(tx, minted, signedIn.id);
        await audit(tx, meta, clock.now().toISOString(), {
          action: "auth.login",
          actorId: signedIn.id,
          target: { type: "user", id: signedIn.id },
        });
      });
      return { user: publicUser(user), cookie: minted.cookie };
    },

    /** Ends a session (audited as the user's sign-out). */
    async logout(session: { idHash: string; userId: number }, meta: RequestMeta): Promise<void> {
      await db.transaction(async (tx) => {
        await deleteSession(tx, session.idHash);
        await audit(tx, meta, clock.now().toISOString(), {
          action: "auth.logout",
          actorId: session.userId,
          target: { type: "user", id: session.userId },
        });
      });
      deps.onSessionEnded?.(session.idHash);
    },

    /** The current user. */
    async me(actor: Actor): Promise<PublicUser> {
      const user = await findUserById(db, actor.id);
      if (!user) throw new DomainError("unauthenticated", "Not logged in");
      return publicUser(user);
    },

    /**
     * The current user for the pages, and whether they ever chose a time zone (the pages
     * propose the browser's zone once to a person who did not).
     */
    async viewer(actor: Actor): Promise<{ user: PublicUser; timeZoneChosen: boolean }> {
      const user = await findUserById(db, actor.id);
      if (!user) throw new DomainError("unauthenticated", "Not logged in");
      return { user: publicUser(user), timeZoneChosen: user.timeZone !== null };
    },

    /**
     * Changes the caller's display name, theme, locale, time zone or notification mail. A zone
     * is stored under the runtime's own name for it (`US/Eastern` becomes `America/New_York`).
     * Turning notification mail on from `off` mails nothing of what arrived before.
     */
    async updateMe(
      actor: Actor,
      changes: {
        displayName?: string | undefined;
        theme?: Theme | undefined;
        locale?: "en" | "ja" | undefined;
        timeZone?: string | undefined;
        emailNotifications?: EmailNotifications | undefined;
        digestHour?: number | undefined;
      },
    ): Promise<PublicUser> {
      const displayName = changes.displayName?.trim();
      if (displayName !== undefined && !displayName) {
        throw invalid("displayName", "Display name cannot be blank");
      }
      const timeZone = changes.timeZone === undefined
        ? undefined
        : canonicalTimeZone(changes.timeZone);
      if (timeZone === null) throw invalid("timeZone", "Unknown time zone");
      const { emailNotifications, digestHour } = changes;
      if (
        emailNotifications !== undefined &&
        !["off", "immediate", "daily"].includes(emailNotifications)
      ) {
        throw invalid("emailNotifications", "Use off, immediate or daily");
      }
      if (
        digestHour !== undefined &&
        (!Number.isInteger(digestHour) || digestHour < 0 || digestHour > 23)
      ) {
        throw invalid("digestHour", "Use a whole hour from 0 to 23");
      }
      const now = clock.now().toISOString();
      const user = await db.transaction(async (tx) => {
        const before = emailNotifications === undefined ? null : await findUserById(tx, actor.id);
        if (before?.emailNotifications === "off" && emailNotifications !== "off") {
          await mailNothingBefore(tx, actor.id, now);
        }
        return await updateUser(tx, actor.id, {
          ...(displayName ? { displayName } : {}),
          ...(changes.theme ? { theme: changes.theme } : {}),
          ...(changes.locale ? { locale: changes.locale } : {}),
          ...(timeZone ? { timeZone } : {}),
          ...(emailNotifications ? { emailNotifications } : {}),
          ...(digestHour !== undefined ? { digestHour } : {}),
        }, now);
      });
      if (!user) throw new DomainError("unauthenticated", "Not logged in");
      return publicUser(user);
    },

    /** Every user (admins only). */
    async listUsers(actor: Actor): Promise<PublicUser[]> {
      requireAdmin(actor);
      return (await listUsers(db)).map(publicUser);
    },

    /**
     * Changes a user's role, status or loan-officer mark (admins only); disabling ends their
     * sessions and tokens.
     */
    async adminUpdate(
      actor: Actor,
      userId: number,
      changes: {
        role?: "admin" | "member";
        status?: "active" | "disabled";
        loanOfficer?: boolean;
      },
      meta: RequestMeta,
    ): Promise<PublicUser> {
      requireAdmin(actor);
      const user = await db.transaction(async (tx) => {
        const target = await findUserById(tx, userId);
        if (!target) throw new DomainError("not_found", "No such user");
        const losesAdmin = target.role === "admin" && target.status === "active" &&
          (changes.role === "member" || changes.status === "disabled");
        if (losesAdmin && (await countActiveAdmins(tx)) <= 1) {
          throw new DomainError("conflict", "Cannot remove the last administrator");
        }
        const now = clock.now().toISOString();
        const updated = (await updateUser(tx, userId, changes, now))!;
        // Each change that changed something is one row.
        for (const [field, action] of AUDITED_USER_FIELDS) {
          if (changes[field] === undefined || changes[field] === target[field]) continue;
          await audit(tx, meta, now, {
            action,
            actorId: actor.id,
            target: { type: "user", id: userId },
            details: { from: target[field], to: changes[field] },
          });
        }
        if (changes.status === "disabled") {
          await deleteUserSessions(tx, userId);
          await deleteUserApiTokens(tx, userId);
        }
        return updated;
      });
      if (changes.status === "disabled") deps.onSessionsEnded?.(userId);
      else if (changes.role === "member") await deps.onAdminRightsLost?.(userId);
      return publicUser(user);
    },
  };
}

/** The account operations' type. */
export type Accounts = ReturnType<typeof createAccounts>;
