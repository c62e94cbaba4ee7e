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
} from "../db/projects.ts";
import type { Database } from "../db/sqlite.ts";
import type { UserEventRow } from "../db/user_events.ts";
import { findUserByEmail } from "../db/users.ts";
import { type ProjectAccess, projectAccess, requireOwner } from "./access.ts";
import { type Actor, normaliseEmail } from "./accounts.ts";
import type { Clock } from "./clock.ts";
import { DomainError, invalid } from "./errors.ts";
import { notify } from "./notifications.ts";

export type { MemberRow as Member, ProjectRole };

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
export function createProjects(deps: {
  db: Database;
  clock: Clock;
  /** Called after a commit that took `userId` (or everybody) out of a project. */
  onAccessLost?: (projectId: number, userId?: number) => void;
  /** Publishes users' own stream events after the commit that wrote them. */
  onUserEvents?: (events: UserEventRow[]) => void;
}) {
  const { db, clock } = deps;
  const now = () => clock.now().toISOString();
  const access = (actor: Actor, projectId: number) => projectAccess(db, actor, projectId);
  const view = (a: ProjectAccess, p: ProjectRow = a.project) => toProject(p, a.memberRole);

  /** Throws unless the change keeps at least one owner. */
  function keepAnOwner(projectId: number, member: MemberRow, newRole: ProjectRole | null): void {
    if (member.role === "owner" && newRole !== "owner" && countOwners(db, projectId) <= 1) {
      throw new DomainError("conflict", "A project must keep at least one owner");
    }
  }

  return {
    /** Projects the caller belongs to; archived ones only when asked. */
    list(actor: Actor, options: { archived: boolean }): Project[] {
      return listProjectsOfUser(db, actor.id, options.archived).map((p) => toProject(p, p.role));
    },

    /** Creates a project with the caller as its owner. */
    create(
      actor: Actor,
      input: { name: string; description?: string | null | undefined },
    ): Project {
      const name = cleanName(input.name);
      return db.tx(() => {
        const at = now();
        const project = insertProject(db, {
          name,
          description: input.description?.trim() ?? "",
          createdBy: actor.id,
          at,
        });
        insertMember(db, { projectId: project.id, userId: actor.id, role: "owner", at });
        return toProject(project, "owner");
      });
    },

    /** A project with its members. */
    get(actor: Actor, projectId: number): { project: Project; members: MemberRow[] } {
      const a = access(actor, projectId);
      return { project: view(a), members: listMembers(db, projectId) };
    },

    /** Renames or re-describes a project (owner). */
    update(
      actor: Actor,
      projectId: number,
      changes: { name?: string | undefined; description?: string | null | undefined },
    ): Project {
      return db.tx(() => {
        const a = access(actor, projectId);
        requireOwner(a);
        const name = changes.name === undefined ? undefined : cleanName(changes.name);
        return view(
          a,
          updateProject(db, projectId, {
            ...(name !== undefined ? { name } : {}),
            // The description is never absent: `null` clears it to "".
            ...(changes.description !== undefined
              ? { description: changes.description?.trim() ?? "" }
              : {}),
          }, now()),
        );
      });
    },

    /** Archives (read-only) or unarchives a project (owner). */
    setArchived(actor: Actor, projectId: number, archived: boolean): Project {
      return db.tx(() => {
        const a = access(actor, projectId);
        requireOwner(a, { evenArchived: !archived });
        if ((a.project.archivedAt !== null) === archived) return view(a);
        const at = now();
        return view(a, setProjectArchived(db, projectId, archived ? at : null, at));
      });
    },

    /** Deletes a project (owner; works on archived projects too). */
    remove(actor: Actor, projectId: number): void {
      db.tx(() => {
        const a = access(actor, projectId);
        requireOwner(a, { evenArchived: true });
        deleteProject(db, projectId, { at: now(), by: actor.id });
      });
      deps.onAccessLost?.(projectId);
    },

    /** The members of a project. */
    members(actor: Actor, projectId: number): MemberRow[] {
      access(actor, projectId);
      return listMembers(db, projectId);
    },

    /** Adds a user by email (owner); they are notified. */
    addMember(
      actor: Actor,
      projectId: number,
      input: { email: string; role: ProjectRole },
    ): MemberRow {
      const events: UserEventRow[] = [];
      const added = db.tx(() => {
        const a = access(actor, projectId);
        requireOwner(a);
        const user = findUserByEmail(db, normaliseEmail(input.email));
        if (!user) throw new DomainError("not_found", "No user has this email");
        if (!insertMember(db, { projectId, userId: user.id, role: input.role, at: now() })) {
          throw new DomainError("conflict", "This user is already a member");
        }
        notify(db, clock, {
          kind: "member_added",
          projectId,
          actorId: actor.id,
          subjectType: "project",
          subjectId: projectId,
          text: a.project.name,
          recipients: [user.id],
        }, (e) => events.push(e));
        return findMember(db, projectId, user.id)!;
      });
      deps.onUserEvents?.(events);
      return added;
    },

    /** Changes a member's role (owner); the last owner cannot be demoted. */
    changeRole(
      actor: Actor,
      projectId: number,
      input: { userId: number; role: ProjectRole },
    ): MemberRow {
      return db.tx(() => {
        requireOwner(access(actor, projectId));
        const member = findMember(db, projectId, input.userId);
        if (!member) throw new DomainError("not_found", "No such member");
        keepAnOwner(projectId, member, input.role);
        updateMemberRole(db, projectId, input.userId, input.role);
        return findMember(db, projectId, input.userId)!;
      });
    },

    /** Removes a member (owner, or members leaving themselves); never the last owner. */
    removeMember(actor: Actor, projectId: number, userId: number): void {
      db.tx(() => {
        const a = access(actor, projectId);
        if (userId === actor.id && a.memberRole !== null) {
          if (a.project.archivedAt !== null) {
            throw new DomainError("forbidden", "The project is archived and read-only");
          }
        } else {
          requireOwner(a);
        }
        const member = findMember(db, projectId, userId);
        if (!member) throw new DomainError("not_found", "No such member");
        keepAnOwner(projectId, member, null);
        deleteMember(db, projectId, userId);
      });
      deps.onAccessLost?.(projectId, userId);
    },
  };
}

/** The project operations' type. */
export type Projects = ReturnType<typeof createProjects>;
