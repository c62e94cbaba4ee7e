/**
 * The project and personal dashboards, each built from a fixed number of queries (none per
 * project or per item), none of which reads more than it shows: lists are read in index order
 * and stopped, counts walk index entries (migration 025). Every list that can grow with the
 * project holds at most `LISTED` entries and has a sibling `…Total` with how many there are in
 * all (the full list is paged elsewhere); the "latest" lists are fixed windows of news (5 or
 * 10) with their totals too. A total that grows with the project's items is counted up to
 * `DASHBOARD_COUNT_CAP`, with a sibling `…TotalIsExact` false past it (the total is then the
 * cap, a lower bound), so a dashboard costs the same at a thousand items and at a million: the
 * to-dos', the latest lists' and the activity's (each activity entry's subject is checked, no
 * index does that). The projects, milestones and upcoming meetings are counted exactly.
 * "Today" is the clock's date in the caller's time zone (UTC for a person who never chose
 * one), so a to-do due today turns overdue at the caller's midnight.
 */
import {
  countActivity,
  latestActivity,
  withGenericPlans,
  withoutJit,
} from "../../db/projects/activity.ts";
import { threadsByIds } from "../../db/content/board.ts";
import { latestMessages } from "../../db/content/chat.ts";
import {
  assignedItems,
  countAssignedItems,
  countInProgressItems,
  countItemsDueBetween,
  countLatest,
  countUpcomingMeetings,
  inProgressItems,
  itemsDueBetween,
  newestNoteIds,
  newestThreadIds,
  nextMeetingId,
  upcomingMeetingIds,
  userProjectIds,
} from "../../db/overview/dashboards.ts";
import type { Queries } from "../../db/kernel/engine.ts";
import { latestFiles } from "../../db/content/files.ts";
import { type MeetingRow, meetingsByIds } from "../../db/planning/meetings.ts";
import {
  countMilestones,
  type MilestoneRow,
  pageMilestones,
} from "../../db/planning/milestones.ts";
import { notesByIds } from "../../db/content/notes.ts";
import { listUnread } from "../../db/projects/notifications.ts";
import { listMembers, listProjectsOfUser } from "../../db/projects/projects.ts";
import { userTimeZone } from "../../db/accounts/users.ts";
import type { ItemRow } from "../../db/planning/todos.ts";
import { projectAccess } from "../accounts/access.ts";
import type { Actor } from "../accounts/accounts.ts";
import type { Activity } from "../projects/activity.ts";
import type { DomainContext } from "../projects/actions.ts";
import { addDays } from "../kernel/days.ts";
import type { Attachments } from "../content/attachments.ts";
import { checklistSummaries } from "../planning/checklists.ts";
import { DomainError } from "../kernel/errors.ts";
import type { Thread } from "../content/board.ts";
import type { Message } from "../content/chat.ts";
import { type FileInfo, fileInfo } from "../content/files.ts";
import type { Note } from "../content/notes.ts";
import { type Notification, toNotification } from "../projects/notifications.ts";
import { type Project, toProject } from "../projects/projects.ts";
import type { Item } from "../planning/todos.ts";
import { DEFAULT_TIME_ZONE, todayInZone } from "../kernel/time_zones.ts";

const LATEST = 5;
const ACTIVITY = 10;
const NEAR_DUE_DAYS = 7;
/** The dashboards count what grows with the items up to this many (1,000+ past it). */
export const DASHBOARD_COUNT_CAP = 1_000;

/** A count read up to `DASHBOARD_COUNT_CAP + 1`, as the total shown and whether it is exact. */
type Capped = { total: number; isExact: boolean };
const capped = (n: number): Capped => ({
  total: Math.min(n, DASHBOARD_COUNT_CAP),
  isExact: n <= DASHBOARD_COUNT_CAP,
});
/** The most entries a dashboard list that grows with the data holds. */
export const LISTED = 20;
/** The personal dashboard names people from the members of at most this many projects. */
const NAMED_PROJECTS = 20;

