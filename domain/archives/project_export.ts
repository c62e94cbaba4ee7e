/**
 * Project export: a zip archive streamed as it is read. Rows come in pages from a snapshot
 * (one consistent view of the project however long the download takes), project.json is
 * written element by element, files are read from disk in chunks: memory stays flat for a
 * project of any size.
 *
 * The snapshot is not an engine transaction: those must await only their own queries and hold
 * the writer, while an export waits on its reader between pages for as long as the download
 * takes. It is a read-only view of its own (`Engine.snapshot`) that holds no writer.
 */
import {
  type ArchiveFileRow,
  fileFromRow,
  type PagedKind,
  type RawRow,
  readAttachments,
  readChecklists,
  readMembers,
  readPage,
  readProject,
  readThreadComments,
} from "../../db/archives/project_archive.ts";
import type { Queries, Snapshot } from "../../db/kernel/engine.ts";
import { projectAccess, requireOwner } from "../accounts/access.ts";
import type { Actor } from "../accounts/accounts.ts";
import { audit, type RequestMeta } from "../accounts/audit.ts";
import type { DomainContext } from "../projects/actions.ts";
import { DomainError } from "../kernel/errors.ts";
import { garbagePacer } from "../kernel/garbage.ts";
import {
  ARCHIVE_FORMAT,
  ARCHIVE_KINDS,
  ARCHIVE_VERSION,
  archiveFileName,
  type ArchiveKind,
  fileEntryName,
  noteEntryName,
  PROJECT_JSON,
  threadEntryName,
} from "./project_archive.ts";
import { type ZipSink, zipStream } from "../formats/zip_archive.ts";

/**
 * Rows read per query. A page of project.json becomes one string: at 500 rows those strings
 * were large objects that wait for a full collection, and 30,000 to-dos peaked 31 MiB above
 * idle; at 50, 17 MiB (bench/archive_bench.ts).
 */
const PAGE_ROWS = 50;
/** File bytes are read in pieces of this size (see `fileChunks`). */
export const FILE_PIECE_BYTES = 256 * 1024;
/** After this many bytes of file pieces, a young collection frees the ones already sent. */
export const COLLECT_EVERY_BYTES = 8 * 1024 * 1024;

/** A started export: the archive's file name and its bytes, produced as they are read. */
export interface ProjectExport {
  fileName: string;
  body: ReadableStream<Uint8Array>;
}

/** The attachable kinds, with the subject type their attachments are linked under. */
const ATTACHABLE: Partial<Record<ArchiveKind, "thread" | "comment" | "message" | "item">> = {
  threads: "thread",
  comments: "comment",
  chat: "message",
  items: "item",
};

/** The pages of a kind's live rows, read as they are asked for. */
async function* pages(
  r: Queries,
  kind: PagedKind,
  projectId: number,
): AsyncGenerator<RawRow[]> {
  let afterId = 0;
  for (;;) {
    const rows = await readPage(r, kind, { projectId, afterId, limit: PAGE_ROWS });
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < PAGE_ROWS) return;
    afterId = rows[rows.length - 1]!.id as number;
  }
}

/** A file as the archive shows it: the API's file, the uploader's email, its subject. */
function fileView(f: ArchiveFileRow) {
  return {
    id: f.id,
    projectId: f.projectId,
    name: f.name,
    contentType: f.contentType,
    size: f.size,
    source: f.source,
    uploader: f.uploaderEmail,
    createdAt: f.createdAt,
    downloadUrl: `/api/files/${f.id}/download`,
    uploadedTo: f.uploadedTo,
  };
}

const bool = (v: unknown) => v === 1;
const attached = (a: Map<number, ArchiveFileRow[]>, r: RawRow) =>
  (a.get(r.id as number) ?? []).map(fileView);
const tags = (v: unknown) => JSON.parse(v as string) as string[];
/** An item's checklist entries as the archive holds them, in order (no ids: nothing names one). */
const entries = (c: Map<number, RawRow[]>, r: RawRow) =>
  (c.get(r.id as number) ?? []).map((e) => ({
    text: e.text,
    done: bool(e.done),
    createdAt: e.created_at,
    updatedAt: e.updated_at,
  }));

