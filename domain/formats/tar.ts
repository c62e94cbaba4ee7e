/**
 * The tar format of backups, written and read as streams: POSIX ustar headers, with a pax
 * extended header in front of an entry whose name or size does not fit ustar's fields. Only
 * regular files are written; a reader refuses anything else (links, devices, directories),
 * so extracting an archive can never create a link that points outside its target.
 */

const BLOCK = 512;
/** The largest size ustar's 11 octal digits hold (8 GiB - 1). */
const MAX_OCTAL_SIZE = 0o77777777777;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** An archive that is not well-formed tar, or holds an entry a backup never has. */
export class TarError extends Error {
  override name = "TarError";
}

/** What a writer needs to know of an entry before its bytes. */
export interface TarEntryInfo {
  name: string;
  size: number;
  /** Modification time in whole seconds since the epoch. */
  mtime: number;
  /** Permission bits, e.g. 0o600. */
  mode: number;
}

/** One regular file of an archive being read; `body` must be read before the next entry. */
export interface TarEntry {
  name: string;
  size: number;
  body: AsyncIterable<Uint8Array>;
}

/** The header block(s) that introduce an entry: a pax header first when one is needed. */
export function entryHeader(entry: TarEntryInfo): Uint8Array {
  const nameBytes = encoder.encode(entry.name);
  const records: string[] = [];
  // Only plain ASCII names go in the name field: every tar reads them alike.
  const plainName = nameBytes.length <= 100 && /^[\x20-\x7e]+$/.test(entry.name);
  if (!plainName) records.push(paxRecord("path", entry.name));
  if (entry.size > MAX_OCTAL_SIZE) records.push(paxRecord("size", String(entry.size)));
  const main = ustarHeader({
    name: plainName ? entry.name : asciiStandIn(entry.name),
    size: entry.size > MAX_OCTAL_SIZE ? 0 : entry.size,
    mtime: entry.mtime,
    mode: entry.mode,
    type: "0",
  });
  if (records.length === 0) return main;
  const pax = encoder.encode(records.join(""));
  const paxHeader = ustarHeader({
    name: "PaxHeader",
    size: pax.length,
    mtime: entry.mtime,
    mode: 0o644,
    type: "x",
  });
  return concat([paxHeader, pax, padding(pax.length), main]);
}

/** The zero bytes that fill an entry of `size` bytes up to a whole block. */
export function padding(size: number): Uint8Array {
  return new Uint8Array((BLOCK - (size % BLOCK)) % BLOCK);
}

/** The two zero blocks that end an archive. */
export function endOfArchive(): Uint8Array {
  return new Uint8Array(2 * BLOCK);
}

/** A pax record: its own length in decimal, a space, `key=value` and a newline. */
function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  const bodyLength = encoder.encode(body).length;
  let length = bodyLength + 1;
  while (String(length).length + bodyLength !== length) length = String(length).length + bodyLength;
  return `${length}${body}`;
}

/** A short ASCII name for the ustar field when the real one is in the pax header. */
function asciiStandIn(name: string): string {
  return name.replace(/[^\x20-\x7e]/g, "_").slice(-100);
}

