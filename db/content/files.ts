/** Storage of file records and attachment links (the bytes live in `file_store.ts`). */
import { dialect } from "../kernel/dialect.ts";
import type { Queries } from "../kernel/engine.ts";
import { type AttachableType, type Deletion, subjectAlive } from "../kernel/subjects.ts";

export type { AttachableType };

/** A stored file record. */
export interface FileRow {
  id: number;
  projectId: number;
  uploaderId: number;
  name: string;
  storedName: string;
  contentType: string;
  size: number;
  source: "upload" | "attachment";
  /** The subject an attachment upload was uploaded to (null for uploads to the files area). */
  uploadedTo: { type: AttachableType; id: number } | null;
  createdAt: string;
}

type RawFile = {
  id: number;
  project_id: number;
  uploader_id: number;
  name: string;
  stored_name: string;
  content_type: string;
  size: number;
  source: "upload" | "attachment";
  uploaded_to_type: AttachableType | null;
  uploaded_to_id: number | null;
  created_at: string;
};

const COLUMNS = "f.id, f.project_id, f.uploader_id, f.name, f.stored_name, f.content_type, " +
  "f.size, f.source, f.uploaded_to_type, f.uploaded_to_id, f.created_at";

function toFile(r: RawFile): FileRow {
  return {
    id: r.id,
    projectId: r.project_id,
    uploaderId: r.uploader_id,
    name: r.name,
    storedName: r.stored_name,
    contentType: r.content_type,
    size: r.size,
    source: r.source,
    uploadedTo: r.uploaded_to_type !== null && r.uploaded_to_id !== null
      ? { type: r.uploaded_to_type, id: r.uploaded_to_id }
      : null,
    createdAt: r.created_at,
  };
}

/** Records a stored file. */
export async function insertFile(q: Queries, f: Omit<FileRow, "id">): Promise<FileRow> {
  const { id } = (await q.get<{ id: number }>(
    `INSERT INTO files (project_id, uploader_id, name, stored_name, content_type, size, source,
       uploaded_to_type, uploaded_to_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    [
      f.projectId,
      f.uploaderId,
      f.name,
      f.storedName,
      f.contentType,
      f.size,
      f.source,
      f.uploadedTo?.type ?? null,
      f.uploadedTo?.id ?? null,
      f.createdAt,
    ],
  ))!;
  return { id, ...f };
}

/** A live file by id. */
export async function findFile(q: Queries, id: number): Promise<FileRow | null> {
  const r = await q.get<RawFile>(
    `SELECT ${COLUMNS} FROM files f WHERE f.id = ? AND f.deleted_at IS NULL`,
    [id],
  );
  return r ? toFile(r) : null;
}

/** Live files of a project among `ids`, by id. */
export async function findProjectFiles(
  q: Queries,
  projectId: number,
  ids: number[],
): Promise<FileRow[]> {
  if (ids.length === 0) return [];
  return (await q.all<RawFile>(
    `SELECT ${COLUMNS} FROM files f WHERE f.project_id = ? AND f.deleted_at IS NULL
     AND f.id IN (${dialect(q).intsOf("?")}) ORDER BY f.id`,
    [projectId, JSON.stringify(ids)],
  )).map(toFile);
}

/** A page of a project's live files, newest first, optionally of one source. */
export async function listFiles(
  q: Queries,
  projectId: number,
  options: { source: string | null; limit: number; offset: number },
): Promise<{ items: FileRow[]; total: number }> {
  const where =
    "f.project_id = ? AND f.deleted_at IS NULL AND (CAST(? AS text) IS NULL OR f.source = ?)";
  const args = [projectId, options.source, options.source];
  const items = (await q.all<RawFile>(
    `SELECT ${COLUMNS} FROM files f WHERE ${where} ORDER BY f.created_at DESC, f.id DESC LIMIT ? OFFSET ?`,
    [...args, options.limit, options.offset],
  )).map(toFile);
  const total = (await q.get<{ n: number }>(
    `SELECT count(*) AS n FROM files f WHERE ${where}`,
    args,
  ))!.n;
  return { items, total };
}

/** The latest live files of a project (no total: files_list serves it, no count). */
export async function latestFiles(
  q: Queries,
  projectId: number,
  limit: number,
): Promise<FileRow[]> {
  return (await q.all<RawFile>(
    `SELECT ${COLUMNS} FROM files f WHERE f.project_id = ? AND f.deleted_at IS NULL
     ORDER BY f.created_at DESC, f.id DESC LIMIT ?`,
    [projectId, limit],
  )).map(toFile);
}

/**
 * Moves a file to the trash. Its stored bytes and its attachment links stay (the links are
 * hidden while it is deleted), so a restore brings it back where it was.
 */
export async function deleteFile(q: Queries, id: number, d: Deletion): Promise<void> {
  await q.run("UPDATE files SET deleted_at = ?, deleted_by = ? WHERE id = ?", [d.at, d.by, id]);
}

/** Links files to a subject (already-linked files are skipped). */
export async function insertAttachments(
  q: Queries,
  a: {
    projectId: number;
    subjectType: AttachableType;
    subjectId: number;
    fileIds: number[];
    at: string;
  },
): Promise<void> {
  for (const fileId of a.fileIds) {
    await q.run(
      `INSERT INTO attachments (project_id, file_id, subject_type, subject_id, created_at)
       VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      [a.projectId, fileId, a.subjectType, a.subjectId, a.at],
    );
  }
}

