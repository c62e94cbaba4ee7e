/**
 * Attachments: files linked to threads, comments, chat messages and to-do items, given as
 * `fileIds` of the same project or uploaded with source `attachment`. Each attachable
 * resource registers how to find a subject and who may change it.
 */
import {
  attachmentsOf,
  claimUploads,
  findProjectFiles,
  insertAttachments,
  trashUploads,
} from "../db/files.ts";
import type { AttachableType } from "../db/files.ts";
import type { Deletion } from "../db/subjects.ts";
import { projectAccess, requireAuthor, requireWrite } from "./access.ts";
import type { Actor } from "./accounts.ts";
import { type DomainContext, type Effects, runAction } from "./actions.ts";
import { DomainError, invalid } from "./errors.ts";
import { type FileInfo, fileInfo, type Files, type Upload } from "./files.ts";

export type { AttachableType };

/** A subject that can carry attachments: authored (edited by its author) or shared work. */
export interface AttachableSubject {
  /** The author, or null for shared work any member may change. */
  authorId: number | null;
}

/** Finds a live subject of a project. */
export type SubjectFinder = (projectId: number, id: number) => AttachableSubject | null;

/** Announces, inside the action, that a subject's attachments changed (stream events). */
export type AttachmentsChanged = (fx: Effects, subject: { projectId: number; id: number }) => void;

/** How attachments are given to `add`: ids of the project's files, an upload, or both. */
export type AttachInput = { fileIds: number[] } | { upload: Upload; fileIds?: number[] };

/** The attachment operations. */
export function createAttachments(ctx: DomainContext, files: Files) {
  const finders = new Map<AttachableType, SubjectFinder>();
  const listeners = new Map<AttachableType, AttachmentsChanged>();

  function findSubject(type: AttachableType, projectId: number, id: number): AttachableSubject {
    const subject = finders.get(type)?.(projectId, id);
    if (!subject) throw new DomainError("not_found", `No such ${type}`);
    return subject;
  }

  /** The live attachments of each subject. */
  function of(type: AttachableType, ids: number[]): Map<number, FileInfo[]> {
    const map = attachmentsOf(ctx.db, type, ids);
    return new Map([...map].map(([id, rows]) => [id, rows.map(fileInfo)]));
  }

  /**
   * Links `fileIds` (live files of the same project) inside an action; 400 otherwise.
   * Linking never makes a file the subject's: only `uploadedBy` (the actor) may say that
   * attachment uploads it stored just before the subject existed were uploaded to it.
   */
  function link(
    fx: Effects,
    target: {
      projectId: number;
      type: AttachableType;
      id: number;
      fileIds: number[];
      uploads?: { uploaderId: number; fileIds: number[] };
    },
  ): void {
    const ids = [...new Set(target.fileIds)];
    if (ids.length === 0) return;
    const found = findProjectFiles(ctx.db, target.projectId, ids);
    if (found.length !== ids.length) {
      throw invalid("fileIds", "Every file must be a file of this project");
    }
    insertAttachments(ctx.db, {
      projectId: target.projectId,
      subjectType: target.type,
      subjectId: target.id,
      fileIds: ids,
      at: fx.now,
    });
    const uploads = target.uploads;
    if (uploads) {
      const claimed = claimUploads(ctx.db, {
        uploaderId: uploads.uploaderId,
        subjectType: target.type,
        subjectId: target.id,
        fileIds: uploads.fileIds.filter((id) => ids.includes(id)),
      });
      if (claimed !== new Set(uploads.fileIds).size) {
        throw invalid("fileIds", "Every upload must be a new attachment upload of yours");
      }
    }
  }

  return {
    /** Registers how subjects of `type` are found, and who hears of new attachments. */
    register(type: AttachableType, finder: SubjectFinder, changed?: AttachmentsChanged): void {
      finders.set(type, finder);
      if (changed) listeners.set(type, changed);
    },

    of,
    link,

    /**
     * Inside an action that has just moved `subjects` to the trash: the files uploaded to them
     * go to the trash with them unless another live subject still links them. Their links and
     * stored bytes stay until the sweep purges them, so a restore brings them back.
     */
    trashWith(d: Deletion, subjects: Array<{ type: AttachableType; id: number }>): void {
      trashUploads(ctx.db, subjects, d);
    },

    /**
     * Creates a subject with `upload` attached, as one post: the upload is stored first (an
     * attachment upload of the actor's) so the subject is created, and announced, with it;
     * `create` gets its id to link and claim. When `create` refuses, the stored file is removed
     * again and nothing of the post is left. Without an upload, this is `create([])`.
     */
    async createWith<T>(
      actor: Actor,
      projectId: number,
      upload: Upload | null,
      create: (fileIds: number[]) => T,
    ): Promise<T> {
      if (!upload) return create([]);
      const access = projectAccess(ctx.db, actor, projectId);
      requireWrite(access);
      const fileId = await files.store(access, upload, (_fx, file) => file.id, "attachment");
      try {
        return create([fileId]);
      } catch (error) {
        files.remove(actor, projectId, fileId);
        throw error;
      }
    },

    /**
     * Attaches files to a subject and returns all of its attachments; an upload and `fileIds`
     * given together are linked in one transaction (a refused id leaves the upload unstored).
     */
    async add(
      actor: Actor,
      target: { projectId: number; type: AttachableType; id: number },
      input: AttachInput,
    ): Promise<FileInfo[]> {
      const access = projectAccess(ctx.db, actor, target.projectId);
      const check = () => {
        const subject = findSubject(target.type, target.projectId, target.id);
        if (subject.authorId === null) requireWrite(access);
        else requireAuthor(access, subject.authorId);
      };
      check();
      const attach = (fx: Effects, fileIds: number[]) => {
        check();
        link(fx, { ...target, fileIds });
        listeners.get(target.type)?.(fx, { projectId: target.projectId, id: target.id });
        return of(target.type, [target.id]).get(target.id) ?? [];
      };
      if ("upload" in input) {
        return await files.store(
          access,
          input.upload,
          (fx, file) => attach(fx, [file.id, ...(input.fileIds ?? [])]),
          "attachment",
          { type: target.type, id: target.id },
        );
      }
      return runAction(ctx, (fx) => attach(fx, input.fileIds));
    },
  };
}

/** The attachment operations' type. */
export type Attachments = ReturnType<typeof createAttachments>;
