/**
 * The notification mails' text: one template per notification kind, each giving the subject
 * line, a one-line summary and the body of both parts, in the recipient's language (en or ja)
 * with times in their zone (the zone named next to each time). Names and titles are escaped in
 * the HTML part; a chat message's Markdown goes through the pages' safe renderer. Header values
 * lose their control characters in `queueMail`, so a name cannot add a header.
 */
import type { MailDetails, MailedNotification } from "../../db/mail/notification_mail.ts";
import { markdownToText } from "../formats/markdown.ts";
import { renderMarkdown } from "../formats/markdown_html.ts";
import { DEFAULT_TIME_ZONE } from "../kernel/time_zones.ts";

/** A mail's language. */
export type MailLocale = "en" | "ja";

/** The recipient as the templates need them. */
export interface MailReader {
  locale: MailLocale;
  timeZone: string | null;
  displayName: string;
}

/** A composed mail, ready for `queueMail`. */
export interface ComposedMail {
  subject: string;
  text: string;
  html: string;
}

/** Escapes text for HTML. */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );
}

const KIND_LABELS: Record<MailLocale, Record<string, string>> = {
  en: {
    board_commented: "New comment on a thread",
    todo_assigned: "A to-do was assigned to you",
    meeting_invited: "You were invited to a meeting",
    meeting_updated: "A meeting was changed",
    file_shared: "A file was shared",
    note_updated: "A note was updated",
    mention: "You were mentioned in chat",
    member_added: "You were added to a project",
    webhook_disabled: "A failing webhook was turned off",
  },
  ja: {
    board_commented: "スレッドに新しいコメントがあります",
    todo_assigned: "ToDo が割り当てられました",
    meeting_invited: "会議に招待されました",
    meeting_updated: "会議の内容が変更されました",
    file_shared: "ファイルが共有されました",
    note_updated: "ノートが更新されました",
    mention: "チャットでメンションされました",
    member_added: "プロジェクトに追加されました",
    webhook_disabled: "失敗が続いた Webhook を停止しました",
  },
};

const WORDS = {
  en: {
    someone: "Someone",
    mention: (who: string) => `${who} mentioned you in chat`,
    todo: (who: string, title: string) => `${who} assigned you to ${title}`,
    meeting: (who: string, title: string) => `${who} invited you to ${title}`,
    many: (n: number) => `${n} new notifications`,
    digest: (n: number) =>
      `Daily digest: ${n} unread ${n === 1 ? "notification" : "notifications"}`,
    digestIntro: "Notifications that arrived since your last digest and are still unread:",
    due: "Due",
    when: "When",
    open: "Open",
    noProject: "Other",
    footer: "You get this mail because of your notification settings.",
    settings: "Change them",
    unsubscribe: "Stop notification mail",
  },
  ja: {
    someone: "誰か",
    mention: (who: string) => `${who} さんがチャットであなたをメンションしました`,
    todo: (who: string, title: string) => `${who} さんが「${title}」をあなたに割り当てました`,
    meeting: (who: string, title: string) => `${who} さんが「${title}」にあなたを招待しました`,
    many: (n: number) => `新しい通知 ${n} 件`,
    digest: (n: number) => `毎日のまとめ: 未読の通知 ${n} 件`,
    digestIntro: "前回のまとめ以降に届き、まだ読んでいない通知です。",
    due: "期限",
    when: "日時",
    open: "開く",
    noProject: "その他",
    footer: "通知の設定により、このメールをお送りしています。",
    settings: "設定を変更",
    unsubscribe: "通知メールを止める",
  },
} as const;

/** A time as the reader reads it, the zone named after it: `Nov 22, 2026, 5:30 PM (Asia/Tokyo)`. */
export function mailTime(iso: string, reader: Pick<MailReader, "locale" | "timeZone">): string {
  const zone = reader.timeZone ?? DEFAULT_TIME_ZONE;
  const text = new Intl.DateTimeFormat(reader.locale === "ja" ? "ja-JP" : "en-US", {
    dateStyle: "medium",
    timeStyle: "short",
    timeZone: zone,
  }).format(new Date(iso));
  return `${text} (${zone})`;
}

