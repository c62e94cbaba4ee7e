/** Planning: milestones, calendar events, the project calendar, meetings and their conflicts. */
import { createRoute, z } from "@hono/zod-openapi";
import { pageRequest } from "../../domain/kernel/paging.ts";
import type { Services } from "../../domain/services.ts";
import {
  actorOf,
  apiApp,
  DateOut,
  errors,
  Id,
  IdOut,
  IdQuery,
  jsonRequest,
  jsonResponse,
  PageQuery,
  pageSchema,
  TimestampOut,
} from "./openapi.ts";

const ProjectParam = z.object({ projectId: Id });
const base = "/api/projects/{projectId}";

const Title = z.string().trim().min(1, "Cannot be blank").max(200);
const Description = z.string().max(10_000);
const CalendarDate = z.string().max(10).openapi({
  format: "date",
  description: "A calendar date, `YYYY-MM-DD`",
  example: "2026-12-01",
});
const Timestamp = z.string().max(40).openapi({
  description: "ISO 8601 with `Z` or an offset (stored in UTC), or `YYYY-MM-DD` (UTC midnight)",
  example: "2026-11-22T08:30:00.000Z",
});
/** A query timestamp the route requires (missing: "Required", as the domain says of ""). */
const QueryTimestamp = z.string({
  error: (issue) => issue.input === undefined ? "Required" : undefined,
}).max(40).openapi({
  description: "ISO 8601 with `Z` or an offset, or `YYYY-MM-DD` (UTC midnight)",
  example: "2026-11-22T08:30:00.000Z",
});
/** A start or end in an answer: a timestamp, or a date for whole-day items. */
const InstantOrDay = z.union([TimestampOut, DateOut]);
const UserIds = z.array(z.number().int().positive().max(Number.MAX_SAFE_INTEGER)).max(200);
const Location = z.string().max(500);
const Minutes = z.string().max(100_000);

// ---------------------------------------------------------------------------------------
// Schemas.

export const MilestoneSchema = z.object({
  id: IdOut,
  projectId: IdOut,
  creatorId: IdOut,
  title: z.string(),
  description: z.string().nullable(),
  dueDate: DateOut.nullable(),
  progress: z.number().int().openapi({
    description: "floor(100 × completed linked to-do items / linked items), 0 with none",
  }),
  createdAt: TimestampOut,
  updatedAt: TimestampOut,
}).openapi("Milestone");

export const EventSchema = z.object({
  id: IdOut,
  projectId: IdOut,
  creatorId: IdOut,
  title: z.string(),
  description: z.string().nullable(),
  startAt: TimestampOut,
  endAt: TimestampOut,
  allDay: z.boolean(),
  createdAt: TimestampOut,
  updatedAt: TimestampOut,
}).openapi("CalendarEvent");

const CalendarItemSchema = z.object({
  type: z.enum(["event", "milestone", "todo", "meeting"]),
  id: IdOut,
  title: z.string(),
  start: InstantOrDay.openapi({
    description: "A UTC timestamp (events), or `YYYY-MM-DD` (milestones, to-dos)",
  }),
  end: InstantOrDay,
  allDay: z.boolean(),
  completed: z.boolean().optional().openapi({ description: "To-dos only" }),
  priority: z.enum(["low", "normal", "high"]).optional().openapi({ description: "To-dos only" }),
  assigneeId: IdOut.nullable().optional().openapi({ description: "To-dos only" }),
  location: z.string().nullable().optional().openapi({ description: "Meetings only" }),
}).openapi("CalendarItem");

export const MeetingSchema = z.object({
  id: IdOut,
  projectId: IdOut,
  creatorId: IdOut,
  title: z.string(),
  startAt: TimestampOut,
  endAt: TimestampOut,
  location: z.string().nullable(),
  minutes: z.string().nullable(),
  inviteeIds: z.array(IdOut),
  createdAt: TimestampOut,
  updatedAt: TimestampOut,
}).openapi("Meeting");

const ConflictSchema = z.object({
  type: z.enum(["meeting", "event", "todo"]),
  id: IdOut,
  projectId: IdOut,
  title: z.string().nullable().openapi({
    description: "null when the caller is not a member of the item's project",
  }),
  start: InstantOrDay.openapi({ description: "A UTC timestamp, or a to-do's date" }),
  end: InstantOrDay,
  userId: IdOut.openapi({ description: "The participant concerned" }),
}).openapi("Conflict");

const MilestoneBody = z.object({ milestone: MilestoneSchema });
const EventBody = z.object({ event: EventSchema });
const SavedMeetingBody = z.object({ meeting: MeetingSchema, warnings: z.array(ConflictSchema) });

