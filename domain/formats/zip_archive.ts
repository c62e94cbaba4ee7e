/**
 * Zip archives: written as a stream (entries one after another, backpressure from the reader,
 * Zip64 whenever a size, offset or count needs it), and read from a file by its central
 * directory (parsed by zip.js), with every entry name checked before anything is inflated and
 * the inflated bytes checked (CRC-32, size) and counted against a budget as they come.
 */
import { configure, type Entry, Reader, ZipReader } from "@zip.js/zip.js";
import { crc32 } from "node:zlib";

/** Chunks of this size move through zip.js: each stage holds about one per entry. */
const CHUNK_BYTES = 64 * 1024;

/** zip.js settings: no web workers (a server has no use for them), small chunks. */
function zipDefaults(): void {
  configure({ useWebWorkers: false, chunkSize: CHUNK_BYTES });
}

// ---------------------------------------------------------------------------------------
// Writing. Our own few lines rather than zip.js: its writer cost about a millisecond per entry
// and streamed stored bytes at half the speed the HTTP response allows (bench/README.md).

/** Where entries are added, one at a time. */
export interface ZipSink {
  /** Adds an entry from a stream; `store` keeps the bytes as they are (no deflate). */
  add(
    name: string,
    data: ReadableStream<Uint8Array>,
    options: { store: boolean; modified: Date },
  ): Promise<void>;
  /** Adds a small entry held in memory (stored as it is). */
  addText(name: string, text: string, modified: Date): Promise<void>;
}

const U32 = 0xffffffff;
/** Pieces under this size are gathered into runs of `RUN_BYTES` before they are handed on. */
const SMALL_BYTES = 8 * 1024;
const RUN_BYTES = 64 * 1024;
const U16 = 0xffff;
/** Made by Unix (3), spec version 4.5 (Zip64). */
const MADE_BY = (3 << 8) | 45;
/** A regular file, rw-r--r--, in the upper half of the external attributes. */
const FILE_ATTRIBUTES = (0o100644 << 16) >>> 0;
/** Sizes in a data descriptor after the bytes (bit 3); UTF-8 names (bit 11). */
const FLAGS = 0x0808;

/** MS-DOS time and date of `at` (UTC), as zip headers hold them. */
function dosTime(at: Date): { time: number; date: number } {
  const year = Math.min(Math.max(at.getUTCFullYear(), 1980), 2107);
  return {
    time: (at.getUTCHours() << 11) | (at.getUTCMinutes() << 5) | (at.getUTCSeconds() >> 1),
    date: ((year - 1980) << 9) | ((at.getUTCMonth() + 1) << 5) | at.getUTCDate(),
  };
}

/** A little-endian record builder. */
class Record {
  readonly bytes: Uint8Array;
  readonly #view: DataView;
  #at = 0;

  constructor(size: number) {
    this.bytes = new Uint8Array(size);
    this.#view = new DataView(this.bytes.buffer);
  }

  u16(v: number): this {
    this.#view.setUint16(this.#at, v, true);
    this.#at += 2;
    return this;
  }

  u32(v: number): this {
    this.#view.setUint32(this.#at, v >>> 0, true);
    this.#at += 4;
    return this;
  }

  u64(v: number): this {
    this.#view.setBigUint64(this.#at, BigInt(v), true);
    this.#at += 8;
    return this;
  }

  raw(b: Uint8Array): this {
    this.bytes.set(b, this.#at);
    this.#at += b.byteLength;
    return this;
  }
}

/** Where an entry began, for its central directory record. */
interface Start {
  nameBytes: Uint8Array;
  method: number;
  time: number;
  date: number;
  offset: number;
}

/**
 * A streaming zip writer: each entry is a local header, its bytes (stored or deflated, the
 * CRC-32 and sizes counted on the way) and a data descriptor; the central directory follows the
 * last one. An entry whose size is unknown up front, or large, is written in Zip64 form, and so
 * are offsets, counts and directory sizes past the classic limits.
 */
class ZipOut implements ZipSink {
  readonly #out: WritableStreamDefaultWriter<Uint8Array>;
  readonly #encoder = new TextEncoder();
  readonly #central: Uint8Array[] = [];
  #offset = 0;

