/**
 * Every query function of the `db/` modules the services use answers alike on SQLite and on
 * PostgreSQL. The same rows (tests/fixtures/engine_parity_seed.sql) are written on a fresh
 * SQLite database and on a throwaway PostgreSQL one; then each function is called on both, each
 * call in a transaction rolled back afterwards, and the results are compared: the values
 * returned and, for a write, the rows it changed as read back in the same transaction. New rows
 * get the same ids on both (the PostgreSQL sequences are set back before each call). Results
 * that are sets (a `Set` or `Map`) are compared sorted; everything else, order included, must
 * be equal. A function exported from one of these modules and called by no case fails the
 * test, unless it is listed (with the reason) in `NOT_CALLED`.
 *
 * Needs Debian's postgresql (`.ci/run` installs it).
 */
import assert from "node:assert/strict";
import type { Engine, Queries } from "../../../db/kernel/engine.ts";
import { migrate, MIGRATIONS_DIR } from "../../../db/sqlite/migrate.ts";
import { openPostgresEngine } from "../../../db/postgres/engine.ts";
import { migratePostgres, POSTGRES_MIGRATIONS_DIR } from "../../../db/postgres/migrate.ts";
import { openDatabase } from "../../../db/sqlite/sqlite.ts";
import { sqliteEngine } from "../../../db/sqlite/sqlite_engine.ts";
import * as accountLinksModule from "../../../db/identity/account_links.ts";
import * as activityModule from "../../../db/projects/activity.ts";
import * as apiTokensModule from "../../../db/accounts/api_tokens.ts";
import * as boardModule from "../../../db/content/board.ts";
import * as calendarModule from "../../../db/planning/calendar.ts";
import * as calendarFeedsModule from "../../../db/integrations/calendar_feeds.ts";
import * as chatModule from "../../../db/content/chat.ts";
import * as checklistsModule from "../../../db/planning/checklists.ts";
import * as dashboardsModule from "../../../db/overview/dashboards.ts";
import * as eventsModule from "../../../db/projects/events.ts";
import * as filesModule from "../../../db/content/files.ts";
import * as loanModule from "../../../db/loan/loan.ts";
import * as meetingsModule from "../../../db/planning/meetings.ts";
import * as milestonesModule from "../../../db/planning/milestones.ts";
import * as notesModule from "../../../db/content/notes.ts";
import * as notificationsModule from "../../../db/projects/notifications.ts";
import * as archiveModule from "../../../db/archives/project_archive.ts";
import * as projectsModule from "../../../db/projects/projects.ts";
import * as sessionsModule from "../../../db/accounts/sessions.ts";
import * as todosModule from "../../../db/planning/todos.ts";
import * as trashModule from "../../../db/projects/trash.ts";
import * as userEventsModule from "../../../db/projects/user_events.ts";
import * as usersModule from "../../../db/accounts/users.ts";
import * as webhooksModule from "../../../db/integrations/webhooks.ts";
import { ARCHIVE_KINDS } from "../../../domain/archives/project_archive.ts";
import { postgresTest } from "../../helpers/postgres.ts";

const NOW = () => new Date("2024-01-06T00:00:00.000Z");
/** The time every write of the cases stamps. */
const T = "2024-01-06T00:00:00.000Z";
const LATER = "2030-01-01T00:00:00.000Z";
const BY_ALICE = { at: T, by: 1 };
const NO_LIMIT = { limit: 1000, more: () => true };

// ---------------------------------------------------------------------------------------
// Which exported functions the cases call.

const called = new Set<string>();

/** The module, its functions counting their calls (as `module.function`). */
function tracked<M extends Record<string, unknown>>(name: string, module: M): M {
  return new Proxy(module, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== "function" || typeof key !== "string") return value;
      return (...args: unknown[]) => {
        called.add(`${name}.${key}`);
        return (value as (...a: unknown[]) => unknown)(...args);
      };
    },
  });
}

const MODULES = {
  account_links: accountLinksModule,
  activity: activityModule,
  api_tokens: apiTokensModule,
  board: boardModule,
  calendar: calendarModule,
  calendar_feeds: calendarFeedsModule,
  chat: chatModule,
  checklists: checklistsModule,
  dashboards: dashboardsModule,
  events: eventsModule,
  user_events: userEventsModule,
  files: filesModule,
  loan: loanModule,
  meetings: meetingsModule,
  milestones: milestonesModule,
  notes: notesModule,
  notifications: notificationsModule,
  project_archive: archiveModule,
  projects: projectsModule,
  sessions: sessionsModule,
  todos: todosModule,
  trash: trashModule,
  users: usersModule,
  webhooks: webhooksModule,
};

/** Exported functions no case calls, and why. */
const NOT_CALLED: Record<string, string> = {
  "project_archive.openSnapshot": "opens a second SQLite connection; PostgreSQL has none yet",
  "project_archive.pagePlan": "SQLite's query plan, for the SQLite tests",
  "project_archive.showImportedPlan": "SQLite's query plan, for the SQLite tests",
  "dashboards.upcomingMeetingsPlan": "SQLite's query plan, for the SQLite tests",
  "project_archive.fileFromRow": "maps a row; no SQL",
  "todos.toItem": "maps a row; no SQL",
  "notifications.toNotification": "maps a row; no SQL",
  "webhooks.fanOutDeliveries": "rewritten for PostgreSQL's concurrency (issue 18), not ported yet",
  "webhooks.fanOutProjectDeliveries":
    "rewritten for PostgreSQL's concurrency (issue 18), not ported yet",
};

const accountLinks = tracked("account_links", accountLinksModule);
const activity = tracked("activity", activityModule);
const apiTokens = tracked("api_tokens", apiTokensModule);
const board = tracked("board", boardModule);
const calendar = tracked("calendar", calendarModule);
const feeds = tracked("calendar_feeds", calendarFeedsModule);
const chat = tracked("chat", chatModule);
const checklists = tracked("checklists", checklistsModule);
const dashboards = tracked("dashboards", dashboardsModule);
const events = tracked("events", eventsModule);
const userEvents = tracked("user_events", userEventsModule);
const files = tracked("files", filesModule);
const loan = tracked("loan", loanModule);
const meetings = tracked("meetings", meetingsModule);
const milestones = tracked("milestones", milestonesModule);
const notes = tracked("notes", notesModule);
const notifications = tracked("notifications", notificationsModule);
const archive = tracked("project_archive", archiveModule);
const projects = tracked("projects", projectsModule);
const sessions = tracked("sessions", sessionsModule);
const todos = tracked("todos", todosModule);
const trash = tracked("trash", trashModule);
const users = tracked("users", usersModule);
const webhooks = tracked("webhooks", webhooksModule);

