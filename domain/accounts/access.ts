/**
 * Permissions, in one place. A project is visible to its members and to system admins
 * (who act as its owner); to anyone else it does not exist (404). Viewers only read;
 * members create and edit shared work; authored content is edited by its author, the
 * owner or an admin; an archived project is read-only until unarchived.
 */
import {
  findProject,
  memberRole,
  type ProjectRole,
  type ProjectRow,
} from "../../db/projects/projects.ts";
import type { Queries } from "../../db/kernel/engine.ts";
import type { Actor } from "./accounts.ts";
import { DomainError } from "../kernel/errors.ts";

/** The caller's standing in one project. */
export interface ProjectAccess {
  actor: Actor;
  project: ProjectRow;
  /** The caller's membership role, null for an admin who is not a member. */
  memberRole: ProjectRole | null;
  /** The role the caller acts with: an admin acts as an owner. */
  role: ProjectRole;
}

/** Loads `projectId` for `actor`, or throws `not_found` when they cannot see it. */
export async function projectAccess(
  q: Queries,
  actor: Actor,
  projectId: number,
): Promise<ProjectAccess> {
  const project = await findProject(q, projectId);
  const role = project ? await memberRole(q, projectId, actor.id) : null;
  if (!project || (role === null && actor.role !== "admin")) {
    throw new DomainError("not_found", "No such project");
  }
  return { actor, project, memberRole: role, role: actor.role === "admin" ? "owner" : role! };
}

function requireOpen(access: ProjectAccess): void {
  if (access.project.archivedAt !== null) {
    throw new DomainError("forbidden", "The project is archived and read-only");
  }
}

/** Allows creating content and editing shared work: members and owners of an open project. */
export function requireWrite(access: ProjectAccess): void {
  if (access.role === "viewer") {
    throw new DomainError("forbidden", "Viewers cannot change the project");
  }
  requireOpen(access);
}

/** Allows managing the project: owners (and admins) of an open project. */
export function requireOwner(
  access: ProjectAccess,
  options: { evenArchived?: boolean } = {},
): void {
  if (access.role !== "owner") {
    throw new DomainError("forbidden", "Only the project owner can do this");
  }
  if (!options.evenArchived) requireOpen(access);
}

/** Allows editing or deleting authored content: its author, the owner or an admin. */
export function requireAuthor(access: ProjectAccess, authorId: number): void {
  requireWrite(access);
  if (access.role !== "owner" && authorId !== access.actor.id) {
    throw new DomainError("forbidden", "Only the author or the project owner can do this");
  }
}
