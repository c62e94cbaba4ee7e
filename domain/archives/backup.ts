/**
 * Backups of the whole server, made while it runs: a gzip-compressed tar holding a snapshot of
 * the database, every stored file the snapshot refers to, the session secret and, last,
 * `manifest.json` (format, version, creation time, migrations, and the size and SHA-256 of
 * every other entry). Restoring checks every entry against the manifest before anything
 * reaches the data directory.
 */
import { createHash } from "node:crypto";
import { closeSync, fsyncSync, openSync } from "node:fs";
import { basename, dirname, extname, join, resolve } from "node:path";
import { filesRoot } from "../../db/kernel/file_store.ts";
import { MIGRATIONS_DIR, readMigrations } from "../../db/sqlite/migrate.ts";
import {
  readSnapshot,
  type RecordedMigration,
  type SnapshotContents,
  snapshotDatabase,
} from "../../db/sqlite/snapshot.ts";
import type { Actor } from "../accounts/accounts.ts";
import { audit, type RequestMeta } from "../accounts/audit.ts";
import type { Engine } from "../../db/kernel/engine.ts";
import type { Clock } from "../kernel/clock.ts";
import { DomainError } from "../kernel/errors.ts";
import { GzipWriter } from "../formats/gzip.ts";
import { endOfArchive, entryHeader, padding, readTar, TarError } from "../formats/tar.ts";

/** The `format` of every manifest. */
export const BACKUP_FORMAT = "collab-backup";
/** The manifest layout this server writes and reads. */
export const BACKUP_VERSION = 1;
const DATABASE = "collab.db";
const SECRET = "session_secret";
const MANIFEST = "manifest.json";
/** Work folders of backups the server streams live in the data directory under this prefix. */
const WORK_PREFIX = ".backup-";
const CHUNK_BYTES = 256 * 1024;
/** How much of a file of unknown type is deflated to see whether deflating pays. */
const TRIAL_BYTES = 16 * 1024;
const MAX_MANIFEST_BYTES = 256 * 1024 * 1024;

/** One archived entry as the manifest records it. */
export interface ManifestEntry {
  name: string;
  size: number;
  sha256: string;
}

/** `manifest.json`, the archive's last entry. */
export interface Manifest {
  format: typeof BACKUP_FORMAT;
  version: number;
  createdAt: string;
  migrations: RecordedMigration[];
  entries: ManifestEntry[];
  /**
   * Files the snapshot lists as not deleted whose bytes were gone when they were to be
   * copied: deleted (or purged) in the moment between the snapshot and the copy.
   */
  missingFiles: string[];
}

/** A backup, restore or verification that cannot go on; its message is one whole line. */
export class BackupError extends Error {
  override name = "BackupError";
}

/** What long work reports: a line per stage, and bytes done out of a total. */
export type Progress =
  | { kind: "stage"; text: string }
  | { kind: "bytes"; done: number; total: number };

/** Receives progress; the default ignores it. */
export type ProgressListener = (progress: Progress) => void;

/** `n` bytes for people: "512 B", "3.4 MiB", "2.00 GiB". */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}

/** Whether `name` is a safe path under `files/`: plain segments, none hidden, no `..`. */
function isFileEntry(name: string): boolean {
  if (!name.startsWith("files/")) return false;
  const parts = name.slice("files/".length).split("/");
  return parts.length <= 8 && parts[0] !== "tmp" &&
    parts.every((p) => /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,254}$/.test(p));
}

/** Whether an archive may hold an entry named `name`. */
function isBackupEntry(name: string): boolean {
  return name === DATABASE || name === SECRET || name === MANIFEST || isFileEntry(name);
}

// ---------------------------------------------------------------------------------------
// Making a backup

/** A backup ready to be read: its snapshot is taken and checked. */
export interface PreparedBackup {
  /** The gzip-compressed tar, produced as it is read (never held whole in memory). */
  stream: ReadableStream<Uint8Array>;
  /** Resolves with the manifest once the stream has produced its last byte. */
  manifest: Promise<Manifest>;
  /** Stored files to be copied, and the bytes of every entry but the manifest. */
  fileCount: number;
  totalBytes: number;
}

