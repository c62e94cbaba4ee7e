/** Queries of the full-text search index (kept in step by the triggers of migration 008). */
import type { Database } from "./sqlite.ts";

/** A match, with its indexed text (the domain cuts the snippet from it). */
export interface SearchRow {
  projectId: number;
  type: string;
  itemId: number;
  title: string;
  body: string;
  createdAt: string;
}

/** A project's rowids: [projectId * 2^40, (projectId + 1) * 2^40) (see migration 008). */
const PROJECT_SPAN = 1n << 40n;

/** `rowid & 7` of each type: its code (migration 006's numbering) minus one. */
const TYPE_BITS: Record<string, number> = {
  board: 0,
  chat: 1,
  todo: 2,
  file: 3,
  event: 4,
  meeting: 5,
  milestone: 6,
  note: 7,
};

const quote = (term: string) => `"${term.replaceAll('"', '""')}"`;

/**
 * The FTS5 query for a two-character term: the OR of the indexed trigrams that begin with
 * it (every occurrence begins one, thanks to migration 008's `tail`), or null when none does.
 */
function shortTermQuery(db: Database, term: string): string | null {
  const folded = term.toLowerCase();
  const trigrams = (db.sql.prepare(
    "SELECT term FROM search_vocab WHERE term >= ? AND term < ?",
  ).all(folded, folded + "\u{10ffff}") as Array<{ term: string }>).map((r) => quote(r.term));
  return trigrams.length === 0 ? null : `(${trigrams.join(" OR ")})`;
}

/** What to look for, and which page. */
export interface SearchQuery {
  type: string | null;
  longTerms: string[];
  shortTerms: string[];
  limit: number;
  offset: number;
}

/**
 * Matches of projects, newest first. `longTerms` (three or more characters) go through
 * the trigram index; so do two-character terms when there is no long term, as the OR of
 * the trigrams they begin. Other `shortTerms` are substring conditions on the matched rows,
 * or on a scan of the projects' rows. A project is a rowid range, the type the low rowid
 * bits and rowid order the creation order, so FTS5 yields the page in index order without
 * reading or sorting the other matches; only the count visits them all (doclists only).
 * Several projects are several ranges, and there the creation time orders the matches.
 */
export function searchProjects(
  db: Database,
  q: SearchQuery & { projectIds: number[] },
): { items: SearchRow[]; total: number } {
  if (q.projectIds.length === 0) return { items: [], total: 0 };
  const args: Array<string | number | bigint> = [];
  const ranges = q.projectIds.map((projectId) => {
    const low = BigInt(projectId) * PROJECT_SPAN;
    args.push(low, low + PROJECT_SPAN - 1n);
    return "rowid BETWEEN ? AND ?";
  });
  const where: string[] = [ranges.length === 1 ? ranges[0]! : `(${ranges.join(" OR ")})`];
  const order = q.projectIds.length === 1 ? "rowid DESC" : "created_at DESC, rowid DESC";
  let shortTerms = q.shortTerms;
  if (q.longTerms.length > 0) {
    where.unshift("search_index MATCH ?");
    args.unshift(q.longTerms.map(quote).join(" "));
  } else if (q.shortTerms.some((t) => [...t].length === 2)) {
    const groups: string[] = [];
    for (const term of q.shortTerms.filter((t) => [...t].length === 2)) {
      const group = shortTermQuery(db, term);
      if (group === null) return { items: [], total: 0 };
      groups.push(group);
    }
    where.unshift("search_index MATCH ?");
    args.unshift(groups.join(" AND "));
    shortTerms = q.shortTerms.filter((t) => [...t].length !== 2);
  }
  if (q.type !== null) {
    where.push("(rowid & 7) = ?");
    args.push(TYPE_BITS[q.type] ?? -1);
  }
  for (const term of shortTerms) {
    // SQLite's lower() folds ASCII only, so a term without ASCII letters needs no folding.
    if (/[A-Za-z]/.test(term)) {
      where.push("(instr(lower(title), ?) > 0 OR instr(lower(body), ?) > 0)");
      args.push(term.toLowerCase(), term.toLowerCase());
    } else {
      where.push("(instr(title, ?) > 0 OR instr(body, ?) > 0)");
      args.push(term, term);
    }
  }
  const clause = where.join(" AND ");
  // The whole body, not FTS5's snippet(): the body is Markdown, and the domain cuts its
  // snippet from the text a reader sees (a cut through Markdown would leave marks behind).
  const rows = db.sql.prepare(
    `SELECT project_id, type, item_id, title, body, created_at FROM search_index
     WHERE ${clause} ORDER BY ${order} LIMIT ? OFFSET ?`,
  ).all(...args, q.limit, q.offset) as Array<{
    project_id: number;
    type: string;
    item_id: number;
    title: string;
    body: string;
    created_at: string;
  }>;
  // A page that is not full (and not past the end) is the last one: no count needed.
  const total = (rows.length > 0 && rows.length < q.limit) || (rows.length === 0 && q.offset === 0)
    ? q.offset + rows.length
    : (db.sql.prepare(`SELECT count(*) AS n FROM search_index WHERE ${clause}`)
      .get(...args) as { n: number }).n;
  return {
    items: rows.map((r) => ({
      projectId: Number(r.project_id),
      type: r.type,
      itemId: r.item_id,
      title: r.title,
      body: r.body,
      createdAt: r.created_at,
    })),
    total,
  };
}
