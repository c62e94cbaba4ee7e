/**
 * The bytes of uploaded files: `DATA_DIR/files/<projectId>/<uuid><ext>`. An upload is written
 * to a temporary file in `tmp/` as it arrives (never held whole in memory), flushed to disk,
 * then renamed into place; only then is its row recorded, so a failed or cut-off upload
 * leaves neither bytes nor a row.
 */
import { dirname, join } from "node:path";

/** Bytes written to a temporary file as they arrived, not yet in their place. */
export interface SpooledBytes {
  /** The temporary file. */
  path: string;
  size: number;
  /** The first bytes, for checking the type. */
  head: Uint8Array;
}

/** A file written to its final place, not yet recorded. */
export interface StoredBytes {
  storedName: string;
  size: number;
  /** The first bytes, for checking the type. */
  head: Uint8Array;
}

const HEAD_BYTES = 8192;
/** The folder under the root where uploads are written before they are renamed into place. */
const TMP_DIR = "tmp";
/** Work folders (of imports) under `TMP_DIR` end with this. */
const WORK_SUFFIX = ".import";

/** Where uploaded files are stored under the data directory. */
export function filesRoot(dataDir: string): string {
  return join(dataDir, "files");
}

/**
 * Removes the temporary `.part` files that uploads cut short by a crash (kill -9, power loss)
 * left in `<root>/tmp`, and the `.import` work folders of imports it cut short; called at
 * start-up, before serving, when no upload is in flight. Returns the names removed.
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
    const part = entry.isFile && entry.name.endsWith(".part");
    const work = entry.isDirectory && entry.name.endsWith(WORK_SUFFIX);
    if (!part && !work) continue;
    await Deno.remove(join(tmpDir, entry.name), { recursive: work }).catch((error) => {
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

/** Stores and removes file bytes under `root` (`DATA_DIR/files`). */
export class FileStore {
  readonly root: string;
  /** Whether a write met a full disk since the last one that succeeded (see `noteFull`). */
  #full = false;

  constructor(root: string) {
    this.root = root;
  }

  /** The absolute path of a stored file. */
  path(storedName: string): string {
    return join(this.root, storedName);
  }

  /**
   * Writes `chunks` to a new temporary file as they come, enforcing `maxBytes` while writing,
   * and flushes it to disk. On any failure (too large, the body cut off) nothing is left.
   */
  async spool(chunks: AsyncIterable<Uint8Array>, maxBytes: number): Promise<SpooledBytes> {
    const tmpDir = join(this.root, TMP_DIR);
    await Deno.mkdir(tmpDir, { recursive: true });
    const path = join(tmpDir, `${crypto.randomUUID()}.part`);
    const file = await Deno.open(path, { write: true, createNew: true, mode: 0o600 });
    let size = 0;
    const head = new Uint8Array(HEAD_BYTES);
    let headLength = 0;
    try {
      for await (const chunk of chunks) {
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
    } catch (error) {
      try {
        file.close();
      } catch {
        // already closed
      }
      await Deno.remove(path).catch(() => {});
      throw error;
    }
    this.#full = false;
    return { path, size, head: head.slice(0, headLength) };
  }

  /**
   * Notes that a write met a full disk; true the first time since bytes were last written, so
   * that a shortage is reported once when writes start failing, not once per failed write.
   */
  noteFull(): boolean {
    const first = !this.#full;
    this.#full = true;
    return first;
  }

  /** Moves spooled bytes to their place, `<projectId>/<uuid><ext>`; not yet recorded. */
  async place(spooled: SpooledBytes, projectId: number, ext: string): Promise<StoredBytes> {
    await Deno.mkdir(join(this.root, String(projectId)), { recursive: true });
    const storedName = `${projectId}/${crypto.randomUUID()}${ext}`;
    await Deno.rename(spooled.path, join(this.root, storedName));
    return { storedName, size: spooled.size, head: spooled.head };
  }

  /** Removes spooled bytes that were not placed; already placed or gone is not an error. */
  async discard(spooled: SpooledBytes): Promise<void> {
    await Deno.remove(spooled.path).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
  }

  /**
   * Creates a private work folder under `tmp/` (on the same file system as the stored files,
   * so its files can be renamed into place); `removeWork` removes it with its contents.
   */
  async makeWork(): Promise<string> {
    const path = join(this.root, TMP_DIR, `${crypto.randomUUID()}${WORK_SUFFIX}`);
    await Deno.mkdir(path, { recursive: true, mode: 0o700 });
    return path;
  }

  /** Removes a work folder and everything in it; already gone is not an error. */
  async removeWork(path: string): Promise<void> {
    await Deno.remove(path, { recursive: true }).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
  }

  /** A new stored name for a file of `projectId`: `<projectId>/<uuid><ext>`. */
  newStoredName(projectId: number, ext: string): string {
    return `${projectId}/${crypto.randomUUID()}${ext}`;
  }

  /**
   * Moves a file written elsewhere under the root (a work folder) to `storedName`, at once
   * (inside a transaction that records it).
   */
  moveIntoPlaceSync(path: string, storedName: string): void {
    const target = join(this.root, storedName);
    Deno.mkdirSync(dirname(target), { recursive: true });
    Deno.renameSync(path, target);
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

  /** Removes a project's folder of stored bytes (a purged project's); missing is not an error. */
  async removeProject(projectId: number): Promise<void> {
    await Deno.remove(join(this.root, String(projectId)), { recursive: true }).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
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