// ---------------------------------------------------------------------------------------
// Milestones.

const MilestoneParam = z.object({ projectId: Id, milestoneId: Id });

/** A new milestone (the milestones page's forms too). */
export const MilestoneInput = z.object({
  title: Title,
  description: Description.nullable().optional(),
  dueDate: CalendarDate.nullable().optional(),
}).openapi("MilestoneInput");

/** A milestone's changes. */
export const MilestonePatch = z.object({
  title: Title.optional(),
  description: Description.nullable().optional(),
  dueDate: CalendarDate.nullable().optional(),
}).openapi("MilestonePatch");

/** A new calendar event (the calendar pages' forms too). */
export const CalendarEventInput = z.object({
  title: Title,
  description: Description.nullable().optional(),
  startAt: Timestamp,
  endAt: Timestamp,
  allDay: z.boolean().optional(),
}).openapi("CalendarEventInput");

/** A calendar event's changes. */
export const CalendarEventPatch = z.object({
  title: Title.optional(),
  description: Description.nullable().optional(),
  startAt: Timestamp.optional(),
  endAt: Timestamp.optional(),
  allDay: z.boolean().optional(),
}).openapi("CalendarEventPatch");

/** A new meeting (the meeting pages' forms too). */
export const MeetingInput = z.object({
  title: Title,
  startAt: Timestamp,
  endAt: Timestamp,
  inviteeIds: UserIds.openapi({ description: "Members of the project" }),
  location: Location.nullable().optional(),
  minutes: Minutes.nullable().optional(),
}).openapi("MeetingInput");

/** A meeting's changes; inviteeIds replaces the list. */
export const MeetingPatch = z.object({
  title: Title.optional(),
  startAt: Timestamp.optional(),
  endAt: Timestamp.optional(),
  inviteeIds: UserIds.optional(),
  location: Location.nullable().optional(),
  minutes: Minutes.nullable().optional(),
}).openapi("MeetingPatch");

const listMilestones = createRoute({
  method: "get",
  path: `${base}/milestones`,
  tags: ["milestones"],
  summary: "A page of the milestones with their progress, oldest first",
  description: "Paged like the other lists (`page`, `pageSize`): the page object keeps `items` " +
    "as before and adds `page`, `pageSize`, `total` and `hasMore` beside it.",
  request: { params: ProjectParam, query: PageQuery },
  responses: {
    200: jsonResponse(pageSchema(MilestoneSchema), "A page of milestones"),
    ...errors(401, 404),
  },
});

const createMilestone = createRoute({
  method: "post",
  path: `${base}/milestones`,
  tags: ["milestones"],
  summary: "Create a milestone (members); writes milestone_updated",
  request: {
    params: ProjectParam,
    ...jsonRequest(MilestoneInput),
  },
  responses: { 201: jsonResponse(MilestoneBody, "Created"), ...errors(400, 401, 403, 404) },
});

const getMilestone = createRoute({
  method: "get",
  path: `${base}/milestones/{milestoneId}`,
  tags: ["milestones"],
  summary: "A milestone with its progress",
  request: { params: MilestoneParam },
  responses: { 200: jsonResponse(MilestoneBody, "The milestone"), ...errors(400, 401, 404) },
});

const updateMilestone = createRoute({
  method: "patch",
  path: `${base}/milestones/{milestoneId}`,
  tags: ["milestones"],
  summary: "Edit a milestone (members); null clears; writes milestone_updated",
  request: {
    params: MilestoneParam,
    ...jsonRequest(MilestonePatch),
  },
  responses: { 200: jsonResponse(MilestoneBody, "Updated"), ...errors(400, 401, 403, 404) },
});

// ---------------------------------------------------------------------------------------
// The calendar and its events.

const EventParam = z.object({ projectId: Id, eventId: Id });

const calendar = createRoute({
  method: "get",
  path: `${base}/calendar`,
  tags: ["calendar"],
  summary: "Events, milestones and to-dos (and meetings with include=meetings) intersecting " +
    "[from, to), by start, type, id",
  request: {
    params: ProjectParam,
    query: z.object({
      from: QueryTimestamp.openapi({ description: "Inclusive" }),
      to: QueryTimestamp.openapi({ description: "Exclusive; after from" }),
      include: z.enum(["meetings"]).optional().openapi({
        description: "`meetings` adds the project's meetings as `type: meeting` items",
      }),
    }),
  },
  responses: {
    200: jsonResponse(z.object({ items: z.array(CalendarItemSchema) }), "The calendar"),
    ...errors(400, 401, 404),
  },
});