// ---------------------------------------------------------------------------------------
// The cases, by module: a name and a call (with, for a write, what it changed).

type Case = readonly [name: string, run: (q: Queries) => Promise<unknown>];

/** How each table's rows are ordered when read back. */
const KEY: Record<string, string> = {
  project_members: "project_id, user_id",
  meeting_invitees: "meeting_id, user_id",
  sessions: "id_hash",
  customers: "customer_name",
  calendar_feeds: "user_id",
};

/** The rows of a table, in key order. */
const rows = (q: Queries, table: string) =>
  q.all(`SELECT * FROM ${table} ORDER BY ${KEY[table] ?? "id"}`);

/** What a write returned, and then the rows of `table`. */
const withRows = async (q: Queries, table: string, write: Promise<unknown>) => ({
  result: await write,
  rows: await rows(q, table),
});

/** The tables holding a project's rows, and the project itself. */
const PROJECT_TABLES =
  ("attachments comments threads notes chat_messages meetings calendar_events " +
    "todo_checklist_entries todo_items todo_columns milestones files activity notifications " +
    "project_events webhooks project_members projects").split(" ");

/** How many rows of a project each table still has. */
async function projectRowCounts(q: Queries, projectId: number): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of PROJECT_TABLES) {
    const column = table === "projects" ? "id" : "project_id";
    out[table] = (await q.get<{ n: number }>(
      `SELECT count(*) AS n FROM ${table} WHERE ${column} = ?`,
      [projectId],
    ))!.n;
  }
  return out;
}

const THREAD_1 = { type: "thread", id: 1 } as const;
const ITEM_1 = { type: "item", id: 1 } as const;

/** Links file 3 (uploaded to comment 1) to item 1 as well. */
const linkFile3ToItem1 = (q: Queries) =>
  q.run(
    "INSERT INTO attachments (project_id, file_id, subject_type, subject_id, created_at) " +
      "VALUES (1, 3, 'item', 1, ?)",
    [T],
  );

/** A stream event of project 1 that webhook 2 (and the catch-all webhook 1) subscribe to. */
const EVENT_12 = { projectId: 1, eventId: 12, event: "thread_created", body: "{}", at: T };

/** A reset link of user 1 with hash `hash`, made at T, working until `expiresAt`. */
const link = (q: Queries, hash: string, expiresAt = LATER) =>
  accountLinks.insertAccountLink(q, {
    tokenHash: hash,
    userId: 1,
    kind: "reset",
    mailed: true,
    createdAt: T,
    expiresAt,
  });

