/**
 * The project archive format, shared by export and import: `project.json` (format name,
 * version, the project, its members and every resource kind, users named by email),
 * `files/<fileId>/<name>` for each live file, and Markdown copies of the board and notes.
 *
 * Adding a resource kind: a key in `ARCHIVE_KINDS` (its place in project.json), a paged read
 * in `db/archives/project_archive.ts`, its archive shape in `project_export.ts` (`EXPORTS`), and its
 * schema and insert in `project_import.ts` (`IMPORTS`, in dependency order).
 */

/** The `format` of project.json. */
export const ARCHIVE_FORMAT = "collab-project";
/** The `version` this server writes, and the newest it reads. */
export const ARCHIVE_VERSION = 1;
/** The name of the JSON document inside the archive. */
export const PROJECT_JSON = "project.json";

/** The resource kinds, as keyed in project.json (and in the import report), in its order. */
export const ARCHIVE_KINDS = [
  "threads",
  "comments",
  "notes",
  "chat",
  "columns",
  "items",
  "milestones",
  "events",
  "meetings",
  "files",
  "activity",
] as const;

/** A resource kind of the archive. */
export type ArchiveKind = typeof ARCHIVE_KINDS[number];

/** Counts per kind. */
export type KindCounts = Record<ArchiveKind, number>;

/** The subject types activity entries and attachments name, and the kind holding each. */
export const SUBJECT_KINDS = {
  thread: "threads",
  comment: "comments",
  note: "notes",
  message: "chat",
  item: "items",
  file: "files",
  event: "events",
  milestone: "milestones",
  meeting: "meetings",
} as const satisfies Record<string, ArchiveKind>;

/** A subject type whose rows the archive holds. */
export type ArchiveSubjectType = keyof typeof SUBJECT_KINDS;

/**
 * A file's name as one path segment: no separators, no control characters, never `.` or
 * `..` (stored names are already clean; this keeps the archive safe whatever they hold).
 */
export function nameSegment(name: string): string {
  // deno-lint-ignore no-control-regex
  const clean = name.replace(/[\u0000-\u001f\u007f/\\]/g, "_");
  return clean === "" || clean === "." || clean === ".." ? "_" : clean;
}

/** The archive entry holding a file's bytes. */
export function fileEntryName(fileId: number, name: string): string {
  return `files/${fileId}/${nameSegment(name)}`;
}

/** A short readable slug of a title (letters and digits of any script, hyphens). */
export function slug(title: string): string {
  const words = title.normalize("NFKC").toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "-")
    .replace(/^-+|-+$/g, "");
  const cut = [...words].slice(0, 50).join("").replace(/-+$/, "");
  return cut || "untitled";
}

/** The Markdown copy of a thread (with its comments). */
export function threadEntryName(threadId: number, title: string): string {
  return `board/${threadId}-${slug(title)}.md`;
}

/** The Markdown copy of a note. */
export function noteEntryName(noteId: number, title: string): string {
  return `notes/${noteId}-${slug(title)}.md`;
}

/** The archive's file name: `<project name>-<YYYY-MM-DD>.zip`. */
export function archiveFileName(projectName: string, at: Date): string {
  return `${nameSegment(projectName)}-${at.toISOString().slice(0, 10)}.zip`;
}