function ustarHeader(
  h: { name: string; size: number; mtime: number; mode: number; type: string },
): Uint8Array {
  const block = new Uint8Array(BLOCK);
  const put = (offset: number, length: number, text: string) => {
    block.set(encoder.encode(text).subarray(0, length), offset);
  };
  const octal = (offset: number, length: number, value: number) => {
    put(offset, length, value.toString(8).padStart(length - 1, "0") + "\0");
  };
  put(0, 100, h.name);
  octal(100, 8, h.mode);
  octal(108, 8, 0); // uid
  octal(116, 8, 0); // gid
  octal(124, 12, h.size);
  octal(136, 12, Math.max(0, Math.floor(h.mtime)));
  put(148, 8, "        "); // the checksum counts its own field as spaces
  put(156, 1, h.type);
  put(257, 6, "ustar\0");
  put(263, 2, "00");
  const sum = block.reduce((a, b) => a + b, 0);
  put(148, 8, sum.toString(8).padStart(6, "0") + "\0 ");
  return block;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Reads exact amounts from a stream of chunks of any size. */
class ChunkReader {
  #source: AsyncIterator<Uint8Array>;
  #buffer: Uint8Array = new Uint8Array(0);
  #done = false;

  constructor(source: AsyncIterable<Uint8Array>) {
    this.#source = source[Symbol.asyncIterator]();
  }

  /** Ensures `n` buffered bytes, or fewer only at the end of the stream. */
  async #fill(n: number): Promise<void> {
    while (this.#buffer.length < n && !this.#done) {
      const next = await this.#source.next();
      if (next.done) {
        this.#done = true;
        break;
      }
      this.#buffer = this.#buffer.length === 0 ? next.value : concat([this.#buffer, next.value]);
    }
  }

  /** Exactly `n` bytes; null at the very end of the stream; a TarError when cut short. */
  async exactly(n: number): Promise<Uint8Array | null> {
    await this.#fill(n);
    if (this.#buffer.length === 0) return null;
    if (this.#buffer.length < n) throw new TarError("the archive is cut short");
    const out = this.#buffer.slice(0, n);
    this.#buffer = this.#buffer.subarray(n);
    return out;
  }

  /** The next `n` bytes as they come, in pieces; a TarError when cut short. */
  async *take(n: number): AsyncGenerator<Uint8Array> {
    let left = n;
    while (left > 0) {
      await this.#fill(1);
      if (this.#buffer.length === 0) throw new TarError("the archive is cut short");
      const piece = this.#buffer.subarray(0, Math.min(left, this.#buffer.length));
      this.#buffer = this.#buffer.subarray(piece.length);
      left -= piece.length;
      yield piece;
    }
  }

  /** Reads to the end of the stream; false when anything but zero bytes remain. */
  async restIsZero(): Promise<boolean> {
    let zero = true;
    for (;;) {
      if (this.#buffer.some((b) => b !== 0)) zero = false;
      this.#buffer = new Uint8Array(0);
      if (this.#done) return zero;
      await this.#fill(1);
    }
  }
}

/** Reads a NUL-terminated field as text. */
function field(block: Uint8Array, offset: number, length: number): string {
  const bytes = block.subarray(offset, offset + length);
  const end = bytes.indexOf(0);
  try {
    return decoder.decode(end < 0 ? bytes : bytes.subarray(0, end));
  } catch {
    throw new TarError("an entry name is not UTF-8");
  }
}

function octalField(block: Uint8Array, offset: number, length: number, what: string): number {
  const text = field(block, offset, length).trim();
  if (!/^[0-7]*$/.test(text)) throw new TarError(`an entry's ${what} is not a number`);
  return text === "" ? 0 : parseInt(text, 8);
}

function checksumMatches(block: Uint8Array): boolean {
  const recorded = octalField(block, 148, 8, "checksum");
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : block[i]!;
  return sum === recorded;
}

/** Parses pax records into key/value pairs. */
function parsePax(bytes: Uint8Array): Record<string, string> {
  const out: Record<string, string> = {};
  let offset = 0;
  while (offset < bytes.length) {
    const space = bytes.indexOf(0x20, offset);
    const length = space < 0
      ? NaN
      : Number(new TextDecoder().decode(bytes.subarray(offset, space)));
    if (!Number.isSafeInteger(length) || length <= 0 || offset + length > bytes.length) {
      throw new TarError("a pax header is malformed");
    }
    let record: string;
    try {
      record = decoder.decode(bytes.subarray(space + 1, offset + length - 1));
    } catch {
      throw new TarError("a pax header is not UTF-8");
    }
    const eq = record.indexOf("=");
    if (eq <= 0) throw new TarError("a pax header is malformed");
    out[record.slice(0, eq)] = record.slice(eq + 1);
    offset += length;
  }
  return out;
}

const ENTRY_TYPES: Record<string, string> = {
  "1": "a hard link",
  "2": "a symbolic link",
  "3": "a character device",
  "4": "a block device",
  "5": "a directory",
  "6": "a FIFO",
};

/**
 * The regular files of a tar stream, in order. Each entry's `body` must be read to its end
 * (or not at all) before asking for the next. The stream is read to its very end, so that a
 * compressed archive's own check (gzip's CRC) runs. Anything not a regular file, a header
 * whose checksum does not match, or a stream cut short is a TarError.
 */
export async function* readTar(source: AsyncIterable<Uint8Array>): AsyncGenerator<TarEntry> {
  const reader = new ChunkReader(source);
  let pax: Record<string, string> = {};
  for (;;) {
    const block = await reader.exactly(BLOCK);
    if (block === null) throw new TarError("the archive is cut short (no end marker)");
    if (block.every((b) => b === 0)) {
      if (!(await reader.restIsZero())) throw new TarError("data follows the end of the archive");
      return;
    }
    if (!checksumMatches(block)) throw new TarError("an entry header is damaged (checksum)");
    // POSIX writes "ustar\0", GNU tar "ustar " (its header is otherwise the same here).
    if (!field(block, 257, 6).startsWith("ustar")) {
      throw new TarError("an entry header is not ustar");
    }
    const type = String.fromCharCode(block[156]!);
    const prefix = field(block, 345, 155);
    const shortName = field(block, 0, 100);
    const name = pax.path ?? (prefix ? `${prefix}/${shortName}` : shortName);
    let size = octalField(block, 124, 12, "size");
    if (pax.size !== undefined) {
      if (!/^\d+$/.test(pax.size)) throw new TarError("a pax size is not a number");
      size = Number(pax.size);
    }
    if (!Number.isSafeInteger(size)) throw new TarError("an entry's size is too large");
    pax = {};
    if (type === "x") {
      if (size > 1024 * 1024) throw new TarError("a pax header is too large");
      const bytes = (await reader.exactly(size)) ?? new Uint8Array(0);
      if (bytes.length < size) throw new TarError("the archive is cut short");
      await reader.exactly(padding(size).length);
      pax = parsePax(bytes);
      continue;
    }
    if (type !== "0" && type !== "\0") {
      throw new TarError(`${name} is ${ENTRY_TYPES[type] ?? "not a regular file"}`);
    }
    let left = size;
    const body = {
      async *[Symbol.asyncIterator]() {
        for await (const piece of reader.take(left)) {
          left -= piece.length;
          yield piece;
        }
      },
    };
    yield { name, size, body };
    // Whatever the caller left unread is skipped.
    for await (const piece of reader.take(left)) left -= piece.length;
    if (padding(size).length > 0) await reader.exactly(padding(size).length);
  }
}