/** How an entry's bytes go into the gzip stream: deflated, stored, or as the first piece says. */
type Packing = "deflate" | "store" | "try";

interface Source {
  name: string;
  path: string;
  /** The row says the file was deleted: its bytes may be gone, which is no loss. */
  optional: boolean;
  packing: Packing;
}

/** File types that are compressed already (office files are zip archives). */
const COMPRESSED_TYPES = new Set([
  "png",
  "jpg",
  "jpeg",
  "gif",
  "webp",
  "zip",
  "docx",
  "xlsx",
  "pptx",
]);

/** Known compressed types are stored; any other file is deflated if its first piece shrinks. */
function packingOf(storedName: string): Packing {
  return COMPRESSED_TYPES.has(extname(storedName).slice(1).toLowerCase()) ? "store" : "try";
}

/**
 * Takes a snapshot of the database of `dataDir` into `workDir` (which the caller removes
 * afterwards), checks it with `PRAGMA integrity_check`, and returns the archive as a stream,
 * with the files the snapshot names read from `filesDir` (by default `files` in `dataDir`).
 * Everything acknowledged before the call is in the snapshot; writes go on meanwhile.
 */
export async function prepareBackup(options: {
  dataDir: string;
  filesDir?: string;
  workDir: string;
  now: Date;
  onProgress?: ProgressListener;
  signal?: AbortSignal;
}): Promise<PreparedBackup> {
  const { dataDir, workDir, signal } = options;
  const progress = options.onProgress ?? (() => {});
  const dbPath = join(dataDir, DATABASE);
  const dbSize = await sizeOf(dbPath);
  const walSize = await sizeOf(`${dbPath}-wal`) ?? 0;
  if (dbSize === null) {
    throw new BackupError(`Cannot back up: there is no database in ${dataDir} (${DATABASE})`);
  }
  progress({
    kind: "stage",
    text: `snapshot: copying the database (${formatBytes(dbSize + walSize)})`,
  });
  const snapshotPath = join(workDir, "snapshot.db");
  const started = performance.now();
  let contents: SnapshotContents;
  try {
    contents = await snapshotDatabase(dbPath, snapshotPath, signal);
  } catch (error) {
    signal?.throwIfAborted();
    throw new BackupError(`Cannot back up: cannot copy the database: ${reason(error)}`);
  }
  if (contents.problems.length > 0) {
    throw new BackupError(
      `Cannot back up: the database snapshot fails its integrity check: ${contents.problems[0]}`,
    );
  }
  const snapshotSize = (await Deno.stat(snapshotPath)).size;
  progress({
    kind: "stage",
    text: `snapshot: ${formatBytes(snapshotSize)} in ${
      ((performance.now() - started) / 1000).toFixed(1)
    } s, integrity check ok`,
  });

  const sources: Source[] = [
    { name: DATABASE, path: snapshotPath, optional: false, packing: "deflate" },
  ];
  if (await sizeOf(join(dataDir, SECRET)) !== null) {
    sources.push({
      name: SECRET,
      path: join(dataDir, SECRET),
      optional: false,
      packing: "deflate",
    });
  }
  const root = options.filesDir ?? filesRoot(dataDir);
  let totalBytes = snapshotSize;
  let fileCount = 0;
  for (const file of contents.files) {
    const name = `files/${file.storedName}`;
    if (!isFileEntry(name)) {
      throw new BackupError(`Cannot back up: a file row names an unsafe path: ${file.storedName}`);
    }
    const size = await sizeOf(join(root, file.storedName));
    // A deleted file's bytes may be gone already; a live one's are checked when copied.
    if (size === null && file.deleted) continue;
    totalBytes += size ?? 0;
    fileCount++;
    sources.push({
      name,
      path: join(root, file.storedName),
      optional: file.deleted,
      packing: packingOf(file.storedName),
    });
  }
  progress({
    kind: "stage",
    text: `archive: the database and ${fileCount} stored files, ${formatBytes(totalBytes)}`,
  });

  let settle!: { resolve: (m: Manifest) => void; reject: (e: unknown) => void };
  const manifest = new Promise<Manifest>((resolve, reject) => settle = { resolve, reject });
  manifest.catch(() => {}); // also reported through the stream
  const createdAt = options.now.toISOString();
  async function* archive(): AsyncGenerator<Uint8Array> {
    const entries: ManifestEntry[] = [];
    const missingFiles: string[] = [];
    let done = 0;
    const gz = new GzipWriter();
    // Headers, padding and the manifest are gathered and deflated together.
    let pending: Uint8Array[] = [];
    let pendingSize = 0;
    function* flush(): Generator<Uint8Array> {
      if (pendingSize === 0) return;
      const data = new Uint8Array(pendingSize);
      let offset = 0;
      for (const part of pending) {
        data.set(part, offset);
        offset += part.length;
      }
      pending = [];
      pendingSize = 0;
      yield* gz.compress(data).bytes;
    }
    function* tarBytes(piece: Uint8Array): Generator<Uint8Array> {
      pending.push(piece);
      pendingSize += piece.length;
      if (pendingSize >= CHUNK_BYTES) yield* flush();
    }
    try {
      yield gz.start();
      for (const source of sources) {
        signal?.throwIfAborted();
        let file: Deno.FsFile;
        try {
          file = await Deno.open(source.path, { read: true });
        } catch (error) {
          if (!(error instanceof Deno.errors.NotFound) || source.name === DATABASE) throw error;
          // Deleted (or purged) since the snapshot: the bytes of a file the snapshot still
          // lists were removed in the moment since. Recorded, not fatal.
          if (!source.optional) missingFiles.push(source.name);
          continue;
        }
        try {
          // The open file is read, so its size is known now and cannot change: stored files
          // are never rewritten, only removed (which an open file outlives).
          const info = await file.stat();
          let packing = source.packing;
          yield* tarBytes(entryHeader({
            name: source.name,
            size: info.size,
            mtime: Math.floor((info.mtime?.getTime() ?? Date.now()) / 1000),
            mode: 0o600,
          }));
          const hash = createHash("sha256");
          let left = info.size;
          while (left > 0) {
            const buffer = new Uint8Array(Math.min(CHUNK_BYTES, left));
            const n = await file.read(buffer);
            if (n === null) throw new Error(`${source.name} shrank while being read`);
            const piece = buffer.subarray(0, n);
            hash.update(piece);
            left -= n;
            done += n;
            yield* flush();
            let rest = piece;
            if (packing === "try") {
              // A small first piece decides, so an incompressible file costs little deflating.
              const trial = gz.compress(piece.subarray(0, TRIAL_BYTES));
              yield* trial.bytes;
              packing = trial.shrank ? "deflate" : "store";
              rest = piece.subarray(TRIAL_BYTES);
            }
            yield* packing === "store" ? gz.store(rest) : gz.compress(rest).bytes;
            progress({ kind: "bytes", done, total: Math.max(totalBytes, done) });
          }
          yield* tarBytes(padding(info.size));
          entries.push({ name: source.name, size: info.size, sha256: hash.digest("hex") });
        } finally {
          file.close();
        }
      }
      const result: Manifest = {
        format: BACKUP_FORMAT,
        version: BACKUP_VERSION,
        createdAt,
        migrations: contents.migrations,
        entries,
        missingFiles,
      };
      const bytes = new TextEncoder().encode(JSON.stringify(result, null, 2) + "\n");
      yield* tarBytes(entryHeader({
        name: MANIFEST,
        size: bytes.length,
        mtime: Math.floor(options.now.getTime() / 1000),
        mode: 0o600,
      }));
      yield* tarBytes(bytes);
      yield* tarBytes(padding(bytes.length));
      yield* tarBytes(endOfArchive());
      yield* flush();
      yield gz.finish();
      settle.resolve(result);
    } catch (error) {
      settle.reject(error);
      throw error;
    }
  }
  const stream = ReadableStream.from(archive());
  return { stream, manifest, fileCount, totalBytes };
}

