/** The project and personal dashboards. */
import { createRoute, z } from "@hono/zod-openapi";
import { DASHBOARD_COUNT_CAP, LISTED } from "../../domain/overview/dashboards.ts";
import type { Services } from "../../domain/services.ts";
import { actorOf, apiApp, errors, Id, jsonResponse } from "./openapi.ts";
import { MeetingSchema, MilestoneSchema } from "./planning.ts";
import {
  ActivitySchema,
  FileSchema,
  ItemSchema,
  MessageSchema,
  NoteSchema,
  NotificationSchema,
  ProjectSchema,
  ThreadSchema,
} from "./schemas.ts";

/**
 * A list that grows with the data holds at most `LISTED` (20) entries; a sibling `…Total` says how many
 * there are in all. Siblings rather than `{items, total}` in place of the array: the lists
 * keep their meaning (an array) for the clients that read them already.
 */
const capped = <T extends z.ZodType>(item: T, what: string, totalField: string) =>
  z.array(item).max(LISTED).openapi({
    description: `The first ${LISTED} ${what} at most; \`${totalField}\` beside it counts them all`,
  });
const total = (list: string, page: string) =>
  z.number().int().min(0).openapi({
    description: `How many entries \`${list}\` would hold without its cap of ${LISTED} (all of ` +
      `them: ${page})`,
  });
const LATEST = "Newest first; a fixed window of news (the full list is paged under its own " +
  "route), with the total beside it";
/**
 * A total that grows with the project's items, and whether it is exact: counted up to
 * `DASHBOARD_COUNT_CAP`, so the dashboard costs the same at any size.
 */
const cappedTotal = (name: string, list: string, page: string) => ({
  [`${name}Total`]: z.number().int().min(0).max(DASHBOARD_COUNT_CAP).openapi({
    description: `How many entries \`${list}\` draws from (all of them: ${page}), counted up ` +
      `to ${DASHBOARD_COUNT_CAP}: exact when \`${name}TotalIsExact\`, else ` +
      `${DASHBOARD_COUNT_CAP}, a lower bound`,
  }),
  [`${name}TotalIsExact`]: z.boolean().openapi({
    description: `False when the count stopped at ${DASHBOARD_COUNT_CAP}`,
  }),
});
/** The recent activity's total and whether it is exact. */
const activityTotal = (where: string) => ({
  recentActivityTotal: z.number().int().min(0).max(DASHBOARD_COUNT_CAP).openapi({
    description: `How many live entries the activity of ${where} holds, counted up to ` +
      `${DASHBOARD_COUNT_CAP}: exact when \`recentActivityTotalIsExact\`, else ` +
      `${DASHBOARD_COUNT_CAP}, a lower bound (each entry counted is checked for a live ` +
      "subject, which no index answers)",
  }),
  recentActivityTotalIsExact: z.boolean().openapi({
    description: `False when the count stopped at ${DASHBOARD_COUNT_CAP}`,
  }),
});

const ProjectDashboardSchema = z.object({
  inProgressTodos: capped(
    ItemSchema,
    "incomplete to-dos of the in_progress column, in board order",
    "inProgressTodosTotal",
  ),
  ...cappedTotal("inProgressTodos", "inProgressTodos", "the to-do board"),
  nearDueTodos: capped(
    ItemSchema,
    "incomplete to-dos due from today to 7 days ahead, soonest due first",
    "nearDueTodosTotal",
  ),
  ...cappedTotal("nearDueTodos", "nearDueTodos", "the to-do board"),
  latestChat: z.array(MessageSchema).max(5).openapi({ description: `5 messages. ${LATEST}` }),
  ...cappedTotal("latestChat", "latestChat", "GET …/chat/messages"),
  latestThreads: z.array(ThreadSchema).max(5).openapi({ description: `5 threads. ${LATEST}` }),
  ...cappedTotal("latestThreads", "latestThreads", "GET …/board/threads, paged"),
  latestNotes: z.array(NoteSchema).max(5).openapi({ description: `5 notes. ${LATEST}` }),
  ...cappedTotal("latestNotes", "latestNotes", "GET …/notes, paged"),
  latestFiles: z.array(FileSchema).max(5).openapi({ description: `5 files. ${LATEST}` }),
  ...cappedTotal("latestFiles", "latestFiles", "GET …/files, paged"),
  // A union, not `.nullable()`: that would make the shared Meeting schema itself nullable.
  nextMeeting: z.union([MeetingSchema, z.null()]).openapi({
    description: "The soonest meeting not yet started, or null",
  }),
  milestones: capped(MilestoneSchema, "milestones with progress, oldest first", "milestonesTotal"),
  milestonesTotal: total("milestones", "GET …/milestones, paged"),
  recentActivity: z.array(ActivitySchema).max(10).openapi({
    description: `10 entries. ${LATEST}`,
  }),
  ...activityTotal("the project (GET …/activity, paged)"),
}).openapi("ProjectDashboard");

const PersonalDashboardSchema = z.object({
  projects: capped(ProjectSchema, "of my live, unarchived projects, oldest first", "projectsTotal"),
  projectsTotal: total("projects", "GET /api/projects"),
  incompleteTodos: capped(
    ItemSchema,
    "incomplete to-dos assigned to me, soonest due first",
    "incompleteTodosTotal",
  ),
  ...cappedTotal("incompleteTodos", "incompleteTodos", "each project's to-do board"),
  upcomingMeetings: capped(
    MeetingSchema,
    "meetings I organise or am invited to, not ended, soonest first",
    "upcomingMeetingsTotal",
  ),
  upcomingMeetingsTotal: total("upcomingMeetings", "each project's meetings, paged"),
  unreadNotifications: z.object({ count: z.number().int(), latest: z.array(NotificationSchema) }),
  overdueTodos: capped(
    ItemSchema,
    "incomplete to-dos assigned to me due before today, soonest due first",
    "overdueTodosTotal",
  ),
  ...cappedTotal("overdueTodos", "overdueTodos", "each project's to-do board"),
  recentActivity: z.array(ActivitySchema).max(10).openapi({
    description: `10 entries across my projects. ${LATEST}`,
  }),
  ...activityTotal("my live projects"),
}).openapi("PersonalDashboard");

const project = createRoute({
  method: "get",
  path: "/api/projects/{projectId}/dashboard",
  tags: ["dashboards"],
  summary: "In-progress and near-due (7 days) to-dos, the 5 latest of chat, threads, notes and " +
    "files, the next meeting, milestones with progress and the 10 latest activity entries; " +
    "the to-do and milestone lists hold 20 at most; every list has its total beside it",
  request: { params: z.object({ projectId: Id }) },
  responses: {
    200: jsonResponse(ProjectDashboardSchema, "The dashboard"),
    ...errors(400, 401, 404),
  },
});

const personal = createRoute({
  method: "get",
  path: "/api/dashboard",
  tags: ["dashboards"],
  summary: "My projects, my incomplete and overdue to-dos, upcoming meetings, unread " +
    "notifications (count and latest 5) and recent activity across my projects (10); the " +
    "project, to-do and meeting lists hold 20 at most; every list has its total beside it",
  responses: { 200: jsonResponse(PersonalDashboardSchema, "The dashboard"), ...errors(401) },
});

/** The dashboard routes. */
export function dashboardRoutes(services: Services) {
  return apiApp()
    .openapi(
      project,
      async (c) =>
        c.json(await services.dashboards.project(actorOf(c), c.req.valid("param").projectId), 200),
    )
    .openapi(personal, async (c) => c.json(await services.dashboards.personal(actorOf(c)), 200));
}
