/**
 * The commands beside serving, for `main.ts <command>` (and so the compiled binary):
 * `backup OUT.tar.gz`, `backup --verify IN.tar.gz` and `restore IN.tar.gz`. Each prints a
 * line per stage (and a percentage on a terminal), exits 0 on success, and on failure prints
 * one line to standard error and exits non-zero.
 */
import { closeSync, fsyncSync, openSync } from "node:fs";
import { setPriority } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { ConfigError, parseConfig } from "../domain/config.ts";
import {
  BackupError,
  formatBytes,
  prepareBackup,
  type Progress,
  restoreBackup,
  verifyBackup,
} from "../domain/archives/backup.ts";

/** How to call the commands. */
export const USAGE = [
  "usage: main.ts                      serve (no argument)",
  "       main.ts backup OUT.tar.gz [--data-dir DIR]",
  "       main.ts backup --verify IN.tar.gz",
  "       main.ts restore IN.tar.gz [--data-dir DIR] [--force]",
].join("\n");

/** How much the backup command lowers its own priority (nice), for the server's sake. */
const BACKUP_NICENESS = 10;

/**
 * How much of the archive is written between flushes. Left to the kernel, gigabytes would wait
 * in the page cache and reach the disk all at once at the end, and the server's own flushes
 * (each acknowledged write) would wait behind them.
 */
const SYNC_EVERY_BYTES = 8 * 1024 * 1024;

/** Exit statuses. */
const OK = 0, FAILED = 1, USAGE_ERROR = 2;

/** A command line that names no command this server has, or misuses one. */
class UsageError extends Error {}

interface Parsed {
  command: "backup" | "verify" | "restore";
  path: string;
  dataDir: string | undefined;
  force: boolean;
}

function parse(args: string[]): Parsed {
  const [command, ...rest] = args;
  if (command !== "backup" && command !== "restore") {
    throw new UsageError(`Cannot run ${JSON.stringify(command)}: there is no such command`);
  }
  const paths: string[] = [];
  let dataDir: string | undefined;
  let force = false;
  let verify = false;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (arg === "--force" && command === "restore") force = true;
    else if (arg === "--verify" && command === "backup") verify = true;
    else if (arg === "--data-dir" || arg.startsWith("--data-dir=")) {
      const value = arg === "--data-dir" ? rest[++i] : arg.slice("--data-dir=".length);
      if (!value) throw new UsageError(`Cannot run ${command}: --data-dir needs a directory`);
      dataDir = value;
    } else if (arg.startsWith("-") && arg !== "-") {
      throw new UsageError(`Cannot run ${command}: unknown option ${arg}`);
    } else paths.push(arg);
  }
  const what = command === "restore" || verify ? "an archive to read" : "the archive to write";
  if (paths.length !== 1) {
    throw new UsageError(`Cannot run ${command}: name exactly one file, ${what}`);
  }
  if (verify && dataDir !== undefined) {
    throw new UsageError("Cannot run backup --verify: it reads no data directory");
  }
  return { command: verify ? "verify" : command, path: paths[0]!, dataDir, force };
}

/** Prints stage lines; on a terminal, also the percentage of the current stage's bytes. */
function progressPrinter(): { report: (p: Progress) => void; end: () => void } {
  const tty = Deno.stdout.isTerminal();
  const encoder = new TextEncoder();
  let shown = -1;
  const end = () => {
    if (shown >= 0) Deno.stdout.writeSync(encoder.encode("\n"));
    shown = -1;
  };
  const report = (p: Progress) => {
    if (p.kind === "stage") {
      end();
      console.log(p.text);
    } else if (tty && p.total > 0) {
      const percent = Math.floor((p.done * 100) / p.total);
      if (percent !== shown) {
        shown = percent;
        Deno.stdout.writeSync(encoder.encode(`\r  ${percent}%`));
      }
    }
  };
  return { report, end };
}

/**
 * Runs the command `args` names (`env` supplies `DATA_DIR` and `FILES_DIR`); resolves with the
 * exit status.
 * SIGINT and SIGTERM stop the work and remove what it wrote.
 */
