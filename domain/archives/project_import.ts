/**
 * Project import: a new project, owned by the caller, from an archive made by export.
 *
 * Nothing is written outside a private work folder until everything has been checked: the
 * archive's central directory (names, links, sizes), then project.json (format, version,
 * each element against its schema, ids unique, every reference pointing at an element of
 * the archive), then each file's bytes (present, of the listed size, intact, of an allowed
 * type), inflated into the work folder against the `MAX_IMPORT_MB` budget. project.json is
 * read as a stream and split into one file of lines per kind, so memory stays flat however
 * large the project.
 *
 * Then the rows are written in short transactions (`IMPORT_BATCH` rows or `IMPORT_BATCH_MS`
 * each), so that the server answers other requests between them, into a project hidden from
 * every read until one last short transaction shows it whole. If anything fails, what was
 * written is removed again (rows in batches, the bytes moved); what a crash leaves is removed
 * at the next start-up (`removeLeftovers`): all or none, as users see it. See
 * docs/decisions/0004-import-in-batches.md.
 */
import { JSONParser } from "@streamparser/json";
import { join } from "node:path";
import { z } from "zod";
import {
  deleteImportingProject,
  finishImportedProject,
  type ImportLease,
  importLeftoverIds,
  insertImportedActivity,
  insertImportedAttachments,
  insertImportedColumn,
  insertImportedComment,
  insertImportedEvent,
  insertImportedFile,
  insertImportedItem,
  insertImportedMeeting,
  insertImportedMessage,
  insertImportedMilestone,
  insertImportedNote,
  insertImportedProject,
  insertImportedThread,
  isImporting,
  renewImportLease,
  setUploadedTo,
  showImported,
  takeImportLeftover,
  userIdsByEmail,
} from "../../db/archives/project_archive.ts";
import type { Queries, Row, SqlValue } from "../../db/kernel/engine.ts";
import { insertEntry } from "../../db/planning/checklists.ts";
import { deleteProjectRowsWithin, type PurgeBudget } from "../../db/projects/trash.ts";
import { findProject, insertMember } from "../../db/projects/projects.ts";
import { type Actor, normaliseEmail } from "../accounts/accounts.ts";
import { audit, type RequestMeta } from "../accounts/audit.ts";
import type { DomainContext } from "../projects/actions.ts";
import { CHECKLIST_MAX_ENTRIES, CHECKLIST_TEXT_MAX } from "../planning/checklists.ts";
import { DomainError } from "../kernel/errors.ts";
import { allowedType, headMatches } from "../formats/file_types.ts";
import { shortenName } from "../content/files.ts";
import {
  ARCHIVE_FORMAT,
  ARCHIVE_KINDS,
  ARCHIVE_VERSION,
  type ArchiveKind,
  fileEntryName,
  type KindCounts,
  PROJECT_JSON,
  SUBJECT_KINDS,
} from "./project_archive.ts";
import { type Project, toProject } from "../projects/projects.ts";
import { ArchiveError, type InflateBudget, openArchive } from "../formats/zip_archive.ts";

/** What an import reports beside the new project. */
export interface ImportReport {
  /** The number of each resource imported, keyed as in project.json. */
  counts: KindCounts;
  /** Emails in the archive that match no account here (their content is the importer's). */
  unmatchedEmails: string[];
}

/** The archive to import: a file already written to disk (it stays the caller's). */
export interface ArchiveUpload {
  path: string;
  size: number;
}

// ---------------------------------------------------------------------------------------
// Schemas of project.json.

const NUL_MESSAGE = "Cannot contain the NUL character (U+0000)";
const text = (max: number) => z.string().max(max).refine((s) => !s.includes("\0"), NUL_MESSAGE);
const Id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const Timestamp = z.string().regex(
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/,
  "Use an ISO 8601 UTC timestamp",
);
const CalendarDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "Use YYYY-MM-DD");
const Email = z.string().max(254).transform(normaliseEmail).pipe(z.string().min(1));
const Title = text(1000);
const Body = text(1_000_000);
const Tags = z.array(text(100)).max(100);
const Attachments = z.array(z.object({ id: Id })).max(10_000);
const Stamps = { createdAt: Timestamp, updatedAt: Timestamp };

const ProjectSchema = z.object({
  name: z.string().trim().min(1, "Cannot be blank").max(200).pipe(text(200)),
  description: text(10_000).nullable().optional(),
  archivedAt: Timestamp.nullable().optional(),
});

const MemberSchema = z.object({
  email: Email,
  role: z.enum(["owner", "member", "viewer"]),
});

/** An item's checklist entry: as the API takes it (archives before checklists have none). */
const ChecklistEntry = z.object({
  text: z.string().trim().min(1, "Cannot be blank").max(CHECKLIST_TEXT_MAX).pipe(
    text(CHECKLIST_TEXT_MAX),
  ),
  done: z.boolean(),
  ...Stamps,
});

