/** Projects and their members. */
import {
  countOwners,
  deleteMember,
  deleteProject,
  findMember,
  insertMember,
  insertProject,
  listMembers,
  listProjectsOfUser,
  type MemberRow,
  type ProjectRole,
  type ProjectRow,
  setProjectArchived,
  updateMemberRole,
  updateProject,
} from "../../db/projects/projects.ts";
import type { Queries } from "../../db/kernel/engine.ts";
import { findUserByEmail } from "../../db/accounts/users.ts";
import { type ProjectAccess, projectAccess, requireOwner } from "../accounts/access.ts";
import { type Actor, normaliseEmail } from "../accounts/accounts.ts";
import { DomainError, invalid } from "../kernel/errors.ts";
import { type DomainContext, type Effects, emits, runAction } from "./actions.ts";
import { audit, type RequestMeta } from "../accounts/audit.ts";

export type { MemberRow as Member, ProjectRole };

/** A member as a stream event carries it: as the members list shows it, with `projectId`. */
export type MemberEvent = MemberRow & { projectId: number };

/** The spec of an action that adds a member (`addMemberIn`). */
export const ADDS_MEMBER = emits("member.added");

/**
 * Inside an action (`ADDS_MEMBER`): adds user `userId` to `project` with `role`, notifies
 * them (`member_added`) and sends `member.added`; false (nothing done) when they are a member
 * already. Adding by email and an accepted or direct invitation all add members this way.
 * `notify: false` adds without the notification (one joining by their own invitation).
 */
export async function addMemberIn(
  tx: Queries,
  fx: Effects,
  project: { id: number; name: string },
  member: { userId: number; role: ProjectRole; actorId: number; notify?: boolean },
): Promise<boolean> {
  const added = await insertMember(tx, {
    projectId: project.id,
    userId: member.userId,
    role: member.role,
    at: fx.now,
  });
  if (!added) return false;
  if (member.notify !== false) {
    fx.notify({
      kind: "member_added",
      projectId: project.id,
      actorId: member.actorId,
      subjectType: "project",
      subjectId: project.id,
      text: project.name,
      recipients: [member.userId],
    });
  }
  const row = (await findMember(tx, project.id, member.userId))!;
  fx.event(project.id, "member.added", { ...row, projectId: project.id } satisfies MemberEvent);
  return true;
}

/** A project as the API shows it. */
export interface Project {
  id: number;
  name: string;
  description: string;
  archived: boolean;
  archivedAt: string | null;
  createdBy: number;
  createdAt: string;
  updatedAt: string;
  /** The caller's membership role; null for an admin who is not a member. */
  myRole: ProjectRole | null;
}

/**
 * A project as its stream events carry it: as the API shows it but without `myRole`, which
 * is each reader's own (every reader gets the same bytes).
 */
export function projectEvent(p: ProjectRow): Omit<Project, "myRole"> {
  const { myRole: _, ...project } = toProject(p, null);
  return project;
}

/** Shapes a stored project for the API with the caller's role. */
export function toProject(p: ProjectRow, myRole: ProjectRole | null): Project {
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    archived: p.archivedAt !== null,
    archivedAt: p.archivedAt,
    createdBy: p.createdBy,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
    myRole,
  };
}

function cleanName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw invalid("name", "Name cannot be blank");
  return trimmed;
}

