/**
 * Milestones: shared work any member edits. Progress is floor(100 × completed linked live
 * to-do items / linked live items), 0 with none; it is computed, never stored.
 */
import {
  countMilestones,
  findMilestone,
  insertMilestone,
  linkedTodoCounts,
  listMilestones,
  milestonePosition,
  type MilestoneRow,
  pageMilestones,
  updateMilestone,
} from "../../db/planning/milestones.ts";
import type { Queries } from "../../db/kernel/engine.ts";
import { projectAccess, requireWrite } from "../accounts/access.ts";
import type { Actor } from "../accounts/accounts.ts";
import { type DomainContext, emits, runAction } from "../projects/actions.ts";
import { nonBlank, parseDate } from "./calendar.ts";
import { DomainError } from "../kernel/errors.ts";
import { offsetOf, type Page, pageOf, type PageRequest } from "../kernel/paging.ts";

/** A milestone as the API shows it. */
export type Milestone = MilestoneRow;

/** The milestone operations. */
export function createMilestones(ctx: DomainContext) {
  const { db } = ctx;
  const milestone = async (q: Queries, projectId: number, id: number): Promise<MilestoneRow> => {
    const row = await findMilestone(q, projectId, id);
    if (!row) throw new DomainError("not_found", "No such milestone");
    return row;
  };

  return {
    /** A page of a project's milestones with their progress, oldest first (one read). */
    page(actor: Actor, projectId: number, request: PageRequest): Promise<Page<Milestone>> {
      return db.read(async (q) => {
        await projectAccess(q, actor, projectId);
        const items = await pageMilestones(q, projectId, request.pageSize, offsetOf(request));
        return pageOf(items, await countMilestones(q, projectId), request);
      });
    },

    /**
     * The number of the page (of `pageSize`) that lists a milestone, 1 when it is not there:
     * where a page goes back to after it was saved.
     */
    async pageHolding(
      actor: Actor,
      projectId: number,
      milestoneId: number,
      pageSize: number,
    ): Promise<number> {
      await projectAccess(db, actor, projectId);
      const before = await milestonePosition(db, projectId, milestoneId);
      return before === null ? 1 : Math.floor(before / pageSize) + 1;
    },

    /** All of a project's milestones with their progress, oldest first (the to-do forms' choice). */
    async list(actor: Actor, projectId: number): Promise<Milestone[]> {
      await projectAccess(db, actor, projectId);
      return await listMilestones(db, projectId);
    },

    /**
     * How many live to-do items are linked to each of a project's milestones, and how many of
     * them are complete (what `progress` is computed from), by milestone id.
     */
    async todoCounts(
      actor: Actor,
      projectId: number,
    ): Promise<Map<number, { total: number; done: number }>> {
      await projectAccess(db, actor, projectId);
      return await linkedTodoCounts(db, projectId);
    },

    /** Creates a milestone (members); writes `milestone_updated`. */
    create(
      actor: Actor,
      projectId: number,
      input: {
        title: string;
        description?: string | null | undefined;
        dueDate?: string | null | undefined;
      },
    ): Promise<Milestone> {
      return runAction(ctx, emits("milestone.created"), async (tx, fx) => {
        requireWrite(await projectAccess(tx, actor, projectId));
        const title = nonBlank("title", input.title);
        const dueDate = input.dueDate == null ? null : parseDate("dueDate", input.dueDate);
        const id = await insertMilestone(tx, {
          projectId,
          creatorId: actor.id,
          title,
          description: input.description ?? null,
          dueDate,
          createdAt: fx.now,
        });
        fx.activity({
          projectId,
          kind: "milestone_updated",
          actorId: actor.id,
          subjectType: "milestone",
          subjectId: id,
          summary: title,
        });
        const created = await milestone(tx, projectId, id);
        fx.event(projectId, "milestone.created", created);
        return created;
      });
    },

    /** One milestone with its progress. */
    async get(actor: Actor, projectId: number, milestoneId: number): Promise<Milestone> {
      await projectAccess(db, actor, projectId);
      return await milestone(db, projectId, milestoneId);
    },

    /** Edits a milestone (members); `null` clears the description or due date. */
    update(
      actor: Actor,
      projectId: number,
      input: {
        milestoneId: number;
        title?: string | undefined;
        description?: string | null | undefined;
        dueDate?: string | null | undefined;
      },
    ): Promise<Milestone> {
      return runAction(ctx, emits("milestone.updated"), async (tx, fx) => {
        requireWrite(await projectAccess(tx, actor, projectId));
        const row = await milestone(tx, projectId, input.milestoneId);
        const title = input.title === undefined ? row.title : nonBlank("title", input.title);
        await updateMilestone(tx, row.id, {
          title,
          description: input.description === undefined ? row.description : input.description,
          dueDate: input.dueDate === undefined
            ? row.dueDate
            : input.dueDate === null
            ? null
            : parseDate("dueDate", input.dueDate),
          updatedAt: fx.now,
        });
        fx.activity({
          projectId,
          kind: "milestone_updated",
          actorId: actor.id,
          subjectType: "milestone",
          subjectId: row.id,
          summary: title,
        });
        const updated = await milestone(tx, projectId, row.id);
        fx.event(projectId, "milestone.updated", updated);
        return updated;
      });
    },
  };
}

/** The milestone operations' type. */
export type Milestones = ReturnType<typeof createMilestones>;
