/** Files: upload (type-checked, size-limited, atomic), list, download and delete. */
import { type SpooledBytes, TooLargeError } from "../../db/kernel/file_store.ts";
import {
  type AttachableType,
  deleteFile,
  type FileRow,
  findFile,
  insertFile,
  listFiles,
} from "../../db/content/files.ts";
import type { Queries } from "../../db/kernel/engine.ts";
import { memberIds } from "../../db/projects/projects.ts";
import {
  type ProjectAccess,
  projectAccess,
  requireAuthor,
  requireWrite,
} from "../accounts/access.ts";
import type { Actor } from "../accounts/accounts.ts";
import {
  type DomainContext,
  type Effects,
  emits,
  type EventName,
  runAction,
} from "../projects/actions.ts";
import { DomainError, invalid } from "../kernel/errors.ts";
import { allowedType, headMatches } from "../formats/file_types.ts";
import { offsetOf, type Page, pageOf, type PageRequest } from "../kernel/paging.ts";
import type { TrashRef } from "../projects/trash.ts";

/** A file as the API shows it. */
export interface FileInfo {
  id: number;
  projectId: number;
  name: string;
  contentType: string;
  size: number;
  source: "upload" | "attachment";
  uploaderId: number;
  createdAt: string;
  downloadUrl: string;
}

/** Shapes a stored file for the API. */
export function fileInfo(f: FileRow): FileInfo {
  return {
    id: f.id,
    projectId: f.projectId,
    name: f.name,
    contentType: f.contentType,
    size: f.size,
    source: f.source,
    uploaderId: f.uploaderId,
    createdAt: f.createdAt,
    downloadUrl: `/api/files/${f.id}/download`,
  };
}

/** An upload's bytes as received: written to a temporary file, not yet stored. */
export type UploadBytes = SpooledBytes;

/** An upload as received: the original name and its bytes, spooled to a temporary file. */
export interface Upload {
  name: string;
  bytes: UploadBytes;
}

/** Where a request's uploads wait while it is read, until they are stored or discarded. */
export interface UploadSpool {
  /** Writes `chunks` to a temporary file as they come; throws past `maxBytes` (`isOverLimit`). */
  spool(chunks: AsyncIterable<Uint8Array>, maxBytes: number): Promise<UploadBytes>;
  /** Removes bytes that were not stored; already stored or gone is not an error. */
  discard(bytes: UploadBytes): Promise<void>;
}

/** Whether `error`, thrown by `UploadSpool.spool`, means the bytes went past the limit. */
export function isOverLimit(error: unknown): boolean {
  return error instanceof TooLargeError;
}

const MIB = 1024 * 1024;

/** What an attachment upload records besides `file.uploaded`: its subject's update. */
export const ATTACHED_EVENTS = [
  "chat.message.updated",
  "board.thread.updated",
  "board.comment.updated",
  "todo.updated",
] as const satisfies readonly EventName[];

/** The refusal of an upload over the limit; `MAX_UPLOAD_MB` counts mebibytes (MiB). */
export function tooLarge(maxUploadBytes: number): DomainError {
  return new DomainError("too_large", `Files may be at most ${maxUploadBytes / MIB} MiB`);
}

/** The longest stored file name, in characters (code points). */
export const MAX_NAME = 255;
/** The longest tail after the last dot that is kept as the extension when a name is cut. */
const MAX_EXT = 16;

const graphemes = new Intl.Segmenter("en", { granularity: "grapheme" });

/**
 * A name at most `max` characters long. A longer one keeps its extension and loses the end of
 * its base name, cut between user-perceived characters: never inside a surrogate pair, nor
 * between a letter and its combining marks or the parts of an emoji.
 */
export function shortenName(name: string, max = MAX_NAME): string {
  const length = (text: string) => [...text].length;
  if (length(name) <= max) return name;
  const dot = name.lastIndexOf(".");
  const ext = dot > 0 && length(name.slice(dot)) <= MAX_EXT + 1 ? name.slice(dot) : "";
  const room = max - length(ext);
  let base = "";
  let used = 0;
  for (const { segment } of graphemes.segment(name.slice(0, name.length - ext.length))) {
    const size = length(segment);
    if (used + size > room) break;
    base += segment;
    used += size;
  }
  return base + ext;
}

