/** The project and personal dashboards. */
import { createRoute, z } from "@hono/zod-openapi";
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

const ProjectDashboardSchema = z.object({
  inProgressTodos: z.array(ItemSchema),
  nearDueTodos: z.array(ItemSchema),
  latestChat: z.array(MessageSchema),
  latestThreads: z.array(ThreadSchema),
  latestNotes: z.array(NoteSchema),
  latestFiles: z.array(FileSchema),
  // A union, not `.nullable()`: that would make the shared Meeting schema itself nullable.
  nextMeeting: z.union([MeetingSchema, z.null()]).openapi({
    description: "The soonest meeting not yet started, or null",
  }),
  milestones: z.array(MilestoneSchema),
  recentActivity: z.array(ActivitySchema),
}).openapi("ProjectDashboard");

const PersonalDashboardSchema = z.object({
  projects: z.array(ProjectSchema),
  incompleteTodos: z.array(ItemSchema),
  upcomingMeetings: z.array(MeetingSchema),
  unreadNotifications: z.object({ count: z.number().int(), latest: z.array(NotificationSchema) }),
  overdueTodos: z.array(ItemSchema),
  recentActivity: z.array(ActivitySchema),
}).openapi("PersonalDashboard");

const project = createRoute({
  method: "get",
  path: "/api/projects/{projectId}/dashboard",
  tags: ["dashboards"],
  summary: "In-progress and near-due (7 days) to-dos, the 5 latest of chat, threads, notes and " +
    "files, the next meeting, milestones with progress and the 10 latest activity entries",
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
    "notifications (count and latest 5) and recent activity across my projects (10)",
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