/** The size of the file at `path`, or null when there is none. */
async function sizeOf(path: string): Promise<number | null> {
  try {
    return (await Deno.stat(path)).size;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

// ---------------------------------------------------------------------------------------
// Reading an archive

/** What reading an archive found, every entry checked against the manifest. */
export interface ArchiveReport {
  manifest: Manifest;
  /** Entries other than the manifest, and their bytes. */
  entryCount: number;
  bytes: number;
}

/** The archive itself is at fault (as opposed to the disk it is extracted to). */
class Damaged extends Error {}

/**
 * Reads a backup archive once, from start to end, checking each entry's name as it comes and,
 * at the end, every entry against the manifest. `place` says where each entry's bytes go
 * (null: only hashed). Throws `Damaged` for a fault of the archive.
 */
async function readArchive(
  compressed: ReadableStream<Uint8Array>,
  place: (name: string) => string | null,
  signal: AbortSignal | undefined,
): Promise<ArchiveReport> {
  const seen = new Map<string, { size: number; sha256: string }>();
  let manifestBytes: Uint8Array | null = null;
  let bytes = 0;
  const gunzip = new DecompressionStream("gzip") as unknown as TransformStream<
    Uint8Array,
    Uint8Array
  >;
  const tar = readTar(compressed.pipeThrough(gunzip));
  for (;;) {
    signal?.throwIfAborted();
    const step = await archiveRead(tar.next());
    if (step.done) break;
    const entry = step.value;
    if (!isBackupEntry(entry.name)) {
      throw new Damaged(`it holds an entry that no backup has: ${JSON.stringify(entry.name)}`);
    }
    if (seen.has(entry.name) || (entry.name === MANIFEST && manifestBytes !== null)) {
      throw new Damaged(`it holds ${entry.name} twice`);
    }
    const body = entry.body[Symbol.asyncIterator]();
    if (entry.name === MANIFEST) {
      if (entry.size > MAX_MANIFEST_BYTES) throw new Damaged("its manifest is too large");
      const parts: Uint8Array[] = [];
      for (;;) {
        const piece = await archiveRead(body.next());
        if (piece.done) break;
        parts.push(piece.value);
      }
      manifestBytes = new Uint8Array(entry.size);
      let offset = 0;
      for (const part of parts) {
        manifestBytes.set(part, offset);
        offset += part.length;
      }
      continue;
    }
    const target = place(entry.name);
    const file = target === null ? null : await createFile(target);
    const hash = createHash("sha256");
    try {
      for (;;) {
        signal?.throwIfAborted();
        const piece = await archiveRead(body.next());
        if (piece.done) break;
        hash.update(piece.value);
        bytes += piece.value.length;
        if (file) {
          let written = 0;
          while (written < piece.value.length) {
            written += await file.write(piece.value.subarray(written));
          }
        }
      }
      await file?.sync();
    } finally {
      file?.close();
    }
    seen.set(entry.name, { size: entry.size, sha256: hash.digest("hex") });
  }
  if (manifestBytes === null) throw new Damaged("it has no manifest.json (cut short?)");
  const manifest = parseManifest(manifestBytes);
  const listed = new Set<string>();
  for (const expected of manifest.entries) {
    const found = seen.get(expected.name);
    if (!found) throw new Damaged(`${expected.name} is listed in the manifest but missing`);
    if (found.size !== expected.size || found.sha256 !== expected.sha256) {
      throw new Damaged(`${expected.name} does not match its checksum`);
    }
    listed.add(expected.name);
  }
  for (const name of seen.keys()) {
    if (!listed.has(name)) throw new Damaged(`${name} is not listed in the manifest`);
  }
  if (!listed.has(DATABASE)) throw new Damaged(`it holds no database (${DATABASE})`);
  return { manifest, entryCount: seen.size, bytes };
}

/** Awaits a read of the archive, turning its failures (gzip, tar) into `Damaged`. */
async function archiveRead<T>(read: Promise<T>): Promise<T> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof Damaged || (error as Error)?.name === "AbortError") throw error;
    if (error instanceof TarError) throw new Damaged(error.message);
    // DecompressionStream's errors: a corrupt or cut-off gzip stream, a CRC mismatch.
    throw new Damaged(`it is not a readable gzip stream (${reason(error)})`);
  }
}