const CASES: Record<string, Case[]> = {
  account_links: [
    ["insertAccountLink", (q) => withRows(q, "account_links", link(q, "h1"))],
    ["findAccountLink", async (q) => {
      await link(q, "h1");
      return [
        await accountLinks.findAccountLink(q, "h1"),
        await accountLinks.findAccountLink(q, "nope"),
      ];
    }],
    ["useAccountLink (once, not expired)", async (q) => {
      const id = await link(q, "h1");
      const late = await link(q, "h2", T);
      return {
        first: await accountLinks.useAccountLink(q, id, T),
        again: await accountLinks.useAccountLink(q, id, T),
        expired: await accountLinks.useAccountLink(q, late, T),
        rows: await rows(q, "account_links"),
      };
    }],
    ["endAccountLinks", async (q) => {
      await link(q, "h1");
      await link(q, "h2");
      return await withRows(q, "account_links", accountLinks.endAccountLinks(q, 1, "reset", T));
    }],
    ["pruneAccountLinks", async (q) => {
      await link(q, "h1", T);
      await link(q, "h2");
      return await withRows(q, "account_links", accountLinks.pruneAccountLinks(q, T, 10));
    }],
  ],
  activity: [
    ["insertActivity", (q) =>
      withRows(
        q,
        "activity",
        activity.insertActivity(q, {
          projectId: 1,
          kind: "k",
          actorId: 1,
          subjectType: "thread",
          subjectId: 1,
          summary: "",
          createdAt: T,
        }),
      )],
    ["latestActivity", (q) => activity.latestActivity(q, [1, 3], 10)],
    ["listActivity", (q) => activity.listActivity(q, 1, 10, 0)],
    ["listActivity (second page)", (q) => activity.listActivity(q, 1, 1, 1)],
    ["countActivity", (q) => activity.countActivity(q, [1, 3])],
    ["countActivity (capped)", (q) => activity.countActivity(q, [1, 3], 1)],
    ["withoutJit", (q) => activity.withoutJit(q)],
    ["withGenericPlans", (q) => activity.withGenericPlans(q)],
  ],
  api_tokens: [
    ["insertApiToken", (q) =>
      withRows(
        q,
        "api_tokens",
        apiTokens.insertApiToken(q, {
          userId: 1,
          name: "n",
          scope: "read",
          createdAt: T,
          expiresAt: null,
          secretHash: "h2",
        }),
      )],
    ["findApiToken", (q) => apiTokens.findApiToken(q, 1, 1)],
    ["listApiTokens", (q) => apiTokens.listApiTokens(q, 1)],
    ["countApiTokens", (q) => apiTokens.countApiTokens(q, 1)],
    ["findApiTokenByHash", (q) => apiTokens.findApiTokenByHash(q, "hash1")],
    ["touchApiToken", (q) => withRows(q, "api_tokens", apiTokens.touchApiToken(q, 1, T))],
    ["deleteApiToken", (q) => withRows(q, "api_tokens", apiTokens.deleteApiToken(q, 1))],
    ["deleteUserApiTokens", (q) => withRows(q, "api_tokens", apiTokens.deleteUserApiTokens(q, 1))],
  ],
  board: [
    ["insertThread", (q) =>
      withRows(
        q,
        "threads",
        board.insertThread(q, {
          projectId: 1,
          authorId: 1,
          title: "t",
          body: "b",
          category: "general",
          pinned: true,
          createdAt: T,
        }),
      )],
    ["findThread", (q) => board.findThread(q, 1, 1)],
    [
      "listThreads (any category)",
      (q) => board.listThreads(q, 1, { category: null, limit: 10, offset: 0 }),
    ],
    [
      "listThreads (one category)",
      (q) => board.listThreads(q, 1, { category: "general", limit: 10, offset: 0 }),
    ],
    ["updateThread", (q) =>
      withRows(
        q,
        "threads",
        board.updateThread(q, 1, {
          title: "t",
          body: "b",
          category: "idea",
          pinned: true,
          updatedAt: T,
        }),
      )],
    ["deleteThread", (q) => withRows(q, "comments", board.deleteThread(q, 1, BY_ALICE))],
    [
      "insertComment",
      (q) =>
        withRows(
          q,
          "comments",
          board.insertComment(q, {
            projectId: 1,
            threadId: 1,
            authorId: 1,
            body: "c",
            createdAt: T,
          }),
        ),
    ],
    ["findComment", (q) => board.findComment(q, 1, 1)],
    ["listComments", (q) => board.listComments(q, 1)],
    ["commenterIds", (q) => board.commenterIds(q, 1)],
    ["updateComment", (q) => withRows(q, "comments", board.updateComment(q, 1, "x", T))],
    ["deleteComment", (q) => withRows(q, "comments", board.deleteComment(q, 1, BY_ALICE))],
    ["threadsByIds", (q) => board.threadsByIds(q, [2, 1])],
  ],
  calendar: [
    ["insertEvent", (q) =>
      withRows(
        q,
        "calendar_events",
        calendar.insertEvent(q, {
          projectId: 1,
          creatorId: 1,
          title: "e",
          description: null,
          startAt: T,
          endAt: T,
          allDay: true,
          createdAt: T,
        }),
      )],
    ["findEvent", (q) => calendar.findEvent(q, 1, 1)],
    ["listEvents", (q) => calendar.listEvents(q, 1)],
    ["updateEvent", (q) =>
      withRows(
        q,
        "calendar_events",
        calendar.updateEvent(q, 1, {
          title: "e",
          description: null,
          startAt: T,
          endAt: T,
          allDay: false,
          updatedAt: T,
        }),
      )],
    ["deleteEvent", (q) => withRows(q, "calendar_events", calendar.deleteEvent(q, 1, BY_ALICE))],
    ["eventsOverlapping", (q) =>
      calendar.eventsOverlapping(q, 1, {
        startAt: "2024-01-01T00:00:00.000Z",
        endAt: "2024-02-01T00:00:00.000Z",
      })],
    ["calendarRange (with meetings)", (q) =>
      calendar.calendarRange(q, 1, {
        from: "2024-01-01T00:00:00.000Z",
        to: "2024-03-01T00:00:00.000Z",
        firstDay: "2024-01-01",
        lastDay: "2024-03-01",
        meetings: true,
      })],
    ["calendarRange (without)", (q) =>
      calendar.calendarRange(q, 1, {
        from: "2024-01-10T00:00:00.000Z",
        to: "2024-01-16T10:15:00.000Z",
        firstDay: "2024-01-10",
        lastDay: "2024-01-16",
      })],
  ],
  calendar_feeds: [
    ["findFeedOfUser", (q) => feeds.findFeedOfUser(q, 1)],
    ["findFeedByHash", (q) => feeds.findFeedByHash(q, "th")],
    [
      "saveFeed",
      (q) =>
        withRows(
          q,
          "calendar_feeds",
          feeds.saveFeed(q, { userId: 1, salt: "s2", tokenHash: "th2", createdAt: T }),
        ),
    ],
    ["setFeedHash", (q) => withRows(q, "calendar_feeds", feeds.setFeedHash(q, 1, "th3"))],
    ["feedItems", (q) => feeds.feedItems(q, [1, 3])],
    ["feedMeetings", (q) => feeds.feedMeetings(q, [1, 3])],
  ],
  chat: [
    [
      "insertMessage",
      (q) => chat.insertMessage(q, { projectId: 1, authorId: 1, text: "m", createdAt: T }),
    ],
    ["findMessage", (q) => chat.findMessage(q, 1, 1)],
    ["messageHistory (latest)", (q) => chat.messageHistory(q, 1, { before: null, limit: 2 })],
    ["messageHistory (before an id)", (q) => chat.messageHistory(q, 1, { before: 3, limit: 1 })],
    ["latestMessages", (q) => chat.latestMessages(q, 1, 2)],
    ["updateMessage", (q) => withRows(q, "chat_messages", chat.updateMessage(q, 1, "x", T))],
    ["deleteMessage", (q) => withRows(q, "chat_messages", chat.deleteMessage(q, 1, BY_ALICE))],
  ],
  checklists: [
    ["listEntries", (q) => checklists.listEntries(q, 1)],
    ["entriesOfItems", (q) => checklists.entriesOfItems(q, [1, 2, 3])],
    ["findEntry", (q) => checklists.findEntry(q, 1, 1)],
    ["countEntries", (q) => checklists.countEntries(q, 1)],
    ["summariesOf", (q) => checklists.summariesOf(q, [1, 2, 3])],
    ["insertEntry", (q) =>
      withRows(
        q,
        "todo_checklist_entries",
        checklists.insertEntry(q, {
          projectId: 1,
          itemId: 1,
          text: "t",
          done: true,
          position: 2,
          createdAt: T,
          updatedAt: T,
        }),
      )],
    [
      "updateEntry",
      (q) =>
        withRows(
          q,
          "todo_checklist_entries",
          checklists.updateEntry(q, 1, { text: "t", done: false, at: T }),
        ),
    ],
    ["deleteEntry", (q) => withRows(q, "todo_checklist_entries", checklists.deleteEntry(q, 1))],
    [
      "placeEntries",
      (q) => withRows(q, "todo_checklist_entries", checklists.placeEntries(q, [2, 1], T)),
    ],
  ],
  dashboards: [
    ["inProgressItems", (q) => dashboards.inProgressItems(q, 1, 20)],
    ["countInProgressItems", (q) => dashboards.countInProgressItems(q, 1, 1000)],
    ["countInProgressItems (capped)", (q) => dashboards.countInProgressItems(q, 1, 0)],
    [
      "itemsDueBetween",
      (q) => dashboards.itemsDueBetween(q, 1, { from: "2024-01-01", to: "2024-02-01", limit: 20 }),
    ],
    [
      "countItemsDueBetween",
      (q) => dashboards.countItemsDueBetween(q, 1, { from: "2024-01-01", to: "2024-02-01" }, 1000),
    ],
    ["countAssignedItems (any due date)", (q) => dashboards.countAssignedItems(q, 2, null, 1000)],
    ["countAssignedItems (capped)", (q) => dashboards.countAssignedItems(q, 2, null, 0)],
    [
      "countAssignedItems (due before)",
      (q) => dashboards.countAssignedItems(q, 2, "2024-03-01", 1000),
    ],
    [
      "countUpcomingMeetings",
      (q) => dashboards.countUpcomingMeetings(q, 2, "2024-01-01T00:00:00.000Z"),
    ],
    [
      "assignedItems (any due date)",
      (q) => dashboards.assignedItems(q, 2, { dueBefore: null, limit: 10 }),
    ],
    [
      "assignedItems (due before)",
      (q) => dashboards.assignedItems(q, 2, { dueBefore: "2024-03-01", limit: 10 }),
    ],
    ["countLatest", (q) => dashboards.countLatest(q, 1, 1000)],
    ["countLatest (capped)", (q) => dashboards.countLatest(q, 1, 0)],
    ["newestThreadIds", (q) => dashboards.newestThreadIds(q, 1, 5)],
    ["newestNoteIds", (q) => dashboards.newestNoteIds(q, 1, 5)],
    ["userProjectIds", (q) => dashboards.userProjectIds(q, 1)],
    ["nextMeetingId", (q) => dashboards.nextMeetingId(q, 1, "2024-01-01T00:00:00.000Z")],
    [
      "upcomingMeetingIds",
      (q) => dashboards.upcomingMeetingIds(q, 3, "2024-01-01T00:00:00.000Z", 5),
    ],
  ],
  events: [
    [
      "appendEvent",
      (q) => events.appendEvent(q, { projectId: 1, name: "n", data: "{}", createdAt: T }),
    ],
    ["eventsAfter", (q) => events.eventsAfter(q, 1, 0, 10)],
    [
      "appendUserEvent",
      (q) => userEvents.appendUserEvent(q, { userId: 1, name: "n", data: "{}", createdAt: T }),
    ],
    [
      "userEventsAfter",
      async (q) => {
        await userEvents.appendUserEvent(q, { userId: 2, name: "n", data: "{}", createdAt: T });
        return await userEvents.userEventsAfter(q, 2, 0, 10);
      },
    ],
  ],
  files: [
    ["insertFile", (q) =>
      files.insertFile(q, {
        projectId: 1,
        uploaderId: 1,
        name: "n",
        storedName: "1/z",
        contentType: "t",
        size: 1,
        source: "upload",
        uploadedTo: null,
        createdAt: T,
      })],
    ["findFile", (q) => files.findFile(q, 2)],
    ["findProjectFiles", (q) => files.findProjectFiles(q, 1, [3, 1, 2])],
    [
      "listFiles (any source)",
      (q) => files.listFiles(q, 1, { source: null, limit: 10, offset: 0 }),
    ],
    [
      "listFiles (one source)",
      (q) => files.listFiles(q, 1, { source: "upload", limit: 10, offset: 0 }),
    ],
    ["latestFiles", (q) => files.latestFiles(q, 1, 5)],
    ["deleteFile", (q) => withRows(q, "files", files.deleteFile(q, 1, BY_ALICE))],
    ["insertAttachments", (q) =>
      withRows(
        q,
        "attachments",
        files.insertAttachments(q, {
          projectId: 1,
          subjectType: "thread",
          subjectId: 1,
          fileIds: [1, 2],
          at: T,
        }),
      )],
    ["attachmentsOf", (q) => files.attachmentsOf(q, "thread", [1, 2])],
    [
      "claimUploads",
      async (q) => {
        await q.run("UPDATE files SET uploaded_to_id = NULL, uploaded_to_type = NULL WHERE id = 2");
        const claim = {
          uploaderId: 1,
          subjectType: "thread" as const,
          subjectId: 1,
          fileIds: [1, 2],
        };
        return await withRows(q, "files", files.claimUploads(q, claim));
      },
    ],
    [
      "trashUploads (the subject's own)",
      async (q) => {
        await board.deleteThread(q, 1, BY_ALICE);
        return await withRows(q, "files", files.trashUploads(q, [THREAD_1], BY_ALICE));
      },
    ],
    [
      "trashUploads (uploaded elsewhere, subject alive)",
      async (q) => {
        await linkFile3ToItem1(q);
        return await withRows(q, "files", files.trashUploads(q, [ITEM_1], BY_ALICE));
      },
    ],
    [
      "trashUploads (uploaded elsewhere, subject gone)",
      async (q) => {
        await linkFile3ToItem1(q);
        await q.run("UPDATE comments SET deleted_at = ? WHERE id = 1", [T]);
        return await withRows(q, "files", files.trashUploads(q, [ITEM_1], BY_ALICE));
      },
    ],
  ],
  loan: [
    ["insertCustomer", (q) => withRows(q, "customers", loan.insertCustomer(q, "acme2", false, T))],
    ["insertCustomer (known)", (q) => loan.insertCustomer(q, "acme", false, T)],
    ["isBlacklisted", (q) => loan.isBlacklisted(q, "acme")],
    ["insertDecision", (q) =>
      withRows(
        q,
        "loan_history",
        loan.insertDecision(q, {
          applicantName: "a",
          requestedAmount: 5,
          approved: true,
          approvedRate: 1.5,
          rejectionReason: null,
          processedAt: T,
        }),
      )],
  ],
  meetings: [
    ["insertMeeting", (q) =>
      meetings.insertMeeting(q, {
        projectId: 1,
        creatorId: 1,
        title: "m",
        startAt: T,
        endAt: T,
        location: null,
        minutes: null,
        createdAt: T,
      })],
    [
      "setInvitees",
      (q) => withRows(q, "meeting_invitees", meetings.setInvitees(q, 1, [2, 3, 2, 1])),
    ],
    ["setInvitees (none)", (q) => withRows(q, "meeting_invitees", meetings.setInvitees(q, 1, []))],
    ["findMeeting", (q) => meetings.findMeeting(q, 1, 1)],
    ["listMeetings", (q) => meetings.listMeetings(q, 1)],
    [
      "pageMeetings",
      (q) => meetings.pageMeetings(q, 1, "2024-01-10T00:00:00.000Z", { limit: 20, offset: 0 }),
    ],
    ["countMeetings", (q) => meetings.countMeetings(q, 1)],
    ["updateMeeting", (q) =>
      withRows(
        q,
        "meetings",
        meetings.updateMeeting(q, 1, {
          title: "m",
          startAt: T,
          endAt: T,
          location: null,
          minutes: null,
          updatedAt: T,
        }),
      )],
    ["deleteMeeting", (q) => withRows(q, "meetings", meetings.deleteMeeting(q, 1, BY_ALICE))],
    ["membersAmong", (q) => meetings.membersAmong(q, 1, [1, 2, 9])],
    ["busyMeetings", (q) =>
      meetings.busyMeetings(q, {
        userIds: [1, 2, 3],
        startAt: "2024-01-16T00:00:00.000Z",
        endAt: "2024-01-17T00:00:00.000Z",
        excludeIds: [],
      })],
    ["busyMeetings (one left out)", (q) =>
      meetings.busyMeetings(q, {
        userIds: [3],
        startAt: "2024-01-16T00:00:00.000Z",
        endAt: "2024-01-17T00:00:00.000Z",
        excludeIds: [2],
      })],
    [
      "pressingTodos",
      (q) =>
        meetings.pressingTodos(q, { userIds: [2], firstDay: "2024-01-01", lastDay: "2024-02-01" }),
    ],
    ["meetingsByIds", (q) => meetings.meetingsByIds(q, [2, 1])],
  ],
  milestones: [
    ["insertMilestone", (q) =>
      milestones.insertMilestone(q, {
        projectId: 1,
        creatorId: 1,
        title: "m",
        description: null,
        dueDate: null,
        createdAt: T,
      })],
    ["findMilestone", (q) => milestones.findMilestone(q, 1, 1)],
    ["milestoneInProject", async (q) => [
      await milestones.milestoneInProject(q, 1, 1),
      await milestones.milestoneInProject(q, 3, 1),
    ]],
    ["listMilestones", (q) => milestones.listMilestones(q, 1)],
    ["pageMilestones", (q) => milestones.pageMilestones(q, 1, 1, 1)],
    ["countMilestones", (q) => milestones.countMilestones(q, 1)],
    ["milestonePosition", (q) => milestones.milestonePosition(q, 1, 2)],
    ["updateMilestone", (q) =>
      withRows(
        q,
        "milestones",
        milestones.updateMilestone(q, 1, {
          title: "m",
          description: null,
          dueDate: null,
          updatedAt: T,
        }),
      )],
    ["linkedTodoCounts", (q) => milestones.linkedTodoCounts(q, 1)],
  ],
  notes: [
    ["insertNote", (q) =>
      withRows(
        q,
        "notes",
        notes.insertNote(q, {
          projectId: 1,
          authorId: 1,
          title: "n",
          body: "b",
          tags: ["a"],
          pinned: false,
          createdAt: T,
        }),
      )],
    ["findNote", (q) => notes.findNote(q, 1, 1)],
    ["listNotes (any tag)", (q) => notes.listNotes(q, 1, { tag: null, limit: 10, offset: 0 })],
    ["listNotes (one tag)", (q) => notes.listNotes(q, 1, { tag: "a", limit: 10, offset: 0 })],
    ["listNotes (unknown tag)", (q) => notes.listNotes(q, 1, { tag: "z", limit: 10, offset: 0 })],
    [
      "updateNote",
      (q) =>
        withRows(
          q,
          "notes",
          notes.updateNote(q, 1, { title: "n", body: "b", tags: [], pinned: true, updatedAt: T }),
        ),
    ],
    ["deleteNote", (q) => withRows(q, "notes", notes.deleteNote(q, 1, BY_ALICE))],
    ["notesByIds", (q) => notes.notesByIds(q, [2, 1])],
  ],
  notifications: [
    ["insertNotifications", (q) =>
      notifications.insertNotifications(q, [2, 3], {
        kind: "k",
        projectId: 1,
        actorId: 1,
        subjectType: "thread",
        subjectId: 1,
        text: "",
        createdAt: T,
      })],
    ["listUnread", (q) => notifications.listUnread(q, 2, 10, 0)],
    ["findNotification", (q) => notifications.findNotification(q, 1, 2)],
    ["markNotificationRead", (q) => notifications.markNotificationRead(q, 1, T)],
    [
      "recipientsOf",
      (q) =>
        notifications.recipientsOf(q, { kind: "mention", subjectType: "thread", subjectId: 1 }),
    ],
    ["markAllRead", (q) => withRows(q, "notifications", notifications.markAllRead(q, 2, T))],
    ["quietMembers", (q) => notifications.quietMembers(q, 1)],
    [
      "setNotificationLevel",
      (q) => withRows(q, "project_members", notifications.setNotificationLevel(q, 1, 2, "none")),
    ],
    ["notificationLevel", (q) => notifications.notificationLevel(q, 1, 3)],
  ],
  project_archive: [
    ["readProject", (q) => archive.readProject(q, 1)],
    ["readMembers", (q) => archive.readMembers(q, 1)],
    ...ARCHIVE_KINDS.map((kind): Case => [
      `readPage (${kind})`,
      (q) => archive.readPage(q, kind, { projectId: 1, afterId: 0, limit: 100 }),
    ]),
    [
      "readPage (after an id)",
      (q) => archive.readPage(q, "items", { projectId: 1, afterId: 1, limit: 2 }),
    ],
    [
      "readThreadComments",
      (q) => archive.readThreadComments(q, { threadId: 1, afterId: 0, limit: 10 }),
    ],
    ["readAttachments", (q) => archive.readAttachments(q, "thread", [1, 2])],
    ["readChecklists", (q) => archive.readChecklists(q, [1, 2, 3])],
    [
      "userIdsByEmail",
      (q) => archive.userIdsByEmail(q, ["alice@example.com", "bob@example.com", "x@example.com"]),
    ],
    ["an import: insert every kind, show, finish", async (q) => {
      const p = await archive.insertImportedProject(q, {
        name: "i",
        description: "",
        archivedAt: null,
        createdBy: 1,
        at: T,
        lease: { owner: 1, until: T },
      });
      const rowOf = { projectId: p, createdAt: T, updatedAt: T };
      const thread = await archive.insertImportedThread(q, {
        ...rowOf,
        authorId: 1,
        title: "t",
        body: "b",
        category: "general",
        pinned: true,
      });
      await archive.insertImportedComment(q, {
        ...rowOf,
        threadId: thread,
        authorId: 2,
        body: "c",
      });
      await archive.insertImportedNote(q, {
        ...rowOf,
        authorId: 1,
        title: "t",
        body: "b",
        tags: ["q"],
        pinned: true,
      });
      await archive.insertImportedMessage(q, { ...rowOf, authorId: 1, text: "t" });
      const column = await archive.insertImportedColumn(q, {
        ...rowOf,
        name: "c",
        key: "todo",
        position: 0,
      });
      const milestone = await archive.insertImportedMilestone(q, {
        ...rowOf,
        creatorId: 1,
        title: "m",
        description: null,
        dueDate: null,
      });
      const item = await archive.insertImportedItem(q, {
        ...rowOf,
        columnId: column,
        creatorId: 1,
        title: "i",
        description: null,
        assigneeId: null,
        priority: "low",
        startDate: null,
        dueDate: null,
        tags: [],
        orderIndex: 0,
        completed: true,
        completedAt: T,
        milestoneId: milestone,
      });
      await archive.insertImportedEvent(q, {
        ...rowOf,
        creatorId: 1,
        title: "e",
        description: null,
        startAt: T,
        endAt: T,
        allDay: true,
      });
      await archive.insertImportedMeeting(q, {
        ...rowOf,
        creatorId: 1,
        title: "m",
        startAt: T,
        endAt: T,
        location: null,
        minutes: null,
        inviteeIds: [3, 2],
      });
      const file = await archive.insertImportedFile(q, {
        projectId: p,
        uploaderId: 1,
        name: "f",
        storedName: "9/f",
        contentType: "t",
        size: 1,
        source: "attachment",
        createdAt: T,
      });
      await archive.setUploadedTo(q, file, { type: "item", id: item });
      await archive.insertImportedAttachments(q, {
        projectId: p,
        subjectType: "item",
        subjectId: item,
        fileIds: [file],
        at: T,
      });
      await archive.insertImportedActivity(q, {
        projectId: p,
        kind: "k",
        actorId: 1,
        subjectType: "item",
        subjectId: item,
        summary: "",
        createdAt: T,
      });
      // Once the lease ran out, both engines call the import a leftover (SQLite even before).
      const later = "2027-01-01T00:00:00.000Z";
      const importing = [
        await archive.renewImportLease(q, p, { owner: 1, until: "2026-12-01T00:00:00.000Z" }),
        await archive.renewImportLease(q, p, { owner: 2, until: "2026-12-02T00:00:00.000Z" }),
        await archive.importLeftoverIds(q, later),
        await archive.isImporting(q, p),
        await archive.takeImportLeftover(q, p, later, { owner: 2, until: later }),
      ];
      const shown = [await archive.showImported(q, p, 3), await archive.showImported(q, p, 100)];
      const finished = await archive.finishImportedProject(q, p);
      const pages: Record<string, unknown> = {};
      for (const kind of ARCHIVE_KINDS) {
        pages[kind] = await archive.readPage(q, kind, { projectId: p, afterId: 0, limit: 100 });
      }
      return { importing, shown, finished, done: await archive.isImporting(q, p), pages };
    }],
    ["deleteImportingProject", async (q) => {
      const p = await archive.insertImportedProject(q, {
        name: "i",
        description: "",
        archivedAt: null,
        createdBy: 1,
        at: T,
        lease: { owner: 1, until: T },
      });
      await archive.deleteImportingProject(q, p);
      return await rows(q, "projects");
    }],
  ],
  projects: [
    [
      "insertProject",
      (q) =>
        withRows(
          q,
          "projects",
          projects.insertProject(q, { name: "p", description: "", createdBy: 1, at: T }),
        ),
    ],
    ["findProject", (q) => projects.findProject(q, 1)],
    ["listProjectsOfUser (archived too)", (q) => projects.listProjectsOfUser(q, 1, true)],
    ["listProjectsOfUser (not archived)", (q) => projects.listProjectsOfUser(q, 1, false)],
    ["updateProject", (q) => projects.updateProject(q, 1, { name: "x" }, T)],
    ["setProjectArchived", (q) => projects.setProjectArchived(q, 1, T, T)],
    ["deleteProject", (q) => withRows(q, "projects", projects.deleteProject(q, 1, BY_ALICE))],
    ["memberRole", (q) => projects.memberRole(q, 1, 2)],
    ["listMembers", (q) => projects.listMembers(q, 1)],
    ["findMember", (q) => projects.findMember(q, 1, 2)],
    [
      "insertMember",
      (q) =>
        withRows(
          q,
          "project_members",
          projects.insertMember(q, { projectId: 3, userId: 2, role: "member", at: T }),
        ),
    ],
    [
      "updateMemberRole",
      (q) => withRows(q, "project_members", projects.updateMemberRole(q, 1, 2, "viewer")),
    ],
    ["deleteMember", (q) => withRows(q, "project_members", projects.deleteMember(q, 1, 2))],
    ["countOwners", (q) => projects.countOwners(q, 1)],
    ["memberIds", (q) => projects.memberIds(q, 1)],
  ],
  sessions: [
    ["insertSession", (q) =>
      withRows(
        q,
        "sessions",
        sessions.insertSession(q, {
          idHash: "x",
          userId: 1,
          issuedAt: T,
          lastUsedAt: T,
          expiresAt: T,
        }),
      )],
    ["findSession", (q) => sessions.findSession(q, "sh")],
    ["touchSession", (q) => withRows(q, "sessions", sessions.touchSession(q, "sh", T))],
    ["deleteSession", (q) => withRows(q, "sessions", sessions.deleteSession(q, "sh"))],
    ["deleteUserSessions", (q) => sessions.deleteUserSessions(q, 1)],
    ["deleteExpiredSessions", (q) => sessions.deleteExpiredSessions(q, T)],
    ["deleteOtherUserSessions", (q) => sessions.deleteOtherUserSessions(q, 1, "sh")],
  ],
  todos: [
    ["listColumns", (q) => todos.listColumns(q, 1)],
    [
      "insertColumn",
      (q) =>
        withRows(
          q,
          "todo_columns",
          todos.insertColumn(q, { projectId: 1, name: "c", key: null, position: 3, at: T }),
        ),
    ],
    ["findColumn", (q) => todos.findColumn(q, 1, 1)],
    ["renameColumn", (q) => withRows(q, "todo_columns", todos.renameColumn(q, 1, "x", T))],
    ["deleteColumn", (q) => withRows(q, "todo_columns", todos.deleteColumn(q, 1, 3))],
    ["countColumnItems (live)", (q) => todos.countColumnItems(q, 1, { live: true })],
    ["countColumnItems (all)", (q) => todos.countColumnItems(q, 1, { live: false })],
    ["rehomeDeletedItems", (q) => withRows(q, "todo_items", todos.rehomeDeletedItems(q, 1, 2))],
    ["insertItem", (q) =>
      withRows(
        q,
        "todo_items",
        todos.insertItem(q, {
          projectId: 1,
          columnId: 1,
          creatorId: 1,
          title: "i",
          description: null,
          assigneeId: null,
          priority: "low",
          startDate: null,
          dueDate: null,
          tags: [],
          orderIndex: 5,
          milestoneId: null,
          createdAt: T,
        }),
      )],
    ["findItem", (q) => todos.findItem(q, 1, 1)],
    ["findItems", (q) => todos.findItems(q, 1, [3, 1, 2, 4])],
    [
      "listItems (no filter)",
      (q) => todos.listItems(q, 1, { columnId: null, assigneeId: null, milestoneId: null }),
    ],
    [
      "listItems (every filter)",
      (q) => todos.listItems(q, 1, { columnId: 2, assigneeId: 2, milestoneId: 1 }),
    ],
    [
      "countItems",
      (q) => todos.countItems(q, 1, { columnId: 2, assigneeId: null, milestoneId: null }),
    ],
    ["columnCounts", async (q) => [...(await todos.columnCounts(q, 1)).entries()].sort()],
    ["placeInColumn", (q) => todos.placeInColumn(q, 2, 1)],
    [
      "columnItemsAfter",
      (q) =>
        todos.columnItemsAfter(q, 2, { orderIndex: 0, id: 0 }, 10, {
          assigneeId: null,
          milestoneId: null,
        }),
    ],
    [
      "columnItemsByCompletion",
      (q) => todos.columnItemsByCompletion(q, 2, null, 10, { assigneeId: null, milestoneId: null }),
    ],
    ["columnItemIds", (q) => todos.columnItemIds(q, 2)],
    ["lockBoard (a row lock on PostgreSQL; nothing to compare)", (q) => todos.lockBoard(q, 1)],
    ["placeItems", (q) => withRows(q, "todo_items", todos.placeItems(q, 2, [2, 1], T))],
    [
      "updateItem",
      (q) =>
        withRows(
          q,
          "todo_items",
          todos.updateItem(q, 1, { title: "x", tags: ["y"], assigneeId: null }, T),
        ),
    ],
    ["setCompleted", (q) => withRows(q, "todo_items", todos.setCompleted(q, 1, T, T))],
    ["deleteItem", (q) => withRows(q, "todo_items", todos.deleteItem(q, 1, BY_ALICE))],
  ],
  trash: [
    ["listTrash", (q) => trash.listTrash(q, 1, { limit: 10, offset: 0 })],
    ["listTrash (second page)", (q) => trash.listTrash(q, 1, { limit: 2, offset: 2 })],
    ["findTrashed", (q) => trash.findTrashed(q, 1, { type: "thread", id: 2 })],
    [
      "findTrashed (gone with its thread)",
      (q) => trash.findTrashed(q, 1, { type: "comment", id: 3 }),
    ],
    ["restoreRow", (q) => withRows(q, "comments", trash.restoreRow(q, { type: "comment", id: 2 }))],
    ["restoreThreadComments", (q) => trash.restoreThreadComments(q, 2)],
    ["threadOfCommentDeleted", (q) => trash.threadOfCommentDeleted(q, 3)],
    [
      "restoreLinkedFiles",
      async (q) => {
        await q.run(
          "UPDATE files SET deleted_at = ?, deleted_with_subject = 1 WHERE id IN (2, 3)",
          [
            T,
          ],
        );
        return await withRows(q, "files", trash.restoreLinkedFiles(q, [THREAD_1]));
      },
    ],
    ["restoreItemPlace", (q) => withRows(q, "todo_items", trash.restoreItemPlace(q, 4, T))],
    ["findAnyFile", (q) => trash.findAnyFile(q, 1, 1)],
    ["purgeItem", async (q) => ({
      stored: await trash.purgeItem(q, "thread", 2),
      left: await projectRowCounts(q, 1),
    })],
    ["purgeItem (a file)", (q) => trash.purgeItem(q, "file", 2)],
    ["purgeExpired", async (q) => {
      await q.run("UPDATE files SET deleted_at = ?, deleted_with_subject = 1 WHERE id = 3", [T]);
      await q.run("UPDATE files SET deleted_at = ? WHERE id = 1", [T]);
      const first = await trash.purgeExpired(q, LATER, { limit: 2, more: () => true });
      const rest = await trash.purgeExpired(q, LATER, NO_LIMIT);
      return { first, rest, left: await projectRowCounts(q, 1) };
    }],
    ["listDeletedProjects", (q) => trash.listDeletedProjects(q, { limit: 10, offset: 0 })],
    ["findDeletedProject", (q) => trash.findDeletedProject(q, 2)],
    ["restoreProjectRow", (q) => withRows(q, "projects", trash.restoreProjectRow(q, 2))],
    ["expiredProjectIds", (q) => trash.expiredProjectIds(q, LATER)],
    ["purgeProjectRows", async (q) => ({
      result: await trash.purgeProjectRows(q, 2, { cutoff: LATER, at: T, budget: NO_LIMIT }),
      left: await projectRowCounts(q, 2),
    })],
    ["deleteProjectRowsWithin (in chunks)", async (q) => {
      const steps = [];
      for (let i = 0; i < 4; i++) {
        steps.push({
          rowsLeft: await trash.deleteProjectRowsWithin(q, 1, { limit: 6, more: () => true }),
          left: await projectRowCounts(q, 1),
        });
      }
      return steps;
    }],
    ["deleteProjectRowsWithin (all)", async (q) => ({
      rowsLeft: await trash.deleteProjectRowsWithin(q, 1, NO_LIMIT),
      left: await projectRowCounts(q, 1),
    })],
    ["deleteProjectRow", async (q) => {
      await trash.purgeProjectRows(q, 2, { cutoff: LATER, at: T, budget: NO_LIMIT });
      await trash.deleteProjectRow(q, 2);
      return await projectRowCounts(q, 2);
    }],
  ],
  users: [
    ["countUsers", (q) => users.countUsers(q)],
    ["countActiveAdmins", (q) => users.countActiveAdmins(q)],
    ["insertUser", (q) =>
      users.insertUser(q, {
        email: "d@example.com",
        displayName: "d",
        passwordHash: "h",
        role: "member",
        createdAt: T,
      })],
    ["insertUser (email taken)", (q) =>
      users.insertUser(q, {
        email: "bob@example.com",
        displayName: "d",
        passwordHash: "h",
        role: "member",
        createdAt: T,
      })],
    ["findUserById", (q) => users.findUserById(q, 1)],
    ["findUserByEmail", (q) => users.findUserByEmail(q, "bob@example.com")],
    ["findUserByEmail (case)", (q) => users.findUserByEmail(q, "carol@example.com")],
    ["listUsers", (q) => users.listUsers(q)],
    ["updateUser", (q) => users.updateUser(q, 1, { displayName: "A", theme: "system" }, T)],
    ["setPasswordHash", (q) => withRows(q, "users", users.setPasswordHash(q, 1, "x", T))],
    [
      "mailNothingBefore",
      (q) => withRows(q, "notifications", users.mailNothingBefore(q, 1, T)),
    ],
    ["userTimeZone", (q) => users.userTimeZone(q, 1)],
    ["setEmailVerified", (q) => withRows(q, "users", users.setEmailVerified(q, 1, true, T))],
  ],
  webhooks: [
    ["insertWebhook", (q) =>
      webhooks.insertWebhook(q, {
        projectId: 1,
        url: "u",
        events: ["*"],
        description: "",
        secret: "s",
        createdBy: 1,
        createdAt: T,
      })],
    ["findWebhook", (q) => webhooks.findWebhook(q, 1, 1)],
    ["findWebhookById", (q) => webhooks.findWebhookById(q, 1)],
    ["listWebhooks", (q) => webhooks.listWebhooks(q, 1)],
    [
      "updateWebhook",
      (q) => webhooks.updateWebhook(q, 1, { active: false, events: ["a"], updatedAt: T }),
    ],
    ["deleteWebhook", (q) => withRows(q, "webhook_deliveries", webhooks.deleteWebhook(q, 1))],
    [
      "enqueueDeliveries (subscribed)",
      (q) => withRows(q, "webhook_outbox", webhooks.enqueueDeliveries(q, EVENT_12)),
    ],
    [
      "enqueueDeliveries (not subscribed)",
      async (q) => {
        await q.run("UPDATE webhooks SET events = '[\"note_created\"]' WHERE id = 1");
        return await webhooks.enqueueDeliveries(q, EVENT_12);
      },
    ],
    ["hasQueuedEvents", async (q) => [
      await webhooks.hasQueuedEvents(q),
      await webhooks.hasQueuedEvents(q, 1),
      await webhooks.hasQueuedEvents(q, 3),
    ]],
    ["lastQueuedEvent", (q) => webhooks.lastQueuedEvent(q)],
    ["findDelivery", (q) => webhooks.findDelivery(q, 1, 1)],
    [
      "insertRedelivery",
      async (q) => webhooks.insertRedelivery(q, (await webhooks.findDelivery(q, 1, 1))!, T),
    ],
    ["listDeliveries", (q) => webhooks.listDeliveries(q, 1, 10, 0)],
    ["webhooksWithDueDeliveries", (q) => webhooks.webhooksWithDueDeliveries(q, T, [])],
    [
      "webhooksWithDueDeliveries (an instance's own: none claimed)",
      (q) => webhooks.webhooksWithDueDeliveries(q, T, [], 1),
    ],
    [
      "webhooksWithDueDeliveries (some in flight)",
      (q) => webhooks.webhooksWithDueDeliveries(q, T, [1]),
    ],
    ["dueDeliveries", (q) => webhooks.dueDeliveries(q, 1, { now: T, exclude: [5], limit: 10 })],
    [
      "dueDeliveries (all in flight)",
      (q) => webhooks.dueDeliveries(q, 1, { now: T, exclude: [1], limit: 10 }),
    ],
    [
      "claimDueDeliveries (answers as dueDeliveries; on PostgreSQL it also leases them)",
      (q) =>
        webhooks.claimDueDeliveries(q, 1, {
          now: T,
          exclude: [5],
          limit: 10,
          leaseUntil: "2099-01-01T00:00:00.000Z",
          owner: 1,
        }),
    ],
    ["liveWebhookIds", async (q) => [...await webhooks.liveWebhookIds(q, [1, 2, 3, 99])].sort()],
    ["finishAttempt", (q) =>
      withRows(
        q,
        "webhook_deliveries",
        webhooks.finishAttempt(q, 1, {
          attempts: 1,
          status: "succeeded",
          statusCode: 200,
          error: null,
          nextAttemptAt: null,
          deliveredAt: T,
        }),
      )],
    ["pruneDeliveries", (q) => webhooks.pruneDeliveries(q, T)],
    [
      "noteWebhookFailure",
      (q) => webhooks.noteWebhookFailure(q, 1, { at: T, disableBefore: LATER }),
    ],
    ["noteWebhookSuccess", async (q) => {
      await q.run("UPDATE webhooks SET failing_since = ? WHERE id = 1", [T]);
      return await withRows(q, "webhooks", webhooks.noteWebhookSuccess(q, 1));
    }],
  ],
};

