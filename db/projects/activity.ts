/** Storage of the per-project activity log. */
import { perEngine } from "../kernel/dialect.ts";
import type { Queries } from "../kernel/engine.ts";
import { subjectAlive } from "../kernel/subjects.ts";

/** An activity entry. */
export interface ActivityRow {
  id: number;
  projectId: number;
  kind: string;
  actorId: number;
  subjectType: string;
  subjectId: number;
  summary: string;
  createdAt: string;
}

interface RawActivity {
  id: number;
  project_id: number;
  kind: string;
  actor_id: number;
  subject_type: string;
  subject_id: number;
  summary: string;
  created_at: string;
}

const COLUMNS =
  "a.id, a.project_id, a.kind, a.actor_id, a.subject_type, a.subject_id, a.summary, a.created_at";

function toActivity(r: RawActivity): ActivityRow {
  return {
    id: r.id,
    projectId: r.project_id,
    kind: r.kind,
    actorId: r.actor_id,
    subjectType: r.subject_type,
    subjectId: r.subject_id,
    summary: r.summary,
    createdAt: r.created_at,
  };
}

/** Appends an activity entry. */
export async function insertActivity(q: Queries, a: Omit<ActivityRow, "id">): Promise<void> {
  await q.run(
    `INSERT INTO activity (project_id, kind, actor_id, subject_type, subject_id, summary, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
    [a.projectId, a.kind, a.actorId, a.subjectType, a.subjectId, a.summary, a.createdAt],
  );
}

/**
 * How far an activity count goes: up to here a total is exact, past it the count stops and
 * the total is this number, a lower bound (`totalIsExact` false). Each entry counted is checked
 * for a live subject (`subjectAlive`), which no index answers, so an exact count costs a check
 * per entry of the project: 50,000 checks for a project used for years (bench/README.md).
 */
export const ACTIVITY_COUNT_CAP = 10_000;

/** A count that stops at `ACTIVITY_COUNT_CAP`. */
export interface CappedCount {
  /** Exact when `totalIsExact`, else `ACTIVITY_COUNT_CAP` (there are more). */
  total: number;
  totalIsExact: boolean;
}

/**
 * PostgreSQL: no JIT compilation for the rest of the transaction (a read). The activity's
 * statements check each entry's subject with a subquery per kind of subject, and the planner
 * costs every entry as if it ran all ten: a count that reads 10,001 entries in a few
 * milliseconds is priced past `jit_above_cost`, and compiling it took 50 ms to a second (every
 * time: a prepared statement's plan keeps no compiled code), bench/README.md. SQLite: nothing.
 */
export async function withoutJit(q: Queries): Promise<void> {
  if (q.kind === "postgres") await q.get("SELECT set_config('jit', 'off', true) AS jit");
}

/**
 * PostgreSQL: for the rest of the transaction (a read), each prepared statement runs its
 * generic plan, made once per connection, rather than being planned again with each call's
 * values. A dashboard's twenty-odd statements each took 0.2–1.5 ms to plan every time,
 * about as long as running them (bench/search.md, section J). Only for statements whose plan
 * does not hang on a value: a generic plan assumes a third of the rows pass a range such as
 * `end_at > ?`, where the values in use pick out a few. SQLite: nothing.
 */
export async function withGenericPlans(q: Queries): Promise<void> {
  if (q.kind === "postgres") {
    await q.get("SELECT set_config('plan_cache_mode', 'force_generic_plan', true) AS plans");
  }
}

/** `n` entries counted with a limit of one past `cap`, as a capped count. */
function capped(n: number, cap = ACTIVITY_COUNT_CAP): CappedCount {
  return n > cap ? { total: cap, totalIsExact: false } : { total: n, totalIsExact: true };
}

/**
 * The newest `limit` live entries of each project, merged newest first and cut to `limit`:
 * each project's are read from activity_project in its order and stopped there, however
 * many entries it has and however its statistics look. PostgreSQL reads them with a lateral
 * subquery per project (given the ids as one JSON list it would otherwise plan for a hundred
 * projects and, knowing one project holds every row, read them all and sort them); SQLite,
 * which has no lateral join, first finds the time of each project's `limit`-th newest live
 * entry and then reads the entries of the project from that time on.
 */
const LATEST = perEngine((d) =>
  d.kind === "postgres"
    ? `SELECT x.* FROM (${d.intsOf("?")}) c CROSS JOIN LATERAL (
         SELECT ${COLUMNS} FROM activity a WHERE a.project_id = c.value AND ${subjectAlive("a")}
         ORDER BY a.created_at DESC, a.id DESC LIMIT ?) x
       ORDER BY x.created_at DESC, x.id DESC LIMIT ?`
    : `SELECT ${COLUMNS} FROM (
         SELECT c.value AS project_id, coalesce((SELECT b.created_at FROM activity b
           WHERE b.project_id = c.value AND ${subjectAlive("b")}
           ORDER BY b.created_at DESC, b.id DESC LIMIT 1 OFFSET ?), '') AS since
         FROM (${d.intsOf("?")}) c) w
       JOIN activity a ON a.project_id = w.project_id AND a.created_at >= w.since
       WHERE ${subjectAlive("a")} ORDER BY a.created_at DESC, a.id DESC LIMIT ?`
);

/**
 * The newest `limit` entries (live subjects only) of some projects, without a total (the
 * dashboards count them apart, `countActivity`).
 */
export async function latestActivity(
  q: Queries,
  projectIds: number[],
  limit: number,
): Promise<ActivityRow[]> {
  if (projectIds.length === 0 || limit < 1) return [];
  const ids = JSON.stringify(projectIds);
  return (await q.all<RawActivity>(
    LATEST[q.kind],
    q.kind === "postgres" ? [ids, limit, limit] : [limit - 1, ids, limit],
  )).map(toActivity);
}

/** The capped count of the live entries of some projects, as `countActivity` runs it. */
const COUNT = perEngine((d) =>
  d.kind === "postgres"
    ? `SELECT count(*) AS n FROM (SELECT 1 FROM (${d.intsOf("?")}) c CROSS JOIN LATERAL (
         SELECT 1 FROM activity a WHERE a.project_id = c.value AND ${subjectAlive("a")}
         LIMIT ?) x LIMIT ?) y`
    : `SELECT count(*) AS n FROM (SELECT 1 FROM (${d.intsOf("?")}) c
         JOIN activity a ON a.project_id = c.value WHERE ${subjectAlive("a")} LIMIT ?) y`
);

/**
 * How many live entries some projects have, counted up to `cap` (past it the total is the
 * cap, a lower bound): at most one check past the cap, whatever the log's size.
 */
export async function countActivity(
  q: Queries,
  projectIds: number[],
  cap = ACTIVITY_COUNT_CAP,
): Promise<CappedCount> {
  if (projectIds.length === 0) return { total: 0, totalIsExact: true };
  const ids = JSON.stringify(projectIds);
  const past = cap + 1;
  const r = await q.get<{ n: number }>(
    COUNT[q.kind],
    q.kind === "postgres" ? [ids, past, past] : [ids, past],
  );
  return capped(Number(r!.n), cap);
}

/** A page of a project's activity and its capped total. */
export interface ActivityPageRows extends CappedCount {
  items: ActivityRow[];
  /** Whether entries follow this page (exact, past the cap too). */
  hasMore: boolean;
}

/**
 * A page of a project's activity (live subjects only), newest first, read in the order of
 * activity_project, with the total counted up to `ACTIVITY_COUNT_CAP`. One entry past the page
 * is read, so `hasMore` stays exact where the total is a lower bound; a first page that is not
 * full is the whole log, and needs no count.
 */
export async function listActivity(
  q: Queries,
  projectId: number,
  limit: number,
  offset: number,
): Promise<ActivityPageRows> {
  const rows = (await q.all<RawActivity>(
    `SELECT ${COLUMNS} FROM activity a WHERE a.project_id = ? AND ${subjectAlive("a")}
     ORDER BY a.created_at DESC, a.id DESC LIMIT ? OFFSET ?`,
    [projectId, limit + 1, offset],
  )).map(toActivity);
  const hasMore = rows.length > limit;
  const items = rows.slice(0, limit);
  const counted = offset === 0 && !hasMore
    ? capped(items.length)
    : await countActivity(q, [projectId]);
  return { items, hasMore, ...counted };
}
