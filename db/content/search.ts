/**
 * Queries of the search index, kept in step by triggers: on SQLite an FTS5 trigram index
 * (migrations 006, 008, 016 and 028), on PostgreSQL a narrow table of live items' text with a
 * pg_trgm index (`postgres/006_search.sql`, `postgres/022_search_text.sql`). The two engines'
 * SQL differ here and only here; both give the same answers on the same data
 * (`tests/db/content/search_engines_test.ts`).
 */
import type { Engine, Queries } from "../kernel/engine.ts";

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
async function shortTermQuery(db: Queries, term: string): Promise<string | null> {
  const folded = term.toLowerCase();
  const trigrams = (await db.all<{ term: string }>(
    "SELECT term FROM search_vocab WHERE term >= ? AND term < ?",
    [folded, folded + "\u{10ffff}"],
  )).map((r) => quote(r.term));
  return trigrams.length === 0 ? null : `(${trigrams.join(" OR ")})`;
}

/**
 * Past this many matches a search's total is a lower bound: counting every match of a word in
 * half of a million items costs more than the page (bench/search.md, section G). The count
 * stops at the first match beyond it.
 */
export const SEARCH_COUNT_CAP = 10_000;

/**
 * A page of matches: `total` is exact when `totalIsExact`, else `SEARCH_COUNT_CAP` (there are
 * more); `hasMore` says whether a match follows the page (the page's query reads one beyond it).
 */
export interface SearchResult {
  items: SearchRow[];
  total: number;
  totalIsExact: boolean;
  hasMore: boolean;
}

const NOTHING: SearchResult = { items: [], total: 0, totalIsExact: true, hasMore: false };

/**
 * The result of a page read with one row beyond it (`rows`), and the total: exact from the
 * page alone when it is the last one and not past the end, else `count(cap)`, which counts at
 * most `cap + 1` matches.
 */