/** Creates a new file for an entry, its folders too. */
async function createFile(path: string): Promise<Deno.FsFile> {
  await Deno.mkdir(dirname(path), { recursive: true, mode: 0o700 });
  return await Deno.open(path, { write: true, createNew: true, mode: 0o600 });
}

/** Checks the manifest's shape; a newer format version is refused with what to do. */
function parseManifest(bytes: Uint8Array): Manifest {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw new Damaged("its manifest.json is not JSON");
  }
  const m = value as Partial<Manifest> | null;
  if (m === null || typeof m !== "object" || m.format !== BACKUP_FORMAT) {
    throw new Damaged(`it is not a backup of this server (format is not ${BACKUP_FORMAT})`);
  }
  if (typeof m.version !== "number" || !Number.isInteger(m.version) || m.version < 1) {
    throw new Damaged("its manifest has no valid version");
  }
  if (m.version > BACKUP_VERSION) {
    throw new Damaged(
      `it was made by a newer server (backup format ${m.version}; this server reads ` +
        `${BACKUP_VERSION}): restore it with that version`,
    );
  }
  const isEntry = (e: unknown): e is ManifestEntry => {
    const x = e as ManifestEntry;
    return typeof x?.name === "string" && Number.isSafeInteger(x.size) && x.size >= 0 &&
      typeof x.sha256 === "string" && /^[0-9a-f]{64}$/.test(x.sha256);
  };
  const isMigration = (e: unknown): e is RecordedMigration => {
    const x = e as RecordedMigration;
    return Number.isSafeInteger(x?.version) && typeof x.name === "string" &&
      typeof x.checksum === "string";
  };
  if (
    typeof m.createdAt !== "string" || !Array.isArray(m.entries) || !m.entries.every(isEntry) ||
    !Array.isArray(m.migrations) || !m.migrations.every(isMigration) ||
    !Array.isArray(m.missingFiles) || !m.missingFiles.every((f) => typeof f === "string")
  ) {
    throw new Damaged("its manifest.json is malformed");
  }
  return m as Manifest;
}