/** The project and member operations. */
export function createProjects(ctx: DomainContext, deps: {
  /** Called after a commit that took `userId` (or everybody) out of a project. */
  onAccessLost?: (projectId: number, userId?: number) => void | Promise<void>;
}) {
  const { db, clock } = ctx;
  const now = () => clock.now().toISOString();
  const view = (a: ProjectAccess, p: ProjectRow = a.project) => toProject(p, a.memberRole);

  /** Throws unless the change keeps at least one owner. */
  async function keepAnOwner(
    tx: Queries,
    projectId: number,
    member: MemberRow,
    newRole: ProjectRole | null,
  ): Promise<void> {
    if (member.role === "owner" && newRole !== "owner" && await countOwners(tx, projectId) <= 1) {
      throw new DomainError("conflict", "A project must keep at least one owner");
    }
  }

  return {
    /** Projects the caller belongs to; archived ones only when asked. */
    async list(actor: Actor, options: { archived: boolean }): Promise<Project[]> {
      return (await listProjectsOfUser(db, actor.id, options.archived))
        .map((p) => toProject(p, p.role));
    },

    /** Creates a project with the caller as its owner. */
    create(
      actor: Actor,
      input: { name: string; description?: string | null | undefined },
    ): Promise<Project> {
      const name = cleanName(input.name);
      return db.transaction(async (tx) => {
        const at = now();
        const project = await insertProject(tx, {
          name,
          description: input.description?.trim() ?? "",
          createdBy: actor.id,
          at,
        });
        await insertMember(tx, { projectId: project.id, userId: actor.id, role: "owner", at });
        return toProject(project, "owner");
      });
    },

    /** A project with its members. */
    async get(
      actor: Actor,
      projectId: number,
    ): Promise<{ project: Project; members: MemberRow[] }> {
      const a = await projectAccess(db, actor, projectId);
      return { project: view(a), members: await listMembers(db, projectId) };
    },

    /** Renames or re-describes a project (owner). */
    update(
      actor: Actor,
      projectId: number,
      changes: { name?: string | undefined; description?: string | null | undefined },
    ): Promise<Project> {
      return runAction(ctx, emits("project.updated"), async (tx, fx) => {
        const a = await projectAccess(tx, actor, projectId);
        requireOwner(a);
        const name = changes.name === undefined ? undefined : cleanName(changes.name);
        const updated = await updateProject(tx, projectId, {
          ...(name !== undefined ? { name } : {}),
          // The description is never absent: `null` clears it to "".
          ...(changes.description !== undefined
            ? { description: changes.description?.trim() ?? "" }
            : {}),
        }, fx.now);
        fx.event(projectId, "project.updated", projectEvent(updated));
        return view(a, updated);
      });
    },

    /** Archives (read-only) or unarchives a project (owner). */
    setArchived(actor: Actor, projectId: number, archived: boolean): Promise<Project> {
      const spec = emits("project.archived", "project.unarchived");
      return runAction(ctx, spec, async (tx, fx) => {
        const a = await projectAccess(tx, actor, projectId);
        requireOwner(a, { evenArchived: !archived });
        if ((a.project.archivedAt !== null) === archived) {
          fx.unchanged();
          return view(a);
        }
        const at = fx.now;
        const row = await setProjectArchived(tx, projectId, archived ? at : null, at);
        fx.event(
          projectId,
          archived ? "project.archived" : "project.unarchived",
          projectEvent(row),
        );
        return view(a, row);
      });
    },

    /** Deletes a project (owner; works on archived projects too). */
    async remove(actor: Actor, projectId: number, meta: RequestMeta): Promise<void> {
      await db.transaction(async (tx) => {
        const a = await projectAccess(tx, actor, projectId);
        requireOwner(a, { evenArchived: true });
        const at = now();
        await deleteProject(tx, projectId, { at, by: actor.id });
        await audit(tx, meta, at, {
          action: "project.deleted",
          actorId: actor.id,
          target: { type: "project", id: projectId },
          details: { name: a.project.name },
        });
      });
      await deps.onAccessLost?.(projectId);
    },

    /** The members of a project. */
    async members(actor: Actor, projectId: number): Promise<MemberRow[]> {
      await projectAccess(db, actor, projectId);
      return await listMembers(db, projectId);
    },

    /** Adds a user by email (owner); they are notified. */
    async addMember(
      actor: Actor,
      projectId: number,
      input: { email: string; role: ProjectRole },
    ): Promise<MemberRow> {
      return await runAction(ctx, ADDS_MEMBER, async (tx, fx) => {
        const a = await projectAccess(tx, actor, projectId);
        requireOwner(a);
        const user = await findUserByEmail(tx, normaliseEmail(input.email));
        if (!user) throw new DomainError("not_found", "No user has this email");
        const member = { userId: user.id, role: input.role, actorId: actor.id };
        if (!await addMemberIn(tx, fx, a.project, member)) {
          throw new DomainError("conflict", "This user is already a member");
        }
        return (await findMember(tx, projectId, user.id))!;
      });
    },

    /** Changes a member's role (owner); the last owner cannot be demoted. */
    changeRole(
      actor: Actor,
      projectId: number,
      input: { userId: number; role: ProjectRole },
    ): Promise<MemberRow> {
      return runAction(ctx, emits("member.updated"), async (tx, fx) => {
        requireOwner(await projectAccess(tx, actor, projectId));
        const member = await findMember(tx, projectId, input.userId);
        if (!member) throw new DomainError("not_found", "No such member");
        await keepAnOwner(tx, projectId, member, input.role);
        await updateMemberRole(tx, projectId, input.userId, input.role);
        const updated = (await findMember(tx, projectId, input.userId))!;
        fx.event(projectId, "member.updated", { ...updated, projectId } satisfies MemberEvent);
        return updated;
      });
    },

    /** Removes a member (owner, or members leaving themselves); never the last owner. */
    async removeMember(actor: Actor, projectId: number, userId: number): Promise<void> {
      // `member.removed` also ends the removed member's open streams of the project, on every
      // instance, before any later event of it reaches them (see EventHub.publish).
      await runAction(ctx, emits("member.removed"), async (tx, fx) => {
        const a = await projectAccess(tx, actor, projectId);
        if (userId === actor.id && a.memberRole !== null) {
          if (a.project.archivedAt !== null) {
            throw new DomainError("forbidden", "The project is archived and read-only");
          }
        } else {
          requireOwner(a);
        }
        const member = await findMember(tx, projectId, userId);
        if (!member) throw new DomainError("not_found", "No such member");
        await keepAnOwner(tx, projectId, member, null);
        await deleteMember(tx, projectId, userId);
        fx.event(projectId, "member.removed", { projectId, userId });
      });
      await deps.onAccessLost?.(projectId, userId);
    },
  };
}

/** The project operations' type. */
export type Projects = ReturnType<typeof createProjects>;