const SubjectType = z.enum(
  Object.keys(SUBJECT_KINDS) as [keyof typeof SUBJECT_KINDS, ...Array<keyof typeof SUBJECT_KINDS>],
);

const ELEMENTS = {
  threads: z.object({
    id: Id,
    author: Email,
    title: Title,
    body: Body,
    category: z.enum(["general", "announcement", "question", "idea"]),
    pinned: z.boolean(),
    attachments: Attachments,
    ...Stamps,
  }),
  comments: z.object({
    id: Id,
    threadId: Id,
    author: Email,
    body: Body,
    attachments: Attachments,
    ...Stamps,
  }),
  notes: z.object({
    id: Id,
    author: Email,
    title: Title,
    body: Body,
    tags: Tags,
    pinned: z.boolean(),
    ...Stamps,
  }),
  chat: z.object({ id: Id, author: Email, text: Body, attachments: Attachments, ...Stamps }),
  columns: z.object({
    id: Id,
    name: Title,
    key: z.enum(["todo", "in_progress", "done"]).nullable(),
    position: z.number().int().min(0),
    ...Stamps,
  }),
  items: z.object({
    id: Id,
    columnId: Id,
    creator: Email,
    title: Title,
    description: Body.nullable(),
    assignee: Email.nullable(),
    priority: z.enum(["low", "normal", "high"]),
    startDate: CalendarDate.nullable(),
    dueDate: CalendarDate.nullable(),
    tags: Tags,
    orderIndex: z.number().int().min(0),
    completed: z.boolean(),
    completedAt: Timestamp.nullable(),
    milestoneId: Id.nullable(),
    attachments: Attachments,
    checklistEntries: z.array(ChecklistEntry).max(CHECKLIST_MAX_ENTRIES).default([]),
    ...Stamps,
  }),
  milestones: z.object({
    id: Id,
    creator: Email,
    title: Title,
    description: Body.nullable(),
    dueDate: CalendarDate.nullable(),
    ...Stamps,
  }),
  events: z.object({
    id: Id,
    creator: Email,
    title: Title,
    description: Body.nullable(),
    startAt: Timestamp,
    endAt: Timestamp,
    allDay: z.boolean(),
    ...Stamps,
  }).refine((e) => e.endAt >= e.startAt, { path: ["endAt"], message: "Ends before it starts" }),
  meetings: z.object({
    id: Id,
    creator: Email,
    title: Title,
    startAt: Timestamp,
    endAt: Timestamp,
    location: text(10_000).nullable(),
    minutes: Body.nullable(),
    invitees: z.array(Email).max(10_000),
    ...Stamps,
  }).refine((m) => m.endAt >= m.startAt, { path: ["endAt"], message: "Ends before it starts" }),
  files: z.object({
    id: Id,
    name: text(1000),
    size: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    source: z.enum(["upload", "attachment"]),
    uploader: Email,
    uploadedTo: z.object({
      type: z.enum(["thread", "comment", "message", "item"]),
      id: Id,
    }).nullable().optional(),
    createdAt: Timestamp,
  }),
  activity: z.object({
    id: Id,
    kind: text(100),
    actor: Email,
    subjectType: z.union([SubjectType, z.literal("project")]),
    subjectId: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    summary: text(10_000),
    createdAt: Timestamp,
  }),
} satisfies Record<ArchiveKind, z.ZodType>;

/** An element of a kind, as validated. */
type Element<K extends ArchiveKind> = z.output<typeof ELEMENTS[K]>;

/**
 * The kinds in the order they are checked and written: every reference points at a kind
 * before it, except a file's `uploadedTo` (set once its subject exists).
 */
const IMPORT_ORDER: ArchiveKind[] = [
  "files",
  "columns",
  "milestones",
  "threads",
  "comments",
  "notes",
  "chat",
  "items",
  "events",
  "meetings",
  "activity",
];

/** The references of an element: [kind, id, field] for each id it names. */
function referencesOf(
  kind: ArchiveKind,
  e: Record<string, unknown>,
): Array<[ArchiveKind, number, string]> {
  const refs: Array<[ArchiveKind, number, string]> = [];
  const attachments = e.attachments as Array<{ id: number }> | undefined;
  attachments?.forEach((a, i) => refs.push(["files", a.id, `attachments.${i}.id`]));
  if (kind === "comments") refs.push(["threads", e.threadId as number, "threadId"]);
  if (kind === "items") {
    refs.push(["columns", e.columnId as number, "columnId"]);
    if (e.milestoneId !== null) refs.push(["milestones", e.milestoneId as number, "milestoneId"]);
  }
  if (kind === "activity" && e.subjectType !== "project") {
    const target = SUBJECT_KINDS[e.subjectType as keyof typeof SUBJECT_KINDS];
    refs.push([target, e.subjectId as number, "subjectId"]);
  }
  return refs;
}

