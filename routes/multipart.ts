/**
 * Multipart form bodies read as they arrive, never held whole in memory: each file part is
 * written to a temporary file (`UploadSpool.spool`) while it is received, text parts are
 * collected (at most `MAX_TEXT_BYTES` in all) and decoded as strict UTF-8. The size limits
 * hold while reading, chunked bodies included. Parsing is `@fastify/busboy`'s.
 *
 * Routes that read multipart bodies run inside `multipartScope`, which says where and how
 * large files may be, and removes the request's spooled files after the handler unless the
 * handler placed them in storage.
 */
import { Busboy, type BusboyFileStream, type BusboyInstance } from "@fastify/busboy";
import type { Context, MiddlewareHandler } from "hono";
import { isOverLimit, type UploadBytes, type UploadSpool } from "../domain/content/files.ts";
import { isClientGone } from "../soap/http_body.ts";

/** Text fields of a form may hold this many bytes in all (as any other page form). */
export const MAX_TEXT_BYTES = 1024 * 1024;
/** Room for the multipart framing (boundaries, part headers) on top of files and text. */
const FRAMING_BYTES = 64 * 1024;
/** Parts beyond this many (fields and files) make a body too large. */
const MAX_PARTS = 256;
/** File parts beyond this many make a body too large. */
const MAX_FILES = 8;

/** A file part, spooled to a temporary file. */
export interface SpooledFile {
  /** The form field's name. */
  field: string;
  /** The file name the client gave. */
  name: string;
  bytes: UploadBytes;
}

/** A multipart body read to its end. */
export interface MultipartBody {
  /** Text fields, in the order sent. */
  fields: Array<[string, string]>;
  /** File parts with a name, in the order sent (empty file inputs are left out). */
  files: SpooledFile[];
}

/** Why a multipart body was refused. */
export type MultipartProblem =
  /** Not multipart, no boundary, cut off, or otherwise unreadable. */
  | "malformed"
  /** The body, a file or the text fields are over their limit. */
  | "too_large"
  /** A text field is not UTF-8. */
  | "not_utf8"
  /** A text field holds U+0000 (refused when `refuseNul` is set). */
  | "nul";

/** A multipart body that cannot be accepted; `field` names the text field at fault. */
export class MultipartError extends Error {
  override name = "MultipartError";
  readonly problem: MultipartProblem;
  readonly field: string | undefined;

  constructor(problem: MultipartProblem, field?: string) {
    super(`Cannot read the multipart body: ${problem}${field ? ` (field ${field})` : ""}`);
    this.problem = problem;
    this.field = field;
  }
}

/** How a body is read. */
export interface MultipartOptions {
  store: UploadSpool;
  /**
   * The largest file. The whole body may hold that, `MAX_TEXT_BYTES` of text fields and the
   * framing.
   */
  maxFileBytes: number;
  /** Refuse text fields holding U+0000. */
  refuseNul?: boolean;
}

/** Each request's reading options and the files spooled for it so far. */
const scopes = new WeakMap<Context, { options: MultipartOptions; spooled: SpooledFile[] }>();

/** Whether a request says its body is multipart/form-data. */
export function isMultipart(c: Context): boolean {
  return /^multipart\/form-data\b/i.test(c.req.header("content-type") ?? "");
}

/**
 * Middleware: lets the handler read multipart bodies with `options`, and afterwards removes
 * the temporary files of the request's uploads that were not placed in storage (refused, or
 * never used).
 */
export function multipartScope(options: MultipartOptions): MiddlewareHandler {
  return async (c, next) => {
    const scope = { options, spooled: [] as SpooledFile[] };
    scopes.set(c, scope);
    try {
      await next();
    } finally {
      scopes.delete(c);
      for (const file of scope.spooled) await options.store.discard(file.bytes);
    }
  };
}

/**
 * Reads the multipart body of `c`'s request (inside `multipartScope`). Throws
 * `MultipartError` when it cannot be accepted; nothing is kept then.
 */
export async function readMultipart(c: Context): Promise<MultipartBody> {
  const scope = scopes.get(c);
  if (!scope) throw new Error("readMultipart needs multipartScope around the route");
  const files: SpooledFile[] = [];
  try {
    const body = await parse(c.req.raw, scope.options, files);
    scope.spooled.push(...files);
    return body;
  } catch (error) {
    for (const file of files) await scope.options.store.discard(file.bytes);
    throw error;
  }
}