/** The file operations. */
export function createFiles(ctx: DomainContext) {
  const { db } = ctx;

  /**
   * Moves an upload's spooled bytes into place and records its row in a transaction, where
   * `record` (given that transaction's queries) runs too. On any failure the placed bytes are removed (a refused upload's spooled bytes are
   * the caller's to discard), so nothing is left behind. An attachment upload names the subject it
   * is uploaded to (null when that subject is created just after, see `claimUploads`).
   */
  async function store<T>(
    access: ProjectAccess,
    upload: Upload,
    record: (tx: Queries, fx: Effects, file: FileRow) => Promise<T>,
    source: "upload" | "attachment",
    uploadedTo: { type: AttachableType; id: number } | null = null,
  ): Promise<T> {
    // Control characters and path separators never reach a stored name or a header.
    // deno-lint-ignore no-control-regex
    const name = shortenName(upload.name.replace(/[\u0000-\u001f\u007f/\\]/g, "_").trim());
    if (!name) throw invalid("file", "The file needs a name");
    const type = allowedType(name);
    if (!type) throw new DomainError("unsupported_media_type", "This file type is not allowed");
    if (upload.bytes.size > ctx.maxUploadBytes) throw tooLarge(ctx.maxUploadBytes);
    if (!headMatches(type.ext, upload.bytes.head)) {
      throw new DomainError("unsupported_media_type", "The file's content does not match its type");
    }
    const bytes = await ctx.files.place(upload.bytes, access.project.id, `.${type.ext}`);
    try {
      // Awaited here, so that a refusal removes the placed bytes below.
      // An attachment upload also updates what it is attached to (`record`).
      const spec = emits("file.uploaded", ...ATTACHED_EVENTS);
      return await runAction(ctx, spec, async (tx, fx) => {
        // Re-check inside the transaction: the project may have changed meanwhile.
        requireWrite(await projectAccess(tx, access.actor, access.project.id));
        const file = await insertFile(tx, {
          projectId: access.project.id,
          uploaderId: access.actor.id,
          name,
          storedName: bytes.storedName,
          contentType: type.contentType,
          size: bytes.size,
          source,
          uploadedTo: source === "attachment" ? uploadedTo : null,
          createdAt: fx.now,
        });
        fx.activity({
          projectId: file.projectId,
          kind: "file_uploaded",
          actorId: access.actor.id,
          subjectType: "file",
          subjectId: file.id,
          summary: file.name,
        });
        if (source === "upload") {
          fx.notify({
            kind: "file_shared",
            projectId: file.projectId,
            actorId: access.actor.id,
            subjectType: "file",
            subjectId: file.id,
            text: file.name,
            recipients: await memberIds(tx, file.projectId),
          });
        }
        fx.event(file.projectId, "file.uploaded", fileInfo(file));
        return await record(tx, fx, file);
      });
    } catch (error) {
      ctx.files.removeSync(bytes.storedName);
      throw error;
    }
  }

  return {
    store,

    /** Uploads a file to the project's files (source `upload`). */
    async upload(actor: Actor, projectId: number, upload: Upload): Promise<FileInfo> {
      const access = await projectAccess(db, actor, projectId);
      requireWrite(access);
      return await store(
        access,
        upload,
        (_tx, _fx, file) => Promise.resolve(fileInfo(file)),
        "upload",
      );
    },

    /** A page of the project's files, newest first, optionally of one source. */
    async list(
      actor: Actor,
      projectId: number,
      options: { source: string | null; page: PageRequest },
    ): Promise<Page<FileInfo>> {
      await projectAccess(db, actor, projectId);
      if (
        options.source !== null && options.source !== "upload" && options.source !== "attachment"
      ) {
        throw invalid("source", "Use upload or attachment");
      }
      const { items, total } = await listFiles(db, projectId, {
        source: options.source,
        limit: options.page.pageSize,
        offset: offsetOf(options.page),
      });
      return pageOf(items.map(fileInfo), total, options.page);
    },

    /**
     * Moves a file to the trash (uploader, owner or admin); its attachment links are hidden
     * and its bytes kept until it is purged. Returns the trash entry.
     */
    remove(actor: Actor, projectId: number, fileId: number): Promise<TrashRef> {
      return runAction(ctx, emits("file.deleted"), async (tx, fx) => {
        const access = await projectAccess(tx, actor, projectId);
        const file = await findFile(tx, fileId);
        if (!file || file.projectId !== projectId) {
          throw new DomainError("not_found", "No such file");
        }
        requireAuthor(access, file.uploaderId);
        await deleteFile(tx, file.id, { at: fx.now, by: actor.id });
        fx.event(projectId, "file.deleted", { id: file.id, projectId });
        return { type: "file", id: file.id };
      });
    },

    /** A file and its bytes, for members of its project; `not_found` when either is gone. */
    async download(
      actor: Actor,
      fileId: number,
    ): Promise<{ file: FileRow; bytes: ReadableStream<Uint8Array> }> {
      const file = await findFile(db, fileId);
      if (!file) throw new DomainError("not_found", "No such file");
      await projectAccess(db, actor, file.projectId);
      const handle = await ctx.files.open(file.storedName);
      if (!handle) throw new DomainError("not_found", "The file's bytes are gone");
      return { file, bytes: handle.readable };
    },
  };
}

/** The file operations' type. */
export type Files = ReturnType<typeof createFiles>;
