/**
 * Search across the eight searchable types of one project. Terms of three or more
 * characters use the trigram index; shorter ones (such as 会議) fall back to a substring
 * scan. Snippets are HTML-escaped plain text (Markdown read as text) with each match
 * wrapped in `<mark>`. The count stops past `SEARCH_COUNT_CAP` matches (`SearchPage`).
 */
import { listMembers, listProjectsOfUser } from "../../db/projects/projects.ts";
import { SEARCH_COUNT_CAP, searchProjects, type SearchRow } from "../../db/content/search.ts";
import type { Engine, Queries } from "../../db/kernel/engine.ts";
import { projectAccess } from "../accounts/access.ts";
import type { Actor } from "../accounts/accounts.ts";
import { invalid } from "../kernel/errors.ts";
import { clipText, markdownToText, type MentionContext } from "../formats/markdown.ts";
import { offsetOf, type Page, type PageRequest } from "../kernel/paging.ts";

export { SEARCH_COUNT_CAP };

/**
 * A page of search hits. Past `SEARCH_COUNT_CAP` matches the count stops: `total` is then the
 * cap, a lower bound, and `totalIsExact` false; `hasMore` is exact either way.
 */
export interface SearchPage<T> extends Page<T> {
  totalIsExact: boolean;
}

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

/** Raw characters read on each side of the first match, to be turned into text. */
const RAW_WINDOW = 300;
/** The longest title of a chat message hit (as the index's title). */
const CHAT_TITLE = 80;
/** Characters of text shown on each side of the match. */
const CONTEXT = 50;
/** A snippet without a match (it was in the title, or in Markdown the text hides). */
const PLAIN_SNIPPET = 120;

/** Where the first of `terms` occurs in `text`, case-insensitively, or null. */
function firstMatch(text: string, terms: string[]): { at: number; length: number } | null {
  const lower = text.toLowerCase();
  let found: { at: number; length: number } | null = null;
  for (const term of terms) {
    const at = lower.indexOf(term.toLowerCase());
    if (at >= 0 && (found === null || at < found.at)) found = { at, length: term.length };
  }
  return found;
}

/** The term of `terms` that `text` has at `at` (the longest), or null. */
function termAt(text: string, at: number, terms: string[]): string | null {
  let best: string | null = null;
  for (const term of terms) {
    if (best !== null && term.length <= best.length) continue;
    if (text.slice(at, at + term.length).toLowerCase() === term.toLowerCase()) best = term;
  }
  return best;
}

/** `at`, moved back off the second half of a surrogate pair, so no cut splits a character. */
function whole(text: string, at: number): number {
  const code = text.charCodeAt(at);
  return at > 0 && code >= 0xdc00 && code <= 0xdfff ? at - 1 : at;
}

/**
 * Escaped HTML: `text` around its first match of `terms`, every match in the shown part
 * wrapped in `<mark>`, `…` where it was cut (or `cut` says the text itself was); null
 * when `text` has no match.
 */
function markedSnippet(
  text: string,
  terms: string[],
  cut: { start: boolean; end: boolean } = { start: false, end: false },
): string | null {
  const first = firstMatch(text, terms);
  if (first === null) return null;
  const start = whole(text, Math.max(0, first.at - CONTEXT));
  const end = whole(text, Math.min(text.length, first.at + first.length + CONTEXT));
  let html = start > 0 || cut.start ? "…" : "";
  let plain = start;
  for (let i = start; i < end;) {
    const term = termAt(text, i, terms);
    if (term === null) {
      i++;
      continue;
    }
    html += escapeHtml(text.slice(plain, i)) + "<mark>" +
      escapeHtml(text.slice(i, i + term.length)) + "</mark>";
    i += term.length;
    plain = i;
  }
  const stop = Math.max(plain, end);
  return html + escapeHtml(text.slice(plain, stop)) +
    (stop < text.length || cut.end ? "…" : "");
}

/**
 * The plain text of Markdown `body` near its first match of `terms`: a window of the source
 * widened to whole lines where they are short, so the Markdown around the match still reads.
 */
function textNear(body: string, terms: string[], context: MentionContext) {
  const at = firstMatch(body, terms)?.at ?? 0;
  let start = whole(body, Math.max(0, at - RAW_WINDOW));
  const lineStart = body.lastIndexOf("\n", start) + 1;
  if (start > 0 && start - lineStart < RAW_WINDOW) start = lineStart;
  let end = whole(body, Math.min(body.length, at + RAW_WINDOW));
  const lineEnd = body.indexOf("\n", end);
  const stop = lineEnd < 0 ? body.length : lineEnd;
  if (stop - end < RAW_WINDOW) end = stop;
  return {
    text: markdownToText(body.slice(start, end), context),
    cut: { start: start > 0, end: end < body.length },
  };
}