  constructor(out: WritableStreamDefaultWriter<Uint8Array>) {
    this.#out = out;
  }

  /**
   * Small pieces (headers, descriptors, Markdown) are gathered into runs of up to `RUN_BYTES`:
   * handing each on alone cost a round trip with the reader per piece.
   */
  readonly #run = new Uint8Array(RUN_BYTES);
  #runLength = 0;

  async #write(bytes: Uint8Array): Promise<void> {
    this.#offset += bytes.byteLength;
    if (bytes.byteLength < SMALL_BYTES) {
      if (this.#runLength + bytes.byteLength > RUN_BYTES) await this.#flush();
      this.#run.set(bytes, this.#runLength);
      this.#runLength += bytes.byteLength;
      return;
    }
    await this.#flush();
    await this.#send(bytes);
  }

  async #flush(): Promise<void> {
    if (this.#runLength === 0) return;
    const run = this.#run.slice(0, this.#runLength);
    this.#runLength = 0;
    await this.#send(run);
  }

  async #send(bytes: Uint8Array): Promise<void> {
    await this.#out.ready;
    this.#out.write(bytes).catch(() => {}); // failures surface through `ready`
  }

  async add(
    name: string,
    data: ReadableStream<Uint8Array>,
    options: { store: boolean; modified: Date },
  ): Promise<void> {
    const start = await this.#begin(name, options.store ? 0 : 8, options.modified, true);
    let crc = 0;
    let size = 0;
    let written = 0;
    if (options.store) {
      for await (const chunk of data) {
        crc = crc32(chunk, crc);
        size += chunk.byteLength;
        await this.#write(chunk);
      }
      written = size;
    } else {
      const deflate = new CompressionStream("deflate-raw");
      const input = deflate.writable.getWriter();
      const pump = (async () => {
        for await (const chunk of deflate.readable) {
          written += chunk.byteLength;
          await this.#write(chunk);
        }
      })();
      pump.catch((error) => input.abort(error).catch(() => {}));
      for await (const chunk of data) {
        crc = crc32(chunk, crc);
        size += chunk.byteLength;
        await input.ready;
        await input.write(chunk as Uint8Array<ArrayBuffer>);
      }
      await input.close();
      await pump;
    }
    await this.#end(start, { crc, size, written, zip64: true });
  }