/** Reads `archive`, counting its (compressed) bytes for progress. */
async function openArchive(
  archive: string,
  verb: string,
  progress: ProgressListener,
): Promise<ReadableStream<Uint8Array>> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(archive, { read: true });
  } catch (error) {
    throw new BackupError(`Cannot ${verb}: cannot open ${archive}: ${reason(error)}`);
  }
  const total = (await file.stat()).size;
  progress({ kind: "stage", text: `reading ${archive} (${formatBytes(total)})` });
  let done = 0;
  return file.readable.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        done += chunk.length;
        progress({ kind: "bytes", done, total: Math.max(total, done) });
        controller.enqueue(chunk);
      },
    }),
  );
}

// ---------------------------------------------------------------------------------------
// Verifying and restoring

/** What `verifyBackup` found. */
export interface VerifyReport extends ArchiveReport {
  archive: string;
}

/**
 * Checks an archive without restoring it: every entry against the manifest, and the
 * database with `PRAGMA integrity_check` (extracted to a temporary folder, then removed).
 */
export async function verifyBackup(options: {
  archive: string;
  onProgress?: ProgressListener;
  signal?: AbortSignal;
}): Promise<VerifyReport> {
  const progress = options.onProgress ?? (() => {});
  const stream = await openArchive(options.archive, "verify", progress);
  const workDir = await Deno.makeTempDir({ prefix: "collab-verify-" });
  try {
    const dbPath = join(workDir, DATABASE);
    let report: ArchiveReport;
    try {
      report = await readArchive(
        stream,
        (name) => name === DATABASE ? dbPath : null,
        options.signal,
      );
    } catch (error) {
      if (error instanceof Damaged) {
        throw new BackupError(`Cannot verify ${options.archive}: it is damaged: ${error.message}`);
      }
      throw error;
    }
    progress({
      kind: "stage",
      text: `checksums: ${report.entryCount} entries, ${formatBytes(report.bytes)}, all match`,
    });
    checkDatabase(dbPath, report.manifest, `Cannot verify ${options.archive}`);
    progress({ kind: "stage", text: "database: integrity check ok" });
    return { ...report, archive: options.archive };
  } finally {
    await Deno.remove(workDir, { recursive: true }).catch(() => {});
  }
}

