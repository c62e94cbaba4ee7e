/**
 * Snapshots of the database for backups, and what a snapshot (or a restored database) holds.
 * A snapshot is taken by SQLite's online backup API through a read-only connection of its
 * own, in one read transaction: in WAL mode the server's writers go on meanwhile.
 */
import { backup, DatabaseSync } from "node:sqlite";
import { isDamaged } from "./sqlite.ts";

/** A migration as recorded in a database. */
export interface RecordedMigration {
  version: number;
  name: string;
  checksum: string;
}

/** A `files` row of a snapshot: where its bytes are stored, and whether it was deleted. */
export interface SnapshotFile {
  storedName: string;
  deleted: boolean;
}

/** What a snapshot holds, as far as a backup cares. */
export interface SnapshotContents {
  /** `PRAGMA integrity_check`'s findings; empty when the database is sound. */
  problems: string[];
  migrations: RecordedMigration[];
  files: SnapshotFile[];
}

/**
 * Copies the database at `source` (which the server may be writing) to a new file `target`,
 * consistent as of one moment, and reads the copy (`readSnapshot`). Runs in a worker, so the
 * calling thread goes on serving; an abort stops it (the caller removes the partial copy).
 */
export function snapshotDatabase(
  source: string,
  target: string,
  signal?: AbortSignal,
): Promise<SnapshotContents> {
  signal?.throwIfAborted();
  const worker = new Worker(new URL("./snapshot_worker.ts", import.meta.url).href, {
    type: "module",
  });
  return new Promise<SnapshotContents>((resolve, reject) => {
    worker.onmessage = (
      event: MessageEvent<{ ok: boolean; contents?: SnapshotContents; message?: string }>,
    ) => {
      worker.terminate();
      if (event.data.ok && event.data.contents) resolve(event.data.contents);
      else reject(new Error(event.data.message ?? "the snapshot failed"));
    };
    worker.onerror = (event) => {
      event.preventDefault();
      worker.terminate();
      reject(new Error(event.message));
    };
    signal?.addEventListener("abort", () => {
      worker.terminate();
      reject(signal.reason);
    }, { once: true });
    worker.postMessage({ source, target });
  });
}

/** How much of the copy reaches the disk at a time (see `copyDatabase`). */
export const SNAPSHOT_FLUSH_BYTES = 2 * 1024 * 1024;

/**
 * Copies the database open in `source` to a new file `target`, as of one moment, writing it
 * in pieces of `flushBytes` each flushed to the disk before the next is copied.
 *
 * Why pieces: copied in one step, the whole database (hundreds of MiB) reached the disk at
 * once at the end, and the server's commits, each waiting for its own flush, stalled behind
 * it for 90 to 220 ms (bench/README.md, "Where the snapshot stall comes from"). Flushed every
 * 2 MiB, no commit waited more than about 10 ms.
 *
 * Why it stays one moment: the backup API starts over when another connection writes between
 * two of its steps, unless the source connection holds a read transaction of its own across
 * them. So a read transaction is opened first and held until the last page is copied; every
 * step reads the same snapshot, and a busy server cannot make the copy start over.
 * `onStep` is called after each piece (tests use it to write between steps).
 */
export async function copyDatabase(
  source: DatabaseSync,
  target: string,
  options: { flushBytes?: number; onStep?: () => void } = {},
): Promise<{ steps: number }> {
  const pageSize = (source.prepare("PRAGMA page_size").get() as { page_size: number }).page_size;
  const pages = Math.max(1, Math.floor((options.flushBytes ?? SNAPSHOT_FLUSH_BYTES) / pageSize));
  source.exec("BEGIN");
  let file: Deno.FsFile | undefined;
  let steps = 0;
  try {
    // A read transaction starts at its first read.
    source.prepare("SELECT count(*) FROM sqlite_schema").get();
    await backup(source, target, {
      rate: pages,
      progress: () => {
        steps++;
        // Flushing any descriptor of a file flushes all of its written pages.
        file ??= Deno.openSync(target, { read: true });
        file.syncDataSync();
        options.onStep?.();
      },
    });
  } finally {
    file?.close();
    source.exec("COMMIT");
  }
  return { steps };
}

/**
 * Checks the database file at `path` (`PRAGMA integrity_check`) and reads its migrations and
 * file rows; opened read-only, so the file is left as it was. Meant for copies no one else
 * has open (a snapshot, an extracted backup): the empty `-wal` and `-shm` files that opening
 * a WAL-mode database makes are removed afterwards.
 */
export function readSnapshot(path: string): SnapshotContents {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return inspect(db);
  } finally {
    db.close();
    removeEmptyWal(path);
  }
}

function removeEmptyWal(path: string): void {
  try {
    if (Deno.statSync(`${path}-wal`).size !== 0) return;
    Deno.removeSync(`${path}-wal`);
    Deno.removeSync(`${path}-shm`);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}

function inspect(db: DatabaseSync): SnapshotContents {
  let problems: string[];
  try {
    const rows = db.prepare("PRAGMA integrity_check").all() as Array<{ integrity_check: string }>;
    problems = rows.map((r) => r.integrity_check).filter((text) => text !== "ok");
  } catch (error) {
    if (isDamaged(error)) {
      return { problems: [(error as Error).message], migrations: [], files: [] };
    }
    throw error;
  }
  if (problems.length > 0) return { problems, migrations: [], files: [] };
  const hasTable = (name: string) =>
    db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(name) !==
      undefined;
  const migrations = hasTable("schema_migrations")
    ? db.prepare("SELECT version, name, checksum FROM schema_migrations ORDER BY version")
      .all() as unknown as RecordedMigration[]
    : [];
  const files = hasTable("files")
    ? (db.prepare("SELECT stored_name, deleted_at FROM files ORDER BY id").all() as Array<
      { stored_name: string; deleted_at: string | null }
    >).map((r) => ({ storedName: r.stored_name, deleted: r.deleted_at !== null }))
    : [];
  return {
    problems,
    migrations: migrations.map((m) => ({
      version: m.version,
      name: m.name,
      checksum: m.checksum,
    })),
    files,
  };
}