  async addText(name: string, text: string, modified: Date): Promise<void> {
    // Stored: the Markdown copies are small beside the files, and storing them spares a
    // deflate stream per entry.
    const bytes = this.#encoder.encode(text);
    const start = await this.#begin(name, 0, modified, false);
    await this.#write(bytes);
    await this.#end(start, {
      crc: crc32(bytes),
      size: bytes.byteLength,
      written: bytes.byteLength,
      zip64: false,
    });
  }

  async #begin(name: string, method: number, modified: Date, zip64: boolean): Promise<Start> {
    const nameBytes = this.#encoder.encode(name);
    const { time, date } = dosTime(modified);
    const offset = this.#offset;
    const local = new Record(30 + nameBytes.byteLength + (zip64 ? 20 : 0))
      .u32(0x04034b50).u16(zip64 ? 45 : 20).u16(FLAGS).u16(method).u16(time).u16(date)
      .u32(0).u32(zip64 ? U32 : 0).u32(zip64 ? U32 : 0)
      .u16(nameBytes.byteLength).u16(zip64 ? 20 : 0).raw(nameBytes);
    // The Zip64 extra field of the local header: sizes to be found in the data descriptor.
    if (zip64) local.u16(0x0001).u16(16).u64(0).u64(0);
    await this.#write(local.bytes);
    return { nameBytes, method, time, date, offset };
  }

  async #end(
    start: Start,
    sums: { crc: number; size: number; written: number; zip64: boolean },
  ): Promise<void> {
    const { crc, size, written, zip64 } = sums;
    const descriptor = zip64
      ? new Record(24).u32(0x08074b50).u32(crc).u64(written).u64(size)
      : new Record(16).u32(0x08074b50).u32(crc).u32(written).u32(size);
    await this.#write(descriptor.bytes);
    const big = [size >= U32, written >= U32, start.offset >= U32];
    const extra = big.filter(Boolean).length * 8;
    const central = new Record(46 + start.nameBytes.byteLength + (extra ? 4 + extra : 0))
      .u32(0x02014b50).u16(MADE_BY).u16(extra || zip64 ? 45 : 20).u16(FLAGS).u16(start.method)
      .u16(start.time).u16(start.date).u32(crc)
      .u32(big[1] ? U32 : written).u32(big[0] ? U32 : size)
      .u16(start.nameBytes.byteLength).u16(extra ? 4 + extra : 0).u16(0).u16(0).u16(0)
      .u32(FILE_ATTRIBUTES).u32(big[2] ? U32 : start.offset).raw(start.nameBytes);
    if (extra) {
      central.u16(0x0001).u16(extra);
      if (big[0]) central.u64(size);
      if (big[1]) central.u64(written);
      if (big[2]) central.u64(start.offset);
    }
    this.#central.push(central.bytes);
  }

  /** Writes the central directory and its end records. */
  async finish(): Promise<void> {
    const directoryOffset = this.#offset;
    let directorySize = 0;
    for (const record of this.#central) {
      await this.#write(record);
      directorySize += record.byteLength;
    }
    const count = this.#central.length;
    if (count >= U16 || directoryOffset >= U32 || directorySize >= U32) {
      const end64 = this.#offset;
      await this.#write(
        new Record(56).u32(0x06064b50).u64(44).u16(MADE_BY).u16(45).u32(0).u32(0)
          .u64(count).u64(count).u64(directorySize).u64(directoryOffset).bytes,
      );
      await this.#write(new Record(20).u32(0x07064b50).u32(0).u64(end64).u32(1).bytes);
    }
    await this.#write(
      new Record(22).u32(0x06054b50).u16(0).u16(0)
        .u16(Math.min(count, U16)).u16(Math.min(count, U16))
        .u32(Math.min(directorySize, U32)).u32(Math.min(directoryOffset, U32)).u16(0).bytes,
    );
    await this.#flush();
  }
}

/**
 * A zip archive as a byte stream, produced by `produce` while the stream is read (nothing is
 * produced ahead of the reader). A failure of `produce` (or of the reader) errors the stream,
 * so a client never mistakes a cut-off archive for a whole one; `done` runs in every case, once.
 */