// ---------------------------------------------------------------------------------------
// Running a case on an engine.

class Rollback extends Error {}

/** A value as compared: sets sorted, then through JSON (null-prototype rows, key order). */
function comparable(value: unknown): unknown {
  const sorted = (a: unknown[]) =>
    a.toSorted((x, y) => JSON.stringify(x) < JSON.stringify(y) ? -1 : 1);
  return JSON.parse(JSON.stringify(value ?? null, (_key, v) => {
    if (v instanceof Set) return sorted([...v]);
    if (v instanceof Map) return sorted([...v]);
    return v;
  }));
}

/** The case's result on an engine (in a transaction rolled back), or the error it threw. */
async function outcome(
  engine: Engine,
  run: Case[1],
  before: () => Promise<void>,
): Promise<{ ok: unknown } | { error: string }> {
  let result: { ok: unknown } | { error: string } = { error: "no result" };
  try {
    await engine.transaction(async (tx) => {
      await before();
      result = { ok: comparable(await run(tx)) };
      throw new Rollback();
    });
  } catch (error) {
    if (!(error instanceof Rollback)) result = { error: String(error) };
  }
  return result;
}

Deno.test(
  postgresTest(
    "every query function answers alike on SQLite and PostgreSQL",
    async (pg, sql, t) => {
      const seed = await Deno.readTextFile(
        new URL("../../fixtures/engine_parity_seed.sql", import.meta.url),
      );
      const db = openDatabase(":memory:");
      migrate(db, MIGRATIONS_DIR, NOW);
      db.sql.exec(seed);
      const lite = sqliteEngine(db);

      await migratePostgres(sql, POSTGRES_MIGRATIONS_DIR, NOW);
      await sql.unsafe(seed).simple();
      // Rows written with their ids leave the sequences behind; each case starts with every
      // sequence just past its table's highest id, where SQLite starts (a rollback does not
      // give PostgreSQL its numbers back, so this runs before every case).
      const restarts: string[] = [];
      for (
        const { table, column } of await sql<{ table: string; column: string }[]>`
          SELECT table_name AS table, column_name AS column FROM information_schema.columns
          WHERE table_schema = current_schema() AND is_identity = 'YES' ORDER BY 1`
      ) {
        const [{ max }] = await sql.unsafe<[{ max: string | null }]>(
          `SELECT max("${column}")::bigint AS max FROM "${table}"`,
        );
        restarts.push(
          `setval(pg_get_serial_sequence('${table}', '${column}'), ${max ?? 1}, ${max !== null})`,
        );
      }
      const restartSequences = `SELECT ${restarts.join(", ")}`;
      const pge = openPostgresEngine(pg.url, { max: 2 });
      try {
        for (const [module, cases] of Object.entries(CASES)) {
          await t.step(module, async () => {
            for (const [name, run] of cases) {
              const fromSqlite = await outcome(lite, run, () => Promise.resolve());
              const fromPostgres = await outcome(pge, run, async () => {
                await sql.unsafe(restartSequences);
              });
              assert.ok(
                "ok" in fromSqlite,
                `${module}.${name} on SQLite: ${JSON.stringify(fromSqlite)}`,
              );
              assert.deepEqual(fromPostgres, fromSqlite, `${module}.${name}`);
            }
          });
        }
        await t.step("every exported function is called (or excused)", () => {
          const missing = [];
          for (const [module, exports] of Object.entries(MODULES)) {
            for (const [key, value] of Object.entries(exports)) {
              const name = `${module}.${key}`;
              if (typeof value === "function" && !called.has(name) && !(name in NOT_CALLED)) {
                missing.push(name);
              }
            }
          }
          assert.deepEqual(missing, []);
          for (const name of Object.keys(NOT_CALLED)) assert.ok(!called.has(name), name);
        });
      } finally {
        await pge.close();
        await db.close();
      }
    },
  ),
);