/** The emails an element names. */
function emailsOf(e: Record<string, unknown>): string[] {
  const found: string[] = [];
  for (const key of ["author", "creator", "assignee", "uploader", "actor"]) {
    if (typeof e[key] === "string") found.push(e[key] as string);
  }
  if (Array.isArray(e.invitees)) found.push(...(e.invitees as string[]));
  return found;
}

// ---------------------------------------------------------------------------------------
// Errors.

const MIB = 1024 * 1024;

function refused(message: string, field = "archive"): DomainError {
  return new DomainError("validation", `Cannot import: ${message}`, {
    details: { [field]: message },
  });
}

function tooLarge(maxBytes: number): DomainError {
  return new DomainError(
    "too_large",
    `Cannot import: archives may be at most ${maxBytes / MIB} MiB, inflated or not`,
  );
}

/** The first problem of a failed parse, as a field path and a message. */
function firstIssue(prefix: string, error: z.ZodError): DomainError {
  const issue = error.issues[0]!;
  const path = [prefix, ...issue.path.map(String)].join(".");
  return refused(`${path}: ${issue.message}`, path);
}

// ---------------------------------------------------------------------------------------
// Lines files: one JSON value per line, written while project.json is read.

/** Reads a file of lines synchronously, one line at a time (inside a transaction). */
function* linesOf(path: string): Generator<string> {
  const file = Deno.openSync(path, { read: true });
  const decoder = new TextDecoder();
  const buffer = new Uint8Array(64 * 1024);
  let rest = "";
  try {
    for (;;) {
      const n = file.readSync(buffer);
      if (n === null) break;
      rest += decoder.decode(buffer.subarray(0, n), { stream: true });
      let end: number;
      while ((end = rest.indexOf("\n")) >= 0) {
        yield rest.slice(0, end);
        rest = rest.slice(end + 1);
      }
    }
    rest += decoder.decode();
    if (rest) yield rest;
  } finally {
    file.close();
  }
}

/** What the first reading of project.json finds. */
interface Split {
  format: unknown;
  version: unknown;
  project: unknown;
  members: unknown;
  counts: KindCounts;
}

/** The line file of a kind in the work folder. */
const linesPath = (work: string, kind: ArchiveKind) => join(work, `${kind}.jsonl`);

/**
 * Reads project.json as a stream: the head fields are kept, each element of each kind is
 * written as one line to that kind's file. Throws `refused` when it is not JSON.
 */
async function splitProjectJson(path: string, work: string): Promise<Split> {
  const split: Split = {
    format: undefined,
    version: undefined,
    project: undefined,
    members: undefined,
    counts: Object.fromEntries(ARCHIVE_KINDS.map((k) => [k, 0])) as KindCounts,
  };
  const pending = new Map<ArchiveKind, string[]>(ARCHIVE_KINDS.map((k) => [k, []]));
  const outputs = new Map<ArchiveKind, Deno.FsFile>();
  for (const kind of ARCHIVE_KINDS) {
    outputs.set(kind, await Deno.open(linesPath(work, kind), { write: true, createNew: true }));
  }
  const parser = new JSONParser({
    paths: [
      "$.format",
      "$.version",
      "$.project",
      "$.members",
      ...ARCHIVE_KINDS.map((k) => `$.${k}.*`),
    ],
    keepStack: false,
  });
  const head = split as unknown as Record<string, unknown>;
  parser.onValue = ({ value, key, stack }) => {
    // The head fields sit in the root; elements one level further, in their kind's array.
    if (stack.length === 1) {
      head[String(key)] = value;
      return;
    }
    const kind = stack[1]?.key as ArchiveKind;
    const lines = pending.get(kind);
    if (!lines) return;
    lines.push(JSON.stringify(value));
    split.counts[kind]++;
  };
  const encoder = new TextEncoder();
  const file = await Deno.open(path, { read: true });
  // Parsed a piece at a time between turns of the event loop: 64 KiB is a few milliseconds.
  const buffer = new Uint8Array(64 * 1024);
  try {
    for (;;) {
      const n = await file.read(buffer);
      if (n === null) break;
      try {
        parser.write(buffer.subarray(0, n));
      } catch (error) {
        throw refused(`project.json is not valid JSON (${(error as Error).message})`);
      }
      for (const [kind, lines] of pending) {
        if (lines.length === 0) continue;
        const out = outputs.get(kind)!;
        const bytes = encoder.encode(lines.join("\n") + "\n");
        lines.length = 0;
        let at = 0;
        while (at < bytes.byteLength) at += await out.write(bytes.subarray(at));
      }
    }
    if (!parser.isEnded) {
      try {
        parser.end();
      } catch (error) {
        throw refused(`project.json is not valid JSON (${(error as Error).message})`);
      }
    }
  } finally {
    file.close();
    for (const out of outputs.values()) out.close();
  }
  return split;
}

// ---------------------------------------------------------------------------------------
// Checking.

/** What the checks of the elements found: ids per kind, emails, the files to read. */
interface Checked {
  ids: Map<ArchiveKind, Set<number>>;
  emails: Set<string>;
  files: Array<Element<"files"> & { index: number }>;
}