/** The project dashboard. */
export interface ProjectDashboard {
  inProgressTodos: Item[];
  /** Up to `DASHBOARD_COUNT_CAP`: exact when `inProgressTodosTotalIsExact`, else the cap. */
  inProgressTodosTotal: number;
  inProgressTodosTotalIsExact: boolean;
  nearDueTodos: Item[];
  /** Up to `DASHBOARD_COUNT_CAP`: exact when `nearDueTodosTotalIsExact`, else the cap. */
  nearDueTodosTotal: number;
  nearDueTodosTotalIsExact: boolean;
  latestChat: Message[];
  /** Up to `DASHBOARD_COUNT_CAP`: exact when `latestChatTotalIsExact`, else the cap. */
  latestChatTotal: number;
  latestChatTotalIsExact: boolean;
  latestThreads: Thread[];
  /** Up to `DASHBOARD_COUNT_CAP`: exact when `latestThreadsTotalIsExact`, else the cap. */
  latestThreadsTotal: number;
  latestThreadsTotalIsExact: boolean;
  latestNotes: Note[];
  /** Up to `DASHBOARD_COUNT_CAP`: exact when `latestNotesTotalIsExact`, else the cap. */
  latestNotesTotal: number;
  latestNotesTotalIsExact: boolean;
  latestFiles: FileInfo[];
  /** Up to `DASHBOARD_COUNT_CAP`: exact when `latestFilesTotalIsExact`, else the cap. */
  latestFilesTotal: number;
  latestFilesTotalIsExact: boolean;
  nextMeeting: MeetingRow | null;
  milestones: MilestoneRow[];
  milestonesTotal: number;
  recentActivity: Activity[];
  /** Up to `DASHBOARD_COUNT_CAP`: exact when `recentActivityTotalIsExact`, else the cap. */
  recentActivityTotal: number;
  recentActivityTotalIsExact: boolean;
}

/** The personal dashboard. */
export interface PersonalDashboard {
  projects: Project[];
  projectsTotal: number;
  incompleteTodos: Item[];
  /** Up to `DASHBOARD_COUNT_CAP`: exact when `incompleteTodosTotalIsExact`, else the cap. */
  incompleteTodosTotal: number;
  incompleteTodosTotalIsExact: boolean;
  upcomingMeetings: MeetingRow[];
  upcomingMeetingsTotal: number;
  unreadNotifications: { count: number; latest: Notification[] };
  overdueTodos: Item[];
  /** Up to `DASHBOARD_COUNT_CAP`: exact when `overdueTodosTotalIsExact`, else the cap. */
  overdueTodosTotal: number;
  overdueTodosTotalIsExact: boolean;
  recentActivity: Activity[];
  /** Up to `DASHBOARD_COUNT_CAP`: exact when `recentActivityTotalIsExact`, else the cap. */
  recentActivityTotal: number;
  recentActivityTotalIsExact: boolean;
}

