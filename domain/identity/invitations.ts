/**
 * Invitations: project owners (and admins) invite people to a project by email, admins invite
 * them to the server. A person who already has an account is added to the project at once;
 * anyone else gets a link (`BASE_URL/invite/{token}`) that works once, until it expires or is
 * revoked, whatever `REGISTRATION` says. Accepting makes the account (its email verified: the
 * link reached that mailbox, or its owner passed it on), joins the project and signs in, in one
 * transaction. Only the token's SHA-256 is stored; an unknown, used, revoked or expired token
 * gets one answer (`not_found`).
 */
import { findUserByEmail, findUserById, insertUser, updateUser } from "../../db/accounts/users.ts";
import type { Engine, Queries } from "../../db/kernel/engine.ts";
import {
  acceptInvitation,
  findInvitation,
  findInvitationByHash,
  insertInvitation,
  type InvitationDetails,
  type InvitationRole,
  type InvitationRow,
  listInvitations,
  markNotificationsMailed,
  renewInvitation,
  revokeInvitation,
  revokePendingFor,
} from "../../db/identity/invitations.ts";
import { findMember, type MemberRow } from "../../db/projects/projects.ts";
import { projectAccess, requireOwner } from "../accounts/access.ts";
import { type Actor, normaliseEmail, type PublicUser, publicUser } from "../accounts/accounts.ts";
import { lookupHash, newLinkToken, sameHash } from "../accounts/link_tokens.ts";
import type { PasswordHasher } from "../accounts/passwords.ts";
import type { Sessions } from "../accounts/sessions.ts";
import type { InvitationThrottle } from "../accounts/throttle.ts";
import type { Clock } from "../kernel/clock.ts";
import { DomainError, invalid } from "../kernel/errors.ts";
import { offsetOf, type Page, pageOf, type PageRequest } from "../kernel/paging.ts";
import { isMailAddress } from "../mail/address.ts";
import { queueMail } from "../mail/outbox.ts";
import { type DomainContext, type Effects, runAction } from "../projects/actions.ts";
import { addMemberIn, ADDS_MEMBER } from "../projects/projects.ts";
import { addedMail, invitationMail } from "./invitation_mail.ts";
import { audit, type RequestMeta } from "../accounts/audit.ts";

export type { InvitationRole };

/** An invitation as the API shows it: never its token or the token's hash. */
export interface Invitation {
  id: number;
  email: string;
  role: InvitationRole;
  /** The project; null for an invitation to the server. */
  projectId: number | null;
  /** The user who invited (or last sent it again). */
  invitedBy: number;
  createdAt: string;
  expiresAt: string;
  acceptedAt: string | null;
  revokedAt: string | null;
}

/** What the invitation's page and `GET /api/invitations/{token}` show. */
export interface InvitationView {
  email: string;
  /** The project's name; null for an invitation to the server. */
  projectName: string | null;
  invitedByName: string;
  role: InvitationRole;
  /** The project; null for an invitation to the server. */
  projectId: number | null;
  expiresAt: string;
}

/** What an invitation to a project made: the person joined at once, or was sent a link. */
export type InviteResult =
  | { member: MemberRow }
  | { invitation: Invitation; url: string };

/** The default and allowed days an invitation works. */
export const DEFAULT_INVITATION_DAYS = 7;
export const MAX_INVITATION_DAYS = 30;

const DAY_MS = 86_400_000;
const NOT_WORKING = "This invitation link does not work";

function toInvitation(r: InvitationRow): Invitation {
  return {
    id: r.id,
    email: r.email,
    role: r.role,
    projectId: r.projectId,
    invitedBy: r.invitedBy,
    createdAt: r.createdAt,
    expiresAt: r.expiresAt,
    acceptedAt: r.acceptedAt,
    revokedAt: r.revokedAt,
  };
}

