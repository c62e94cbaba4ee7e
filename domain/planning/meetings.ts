/**
 * Meetings: invitees are project members; invitations and updates are notified (never to
 * the actor). Schedule conflicts are warnings, never failures: see `conflicts` below.
 */
import { eventsOverlapping } from "../../db/planning/calendar.ts";
import {
  busyMeetings,
  countMeetings,
  deleteMeeting,
  findMeeting,
  insertMeeting,
  type MeetingRow,
  membersAmong,
  pageMeetings,
  pressingTodos,
  setInvitees,
  updateMeeting,
} from "../../db/planning/meetings.ts";
import type { Queries } from "../../db/kernel/engine.ts";
import { listProjectsOfUser } from "../../db/projects/projects.ts";
import { projectAccess, requireWrite } from "../accounts/access.ts";
import type { Actor } from "../accounts/accounts.ts";
import { type DomainContext, emits, runAction } from "../projects/actions.ts";
import { nonBlank, parseInstant, requireOrdered } from "./calendar.ts";
import { addDays, utcDay } from "../kernel/days.ts";
import { DomainError, invalid } from "../kernel/errors.ts";
import { offsetOf, type Page, pageOf, type PageRequest } from "../kernel/paging.ts";
import type { TrashRef } from "../projects/trash.ts";

/** A meeting as the API shows it. */
export type Meeting = MeetingRow;

/** Something a participant is already committed to around a meeting's time. */
export interface Conflict {
  type: "meeting" | "event" | "todo";
  id: number;
  projectId: number;
  /** Null when the caller is not a member of the item's project. */
  title: string | null;
  start: string;
  end: string;
  /** The participant concerned (the creator, for events). */
  userId: number;
}

/** A meeting with the conflicts it was saved with. */
export interface SavedMeeting {
  meeting: Meeting;
  warnings: Conflict[];
}

/** To-dos due this many days either side of a meeting's UTC dates count as conflicts. */
const TODO_WINDOW_DAYS = 3;
const TYPE_ORDER = { event: 0, meeting: 1, todo: 2 } as const;

/** An instant or date as a sortable instant (a date counts as its UTC midnight). */
function sortKey(value: string): string {
  return value.length === 10 ? `${value}T00:00:00.000Z` : value;
}

function byStart(a: Conflict, b: Conflict): number {
  const [x, y] = [sortKey(a.start), sortKey(b.start)];
  if (x !== y) return x < y ? -1 : 1;
  return TYPE_ORDER[a.type] - TYPE_ORDER[b.type] || a.id - b.id || a.userId - b.userId;
}

/**
 * A project's meetings split at `now`: those not yet over, soonest first, and those over,
 * latest first (a meeting is over when its end is not after `now`).
 */
export function agendaOf(
  meetings: Meeting[],
  now: string,
): { upcoming: Meeting[]; past: Meeting[] } {
  const upcoming = meetings.filter((m) => m.endAt > now)
    .sort((a, b) => a.startAt.localeCompare(b.startAt) || a.id - b.id);
  const past = meetings.filter((m) => m.endAt <= now)
    .sort((a, b) => b.startAt.localeCompare(a.startAt) || b.id - a.id);
  return { upcoming, past };
}

