/** Storage of notes. */
import type { Database } from "./sqlite.ts";
import type { Deletion } from "./subjects.ts";

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

interface RawNote {
  id: number;
  project_id: number;
  author_id: number;
  title: string;
  body: string;
  tags: string;
  pinned: number;
  created_at: string;
  updated_at: string;
}

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
export function insertNote(db: Database, n: Omit<NoteRow, "id" | "updatedAt">): number {
  return (db.sql.prepare(
    `INSERT INTO notes (project_id, author_id, title, body, tags, pinned, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  ).get(
    n.projectId,
    n.authorId,
    n.title,
    n.body,
    JSON.stringify(n.tags),
    n.pinned ? 1 : 0,
    n.createdAt,
    n.createdAt,
  ) as { id: number }).id;
}

/** A live note of a project. */
export function findNote(db: Database, projectId: number, id: number): NoteRow | null {
  const r = db.sql.prepare(`${SELECT} WHERE n.id = ? AND n.project_id = ? AND n.deleted_at IS NULL`)
    .get(id, projectId) as RawNote | undefined;
  return r ? toNote(r) : null;
}

/** A page of a project's live notes: pinned first, then most recently updated. */
export function listNotes(
  db: Database,
  projectId: number,
  options: { tag: string | null; limit: number; offset: number },
): { items: NoteRow[]; total: number } {
  const where = `n.project_id = ? AND n.deleted_at IS NULL AND (? IS NULL OR EXISTS
    (SELECT 1 FROM json_each(n.tags) WHERE value = ?))`;
  const args = [projectId, options.tag, options.tag];
  const items = (db.sql.prepare(
    `${SELECT} WHERE ${where} ORDER BY n.pinned DESC, n.updated_at DESC, n.id DESC LIMIT ? OFFSET ?`,
  ).all(...args, options.limit, options.offset) as unknown as RawNote[]).map(toNote);
  const total =
    (db.sql.prepare(`SELECT count(*) AS n FROM notes n WHERE ${where}`).get(...args) as {
      n: number;
    }).n;
  return { items, total };
}

/** Changes a note's fields. */
export function updateNote(
  db: Database,
  id: number,
  c: { title: string; body: string; tags: string[]; pinned: boolean; updatedAt: string },
): void {
  db.sql.prepare(
    "UPDATE notes SET title = ?, body = ?, tags = ?, pinned = ?, updated_at = ? WHERE id = ?",
  )
    .run(c.title, c.body, JSON.stringify(c.tags), c.pinned ? 1 : 0, c.updatedAt, id);
}

/** Moves a note to the trash (its `updated_at` stays as it was). */
export function deleteNote(db: Database, id: number, d: Deletion): void {
  db.sql.prepare("UPDATE notes SET deleted_at = ?, deleted_by = ? WHERE id = ?").run(
    d.at,
    d.by,
    id,
  );
}

/** Live notes by id, in the order of `ids`. */
export function notesByIds(db: Database, ids: number[]): NoteRow[] {
  if (ids.length === 0) return [];
  const rows = (db.sql.prepare(
    `${SELECT} WHERE n.deleted_at IS NULL AND n.id IN (${ids.map(() => "?").join(",")})`,
  ).all(...ids) as unknown as RawNote[]).map(toNote);
  return rows.sort((a, b) => ids.indexOf(a.id) - ids.indexOf(b.id));
}
