/** Request and response schemas shared by several resources. */
import { z } from "@hono/zod-openapi";
import { canonicalTimeZone } from "../../domain/kernel/time_zones.ts";
import { DateOut, IdOut, TimestampOut } from "./openapi.ts";

/** A user's theme; `system` follows the device's light or dark colour scheme. */
export const ThemeSchema = z.enum(["dark", "light", "system"]).openapi({
  description: "`dark` (the default), `light`, or `system`: whichever the device's colour " +
    "scheme is (prefers-color-scheme)",
});

/** Which notifications are mailed. */
const EmailNotificationsSchema = z.enum(["off", "immediate", "daily"]).openapi({
  description: "`off`: no notification mail; `immediate`: a mention, to-do assignment or " +
    "meeting invitation still unread `MAIL_DELAY_SECONDS` after it arrived is mailed (several " +
    "in that window in one mail), and a daily digest carries the other kinds; `daily`: one " +
    "digest a day of every notification still unread",
  example: "immediate",
});

/** The digest's hour. */
const DigestHourSchema = z.number().int().min(0).max(23).openapi({
  description: "The hour (0–23) of the daily digest in the user's `timeZone`",
  example: 9,
});

/** A user as the API shows it. */
export const UserSchema = z.object({
  id: IdOut,
  email: z.string(),
  displayName: z.string(),
  role: z.enum(["admin", "member"]),
  status: z.enum(["active", "disabled"]),
  theme: ThemeSchema,
  locale: z.enum(["en", "ja"]),
  timeZone: z.string().openapi({
    description: "IANA time zone name the pages show times in and the dashboards' today " +
      "counts in; `UTC` until the person chooses one",
    example: "Asia/Tokyo",
  }),
  emailNotifications: EmailNotificationsSchema,
  digestHour: DigestHourSchema,
  emailVerified: z.boolean().openapi({
    description: "Whether the owner has shown they read this address's mail (accepted an " +
      "invitation, reset the password through a mailed link or opened a verification link)",
  }),
  loanOfficer: z.boolean().openapi({
    description: "Whether an admin lets this user run the loan console (`/api/loan/…`); " +
      "admins may without it",
  }),
  createdAt: TimestampOut,
}).openapi("User");

/** A project member role. */
export const ProjectRoleSchema = z.enum(["owner", "member", "viewer"]);

/** A project. */
export const ProjectSchema = z.object({
  id: IdOut,
  name: z.string(),
  description: z.string(),
  archived: z.boolean(),
  archivedAt: TimestampOut.nullable(),
  createdBy: IdOut,
  createdAt: TimestampOut,
  updatedAt: TimestampOut,
  myRole: ProjectRoleSchema.nullable(),
}).openapi("Project");

/** A project member. */
export const MemberSchema = z.object({
  userId: IdOut,
  email: z.string(),
  displayName: z.string(),
  role: ProjectRoleSchema,
  joinedAt: TimestampOut,
}).openapi("Member");

/** A notification. */
export const NotificationSchema = z.object({
  id: IdOut,
  kind: z.string(),
  projectId: IdOut.nullable(),
  actorId: IdOut.nullable(),
  subjectType: z.string(),
  subjectId: IdOut,
  text: z.string(),
  read: z.boolean(),
  createdAt: TimestampOut,
}).openapi("Notification");

/** An email address to register: white space around it is dropped, case is not significant. */
export const NewEmailSchema = z.string().trim().max(254).pipe(z.email()).openapi({
  type: "string",
  format: "email",
  maxLength: 254,
  description: "Trimmed and lower-cased before use",
});

/** A new password: 8 to 128 characters. */
export const NewPasswordSchema = z.string().min(8, "Use at least 8 characters").max(
  128,
  "Use at most 128 characters",
);

/** Registration input. */
export const RegisterSchema = z.object({
  email: NewEmailSchema,
  password: NewPasswordSchema,
  displayName: z.string().trim().min(1, "Cannot be blank").max(100),
}).openapi("RegisterInput");

/** Login input. */
export const LoginSchema = z.object({
  email: z.string().max(254),
  password: z.string().max(1024),
}).openapi("LoginInput");

/** Profile changes. */
export const ProfileSchema = z.object({
  displayName: z.string().trim().min(1, "Cannot be blank").max(100).optional(),
  theme: ThemeSchema.optional(),
  locale: z.enum(["en", "ja"]).optional(),
  timeZone: z.string().max(64).refine((name) => canonicalTimeZone(name) !== null, {
    message: "Unknown time zone",
  }).optional().openapi({
    description: 'An IANA time zone name the runtime knows (`Intl.supportedValuesOf("timeZone")` ' +
      "or `UTC`); an alias is stored under its listed name",
    example: "Europe/Berlin",
  }),
  emailNotifications: EmailNotificationsSchema.optional(),
  digestHour: DigestHourSchema.optional(),
}).openapi("ProfileInput");