const listEvents = createRoute({
  method: "get",
  path: `${base}/calendar/events`,
  tags: ["calendar"],
  summary: "Calendar events, oldest first",
  request: { params: ProjectParam },
  responses: {
    200: jsonResponse(z.object({ items: z.array(EventSchema) }), "The events"),
    ...errors(401, 404),
  },
});

const createEvent = createRoute({
  method: "post",
  path: `${base}/calendar/events`,
  tags: ["calendar"],
  summary: "Create a calendar event (members); endAt may not be before startAt",
  request: {
    params: ProjectParam,
    ...jsonRequest(CalendarEventInput),
  },
  responses: { 201: jsonResponse(EventBody, "Created"), ...errors(400, 401, 403, 404) },
});

const getEvent = createRoute({
  method: "get",
  path: `${base}/calendar/events/{eventId}`,
  tags: ["calendar"],
  summary: "A calendar event",
  request: { params: EventParam },
  responses: { 200: jsonResponse(EventBody, "The event"), ...errors(400, 401, 404) },
});

const updateEvent = createRoute({
  method: "patch",
  path: `${base}/calendar/events/{eventId}`,
  tags: ["calendar"],
  summary: "Edit a calendar event (members); null clears the description",
  request: {
    params: EventParam,
    ...jsonRequest(CalendarEventPatch),
  },
  responses: { 200: jsonResponse(EventBody, "Updated"), ...errors(400, 401, 403, 404) },
});

const removeEvent = createRoute({
  method: "delete",
  path: `${base}/calendar/events/{eventId}`,
  tags: ["calendar"],
  summary: "Delete a calendar event (members)",
  request: { params: EventParam },
  responses: { 204: { description: "Deleted" }, ...errors(400, 401, 403, 404) },
});

// ---------------------------------------------------------------------------------------
// Meetings.

const MeetingParam = z.object({ projectId: Id, meetingId: Id });

const listMeetings = createRoute({
  method: "get",
  path: `${base}/meetings`,
  tags: ["meetings"],
  summary: "A page of the meetings, upcoming first: those not yet ended soonest first, then " +
    "the ended ones, latest first",
  description: "Paged like the other lists (`page`, `pageSize`): the page object keeps `items` " +
    "as before and adds `page`, `pageSize`, `total` and `hasMore` beside it. A meeting counts " +
    "as upcoming until its end.",
  request: { params: ProjectParam, query: PageQuery },
  responses: {
    200: jsonResponse(pageSchema(MeetingSchema), "A page of meetings"),
    ...errors(401, 404),
  },
});

const createMeeting = createRoute({
  method: "post",
  path: `${base}/meetings`,
  tags: ["meetings"],
  summary: "Schedule a meeting (members); invitees are notified; conflicts come back as warnings",
  request: {
    params: ProjectParam,
    ...jsonRequest(MeetingInput),
  },
  responses: { 201: jsonResponse(SavedMeetingBody, "Created"), ...errors(400, 401, 403, 404) },
});

const IdList = z.string().max(2000).regex(
  /^\s*(\d{1,15}\s*(,\s*\d{1,15}\s*)*)?$/,
  "Use comma-separated user ids",
);

const checkMeeting = createRoute({
  method: "get",
  path: `${base}/meetings/check`,
  tags: ["meetings"],
  summary: "The conflicts a meeting over the range would have (the caller organising)",
  request: {
    params: ProjectParam,
    query: z.object({
      startAt: QueryTimestamp,
      endAt: QueryTimestamp.openapi({ description: "After startAt" }),
      inviteeIds: IdList.optional().openapi({ example: "1,2" }),
      excludeMeetingId: IdQuery.optional(),
    }),
  },
  responses: {
    200: jsonResponse(z.object({ conflicts: z.array(ConflictSchema) }), "The conflicts"),
    ...errors(400, 401, 404),
  },
});

const getMeeting = createRoute({
  method: "get",
  path: `${base}/meetings/{meetingId}`,
  tags: ["meetings"],
  summary: "A meeting",
  request: { params: MeetingParam },
  responses: {
    200: jsonResponse(z.object({ meeting: MeetingSchema }), "The meeting"),
    ...errors(400, 401, 404),
  },
});

const updateMeeting = createRoute({
  method: "patch",
  path: `${base}/meetings/{meetingId}`,
  tags: ["meetings"],
  summary: "Edit a meeting (members); inviteeIds replaces the list; null clears",
  request: {
    params: MeetingParam,
    ...jsonRequest(MeetingPatch),
  },
  responses: { 200: jsonResponse(SavedMeetingBody, "Updated"), ...errors(400, 401, 403, 404) },
});

