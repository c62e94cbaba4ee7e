/** Markdown notes with tags: pinned first, then most recently updated. */
import {
  deleteNote,
  findNote,
  insertNote,
  listNotes,
  type NoteRow,
  updateNote,
} from "../../db/content/notes.ts";
import type { Queries } from "../../db/kernel/engine.ts";
import { memberIds } from "../../db/projects/projects.ts";
import { projectAccess, requireAuthor, requireWrite } from "../accounts/access.ts";
import type { Actor } from "../accounts/accounts.ts";
import { type DomainContext, emits, runAction } from "../projects/actions.ts";
import { DomainError, invalid } from "../kernel/errors.ts";
import { offsetOf, type Page, pageOf, type PageRequest } from "../kernel/paging.ts";
import type { TrashRef } from "../projects/trash.ts";

/** A note as the API shows it. */
export type Note = NoteRow;

function title(value: string): string {
  const trimmed = value.trim();
  if (!trimmed) throw invalid("title", "Cannot be blank");
  return trimmed;
}

/** Trims tags, drops blanks and duplicates, keeps the order. */
export function cleanTags(tags: string[]): string[] {
  return [...new Set(tags.map((t) => t.trim()).filter((t) => t.length > 0))];
}

/** The note operations. */
export function createNotes(ctx: DomainContext) {
  const { db } = ctx;
  const note = async (q: Queries, projectId: number, id: number): Promise<NoteRow> => {
    const row = await findNote(q, projectId, id);
    if (!row) throw new DomainError("not_found", "No such note");
    return row;
  };

  return {
    /** A page of notes, optionally with a tag. */
    async list(
      actor: Actor,
      projectId: number,
      options: { tag: string | null; page: PageRequest },
    ): Promise<Page<Note>> {
      await projectAccess(db, actor, projectId);
      const { items, total } = await listNotes(db, projectId, {
        tag: options.tag,
        limit: options.page.pageSize,
        offset: offsetOf(options.page),
      });
      return pageOf(items, total, options.page);
    },

    /** Creates a note (members); writes `note_created` and notifies nobody. */
    create(
      actor: Actor,
      projectId: number,
      input: {
        title: string;
        body: string;
        tags?: string[] | null | undefined;
        pinned?: boolean | undefined;
      },
    ): Promise<Note> {
      return runAction(ctx, emits("note.created"), async (tx, fx) => {
        requireWrite(await projectAccess(tx, actor, projectId));
        const id = await insertNote(tx, {
          projectId,
          authorId: actor.id,
          title: title(input.title),
          body: input.body,
          tags: cleanTags(input.tags ?? []),
          pinned: input.pinned ?? false,
          createdAt: fx.now,
        });
        fx.activity({
          projectId,
          kind: "note_created",
          actorId: actor.id,
          subjectType: "note",
          subjectId: id,
          summary: input.title.trim(),
        });
        const created = await note(tx, projectId, id);
        fx.event(projectId, "note.created", created);
        return created;
      });
    },

    /** One note. */
    async get(actor: Actor, projectId: number, noteId: number): Promise<Note> {
      await projectAccess(db, actor, projectId);
      return await note(db, projectId, noteId);
    },

    /** Edits a note (author, owner or admin); the other members are told. */
    update(
      actor: Actor,
      projectId: number,
      input: {
        noteId: number;
        title?: string | undefined;
        body?: string | undefined;
        tags?: string[] | null | undefined;
        pinned?: boolean | undefined;
      },
    ): Promise<Note> {
      return runAction(ctx, emits("note.updated"), async (tx, fx) => {
        const access = await projectAccess(tx, actor, projectId);
        const row = await note(tx, projectId, input.noteId);
        requireAuthor(access, row.authorId);
        await updateNote(tx, row.id, {
          title: input.title === undefined ? row.title : title(input.title),
          body: input.body ?? row.body,
          tags: input.tags === undefined ? row.tags : cleanTags(input.tags ?? []),
          pinned: input.pinned ?? row.pinned,
          updatedAt: fx.now,
        });
        const updated = await note(tx, projectId, row.id);
        fx.activity({
          projectId,
          kind: "note_updated",
          actorId: actor.id,
          subjectType: "note",
          subjectId: row.id,
          summary: updated.title,
        });
        fx.notify({
          kind: "note_updated",
          projectId,
          actorId: actor.id,
          subjectType: "note",
          subjectId: row.id,
          text: updated.title,
          recipients: await memberIds(tx, projectId),
        });
        fx.event(projectId, "note.updated", updated);
        return updated;
      });
    },

    /** Moves a note to the trash (author, owner or admin); returns the trash entry. */
    remove(actor: Actor, projectId: number, noteId: number): Promise<TrashRef> {
      return runAction(ctx, emits("note.deleted"), async (tx, fx) => {
        const access = await projectAccess(tx, actor, projectId);
        const row = await note(tx, projectId, noteId);
        requireAuthor(access, row.authorId);
        await deleteNote(tx, row.id, { at: fx.now, by: actor.id });
        fx.event(projectId, "note.deleted", { id: row.id, projectId });
        return { type: "note", id: row.id };
      });
    },
  };
}

/** The note operations' type. */
export type Notes = ReturnType<typeof createNotes>;