/** What `restoreBackup` did. */
export interface RestoreReport extends ArchiveReport {
  dataDir: string;
  /** Where the previous data directory was moved (with `force`), or null. */
  movedAside: string | null;
  /** Where the files went: `FILES_DIR` when it is set apart, else `files` in `dataDir`. */
  filesDir: string;
  /** Where a previous `FILES_DIR` set apart was moved (with `force`), or null. */
  filesMovedAside: string | null;
}

/** A directory a restore fills: the folder it is extracted into first, and moving it in. */
class Destination {
  work = "";
  movedAside: string | null = null;
  placed = false;

  constructor(
    readonly target: string,
    readonly label: string,
    readonly force: boolean,
    readonly fail: (why: string) => BackupError,
  ) {}

  /** Refuses a file, or a directory with entries unless `force`; says which it is. */
  async check(): Promise<"missing" | "empty" | "full"> {
    const state = await dirState(this.target);
    if (state === "file") throw this.fail(`${this.label} is a file, not a directory`);
    if (state === "full" && !this.force) {
      throw this.fail(
        `${this.label} is not empty: restore into an empty directory, or add ` +
          "--force to move it aside (it is never deleted)",
      );
    }
    return state;
  }

  async makeWork(): Promise<string> {
    await Deno.mkdir(dirname(this.target), { recursive: true });
    this.work = await Deno.makeTempDir({
      dir: dirname(this.target),
      prefix: `.${basename(this.target)}.restore-`,
    });
    return this.work;
  }

  /** Moves the old directory aside (when it has entries) and the work folder into place. */
  async place(now: Date, progress: ProgressListener): Promise<void> {
    const state = await this.check();
    if (state === "empty") await Deno.remove(this.target);
    if (state === "full") {
      this.movedAside = await asideName(this.target, now);
      await Deno.rename(this.target, this.movedAside);
      progress({ kind: "stage", text: `moved the old ${this.label} to ${this.movedAside}` });
    }
    await Deno.rename(this.work, this.target);
    this.placed = true;
    syncDir(dirname(this.target));
  }

  async discard(): Promise<void> {
    if (this.work && !this.placed) {
      await Deno.remove(this.work, { recursive: true }).catch(() => {});
    }
  }
}

/**
 * Restores an archive into `dataDir`, which must be missing or empty unless `force`, which
 * moves it aside to `<dataDir>.old-<time>` (never deleting it). The archive is extracted to
 * a temporary folder beside `dataDir` and checked entirely (every checksum, the database's
 * integrity, its migrations) before that folder is renamed into place: a damaged archive
 * restores nothing. The server must not be running on `dataDir`.
 *
 * With `filesDir` set apart from `dataDir` (`FILES_DIR`), the files go there instead, by the
 * same rules: extracted beside it, checked with the rest, then moved in (before the data
 * directory, so a database never names files that are not in place).
 */