/**
 * Checks every element of every kind (schema, unique ids, references to elements of the
 * archive), reading the line files in dependency order.
 */
async function checkElements(work: string): Promise<Checked> {
  const checked: Checked = {
    ids: new Map(ARCHIVE_KINDS.map((k) => [k, new Set<number>()])),
    emails: new Set(),
    files: [],
  };
  const columnKeys = new Set<string>();
  let turn = performance.now();
  for (const kind of IMPORT_ORDER) {
    const ids = checked.ids.get(kind)!;
    let index = 0;
    for (const line of linesOf(linesPath(work, kind))) {
      const parsed = ELEMENTS[kind].safeParse(JSON.parse(line));
      if (!parsed.success) throw firstIssue(`${kind}.${index}`, parsed.error);
      const e = parsed.data as Record<string, unknown> & { id: number };
      if (ids.has(e.id)) {
        throw refused(`${kind}.${index}.id: ${e.id} appears twice`, `${kind}.${index}.id`);
      }
      ids.add(e.id);
      for (const [target, id, field] of referencesOf(kind, e)) {
        if (!checked.ids.get(target)!.has(id)) {
          const path = `${kind}.${index}.${field}`;
          throw refused(`${path}: ${target} ${id} is not in the archive`, path);
        }
      }
      if (kind === "columns" && e.key !== null) {
        if (columnKeys.has(e.key as string)) {
          throw refused(`columns.${index}.key: ${e.key} appears twice`, `columns.${index}.key`);
        }
        columnKeys.add(e.key as string);
      }
      for (const email of emailsOf(e)) checked.emails.add(email);
      if (kind === "files") checked.files.push({ ...(e as Element<"files">), index });
      index++;
      // Long kinds give the event loop a turn every few milliseconds, so requests waiting
      // meanwhile are answered (thousands of elements in a row held them for a quarter second).
      if (index % 100 === 0 && performance.now() - turn >= IMPORT_BATCH_MS) {
        await pause();
        turn = performance.now();
      }
    }
  }
  // A file's subject comes after files in the order: checked once every kind is known.
  for (const f of checked.files) {
    if (!f.uploadedTo) continue;
    const target = SUBJECT_KINDS[f.uploadedTo.type];
    if (!checked.ids.get(target)!.has(f.uploadedTo.id)) {
      const path = `files.${f.index}.uploadedTo.id`;
      throw refused(`${path}: ${f.uploadedTo.type} ${f.uploadedTo.id} is not in the archive`, path);
    }
  }
  return checked;
}

/** A file's bytes, inflated into the work folder and checked, with its stored form. */
interface ReadyFile {
  id: number;
  name: string;
  contentType: string;
  ext: string;
  path: string;
}

/**
 * Inflates each listed file's bytes into the work folder: the entry must be there, of the
 * listed size, intact (CRC-32), and of an allowed type whose first bytes agree.
 */
async function inflateFiles(
  archive: Awaited<ReturnType<typeof openArchive>>,
  files: Checked["files"],
  work: string,
  budget: InflateBudget,
): Promise<Map<number, ReadyFile>> {
  const ready = new Map<number, ReadyFile>();
  for (const f of files) {
    const at = `files.${f.index}`;
    // Names are cleaned as uploads' are: no control characters or separators, 255 at most.
    // deno-lint-ignore no-control-regex
    const name = shortenName(f.name.replace(/[\u0000-\u001f\u007f/\\]/g, "_").trim());
    const type = name ? allowedType(name) : null;
    if (!type) {
      throw refused(
        `${at}.name: the type of ${JSON.stringify(f.name)} is not allowed`,
        `${at}.name`,
      );
    }
    const entryName = fileEntryName(f.id, f.name);
    const entry = archive.entries.get(entryName);
    if (!entry || entry.directory) {
      throw refused(`${at}: the bytes of file ${f.id} are missing (no entry ${entryName})`, at);
    }
    if (entry.size !== f.size) {
      throw refused(
        `${at}.size: the bytes of file ${f.id} do not match: ${entry.size} bytes in the ` +
          `archive, ${f.size} in project.json`,
        `${at}.size`,
      );
    }
    const path = join(work, `file-${f.id}`);
    await archive.inflate(entry, path, budget);
    if (!headMatches(type.ext, await headOf(path))) {
      throw refused(`${at}: the content of file ${f.id} does not match its type`, at);
    }
    ready.set(f.id, { id: f.id, name, contentType: type.contentType, ext: `.${type.ext}`, path });
  }
  return ready;
}

/** The first bytes of a file, for checking its type. */
async function headOf(path: string): Promise<Uint8Array> {
  const file = await Deno.open(path, { read: true });
  try {
    const head = new Uint8Array(8192);
    let length = 0;
    while (length < head.byteLength) {
      const n = await file.read(head.subarray(length));
      if (n === null) break;
      length += n;
    }
    return head.subarray(0, length);
  } finally {
    file.close();
  }
}