/** The page a notification is about, from the site's root (its project's page when none). */
export function notificationPath(n: MailedNotification): string {
  if (n.projectId === null) return "/notifications";
  const p = `/projects/${n.projectId}`;
  switch (n.subjectType) {
    case "message":
      return `${p}/chat#message-${n.subjectId}`;
    case "thread":
      return `${p}/board/${n.subjectId}`;
    case "comment":
      return `${p}/board`;
    case "note":
      return `${p}/notes/${n.subjectId}`;
    case "item":
      return `${p}/todos/${n.subjectId}`;
    case "meeting":
      return `${p}/meetings/${n.subjectId}`;
    case "file":
      return `${p}/files`;
    case "event":
      return `${p}/calendar`;
    case "milestone":
      return `${p}/milestones`;
    default:
      return p;
  }
}

/**
 * The thread a notification's item is in, as a Message-ID (`<item-todo-7@host>`; a chat message
 * is in its project's chat, `<chat-3@host>`), or null when it is about no item.
 */
export function threadId(n: MailedNotification, details: MailDetails, host: string): string | null {
  if (n.projectId === null) return null;
  switch (n.subjectType) {
    case "message":
      return `<chat-${n.projectId}@${host}>`;
    case "comment": {
      const thread = details.commentThreads.get(n.subjectId);
      return thread === undefined ? null : `<item-thread-${thread}@${host}>`;
    }
    case "item":
      return `<item-todo-${n.subjectId}@${host}>`;
    case "thread":
    case "note":
    case "meeting":
    case "event":
    case "milestone":
    case "file":
      return `<item-${n.subjectType}-${n.subjectId}@${host}>`;
    default:
      return null;
  }
}

/** One notification as a mail shows it. */
interface Entry {
  /** The one-line summary (plain text). */
  line: string;
  /** Extra plain-text lines (a message, a due date, a meeting's time). */
  textBody: string;
  /** The same as HTML. */
  htmlBody: string;
  url: string;
  at: string;
}

function entryOf(
  n: MailedNotification,
  details: MailDetails,
  reader: MailReader,
  baseUrl: string,
): Entry {
  const w = WORDS[reader.locale];
  const who = n.actorId === null ? w.someone : details.people.get(n.actorId) ?? w.someone;
  const url = baseUrl + notificationPath(n);
  const at = mailTime(n.createdAt, reader);
  let line: string;
  let textBody = "";
  let htmlBody = "";
  if (n.kind === "mention") {
    line = w.mention(who);
    const source = details.messages.get(n.subjectId);
    if (source !== undefined) {
      textBody = markdownToText(source, { members: [] });
      htmlBody = `<blockquote>${renderMarkdown(source)}</blockquote>`;
    }
  } else if (n.kind === "todo_assigned") {
    line = w.todo(who, n.text);
    const due = details.todos.get(n.subjectId);
    if (due) {
      textBody = `${w.due}: ${due}`;
      htmlBody = `<p>${w.due}: ${escapeHtml(due)}</p>`;
    }
  } else if (n.kind === "meeting_invited") {
    line = w.meeting(who, n.text);
    const meeting = details.meetings.get(n.subjectId);
    if (meeting) {
      const when = `${w.when}: ${mailTime(meeting.startAt, reader)}`;
      textBody = when;
      htmlBody = `<p>${escapeHtml(when)}</p>`;
    }
  } else {
    const label = KIND_LABELS[reader.locale][n.kind] ?? n.kind;
    line = n.text ? `${label}: ${n.text}` : label;
  }
  return { line, textBody, htmlBody, url, at };
}