export async function restoreBackup(options: {
  archive: string;
  dataDir: string;
  filesDir?: string;
  force: boolean;
  now: Date;
  onProgress?: ProgressListener;
  signal?: AbortSignal;
}): Promise<RestoreReport> {
  const progress = options.onProgress ?? (() => {});
  const fail = (why: string) => new BackupError(`Cannot restore: ${why}`);
  const data = new Destination(
    resolve(options.dataDir),
    `DATA_DIR ${options.dataDir}`,
    options.force,
    fail,
  );
  const inData = join(data.target, "files");
  const filesTarget = options.filesDir === undefined ? inData : resolve(options.filesDir);
  const files = filesTarget === inData
    ? null
    : new Destination(filesTarget, `FILES_DIR ${options.filesDir}`, options.force, fail);
  await data.check();
  await files?.check();
  const stream = await openArchive(options.archive, "restore", progress);
  try {
    const work = await data.makeWork();
    const filesWork = files ? await files.makeWork() : join(work, "files");
    const place = (name: string) =>
      name.startsWith("files/") ? join(filesWork, name.slice("files/".length)) : join(work, name);
    let report: ArchiveReport;
    try {
      report = await readArchive(stream, place, options.signal);
    } catch (error) {
      if (error instanceof Damaged) {
        throw fail(`${options.archive} is damaged, nothing was restored: ${error.message}`);
      }
      throw error;
    }
    progress({
      kind: "stage",
      text: `checksums: ${report.entryCount} entries, ${formatBytes(report.bytes)}, all match`,
    });
    checkDatabase(join(work, DATABASE), report.manifest, "Cannot restore");
    checkMigrations(report.manifest.migrations);
    progress({ kind: "stage", text: "database: integrity check ok, migrations known" });
    await Deno.mkdir(filesWork, { recursive: true, mode: 0o700 });
    syncTree(work);
    if (files) syncTree(filesWork);
    options.signal?.throwIfAborted();

    // Both are checked again before either moves: nothing is placed if one is refused.
    await data.check();
    await files?.check();
    if (files) {
      await files.place(options.now, progress);
      progress({ kind: "stage", text: `files restored into ${options.filesDir}` });
    }
    await data.place(options.now, progress);
    progress({ kind: "stage", text: `restored into ${options.dataDir}` });
    return {
      ...report,
      dataDir: data.target,
      movedAside: data.movedAside,
      filesDir: filesTarget,
      filesMovedAside: files?.movedAside ?? null,
    };
  } finally {
    await data.discard();
    await files?.discard();
  }
}

/** Fails unless the database at `path` is sound and records the manifest's migrations. */
function checkDatabase(path: string, manifest: Manifest, prefix: string): void {
  const contents = readSnapshot(path);
  if (contents.problems.length > 0) {
    throw new BackupError(
      `${prefix}: the archived database fails its integrity check: ${contents.problems[0]}`,
    );
  }
  const recorded = JSON.stringify(contents.migrations);
  if (recorded !== JSON.stringify(manifest.migrations)) {
    throw new BackupError(`${prefix}: the database's migrations differ from the manifest's`);
  }
}

/** Refuses a database whose migrations this server does not have (or has otherwise). */
function checkMigrations(archived: RecordedMigration[]): void {
  const local = new Map(readMigrations(MIGRATIONS_DIR).map((m) => [m.version, m]));
  for (const m of archived) {
    const label = `${String(m.version).padStart(3, "0")}_${m.name}`;
    const mine = local.get(m.version);
    if (!mine) {
      throw new BackupError(
        `Cannot restore: the backup was made by a newer server (migration ${label} is ` +
          "unknown here): restore it with that version or a later one",
      );
    }
    if (mine.checksum !== m.checksum) {
      throw new BackupError(
        `Cannot restore: migration ${label} of the backup differs from this server's`,
      );
    }
  }
}

/** Whether `path` is missing, an empty directory, a directory with entries, or a file. */
async function dirState(path: string): Promise<"missing" | "empty" | "full" | "file"> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return "missing";
    throw error;
  }
  if (!info.isDirectory) return "file";
  for await (const _ of Deno.readDir(path)) return "full";
  return "empty";
}

