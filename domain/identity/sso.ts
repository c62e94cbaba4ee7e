/**
 * Single sign-on with OpenID Connect (the relying party), through `openid-client`: the
 * authorization code flow with PKCE (S256), `state` and `nonce` kept in the database for 10
 * minutes and usable once, the provider's metadata discovered when first needed and again
 * after a failure, the ID token's signature, issuer, audience, expiry and nonce checked by the
 * library. An account is found by its identity `(issuer, subject)`, never by email.
 */
import { createHash } from "node:crypto";
import * as oidc from "openid-client";
import type { Engine, Queries } from "../../db/kernel/engine.ts";
import {
  countActiveAdmins,
  countUsers,
  findUserByEmail,
  findUserById,
  insertUser,
  updateUser,
  type UserRow,
} from "../../db/accounts/users.ts";
import {
  countSsoAdmins,
  deleteSsoIdentity,
  deleteSsoPendingLink,
  findSsoIdentity,
  findSsoPendingLink,
  insertSsoIdentity,
  insertSsoLogin,
  insertSsoPendingLink,
  insertSsoSession,
  listSsoIdentities,
  pruneSso,
  type SsoIdentityRow,
  ssoSessionIdToken,
  takeSsoLogin,
} from "../../db/identity/sso.ts";
import type { LocalLogin, OidcConfig } from "../config.ts";
import type { Clock } from "../kernel/clock.ts";
import { DomainError } from "../kernel/errors.ts";
import { type Actor, type LoggedIn, normaliseEmail, publicUser } from "../accounts/accounts.ts";
import type { PasswordHasher } from "../accounts/passwords.ts";
import type { MintedSession, Sessions } from "../accounts/sessions.ts";
import type { LoginThrottle } from "../accounts/throttle.ts";
import { lookupHash, newLinkToken } from "../accounts/link_tokens.ts";
import { audit, auditSsoLink, type RequestMeta } from "../accounts/audit.ts";

/** How long a sign-in under way, and a link waiting for a password, stay usable. */
const PENDING_MS = 10 * 60_000;
/** How long one request to the provider may take, in seconds. */
const PROVIDER_TIMEOUT_S = 10;
/** The password hash of an account made by single sign-on: no password matches it. */
export const NO_PASSWORD = "!sso";

/** Why a sign-in through the provider failed (the refusal page says it in the user's words). */
export type SsoFailure =
  /** The state is unknown, used, expired, or not this browser's (a forged or replayed callback). */
  | "state"
  /** The provider answered with an error, or could not be reached, or answered garbage. */
  | "provider"
  /** The ID token failed a check (signature, issuer, audience, expiry, nonce). */
  | "token"
  /** The provider gave no email, and an account would have to be made with one. */
  | "no_email";

/** The identity as the API shows it. */
export interface PublicIdentity {
  id: number;
  issuer: string;
  subject: string;
  email: string | null;
  linkedAt: string;
}

/** The SSO status the admin page shows. */
export interface SsoStatus {
  issuer: string;
  /** Whether the provider's discovery document was read (and its issuer matched). */
  discovered: boolean;
  /** The last failure talking to the provider, with its reason, or null. */
  lastFailure: { at: string; reason: string } | null;
}

/** What a callback came to. */
export type CallbackOutcome =
  | { kind: "signed_in"; user: LoggedIn["user"]; cookie: string; next: string }
  /** The identity's email is an account's that needs its password first: the link page. */
  | { kind: "link"; token: string };

/** What single sign-on needs. */
export interface SsoDeps {
  db: Engine;
  clock: Clock;
  config: OidcConfig;
  /** `BASE_URL`, without a trailing slash. */
  baseUrl: string;
  localLogin: LocalLogin;
  hasher: PasswordHasher;
  sessions: Sessions;
  /** The throttle of the link page's password (the login's, per address and client). */
  throttle: LoginThrottle;
  /** Called after a user stopped being an admin (their streams of others' projects end). */
  onAdminRightsLost?: (userId: number) => void | Promise<void>;
}

function publicIdentity(row: SsoIdentityRow): PublicIdentity {
  return {
    id: row.id,
    issuer: row.issuer,
    subject: row.subject,
    email: row.email,
    linkedAt: row.linkedAt,
  };
}

function stateHash(state: string): string {
  return createHash("sha256").update(state).digest("hex");
}

/** An error's text for the admin (never a token: the library's messages hold none). */
function reasonOf(error: unknown): string {
  if (error instanceof oidc.ResponseBodyError || error instanceof oidc.AuthorizationResponseError) {
    return `the provider answered ${error.error}` +
      (error.error_description ? `: ${error.error_description}` : "");
  }
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : "";
    return `${error.message}${cause}`;
  }
  return String(error);
}