const removeMeeting = createRoute({
  method: "delete",
  path: `${base}/meetings/{meetingId}`,
  tags: ["meetings"],
  summary: "Delete a meeting (members)",
  request: { params: MeetingParam },
  responses: { 204: { description: "Deleted" }, ...errors(400, 401, 403, 404) },
});

function idList(raw: string | undefined): number[] {
  return (raw ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "").map(Number);
}

/** The milestone, calendar and meeting routes. */
export function planningRoutes(services: Services) {
  const { milestones, calendar: cal, meetings } = services;
  return apiApp()
    .openapi(listMilestones, async (c) => {
      const { projectId } = c.req.valid("param");
      return c.json(
        await milestones.page(actorOf(c), projectId, pageRequest(c.req.valid("query"))),
        200,
      );
    })
    .openapi(createMilestone, async (c) => {
      const { projectId } = c.req.valid("param");
      const milestone = await milestones.create(actorOf(c), projectId, c.req.valid("json"));
      return c.json({ milestone }, 201);
    })
    .openapi(getMilestone, async (c) => {
      const { projectId, milestoneId } = c.req.valid("param");
      return c.json({ milestone: await milestones.get(actorOf(c), projectId, milestoneId) }, 200);
    })
    .openapi(updateMilestone, async (c) => {
      const { projectId, milestoneId } = c.req.valid("param");
      const milestone = await milestones.update(actorOf(c), projectId, {
        milestoneId,
        ...c.req.valid("json"),
      });
      return c.json({ milestone }, 200);
    })
    .openapi(calendar, async (c) => {
      const items = await cal.range(
        actorOf(c),
        c.req.valid("param").projectId,
        c.req.valid("query"),
      );
      return c.json({ items }, 200);
    })
    .openapi(listEvents, async (c) => {
      return c.json({ items: await cal.list(actorOf(c), c.req.valid("param").projectId) }, 200);
    })
    .openapi(createEvent, async (c) => {
      const event = await cal.create(
        actorOf(c),
        c.req.valid("param").projectId,
        c.req.valid("json"),
      );
      return c.json({ event }, 201);
    })
    .openapi(getEvent, async (c) => {
      const { projectId, eventId } = c.req.valid("param");
      return c.json({ event: await cal.get(actorOf(c), projectId, eventId) }, 200);
    })
    .openapi(updateEvent, async (c) => {
      const { projectId, eventId } = c.req.valid("param");
      const event = await cal.update(actorOf(c), projectId, { eventId, ...c.req.valid("json") });
      return c.json({ event }, 200);
    })
    .openapi(removeEvent, async (c) => {
      const { projectId, eventId } = c.req.valid("param");
      await cal.remove(actorOf(c), projectId, eventId);
      return c.body(null, 204);
    })
    .openapi(listMeetings, async (c) => {
      const { projectId } = c.req.valid("param");
      return c.json(
        await meetings.page(actorOf(c), projectId, pageRequest(c.req.valid("query"))),
        200,
      );
    })
    .openapi(createMeeting, async (c) => {
      const { projectId } = c.req.valid("param");
      return c.json(await meetings.create(actorOf(c), projectId, c.req.valid("json")), 201);
    })
    // Before `/meetings/{meetingId}`, which would otherwise take `check` for an id.
    .openapi(checkMeeting, async (c) => {
      const query = c.req.valid("query");
      const conflicts = await meetings.check(actorOf(c), c.req.valid("param").projectId, {
        startAt: query.startAt,
        endAt: query.endAt,
        inviteeIds: idList(query.inviteeIds),
        excludeMeetingId: query.excludeMeetingId ? Number(query.excludeMeetingId) : null,
      });
      return c.json({ conflicts }, 200);
    })
    .openapi(getMeeting, async (c) => {
      const { projectId, meetingId } = c.req.valid("param");
      return c.json({ meeting: await meetings.get(actorOf(c), projectId, meetingId) }, 200);
    })
    .openapi(updateMeeting, async (c) => {
      const { projectId, meetingId } = c.req.valid("param");
      return c.json(
        await meetings.update(actorOf(c), projectId, { meetingId, ...c.req.valid("json") }),
        200,
      );
    })
    .openapi(removeMeeting, async (c) => {
      const { projectId, meetingId } = c.req.valid("param");
      await meetings.remove(actorOf(c), projectId, meetingId);
      return c.body(null, 204);
    });
}
