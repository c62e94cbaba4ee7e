/** Queries of the full-text search index (kept in step by the triggers of migration 006). */
import type { Database } from "./sqlite.ts";

/** A match, with its snippet's match delimited by \u0001 and \u0002. */
export interface SearchRow {
  type: string;
  itemId: number;
  title: string;
  snippet: string;
  createdAt: string;
}

/** Start and end of a highlighted match in raw snippets. */
export const MARK_START = "\u0001";
export const MARK_END = "\u0002";

/**
 * Matches of a project, newest first. `longTerms` (three or more characters) go through
 * the trigram index; `shortTerms` are substring conditions on the matched rows, or a scan
 * of the project's rows when there is no long term.
 */
export function searchProject(
  db: Database,
  q: {
    projectId: number;
    type: string | null;
    longTerms: string[];
    shortTerms: string[];
    limit: number;
    offset: number;
  },
): { items: SearchRow[]; total: number } {
  const where: string[] = ["project_id = ?"];
  const args: Array<string | number> = [q.projectId];
  if (q.longTerms.length > 0) {
    where.unshift("search_index MATCH ?");
    args.unshift(q.longTerms.map((t) => `"${t.replaceAll('"', '""')}"`).join(" "));
  }
  if (q.type !== null) {
    where.push("type = ?");
    args.push(q.type);
  }
  for (const term of q.shortTerms) {
    where.push("instr(lower(title || ' ' || body), ?) > 0");
    args.push(term.toLowerCase());
  }
  const clause = where.join(" AND ");
  const snippet = q.longTerms.length > 0
    ? `snippet(search_index, -1, char(1), char(2), '…', 40)`
    : "substr(title || ' ' || body, 1, 400)";
  const rows = db.sql.prepare(
    `SELECT type, item_id, title, ${snippet} AS snippet, created_at FROM search_index
     WHERE ${clause} ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?`,
  ).all(...args, q.limit, q.offset) as Array<
    { type: string; item_id: number; title: string; snippet: string; created_at: string }
  >;
  const total = (db.sql.prepare(`SELECT count(*) AS n FROM search_index WHERE ${clause}`)
    .get(...args) as { n: number }).n;
  return {
    items: rows.map((r) => ({
      type: r.type,
      itemId: r.item_id,
      title: r.title,
      snippet: r.snippet,
      createdAt: r.created_at,
    })),
    total,
  };
}