/**
 * Links identity `(issuer, subject)` to user `userId` in `tx`, audited as `sso.linked`; the one
 * way an identity is linked.
 */
export async function linkIdentity(
  tx: Queries,
  link: { userId: number; issuer: string; subject: string; email: string | null; at: string },
  meta: RequestMeta,
): Promise<SsoIdentityRow> {
  const row = await insertSsoIdentity(tx, {
    userId: link.userId,
    issuer: link.issuer,
    subject: link.subject,
    email: link.email,
    linkedAt: link.at,
  });
  if (!row) throw new DomainError("conflict", "This identity is linked to an account already");
  await auditSsoLink(tx, meta, link.at, { userId: link.userId, issuer: link.issuer, linked: true });
  return row;
}

/**
 * Whether user `user` can still sign in without identity `identityId`: another identity, or a
 * password LOCAL_LOGIN lets them use.
 */
function otherWayIn(
  user: UserRow,
  identities: SsoIdentityRow[],
  identityId: number,
  localLogin: LocalLogin,
): boolean {
  if (identities.some((i) => i.id !== identityId)) return true;
  const hasPassword = user.passwordHash !== NO_PASSWORD;
  return hasPassword &&
    (localLogin === "on" || (localLogin === "admins" && user.role === "admin"));
}

/**
 * Unlinks identity `identityId` from `actor`'s account, audited as `sso.unlinked` (at `at`); the
 * one way an identity is unlinked.
 * `not_found` for another's or an unknown one, `last_sign_in` when it is the only way left to
 * sign in.
 */
export async function unlinkIdentity(
  db: Engine,
  actor: Actor,
  identityId: number,
  localLogin: LocalLogin,
  meta: RequestMeta,
  at: string,
): Promise<void> {
  await db.transaction(async (tx) => {
    const user = await findUserById(tx, actor.id);
    if (!user) throw new DomainError("unauthenticated", "Not logged in");
    const identities = await listSsoIdentities(tx, actor.id);
    const identity = identities.find((i) => i.id === identityId);
    if (!identity) {
      throw new DomainError("not_found", "No such identity");
    }
    if (!otherWayIn(user, identities, identityId, localLogin)) {
      throw new DomainError(
        "last_sign_in",
        "This identity is the only way to sign in to this account",
      );
    }
    await deleteSsoIdentity(tx, actor.id, identityId);
    await auditSsoLink(tx, meta, at, { userId: actor.id, issuer: identity.issuer, linked: false });
  });
}