/** A promise that can be settled from outside. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** The body is read into one reused buffer of this size (a fresh one per read is garbage). */
const READ_BYTES = 64 * 1024;
/** A part's bytes are handed on (written to disk) in runs of at least this many. */
const FLUSH_BYTES = 256 * 1024;

/**
 * One part's bytes as the parser delivers them. Each slice is copied out at once into a
 * buffer of the sink's own (the slices are views of the reused body buffer); when that buffer
 * is full, the part is paused until `runs` has handed it on.
 */
class PartSink {
  readonly stream: BusboyFileStream;
  #buffer = new Uint8Array(FLUSH_BYTES + READ_BYTES);
  #length = 0;
  #ended = false;
  #failed = false;
  #wake: (() => void) | null = null;
  readonly #progress: () => void;

  constructor(stream: BusboyFileStream, progress: () => void) {
    this.stream = stream;
    this.#progress = progress;
    stream.on("data", (slice: Uint8Array) => this.#take(slice));
    stream.on("end", () => {
      this.#ended = true;
      this.#notify();
    });
    // A part that ends early (the body was cut off) reports it here.
    stream.on("error", () => {
      this.#failed = true;
      this.#notify();
    });
  }

  /** Whether bytes of the body buffer still wait in this part's stream. */
  get holdsBody(): boolean {
    return !this.#ended && !this.#failed && !this.stream.destroyed &&
      this.stream.readableLength > 0;
  }

  #take(slice: Uint8Array): void {
    if (this.#length + slice.byteLength > this.#buffer.byteLength) {
      const larger = new Uint8Array((this.#length + slice.byteLength) * 2);
      larger.set(this.#buffer.subarray(0, this.#length));
      this.#buffer = larger;
    }
    this.#buffer.set(slice, this.#length);
    this.#length += slice.byteLength;
    if (this.#length >= FLUSH_BYTES) this.stream.pause();
    this.#notify();
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
    this.#progress();
  }

  /**
   * The part's bytes in runs (each valid until the next is asked for); throws
   * `MultipartError` when the part ends early.
   */
  async *runs(): AsyncGenerator<Uint8Array> {
    for (;;) {
      if (this.#failed) throw new MultipartError("malformed");
      if (this.#length >= FLUSH_BYTES || (this.#ended && this.#length > 0)) {
        yield this.#buffer.subarray(0, this.#length);
        this.#length = 0;
        if (!this.#ended) this.stream.resume();
        continue;
      }
      if (this.#ended) return;
      await new Promise<void>((resolve) => this.#wake = resolve);
    }
  }
}

async function parse(
  request: Request,
  options: MultipartOptions,
  files: SpooledFile[],
): Promise<MultipartBody> {
  const type = request.headers.get("content-type") ?? "";
  const maxBodyBytes = options.maxFileBytes + MAX_TEXT_BYTES + FRAMING_BYTES;
  const declared = Number(request.headers.get("content-length") ?? NaN);
  if (declared > maxBodyBytes) throw new MultipartError("too_large");
  if (!request.body) throw new MultipartError("malformed");
  let busboy: BusboyInstance;
  try {
    busboy = new Busboy({
      headers: { "content-type": type },
      // Every part comes as a stream: text is decoded here (strictly), files are spooled.
      isPartAFile: () => true,
      preservePath: true,
      limits: { parts: MAX_PARTS, headerPairs: 32 },
    });
  } catch {
    throw new MultipartError("malformed");
  }

  const fields: Array<[string, string]> = [];
  const parts: Promise<void>[] = [];
  const streams: BusboyFileStream[] = [];
  const sinks: PartSink[] = [];
  // The first problem met; it ends the reading, interrupting the wait in progress. (Racing
  // every wait against one long-lived promise instead would keep every chunk alive.)
  let problem: unknown = null;
  let interrupt: ((error: unknown) => void) | null = null;
  const fail = (error: unknown) => {
    if (problem !== null) return;
    problem = error;
    interrupt?.(error);
  };
  const until = <T>(promise: Promise<T>): Promise<T> => {
    if (problem !== null) return Promise.reject(problem);
    const wait = deferred<T>();
    interrupt = wait.reject;
    promise.then(wait.resolve, wait.reject);
    return wait.promise.finally(() => interrupt = null);
  };
  // Wakes the reading loop when a part took bytes, ended or failed.
  let wakeReader: (() => void) | null = null;
  const progress = () => {
    const wake = wakeReader;
    wakeReader = null;
    wake?.();
  };
  let textBytes = 0;
  let fileParts = 0;

  const readText = async (field: string, sink: PartSink) => {
    const runs: Uint8Array[] = [];
    for await (const run of sink.runs()) {
      textBytes += run.byteLength;
      if (textBytes > MAX_TEXT_BYTES) throw new MultipartError("too_large");
      runs.push(run.slice());
    }
    let text: string;
    try {
      text = strictUtf8.decode(concat(runs));
    } catch {
      throw new MultipartError("not_utf8", field);
    }
    if (options.refuseNul && text.includes("\u0000")) throw new MultipartError("nul", field);
    fields.push([field, text]);
  };

  const spool = async (field: string, name: string, sink: PartSink) => {
    if (++fileParts > MAX_FILES) throw new MultipartError("too_large");
    try {
      const bytes = await options.store.spool(sink.runs(), options.maxFileBytes);
      files.push({ field, name, bytes });
    } catch (error) {
      throw isOverLimit(error) ? new MultipartError("too_large") : error;
    }
  };

  busboy.on("file", (field, stream, filename) => {
    streams.push(stream);
    if (field === undefined || filename === "") {
      // No field name, or an empty file input: nothing to keep.
      stream.on("error", () => {});
      stream.resume();
      return;
    }
    const sink = new PartSink(stream, progress);
    sinks.push(sink);
    const job = filename === undefined ? readText(field, sink) : spool(field, filename, sink);
    parts.push(job.catch((error) => {
      stream.resume();
      fail(error);
    }));
  });
  busboy.on("partsLimit", () => fail(new MultipartError("too_large")));
  const finished = new Promise<void>((resolve) => busboy.on("finish", resolve));
  busboy.on("error", () => fail(new MultipartError("malformed")));

  /**
   * Waits until every byte of the body buffer the parser was given has been copied out, so
   * the buffer can take the next read.
   */
  const delivered = async () => {
    // Parts' streams hand slices on in scheduled ticks: let those run first.
    await until(new Promise((resolve) => setTimeout(resolve, 0)));
    while (sinks.some((sink) => sink.holdsBody)) {
      await until(new Promise<void>((resolve) => wakeReader = resolve));
    }
  };

  // A network body is a byte stream, read into one reused buffer; a body built in process
  // (tests, a body already read by a limit) may not be, and is read as it comes.
  const byob = request.body.locked ? null : byobReader(request.body);
  const plain = byob ? null : request.body.getReader();
  const reader: { cancel(): Promise<void> } = byob ?? plain!;
  let buffer = new ArrayBuffer(READ_BYTES);
  let size = 0;
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await until(byob ? byob.read(new Uint8Array(buffer)) : plain!.read());
      } catch (error) {
        // The first problem; a client that went away (counted, not an error); else the body
        // is unreadable.
        if (problem === null && isClientGone(error)) throw error;
        throw problem ?? new MultipartError("malformed");
      }
      if (chunk.done) break;
      const bytes = chunk.value;
      size += bytes.byteLength;
      if (size > maxBodyBytes) throw new MultipartError("too_large");
      const written = new Promise<void>((resolve, reject) =>
        busboy.write(bytes, (error) => error ? reject(error) : resolve())
      );
      await until(written).catch((error) => {
        throw problem ??
          (error instanceof MultipartError ? error : new MultipartError("malformed"));
      });
      if (byob) {
        await delivered();
        buffer = bytes.buffer as ArrayBuffer;
      }
    }
    busboy.end();
    await until(finished);
    await Promise.all(parts);
    if (problem !== null) throw problem;
  } catch (error) {
    await reader.cancel().catch(() => {});
    busboy.destroy();
    // Parts still being read will get no more bytes: end them so their readers stop.
    for (const stream of streams) stream.destroy(new MultipartError("malformed"));
    // Let the parts still running stop (and remove their temporary files) first.
    await Promise.allSettled(parts);
    throw error;
  }
  return { fields, files };
}

/** A reader into buffers of our own, when the stream is a byte stream; else null. */
function byobReader(body: ReadableStream<Uint8Array>): ReadableStreamBYOBReader | null {
  try {
    return body.getReader({ mode: "byob" });
  } catch {
    return null;
  }
}

function concat(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}
