/**
 * File previews: a project file's bytes together with the image type its stored bytes really
 * begin with, so a page shows PNG, JPEG, GIF and WebP inline and serves everything else as a
 * download. The type is sniffed from the stored bytes on every request, never taken from the
 * name or the type recorded at upload.
 */
import { type FileRow, findFile } from "../../db/content/files.ts";
import { projectAccess } from "../accounts/access.ts";
import type { Actor } from "../accounts/accounts.ts";
import type { DomainContext } from "../projects/actions.ts";
import { DomainError } from "../kernel/errors.ts";
import { IMAGE_HEAD_BYTES, sniffImage } from "../formats/file_types.ts";

/** A file opened for a preview. */
export interface Preview {
  file: FileRow;
  /** The sniffed image type (shown inline), or null (served as a download). */
  imageType: string | null;
  /** The stored bytes' length as they are now. */
  size: number;
  bytes: ReadableStream<Uint8Array>;
}

/** Reads up to `length` first bytes of `file` (fewer when it is shorter). */
async function readHead(file: Deno.FsFile, length: number): Promise<Uint8Array> {
  const head = new Uint8Array(length);
  let filled = 0;
  while (filled < length) {
    const read = await file.read(head.subarray(filled));
    if (read === null) break;
    filled += read;
  }
  return head.subarray(0, filled);
}

/** The preview operations. */
export function createFilePreviews(ctx: DomainContext) {
  return {
    /**
     * Opens a file of `projectId` for readers of the project: `not_found` for a file of another
     * project, a trashed one, or one whose bytes are gone.
     */
    async open(actor: Actor, projectId: number, fileId: number): Promise<Preview> {
      await projectAccess(ctx.db, actor, projectId);
      const file = await findFile(ctx.db, fileId);
      if (!file || file.projectId !== projectId) {
        throw new DomainError("not_found", "No such file");
      }
      const handle = await ctx.files.open(file.storedName);
      if (!handle) throw new DomainError("not_found", "The file's bytes are gone");
      try {
        const head = await readHead(handle, IMAGE_HEAD_BYTES);
        await handle.seek(0, Deno.SeekMode.Start);
        const { size } = await handle.stat();
        return { file, imageType: sniffImage(head), size, bytes: handle.readable };
      } catch (error) {
        handle.close();
        throw error;
      }
    },
  };
}

/** The preview operations' type. */
export type FilePreviews = ReturnType<typeof createFilePreviews>;
