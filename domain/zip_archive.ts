/**
 * Zip archives through zip.js: written as a stream (entries one after another, backpressure
 * from the reader, Zip64 whenever an entry's size or offset needs it), and read from a file
 * by its central directory, with every entry name checked before anything is inflated and
 * the inflated bytes counted against a budget while they are produced.
 */
import {
  configure,
  type Entry,
  type FileEntry,
  Reader,
  ZipReader,
  ZipWriter,
} from "@zip.js/zip.js";

/** Chunks of this size move through zip.js: each stage holds about one per entry. */
const CHUNK_BYTES = 64 * 1024;

/** zip.js settings: no web workers (a server has no use for them), small chunks. */
function zipDefaults(): void {
  configure({ useWebWorkers: false, chunkSize: CHUNK_BYTES });
}

// ---------------------------------------------------------------------------------------
// Writing.

/** Where entries are added, one at a time. */
export interface ZipSink {
  /** Adds an entry from a stream; `store` keeps the bytes as they are (no deflate). */
  add(
    name: string,
    data: ReadableStream<Uint8Array>,
    options: { store: boolean; modified: Date },
  ): Promise<void>;
}

/**
 * A zip archive as a byte stream, produced by `produce` while the stream is read. A failure
 * of `produce` (or of the reader) errors the stream, so a client never mistakes a cut-off
 * archive for a whole one; `done` runs in every case, once.
 */
export function zipStream(
  produce: (sink: ZipSink) => Promise<void>,
  done: (error: unknown) => void,
): ReadableStream<Uint8Array> {
  zipDefaults();
  // No queue of its own: zip.js writes a chunk only when the reader asked for one.
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>(
    undefined,
    { highWaterMark: 1 },
    { highWaterMark: 0 },
  );
  const writer = new ZipWriter(writable, {
    useWebWorkers: false,
    bufferedWrite: false,
    keepOrder: true,
  });
  const sink: ZipSink = {
    async add(name, data, options) {
      await writer.add(name, data, {
        level: options.store ? 0 : 6,
        lastModDate: options.modified,
        useWebWorkers: false,
      });
    },
  };
  (async () => {
    try {
      await produce(sink);
      await writer.close();
    } catch (error) {
      await writable.abort(error).catch(() => {});
      done(error);
      return;
    }
    done(null);
  })();
  return readable;
}

// ---------------------------------------------------------------------------------------
// Reading.

/** Why an archive cannot be read; `problem` is a code, `message` a sentence for the caller. */
export class ArchiveError extends Error {
  override name = "ArchiveError";
  readonly problem: "damaged" | "unsafe_name" | "too_large";

  constructor(problem: ArchiveError["problem"], message: string) {
    super(message);
    this.problem = problem;
  }
}

/** Reads a `Deno.FsFile` at any offset (zip.js may ask for several ranges at once). */
class FileReader extends Reader<Deno.FsFile> {
  readonly #file: Deno.FsFile;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(file: Deno.FsFile) {
    super(file);
    this.#file = file;
  }

  override async init(): Promise<void> {
    this.size = (await this.#file.stat()).size;
  }

  override readUint8Array(offset: number, length: number): Promise<Uint8Array> {
    const result = this.#queue.then(async () => {
      await this.#file.seek(offset, Deno.SeekMode.Start);
      const data = new Uint8Array(length);
      let read = 0;
      while (read < length) {
        const n = await this.#file.read(data.subarray(read));
        if (n === null) return data.subarray(0, read);
        read += n;
      }
      return data;
    });
    this.#queue = result.catch(() => undefined);
    return result;
  }
}

/** What is wrong with an entry name, or null when it is a plain relative path. */
export function entryNameProblem(name: string): string | null {
  if (name === "") return "an empty name";
  if (name.includes("\\")) return "a backslash";
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return "a control character";
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name)) return "an absolute path";
  const path = name.endsWith("/") ? name.slice(0, -1) : name;
  for (const segment of path.split("/")) {
    if (segment === "..") return "a parent directory (..)";
    if (segment === "" || segment === ".") return "an empty or '.' path segment";
  }
  return null;
}

/** Unix file types in the upper half of the external attributes (made by Unix). */
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

/** An entry of an archive whose name and kind passed the checks. */
export interface ArchiveEntry {
  name: string;
  directory: boolean;
  /** The size the central directory declares for the inflated bytes. */
  size: number;
  /** The zip.js entry, for `inflate`. */
  entry: Entry;
}

/** An archive opened from a file; `close` releases it. */
export interface OpenedArchive {
  entries: Map<string, ArchiveEntry>;
  close(): Promise<void>;
}