/** Single sign-on. */
export function createSso(deps: SsoDeps) {
  const { db, clock, config } = deps;
  const redirectUri = `${deps.baseUrl}/auth/oidc/callback`;
  const insecure = new URL(config.issuer).protocol === "http:";
  let server: oidc.ServerMetadata | null = null;
  const status: SsoStatus = { issuer: config.issuer, discovered: false, lastFailure: null };

  function failed(error: unknown, rediscover: boolean): string {
    const reason = reasonOf(error);
    status.lastFailure = { at: clock.now().toISOString(), reason };
    if (rediscover) {
      server = null;
      status.discovered = false;
    }
    return reason;
  }

  /** The provider's metadata: read when first needed, and again after a failure. */
  async function metadata(): Promise<oidc.ServerMetadata> {
    if (server) return server;
    let found: oidc.ServerMetadata;
    try {
      const discovered = await oidc.discovery(
        new URL(config.issuer),
        config.clientId,
        config.clientSecret,
        undefined,
        { execute: insecure ? [oidc.allowInsecureRequests] : [], timeout: PROVIDER_TIMEOUT_S },
      );
      found = discovered.serverMetadata();
    } catch (error) {
      const base = reasonOf(error);
      const reason = /issuer/i.test(base)
        ? `the discovery document's issuer is not OIDC_ISSUER ${config.issuer} exactly: ${base}`
        : `cannot read the discovery document of ${config.issuer}: ${base}`;
      failed(new Error(reason), true);
      throw new DomainError("sso_failed", reason, { details: { reason: "provider" } });
    }
    if (found.issuer !== config.issuer) {
      const reason = `the discovery document's issuer ${JSON.stringify(found.issuer)} is not ` +
        `OIDC_ISSUER ${JSON.stringify(config.issuer)} exactly`;
      failed(new Error(reason), true);
      throw new DomainError("sso_failed", reason, { details: { reason: "provider" } });
    }
    server = found;
    status.discovered = true;
    return found;
  }

  /** A client configuration over `meta`, on the injected clock. */
  function client(meta: oidc.ServerMetadata): oidc.Configuration {
    const methods = meta.token_endpoint_auth_methods_supported;
    // client_secret_basic unless the provider offers only client_secret_post.
    const auth = methods && !methods.includes("client_secret_basic") &&
        methods.includes("client_secret_post")
      ? oidc.ClientSecretPost(config.clientSecret)
      : oidc.ClientSecretBasic(config.clientSecret);
    const skew = Math.round((clock.now().getTime() - Date.now()) / 1000);
    const configuration = new oidc.Configuration(meta, config.clientId, {
      client_secret: config.clientSecret,
      [oidc.clockSkew]: skew,
    }, auth);
    configuration.timeout = PROVIDER_TIMEOUT_S;
    if (insecure) oidc.allowInsecureRequests(configuration);
    return configuration;
  }

  const refuse = (reason: SsoFailure, message: string) =>
    new DomainError("sso_failed", message, { details: { reason } });

  /**
   * Finishes a sign-in as user `user` with identity `identityId`: the session `minted` before
   * the transaction (which awaits only its own queries).
   */
  async function signIn(
    tx: Queries,
    minted: MintedSession,
    user: UserRow,
    identityId: number,
    idToken: string,
    meta: RequestMeta,
    at: string,
  ): Promise<string> {
    await deps.sessions.store(tx, minted, user.id);
    await insertSsoSession(tx, { sessionIdHash: minted.idHash, identityId, idToken });
    await audit(tx, meta, at, {
      action: "auth.login",
      actorId: user.id,
      target: { type: "user", id: user.id },
      details: { via: "sso" },
    });
    return minted.cookie;
  }

  /** The role the groups give, or null when single sign-on never changes roles. */
  function groupRole(claims: Record<string, unknown>): "admin" | "member" | null {
    if (config.adminGroups.length === 0) return null;
    const raw = claims[config.groupsClaim];
    const groups = Array.isArray(raw)
      ? raw.filter((g): g is string => typeof g === "string")
      : typeof raw === "string"
      ? [raw]
      : [];
    return groups.some((g) => config.adminGroups.includes(g)) ? "admin" : "member";
  }

  function domainAllowed(email: string | null): boolean {
    if (config.allowedDomains.length === 0) return true;
    if (email === null) return false;
    return config.allowedDomains.includes(email.slice(email.lastIndexOf("@") + 1));
  }

  return {
    /** Where the provider sends people back: `BASE_URL/auth/oidc/callback`. */
    redirectUri,
    /** The issuer, whether discovery worked, the last failure. */
    status: (): SsoStatus => ({ ...status }),

    /**
     * Begins a sign-in: stores a new state, nonce and PKCE verifier, and returns the provider's
     * authorization address and the state (the browser keeps it in a cookie, so a callback
     * from another browser is refused). `next` must be a same-site path (the caller checks).
     */
    async start(next: string): Promise<{ url: string; state: string }> {
      const meta = await metadata();
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      const codeVerifier = oidc.randomPKCECodeVerifier();
      const challenge = await oidc.calculatePKCECodeChallenge(codeVerifier);
      const now = clock.now();
      await db.transaction(async (tx) => {
        await pruneSso(tx, now.toISOString());
        await insertSsoLogin(tx, {
          stateHash: stateHash(state),
          nonce,
          codeVerifier,
          nextPath: next,
          createdAt: now.toISOString(),
          expiresAt: new Date(now.getTime() + PENDING_MS).toISOString(),
        });
      });
      const url = oidc.buildAuthorizationUrl(client(meta), {
        redirect_uri: redirectUri,
        scope: config.scopes,
        state,
        nonce,
        code_challenge: challenge,
        code_challenge_method: "S256",
      });
      return { url: url.href, state };
    },

    /**
     * Finishes a sign-in from the provider's answer (`query`, the callback's query string)
     * and the state this browser kept. Refuses (`sso_failed` with a reason, `sso_domain`,
     * `account_disabled`, `sso_no_account`) with nothing created and nobody signed in.
     */
    async callback(
      query: string,
      browserState: string | undefined,
      request: RequestMeta,
    ): Promise<CallbackOutcome> {
      const params = new URLSearchParams(query);
      const state = params.get("state");
      if (!state || !browserState || state !== browserState || state.length > 200) {
        throw refuse("state", "The sign-in's state is unknown or not this browser's");
      }
      const now = clock.now().toISOString();
      const login = await db.transaction((tx) => takeSsoLogin(tx, stateHash(state), now));
      if (!login) throw refuse("state", "The sign-in's state is unknown, used or expired");
      const error = params.get("error");
      if (error !== null) {
        const description = params.get("error_description");
        throw refuse(
          "provider",
          failed(
            new Error(`the provider answered ${error}${description ? `: ${description}` : ""}`),
            false,
          ),
        );
      }
      const meta = await metadata();
      const configuration = client(meta);
      let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
      try {
        tokens = await oidc.authorizationCodeGrant(
          configuration,
          new URL(`${redirectUri}?${params}`),
          {
            pkceCodeVerifier: login.codeVerifier,
            expectedState: state,
            expectedNonce: login.nonce,
            idTokenExpected: true,
          },
        );
      } catch (error) {
        // A check of the answer failed (the provider spoke), or the provider did not answer
        // usefully (read its metadata again next time).
        const checked = error instanceof oidc.ResponseBodyError ||
          error instanceof oidc.AuthorizationResponseError ||
          (error instanceof Error &&
            /JWT|claim|nonce|"iss"|"aud"|"exp"|signature/i.test(error.message));
        const reason = failed(error, !checked);
        throw refuse(
          checked && !(error instanceof oidc.ResponseBodyError) ? "token" : "provider",
          reason,
        );
      }
      const idClaims = tokens.claims();
      const idToken = tokens.id_token;
      if (!idClaims || !idToken) throw refuse("token", "The provider gave no ID token");
      let claims: Record<string, unknown> = { ...idClaims };
      if (meta.userinfo_endpoint && tokens.access_token) {
        try {
          const info = await oidc.fetchUserInfo(configuration, tokens.access_token, idClaims.sub);
          claims = { ...info, ...idClaims };
        } catch (error) {
          throw refuse("provider", failed(error, true));
        }
      }
      const issuer = meta.issuer;
      const subject = idClaims.sub;
      const email = typeof claims.email === "string" && claims.email.includes("@")
        ? normaliseEmail(claims.email)
        : null;
      if (!domainAllowed(email)) {
        throw new DomainError("sso_domain", "This email domain may not sign in here");
      }
      const emailVerified = claims.email_verified === true;
      const role = groupRole(claims);
      const displayName = [claims.name, claims.preferred_username, email?.split("@")[0], subject]
        .find((n): n is string => typeof n === "string" && n.trim() !== "")!.trim().slice(0, 200);

      let lostAdmin: number | null = null;
      const minted = await deps.sessions.mint();
      const outcome = await db.transaction(async (tx): Promise<CallbackOutcome> => {
        const identity = await findSsoIdentity(tx, issuer, subject);
        let user: UserRow | null = identity ? await findUserById(tx, identity.userId) : null;
        let identityId = identity?.id ?? null;
        if (!user && email !== null) {
          const existing = await findUserByEmail(tx, email);
          if (existing) {
            if (existing.status !== "active") {
              throw new DomainError("account_disabled", "This account is disabled");
            }
            if (!(emailVerified && existing.emailVerified)) {
              const { token, hash } = newLinkToken();
              await insertSsoPendingLink(tx, {
                tokenHash: hash,
                userId: existing.id,
                issuer,
                subject,
                email,
                idToken,
                nextPath: login.nextPath,
                createdAt: now,
                expiresAt: new Date(clock.now().getTime() + PENDING_MS).toISOString(),
              });
              return { kind: "link", token };
            }
            user = existing;
            identityId = (await linkIdentity(tx, {
              userId: existing.id,
              issuer,
              subject,
              email,
              at: now,
            }, request)).id;
          }
        }
        if (!user) {
          if (!config.autoProvision) {
            throw new DomainError("sso_no_account", "No account is linked to this identity");
          }
          if (email === null) {
            throw refuse("no_email", "The provider gave no email address for a new account");
          }
          const first = await countUsers(tx) === 0;
          user = await insertUser(tx, {
            email,
            displayName,
            passwordHash: NO_PASSWORD,
            role: first || role === "admin" ? "admin" : "member",
            emailVerified,
            createdAt: now,
          });
          if (!user) throw new DomainError("conflict", "An account with this email already exists");
          identityId =
            (await linkIdentity(tx, { userId: user.id, issuer, subject, email, at: now }, request))
              .id;
        }
        if (user.status !== "active") {
          throw new DomainError("account_disabled", "This account is disabled");
        }
        if (role !== null && role !== user.role) {
          // Granted and taken away at each sign-in; never the last active admin's.
          const last = user.role === "admin" && (await countActiveAdmins(tx)) <= 1;
          if (!last) {
            await audit(tx, request, now, {
              action: "user.role_changed",
              actorId: null,
              target: { type: "user", id: user.id },
              details: { from: user.role, to: role, via: "sso_groups" },
            });
            user = (await updateUser(tx, user.id, { role }, now))!;
            if (role === "member") lostAdmin = user.id;
          }
        }
        const cookie = await signIn(tx, minted, user, identityId!, idToken, request, now);
        return { kind: "signed_in", user: publicUser(user), cookie, next: login.nextPath };
      });
      if (lostAdmin !== null) await deps.onAdminRightsLost?.(lostAdmin);
      return outcome;
    },

    /** The email of the account a waiting link is for; `not_found` for a bad or used token. */
    async pendingLink(token: string): Promise<{ email: string }> {
      const hash = lookupHash(token);
      const link = hash && await findSsoPendingLink(db, hash, clock.now().toISOString());
      const user = link ? await findUserById(db, link.userId) : null;
      if (!link || !user) throw new DomainError("not_found", "No such link");
      return { email: user.email };
    },

    /**
     * Links a waiting identity once the account's password is given, and signs in. A wrong
     * password is `unauthenticated` (the link stays usable, the login throttle counts it).
     */
    async completeLink(
      token: string,
      password: string,
      meta: RequestMeta,
    ): Promise<LoggedIn & { next: string }> {
      const hash = lookupHash(token);
      const now = clock.now().toISOString();
      const link = hash && await findSsoPendingLink(db, hash, now);
      const user = link ? await findUserById(db, link.userId) : null;
      if (!link || !user) throw new DomainError("not_found", "No such link");
      const attempt = await deps.throttle.begin(user.email, meta.clientAddress ?? "local");
      let ok: boolean;
      try {
        ok = await deps.hasher.verify(password, user.passwordHash);
      } catch (error) {
        await attempt.abandoned();
        throw error;
      }
      if (!ok) {
        await attempt.failed((tx) =>
          audit(tx, meta, now, {
            action: "auth.login_failed",
            actorId: null,
            actorEmail: user.email,
            details: { reason: "wrong_password", via: "sso_link" },
          })
        );
        throw new DomainError("unauthenticated", "Wrong password");
      }
      await attempt.succeeded();
      const minted = await deps.sessions.mint();
      const cookie = await db.transaction(async (tx) => {
        const current = await findUserById(tx, user.id);
        if (!current || current.status !== "active") {
          throw new DomainError("account_disabled", "This account is disabled");
        }
        if (!await deleteSsoPendingLink(tx, link.tokenHash)) {
          throw new DomainError("not_found", "No such link");
        }
        const identity = await linkIdentity(tx, {
          userId: user.id,
          issuer: link.issuer,
          subject: link.subject,
          email: link.email,
          at: now,
        }, meta);
        return await signIn(tx, minted, current, identity.id, link.idToken, meta, now);
      });
      return { user: publicUser(user), cookie, next: link.nextPath };
    },

    /** The caller's identities, oldest link first. */
    async identities(actor: Actor): Promise<PublicIdentity[]> {
      return (await listSsoIdentities(db, actor.id)).map(publicIdentity);
    },

    /** Unlinks one of the caller's identities (`last_sign_in` when it is the only way in). */
    unlink: (actor: Actor, identityId: number, meta: RequestMeta) =>
      unlinkIdentity(db, actor, identityId, deps.localLogin, meta, clock.now().toISOString()),

    /**
     * Where the browser signs out at the provider after session `sessionIdHash` ends: null for
     * a session that did not begin by single sign-on, or a provider without
     * `end_session_endpoint`. Read before the session ends.
     */
    async endSessionUrl(sessionIdHash: string): Promise<string | null> {
      const idToken = await ssoSessionIdToken(db, sessionIdHash);
      if (idToken === null) return null;
      let meta: oidc.ServerMetadata;
      try {
        meta = await metadata();
      } catch {
        return null;
      }
      if (!meta.end_session_endpoint) return null;
      return oidc.buildEndSessionUrl(client(meta), {
        id_token_hint: idToken,
        post_logout_redirect_uri: deps.baseUrl,
      }).href;
    },

    /** Whether an active admin has an identity at the provider (LOCAL_LOGIN=off needs one). */
    async adminHasIdentity(): Promise<boolean> {
      return await countSsoAdmins(db, config.issuer) > 0;
    },
  };
}

/** Single sign-on's type. */
export type Sso = ReturnType<typeof createSso>;
