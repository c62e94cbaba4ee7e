/** Request and response schemas shared by several resources. */
import { z } from "@hono/zod-openapi";

/** A user as the API shows it. */
export const UserSchema = z.object({
  id: z.number().int(),
  email: z.string(),
  displayName: z.string(),
  role: z.enum(["admin", "member"]),
  status: z.enum(["active", "disabled"]),
  theme: z.enum(["dark", "light"]),
  locale: z.enum(["en", "ja"]),
  createdAt: z.string(),
}).openapi("User");

/** A project member role. */
export const ProjectRoleSchema = z.enum(["owner", "member", "viewer"]);

/** A project. */
export const ProjectSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  description: z.string(),
  archived: z.boolean(),
  archivedAt: z.string().nullable(),
  createdBy: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
  myRole: ProjectRoleSchema.nullable(),
}).openapi("Project");

/** A project member. */
export const MemberSchema = z.object({
  userId: z.number().int(),
  email: z.string(),
  displayName: z.string(),
  role: ProjectRoleSchema,
  joinedAt: z.string(),
}).openapi("Member");

/** A notification. */
export const NotificationSchema = z.object({
  id: z.number().int(),
  kind: z.string(),
  projectId: z.number().int().nullable(),
  actorId: z.number().int().nullable(),
  subjectType: z.string(),
  subjectId: z.number().int(),
  text: z.string(),
  read: z.boolean(),
  createdAt: z.string(),
}).openapi("Notification");

/** An email address to register: white space around it is dropped, case is not significant. */
const NewEmailSchema = z.string().trim().max(254).pipe(z.email()).openapi({
  type: "string",
  format: "email",
  maxLength: 254,
  description: "Trimmed and lower-cased before use",
});

/** Registration input. */
export const RegisterSchema = z.object({
  email: NewEmailSchema,
  password: z.string().min(8, "Use at least 8 characters").max(128, "Use at most 128 characters"),
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
  theme: z.enum(["dark", "light"]).optional(),
  locale: z.enum(["en", "ja"]).optional(),
}).openapi("ProfileInput");

/** Project creation input; a `null` description is an empty one. */
export const ProjectInputSchema = z.object({
  name: z.string().trim().min(1, "Cannot be blank").max(200),
  description: z.string().max(10_000).nullable().optional(),
}).openapi("ProjectInput");

/** A member to add. */
export const MemberInputSchema = z.object({
  email: z.string().max(254),
  role: ProjectRoleSchema,
}).openapi("MemberInput");

/** A stored file. */
export const FileSchema = z.object({
  id: z.number().int(),
  projectId: z.number().int(),
  name: z.string(),
  contentType: z.string(),
  size: z.number().int(),
  source: z.enum(["upload", "attachment"]),
  uploaderId: z.number().int(),
  createdAt: z.string(),
  downloadUrl: z.string(),
}).openapi("File");

/** File ids to attach. */
export const FileIdsSchema = z.array(z.number().int().positive()).max(50);

/** A thread category. */
export const CategorySchema = z.enum(["general", "announcement", "question", "idea"]);

/** A board thread. */
export const ThreadSchema = z.object({
  id: z.number().int(),
  projectId: z.number().int(),
  authorId: z.number().int(),
  title: z.string(),
  body: z.string(),
  category: CategorySchema,
  pinned: z.boolean(),
  commentCount: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
  attachments: z.array(FileSchema),
}).openapi("Thread");

/** A comment on a thread. */
export const CommentSchema = z.object({
  id: z.number().int(),
  projectId: z.number().int(),
  threadId: z.number().int(),
  authorId: z.number().int(),
  body: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  attachments: z.array(FileSchema),
}).openapi("Comment");

/** A note. */
export const NoteSchema = z.object({
  id: z.number().int(),
  projectId: z.number().int(),
  authorId: z.number().int(),
  title: z.string(),
  body: z.string(),
  tags: z.array(z.string()),
  pinned: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
}).openapi("Note");

/** An activity entry. */
export const ActivitySchema = z.object({
  id: z.number().int(),
  projectId: z.number().int(),
  kind: z.string(),
  actorId: z.number().int(),
  subjectType: z.string(),
  subjectId: z.number().int(),
  summary: z.string(),
  createdAt: z.string(),
}).openapi("Activity");

/** Tags: short strings. */
export const TagsSchema = z.array(z.string().max(50)).max(20);

/** A chat message. */
export const MessageSchema = z.object({
  id: z.number().int(),
  projectId: z.number().int(),
  authorId: z.number().int(),
  text: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  attachments: z.array(FileSchema),
}).openapi("ChatMessage");

/** A kanban column. */
export const ColumnSchema = z.object({
  id: z.number().int(),
  projectId: z.number().int(),
  name: z.string(),
  key: z.enum(["todo", "in_progress", "done"]).nullable(),
  position: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
}).openapi("Column");

/** A to-do priority. */
export const PrioritySchema = z.enum(["low", "normal", "high"]);

/** A to-do item. */
export const ItemSchema = z.object({
  id: z.number().int(),
  projectId: z.number().int(),
  columnId: z.number().int(),
  creatorId: z.number().int(),
  title: z.string(),
  description: z.string().nullable(),
  assigneeId: z.number().int().nullable(),
  priority: PrioritySchema,
  startDate: z.string().nullable(),
  dueDate: z.string().nullable(),
  tags: z.array(z.string()),
  orderIndex: z.number().int(),
  completed: z.boolean(),
  completedAt: z.string().nullable(),
  milestoneId: z.number().int().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  attachments: z.array(FileSchema),
}).openapi("TodoItem");
