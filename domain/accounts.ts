/** Accounts: registration, login and logout, the profile, and user administration. */
import { deleteUserApiTokens } from "../db/api_tokens.ts";
import { deleteUserSessions } from "../db/sessions.ts";
import type { Database } from "../db/sqlite.ts";
import {
  countActiveAdmins,
  countUsers,
  findUserByEmail,
  findUserById,
  insertUser,
  listUsers,
  type Theme,
  updateUser,
  type UserRow,
} from "../db/users.ts";
import type { Clock } from "./clock.ts";
import { DomainError, invalid } from "./errors.ts";
import type { PasswordHasher } from "./passwords.ts";
import type { Sessions } from "./sessions.ts";
import type { LoginThrottle, RegistrationThrottle } from "./throttle.ts";
import { canonicalTimeZone, DEFAULT_TIME_ZONE } from "./time_zones.ts";

export type { Theme };

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
    createdAt: u.createdAt,
  };
}

/** Lower-cases and trims an email address. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** What accounts need. */
export interface AccountDeps {
  db: Database;
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
  onAdminRightsLost?: (userId: number) => void;
}

/** A user together with a new session's cookie value. */
export interface LoggedIn {
  user: PublicUser;
  cookie: string;
}

const LOGIN_FAILED = "Invalid email or password";

/** The account operations. */
export function createAccounts(deps: AccountDeps) {
  const { db, clock } = deps;

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
      const attempt = deps.registrations.begin(address);
      let user: UserRow | null;
      try {
        if (findUserByEmail(db, email)) {
          throw new DomainError("conflict", "An account with this email already exists");
        }
        const passwordHash = await deps.hasher.hash(input.password);
        user = db.tx(() =>
          insertUser(db, {
            email,
            displayName,
            passwordHash,
            role: countUsers(db) === 0 ? "admin" : "member",
            createdAt: clock.now().toISOString(),
          })
        );
      } catch (error) {
        attempt.abandoned();
        throw error;
      }
      if (!user) {
        attempt.abandoned();
        throw new DomainError("conflict", "An account with this email already exists");
      }
      attempt.accepted();
      return { user: publicUser(user), cookie: await deps.sessions.issue(user.id) };
    },

    /** Checks credentials (throttled before any hashing) and starts a new session. */
    async login(input: { email: string; password: string }, address: string): Promise<LoggedIn> {
      const email = normaliseEmail(input.email);
      const attempt = deps.throttle.begin(email, address);
      let ok = false;
      let user: ReturnType<typeof findUserByEmail> = null;
      try {
        user = findUserByEmail(db, email);
        ok = user
          ? await deps.hasher.verify(input.password, user.passwordHash)
          : (await deps.hasher.burn(input.password), false);
      } catch (error) {
        // A busy hasher checked nothing: the attempt neither failed nor succeeded.
        if (error instanceof DomainError && error.code === "rate_limited") attempt.abandoned();
        else attempt.failed();
        throw error;
      }
      if (!user || !ok || user.status !== "active") {
        attempt.failed();
        throw new DomainError("unauthenticated", LOGIN_FAILED);
      }
      attempt.succeeded();
      return { user: publicUser(user), cookie: await deps.sessions.issue(user.id) };
    },

    /** Ends a session. */
    logout(sessionIdHash: string): void {
      deps.sessions.revoke(sessionIdHash);
      deps.onSessionEnded?.(sessionIdHash);
    },

    /** The current user. */
    me(actor: Actor): PublicUser {
      const user = findUserById(db, actor.id);
      if (!user) throw new DomainError("unauthenticated", "Not logged in");
      return publicUser(user);
    },

    /**
     * The current user for the pages, and whether they ever chose a time zone (the pages
     * propose the browser's zone once to a person who did not).
     */
    viewer(actor: Actor): { user: PublicUser; timeZoneChosen: boolean } {
      const user = findUserById(db, actor.id);
      if (!user) throw new DomainError("unauthenticated", "Not logged in");
      return { user: publicUser(user), timeZoneChosen: user.timeZone !== null };
    },

    /**
     * Changes the caller's display name, theme, locale or time zone. A zone is stored under the
     * runtime's own name for it (`US/Eastern` becomes `America/New_York`).
     */
    updateMe(
      actor: Actor,
      changes: {
        displayName?: string | undefined;
        theme?: Theme | undefined;
        locale?: "en" | "ja" | undefined;
        timeZone?: string | undefined;
      },
    ): PublicUser {
      const displayName = changes.displayName?.trim();
      if (displayName !== undefined && !displayName) {
        throw invalid("displayName", "Display name cannot be blank");
      }
      const timeZone = changes.timeZone === undefined
        ? undefined
        : canonicalTimeZone(changes.timeZone);
      if (timeZone === null) throw invalid("timeZone", "Unknown time zone");
      const user = db.tx(() =>
        updateUser(db, actor.id, {
          ...(displayName ? { displayName } : {}),
          ...(changes.theme ? { theme: changes.theme } : {}),
          ...(changes.locale ? { locale: changes.locale } : {}),
          ...(timeZone ? { timeZone } : {}),
        }, clock.now().toISOString())
      );
      if (!user) throw new DomainError("unauthenticated", "Not logged in");
      return publicUser(user);
    },

    /** Every user (admins only). */
    listUsers(actor: Actor): PublicUser[] {
      requireAdmin(actor);
      return listUsers(db).map(publicUser);
    },

    /** Changes a user's role or status (admins only); disabling ends their sessions and tokens. */
    adminUpdate(
      actor: Actor,
      userId: number,
      changes: { role?: "admin" | "member"; status?: "active" | "disabled" },
    ): PublicUser {
      requireAdmin(actor);
      const user = db.tx(() => {
        const target = findUserById(db, userId);
        if (!target) throw new DomainError("not_found", "No such user");
        const losesAdmin = target.role === "admin" && target.status === "active" &&
          (changes.role === "member" || changes.status === "disabled");
        if (losesAdmin && countActiveAdmins(db) <= 1) {
          throw new DomainError("conflict", "Cannot remove the last administrator");
        }
        const updated = updateUser(db, userId, changes, clock.now().toISOString())!;
        if (changes.status === "disabled") {
          deleteUserSessions(db, userId);
          deleteUserApiTokens(db, userId);
        }
        return updated;
      });
      if (changes.status === "disabled") deps.onSessionsEnded?.(userId);
      else if (changes.role === "member") deps.onAdminRightsLost?.(userId);
      return publicUser(user);
    },
  };
}

/** The account operations' type. */
export type Accounts = ReturnType<typeof createAccounts>;