/**
 * A hit's snippet: the plain text of its body around the match (Markdown read as text,
 * mentions as names), else its title with the match, else the start of its text.
 */
function snippetOf(r: SearchRow, terms: string[], context: MentionContext): string {
  const near = textNear(r.body, terms, context);
  return markedSnippet(near.text, terms, near.cut) ?? markedSnippet(r.title, terms) ??
    escapeHtml(clipText(near.text || r.title, PLAIN_SNIPPET));
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

/** Shapes a matched row, its snippet marked; a chat message's title is its text's start. */
function hitOf(
  r: SearchRow,
  terms: { longTerms: string[]; shortTerms: string[] },
  context: MentionContext,
): SearchHit {
  return {
    type: r.type,
    id: r.itemId,
    title: r.type === "chat" ? clipText(markdownToText(r.body, context), CHAT_TITLE) : r.title,
    snippet: snippetOf(r, [...terms.longTerms, ...terms.shortTerms], context),
    createdAt: r.createdAt,
  };
}

/** The members of each project of `rows`, for their mentions. */
async function mentionContexts(
  db: Queries,
  rows: SearchRow[],
): Promise<Map<number, MentionContext>> {
  const contexts = new Map<number, MentionContext>();
  for (const r of rows) {
    if (!contexts.has(r.projectId)) {
      contexts.set(r.projectId, { members: await listMembers(db, r.projectId) });
    }
  }
  return contexts;
}

/** Searches a project; a blank query or an unknown type is a validation error. */
export async function searchProjectItems(
  db: Queries,
  engine: Engine,
  actor: Actor,
  input: { projectId: number; q: string; type: string | null; page: PageRequest },
): Promise<SearchPage<SearchHit>> {
  await projectAccess(db, actor, input.projectId);
  const terms = parseQuery(input.q, input.type);
  const found = await searchProjects(engine, {
    projectIds: [input.projectId],
    type: input.type,
    ...terms,
    limit: input.page.pageSize,
    offset: offsetOf(input.page),
  });
  const contexts = await mentionContexts(db, found.items);
  return searchPageOf(
    found.items.map((r) => hitOf(r, terms, contexts.get(r.projectId)!)),
    found,
    input.page,
  );
}

/**
 * Searches every project the caller belongs to (archived ones too: they can be read), with
 * the rules of a project's search; each hit names its project.
 */
export async function searchEverywhere(
  db: Queries,
  engine: Engine,
  actor: Actor,
  input: { q: string; type: string | null; page: PageRequest },
): Promise<SearchPage<ProjectSearchHit>> {
  const terms = parseQuery(input.q, input.type);
  const projects = new Map(
    (await listProjectsOfUser(db, actor.id, true)).map((p) => [p.id, p.name]),
  );
  const found = await searchProjects(engine, {
    projectIds: [...projects.keys()],
    type: input.type,
    ...terms,
    limit: input.page.pageSize,
    offset: offsetOf(input.page),
  });
  const contexts = await mentionContexts(db, found.items);
  return searchPageOf(
    found.items.map((r) => ({
      ...hitOf(r, terms, contexts.get(r.projectId)!),
      projectId: r.projectId,
      projectName: projects.get(r.projectId) ?? "",
    })),
    found,
    input.page,
  );
}

/** The page object of a search's hits. */
function searchPageOf<T>(
  items: T[],
  found: { total: number; totalIsExact: boolean; hasMore: boolean },
  request: PageRequest,
): SearchPage<T> {
  return {
    items,
    page: request.page,
    pageSize: request.pageSize,
    total: found.total,
    totalIsExact: found.totalIsExact,
    hasMore: found.hasMore,
  };
}

/**
 * Search, for routes (which never hold the database). Access, members and the index all go
 * through `db`, unless `engine` gives the index another engine (a benchmark's PostgreSQL).
 */
export function createSearch(db: Engine, engine: Engine = db) {
  return {
    /** Searches a project (see `searchProjectItems`). */
    project: (
      actor: Actor,
      input: { projectId: number; q: string; type: string | null; page: PageRequest },
    ): Promise<SearchPage<SearchHit>> => searchProjectItems(db, engine, actor, input),
    /** Searches every project of the caller (see `searchEverywhere`). */
    everywhere: (
      actor: Actor,
      input: { q: string; type: string | null; page: PageRequest },
    ): Promise<SearchPage<ProjectSearchHit>> => searchEverywhere(db, engine, actor, input),
  };
}
