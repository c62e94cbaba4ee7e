/**
 * Copies a SQLite database with the online backup API and checks the copy, off the main
 * thread: node:sqlite's `backup()` and `PRAGMA integrity_check` run to completion
 * synchronously, which in the server would stop every request for as long as they take. See
 * `snapshotDatabase` in `snapshot.ts`.
 */
import { DatabaseSync } from "node:sqlite";
import { copyDatabase, readSnapshot } from "./snapshot.ts";

/** What the worker is asked to do. */
interface Job {
  source: string;
  target: string;
}

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<Job>) => void) | null;
  postMessage(message: unknown): void;
  close(): void;
};

scope.onmessage = async ({ data }) => {
  try {
    // A connection of its own, read-only: in WAL mode its read transaction never blocks the
    // server's writers.
    const db = new DatabaseSync(data.source, { readOnly: true });
    try {
      // In flushed pieces, all in one read transaction: see `copyDatabase`.
      await copyDatabase(db, data.target);
    } finally {
      db.close();
    }
    scope.postMessage({ ok: true, contents: readSnapshot(data.target) });
  } catch (error) {
    scope.postMessage({
      ok: false,
      message: error instanceof Error ? error.message : String(error),
    });
  }
  scope.close();
};
