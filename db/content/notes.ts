/** Storage of notes. */
import { dialect } from "../kernel/dialect.ts";
import type { Queries } from "../kernel/engine.ts";
import type { Deletion } from "../kernel/subjects.ts";

/** A live note. */
export interface NoteRow {
  id: number;
  projectId: number;
  authorId: number;
  title: string;
  body: string;
  tags: string[];
  pinned: boolean;
  createdAt: string;
  updatedAt: string;
}

type RawNote = {
  id: number;
  project_id: number;
  author_id: number;
  title: string;
  body: string;
  tags: string;
  pinned: number;
  created_at: string;
  updated_at: string;
};

const SELECT =
  "SELECT n.id, n.project_id, n.author_id, n.title, n.body, n.tags, n.pinned, n.created_at, n.updated_at FROM notes n";

function toNote(r: RawNote): NoteRow {
  return {
    id: r.id,
    projectId: r.project_id,
    authorId: r.author_id,
    title: r.title,
    body: r.body,
    tags: JSON.parse(r.tags) as string[],
    pinned: r.pinned === 1,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Inserts a note. */
export async function insertNote(
  q: Queries,
  n: Omit<NoteRow, "id" | "updatedAt">,
): Promise<number> {
  return (await q.get<{ id: number }>(
    `INSERT INTO notes (project_id, author_id, title, body, tags, pinned, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    [
      n.projectId,
      n.authorId,
      n.title,
      n.body,
      JSON.stringify(n.tags),
      n.pinned ? 1 : 0,
      n.createdAt,
      n.createdAt,
    ],
  ))!.id;
}

/** A live note of a project. */
export async function findNote(
  q: Queries,
  projectId: number,
  id: number,
): Promise<NoteRow | null> {
  const r = await q.get<RawNote>(
    `${SELECT} WHERE n.id = ? AND n.project_id = ? AND n.deleted_at IS NULL`,
    [id, projectId],
  );
  return r ? toNote(r) : null;
}

/** A page of a project's live notes: pinned first, then most recently updated. */
export async function listNotes(
  q: Queries,
  projectId: number,
  options: { tag: string | null; limit: number; offset: number },
): Promise<{ items: NoteRow[]; total: number }> {
  const where = `n.project_id = ? AND n.deleted_at IS NULL AND (CAST(? AS text) IS NULL OR EXISTS
    (SELECT 1 FROM ${dialect(q).elementsOf("n.tags")} WHERE value = ?))`;
  const args = [projectId, options.tag, options.tag];
  const items = (await q.all<RawNote>(
    `${SELECT} WHERE ${where} ORDER BY n.pinned DESC, n.updated_at DESC, n.id DESC LIMIT ? OFFSET ?`,
    [...args, options.limit, options.offset],
  )).map(toNote);
  const total =
    (await q.get<{ n: number }>(`SELECT count(*) AS n FROM notes n WHERE ${where}`, args))!.n;
  return { items, total };
}

/** Changes a note's fields. */
export async function updateNote(
  q: Queries,
  id: number,
  c: { title: string; body: string; tags: string[]; pinned: boolean; updatedAt: string },
): Promise<void> {
  await q.run(
    "UPDATE notes SET title = ?, body = ?, tags = ?, pinned = ?, updated_at = ? WHERE id = ?",
    [c.title, c.body, JSON.stringify(c.tags), c.pinned ? 1 : 0, c.updatedAt, id],
  );
}

/** Moves a note to the trash (its `updated_at` stays as it was). */
export async function deleteNote(q: Queries, id: number, d: Deletion): Promise<void> {
  await q.run("UPDATE notes SET deleted_at = ?, deleted_by = ? WHERE id = ?", [d.at, d.by, id]);
}

/** Live notes by id, in the order of `ids`. */
export async function notesByIds(q: Queries, ids: number[]): Promise<NoteRow[]> {
  if (ids.length === 0) return [];
  const rows = (await q.all<RawNote>(
    `${SELECT} WHERE n.deleted_at IS NULL AND n.id IN (${dialect(q).intsOf("?")})`,
    [JSON.stringify(ids)],
  )).map(toNote);
  return rows.sort((a, b) => ids.indexOf(a.id) - ids.indexOf(b.id));
}