function entryText(e: Entry): string {
  return `${e.line} — ${e.at}\n${e.textBody ? `${e.textBody}\n` : ""}${e.url}\n`;
}

function entryHtml(e: Entry, open: string): string {
  return `<div class="entry"><p><strong>${escapeHtml(e.line)}</strong> <small>${
    escapeHtml(e.at)
  }</small></p>${e.htmlBody}<p><a href="${escapeHtml(e.url)}">${escapeHtml(open)}</a></p></div>`;
}

function footer(reader: MailReader, baseUrl: string, unsubscribeUrl: string) {
  const w = WORDS[reader.locale];
  const settings = `${baseUrl}/settings`;
  return {
    text: `\n-- \n${w.footer}\n${w.settings}: ${settings}\n${w.unsubscribe}: ${unsubscribeUrl}\n`,
    html: `<hr><p><small>${escapeHtml(w.footer)} <a href="${escapeHtml(settings)}">${
      escapeHtml(w.settings)
    }</a> · <a href="${escapeHtml(unsubscribeUrl)}">${escapeHtml(w.unsubscribe)}</a></small></p>`,
  };
}

function page(reader: MailReader, body: string): string {
  return `<!DOCTYPE html><html lang="${reader.locale}"><head><meta charset="utf-8"></head>` +
    `<body>${body}</body></html>`;
}

function projectPrefix(rows: readonly MailedNotification[], details: MailDetails): string {
  const ids = new Set(rows.map((r) => r.projectId));
  if (ids.size !== 1) return "";
  const [id] = ids;
  const name = id === null || id === undefined ? undefined : details.projects.get(id);
  return name === undefined ? "" : `[${name}] `;
}

/** The mail of the notifications mailed at once (`immediate`): one or several, oldest first. */
export function immediateMail(
  rows: readonly MailedNotification[],
  details: MailDetails,
  reader: MailReader,
  links: { baseUrl: string; unsubscribeUrl: string },
): ComposedMail {
  const w = WORDS[reader.locale];
  const entries = rows.map((n) => entryOf(n, details, reader, links.baseUrl));
  const subject = projectPrefix(rows, details) +
    (entries.length === 1 ? entries[0]!.line : w.many(entries.length));
  const end = footer(reader, links.baseUrl, links.unsubscribeUrl);
  return {
    subject,
    text: entries.map(entryText).join("\n") + end.text,
    html: page(reader, entries.map((e) => entryHtml(e, w.open)).join("") + end.html),
  };
}

/** The daily digest: the notifications grouped by project (by name), oldest first in each. */
export function digestMail(
  rows: readonly MailedNotification[],
  details: MailDetails,
  reader: MailReader,
  links: { baseUrl: string; unsubscribeUrl: string },
): ComposedMail {
  const w = WORDS[reader.locale];
  const groups = new Map<number | null, MailedNotification[]>();
  for (const n of rows) groups.set(n.projectId, [...groups.get(n.projectId) ?? [], n]);
  const name = (id: number | null) =>
    id === null ? w.noProject : details.projects.get(id) ?? w.noProject;
  const ordered = [...groups].sort(([a], [b]) =>
    a === null ? 1 : b === null ? -1 : name(a).localeCompare(name(b)) || a - b
  );
  let text = `${w.digestIntro}\n`;
  let html = `<p>${escapeHtml(w.digestIntro)}</p>`;
  for (const [projectId, items] of ordered) {
    const entries = items.map((n) => entryOf(n, details, reader, links.baseUrl));
    const heading = name(projectId);
    text += `\n== ${heading} ==\n\n` + entries.map(entryText).join("\n");
    html += `<h2>${escapeHtml(heading)}</h2>` + entries.map((e) => entryHtml(e, w.open)).join("");
  }
  const end = footer(reader, links.baseUrl, links.unsubscribeUrl);
  return {
    subject: projectPrefix(rows, details) + w.digest(rows.length),
    text: text + end.text,
    html: page(reader, html + end.html),
  };
}
