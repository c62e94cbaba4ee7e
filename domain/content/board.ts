/** The message board: threads (categories, pinned first) and their comments. */
import {
  type Category,
  commenterIds,
  type CommentRow,
  deleteComment,
  deleteThread,
  findComment,
  findThread,
  insertComment,
  insertThread,
  listComments,
  listThreads,
  type ThreadRow,
  updateComment,
  updateThread,
} from "../../db/content/board.ts";
import type { Queries } from "../../db/kernel/engine.ts";
import { projectAccess, requireAuthor, requireWrite } from "../accounts/access.ts";
import type { Actor } from "../accounts/accounts.ts";
import { type DomainContext, emits, runAction } from "../projects/actions.ts";
import type { Attachments } from "./attachments.ts";
import { DomainError, invalid } from "../kernel/errors.ts";
import type { FileInfo } from "./files.ts";
import { offsetOf, type Page, pageOf, type PageRequest } from "../kernel/paging.ts";
import type { TrashRef } from "../projects/trash.ts";

export type { Category };

/** A thread as the API shows it. */
export type Thread = ThreadRow & { attachments: FileInfo[] };
/** A comment as the API shows it. */
export type Comment = CommentRow & { attachments: FileInfo[] };

const CATEGORIES: readonly Category[] = ["general", "announcement", "question", "idea"];

function text(field: string, value: string): string {
  const trimmed = value.trim();
  if (!trimmed) throw invalid(field, "Cannot be blank");
  return trimmed;
}

/** What a new thread or comment links: its `fileIds`, and the actor's uploads among them. */
function linked(
  actor: Actor,
  input: { fileIds?: number[] | undefined; uploadedFileIds?: number[] | undefined },
) {
  const uploads = input.uploadedFileIds;
  return {
    fileIds: [...(input.fileIds ?? []), ...(uploads ?? [])],
    ...(uploads ? { uploads: { uploaderId: actor.id, fileIds: uploads } } : {}),
  };
}