/**
 * Opens the zip archive in `path` and checks every entry of its central directory: a plain
 * relative name (no `..`, no absolute path, no backslash, no control character), no
 * duplicate, no symbolic link, no encryption, stored or deflated only, and a declared total
 * within `maxInflatedBytes`. Throws `ArchiveError` naming the first problem.
 */
export async function openArchive(
  path: string,
  maxInflatedBytes: number,
): Promise<OpenedArchive> {
  zipDefaults();
  const file = await Deno.open(path, { read: true });
  const reader = new ZipReader(new FileReader(file), {
    useWebWorkers: false,
    // Names are checked below, with our own messages; the structure strictly.
    filenameValidation: "tolerant",
    strictness: "balanced",
  });
  const close = async () => {
    await reader.close().catch(() => {});
    try {
      file.close();
    } catch {
      // already closed
    }
  };
  try {
    let listed: Entry[];
    try {
      listed = await reader.getEntries();
    } catch (error) {
      throw new ArchiveError("damaged", `the file is not a readable zip archive (${why(error)})`);
    }
    const entries = new Map<string, ArchiveEntry>();
    let declared = 0;
    for (const entry of listed) {
      const name = entry.filename;
      const problem = entryNameProblem(name);
      if (problem) {
        throw new ArchiveError("unsafe_name", `the entry ${JSON.stringify(name)} has ${problem}`);
      }
      const unixMode = (entry.versionMadeBy >> 8) === 3
        ? (entry.externalFileAttributes >>> 16) & S_IFMT
        : 0;
      if (entry.symlink || unixMode === S_IFLNK) {
        throw new ArchiveError(
          "unsafe_name",
          `the entry ${JSON.stringify(name)} is a symbolic link`,
        );
      }
      if (entries.has(name)) {
        throw new ArchiveError("unsafe_name", `the entry ${JSON.stringify(name)} appears twice`);
      }
      if (entry.encrypted) {
        throw new ArchiveError("damaged", `the entry ${JSON.stringify(name)} is encrypted`);
      }
      if (!entry.directory && entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
        throw new ArchiveError(
          "damaged",
          `the entry ${JSON.stringify(name)} uses compression method ` +
            `${entry.compressionMethod} (only stored and deflated entries are read)`,
        );
      }
      declared += entry.uncompressedSize;
      if (declared > maxInflatedBytes) {
        throw new ArchiveError(
          "too_large",
          `its entries would inflate to more than ${maxInflatedBytes} bytes`,
        );
      }
      entries.set(name, {
        name,
        directory: entry.directory,
        size: entry.uncompressedSize,
        entry,
      });
    }
    return { entries, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Inflated bytes still allowed across the entries of one archive. */
export interface InflateBudget {
  remaining: number;
  /** The whole budget, for messages. */
  readonly total: number;
}

/**
 * Inflates a file entry into `out` (a new file), checking its CRC-32 and declared size and
 * counting the bytes against `budget` as they come: a zip bomb stops at the budget.
 */
export async function inflate(
  entry: ArchiveEntry,
  out: string,
  budget: InflateBudget,
): Promise<number> {
  if (entry.directory) throw new Error("Cannot inflate a directory entry");
  const file = await Deno.open(out, { write: true, createNew: true, mode: 0o600 });
  let written = 0;
  let overBudget = false;
  const sink = new WritableStream<Uint8Array>({
    async write(chunk) {
      written += chunk.byteLength;
      budget.remaining -= chunk.byteLength;
      if (budget.remaining < 0 || written > entry.size) {
        overBudget = budget.remaining < 0;
        throw new Error("over the limit");
      }
      let at = 0;
      while (at < chunk.byteLength) at += await file.write(chunk.subarray(at));
    },
  });
  try {
    await (entry.entry as FileEntry).getData(sink, {
      useWebWorkers: false,
      checkSignature: true,
      checkOverlappingEntry: true,
    });
  } catch (error) {
    if (overBudget) {
      throw new ArchiveError(
        "too_large",
        `its entries inflate to more than ${budget.total} bytes`,
      );
    }
    throw new ArchiveError(
      "damaged",
      `the entry ${JSON.stringify(entry.name)} cannot be inflated (${why(error)})`,
    );
  } finally {
    try {
      file.close();
    } catch {
      // closed by the stream
    }
  }
  if (written !== entry.size) {
    throw new ArchiveError(
      "damaged",
      `the entry ${JSON.stringify(entry.name)} inflates to ${written} bytes, ` +
        `not the ${entry.size} its header declares`,
    );
  }
  return written;
}

function why(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
