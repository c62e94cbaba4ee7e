/**
 * The trash: every delete of a thread, comment, note, chat message, to-do item, file,
 * calendar event or meeting moves it to its project's trash for `TRASH_DAYS` days, from where
 * it can be restored exactly as it was; deleted projects wait there for a system admin. A sweep
 * (at start-up and hourly) purges what has expired in bounded batches, each its own short
 * transaction, yielding between them so requests keep flowing.
 */
import { memberRole } from "../../db/projects/projects.ts";
import {
  deleteProjectRow,
  expiredProjectIds,
  findAnyFile,
  findDeletedProject,
  findTrashed,
  listDeletedProjects,
  listTrash,
  type PurgeBudget,
  purgeExpired,
  purgeItem,
  purgeProjectRows,
  restoreItemPlace,
  restoreLinkedFiles,
  restoreProjectRow,
  restoreRow,
  restoreThreadComments,
  threadOfCommentDeleted,
  TRASH_TYPES,
  type TrashRow,
  type TrashType,
} from "../../db/projects/trash.ts";
import { insertActivity } from "../../db/projects/activity.ts";
import { takeSweepTurn } from "../../db/kernel/sweep_turn.ts";
import {
  type ProjectAccess,
  projectAccess,
  requireOwner,
  requireWrite,
} from "../accounts/access.ts";
import type { Actor } from "../accounts/accounts.ts";
import { audit, NO_REQUEST, type RequestMeta } from "../accounts/audit.ts";
import { type DomainContext, emits, runAction } from "./actions.ts";
import { DomainError } from "../kernel/errors.ts";
import { offsetOf, type Page, pageOf, type PageRequest } from "../kernel/paging.ts";
import { type Project, toProject } from "./projects.ts";

export { TRASH_TYPES, type TrashType };

/** What a delete put in the trash, and what a restore (an "Undo") names. */
export interface TrashRef {
  type: TrashType;
  id: number;
}

/** A trash entry as the API shows it. */
export interface TrashEntry {
  type: TrashType;
  id: number;
  title: string;
  deletedAt: string;
  /** Null for items deleted before the trash existed. */
  deletedBy: number | null;
  /** When the sweep may purge it (it stays restorable until it is purged). */
  purgeAt: string;
}

/** A deleted project as the admin's trash shows it. */
export interface DeletedProject {
  id: number;
  name: string;
  deletedAt: string;
  deletedBy: number | null;
  purgeAt: string;
}

/** What one sweep did. */
export interface SweepResult {
  /** Items purged (a thread counts once, with its comments). */
  items: number;
  /** Projects purged. */
  projects: number;
  /** Write transactions it took. */
  transactions: number;
}

/** A running sweep schedule. */
export interface SweepSchedule {
  /** Clears the timer and waits for a sweep in progress to stop at its next batch. */
  stop(): Promise<void>;
}

/** Rows purged per transaction at most. */
export const SWEEP_BATCH = 500;
/**
 * Work one transaction may do, by the clock, before it commits and lets requests in (it ends
 * sooner on a slow or busy machine; with a fixed test clock only the row limit counts).
 */