export async function runCommand(
  args: string[],
  env: Record<string, string | undefined>,
): Promise<number> {
  if (args.length === 1 && (args[0] === "--help" || args[0] === "help")) {
    console.log(USAGE);
    return OK;
  }
  let parsed: Parsed;
  try {
    parsed = parse(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(error.message);
    console.log(USAGE);
    return USAGE_ERROR;
  }
  const verb = parsed.command === "backup"
    ? "back up"
    : parsed.command === "verify"
    ? `verify ${parsed.path}`
    : "restore";
  let dataDir: string;
  // FILES_DIR when set apart from the data directory; else the files are in DATA_DIR/files.
  const filesDir = env.FILES_DIR?.trim() || undefined;
  try {
    dataDir = parsed.dataDir ?? parseConfig({ DATA_DIR: env.DATA_DIR }).dataDir;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`Cannot ${verb}: ${error.problems.join("; ")}`);
    return FAILED;
  }

  const controller = new AbortController();
  let caught: Deno.Signal | null = null;
  const listeners = (["SIGINT", "SIGTERM"] as const).map((signal) => {
    const listener = () => {
      caught ??= signal;
      controller.abort(new DOMException(`interrupted by ${signal}`, "AbortError"));
    };
    Deno.addSignalListener(signal, listener);
    return () => Deno.removeSignalListener(signal, listener);
  });
  const printer = progressPrinter();
  try {
    const options = { onProgress: printer.report, signal: controller.signal };
    if (parsed.command === "backup") await backup(parsed.path, dataDir, filesDir, options);
    else if (parsed.command === "verify") {
      const report = await verifyBackup({ archive: parsed.path, ...options });
      const versions = report.manifest.migrations.map((m) => m.version);
      printer.report({
        kind: "stage",
        text: `ok: ${parsed.path} is a sound backup made ${report.manifest.createdAt} ` +
          `(${report.entryCount} entries, migrations ${versions.join(", ") || "none"})`,
      });
    } else {
      const report = await restoreBackup({
        archive: parsed.path,
        dataDir,
        ...(filesDir === undefined ? {} : { filesDir }),
        force: parsed.force,
        now: new Date(),
        ...options,
      });
      printer.report({
        kind: "stage",
        text:
          `ok: restored ${report.entryCount} entries (${
            formatBytes(report.bytes)
          }) made ${report.manifest.createdAt} into ${report.dataDir}` +
          (report.movedAside ? `; the old data is in ${report.movedAside}` : "") +
          (report.filesMovedAside ? `; the old files are in ${report.filesMovedAside}` : ""),
      });
    }
    printer.end();
    return OK;
  } catch (error) {
    printer.end();
    if (caught !== null) {
      console.error(`Cannot ${verb}: interrupted by ${caught}; nothing was written`);
      return 128 + (caught === "SIGINT" ? 2 : 15);
    }
    const message = error instanceof BackupError
      ? error.message
      : `Cannot ${verb}: ${error instanceof Error ? error.message : String(error)}`;
    console.error(message.replaceAll("\n", " "));
    return FAILED;
  } finally {
    for (const remove of listeners) remove();
  }
}

/**
 * Writes a backup of `dataDir` to `out`: into a work folder beside `out` first (the
 * snapshot and the archive), flushed, then linked into place, so `out` is either whole or
 * absent. A process killed midway leaves only the folder `.<out>.backup-*`.
 */
async function backup(
  out: string,
  dataDir: string,
  filesDir: string | undefined,
  options: { onProgress: (p: Progress) => void; signal: AbortSignal },
): Promise<void> {
  const fail = (why: string) => new BackupError(`Cannot back up: ${why}`);
  try {
    // A backup shares the machine with the server it copies: the server goes first.
    setPriority(BACKUP_NICENESS);
  } catch {
    // Not allowed here: the backup runs at the usual priority.
  }
  if (await exists(out)) throw fail(`${out} already exists: name a new file`);
  const started = performance.now();
  const dir = dirname(resolve(out));
  let work: string;
  try {
    work = await Deno.makeTempDir({ dir, prefix: `.${basename(out)}.backup-` });
  } catch (error) {
    throw fail(`cannot write in ${dir}: ${(error as Error).message}`);
  }
  try {
    const prepared = await prepareBackup({
      dataDir,
      ...(filesDir === undefined ? {} : { filesDir }),
      workDir: work,
      now: new Date(),
      ...options,
    });
    const part = join(work, "archive.part");
    const file = await Deno.open(part, { write: true, createNew: true, mode: 0o600 });
    try {
      let unsynced = 0;
      for await (const chunk of prepared.stream) {
        options.signal.throwIfAborted();
        let written = 0;
        while (written < chunk.length) written += await file.write(chunk.subarray(written));
        unsynced += chunk.length;
        if (unsynced >= SYNC_EVERY_BYTES) {
          await file.syncData();
          unsynced = 0;
        }
      }
      await file.sync();
    } finally {
      file.close();
    }
    const manifest = await prepared.manifest;
    options.signal.throwIfAborted();
    try {
      // A link, unlike a rename, never replaces a file that appeared meanwhile.
      await Deno.link(part, out);
    } catch (error) {
      if (error instanceof Deno.errors.AlreadyExists) throw fail(`${out} appeared meanwhile`);
      throw error;
    }
    syncDir(dir);
    const size = (await Deno.stat(out)).size;
    for (const name of manifest.missingFiles) {
      options.onProgress({
        kind: "stage",
        text: `note: ${name} was deleted after the snapshot was taken: left out`,
      });
    }
    options.onProgress({
      kind: "stage",
      text: `ok: wrote ${out} (${formatBytes(size)}, ${manifest.entries.length} entries) in ${
        ((performance.now() - started) / 1000).toFixed(1)
      } s`,
    });
  } finally {
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

function syncDir(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