/**
 * Each kind's element of project.json: the resource as the API shows it, with users named
 * by email (`author`, `creator`, `assignee`, `uploader`, `actor`, `invitees`). An item
 * also holds its checklist's entries (`checklistEntries`).
 */
const EXPORTS: Record<
  ArchiveKind,
  (
    row: RawRow,
    attachments: Map<number, ArchiveFileRow[]>,
    checklists: Map<number, RawRow[]>,
  ) => unknown
> = {
  threads: (r, a) => ({
    id: r.id,
    projectId: r.project_id,
    author: r.author_email,
    title: r.title,
    body: r.body,
    category: r.category,
    pinned: bool(r.pinned),
    commentCount: r.comment_count,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    attachments: attached(a, r),
  }),
  comments: (r, a) => ({
    id: r.id,
    projectId: r.project_id,
    threadId: r.thread_id,
    author: r.author_email,
    body: r.body,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    attachments: attached(a, r),
  }),
  notes: (r) => ({
    id: r.id,
    projectId: r.project_id,
    author: r.author_email,
    title: r.title,
    body: r.body,
    tags: tags(r.tags),
    pinned: bool(r.pinned),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }),
  chat: (r, a) => ({
    id: r.id,
    projectId: r.project_id,
    author: r.author_email,
    text: r.text,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    attachments: attached(a, r),
  }),
  columns: (r) => ({
    id: r.id,
    projectId: r.project_id,
    name: r.name,
    key: r.key,
    position: r.position,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }),
  items: (r, a, c) => {
    const checklistEntries = entries(c, r);
    return {
      id: r.id,
      projectId: r.project_id,
      columnId: r.column_id,
      creator: r.creator_email,
      title: r.title,
      description: r.description,
      assignee: r.assignee_email,
      priority: r.priority,
      startDate: r.start_date,
      dueDate: r.due_date,
      tags: tags(r.tags),
      orderIndex: r.order_index,
      completed: bool(r.completed),
      completedAt: r.completed_at,
      milestoneId: r.milestone_id,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
      attachments: attached(a, r),
      checklist: {
        done: checklistEntries.filter((e) => e.done).length,
        total: checklistEntries.length,
      },
      checklistEntries,
    };
  },
  milestones: (r) => ({
    id: r.id,
    projectId: r.project_id,
    creator: r.creator_email,
    title: r.title,
    description: r.description,
    dueDate: r.due_date,
    progress: r.progress,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }),
  events: (r) => ({
    id: r.id,
    projectId: r.project_id,
    creator: r.creator_email,
    title: r.title,
    description: r.description,
    startAt: r.start_at,
    endAt: r.end_at,
    allDay: bool(r.all_day),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }),
  meetings: (r) => ({
    id: r.id,
    projectId: r.project_id,
    creator: r.creator_email,
    title: r.title,
    startAt: r.start_at,
    endAt: r.end_at,
    location: r.location,
    minutes: r.minutes,
    invitees: JSON.parse(r.invitee_emails as string) as string[],
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }),
  files: (r) => fileView(fileFromRow(r)),
  activity: (r) => ({
    id: r.id,
    projectId: r.project_id,
    kind: r.kind,
    actor: r.actor_email,
    subjectType: r.subject_type,
    subjectId: r.subject_id,
    summary: r.summary,
    createdAt: r.created_at,
  }),
};

