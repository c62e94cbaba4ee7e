/**
 * Search across the eight searchable types of one project. Terms of three or more
 * characters use the trigram index; shorter ones (such as 会議) fall back to a substring
 * scan. Snippets are HTML-escaped text with each match wrapped in `<mark>`.
 */
import { listProjectsOfUser } from "../db/projects.ts";
import { MARK_END, MARK_START, searchProjects, type SearchRow } from "../db/search.ts";
import type { Database } from "../db/sqlite.ts";
import { projectAccess } from "./access.ts";
import type { Actor } from "./accounts.ts";
import { invalid } from "./errors.ts";
import { offsetOf, type Page, pageOf, type PageRequest } from "./paging.ts";

/** The searchable types. */
export const SEARCH_TYPES = [
  "board",
  "chat",
  "todo",
  "file",
  "event",
  "meeting",
  "milestone",
  "note",
] as const;

/** A search hit. */
export interface SearchHit {
  type: string;
  id: number;
  title: string;
  /** Escaped HTML: the text around the match, the match in `<mark>`. */
  snippet: string;
  createdAt: string;
}

/** The longest query, in characters. */
export const MAX_QUERY = 200;
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Escapes a raw snippet and turns the match delimiters into `<mark>`. */
function markSnippet(raw: string): string {
  return escapeHtml(raw).replaceAll(MARK_START, "<mark>").replaceAll(MARK_END, "</mark>");
}

/** A snippet around the first occurrence of any of `terms` (for the substring fallback). */
function substringSnippet(text: string, terms: string[]): string {
  const lower = text.toLowerCase();
  let at = -1;
  let length = 0;
  for (const term of terms) {
    const found = lower.indexOf(term.toLowerCase());
    if (found >= 0 && (at < 0 || found < at)) [at, length] = [found, term.length];
  }
  if (at < 0) return escapeHtml(text.slice(0, 120));
  const start = Math.max(0, at - 40);
  const end = Math.min(text.length, at + length + 40);
  return (start > 0 ? "…" : "") + escapeHtml(text.slice(start, at)) + "<mark>" +
    escapeHtml(text.slice(at, at + length)) + "</mark>" + escapeHtml(text.slice(at + length, end)) +
    (end < text.length ? "…" : "");
}

/** A search hit across projects: which project it is in too. */
export interface ProjectSearchHit extends SearchHit {
  projectId: number;
  projectName: string;
}

/** Checks a query and splits it into terms; a blank query or an unknown type is invalid. */
function parseQuery(q: string, type: string | null) {
  q = q.trim();
  if (!q) throw invalid("q", "Enter something to search for");
  if (q.length > MAX_QUERY) throw invalid("q", `Use at most ${MAX_QUERY} characters`);
  if (type !== null && !(SEARCH_TYPES as readonly string[]).includes(type)) {
    throw invalid("type", `Use one of ${SEARCH_TYPES.join(", ")}`);
  }
  const terms = [...new Set(q.split(/\s+/).filter((t) => t.length > 0))];
  return {
    longTerms: terms.filter((t) => [...t].length >= 3),
    shortTerms: terms.filter((t) => [...t].length < 3),
  };
}

/** Shapes a matched row, its snippet marked. */
function hitOf(r: SearchRow, terms: { longTerms: string[]; shortTerms: string[] }): SearchHit {
  return {
    type: r.type,
    id: r.itemId,
    title: r.title,
    snippet: terms.longTerms.length > 0
      ? markSnippet(r.snippet)
      : substringSnippet(r.snippet, terms.shortTerms),
    createdAt: r.createdAt,
  };
}

/** Searches a project; a blank query or an unknown type is a validation error. */
export function searchProjectItems(
  db: Database,
  actor: Actor,
  input: { projectId: number; q: string; type: string | null; page: PageRequest },
): Page<SearchHit> {
  projectAccess(db, actor, input.projectId);
  const terms = parseQuery(input.q, input.type);
  const { items, total } = searchProjects(db, {
    projectIds: [input.projectId],
    type: input.type,
    ...terms,
    limit: input.page.pageSize,
    offset: offsetOf(input.page),
  });
  return pageOf(items.map((r) => hitOf(r, terms)), total, input.page);
}

/**
 * Searches every project the caller belongs to (archived ones too: they can be read), with
 * the rules of a project's search; each hit names its project.
 */
export function searchEverywhere(
  db: Database,
  actor: Actor,
  input: { q: string; type: string | null; page: PageRequest },
): Page<ProjectSearchHit> {
  const terms = parseQuery(input.q, input.type);
  const projects = new Map(listProjectsOfUser(db, actor.id, true).map((p) => [p.id, p.name]));
  const { items, total } = searchProjects(db, {
    projectIds: [...projects.keys()],
    type: input.type,
    ...terms,
    limit: input.page.pageSize,
    offset: offsetOf(input.page),
  });
  return pageOf(
    items.map((r) => ({
      ...hitOf(r, terms),
      projectId: r.projectId,
      projectName: projects.get(r.projectId) ?? "",
    })),
    total,
    input.page,
  );
}

/** Search, for routes (which never hold the database). */
export function createSearch(db: Database) {
  return {
    /** Searches a project (see `searchProjectItems`). */
    project: (
      actor: Actor,
      input: { projectId: number; q: string; type: string | null; page: PageRequest },
    ): Page<SearchHit> => searchProjectItems(db, actor, input),
    /** Searches every project of the caller (see `searchEverywhere`). */
    everywhere: (
      actor: Actor,
      input: { q: string; type: string | null; page: PageRequest },
    ): Page<ProjectSearchHit> => searchEverywhere(db, actor, input),
  };
}