async function resultOf(
  rows: HitRow[],
  q: SearchQuery,
  count: (cap: number) => Promise<number>,
): Promise<SearchResult> {
  const hasMore = rows.length > q.limit;
  const items = rows.slice(0, q.limit).map(hitOf);
  if (!hasMore && (items.length > 0 || q.offset === 0)) {
    // The last page: its end is the total, capped as a count would be.
    const last = q.offset + items.length;
    return last > SEARCH_COUNT_CAP
      ? { items, total: SEARCH_COUNT_CAP, totalIsExact: false, hasMore }
      : { items, total: last, totalIsExact: true, hasMore };
  }
  const n = await count(SEARCH_COUNT_CAP);
  return n > SEARCH_COUNT_CAP
    ? { items, total: SEARCH_COUNT_CAP, totalIsExact: false, hasMore }
    : { items, total: n, totalIsExact: true, hasMore };
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
 * reading or sorting the other matches; only the count visits more of them (doclists only),
 * up to `SEARCH_COUNT_CAP`.
 * Several projects are several ranges, and there the creation time orders the matches.
 */
export function searchProjects(
  engine: Engine,
  q: SearchQuery & { projectIds: number[] },
  tuning: Partial<PostgresTuning> = {},
): Promise<SearchResult> {
  if (q.projectIds.length === 0) return Promise.resolve(NOTHING);
  return engine.kind === "postgres"
    ? searchPostgres(engine, q, {
      fewMatches: tuning.fewMatches ?? FEW_MATCHES,
      denseSample: tuning.denseSample ?? DENSE_SAMPLE,
      denseShare: tuning.denseShare ?? DENSE_SHARE,
    })
    : searchSqlite(engine, q);
}

/** SQLite's page of matches and their total, once the WHERE clause and order are known. */
async function pageOf(
  db: Queries,
  q: SearchQuery,
  search: { clause: string; order: string; args: Array<string | number | bigint> },
): Promise<SearchResult> {
  const { clause, order, args } = search;
  // The whole body, not a snippet of the engine's: the body is Markdown, and the domain cuts
  // its snippet from the text a reader sees (a cut through Markdown would leave marks behind).
  const rows = await db.all<HitRow>(
    `SELECT project_id, type, item_id, title, body, created_at FROM search_index
     WHERE ${clause} ORDER BY ${order} LIMIT ? OFFSET ?`,
    [...args, q.limit + 1, q.offset],
  );
  // The count reads the doclists in FTS5's own order and stops after `cap + 1` matches.
  return await resultOf(rows, q, async (cap) =>
    Number(
      (await db.get<{ n: number }>(
        `SELECT count(*) AS n FROM (SELECT 1 FROM search_index WHERE ${clause} LIMIT ?)`,
        [...args, cap + 1],
      ))!.n,
    ));
}

/** A hit as both engines' queries select it. */
type HitRow = {
  project_id: number;
  type: string;
  item_id: number;
  title: string;
  body: string;
  created_at: string;
};

/**
 * Up to this many matches, PostgreSQL's page is taken from all of them, sorted; past it, from
 * the newest-first index, which meets a page of them soon. The planner cannot tell the two
 * apart from a LIKE pattern: left to itself it walked the index for a rare term, reading every
 * row to find 9 (bench/search.md). (`searchProjects` takes another value, for tests of both.)
 */
const FEW_MATCHES = 2000;

/**
 * The newest rows of a project sampled, and the share of them the terms must be in, for the
 * count to walk the project newest first (`walkedCount`).
 */
const DENSE_SAMPLE = 1000;
const DENSE_SHARE = 0.3;

/** The planner settings of a PostgreSQL search's read (why: `searchPostgres`). */
export const POSTGRES_SEARCH_SETTINGS = "SELECT set_config('enable_seqscan', 'off', true), " +
  "set_config('plan_cache_mode', 'force_custom_plan', true), " +
  "set_config('max_parallel_workers_per_gather', '0', true)";

/**
 * PostgreSQL: every term is `doc LIKE '%term%'` on the lower-cased text (title and body joined
 * by a newline, which no term holds, so a term matches within one of them, as on SQLite),
 * through the trigram index; a two-character term first through the index of its pieces. The
 * matches are found in `search_text`, the narrow table of live items' text (migration 022; a
 * partition per type since 028), and only the page's titles and bodies are read from
 * `search_index`. The count (capped) comes first, and says how to read the page (`FEW_MATCHES`).
 * Newest first is `seq`, the order items were indexed in. Both statements are one read
 * (`Engine.read`), so the total and the page agree.
 */
function searchPostgres(
  engine: Engine,
  q: SearchQuery & { projectIds: number[] },
  tuning: PostgresTuning,
): Promise<SearchResult> {
  // The planner underrates what reading every row costs here (each row's `doc` is read and
  // matched): for a two-character term found in a quarter of the rows it chose
  // a scan of the whole table (128 ms) over the index (bench/search.md). Within this
  // read it takes an index whenever one applies. And it plans each statement for its
  // own terms: a plan made once for any pattern (a prepared statement's generic plan, after
  // five runs) looked a two-character term up in the trigram index, which has no trigram for
  // it and so yields every row (3 s instead of 12 ms at 100,000 items). Nor does it share the
  // work with parallel workers: each is a new process, which first maps every page of shared
  // memory it reads, and the count of a two-character term took 75 ms with them, 12 without.
  return engine.read(async (reads) => {
    await reads.get(POSTGRES_SEARCH_SETTINGS);
    return await pagePostgres(reads, q, tuning);
  });
}

/** How a PostgreSQL search chooses its paths (`FEW_MATCHES`, `DENSE_SAMPLE`, `DENSE_SHARE`). */
type PostgresTuning = { fewMatches: number; denseSample: number; denseShare: number };

/**
 * The capped count of a single project's matches by walking its rows newest first, when a
 * sample of its newest rows says the terms are in at least `denseShare` of them (else null):
 * then `cap + 1` matches are met within `(cap + 1) / denseShare` rows or so, while the trigram
 * index would gather every match's place before counting any (bench/search.md, section G).
 */
async function walkedCount(
  db: Queries,
  q: SearchQuery & { projectIds: number[] },
  scope: { clause: string; args: Array<string | number> },
  likes: { clause: string; args: Array<string | number> },
  tuning: PostgresTuning,
): Promise<number | null> {
  // A type's rows are a partition of their own (migration 029): its indexes hold only that
  // type's places, and the heap pages they lead to are dense with its rows, so the indexes find
  // the first `cap + 1` matches among fewer rows than a walk through them all would read.
  if (q.projectIds.length !== 1 || q.type !== null || tuning.denseSample <= 0) return null;
  const newest = (limit: string) =>
    `SELECT doc FROM search_text WHERE ${scope.clause} ORDER BY seq DESC LIMIT ${limit}`;
  const sample = (await db.get<{ seen: number; hits: number }>(
    `SELECT count(*) AS seen, count(*) FILTER (WHERE ${likes.clause}) AS hits
     FROM (${newest("?")}) s`,
    [...likes.args, ...scope.args, tuning.denseSample],
  ))!;
  const [seen, hits] = [Number(sample.seen), Number(sample.hits)];
  // A project smaller than the sample: the sample is every row, and its count exact.
  if (seen < tuning.denseSample) return hits;
  if (hits < seen * tuning.denseShare) return null;
  return Number(
    (await db.get<{ n: number }>(
      // OFFSET 0 keeps LIKE out of the walk, where the planner would take the trigram index.
      `SELECT count(*) AS n FROM (SELECT 1 FROM (${newest("ALL OFFSET 0")}) r
       WHERE ${likes.clause} LIMIT ?) m`,
      [...scope.args, ...likes.args, SEARCH_COUNT_CAP + 1],
    ))!.n,
  );
}

async function pagePostgres(
  db: Queries,
  q: SearchQuery & { projectIds: number[] },
  tuning: PostgresTuning,
): Promise<SearchResult> {
  // The items in scope, the pieces that find a two-character term through its index, and the
  // LIKE conditions that decide every term.
  type Part = { sql: string; args: Array<string | number> };
  const scope: Part[] = [{
    sql: `project_id IN (${q.projectIds.map(() => "?").join(", ")})`,
    args: q.projectIds,
  }];
  if (q.type !== null) scope.push({ sql: "type = ?", args: [q.type] });
  const pairs: Part[] = [];
  const likes: Part[] = [];
  // The conditions the indexes' rows must still meet: `likes` without the terms `pairs` decide.
  const checks: Part[] = [];
  for (const term of [...q.longTerms, ...q.shortTerms]) {
    const folded = term.toLowerCase();
    // A term too short for a trigram is decided by strpos, which no index serves: as LIKE, the
    // planner looked it up in the trigram index too, which yields every row for it (a full scan
    // of the index beside '議事録': 91 ms at 200,000 items against 20).
    const like = [...folded].length < 3
      ? { sql: "strpos(doc, ?) > 0", args: [folded] }
      : { sql: "doc LIKE ?", args: [`%${folded.replace(/[\\%_]/g, "\\$&")}%`] };
    likes.push(like);
    // Only when no term is long enough for the trigram index: next to one, the pieces would be
    // computed again for every row that index finds (805 ms against 18, bench/search.md). The
    // pieces are every two characters of `doc` but those across a newline, which no term holds,
    // so they decide the term exactly: without the strpos beside them, a count reads the index
    // alone (a bitmap of the rows, whose pages the visibility map says need no visit), not each
    // row's text (bench/search.md, section I).
    if ([...folded].length === 2 && q.longTerms.length === 0) {
      pairs.push({ sql: "search_pairs(doc) @> ARRAY[?]::text[]", args: [folded] });
    } else checks.push(like);
  }
  const where = (parts: Part[]) => ({
    clause: parts.map((p) => p.sql).join(" AND "),
    args: parts.flatMap((p) => p.args),
  });
  // The count, up to one past the cap: through the newest-first walk when the terms are in much
  // of the newest rows, else through the indexes.
  const found = where([...scope, ...pairs, ...checks]);
  const walked = where([...scope, ...likes]);
  const counted = await walkedCount(db, q, where(scope), where(likes), tuning) ??
    Number(
      (await db.get<{ n: number }>(
        `SELECT count(*) AS n FROM (SELECT 1 FROM search_text WHERE ${found.clause} LIMIT ?) m`,
        [...found.args, SEARCH_COUNT_CAP + 1],
      ))!.n,
    );
  const totalIsExact = counted <= SEARCH_COUNT_CAP;
  const total = Math.min(counted, SEARCH_COUNT_CAP);
  if (total === 0 || (totalIsExact && q.offset >= total)) {
    return { items: [], total, totalIsExact, hasMore: false };
  }
  const order = (from: string) =>
    (q.projectIds.length === 1 ? ["seq"] : ["created_at", "project_id", "seq"])
      .map((column) => `${from}${column} DESC`).join(", ");
  // The page's matches (newest first) and one more, to tell whether another page follows; then
  // their titles and bodies.
  const page = (matches: string) =>
    `SELECT i.project_id, i.type, i.item_id, i.title, i.body, i.created_at
     FROM (${matches} ORDER BY ${order("")} LIMIT ? OFFSET ?) p
     JOIN search_index i ON i.seq = p.seq ORDER BY ${order("p.")}`;
  const columns = "seq, project_id, created_at";
  // Many matches: newest first through the order index, each row read decided by LIKE alone
  // (computing its pieces too would cost more than it saves).
  const rows = counted <= tuning.fewMatches
    ? await db.all<HitRow>(
      `WITH m AS MATERIALIZED (SELECT ${columns} FROM search_text WHERE ${found.clause}) ` +
        page("SELECT * FROM m"),
      [...found.args, q.limit + 1, q.offset],
    )
    : q.projectIds.length === 1
    // One project: its rows newest first, merged from the type partitions, and LIKE above the
    // merge (OFFSET 0 keeps it there). Inside, each partition would be read until its first
    // match before the merge could start: all 99,886 files, which hold no '議事録' (20 ms).
    ? await db.all<HitRow>(
      page(
        `SELECT ${columns} FROM (SELECT ${columns}, doc FROM search_text WHERE ${
          where(scope).clause
        } ORDER BY seq DESC LIMIT ALL OFFSET 0) r WHERE ${where(likes).clause}`,
      ),
      [...where(scope).args, ...where(likes).args, q.limit + 1, q.offset],
    )
    : await db.all<HitRow>(
      page(`SELECT ${columns} FROM search_text WHERE ${walked.clause}`),
      [...walked.args, q.limit + 1, q.offset],
    );
  return {
    items: rows.slice(0, q.limit).map(hitOf),
    total,
    totalIsExact,
    hasMore: rows.length > q.limit,
  };
}

const hitOf = (r: HitRow): SearchRow => ({
  projectId: Number(r.project_id),
  type: r.type,
  itemId: Number(r.item_id),
  title: r.title,
  body: r.body,
  createdAt: r.created_at,
});

/**
 * A `search_typed` rowid's `search_index` rowid (migration 029 maps them the other way):
 * project_id * 2^40 + (code - 1) * 2^37 + seq becomes project_id * 2^40 + seq * 8 + code - 1.
 */
const INDEXED_OF = (rowid: string) =>
  `(((${rowid}) >> 40) << 40) + (((${rowid}) & 137438953471) << 3) + (((${rowid}) >> 37) & 7)`;
/** The span of one type's rowids within a project's range of `search_typed`. */
const TYPE_SPAN = 1n << 37n;

/**
 * SQLite: the FTS5 trigram index, as described above. Within one project a type filter reads
 * `search_typed` (migration 029), where the type's items are a rowid range of their own, so the
 * walk meets only that type's matches.
 */
async function searchSqlite(
  db: Queries,
  q: SearchQuery & { projectIds: number[] },
): Promise<SearchResult> {
  // Terms in the FTS5 query (implicitly ANDed), and substring conditions on the matched rows.
  const match: string[] = q.longTerms.map(quote);
  const checked: string[] = [];
  for (const term of q.shortTerms) {
    if ([...term].length !== 2) {
      checked.push(term);
      continue;
    }
    // A two-character term is the OR of the trigrams it begins. Alone, that decides it. Beside a
    // long term it narrows the walk to the rows that hold both (instead of reading every row of
    // the long term's), and it decides the term when the term has no letters with case: then FTS5's
    // folding and `instr` agree. Else (FTS5 folds more than SQLite's lower()) `instr` decides.
    const group = await shortTermQuery(db, term);
    if (group === null) return NOTHING;
    match.push(group);
    if (q.longTerms.length > 0 && term.toLowerCase() !== term.toUpperCase()) checked.push(term);
  }
  const conditions: string[] = [];
  const conditionArgs: string[] = [];
  for (const term of checked) {
    // SQLite's lower() folds ASCII only, so a term without ASCII letters needs no folding.
    if (/[A-Za-z]/.test(term)) {
      conditions.push("(instr(lower(title), ?) > 0 OR instr(lower(body), ?) > 0)");
      conditionArgs.push(term.toLowerCase(), term.toLowerCase());
    } else {
      conditions.push("(instr(title, ?) > 0 OR instr(body, ?) > 0)");
      conditionArgs.push(term, term);
    }
  }
  if (q.type !== null && q.projectIds.length === 1 && match.length > 0 && checked.length === 0) {
    return await typedPageOf(db, q, match.join(" AND "), q.projectIds[0]!, q.type);
  }
  const args: Array<string | number | bigint> = [];
  const where: string[] = [];
  if (match.length > 0) {
    where.push("search_index MATCH ?");
    args.push(match.join(" AND "));
  }
  const ranges = q.projectIds.map((projectId) => {
    const low = BigInt(projectId) * PROJECT_SPAN;
    args.push(low, low + PROJECT_SPAN - 1n);
    return "rowid BETWEEN ? AND ?";
  });
  where.push(ranges.length === 1 ? ranges[0]! : `(${ranges.join(" OR ")})`);
  const order = q.projectIds.length === 1 ? "rowid DESC" : "created_at DESC, rowid DESC";
  if (q.type !== null) {
    where.push("(rowid & 7) = ?");
    args.push(TYPE_BITS[q.type] ?? -1);
  }
  where.push(...conditions);
  args.push(...conditionArgs);
  return await pageOf(db, q, { clause: where.join(" AND "), order, args });
}

/**
 * SQLite, one project and one type: the matches from `search_typed`'s range of the type, newest
 * first, and the page's titles and bodies from `search_index` by the rowids they map to.
 */
async function typedPageOf(
  db: Queries,
  q: SearchQuery,
  match: string,
  projectId: number,
  type: string,
): Promise<SearchResult> {
  const bits = TYPE_BITS[type];
  if (bits === undefined) return NOTHING;
  const low = BigInt(projectId) * PROJECT_SPAN + BigInt(bits) * TYPE_SPAN;
  const matches = "SELECT rowid AS t FROM search_typed WHERE search_typed MATCH ? " +
    "AND rowid BETWEEN ? AND ?";
  const args = [match, low, low + TYPE_SPAN - 1n];
  const rows = await db.all<HitRow>(
    `SELECT i.project_id, i.type, i.item_id, i.title, i.body, i.created_at
     FROM (${matches} ORDER BY rowid DESC LIMIT ? OFFSET ?) m
     JOIN search_index i ON i.rowid = ${INDEXED_OF("m.t")} ORDER BY m.t DESC`,
    [...args, q.limit + 1, q.offset],
  );
  return await resultOf(rows, q, async (cap) =>
    Number(
      (await db.get<{ n: number }>(
        `SELECT count(*) AS n FROM (${matches} LIMIT ?)`,
        [...args, cap + 1],
      ))!.n,
    ));
}