/** Checks the head of project.json: format, version, the project and its members. */
function checkHead(split: Split) {
  if (split.format !== ARCHIVE_FORMAT) {
    throw refused(
      `this is not a project archive (project.json's format is ${
        JSON.stringify(split.format ?? null)
      }, not ${JSON.stringify(ARCHIVE_FORMAT)})`,
      "format",
    );
  }
  if (typeof split.version !== "number" || !Number.isInteger(split.version) || split.version < 1) {
    throw refused(
      `project.json's version ${JSON.stringify(split.version ?? null)} is not a version`,
      "version",
    );
  }
  if (split.version > ARCHIVE_VERSION) {
    throw refused(
      `the archive is version ${split.version}, made by a newer server; this server reads ` +
        `version ${ARCHIVE_VERSION}`,
      "version",
    );
  }
  const project = ProjectSchema.safeParse(split.project);
  if (!project.success) throw firstIssue("project", project.error);
  const members = z.array(MemberSchema).max(100_000).safeParse(split.members ?? []);
  if (!members.success) throw firstIssue("members", members.error);
  return { project: project.data, members: members.data };
}

// ---------------------------------------------------------------------------------------
// Writing.

/** Everything the batches write from. */
interface Plan {
  actor: Actor;
  /** The request that asked for the import (audited with its last transaction). */
  meta: RequestMeta;
  work: string;
  head: ReturnType<typeof checkHead>;
  files: Map<number, ReadyFile>;
  users: Map<string, number>;
  at: string;
}

/** Rows one write transaction of an import writes at most. */
export const IMPORT_BATCH = 500;
/**
 * Work one transaction may do, by the clock, before it commits and lets requests in (as the
 * trash sweep's; with a fixed test clock only the row limit counts).
 */
export const IMPORT_BATCH_MS = 20;
/**
 * How long an import's hidden project stays held after its importer's last batch: every batch
 * moves the lease on, so it lapses only when the importer stopped (its instance died), and then
 * another instance may remove the project as a leftover. Far longer than any pause between two
 * batches.
 */
export const IMPORT_LEASE_MS = 5 * 60_000;
/**
 * Hidden rows shown per step: each is indexed for search (trigrams of its title and body) as it
 * is shown, so a step is kept small for the batch's clock to be checked often.
 */
const SHOW_STEP = 10;

/** How an import runs its batches. */
export interface ImportOptions {
  /**
   * Awaited between two write transactions, with the number committed so far (default: one
   * turn of the event loop, so that requests waiting meanwhile are answered). Tests hold an
   * import here.
   */
  betweenBatches?: (committed: number) => Promise<void>;
  /** Rows per write transaction at most (default `IMPORT_BATCH`; tests make it small). */
  batchRows?: number;
}

/** Lets other work (requests, group commits) run between two batches. */
const pause = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * Queries that go to the transaction of the batch under way (`use`), and fail between two
 * batches: steps that span many transactions write through it.
 */
function batchQueries(kind: Queries["kind"]): { q: Queries; use: (tx: Queries | null) => void } {
  let current: Queries | null = null;
  const tx = (): Queries => {
    if (!current) throw new Error("Cannot write an import step: no batch transaction is open");
    return current;
  };
  return {
    q: {
      kind,
      get: <T = Row>(text: string, params?: SqlValue[]) => tx().get<T>(text, params),
      all: <T = Row>(text: string, params?: SqlValue[]) => tx().all<T>(text, params),
      run: (text: string, params?: SqlValue[]) => tx().run(text, params),
    },
    use: (queries) => current = queries,
  };
}

/**
 * Runs the steps `start` makes (each writes a few rows through the queries it is given and
 * yields how many) in transactions of at most `pacing.rows` rows or `IMPORT_BATCH_MS`, one
 * `db.transaction` each, which first calls `renew` (the import's lease), awaiting
 * `pacing.between` after each commit; returns the steps' result. When anything fails, the steps
 * are closed (their files too). The steps must await only their queries: they run inside the
 * transactions.
 */
async function inBatches<T>(
  ctx: DomainContext,
  start: (q: Queries) => AsyncGenerator<number, T>,
  pacing: { between: (committed: number) => Promise<void>; rows: number },
  renew: (tx: Queries) => Promise<void>,
): Promise<T> {
  const batch = batchQueries(ctx.db.kind);
  const steps = start(batch.q);
  let committed = 0;
  try {
    for (;;) {
      const began = ctx.clock.now().getTime();
      const result = await ctx.db.transaction(
        async (tx): Promise<{ done: true; value: T } | { done: false }> => {
          await renew(tx);
          batch.use(tx);
          try {
            let rows = 0;
            while (rows < pacing.rows) {
              if (rows > 0 && ctx.clock.now().getTime() - began >= IMPORT_BATCH_MS) break;
              const step = await steps.next();
              if (step.done) return { done: true, value: step.value };
              rows += step.value;
            }
            return { done: false };
          } finally {
            batch.use(null);
          }
        },
      );
      committed++;
      if (result.done) return result.value;
      await pacing.between(committed);
    }
  } finally {
    await steps.return(undefined as T);
  }
}