/** The meeting operations. */
export function createMeetings(ctx: DomainContext) {
  const { db } = ctx;
  const meeting = async (q: Queries, projectId: number, id: number): Promise<MeetingRow> => {
    const row = await findMeeting(q, projectId, id);
    if (!row) throw new DomainError("not_found", "No such meeting");
    return row;
  };

  /** Distinct invitees, all members of the project, or `validation`. */
  const invitees = async (q: Queries, projectId: number, ids: number[]): Promise<number[]> => {
    const unique = [...new Set(ids)];
    const members = await membersAmong(q, projectId, unique);
    const strangers = unique.filter((id) => !members.has(id));
    if (strangers.length > 0) {
      throw invalid("inviteeIds", `Cannot invite non-members: ${strangers.join(", ")}`);
    }
    return unique.sort((a, b) => a - b);
  };

  const range = (input: { startAt: string; endAt: string }) => {
    const startAt = parseInstant("startAt", input.startAt);
    const endAt = parseInstant("endAt", input.endAt);
    requireOrdered(startAt, endAt);
    return { startAt, endAt };
  };

  /**
   * The conflicts of a meeting in `projectId` over (`startAt`, `endAt`) for its
   * participants: (a) other live meetings in any project a participant organises or is
   * invited to that overlap it, one per (meeting, participant); (b) this project's live
   * events that overlap it (for their creator); (c) incomplete `high` priority to-dos in
   * any project assigned to a participant and due from 3 days before the start's UTC
   * date to 3 days after the end's. Touching ranges do not overlap; deleted projects are
   * ignored; items of projects the caller is not a member of (an admin is, of every
   * one) have `title: null`. Sorted by start, type, id and participant.
   */
  const conflicts = async (
    q: Queries,
    actor: Actor,
    projectId: number,
    around: { startAt: string; endAt: string; participants: number[]; excludeIds: number[] },
  ): Promise<Conflict[]> => {
    const userIds = [...new Set(around.participants)];
    const visible = actor.role === "admin"
      ? null
      : new Set((await listProjectsOfUser(q, actor.id, true)).map((p) => p.id));
    const titled = (itemProjectId: number, title: string) =>
      visible === null || visible.has(itemProjectId) ? title : null;
    const found: Conflict[] = [];
    for (const m of await busyMeetings(q, { ...around, userIds })) {
      found.push({
        type: "meeting",
        id: m.id,
        projectId: m.projectId,
        title: titled(m.projectId, m.title),
        start: m.startAt,
        end: m.endAt,
        userId: m.userId,
      });
    }
    for (const e of await eventsOverlapping(q, projectId, around)) {
      found.push({
        type: "event",
        id: e.id,
        projectId: e.projectId,
        title: titled(e.projectId, e.title),
        start: e.startAt,
        end: e.endAt,
        userId: e.creatorId,
      });
    }
    const todos = await pressingTodos(q, {
      userIds,
      firstDay: addDays(utcDay(around.startAt), -TODO_WINDOW_DAYS),
      lastDay: addDays(utcDay(around.endAt), TODO_WINDOW_DAYS),
    });
    for (const t of todos) {
      found.push({
        type: "todo",
        id: t.id,
        projectId: t.projectId,
        title: titled(t.projectId, t.title),
        start: t.startDate ?? t.dueDate,
        end: t.dueDate,
        userId: t.assigneeId,
      });
    }
    return found.sort(byStart);
  };

  const warningsFor = (q: Queries, actor: Actor, row: MeetingRow): Promise<Conflict[]> =>
    conflicts(q, actor, row.projectId, {
      startAt: row.startAt,
      endAt: row.endAt,
      participants: [row.creatorId, ...row.inviteeIds],
      excludeIds: [row.id],
    });

  return {
    /**
     * A page of a project's meetings, upcoming first: those not over by the clock, soonest
     * first, then those over, latest first (the order of `agendaOf`). One read, so the page
     * and its total agree.
     */
    page(actor: Actor, projectId: number, request: PageRequest): Promise<Page<Meeting>> {
      const now = ctx.clock.now().toISOString();
      return db.read(async (q) => {
        await projectAccess(q, actor, projectId);
        const items = await pageMeetings(q, projectId, now, {
          limit: request.pageSize,
          offset: offsetOf(request),
        });
        return pageOf(items, await countMeetings(q, projectId), request);
      });
    },

    /**
     * A meeting's conflicts as its save reports them (itself left out), for those of its
     * organiser and invitees who are still members of the project.
     */
    async warnings(actor: Actor, projectId: number, meetingId: number): Promise<Conflict[]> {
      await projectAccess(db, actor, projectId);
      const row = await meeting(db, projectId, meetingId);
      const everyone = [row.creatorId, ...row.inviteeIds];
      const members = await membersAmong(db, projectId, everyone);
      // The caller counts when taking part, member or not (an admin organising, say).
      if (everyone.includes(actor.id)) members.add(actor.id);
      const { startAt, endAt } = row;
      return await conflicts(db, actor, projectId, {
        startAt,
        endAt,
        participants: [...members],
        excludeIds: [row.id],
      });
    },

    /**
     * The conflicts a meeting over the range would have, the caller organising it with
     * `inviteeIds` (members of the project); `excludeMeetingId` is left out.
     */
    async check(
      actor: Actor,
      projectId: number,
      q: {
        startAt?: string | undefined;
        endAt?: string | undefined;
        inviteeIds: number[];
        excludeMeetingId: number | null;
      },
    ): Promise<Conflict[]> {
      await projectAccess(db, actor, projectId);
      if (!q.startAt) throw invalid("startAt", "Required");
      if (!q.endAt) throw invalid("endAt", "Required");
      const times = range({ startAt: q.startAt, endAt: q.endAt });
      return await conflicts(db, actor, projectId, {
        ...times,
        participants: [actor.id, ...await invitees(db, projectId, q.inviteeIds)],
        excludeIds: q.excludeMeetingId === null ? [] : [q.excludeMeetingId],
      });
    },

    /**
     * Schedules a meeting (members): invitees get `meeting_invited`; writes
     * `meeting_created` and sends `meeting.created`. Conflicts come back as warnings.
     */
    create(
      actor: Actor,
      projectId: number,
      input: {
        title: string;
        startAt: string;
        endAt: string;
        inviteeIds: number[];
        location?: string | null | undefined;
        minutes?: string | null | undefined;
      },
    ): Promise<SavedMeeting> {
      return runAction(ctx, emits("meeting.created"), async (tx, fx) => {
        requireWrite(await projectAccess(tx, actor, projectId));
        const title = nonBlank("title", input.title);
        const times = range(input);
        const inviteeIds = await invitees(tx, projectId, input.inviteeIds);
        const id = await insertMeeting(tx, {
          projectId,
          creatorId: actor.id,
          title,
          ...times,
          location: input.location ?? null,
          minutes: input.minutes ?? null,
          createdAt: fx.now,
        });
        await setInvitees(tx, id, inviteeIds);
        const created = await meeting(tx, projectId, id);
        fx.activity({
          projectId,
          kind: "meeting_created",
          actorId: actor.id,
          subjectType: "meeting",
          subjectId: id,
          summary: title,
        });
        fx.notify({
          kind: "meeting_invited",
          projectId,
          actorId: actor.id,
          subjectType: "meeting",
          subjectId: id,
          text: title,
          recipients: inviteeIds,
        });
        fx.event(projectId, "meeting.created", created);
        return { meeting: created, warnings: await warningsFor(tx, actor, created) };
      });
    },

    /** One meeting. */
    async get(actor: Actor, projectId: number, meetingId: number): Promise<Meeting> {
      await projectAccess(db, actor, projectId);
      return await meeting(db, projectId, meetingId);
    },

    /**
     * Edits a meeting (members); `inviteeIds` replaces the list, `null` clears the
     * location or minutes. New invitees get `meeting_invited`; those who stay invited
     * get `meeting_updated` when the time, place or invitee list changed.
     */
    update(
      actor: Actor,
      projectId: number,
      input: {
        meetingId: number;
        title?: string | undefined;
        startAt?: string | undefined;
        endAt?: string | undefined;
        inviteeIds?: number[] | undefined;
        location?: string | null | undefined;
        minutes?: string | null | undefined;
      },
    ): Promise<SavedMeeting> {
      return runAction(ctx, emits("meeting.updated"), async (tx, fx) => {
        requireWrite(await projectAccess(tx, actor, projectId));
        const row = await meeting(tx, projectId, input.meetingId);
        const times = range({
          startAt: input.startAt ?? row.startAt,
          endAt: input.endAt ?? row.endAt,
        });
        const title = input.title === undefined ? row.title : nonBlank("title", input.title);
        const inviteeIds = input.inviteeIds === undefined
          ? row.inviteeIds
          : await invitees(tx, projectId, input.inviteeIds);
        await updateMeeting(tx, row.id, {
          title,
          ...times,
          location: input.location === undefined ? row.location : input.location,
          minutes: input.minutes === undefined ? row.minutes : input.minutes,
          updatedAt: fx.now,
        });
        await setInvitees(tx, row.id, inviteeIds);
        const updated = await meeting(tx, projectId, row.id);

        const before = new Set(row.inviteeIds);
        const added = updated.inviteeIds.filter((id) => !before.has(id));
        const stayed = updated.inviteeIds.filter((id) => before.has(id));
        const listChanged = added.length > 0 || stayed.length !== before.size;
        const timeChanged = updated.startAt !== row.startAt || updated.endAt !== row.endAt;
        const placeChanged = updated.location !== row.location;
        const notice = {
          projectId,
          actorId: actor.id,
          subjectType: "meeting" as const,
          subjectId: row.id,
          text: title,
        };
        fx.notify({ ...notice, kind: "meeting_invited", recipients: added });
        if (timeChanged || placeChanged || listChanged) {
          fx.notify({ ...notice, kind: "meeting_updated", recipients: stayed });
        }
        fx.event(projectId, "meeting.updated", updated);
        return { meeting: updated, warnings: await warningsFor(tx, actor, updated) };
      });
    },

    /** Moves a meeting to the trash (members); returns the trash entry. */
    remove(actor: Actor, projectId: number, meetingId: number): Promise<TrashRef> {
      return runAction(ctx, emits("meeting.deleted"), async (tx, fx) => {
        requireWrite(await projectAccess(tx, actor, projectId));
        const id = (await meeting(tx, projectId, meetingId)).id;
        await deleteMeeting(tx, id, { at: fx.now, by: actor.id });
        fx.event(projectId, "meeting.deleted", { id, projectId });
        return { type: "meeting", id };
      });
    },
  };
}

/** The meeting operations' type. */
export type Meetings = ReturnType<typeof createMeetings>;
