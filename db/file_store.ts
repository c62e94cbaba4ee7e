/**
 * The bytes of uploaded files: `DATA_DIR/files/<projectId>/<uuid><ext>`. A file is written
 * to a temporary name, flushed to disk, then renamed into place; only then is its row
 * recorded, so a failed or cut-off upload leaves neither bytes nor a row.
 */
import { join } from "node:path";

/** A file written to its final place, not yet recorded. */
export interface StoredBytes {
  storedName: string;
  size: number;
  /** The first bytes, for checking the type. */
  head: Uint8Array;
}

/** Where uploaded files are stored under the data directory. */
export function filesRoot(dataDir: string): string {
  return join(dataDir, "files");
}

/**
 * Removes the temporary `.part` files that uploads cut short by a crash (kill -9, power loss)
 * left in `<root>/tmp`; called at start-up, before serving, when no upload is in flight.
 * Returns the names removed.
 */
export async function removeLeftoverParts(root: string): Promise<string[]> {
  const tmpDir = join(root, TMP_DIR);
  const removed: string[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(tmpDir));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return removed;
    throw error;
  }
  for (const entry of entries) {
    if (!entry.isFile || !entry.name.endsWith(".part")) continue;
    await Deno.remove(join(tmpDir, entry.name)).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
    removed.push(entry.name);
  }
  return removed;
}

/** Too many bytes for the configured limit. */
export class TooLargeError extends Error {
  override name = "TooLargeError";
}

const HEAD_BYTES = 8192;
/** The folder under the root where uploads are written before they are renamed into place. */
const TMP_DIR = "tmp";

/** Stores and removes file bytes under `root` (`DATA_DIR/files`). */
export class FileStore {
  readonly root: string;

  constructor(root: string) {
    this.root = root;
  }

  /** The absolute path of a stored file. */
  path(storedName: string): string {
    return join(this.root, storedName);
  }

  /**
   * Streams `body` to `<projectId>/<uuid><ext>` through a temporary file, enforcing
   * `maxBytes` while writing. On any failure nothing is left behind.
   */
  async write(
    projectId: number,
    ext: string,
    body: ReadableStream<Uint8Array>,
    maxBytes: number,
  ): Promise<StoredBytes> {
    const dir = join(this.root, String(projectId));
    const tmpDir = join(this.root, TMP_DIR);
    await Deno.mkdir(dir, { recursive: true });
    await Deno.mkdir(tmpDir, { recursive: true });
    const storedName = `${projectId}/${crypto.randomUUID()}${ext}`;
    const tmp = join(tmpDir, `${crypto.randomUUID()}.part`);
    const file = await Deno.open(tmp, { write: true, createNew: true, mode: 0o600 });
    let size = 0;
    const head = new Uint8Array(HEAD_BYTES);
    let headLength = 0;
    try {
      for await (const chunk of body) {
        size += chunk.byteLength;
        if (size > maxBytes) throw new TooLargeError(`The file is larger than ${maxBytes} bytes`);
        if (headLength < HEAD_BYTES) {
          const take = chunk.subarray(0, HEAD_BYTES - headLength);
          head.set(take, headLength);
          headLength += take.byteLength;
        }
        let written = 0;
        while (written < chunk.byteLength) written += await file.write(chunk.subarray(written));
      }
      await file.sync();
      file.close();
      await Deno.rename(tmp, join(this.root, storedName));
    } catch (error) {
      try {
        file.close();
      } catch {
        // already closed
      }
      await Deno.remove(tmp).catch(() => {});
      throw error;
    }
    return { storedName, size, head: head.slice(0, headLength) };
  }

  /** Removes stored bytes; a missing file is not an error. */
  async remove(storedName: string): Promise<void> {
    await Deno.remove(join(this.root, storedName)).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
  }

  /** Removes stored bytes at once (after a commit); a missing file is not an error. */
  removeSync(storedName: string): void {
    try {
      Deno.removeSync(join(this.root, storedName));
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }

  /** Opens stored bytes for reading, or null when they are gone. */
  async open(storedName: string): Promise<Deno.FsFile | null> {
    try {
      return await Deno.open(join(this.root, storedName), { read: true });
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return null;
      throw error;
    }
  }
}