/**
 * The steps writing every element into the hidden project `projectId`: the members, each
 * element in dependency order, the subjects of attachment uploads, then the hidden rows shown
 * (indexed for search) oldest first, then each file's bytes moved into place. Yields the rows
 * each step wrote; returns the counts written.
 */
async function* writeSteps(
  ctx: DomainContext,
  plan: Plan,
  projectId: number,
  q: Queries,
): AsyncGenerator<number, KindCounts> {
  const { actor, head, users, at } = plan;
  const members = new Set<number>([actor.id]);
  await insertMember(q, { projectId, userId: actor.id, role: "owner", at });
  yield 1;
  for (const m of head.members) {
    const userId = users.get(m.email);
    if (userId === undefined || members.has(userId)) continue;
    await insertMember(q, { projectId, userId, role: m.role, at });
    members.add(userId);
    yield 1;
  }
  const ids = new Map<ArchiveKind, Map<number, number>>(
    ARCHIVE_KINDS.map((k) => [k, new Map<number, number>()]),
  );
  const newId = (kind: ArchiveKind, id: number) => {
    const found = ids.get(kind)!.get(id);
    if (found === undefined) throw refused(`${kind} ${id} is not in the archive`);
    return found;
  };
  const userOf = (email: string) => users.get(email) ?? actor.id;
  const counts = Object.fromEntries(ARCHIVE_KINDS.map((k) => [k, 0])) as KindCounts;
  const moves: Array<[string, string]> = [];
  const subjects: Array<[number, { type: string; id: number }]> = [];
  const attach = (type: string, subjectId: number, attachments: Array<{ id: number }>) =>
    insertImportedAttachments(q, {
      projectId,
      subjectType: type,
      subjectId,
      fileIds: attachments.map((a) => newId("files", a.id)),
      at,
    });
  const write: { [K in ArchiveKind]: (e: Element<K>) => Promise<number> } = {
    files: async (e) => {
      const file = plan.files.get(e.id)!;
      const storedName = ctx.files.newStoredName(projectId, file.ext);
      const id = await insertImportedFile(q, {
        projectId,
        uploaderId: userOf(e.uploader),
        name: file.name,
        storedName,
        contentType: file.contentType,
        size: e.size,
        source: e.source,
        createdAt: e.createdAt,
      });
      moves.push([file.path, storedName]);
      if (e.source === "attachment" && e.uploadedTo) subjects.push([id, e.uploadedTo]);
      return id;
    },
    columns: (e) => insertImportedColumn(q, { projectId, ...e }),
    milestones: (e) =>
      insertImportedMilestone(q, { projectId, creatorId: userOf(e.creator), ...e }),
    threads: async (e) => {
      const id = await insertImportedThread(q, { projectId, authorId: userOf(e.author), ...e });
      await attach("thread", id, e.attachments);
      return id;
    },
    comments: async (e) => {
      const id = await insertImportedComment(q, {
        projectId,
        threadId: newId("threads", e.threadId),
        authorId: userOf(e.author),
        body: e.body,
        createdAt: e.createdAt,
        updatedAt: e.updatedAt,
      });
      await attach("comment", id, e.attachments);
      return id;
    },
    notes: (e) => insertImportedNote(q, { projectId, authorId: userOf(e.author), ...e }),
    chat: async (e) => {
      const id = await insertImportedMessage(q, { projectId, authorId: userOf(e.author), ...e });
      await attach("message", id, e.attachments);
      return id;
    },
    items: async (e) => {
      const assigneeId = e.assignee === null ? null : users.get(e.assignee) ?? null;
      const id = await insertImportedItem(q, {
        ...e,
        projectId,
        columnId: newId("columns", e.columnId),
        creatorId: userOf(e.creator),
        assigneeId,
        milestoneId: e.milestoneId === null ? null : newId("milestones", e.milestoneId),
      });
      await attach("item", id, e.attachments);
      for (const [position, entry] of e.checklistEntries.entries()) {
        await insertEntry(q, { ...entry, projectId, itemId: id, position });
      }
      return id;
    },
    events: (e) => insertImportedEvent(q, { projectId, creatorId: userOf(e.creator), ...e }),
    meetings: (e) =>
      insertImportedMeeting(q, {
        ...e,
        projectId,
        creatorId: userOf(e.creator),
        // Invitees are members (as on create): others are left out.
        inviteeIds: e.invitees.map((email) => users.get(email))
          .filter((id): id is number => id !== undefined && members.has(id)),
      }),
    activity: async (e) => {
      await insertImportedActivity(q, {
        projectId,
        kind: e.kind,
        actorId: userOf(e.actor),
        subjectType: e.subjectType,
        subjectId: e.subjectType === "project"
          ? projectId
          : newId(SUBJECT_KINDS[e.subjectType], e.subjectId),
        summary: e.summary,
        createdAt: e.createdAt,
      });
      return 0;
    },
  };
  for (const kind of IMPORT_ORDER) {
    const schema = ELEMENTS[kind] as z.ZodType;
    const writeOne = write[kind] as (e: unknown) => Promise<number>;
    for (const line of linesOf(linesPath(plan.work, kind))) {
      const e = schema.parse(JSON.parse(line)) as { id: number };
      ids.get(kind)!.set(e.id, await writeOne(e));
      counts[kind]++;
      yield 1;
    }
  }
  for (const [fileId, to] of subjects) {
    const kind = SUBJECT_KINDS[to.type as keyof typeof SUBJECT_KINDS];
    await setUploadedTo(q, fileId, { type: to.type, id: newId(kind, to.id) });
    yield 1;
  }
  for (let shown; (shown = await showImported(q, projectId, SHOW_STEP)) > 0;) yield shown;
  // Last: the bytes go into place only when every row is written.
  for (const [path, storedName] of moves) {
    ctx.files.moveIntoPlaceSync(path, storedName);
    yield 1;
  }
  return counts;
}