/** The live files attached to each of `subjectIds`, in attachment order. */
export async function attachmentsOf(
  q: Queries,
  subjectType: AttachableType,
  subjectIds: number[],
): Promise<Map<number, FileRow[]>> {
  const result = new Map<number, FileRow[]>(subjectIds.map((id) => [id, []]));
  if (subjectIds.length === 0) return result;
  const rows = await q.all<RawFile & { subject_id: number }>(
    `SELECT a.subject_id, ${COLUMNS} FROM attachments a JOIN files f ON f.id = a.file_id
     WHERE a.subject_type = ? AND a.subject_id IN (${dialect(q).intsOf("?")})
     AND f.deleted_at IS NULL ORDER BY a.id`,
    [subjectType, JSON.stringify(subjectIds)],
  );
  for (const r of rows) result.get(r.subject_id)?.push(toFile(r));
  return result;
}

/**
 * Gives attachment uploads of `uploaderId` that have no subject yet (stored just before the
 * subject existed) the subject they were uploaded for. Returns how many were claimed.
 */
export async function claimUploads(
  q: Queries,
  a: { uploaderId: number; subjectType: AttachableType; subjectId: number; fileIds: number[] },
): Promise<number> {
  if (a.fileIds.length === 0) return 0;
  return (await q.run(
    `UPDATE files SET uploaded_to_type = ?, uploaded_to_id = ?
     WHERE uploader_id = ? AND source = 'attachment' AND uploaded_to_id IS NULL
     AND deleted_at IS NULL AND id IN (${dialect(q).intsOf("?")})`,
    [a.subjectType, a.subjectId, a.uploaderId, JSON.stringify(a.fileIds)],
  )).changes;
}

/**
 * Moves to the trash, with subjects just moved there, the attachment uploads whose time has
 * come: those uploaded to one of them, or to a subject already gone, that no live subject links
 * any more. A file that was only linked by id is never touched; a file uploaded here but still
 * linked elsewhere stays live until its last live link goes. The links themselves stay, hidden
 * with their subject. Files moved are marked as gone with a subject (not listed in the trash on
 * their own) and come back when a subject linking them is restored. Returns them.
 */
export async function trashUploads(
  q: Queries,
  subjects: Array<{ type: AttachableType; id: number }>,
  d: Deletion,
): Promise<FileRow[]> {
  const candidates = new Map<number, FileRow>();
  for (const s of subjects) {
    const rows = await q.all<RawFile>(
      `SELECT ${COLUMNS} FROM files f WHERE f.source = 'attachment' AND f.deleted_at IS NULL
       AND ((f.uploaded_to_type = ? AND f.uploaded_to_id = ?)
         OR f.id IN (SELECT a.file_id FROM attachments a WHERE a.subject_type = ? AND a.subject_id = ?))
       ORDER BY f.id`,
      [s.type, s.id, s.type, s.id],
    );
    for (const r of rows) candidates.set(r.id, toFile(r));
  }
  const removed: FileRow[] = [];
  for (const f of candidates.values()) {
    // An upload without a subject never got one: it is not these subjects' to remove.
    if (!f.uploadedTo) continue;
    const linked = await q.get(
      `SELECT 1 FROM attachments a WHERE a.file_id = ? AND ${subjectAlive("a")} LIMIT 1`,
      [f.id],
    );
    if (linked) continue;
    const uploadedHere = subjects.some((s) =>
      f.uploadedTo?.type === s.type && f.uploadedTo.id === s.id
    );
    if (!uploadedHere) {
      const uploadedToLive = await q.get(
        `SELECT 1 FROM files f WHERE f.id = ? AND ${subjectAlive("f", "uploaded_to")}`,
        [f.id],
      );
      if (uploadedToLive) continue;
    }
    await q.run(
      "UPDATE files SET deleted_at = ?, deleted_by = ?, deleted_with_subject = 1 WHERE id = ?",
      [d.at, d.by, f.id],
    );
    removed.push(f);
  }
  return removed;
}