/** project.json, piece by piece: one page of elements per piece. */
async function* projectJson(
  r: Queries,
  projectId: number,
  exportedAt: string,
): AsyncGenerator<string> {
  const project = await readProject(r, projectId);
  if (!project) throw new DomainError("not_found", "No such project");
  const head = {
    format: ARCHIVE_FORMAT,
    version: ARCHIVE_VERSION,
    exportedAt,
    project: {
      id: project.id,
      name: project.name,
      description: project.description,
      archived: project.archivedAt !== null,
      archivedAt: project.archivedAt,
      createdBy: project.createdByEmail,
      createdAt: project.createdAt,
      updatedAt: project.updatedAt,
    },
    members: await readMembers(r, projectId),
  };
  const text = JSON.stringify(head, null, 1);
  yield text.slice(0, text.lastIndexOf("}")).trimEnd();
  for (const kind of ARCHIVE_KINDS) {
    yield `,\n "${kind}": [`;
    let first = true;
    const subject = ATTACHABLE[kind];
    for await (const rows of pages(r, kind, projectId)) {
      const ids = rows.map((row) => row.id as number);
      const attachments = subject
        ? await readAttachments(r, subject, ids)
        : new Map<number, ArchiveFileRow[]>();
      const checklists = kind === "items"
        ? await readChecklists(r, ids)
        : new Map<number, RawRow[]>();
      const parts = rows.map((row) => JSON.stringify(EXPORTS[kind](row, attachments, checklists)));
      yield (first ? "\n  " : ",\n  ") + parts.join(",\n  ");
      first = false;
    }
    yield first ? "]" : "\n ]";
  }
  yield "\n}\n";
}

/** A Markdown line listing attachments as links into `files/`, or nothing. */
function attachmentLine(files: ArchiveFileRow[]): string {
  if (files.length === 0) return "";
  const links = files.map((f) =>
    `[${f.name.replace(/[[\]]/g, "\\$&")}](../${encodeURI(fileEntryName(f.id, f.name))})`
  );
  return `\nAttachments: ${links.join(", ")}\n`;
}

/** A thread and its comments as Markdown, a page of comments at a time. */
async function* threadMarkdown(r: Queries, thread: RawRow): AsyncGenerator<string> {
  const id = thread.id as number;
  const files = (await readAttachments(r, "thread", [id])).get(id) ?? [];
  yield `# ${thread.title}\n\n` +
    `${thread.category}${bool(thread.pinned) ? ", pinned" : ""} · ${thread.author_email} · ` +
    `${thread.created_at}\n${attachmentLine(files)}\n${thread.body}\n`;
  let afterId = 0;
  for (;;) {
    const rows = await readThreadComments(r, { threadId: id, afterId, limit: PAGE_ROWS });
    if (rows.length === 0) return;
    const attachments = await readAttachments(r, "comment", rows.map((c) => c.id as number));
    let text = "";
    for (const c of rows) {
      text += `\n---\n\n**${c.author_email}** · ${c.created_at}\n` +
        `${attachmentLine(attachments.get(c.id as number) ?? [])}\n${c.body}\n`;
    }
    yield text;
    afterId = rows[rows.length - 1]!.id as number;
  }
}

/** A note as Markdown. */
function noteMarkdown(note: RawRow): string {
  const noteTags = tags(note.tags);
  return `# ${note.title}\n\n` +
    `${note.author_email} · ${note.updated_at}` +
    `${noteTags.length ? ` · tags: ${noteTags.join(", ")}` : ""}` +
    `${bool(note.pinned) ? " · pinned" : ""}\n\n${note.body}\n`;
}

/**
 * A file's bytes in pieces of `FILE_PIECE_BYTES`. Each piece is a new buffer (the response
 * holds it until it is sent), so the pieces sent are garbage, and `sent` (a `garbagePacer`)
 * has them collected every few MiB. Pieces of 16 KiB kept that garbage small without it but
 * cost a read and a trip through the streams per 16 KiB: 1 GiB took 3.1 s against 1.0-1.4 s
 * at 256 KiB; at 256 KiB without the collections the export peaked about 80 MiB above idle,
 * with them about 20 (docs/decisions/0007-export-file-pieces.md).
 */
export function fileChunks(
  file: Deno.FsFile,
  sent: (bytes: number) => void,
  pieceBytes = FILE_PIECE_BYTES,
): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const buffer = new Uint8Array(pieceBytes);
      const n = await file.read(buffer);
      if (n === null) return controller.close();
      controller.enqueue(buffer.subarray(0, n));
      sent(n);
    },
  }, { highWaterMark: 0 });
}