/** `<path>.old-<UTC time>`, with a counter when that is taken. */
async function asideName(path: string, now: Date): Promise<string> {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
  for (let n = 1;; n++) {
    const candidate = `${path}.old-${stamp}${n === 1 ? "" : `-${n}`}`;
    if (await dirState(candidate) === "missing") return candidate;
  }
}

/** Flushes every folder under `dir` (files were flushed as written), so renames are durable. */
function syncTree(dir: string): void {
  for (const entry of Deno.readDirSync(dir)) {
    if (entry.isDirectory) syncTree(join(dir, entry.name));
  }
  syncDir(dir);
}

function syncDir(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// ---------------------------------------------------------------------------------------
// The server's download

/** Removes the work folders that backups streamed by a server cut short left behind. */
export async function removeLeftoverBackupWork(dataDir: string): Promise<void> {
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(dataDir));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  for (const entry of entries) {
    if (entry.isDirectory && entry.name.startsWith(WORK_PREFIX)) {
      await Deno.remove(join(dataDir, entry.name), { recursive: true }).catch(() => {});
    }
  }
}

/** Backups as the API offers them (system admins only). */
export function createBackups(
  deps: {
    dataDir: string;
    filesDir: string;
    clock: Clock;
    /** The engine the server runs on: only SQLite's database is the server's to back up. */
    engine?: "sqlite" | "postgres";
    /** The database, for the audit log's row of each download. */
    db: Engine;
  },
) {
  return {
    /**
     * A backup of the running server as a stream, with a file name for it. The snapshot is
     * taken (and checked) before this resolves; the files are read as the stream is. The
     * download is audited when it starts (a stream is no transaction): once the snapshot is
     * taken, so the backup does not hold its own row, and a failed preparation writes none.
     */
    async download(
      actor: Actor,
      meta: RequestMeta,
    ): Promise<{ fileName: string; stream: ReadableStream<Uint8Array> }> {
      if (actor.role !== "admin") throw new DomainError("forbidden", "Administrators only");
      if (deps.engine === "postgres") {
        throw new DomainError(
          "conflict",
          "Cannot back up from the server on PostgreSQL: back up the database with pg_dump and " +
            "copy FILES_DIR",
        );
      }
      const now = deps.clock.now();
      const workDir = await Deno.makeTempDir({ dir: deps.dataDir, prefix: WORK_PREFIX });
      const cleanup = () => Deno.remove(workDir, { recursive: true }).catch(() => {});
      let prepared: PreparedBackup;
      try {
        prepared = await prepareBackup({
          dataDir: deps.dataDir,
          filesDir: deps.filesDir,
          workDir,
          now,
        });
      } catch (error) {
        await cleanup();
        throw error;
      }
      try {
        await deps.db.transaction((tx) =>
          audit(tx, meta, deps.clock.now().toISOString(), {
            action: "backup.downloaded",
            actorId: actor.id,
            details: { files: prepared.fileCount, bytes: prepared.totalBytes },
          })
        );
      } catch (error) {
        await prepared.stream.cancel().catch(() => {});
        await cleanup();
        throw error;
      }
      const reader = prepared.stream.getReader();
      const stream = new ReadableStream<Uint8Array>({
        async pull(controller) {
          try {
            const { done, value } = await reader.read();
            if (done) {
              await cleanup();
              controller.close();
            } else {
              controller.enqueue(value);
            }
          } catch (error) {
            await cleanup();
            controller.error(error);
          }
        },
        async cancel(why) {
          await reader.cancel(why).catch(() => {});
          await cleanup();
        },
      });
      return { fileName: `${backupFileStem(now)}.tar.gz`, stream };
    },
  };
}

/** `collab-backup-20261122T083000Z`. */
export function backupFileStem(at: Date): string {
  return `${BACKUP_FORMAT}-${at.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z")}`;
}

/** The backup service's type. */
export type Backups = ReturnType<typeof createBackups>;
