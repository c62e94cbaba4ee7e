/**
 * Realtime chat: history pages (newest page first, oldest first within it), send, edit
 * and soft delete, each announced on the project stream with the message; @mentions of
 * members notify them once per message.
 */
import {
  deleteMessage,
  findMessage,
  insertMessage,
  messageHistory,
  type MessageRow,
  updateMessage,
} from "../../db/content/chat.ts";
import type { Queries } from "../../db/kernel/engine.ts";
import { recipientsOf } from "../../db/projects/notifications.ts";
import { listMembers } from "../../db/projects/projects.ts";
import { projectAccess, requireAuthor, requireWrite } from "../accounts/access.ts";
import type { Actor } from "../accounts/accounts.ts";
import { type DomainContext, type Effects, emits, runAction } from "../projects/actions.ts";
import type { Attachments } from "./attachments.ts";
import { DomainError, invalid } from "../kernel/errors.ts";
import type { FileInfo } from "./files.ts";
import { clipText, markdownToText } from "../formats/markdown.ts";
import { mentionedEmails } from "../formats/mentions.ts";
import type { TrashRef } from "../projects/trash.ts";

/** A chat message as the API and the stream show it. */
export type Message = MessageRow & { attachments: FileInfo[] };

/** The default and largest history page. */
export const HISTORY_DEFAULT = 50;
export const HISTORY_MAX = 200;
const MAX_TEXT = 10_000;

function cleanText(text: string): string {
  if (!text.trim()) throw invalid("text", "Cannot be blank");
  if (text.length > MAX_TEXT) throw invalid("text", `Use at most ${MAX_TEXT} characters`);
  return text;
}

/** The chat operations. */
export function createChat(ctx: DomainContext, attachments: Attachments) {
  const { db } = ctx;

  const withFiles = async (q: Queries, rows: MessageRow[]): Promise<Message[]> => {
    const files = await attachments.of(q, "message", rows.map((r) => r.id));
    return rows.map((r) => ({ ...r, attachments: files.get(r.id) ?? [] }));
  };
  const message = async (q: Queries, projectId: number, id: number): Promise<MessageRow> => {
    const row = await findMessage(q, projectId, id);
    if (!row) throw new DomainError("not_found", "No such message");
    return row;
  };

  /**
   * Notifies the members mentioned in a message, once per message however often it is
   * edited, never the person acting.
   */
  async function notifyMentions(
    tx: Queries,
    fx: Effects,
    m: MessageRow,
    actorId: number,
  ): Promise<void> {
    const emails = mentionedEmails(m.text);
    if (emails.length === 0) return;
    const already = await recipientsOf(tx, {
      kind: "mention",
      subjectType: "message",
      subjectId: m.id,
    });
    const members = await listMembers(tx, m.projectId);
    const byEmail = new Map(members.map((member) => [member.email, member.userId]));
    const recipients = emails.map((e) => byEmail.get(e))
      .filter((id): id is number => id !== undefined && !already.has(id));
    fx.notify({
      kind: "mention",
      projectId: m.projectId,
      actorId,
      subjectType: "message",
      subjectId: m.id,
      // What a notification list shows in one line: words, not Markdown; names, not addresses.
      text: clipText(markdownToText(m.text, { members }), 200),
      recipients,
    });
  }

  attachments.register(
    "message",
    async (q, projectId, id) => {
      const row = await findMessage(q, projectId, id);
      return row ? { authorId: row.authorId } : null;
    },
    // Live readers see new attachments as an update of the message.
    async (tx, fx, subject) =>
      fx.event(
        subject.projectId,
        "chat.message.updated",
        (await withFiles(tx, [await message(tx, subject.projectId, subject.id)]))[0],
      ),
  );

  return {
    /** The newest `limit` messages before `before` (or the newest), oldest first. */
    async history(
      actor: Actor,
      projectId: number,
      options: { before: number | null; limit: number },
    ): Promise<{ items: Message[]; hasMore: boolean }> {
      await projectAccess(db, actor, projectId);
      const limit = Math.min(Math.max(1, options.limit), HISTORY_MAX);
      const page = await messageHistory(db, projectId, { before: options.before, limit });
      return { items: await withFiles(db, page.items), hasMore: page.hasMore };
    },

    /**
     * Sends a message (members); announced as `chat.message.created`. `uploadedFileIds` are
     * attachment uploads the actor stored for this message (the chat page's file): they are
     * uploaded to it, and go when it is deleted.
     */
    send(
      actor: Actor,
      projectId: number,
      input: {
        text: string;
        fileIds?: number[] | undefined;
        uploadedFileIds?: number[] | undefined;
      },
    ): Promise<Message> {
      return runAction(ctx, emits("chat.message.created"), async (tx, fx) => {
        requireWrite(await projectAccess(tx, actor, projectId));
        const row = await insertMessage(tx, {
          projectId,
          authorId: actor.id,
          text: cleanText(input.text),
          createdAt: fx.now,
        });
        await attachments.link(tx, fx, {
          projectId,
          type: "message",
          id: row.id,
          fileIds: input.fileIds ?? [],
          ...(input.uploadedFileIds
            ? { uploads: { uploaderId: actor.id, fileIds: input.uploadedFileIds } }
            : {}),
        });
        await notifyMentions(tx, fx, row, actor.id);
        const created = (await withFiles(tx, [row]))[0]!;
        fx.event(projectId, "chat.message.created", created);
        return created;
      });
    },

    /** Edits a message (author, owner or admin); newly mentioned members are told. */
    edit(
      actor: Actor,
      projectId: number,
      input: { messageId: number; text: string },
    ): Promise<Message> {
      return runAction(ctx, emits("chat.message.updated"), async (tx, fx) => {
        const access = await projectAccess(tx, actor, projectId);
        const row = await message(tx, projectId, input.messageId);
        requireAuthor(access, row.authorId);
        await updateMessage(tx, row.id, cleanText(input.text), fx.now);
        const updated = await message(tx, projectId, row.id);
        await notifyMentions(tx, fx, updated, actor.id);
        const result = (await withFiles(tx, [updated]))[0]!;
        fx.event(projectId, "chat.message.updated", result);
        return result;
      });
    },

    /**
     * Moves a message and the files uploaded to it to the trash; announced as
     * `chat.message.deleted`. Returns the trash entry.
     */
    remove(actor: Actor, projectId: number, messageId: number): Promise<TrashRef> {
      return runAction(ctx, emits("chat.message.deleted"), async (tx, fx) => {
        const access = await projectAccess(tx, actor, projectId);
        const row = await message(tx, projectId, messageId);
        requireAuthor(access, row.authorId);
        const last = (await withFiles(tx, [row]))[0]!;
        const deletion = { at: fx.now, by: actor.id };
        await deleteMessage(tx, row.id, deletion);
        await attachments.trashWith(tx, deletion, [{ type: "message", id: row.id }]);
        fx.event(projectId, "chat.message.deleted", {
          ...last,
          attachments: [],
          updatedAt: fx.now,
        });
        return { type: "message", id: row.id };
      });
    },
  };
}

/** The chat operations' type. */
export type Chat = ReturnType<typeof createChat>;