export function zipStream(
  produce: (sink: ZipSink) => Promise<void>,
  done: (error: unknown) => void,
): ReadableStream<Uint8Array> {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>(
    undefined,
    { highWaterMark: 1 },
    { highWaterMark: 0 },
  );
  const writer = writable.getWriter();
  const zip = new ZipOut(writer);
  (async () => {
    try {
      await produce(zip);
      await zip.finish();
      await writer.close();
    } catch (error) {
      await writer.abort(error).catch(() => {});
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
  /** Inflates a file entry into the new file `out`, counting against `budget`. */
  inflate(entry: ArchiveEntry, out: string, budget: InflateBudget): Promise<number>;
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
    const size = (await file.stat()).size;
    let queue: Promise<unknown> = Promise.resolve();
    return {
      entries,
      // One at a time: the entries share the file's position.
      inflate: (entry, out, budget) => {
        const run = queue.then(() => inflateEntry(file, size, entry, out, budget));
        queue = run.catch(() => {});
        return run;
      },
      close,
    };
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

/** Reads exactly `length` bytes at `position` (fewer only at the end of the file). */
async function readAt(file: Deno.FsFile, position: number, length: number): Promise<Uint8Array> {
  await file.seek(position, Deno.SeekMode.Start);
  const data = new Uint8Array(length);
  let read = 0;
  while (read < length) {
    const n = await file.read(data.subarray(read));
    if (n === null) break;
    read += n;
  }
  return data.subarray(0, read);
}

/** Compressed bytes are read in pieces of this size. */
const READ_BYTES = 256 * 1024;

/**
 * Inflates a file entry of `file` into `out` (a new file): its local header must agree with
 * the central directory, its bytes must be within the file, inflate cleanly, match the CRC-32
 * and the declared size; they are counted against `budget` as they come, so a zip bomb stops
 * at the budget. zip.js parsed the directory; the bytes are read here, since its streams
 * moved them several times slower than the disk does.
 */
async function inflateEntry(
  file: Deno.FsFile,
  fileSize: number,
  entry: ArchiveEntry,
  out: string,
  budget: InflateBudget,
): Promise<number> {
  const e = entry.entry;
  const quoted = JSON.stringify(entry.name);
  const damaged = (why: string) => new ArchiveError("damaged", `the entry ${quoted} ${why}`);
  if (entry.directory) throw new Error("Cannot inflate a directory entry");
  const head = await readAt(file, e.offset, 30);
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  if (head.byteLength < 30 || view.getUint32(0, true) !== 0x04034b50) {
    throw damaged("has no local header where the directory says");
  }
  const nameLength = view.getUint16(26, true);
  const extraLength = view.getUint16(28, true);
  const localName = await readAt(file, e.offset + 30, nameLength);
  if (
    view.getUint16(8, true) !== e.compressionMethod ||
    localName.byteLength !== e.rawFilename.byteLength ||
    localName.some((b, i) => b !== e.rawFilename[i])
  ) {
    throw damaged("has a local header that disagrees with the directory");
  }
  let position = e.offset + 30 + nameLength + extraLength;
  if (position + e.compressedSize > fileSize) throw damaged("runs past the end of the archive");
  await file.seek(position, Deno.SeekMode.Start);

  const output = await Deno.open(out, { write: true, createNew: true, mode: 0o600 });
  let crc = 0;
  let written = 0;
  const take = async (chunk: Uint8Array) => {
    written += chunk.byteLength;
    budget.remaining -= chunk.byteLength;
    if (budget.remaining < 0) {
      throw new ArchiveError("too_large", `its entries inflate to more than ${budget.total} bytes`);
    }
    if (written > entry.size) {
      throw damaged(`inflates to more than the ${entry.size} bytes declared`);
    }
    crc = crc32(chunk, crc);
    let at = 0;
    while (at < chunk.byteLength) at += await output.write(chunk.subarray(at));
  };
  /** The next piece of the compressed bytes, or null at their end. */
  const next = async (buffer: Uint8Array): Promise<Uint8Array | null> => {
    const left = e.compressedSize - (position - (e.offset + 30 + nameLength + extraLength));
    if (left <= 0) return null;
    const n = await file.read(buffer.subarray(0, Math.min(buffer.byteLength, left)));
    if (n === null) throw damaged("runs past the end of the archive");
    position += n;
    return buffer.subarray(0, n);
  };
  try {
    if (e.compressionMethod === 0) {
      const buffer = new Uint8Array(READ_BYTES);
      for (let piece; (piece = await next(buffer)) !== null;) await take(piece);
    } else {
      const inflater = new DecompressionStream("deflate-raw");
      const input = inflater.writable.getWriter();
      let failure: unknown = null;
      const pump = (async () => {
        for await (const chunk of inflater.readable) await take(chunk);
      })().catch((error) => {
        failure = error;
        input.abort(error).catch(() => {});
      });
      try {
        for (let piece; (piece = await next(new Uint8Array(READ_BYTES))) !== null;) {
          await input.ready;
          await input.write(piece as Uint8Array<ArrayBuffer>);
        }
        await input.close();
      } catch (error) {
        failure ??= error;
      }
      await pump;
      if (failure !== null) {
        if (failure instanceof ArchiveError) throw failure;
        throw damaged(`cannot be inflated (${why(failure)})`);
      }
    }
  } finally {
    output.close();
  }
  if (written !== entry.size) {
    throw damaged(`inflates to ${written} bytes, not the ${entry.size} its header declares`);
  }
  if (crc !== e.crc32) {
    throw damaged("cannot be inflated: its CRC-32 does not match");
  }
  return written;
}

function why(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