/** The dashboard operations. */
export function createDashboards(ctx: DomainContext, attachments: Attachments) {
  const { db, clock } = ctx;

  const items = async (q: Queries, rows: ItemRow[]): Promise<Item[]> => {
    const ids = rows.map((r) => r.id);
    const files = await attachments.of(q, "item", ids);
    const checklist = await checklistSummaries(q, ids);
    return rows.map((r) => ({
      ...r,
      attachments: files.get(r.id) ?? [],
      checklist: checklist(r.id),
    }));
  };
  /** The date it is now where the caller lives. */
  const todayOf = async (q: Queries, actor: Actor, now: Date): Promise<string> =>
    todayInZone(now, (await userTimeZone(q, actor.id)) ?? DEFAULT_TIME_ZONE);

  /** A project's dashboard, read through `q` (the members' check first). */
  const dashboardOf = async (
    q: Queries,
    actor: Actor,
    projectId: number,
  ): Promise<ProjectDashboard> => {
    await projectAccess(q, actor, projectId);
    // Both settings go down the connection together (one round trip on PostgreSQL).
    await Promise.all([withoutJit(q), withGenericPlans(q)]);
    const at = clock.now();
    const now = at.toISOString();
    const [
      latestChat,
      latestThreads,
      inProgressTodos,
      inProgressTodosTotal,
      [nearDueTodos, nearDueTodosTotal],
      latestNotes,
      files,
      nextMeeting,
      milestones,
      milestonesTotal,
      recentActivity,
      latestTotals,
      activityTotal,
    ] = await Promise.all([
      (async () => {
        const messages = await latestMessages(q, projectId, LATEST);
        const messageFiles = await attachments.of(q, "message", messages.map((m) => m.id));
        return messages.map((m) => ({ ...m, attachments: messageFiles.get(m.id) ?? [] }));
      })(),
      (async () => {
        const threads = await threadsByIds(q, await newestThreadIds(q, projectId, LATEST));
        const threadFiles = await attachments.of(q, "thread", threads.map((t) => t.id));
        return threads.map((t) => ({ ...t, attachments: threadFiles.get(t.id) ?? [] }));
      })(),
      (async () => await items(q, await inProgressItems(q, projectId, LISTED)))(),
      countInProgressItems(q, projectId, DASHBOARD_COUNT_CAP),
      (async () => {
        const today = await todayOf(q, actor, at);
        const range = { from: today, to: addDays(today, NEAR_DUE_DAYS) };
        const [rows, total] = await Promise.all([
          itemsDueBetween(q, projectId, { ...range, limit: LISTED }),
          countItemsDueBetween(q, projectId, range, DASHBOARD_COUNT_CAP),
        ]);
        return [await items(q, rows), total] as const;
      })(),
      (async () => await notesByIds(q, await newestNoteIds(q, projectId, LATEST)))(),
      (async () => (await latestFiles(q, projectId, LATEST)).map(fileInfo))(),
      (async () => {
        const meetingId = await nextMeetingId(q, projectId, now);
        return meetingId === null ? null : (await meetingsByIds(q, [meetingId]))[0] ?? null;
      })(),
      pageMilestones(q, projectId, LISTED, 0),
      countMilestones(q, projectId),
      latestActivity(q, [projectId], ACTIVITY),
      countLatest(q, projectId, DASHBOARD_COUNT_CAP),
      countActivity(q, [projectId], DASHBOARD_COUNT_CAP),
    ]);
    const inProgress = capped(inProgressTodosTotal);
    const nearDue = capped(nearDueTodosTotal);
    const [chat, threads, notes, fileCount] = [
      latestTotals.chat,
      latestTotals.threads,
      latestTotals.notes,
      latestTotals.files,
    ].map(capped) as [Capped, Capped, Capped, Capped];
    return {
      inProgressTodos,
      inProgressTodosTotal: inProgress.total,
      inProgressTodosTotalIsExact: inProgress.isExact,
      nearDueTodos,
      nearDueTodosTotal: nearDue.total,
      nearDueTodosTotalIsExact: nearDue.isExact,
      latestChat,
      latestChatTotal: chat.total,
      latestChatTotalIsExact: chat.isExact,
      latestThreads,
      latestThreadsTotal: threads.total,
      latestThreadsTotalIsExact: threads.isExact,
      latestNotes,
      latestNotesTotal: notes.total,
      latestNotesTotalIsExact: notes.isExact,
      latestFiles: files,
      latestFilesTotal: fileCount.total,
      latestFilesTotalIsExact: fileCount.isExact,
      nextMeeting,
      milestones,
      milestonesTotal,
      recentActivity,
      recentActivityTotal: activityTotal.total,
      recentActivityTotalIsExact: activityTotal.totalIsExact,
    };
  };

  return {
    /** A project's dashboard (members). */
    project(actor: Actor, projectId: number): Promise<ProjectDashboard> {
      // The parts at once, as one read: on PostgreSQL they go down one connection together and
      // agree with each other, so the page costs a few round trips, not the sum of some twenty
      // (bench/README.md); on SQLite they run one after another, as before.
      return db.read((q) => dashboardOf(q, actor, projectId));
    },

    /** The caller's personal dashboard across their projects. */
    personal(actor: Actor): Promise<PersonalDashboard> {
      // The parts at once, as one read (without JIT on PostgreSQL, `withoutJit`), as the project
      // dashboard's: on PostgreSQL they go down one connection together, so the page costs a few
      // round trips instead of some eighteen one after another (bench/search.md, section I); on
      // SQLite they run one after another.
      return db.read(async (q) => {
        await withoutJit(q);
        const at = clock.now();
        const now = at.toISOString();
        // The meetings not ended are few of all (`end_at > now`): their statements are planned
        // with this call's time, before the rest is given generic plans (`withGenericPlans`).
        const [upcomingIds, upcomingMeetingsTotal] = await Promise.all([
          upcomingMeetingIds(q, actor.id, now, LISTED),
          countUpcomingMeetings(q, actor.id, now),
        ]);
        await withGenericPlans(q);
        const [
          unread,
          allProjects,
          incompleteTodos,
          incompleteCount,
          upcomingMeetings,
          [overdueTodos, overdueCount],
          [recentActivity, activityTotal],
        ] = await Promise.all([
          listUnread(q, actor.id, LATEST, 0),
          // A person belongs to few projects: all are read, the first `LISTED` shown.
          listProjectsOfUser(q, actor.id, false),
          (async () =>
            await items(q, await assignedItems(q, actor.id, { dueBefore: null, limit: LISTED })))(),
          countAssignedItems(q, actor.id, null, DASHBOARD_COUNT_CAP),
          meetingsByIds(q, upcomingIds),
          (async () => {
            const today = await todayOf(q, actor, at);
            return await Promise.all([
              (async () =>
                await items(
                  q,
                  await assignedItems(q, actor.id, { dueBefore: today, limit: LISTED }),
                ))(),
              countAssignedItems(q, actor.id, today, DASHBOARD_COUNT_CAP),
            ]);
          })(),
          (async () => {
            const projectIds = await userProjectIds(q, actor.id);
            return await Promise.all([
              latestActivity(q, projectIds, ACTIVITY),
              countActivity(q, projectIds, DASHBOARD_COUNT_CAP),
            ]);
          })(),
        ]);
        const projects = allProjects.slice(0, LISTED).map((p) => toProject(p, p.role));
        const incompleteTodosTotal = capped(incompleteCount);
        const overdueTodosTotal = capped(overdueCount);
        return {
          projects,
          projectsTotal: allProjects.length,
          incompleteTodos,
          incompleteTodosTotal: incompleteTodosTotal.total,
          incompleteTodosTotalIsExact: incompleteTodosTotal.isExact,
          upcomingMeetings,
          upcomingMeetingsTotal,
          unreadNotifications: {
            count: unread.total,
            latest: unread.items.map(toNotification),
          },
          overdueTodos,
          overdueTodosTotal: overdueTodosTotal.total,
          overdueTodosTotalIsExact: overdueTodosTotal.isExact,
          recentActivity,
          recentActivityTotal: activityTotal.total,
          recentActivityTotalIsExact: activityTotal.totalIsExact,
        };
      });
    },

    /**
     * The names shown beside the personal dashboard's entries: of the caller's projects
     * (archived ones too), and of the people in its activity and meetings, read from the
     * members of at most `NAMED_PROJECTS` of their projects that the caller can still see.
     */
    async personalNames(
      actor: Actor,
      dashboard: PersonalDashboard,
    ): Promise<{ projects: Map<number, string>; people: Map<number, string> }> {
      const projects = new Map(
        (await listProjectsOfUser(db, actor.id, true)).map((p) => [p.id, p.name]),
      );
      for (const p of dashboard.projects) projects.set(p.id, p.name);
      const shown = new Set([
        ...dashboard.recentActivity.map((a) => a.projectId),
        ...dashboard.upcomingMeetings.map((m) => m.projectId),
      ]);
      const people = new Map<number, string>();
      for (const projectId of [...shown].slice(0, NAMED_PROJECTS)) {
        try {
          await projectAccess(db, actor, projectId);
        } catch (error) {
          // A project the caller can no longer see: its people stay unnamed.
          if (error instanceof DomainError) continue;
          throw error;
        }
        for (const m of await listMembers(db, projectId)) people.set(m.userId, m.displayName);
      }
      return { projects, people };
    },
  };
}
