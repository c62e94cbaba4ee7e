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
} from "../../db/content/files.ts";
import type { AttachableType } from "../../db/content/files.ts";
import type { Queries } from "../../db/kernel/engine.ts";
import type { Deletion } from "../../db/kernel/subjects.ts";
import { projectAccess, requireAuthor, requireWrite } from "../accounts/access.ts";
import type { Actor } from "../accounts/accounts.ts";
import { type DomainContext, type Effects, emits, runAction } from "../projects/actions.ts";
import { DomainError, invalid } from "../kernel/errors.ts";
import { ATTACHED_EVENTS, type FileInfo, fileInfo, type Files, type Upload } from "./files.ts";

export type { AttachableType };

/** A subject that can carry attachments: authored (edited by its author) or shared work. */
export interface AttachableSubject {
  /** The author, or null for shared work any member may change. */
  authorId: number | null;
}

/** Finds a live subject of a project (with `q`: the transaction's queries inside one). */
export type SubjectFinder = (
  q: Queries,
  projectId: number,
  id: number,
) => Promise<AttachableSubject | null>;

/** Announces, inside the action (`tx`), that a subject's attachments changed (stream events). */
export type AttachmentsChanged = (
  tx: Queries,
  fx: Effects,
  subject: { projectId: number; id: number },
) => Promise<void>;

/** How attachments are given to `add`: ids of the project's files, an upload, or both. */
export type AttachInput = { fileIds: number[] } | { upload: Upload; fileIds?: number[] };

/** The attachment operations. */
export function createAttachments(ctx: DomainContext, files: Files) {
  const finders = new Map<AttachableType, SubjectFinder>();
  const listeners = new Map<AttachableType, AttachmentsChanged>();

  async function findSubject(
    q: Queries,
    type: AttachableType,
    projectId: number,
    id: number,
  ): Promise<AttachableSubject> {
    const subject = await finders.get(type)?.(q, projectId, id);
    if (!subject) throw new DomainError("not_found", `No such ${type}`);
    return subject;
  }

  /** The live attachments of each subject. */
  async function of(
    q: Queries,
    type: AttachableType,
    ids: number[],
  ): Promise<Map<number, FileInfo[]>> {
    const map = await attachmentsOf(q, type, ids);
    return new Map([...map].map(([id, rows]) => [id, rows.map(fileInfo)]));
  }

  /**
   * Links `fileIds` (live files of the same project) inside an action (`tx`); 400 otherwise.
   * Linking never makes a file the subject's: only `uploadedBy` (the actor) may say that
   * attachment uploads it stored just before the subject existed were uploaded to it.
   */
  async function link(
    tx: Queries,
    fx: Effects,
    target: {
      projectId: number;
      type: AttachableType;
      id: number;
      fileIds: number[];
      uploads?: { uploaderId: number; fileIds: number[] };
    },
  ): Promise<void> {
    const ids = [...new Set(target.fileIds)];
    if (ids.length === 0) return;
    const found = await findProjectFiles(tx, target.projectId, ids);
    if (found.length !== ids.length) {
      throw invalid("fileIds", "Every file must be a file of this project");
    }
    await insertAttachments(tx, {
      projectId: target.projectId,
      subjectType: target.type,
      subjectId: target.id,
      fileIds: ids,
      at: fx.now,
    });
    const uploads = target.uploads;
    if (uploads) {
      const claimed = await claimUploads(tx, {
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
     * Inside an action (`tx`) that has just moved `subjects` to the trash: the files uploaded to them
     * go to the trash with them unless another live subject still links them. Their links and
     * stored bytes stay until the sweep purges them, so a restore brings them back.
     */
    async trashWith(
      tx: Queries,
      d: Deletion,
      subjects: Array<{ type: AttachableType; id: number }>,
    ): Promise<void> {
      await trashUploads(tx, subjects, d);
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
      create: (fileIds: number[]) => Promise<T>,
    ): Promise<T> {
      if (!upload) return await create([]);
      const access = await projectAccess(ctx.db, actor, projectId);
      requireWrite(access);
      const fileId = await files.store(
        access,
        upload,
        (_tx, _fx, file) => Promise.resolve(file.id),
        "attachment",
      );
      try {
        return await create([fileId]);
      } catch (error) {
        await files.remove(actor, projectId, fileId);
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
      const access = await projectAccess(ctx.db, actor, target.projectId);
      const check = async (q: Queries) => {
        const subject = await findSubject(q, target.type, target.projectId, target.id);
        if (subject.authorId === null) requireWrite(access);
        else requireAuthor(access, subject.authorId);
      };
      await check(ctx.db);
      const attach = async (tx: Queries, fx: Effects, fileIds: number[]) => {
        await check(tx);
        await link(tx, fx, { ...target, fileIds });
        await listeners.get(target.type)?.(tx, fx, {
          projectId: target.projectId,
          id: target.id,
        });
        return (await of(tx, target.type, [target.id])).get(target.id) ?? [];
      };
      if ("upload" in input) {
        return await files.store(
          access,
          input.upload,
          (tx, fx, file) => attach(tx, fx, [file.id, ...(input.fileIds ?? [])]),
          "attachment",
          { type: target.type, id: target.id },
        );
      }
      return await runAction(
        ctx,
        emits(...ATTACHED_EVENTS),
        (tx, fx) => attach(tx, fx, input.fileIds),
      );
    },
  };
}

/** The attachment operations' type. */
export type Attachments = ReturnType<typeof createAttachments>;