/** UTF-8 bytes of the pieces, each produced only when the reader asks for more. */
function textStream(pieces: AsyncIterable<string>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const iterator = pieces[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await iterator.return?.();
    },
  }, { highWaterMark: 0 });
}

/**
 * The project export operations. An export reads from a snapshot of the database
 * (`ctx.db.snapshot()`), kept open while the archive is read.
 */
export function createProjectExport(ctx: DomainContext) {
  /** Checks that every live file's bytes are on disk (before a byte is sent). */
  async function checkBytes(r: Queries, projectId: number): Promise<void> {
    for await (const rows of pages(r, "files", projectId)) {
      for (const f of rows.map(fileFromRow)) {
        try {
          await Deno.stat(ctx.files.path(f.storedName));
        } catch (error) {
          if (!(error instanceof Deno.errors.NotFound)) throw error;
          throw new DomainError(
            "conflict",
            `Cannot export: the bytes of file ${f.id} (${f.name}) are missing`,
          );
        }
      }
    }
  }

  async function produce(sink: ZipSink, r: Snapshot, projectId: number, at: Date) {
    const exportedAt = at.toISOString();
    await sink.add(PROJECT_JSON, textStream(projectJson(r, projectId, exportedAt)), {
      store: false,
      modified: at,
    });
    for await (const rows of pages(r, "threads", projectId)) {
      for (const thread of rows) {
        const name = threadEntryName(thread.id as number, thread.title as string);
        const text = (await Array.fromAsync(threadMarkdown(r, thread))).join("");
        await sink.addText(name, text, new Date(thread.updated_at as string));
      }
    }
    for await (const rows of pages(r, "notes", projectId)) {
      for (const note of rows) {
        const name = noteEntryName(note.id as number, note.title as string);
        await sink.addText(name, noteMarkdown(note), new Date(note.updated_at as string));
      }
    }
    const sent = garbagePacer(COLLECT_EVERY_BYTES);
    for await (const rows of pages(r, "files", projectId)) {
      for (const f of rows.map(fileFromRow)) {
        const handle = await ctx.files.open(f.storedName);
        if (!handle) throw new Error(`Cannot export: the bytes of file ${f.id} are gone`);
        try {
          // Stored as they are: most allowed types are compressed already, and the copy
          // runs at disk speed.
          await sink.add(fileEntryName(f.id, f.name), fileChunks(handle, sent), {
            store: true,
            modified: new Date(f.createdAt),
          });
        } finally {
          try {
            handle.close();
          } catch {
            // closed when its stream ended
          }
        }
      }
    }
  }

  return {
    /**
     * Starts exporting a project (its owners and system admins, archived or not): the
     * archive's name and a stream producing it as it is read. The export is audited when it
     * starts (the stream is no transaction): once the snapshot is taken and checked, in a
     * transaction that checks the caller's right again. An export refused writes no row; one
     * whose download is cut short keeps its row.
     */
    async start(actor: Actor, projectId: number, meta: RequestMeta): Promise<ProjectExport> {
      requireOwner(await projectAccess(ctx.db, actor, projectId), { evenArchived: true });
      const snapshot = await ctx.db.snapshot();
      let project;
      try {
        project = await readProject(snapshot, projectId);
        if (!project) throw new DomainError("not_found", "No such project");
        await checkBytes(snapshot, projectId);
        await ctx.db.transaction(async (tx) => {
          requireOwner(await projectAccess(tx, actor, projectId), { evenArchived: true });
          await audit(tx, meta, ctx.clock.now().toISOString(), {
            action: "project.exported",
            actorId: actor.id,
            target: { type: "project", id: projectId },
            details: { name: project!.name },
          });
        });
      } catch (error) {
        await snapshot.close();
        throw error;
      }
      const at = ctx.clock.now();
      const body = zipStream(
        (sink) => produce(sink, snapshot, projectId, at),
        () => void snapshot.close(),
      );
      return { fileName: archiveFileName(project.name, at), body };
    },
  };
}

/** The project export operations' type. */
export type ProjectExports = ReturnType<typeof createProjectExport>;