/** What invitations need. */
export interface InvitationDeps {
  db: Engine;
  clock: Clock;
  hasher: PasswordHasher;
  sessions: Sessions;
  throttle: InvitationThrottle;
  /** What joining a project runs in (an action: `member.added`, the notification). */
  actions: DomainContext;
  /** `BASE_URL` without a trailing slash; null: links use the request's origin. */
  baseUrl: string | null;
  /** Whether mail is sent, and the Message-ID host (BASE_URL's host name). */
  mail: { enabled: boolean; host: string | null };
  /** Called after a commit that queued mail (wakes the sender). */
  onMailQueued: () => void;
}

/** Where an invitation operation acts: one project's invitations, or (null) the server's. */
export type InvitationScope = { projectId: number } | null;

/** The invitation operations. */
export function createInvitations(deps: InvitationDeps) {
  const { db, clock } = deps;
  const mailOn = deps.mail.enabled && deps.mail.host !== null;
  const linkOf = (token: string, origin: string) =>
    `${deps.baseUrl ?? origin.replace(/\/+$/, "")}/invite/${token}`;

  function cleanEmail(raw: string): string {
    const email = normaliseEmail(raw);
    if (!isMailAddress(email)) throw invalid("email", "Use one address like name@example.org");
    return email;
  }

  function daysOf(raw: number | undefined): number {
    const days = raw ?? DEFAULT_INVITATION_DAYS;
    if (!Number.isInteger(days) || days < 1 || days > MAX_INVITATION_DAYS) {
      throw invalid("expiresInDays", `Use a whole number of days from 1 to ${MAX_INVITATION_DAYS}`);
    }
    return days;
  }

  /** Checks `actor` may manage the invitations of `scope` (owner of the project, or admin). */
  async function requireManager(q: Queries, actor: Actor, scope: InvitationScope) {
    if (scope === null) {
      if (actor.role !== "admin") throw new DomainError("forbidden", "Administrators only");
      return null;
    }
    const access = await projectAccess(q, actor, scope.projectId);
    requireOwner(access);
    return access.project;
  }

  /** Queues the invitation mail, in the inviter's language and zone, when mail is on. */
  async function mailInvitation(
    tx: Queries,
    row: InvitationRow,
    projectName: string | null,
    url: string,
    inviterId: number,
  ): Promise<boolean> {
    if (!mailOn) return false;
    const inviter = (await findUserById(tx, inviterId))!;
    const mail = invitationMail(
      {
        inviterName: inviter.displayName,
        projectName,
        role: row.role,
        url,
        expiresAt: row.expiresAt,
      },
      { locale: inviter.locale, timeZone: inviter.timeZone },
    );
    await queueMail(tx, { to: row.email, kind: "invitation", ...mail }, {
      now: clock.now(),
      host: deps.mail.host!,
    });
    return true;
  }

  /** Runs `make` as one counted invitation of `actor` (throttled per inviter). */
  async function throttled<T>(actor: Actor, make: () => Promise<T>): Promise<T> {
    const attempt = await deps.throttle.begin(actor.id);
    try {
      const result = await make();
      await attempt.sent();
      return result;
    } catch (error) {
      await attempt.abandoned();
      throw error;
    }
  }

  /** Makes a pending invitation to `scope` (replacing the email's earlier ones there). */
  async function invite(
    tx: Queries,
    actor: Actor,
    input: { email: string; role: InvitationRole; days: number },
    project: { id: number; name: string } | null,
    origin: string,
    meta: RequestMeta,
  ): Promise<{ invitation: Invitation; url: string; mailed: boolean }> {
    const now = clock.now();
    await revokePendingFor(tx, input.email, project?.id ?? null, now.toISOString());
    const { token, hash } = newLinkToken();
    const row = await insertInvitation(tx, {
      tokenHash: hash,
      email: input.email,
      role: input.role,
      projectId: project?.id ?? null,
      invitedBy: actor.id,
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + input.days * DAY_MS).toISOString(),
    });
    const url = linkOf(token, origin);
    const mailed = await mailInvitation(tx, row, project?.name ?? null, url, actor.id);
    await audit(tx, meta, now.toISOString(), {
      action: "invitation.created",
      actorId: actor.id,
      target: { type: "invitation", id: row.id },
      details: { email: row.email, role: row.role, projectId: row.projectId, mailed },
    });
    return { invitation: toInvitation(row), url, mailed };
  }

  /** The invitation a token opens, if it still works now; else null. */
  async function working(q: Queries, token: string): Promise<InvitationDetails | null> {
    const hash = lookupHash(token);
    if (hash === null) return null;
    const row = await findInvitationByHash(q, hash);
    if (!row || !sameHash(row.tokenHash, hash)) return null;
    if (row.acceptedAt !== null || row.revokedAt !== null || row.projectGone) return null;
    if (Date.parse(row.expiresAt) <= clock.now().getTime()) return null;
    return row;
  }

  /** Adds `userId` to the invitation's project (if any) and marks it accepted, in `tx`. */
  async function join(
    tx: Queries,
    fx: Effects,
    row: InvitationDetails,
    userId: number,
    meta: RequestMeta,
  ): Promise<void> {
    if (!await acceptInvitation(tx, row.id, fx.now)) {
      throw new DomainError("not_found", NOT_WORKING);
    }
    await audit(tx, meta, fx.now, {
      action: "invitation.accepted",
      actorId: userId,
      target: { type: "invitation", id: row.id },
      details: { email: row.email, role: row.role, projectId: row.projectId },
    });
    const joined = row.projectId !== null && row.role !== "admin" &&
      await addMemberIn(tx, fx, { id: row.projectId, name: "" }, {
        userId,
        role: row.role,
        actorId: userId,
        notify: false,
      });
    if (!joined) fx.unchanged();
  }

  return {
    /**
     * Invites `email` to a project (owners and admins). An account with that email joins at
     * once (notified, and mailed when mail is on); `already_member` when it is in already.
     * Anyone else gets an invitation, mailed when mail is on; its link is returned either way.
     */
    async inviteToProject(
      actor: Actor,
      projectId: number,
      input: {
        email: string;
        role: "owner" | "member" | "viewer";
        expiresInDays?: number | undefined;
      },
      origin: string,
      meta: RequestMeta,
    ): Promise<InviteResult> {
      const email = cleanEmail(input.email);
      const days = daysOf(input.expiresInDays);
      // Refused callers are refused before they count against the limit.
      await requireManager(db, actor, { projectId });
      let mailed = false;
      const result = await throttled(
        actor,
        () =>
          runAction(deps.actions, ADDS_MEMBER, async (tx, fx): Promise<InviteResult> => {
            const project = (await requireManager(tx, actor, { projectId }))!;
            const user = await findUserByEmail(tx, email);
            if (!user) {
              const made = await invite(
                tx,
                actor,
                { email, role: input.role, days },
                project,
                origin,
                meta,
              );
              mailed = made.mailed;
              fx.unchanged();
              return { invitation: made.invitation, url: made.url };
            }
            const member = { userId: user.id, role: input.role, actorId: actor.id };
            const added = await addMemberIn(tx, fx, project, member);
            if (!added) throw new DomainError("already_member", "This person is already a member");
            if (mailOn) {
              // A direct mail no notification preference holds back; the notification it tells
              // of is not mailed a second time.
              const inviter = (await findUserById(tx, actor.id))!;
              const mail = addedMail(
                { inviterName: inviter.displayName, projectName: project.name, role: input.role },
                `${deps.baseUrl ?? origin.replace(/\/+$/, "")}/projects/${projectId}`,
                user,
              );
              await queueMail(tx, { to: user.email, kind: "member_added", ...mail }, {
                now: clock.now(),
                host: deps.mail.host!,
              });
              fx.afterNotify(async (tx, events) => {
                const ids = events.filter((e) => e.name === "notification.created")
                  .map((e) => (JSON.parse(e.data) as { id: number }).id);
                await markNotificationsMailed(tx, ids, fx.now);
              });
              mailed = true;
            }
            return { member: (await findMember(tx, projectId, user.id))! };
          }),
      );
      if (mailed) deps.onMailQueued();
      return result;
    },

    /**
     * Invites `email` to the server (admins) as an admin or a member, without a project;
     * `account_exists` when an account has that email.
     */
    async inviteToServer(
      actor: Actor,
      input: { email: string; role: "admin" | "member"; expiresInDays?: number | undefined },
      origin: string,
      meta: RequestMeta,
    ): Promise<{ invitation: Invitation; url: string }> {
      const email = cleanEmail(input.email);
      const days = daysOf(input.expiresInDays);
      await requireManager(db, actor, null);
      let mailed = false;
      const made = await throttled(actor, () =>
        db.transaction(async (tx) => {
          await requireManager(tx, actor, null);
          if (await findUserByEmail(tx, email)) {
            throw new DomainError("account_exists", "An account with this email exists already");
          }
          const made = await invite(
            tx,
            actor,
            { email, role: input.role, days },
            null,
            origin,
            meta,
          );
          mailed = made.mailed;
          return made;
        }));
      if (mailed) deps.onMailQueued();
      return { invitation: made.invitation, url: made.url };
    },

    /** A page of a project's invitations (owners) or, scope null, all of them (admins). */
    async list(
      actor: Actor,
      scope: InvitationScope,
      request: PageRequest,
    ): Promise<Page<Invitation>> {
      await requireManager(db, actor, scope);
      const { items, total } = await listInvitations(db, {
        ...(scope ? { projectId: scope.projectId } : {}),
        limit: request.pageSize,
        offset: offsetOf(request),
      });
      return pageOf(items.map(toInvitation), total, request);
    },

    /**
     * Revokes an invitation (its link stops working); revoking a revoked one changes nothing,
     * an accepted one is `conflict`. Through a project, only that project's invitations.
     */
    async revoke(
      actor: Actor,
      scope: InvitationScope,
      id: number,
      meta: RequestMeta,
    ): Promise<void> {
      await db.transaction(async (tx) => {
        await requireManager(tx, actor, scope);
        const row = await findInvitation(tx, id);
        if (!row || (scope !== null && row.projectId !== scope.projectId)) {
          throw new DomainError("not_found", "No such invitation");
        }
        if (row.acceptedAt !== null) {
          throw new DomainError("conflict", "The invitation was accepted already");
        }
        const at = clock.now().toISOString();
        // Revoking a revoked one changes nothing: no row.
        if (!await revokeInvitation(tx, id, at)) return;
        await audit(tx, meta, at, {
          action: "invitation.revoked",
          actorId: actor.id,
          target: { type: "invitation", id },
          details: { email: row.email, projectId: row.projectId },
        });
      });
    },

    /**
     * Sends an invitation again with a new link (the old one stops working) that works
     * `DEFAULT_INVITATION_DAYS` from now; `conflict` for an accepted or revoked one.
     */
    async resend(
      actor: Actor,
      scope: InvitationScope,
      id: number,
      origin: string,
      meta: RequestMeta,
    ): Promise<{ invitation: Invitation; url: string }> {
      await requireManager(db, actor, scope);
      let mailed = false;
      const result = await throttled(actor, () =>
        db.transaction(async (tx) => {
          const project = await requireManager(tx, actor, scope);
          const row = await findInvitation(tx, id);
          if (!row || (scope !== null && row.projectId !== scope.projectId)) {
            throw new DomainError("not_found", "No such invitation");
          }
          const { token, hash } = newLinkToken();
          const renewed = await renewInvitation(tx, id, {
            tokenHash: hash,
            expiresAt: new Date(clock.now().getTime() + DEFAULT_INVITATION_DAYS * DAY_MS)
              .toISOString(),
          });
          if (!renewed) {
            throw new DomainError("conflict", "The invitation was accepted or revoked");
          }
          const url = linkOf(token, origin);
          let projectName = project?.name ?? null;
          if (scope === null && renewed.projectId !== null) {
            projectName = (await projectAccess(tx, actor, renewed.projectId)).project.name;
          }
          mailed = await mailInvitation(tx, renewed, projectName, url, actor.id);
          await audit(tx, meta, clock.now().toISOString(), {
            action: "invitation.resent",
            actorId: actor.id,
            target: { type: "invitation", id },
            details: { email: renewed.email, projectId: renewed.projectId, mailed },
          });
          return { invitation: toInvitation(renewed), url };
        }));
      if (mailed) deps.onMailQueued();
      return result;
    },

    /** What a working link shows; `not_found` for any other (unknown, used, revoked, expired). */
    async view(token: string): Promise<InvitationView> {
      const row = await working(db, token);
      if (!row) throw new DomainError("not_found", NOT_WORKING);
      return {
        email: row.email,
        projectName: row.projectName,
        invitedByName: row.invitedByName,
        role: row.role,
        projectId: row.projectId,
        expiresAt: row.expiresAt,
      };
    },

    /**
     * Accepts an invitation. Signed in (`actor`): the account's email must be the invited one
     * (`forbidden` otherwise); it joins the project. Not signed in: a new account with the
     * invited email, `displayName` and `password` is made (verified), joins, and is signed in,
     * all in one transaction; `account_exists` when the email has an account (sign in first).
     * The returned cookie is null when the caller was signed in already.
     */
    async accept(
      token: string,
      input: { displayName?: string | undefined; password?: string | undefined },
      actor: Actor | null,
      meta: RequestMeta,
    ): Promise<{ user: PublicUser; cookie: string | null }> {
      if (actor) {
        const user = await runAction(deps.actions, ADDS_MEMBER, async (tx, fx) => {
          const row = await working(tx, token);
          if (!row) throw new DomainError("not_found", NOT_WORKING);
          const user = (await findUserById(tx, actor.id))!;
          if (user.email !== row.email) {
            throw new DomainError("forbidden", "This invitation is for another email address");
          }
          await join(tx, fx, row, user.id, meta);
          if (row.projectId === null && row.role === "admin" && user.role !== "admin") {
            return (await updateUser(tx, user.id, { role: "admin" }, clock.now().toISOString()))!;
          }
          return user;
        });
        return { user: publicUser(user), cookie: null };
      }
      // Checked before hashing: a link that does not work costs no hash.
      const before = await working(db, token);
      if (!before) throw new DomainError("not_found", NOT_WORKING);
      const displayName = input.displayName?.trim() ?? "";
      if (!displayName) throw invalid("displayName", "Display name cannot be blank");
      const password = input.password ?? "";
      if (password.length < 8) throw invalid("password", "Use at least 8 characters");
      if (password.length > 128) throw invalid("password", "Use at most 128 characters");
      if (await findUserByEmail(db, before.email)) {
        throw new DomainError("account_exists", "An account with this email exists: sign in first");
      }
      const passwordHash = await deps.hasher.hash(password);
      const minted = await deps.sessions.mint();
      const user = await runAction(deps.actions, ADDS_MEMBER, async (tx, fx) => {
        const row = await working(tx, token);
        if (!row) throw new DomainError("not_found", NOT_WORKING);
        const user = await insertUser(tx, {
          email: row.email,
          displayName,
          passwordHash,
          // An invitation to the server gives its role; one to a project, a member account.
          role: row.role === "admin" ? "admin" : "member",
          createdAt: clock.now().toISOString(),
          emailVerified: true,
        });
        if (!user) {
          throw new DomainError(
            "account_exists",
            "An account with this email exists: sign in first",
          );
        }
        await join(tx, fx, row, user.id, meta);
        await deps.sessions.store(tx, minted, user.id);
        return user;
      });
      return { user: publicUser(user), cookie: minted.cookie };
    },
  };
}

/** The invitation operations' type. */
export type Invitations = ReturnType<typeof createInvitations>;