/** The project import operations. */
export function createProjectImport(
  ctx: DomainContext,
  options: { maxImportBytes: number } & ImportOptions,
) {
  const max = options.maxImportBytes;
  const { db } = ctx;
  const pacing = {
    between: options.betweenBatches ?? pause,
    rows: options.batchRows ?? IMPORT_BATCH,
  };
  /** The hidden projects of the imports running in this process. */
  const running = new Set<number>();
  /** The removal of leftovers under way in this process, if any. */
  let removing: Promise<number> | null = null;
  /** A lease of this instance's, taken or renewed now. */
  const lease = (): ImportLease => ({
    owner: ctx.presence.id(),
    until: new Date(ctx.clock.now().getTime() + IMPORT_LEASE_MS).toISOString(),
  });
  /**
   * Moves this instance's lease of `projectId` on, inside a batch's transaction; throws when
   * it lost it (it stalled past the lease, and another instance took the project over).
   */
  const renew = (projectId: number) => async (tx: Queries) => {
    if (!await renewImportLease(tx, projectId, lease())) {
      throw new Error(`Cannot go on with project ${projectId}: another instance took it over`);
    }
  };

  /** The budget of one removal transaction: the row limit, and the time limit by the clock. */
  function budget(): PurgeBudget {
    const start = ctx.clock.now().getTime();
    return {
      limit: pacing.rows,
      more: () => ctx.clock.now().getTime() - start < IMPORT_BATCH_MS,
    };
  }

  /**
   * Removes an unfinished imported project: its rows in batches, its stored bytes, then its
   * own row (last, so that a crash on the way leaves it for the next start-up).
   */
  async function removeUnfinished(projectId: number): Promise<void> {
    for (;;) {
      const rowsLeft = await db.transaction(async (tx) => {
        if (!await isImporting(tx, projectId)) return false;
        await renew(projectId)(tx);
        return await deleteProjectRowsWithin(tx, projectId, budget());
      });
      if (!rowsLeft) break;
      await pause();
    }
    if (!await isImporting(db, projectId)) return;
    await ctx.files.removeProject(projectId);
    await db.transaction((tx) => deleteImportingProject(tx, projectId));
  }

  /**
   * Writes the project and every element in short transactions into a project hidden until
   * the last one, so the server answers other requests meanwhile; on failure everything
   * written is removed again (the rows in batches, the bytes moved). Returns the project's
   * id and the counts written.
   */
  async function writeAll(plan: Plan): Promise<{ projectId: number; counts: KindCounts }> {
    const { head, actor, at } = plan;
    const projectId = await db.transaction((tx) =>
      insertImportedProject(tx, {
        name: head.project.name,
        description: head.project.description ?? "",
        archivedAt: head.project.archivedAt ?? null,
        createdBy: actor.id,
        at,
        lease: lease(),
      })
    );
    running.add(projectId);
    try {
      const counts = await inBatches(
        ctx,
        (q) => writeSteps(ctx, plan, projectId, q),
        pacing,
        renew(projectId),
      );
      // The one moment the project appears, whole: one short statement, audited with it.
      const finished = await db.transaction(async (tx) => {
        if (!await finishImportedProject(tx, projectId)) return false;
        await audit(tx, plan.meta, ctx.clock.now().toISOString(), {
          action: "project.imported",
          actorId: actor.id,
          target: { type: "project", id: projectId },
          details: { name: head.project.name },
        });
        return true;
      });
      if (!finished) {
        throw new Error(`Cannot import: project ${projectId} was removed while being imported`);
      }
      return { projectId, counts };
    } catch (error) {
      await removeUnfinished(projectId).catch(() => {
        // Left hidden: the next start-up removes it (removeLeftovers).
      });
      if (error instanceof DomainError) throw error;
      // A rule of the schema the checks above did not foresee: still the archive's fault.
      if (error instanceof Error && /constraint failed/i.test(error.message)) {
        throw refused(`the archive breaks a rule of the database (${error.message})`);
      }
      throw error;
    } finally {
      running.delete(projectId);
    }
  }

  /**
   * Removes the hidden projects of imports a crash (or a failed clean-up) left unfinished, with
   * their rows and stored bytes, in short batches. An import running here is left alone, and so
   * is one whose lease another instance still holds (it is writing it, or removing it). A call
   * while one runs joins it. Returns how many it removed.
   */
  function removeLeftovers(): Promise<number> {
    removing ??= (async () => {
      let removed = 0;
      for (const projectId of await importLeftoverIds(db, ctx.clock.now().toISOString())) {
        if (running.has(projectId)) continue;
        const now = ctx.clock.now().toISOString();
        if (!await db.transaction((tx) => takeImportLeftover(tx, projectId, now, lease()))) {
          continue;
        }
        await removeUnfinished(projectId);
        removed++;
      }
      return removed;
    })().finally(() => removing = null);
    return removing;
  }

  return {
    /** Imports an archive as a new project owned by `actor`; all or none. */
    async import(
      actor: Actor,
      archive: ArchiveUpload,
      meta: RequestMeta,
    ): Promise<{ project: Project; report: ImportReport }> {
      if (archive.size > max) throw tooLarge(max);
      const work = await ctx.files.makeWork();
      let opened: Awaited<ReturnType<typeof openArchive>> | null = null;
      try {
        try {
          opened = await openArchive(archive.path, max);
        } catch (error) {
          throw archiveRefusal(error, max);
        }
        const entry = opened.entries.get(PROJECT_JSON);
        if (!entry || entry.directory) {
          throw refused("this is not a project archive (it holds no project.json)");
        }
        const budget: InflateBudget = { remaining: max, total: max };
        const jsonPath = join(work, PROJECT_JSON);
        try {
          await opened.inflate(entry, jsonPath, budget);
        } catch (error) {
          throw archiveRefusal(error, max);
        }
        const split = await splitProjectJson(jsonPath, work);
        await Deno.remove(jsonPath);
        const head = checkHead(split);
        const checked = await checkElements(work);
        let files: Map<number, ReadyFile>;
        try {
          files = await inflateFiles(opened, checked.files, work, budget);
        } catch (error) {
          throw archiveRefusal(error, max);
        }
        for (const m of head.members) checked.emails.add(m.email);
        const emails = [...checked.emails];
        const users = await userIdsByEmail(db, emails);
        const { projectId, counts } = await writeAll({
          actor,
          meta,
          work,
          head,
          files,
          users,
          at: ctx.clock.now().toISOString(),
        });
        const project = (await findProject(db, projectId))!;
        return {
          project: toProject(project, "owner"),
          report: { counts, unmatchedEmails: emails.filter((e) => !users.has(e)).sort() },
        };
      } finally {
        await opened?.close();
        await ctx.files.removeWork(work);
      }
    },

    /** Removes the leftovers of unfinished imports now (see `removeLeftovers` above). */
    removeLeftovers,

    /**
     * Removes leftovers now and then every `intervalMs` (an hour) until stopped: at start-up
     * those a crash left, later those of another instance that stopped (once their lease runs
     * out). How many each run removed, and its failures, go to the callbacks; a failed run is
     * tried again at the next interval. `stop` waits for a run under way.
     */
    startLeftoverRemoval(
      schedule: {
        intervalMs?: number;
        onRemoved?: (removed: number) => void;
        onError?: (error: unknown) => void;
        /** Only now, not hourly after (SQLite with several isolates: see main.ts). */
        once?: boolean;
      } = {},
    ): { stop(): Promise<void> } {
      const run = () => {
        // A tick while a removal still runs would only join it and report it twice.
        if (removing) return;
        removeLeftovers().then(
          (removed) => schedule.onRemoved?.(removed),
          (error) => schedule.onError?.(error),
        );
      };
      run();
      const timer = schedule.once
        ? undefined
        : setInterval(run, schedule.intervalMs ?? LEFTOVER_INTERVAL_MS);
      return {
        async stop() {
          clearInterval(timer);
          await removing?.catch(() => {});
        },
      };
    },
  };
}

/** How often an instance looks for leftovers of imports after its start: hourly. */
export const LEFTOVER_INTERVAL_MS = 3_600_000;

/** A domain error for a problem of the archive itself (other errors pass unchanged). */
function archiveRefusal(error: unknown, max: number): unknown {
  if (!(error instanceof ArchiveError)) return error;
  if (error.problem === "too_large") return tooLarge(max);
  return refused(error.message);
}

/** The project import operations' type. */
export type ProjectImports = ReturnType<typeof createProjectImport>;