/** The board operations. */
export function createBoard(ctx: DomainContext, attachments: Attachments) {
  const { db } = ctx;

  const withThreadFiles = async (q: Queries, rows: ThreadRow[]): Promise<Thread[]> => {
    const files = await attachments.of(q, "thread", rows.map((r) => r.id));
    return rows.map((r) => ({ ...r, attachments: files.get(r.id) ?? [] }));
  };
  const withCommentFiles = async (q: Queries, rows: CommentRow[]): Promise<Comment[]> => {
    const files = await attachments.of(q, "comment", rows.map((r) => r.id));
    return rows.map((r) => ({ ...r, attachments: files.get(r.id) ?? [] }));
  };
  const thread = async (q: Queries, projectId: number, id: number): Promise<ThreadRow> => {
    const row = await findThread(q, projectId, id);
    if (!row) throw new DomainError("not_found", "No such thread");
    return row;
  };
  const comment = async (q: Queries, projectId: number, id: number): Promise<CommentRow> => {
    const row = await findComment(q, projectId, id);
    if (!row) throw new DomainError("not_found", "No such comment");
    return row;
  };

  // Live readers see new attachments as an update of the thread or comment.
  attachments.register(
    "thread",
    async (q, projectId, id) => {
      const row = await findThread(q, projectId, id);
      return row ? { authorId: row.authorId } : null;
    },
    async (tx, fx, subject) =>
      fx.event(
        subject.projectId,
        "board.thread.updated",
        (await withThreadFiles(tx, [await thread(tx, subject.projectId, subject.id)]))[0],
      ),
  );
  attachments.register(
    "comment",
    async (q, projectId, id) => {
      const row = await findComment(q, projectId, id);
      return row ? { authorId: row.authorId } : null;
    },
    async (tx, fx, subject) =>
      fx.event(
        subject.projectId,
        "board.comment.updated",
        (await withCommentFiles(tx, [await comment(tx, subject.projectId, subject.id)]))[0],
      ),
  );

  return {
    categories: CATEGORIES,

    /** A page of threads (optionally of one category): pinned first, then newest. */
    async list(
      actor: Actor,
      projectId: number,
      options: { category: string | null; page: PageRequest },
    ): Promise<Page<Thread>> {
      await projectAccess(db, actor, projectId);
      if (options.category !== null && !CATEGORIES.includes(options.category as Category)) {
        throw invalid("category", `Use one of ${CATEGORIES.join(", ")}`);
      }
      const { items, total } = await listThreads(db, projectId, {
        category: options.category,
        limit: options.page.pageSize,
        offset: offsetOf(options.page),
      });
      return pageOf(await withThreadFiles(db, items), total, options.page);
    },

    /** Posts a thread (members); writes `board_posted`. */
    create(
      actor: Actor,
      projectId: number,
      input: {
        title: string;
        body: string;
        category: Category;
        pinned?: boolean | undefined;
        fileIds?: number[] | undefined;
        /** Attachment uploads of the actor's, stored for this thread (`createWith`). */
        uploadedFileIds?: number[] | undefined;
      },
    ): Promise<Thread> {
      return runAction(ctx, emits("board.thread.created"), async (tx, fx) => {
        requireWrite(await projectAccess(tx, actor, projectId));
        const id = await insertThread(tx, {
          projectId,
          authorId: actor.id,
          title: text("title", input.title),
          body: input.body,
          category: input.category,
          pinned: input.pinned ?? false,
          createdAt: fx.now,
        });
        await attachments.link(tx, fx, { projectId, type: "thread", id, ...linked(actor, input) });
        fx.activity({
          projectId,
          kind: "board_posted",
          actorId: actor.id,
          subjectType: "thread",
          subjectId: id,
          summary: input.title.trim(),
        });
        const created = (await withThreadFiles(tx, [await thread(tx, projectId, id)]))[0]!;
        fx.event(projectId, "board.thread.created", created);
        return created;
      });
    },

    /** A thread with its comments. */
    async get(
      actor: Actor,
      projectId: number,
      threadId: number,
    ): Promise<{ thread: Thread; comments: Comment[] }> {
      await projectAccess(db, actor, projectId);
      const row = await thread(db, projectId, threadId);
      return {
        thread: (await withThreadFiles(db, [row]))[0]!,
        comments: await withCommentFiles(db, await listComments(db, row.id)),
      };
    },

    /** Edits a thread (author, owner or admin). */
    update(
      actor: Actor,
      projectId: number,
      input: {
        threadId: number;
        title?: string | undefined;
        body?: string | undefined;
        category?: Category | undefined;
        pinned?: boolean | undefined;
      },
    ): Promise<Thread> {
      return runAction(ctx, emits("board.thread.updated"), async (tx, fx) => {
        const access = await projectAccess(tx, actor, projectId);
        const row = await thread(tx, projectId, input.threadId);
        requireAuthor(access, row.authorId);
        await updateThread(tx, row.id, {
          title: input.title === undefined ? row.title : text("title", input.title),
          body: input.body ?? row.body,
          category: input.category ?? row.category,
          pinned: input.pinned ?? row.pinned,
          updatedAt: fx.now,
        });
        const updated = (await withThreadFiles(tx, [await thread(tx, projectId, row.id)]))[0]!;
        fx.event(projectId, "board.thread.updated", updated);
        return updated;
      });
    },

    /**
     * Moves a thread to the trash with its live comments and the files uploaded to them
     * (author, owner or admin); returns the trash entry.
     */
    remove(actor: Actor, projectId: number, threadId: number): Promise<TrashRef> {
      return runAction(ctx, emits("board.thread.deleted"), async (tx, fx) => {
        const access = await projectAccess(tx, actor, projectId);
        const row = await thread(tx, projectId, threadId);
        requireAuthor(access, row.authorId);
        const deletion = { at: fx.now, by: actor.id };
        const commentIds = await deleteThread(tx, row.id, deletion);
        await attachments.trashWith(tx, deletion, [
          { type: "thread", id: row.id },
          ...commentIds.map((id) => ({ type: "comment" as const, id })),
        ]);
        fx.event(projectId, "board.thread.deleted", { id: row.id, projectId });
        return { type: "thread", id: row.id };
      });
    },

    /** Comments on a thread (members); the thread's author and earlier commenters are told. */
    comment(
      actor: Actor,
      projectId: number,
      input: {
        threadId: number;
        body: string;
        fileIds?: number[] | undefined;
        uploadedFileIds?: number[] | undefined;
      },
    ): Promise<Comment> {
      return runAction(ctx, emits("board.comment.created"), async (tx, fx) => {
        requireWrite(await projectAccess(tx, actor, projectId));
        const row = await thread(tx, projectId, input.threadId);
        const earlier = await commenterIds(tx, row.id);
        const id = await insertComment(tx, {
          projectId,
          threadId: row.id,
          authorId: actor.id,
          body: text("body", input.body),
          createdAt: fx.now,
        });
        await attachments.link(tx, fx, {
          projectId,
          type: "comment",
          id,
          ...linked(actor, input),
        });
        fx.activity({
          projectId,
          kind: "comment_added",
          actorId: actor.id,
          subjectType: "comment",
          subjectId: id,
          summary: row.title,
        });
        fx.notify({
          kind: "board_commented",
          projectId,
          actorId: actor.id,
          subjectType: "comment",
          subjectId: id,
          text: row.title,
          recipients: [row.authorId, ...earlier],
        });
        const created = (await withCommentFiles(tx, [await comment(tx, projectId, id)]))[0]!;
        fx.event(projectId, "board.comment.created", created);
        return created;
      });
    },

    /** Edits a comment (author, owner or admin). */
    updateComment(
      actor: Actor,
      projectId: number,
      input: { commentId: number; body: string },
    ): Promise<Comment> {
      return runAction(ctx, emits("board.comment.updated"), async (tx, fx) => {
        const access = await projectAccess(tx, actor, projectId);
        const row = await comment(tx, projectId, input.commentId);
        requireAuthor(access, row.authorId);
        await updateComment(tx, row.id, text("body", input.body), fx.now);
        const updated = (await withCommentFiles(tx, [await comment(tx, projectId, row.id)]))[0]!;
        fx.event(projectId, "board.comment.updated", updated);
        return updated;
      });
    },

    /** Moves a comment and the files uploaded to it to the trash; returns the trash entry. */
    removeComment(actor: Actor, projectId: number, commentId: number): Promise<TrashRef> {
      return runAction(ctx, emits("board.comment.deleted"), async (tx, fx) => {
        const access = await projectAccess(tx, actor, projectId);
        const row = await comment(tx, projectId, commentId);
        requireAuthor(access, row.authorId);
        const deletion = { at: fx.now, by: actor.id };
        await deleteComment(tx, row.id, deletion);
        await attachments.trashWith(tx, deletion, [{ type: "comment", id: row.id }]);
        fx.event(projectId, "board.comment.deleted", {
          id: row.id,
          projectId,
          threadId: row.threadId,
        });
        return { type: "comment", id: row.id };
      });
    },
  };
}

/** The board operations' type. */
export type Board = ReturnType<typeof createBoard>;