/** Project creation input; a `null` description is an empty one. */
export const ProjectInputSchema = z.object({
  name: z.string().trim().min(1, "Cannot be blank").max(200),
  description: z.string().max(10_000).nullable().optional().openapi({
    description: "null is an empty description: a project's description is never null",
  }),
}).openapi("ProjectInput");

/** A member to add. */
export const MemberInputSchema = z.object({
  email: z.string().max(254),
  role: ProjectRoleSchema,
}).openapi("MemberInput");

/** A stored file. */
export const FileSchema = z.object({
  id: IdOut,
  projectId: IdOut,
  name: z.string(),
  contentType: z.string(),
  size: z.number().int(),
  source: z.enum(["upload", "attachment"]),
  uploaderId: IdOut,
  createdAt: TimestampOut,
  downloadUrl: z.string(),
}).openapi("File");

/** File ids to attach. */
export const FileIdsSchema = z.array(z.number().int().positive()).max(50);

/** A thread category. */
export const CategorySchema = z.enum(["general", "announcement", "question", "idea"]);

/** A board thread. */
export const ThreadSchema = z.object({
  id: IdOut,
  projectId: IdOut,
  authorId: IdOut,
  title: z.string(),
  body: z.string(),
  category: CategorySchema,
  pinned: z.boolean(),
  commentCount: z.number().int(),
  createdAt: TimestampOut,
  updatedAt: TimestampOut,
  attachments: z.array(FileSchema),
}).openapi("Thread");

/** A comment on a thread. */
export const CommentSchema = z.object({
  id: IdOut,
  projectId: IdOut,
  threadId: IdOut,
  authorId: IdOut,
  body: z.string(),
  createdAt: TimestampOut,
  updatedAt: TimestampOut,
  attachments: z.array(FileSchema),
}).openapi("Comment");

/** A note. */
export const NoteSchema = z.object({
  id: IdOut,
  projectId: IdOut,
  authorId: IdOut,
  title: z.string(),
  body: z.string(),
  tags: z.array(z.string()),
  pinned: z.boolean(),
  createdAt: TimestampOut,
  updatedAt: TimestampOut,
}).openapi("Note");

/** An activity entry. */
export const ActivitySchema = z.object({
  id: IdOut,
  projectId: IdOut,
  kind: z.string(),
  actorId: IdOut,
  subjectType: z.string(),
  subjectId: IdOut,
  summary: z.string(),
  createdAt: TimestampOut,
}).openapi("Activity");

/** Tags: short strings. */
export const TagsSchema = z.array(z.string().max(50)).max(20);

/** A chat message. */
export const MessageSchema = z.object({
  id: IdOut,
  projectId: IdOut,
  authorId: IdOut,
  text: z.string(),
  createdAt: TimestampOut,
  updatedAt: TimestampOut,
  attachments: z.array(FileSchema),
}).openapi("ChatMessage");

/** A kanban column. */
export const ColumnSchema = z.object({
  id: IdOut,
  projectId: IdOut,
  name: z.string(),
  key: z.enum(["todo", "in_progress", "done"]).nullable(),
  position: z.number().int(),
  createdAt: TimestampOut,
  updatedAt: TimestampOut,
}).openapi("Column");

/** A to-do priority. */
export const PrioritySchema = z.enum(["low", "normal", "high"]);

/** How much of a to-do item's checklist is done (0 of 0 without one). */
export const ChecklistSummarySchema = z.object({
  done: z.number().int().min(0),
  total: z.number().int().min(0),
}).openapi("ChecklistSummary");

/** A checklist entry of a to-do item. */
export const ChecklistEntrySchema = z.object({
  id: IdOut,
  itemId: IdOut,
  text: z.string(),
  done: z.boolean(),
  position: z.number().int().min(0),
  createdAt: TimestampOut,
  updatedAt: TimestampOut,
}).openapi("ChecklistEntry");

/** A to-do item. */
export const ItemSchema = z.object({
  id: IdOut,
  projectId: IdOut,
  columnId: IdOut,
  creatorId: IdOut,
  title: z.string(),
  description: z.string().nullable(),
  assigneeId: IdOut.nullable(),
  priority: PrioritySchema,
  startDate: DateOut.nullable(),
  dueDate: DateOut.nullable(),
  tags: z.array(z.string()),
  orderIndex: z.number().int(),
  completed: z.boolean(),
  completedAt: TimestampOut.nullable(),
  milestoneId: IdOut.nullable(),
  createdAt: TimestampOut,
  updatedAt: TimestampOut,
  attachments: z.array(FileSchema),
  checklist: ChecklistSummarySchema,
}).openapi("TodoItem");
