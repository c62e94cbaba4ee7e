/**
 * Every operation's `operationId`, keyed by method and path template. Generated clients name
 * their methods after these, so they are part of the contract: never rename one. A route
 * missing here fails the document build (and with it the OpenAPI tests).
 */
export const OPERATION_IDS: Readonly<Record<string, string>> = {
  "GET /api/openapi.json": "getOpenApiDocument",

  "POST /api/auth/register": "register",
  "POST /api/auth/login": "login",
  "POST /api/auth/logout": "logout",
  "GET /api/auth/me": "getMe",
  "PATCH /api/users/me": "updateMe",
  "POST /api/auth/password": "changePassword",

  "GET /api/admin/users": "listUsers",
  "PATCH /api/admin/users/{userId}": "updateUser",
  "GET /api/admin/migrations": "listMigrations",
  "GET /api/admin/backup": "downloadBackup",
  "GET /api/admin/mail": "listMail",
  "POST /api/admin/mail/test": "sendTestMail",
  "GET /api/admin/trash/projects": "listDeletedProjects",
  "POST /api/admin/trash/projects/{projectId}/restore": "restoreProject",

  "GET /api/projects": "listProjects",
  "POST /api/projects": "createProject",
  "GET /api/projects/{projectId}": "getProject",
  "PATCH /api/projects/{projectId}": "updateProject",
  "DELETE /api/projects/{projectId}": "deleteProject",
  "POST /api/projects/{projectId}/archive": "archiveProject",
  "POST /api/projects/{projectId}/unarchive": "unarchiveProject",
  "GET /api/projects/{projectId}/members": "listMembers",
  "POST /api/projects/{projectId}/members": "addMember",
  "PATCH /api/projects/{projectId}/members/{userId}": "changeMemberRole",
  "DELETE /api/projects/{projectId}/members/{userId}": "removeMember",
  "GET /api/projects/{projectId}/export": "exportProject",
  "POST /api/projects/import": "importProject",

  "GET /api/notifications": "listNotifications",
  "POST /api/notifications/{id}/read": "markNotificationRead",
  "POST /api/notifications/read-all": "markAllNotificationsRead",
  "PUT /api/projects/{projectId}/notification-level": "setNotificationLevel",
  "GET /api/me/stream": "streamMyEvents",
  "GET /api/search": "searchEverywhere",
  "POST /api/markdown/preview": "previewMarkdown",

  "GET /api/projects/{projectId}/board/threads": "listThreads",
  "POST /api/projects/{projectId}/board/threads": "createThread",
  "GET /api/projects/{projectId}/board/threads/{threadId}": "getThread",
  "PATCH /api/projects/{projectId}/board/threads/{threadId}": "updateThread",
  "DELETE /api/projects/{projectId}/board/threads/{threadId}": "deleteThread",
  "POST /api/projects/{projectId}/board/threads/{threadId}/comments": "createComment",
  "PATCH /api/projects/{projectId}/board/comments/{commentId}": "updateComment",
  "DELETE /api/projects/{projectId}/board/comments/{commentId}": "deleteComment",

  "GET /api/projects/{projectId}/notes": "listNotes",
  "POST /api/projects/{projectId}/notes": "createNote",
  "GET /api/projects/{projectId}/notes/{noteId}": "getNote",
  "PATCH /api/projects/{projectId}/notes/{noteId}": "updateNote",
  "DELETE /api/projects/{projectId}/notes/{noteId}": "deleteNote",

  "POST /api/projects/{projectId}/files": "uploadFile",
  "GET /api/projects/{projectId}/files": "listFiles",
  "DELETE /api/projects/{projectId}/files/{fileId}": "deleteFile",
  "GET /api/files/{fileId}/download": "downloadFile",
  "POST /api/projects/{projectId}/chat/messages/{messageId}/attachments": "attachToMessage",
  "POST /api/projects/{projectId}/board/threads/{threadId}/attachments": "attachToThread",
  "POST /api/projects/{projectId}/board/comments/{commentId}/attachments": "attachToComment",
  "POST /api/projects/{projectId}/todos/items/{itemId}/attachments": "attachToTodo",

  "GET /api/projects/{projectId}/activity": "listActivity",

  "GET /api/projects/{projectId}/chat/stream": "streamProjectEvents",
  "GET /api/projects/{projectId}/chat/messages": "listMessages",
  "POST /api/projects/{projectId}/chat/messages": "sendMessage",
  "PATCH /api/projects/{projectId}/chat/messages/{messageId}": "updateMessage",
  "DELETE /api/projects/{projectId}/chat/messages/{messageId}": "deleteMessage",

  "GET /api/projects/{projectId}/todos/columns": "listColumns",
  "POST /api/projects/{projectId}/todos/columns": "createColumn",
  "PATCH /api/projects/{projectId}/todos/columns/{columnId}": "renameColumn",
  "DELETE /api/projects/{projectId}/todos/columns/{columnId}": "deleteColumn",
  "POST /api/projects/{projectId}/todos/items/reorder": "reorderTodos",
  "GET /api/projects/{projectId}/todos/items": "listTodos",
  "POST /api/projects/{projectId}/todos/items": "createTodo",
  "GET /api/projects/{projectId}/todos/items/{itemId}": "getTodo",
  "PATCH /api/projects/{projectId}/todos/items/{itemId}": "updateTodo",
  "DELETE /api/projects/{projectId}/todos/items/{itemId}": "deleteTodo",
  "POST /api/projects/{projectId}/todos/items/{itemId}/toggle-complete": "toggleTodoComplete",
  "POST /api/projects/{projectId}/todos/items/{itemId}/move": "moveTodo",
  "GET /api/projects/{projectId}/todos/items/{itemId}/checklist": "listChecklist",
  "POST /api/projects/{projectId}/todos/items/{itemId}/checklist": "addChecklistEntry",
  "POST /api/projects/{projectId}/todos/items/{itemId}/checklist/reorder": "reorderChecklist",
  "PATCH /api/projects/{projectId}/todos/items/{itemId}/checklist/{entryId}":
    "updateChecklistEntry",
  "DELETE /api/projects/{projectId}/todos/items/{itemId}/checklist/{entryId}":
    "deleteChecklistEntry",

  "GET /api/projects/{projectId}/search": "searchProject",
  "GET /api/projects/{projectId}/dashboard": "getProjectDashboard",
  "GET /api/dashboard": "getPersonalDashboard",

  "GET /api/projects/{projectId}/milestones": "listMilestones",
  "POST /api/projects/{projectId}/milestones": "createMilestone",
  "GET /api/projects/{projectId}/milestones/{milestoneId}": "getMilestone",
  "PATCH /api/projects/{projectId}/milestones/{milestoneId}": "updateMilestone",

  "GET /api/projects/{projectId}/calendar": "getCalendar",
  "GET /api/projects/{projectId}/calendar/events": "listEvents",
  "POST /api/projects/{projectId}/calendar/events": "createEvent",
  "GET /api/projects/{projectId}/calendar/events/{eventId}": "getEvent",
  "PATCH /api/projects/{projectId}/calendar/events/{eventId}": "updateEvent",
  "DELETE /api/projects/{projectId}/calendar/events/{eventId}": "deleteEvent",

  "GET /api/projects/{projectId}/meetings": "listMeetings",
  "POST /api/projects/{projectId}/meetings": "createMeeting",
  "GET /api/projects/{projectId}/meetings/check": "checkMeetingConflicts",
  "GET /api/projects/{projectId}/meetings/{meetingId}": "getMeeting",
  "PATCH /api/projects/{projectId}/meetings/{meetingId}": "updateMeeting",
  "DELETE /api/projects/{projectId}/meetings/{meetingId}": "deleteMeeting",

  "GET /api/projects/{projectId}/trash": "listTrash",
  "POST /api/projects/{projectId}/trash/{type}/{id}/restore": "restoreFromTrash",

  "GET /api/projects/{projectId}/webhooks": "listWebhooks",
  "POST /api/projects/{projectId}/webhooks": "createWebhook",
  "GET /api/projects/{projectId}/webhooks/{webhookId}": "getWebhook",
  "PATCH /api/projects/{projectId}/webhooks/{webhookId}": "updateWebhook",
  "DELETE /api/projects/{projectId}/webhooks/{webhookId}": "deleteWebhook",
  "GET /api/projects/{projectId}/webhooks/{webhookId}/deliveries": "listWebhookDeliveries",
  "POST /api/projects/{projectId}/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver":
    "redeliverWebhookDelivery",

  "POST /api/tokens": "createToken",
  "GET /api/tokens": "listTokens",
  "DELETE /api/tokens/{tokenId}": "revokeToken",

  "GET /api/me/calendar-feed": "getCalendarFeedUrls",
  "POST /api/me/calendar-feed/reset": "resetCalendarFeed",
  "GET /ics/{token}/all.ics": "getCalendarFeed",
  "GET /ics/{token}/projects/{projectId}.ics": "getProjectCalendarFeed",
  "POST /unsubscribe/{token}": "unsubscribe",
};