export const SWEEP_BATCH_MS = 20;
/** Time between sweeps. */
export const SWEEP_INTERVAL_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** Lets other work (requests, group commits) run between two batches. */
const pause = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** The trash operations. */
export function createTrash(
  ctx: DomainContext,
  options: {
    trashDays: number;
    /** Other old rows the hourly sweep removes after the trash's (the audit log's); how many. */
    alsoSweep?: () => Promise<number>;
  },
) {
  const { db } = ctx;
  const purgeAt = (deletedAt: string) =>
    new Date(Date.parse(deletedAt) + options.trashDays * DAY_MS).toISOString();
  let running: Promise<SweepResult> | null = null;

  /** The budget of one transaction: the row limit, and the time limit by the clock. */
  function budget(): PurgeBudget {
    const start = ctx.clock.now().getTime();
    return {
      limit: SWEEP_BATCH,
      more: () => ctx.clock.now().getTime() - start < SWEEP_BATCH_MS,
    };
  }

  async function runSweep(signal: AbortSignal | undefined): Promise<SweepResult> {
    const now = ctx.clock.now();
    const cutoff = new Date(now.getTime() - options.trashDays * DAY_MS).toISOString();
    const result: SweepResult = { items: 0, projects: 0, transactions: 0 };
    while (!signal?.aborted) {
      // Each batch its own transaction; its budget's clock starts when it runs.
      // Several instances on one database sweep one at a time (`takeSweepTurn`): one that
      // finds another sweeping ends its own.
      const batch = await db.transaction(async (tx) =>
        await takeSweepTurn(tx, "trash") ? await purgeExpired(tx, cutoff, budget()) : null
      );
      if (batch === null) return result;
      result.transactions++;
      result.items += batch.purged;
      for (const storedName of batch.storedNames) await ctx.files.remove(storedName);
      if (batch.purged === 0) break;
      await pause();
    }
    for (const projectId of await expiredProjectIds(db, cutoff)) {
      let step: { rowsLeft: boolean } | null = { rowsLeft: true };
      while (step?.rowsLeft) {
        if (signal?.aborted) return result;
        const turn = await db.transaction(async (tx) =>
          await takeSweepTurn(tx, "trash")
            ? {
              step: await purgeProjectRows(tx, projectId, {
                cutoff,
                at: now.toISOString(),
                budget: budget(),
              }),
            }
            : null
        );
        if (turn === null) return result;
        step = turn.step;
        result.transactions++;
        await pause();
      }
      // Restored before its purge began: nothing of it was touched.
      if (step === null) continue;
      await ctx.files.removeProject(projectId);
      // The purge is audited with its last transaction, the one that removes the project's
      // row: no actor (the sweep), no request.
      const deleted = await db.transaction(async (tx) => {
        if (!await takeSweepTurn(tx, "trash")) return false;
        await deleteProjectRow(tx, projectId);
        await audit(tx, NO_REQUEST, now.toISOString(), {
          action: "project.purged",
          actorId: null,
          target: { type: "project", id: projectId },
          details: { trashDays: options.trashDays },
        });
        return true;
      });
      if (!deleted) return result;
      result.transactions++;
      result.projects++;
    }
    return result;
  }

  /** Purges what expired, once; a sweep asked for while one runs joins that one. */
  function sweep(sweepOptions: { signal?: AbortSignal } = {}): Promise<SweepResult> {
    running ??= runSweep(sweepOptions.signal).finally(() => running = null);
    return running;
  }

  /** A page of the project's trash rows with the caller's access (members, not viewers). */
  async function entries(actor: Actor, projectId: number, page: PageRequest) {
    const access = await projectAccess(db, actor, projectId);
    if (access.role === "viewer") {
      throw new DomainError("forbidden", "Viewers cannot see the trash");
    }
    const { items, total } = await listTrash(db, projectId, {
      limit: page.pageSize,
      offset: offsetOf(page),
    });
    return { items: items.map((row) => ({ row, access })), total };
  }

  function entryOf(r: TrashRow): TrashEntry {
    return {
      type: r.type,
      id: r.id,
      title: r.title,
      deletedAt: r.deletedAt,
      deletedBy: r.deletedBy,
      purgeAt: purgeAt(r.deletedAt),
    };
  }

  return {
    /** A page of the project's trash, most recently deleted first (members, not viewers). */
    async list(actor: Actor, projectId: number, page: PageRequest): Promise<Page<TrashEntry>> {
      const { items, total } = await entries(actor, projectId, page);
      return pageOf(items.map(({ row }) => entryOf(row)), total, page);
    },

    /**
     * `list` with whether the caller may restore each entry (the rule `restore` applies), so
     * a page offers Restore only where it would succeed.
     */
    async listWithRights(
      actor: Actor,
      projectId: number,
      page: PageRequest,
    ): Promise<Page<TrashEntry & { mayRestore: boolean }>> {
      const { items, total } = await entries(actor, projectId, page);
      return pageOf(
        items.map(({ row, access }) => ({ ...entryOf(row), mayRestore: mayRestore(access, row) })),
        total,
        page,
      );
    },

    /**
     * Restores an item exactly as it was: its attachments, its place in its column, a thread's
     * comments that went with it. Allowed to the one who deleted it, its author, the owner or
     * an admin of an open project; a comment whose thread is still deleted is a conflict.
     * Writes `item_restored` and sends `item.restored`.
     */
    restore(actor: Actor, projectId: number, ref: TrashRef): Promise<TrashRef> {
      return runAction(ctx, emits("item.restored"), async (tx, fx) => {
        const access = await projectAccess(tx, actor, projectId);
        requireWrite(access);
        const row = await findTrashed(tx, projectId, ref);
        if (!row) throw new DomainError("not_found", `No such ${ref.type} in the trash`);
        if (!mayRestore(access, row)) {
          throw new DomainError(
            "forbidden",
            "Only the one who deleted it, its author or the project owner can restore it",
          );
        }
        switch (row.type) {
          case "comment":
            if (await threadOfCommentDeleted(tx, row.id)) {
              throw new DomainError(
                "conflict",
                "Cannot restore the comment: its thread is deleted (restore the thread)",
              );
            }
            await restoreRow(tx, row);
            await restoreLinkedFiles(tx, [{ type: "comment", id: row.id }]);
            break;
          case "thread": {
            await restoreRow(tx, row);
            const comments = await restoreThreadComments(tx, row.id);
            await restoreLinkedFiles(tx, [
              { type: "thread", id: row.id },
              ...comments.map((id) => ({ type: "comment" as const, id })),
            ]);
            break;
          }
          case "item":
            await restoreRow(tx, row);
            await restoreItemPlace(tx, row.id, fx.now);
            await restoreLinkedFiles(tx, [{ type: "item", id: row.id }]);
            break;
          case "message":
            await restoreRow(tx, row);
            await restoreLinkedFiles(tx, [{ type: "message", id: row.id }]);
            break;
          default:
            await restoreRow(tx, row);
        }
        fx.activity({
          projectId,
          kind: "item_restored",
          actorId: actor.id,
          subjectType: row.type,
          subjectId: row.id,
          summary: row.title,
        });
        fx.event(projectId, "item.restored", { type: row.type, id: row.id });
        return { type: row.type, id: row.id };
      });
    },

    /**
     * Removes a file and its stored bytes at once, live or in the trash (owner or admin): for
     * a secret uploaded by mistake. Its attachment links, activity and notifications go too.
     */
    async purgeFile(actor: Actor, projectId: number, fileId: number): Promise<void> {
      // Purging a live file deletes it; one in the trash was deleted already.
      await runAction(ctx, emits("file.deleted"), async (tx, fx) => {
        const access = await projectAccess(tx, actor, projectId);
        const file = await findAnyFile(tx, projectId, fileId);
        if (!file) throw new DomainError("not_found", "No such file");
        requireOwner(access);
        await purgeItem(tx, "file", file.id);
        fx.removeBytesAfterCommit(file.storedName);
        if (file.live) fx.event(projectId, "file.deleted", { id: file.id, projectId });
        else fx.unchanged();
      });
    },

    /** A page of deleted projects, most recently deleted first (system admins). */
    async deletedProjects(actor: Actor, page: PageRequest): Promise<Page<DeletedProject>> {
      requireAdmin(actor);
      const { items, total } = await listDeletedProjects(db, {
        limit: page.pageSize,
        offset: offsetOf(page),
      });
      return pageOf(items.map((p) => ({ ...p, purgeAt: purgeAt(p.deletedAt) })), total, page);
    },

    /** Restores a deleted project not yet being purged (system admins); writes `item_restored`. */
    async restoreProject(actor: Actor, projectId: number, meta: RequestMeta): Promise<Project> {
      requireAdmin(actor);
      return await db.transaction(async (tx) => {
        const row = await findDeletedProject(tx, projectId);
        if (!row) throw new DomainError("not_found", "No such project in the trash");
        await restoreProjectRow(tx, row.id);
        await audit(tx, meta, ctx.clock.now().toISOString(), {
          action: "project.restored",
          actorId: actor.id,
          target: { type: "project", id: row.id },
          details: { name: row.name },
        });
        await insertActivity(tx, {
          projectId: row.id,
          kind: "item_restored",
          actorId: actor.id,
          subjectType: "project",
          subjectId: row.id,
          summary: row.name,
          createdAt: ctx.clock.now().toISOString(),
        });
        const access = await projectAccess(tx, actor, row.id);
        return toProject(access.project, await memberRole(tx, row.id, actor.id));
      });
    },

    sweep,

    /**
     * Sweeps now and then every `intervalMs` (an hour) until stopped; results and failures
     * are handed to the callbacks (a failed sweep is tried again at the next interval).
     */
    startSweeps(
      schedule: {
        intervalMs?: number;
        /** With `auditRows`: the rows `alsoSweep` removed after the trash's sweep. */
        onSwept?: (result: SweepResult & { auditRows: number }) => void;
        onError?: (error: unknown) => void;
      } = {},
    ): SweepSchedule {
      const controller = new AbortController();
      const run = () => {
        // A tick while a sweep still runs would only join it and report it twice.
        if (running) return;
        sweep({ signal: controller.signal }).then(async (result) => {
          const auditRows = options.alsoSweep ? await options.alsoSweep() : 0;
          schedule.onSwept?.({ ...result, auditRows });
        }).catch((error) => schedule.onError?.(error));
      };
      run();
      const timer = setInterval(run, schedule.intervalMs ?? SWEEP_INTERVAL_MS);
      return {
        async stop() {
          clearInterval(timer);
          controller.abort();
          await running?.catch(() => {});
        },
      };
    },
  };
}

/**
 * Whether `access` may restore `row`: a member or owner of an open project who deleted it or
 * wrote it, or an owner or admin of the project.
 */
function mayRestore(access: ProjectAccess, row: TrashRow): boolean {
  if (access.role === "viewer" || access.project.archivedAt !== null) return false;
  const { actor } = access;
  return access.role === "owner" || row.deletedBy === actor.id || row.ownerId === actor.id;
}

function requireAdmin(actor: Actor): void {
  if (actor.role !== "admin") throw new DomainError("forbidden", "Administrators only");
}

/** The trash operations' type. */
export type Trash = ReturnType<typeof createTrash>;

/** Whether `value` names a trash type. */
export function isTrashType(value: string): value is TrashType {
  return (TRASH_TYPES as readonly string[]).includes(value);
}
