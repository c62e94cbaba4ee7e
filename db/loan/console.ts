/**
 * Storage of the loan console (migration 036): the customers with their decision counts, the
 * history of blacklist changes, the decisions filtered and paged (or read in keyset batches for
 * the CSV), and the totals of a span of processed_at, over the storage interface.
 */
import { perEngine } from "../kernel/dialect.ts";
import type { Queries, SqlValue } from "../kernel/engine.ts";

/** A customer as the console lists them. */
export interface CustomerRow {
  name: string;
  blacklisted: boolean;
  registeredAt: string;
  applications: number;
  approved: number;
  lastAppliedAt: string | null;
}

interface RawCustomer {
  name: string;
  blacklisted: number | bigint;
  registered_at: string;
  applications: number | bigint | string;
  approved: number | bigint | string | null;
  last_applied_at: string | null;
}

function toCustomer(r: RawCustomer): CustomerRow {
  return {
    name: r.name,
    blacklisted: Number(r.blacklisted) === 1,
    registeredAt: r.registered_at,
    applications: Number(r.applications),
    approved: Number(r.approved ?? 0),
    lastAppliedAt: r.last_applied_at,
  };
}

// Each customer's counts, read through loan_history_applicant (a page's worth of customers).
const CUSTOMER_COLUMNS = `c.customer_name AS name, c.is_blacklisted AS blacklisted,
  c.registered_at,
  (SELECT count(*) FROM loan_history h WHERE h.applicant_name = c.customer_name)
    AS applications,
  (SELECT count(*) FROM loan_history h WHERE h.applicant_name = c.customer_name
    AND h.approved = 1) AS approved,
  (SELECT max(h.processed_at) FROM loan_history h WHERE h.applicant_name = c.customer_name)
    AS last_applied_at`;

// A case-sensitive substring of the name: SQLite's LIKE folds ASCII case, so neither engine
// uses it. An empty `?1` matches every name.
const NAME_MATCH = {
  sqlite: "(?1 = '' OR instr(c.customer_name, ?1) > 0)",
  postgres: "(?1 = '' OR strpos(c.customer_name, ?1) > 0)",
};
// `?2`: -1 for either flag, else the flag.
const CUSTOMER_WHERE = perEngine((d) =>
  `WHERE ${NAME_MATCH[d.kind]} AND (?2 = -1 OR c.is_blacklisted = ?2)`
);
const LIST_CUSTOMERS = perEngine((d) =>
  `SELECT ${CUSTOMER_COLUMNS} FROM customers c ${CUSTOMER_WHERE[d.kind]}
   ORDER BY c.registered_at DESC, ${d.byteOrder("c.customer_name")} LIMIT ?3 OFFSET ?4`
);
const COUNT_CUSTOMERS = perEngine((d) =>
  `SELECT count(*) AS n FROM customers c ${CUSTOMER_WHERE[d.kind]}`
);

/** What the customers' list filters on. */
export interface CustomerFilter {
  /** A substring of the name (case-sensitive); empty for any. */
  q: string;
  blacklisted: boolean | null;
}

/** A page of customers matching `filter`, newest registration first, and how many match. */
export async function listCustomers(
  q: Queries,
  filter: CustomerFilter,
  page: { limit: number; offset: number },
): Promise<{ items: CustomerRow[]; total: number }> {
  const flag = filter.blacklisted === null ? -1 : filter.blacklisted ? 1 : 0;
  const [rows, count] = await Promise.all([
    q.all<RawCustomer>(LIST_CUSTOMERS[q.kind], [filter.q, flag, page.limit, page.offset]),
    q.get<{ n: number | bigint | string }>(COUNT_CUSTOMERS[q.kind], [filter.q, flag]),
  ]);
  return { items: rows.map(toCustomer), total: Number(count?.n ?? 0) };
}

/** The customer named `name`, with their counts, or null. */
export async function findCustomer(q: Queries, name: string): Promise<CustomerRow | null> {
  const row = await q.get<RawCustomer>(
    `SELECT ${CUSTOMER_COLUMNS} FROM customers c WHERE c.customer_name = ?`,
    [name],
  );
  return row ? toCustomer(row) : null;
}

/** Sets a customer's flag; false when no customer has that name. */
export async function setBlacklisted(
  tx: Queries,
  name: string,
  blacklisted: boolean,
): Promise<boolean> {
  const { changes } = await tx.run(
    "UPDATE customers SET is_blacklisted = ? WHERE customer_name = ?",
    [blacklisted ? 1 : 0, name],
  );
  return changes === 1;
}

/** One change of a customer's flag, as written. */
export interface BlacklistChangeInsert {
  customerName: string;
  at: string;
  byUserId: number;
  blacklisted: boolean;
  reason: string;
}

/** Records a change of a customer's flag; its id. */
export async function insertBlacklistChange(
  tx: Queries,
  change: BlacklistChangeInsert,
): Promise<number> {
  const row = await tx.get<{ id: number | bigint }>(
    `INSERT INTO loan_blacklist_changes (customer_name, at, by_user_id, blacklisted, reason)
     VALUES (?, ?, ?, ?, ?) RETURNING id`,
    [
      change.customerName,
      change.at,
      change.byUserId,
      change.blacklisted ? 1 : 0,
      change.reason,
    ],
  );
  return Number(row!.id);
}

/** A change of a customer's flag, as read: who made it by id and display name (now). */
export interface BlacklistChangeRow {
  id: number;
  at: string;
  byUserId: number;
  /** The author's display name now, or null when the account is gone. */
  byDisplayName: string | null;
  blacklisted: boolean;
  reason: string;
}

/** Every change of `name`'s flag, newest first. */
export async function listBlacklistChanges(
  q: Queries,
  name: string,
): Promise<BlacklistChangeRow[]> {
  const rows = await q.all<{
    id: number | bigint;
    at: string;
    by_user_id: number | bigint;
    display_name: string | null;
    blacklisted: number | bigint;
    reason: string;
  }>(
    `SELECT b.id, b.at, b.by_user_id, u.display_name, b.blacklisted, b.reason
     FROM loan_blacklist_changes b LEFT JOIN users u ON u.id = b.by_user_id
     WHERE b.customer_name = ? ORDER BY b.id DESC`,
    [name],
  );
  return rows.map((r) => ({
    id: Number(r.id),
    at: r.at,
    byUserId: Number(r.by_user_id),
    byDisplayName: r.display_name,
    blacklisted: Number(r.blacklisted) === 1,
    reason: r.reason,
  }));
}

/** One decision of the loan history. */
export interface DecisionRow {
  id: number;
  applicantName: string;
  requestedAmount: number;
  approved: boolean;
  approvedRate: number;
  /** The stored rejection text (the SOAP answer's), or null for an approval. */
  rejectionReason: string | null;
  processedAt: string;
}

interface RawDecision {
  id: number | bigint;
  applicant_name: string;
  requested_amount: number | bigint;
  approved: number | bigint;
  approved_rate: number | string;
  rejection_reason: string | null;
  processed_at: string;
}

function toDecision(r: RawDecision): DecisionRow {
  return {
    id: Number(r.id),
    applicantName: r.applicant_name,
    requestedAmount: Number(r.requested_amount),
    approved: Number(r.approved) === 1,
    approvedRate: Number(r.approved_rate),
    rejectionReason: r.rejection_reason,
    processedAt: r.processed_at,
  };
}

/** What the decisions' list filters on; every field optional. */
export interface DecisionFilter {
  /** The applicant's exact name. */
  applicant?: string;
  approved?: boolean;
  /** The stored rejection text. */
  rejectionReason?: string;
  /** From this instant on (inclusive), ISO 8601 UTC. */
  from?: string;
  /** Before this instant (exclusive), ISO 8601 UTC. */
  to?: string;
}

const DECISION_COLUMNS = "id, applicant_name, requested_amount, approved, approved_rate, " +
  "rejection_reason, processed_at";

/**
 * The table a list reads its rows from, newest first. Without an applicant, SQLite is told to
 * walk loan_history_processed: left to itself it picks loan_history_outcome for an outcome
 * filter (fine for the count) and then sorts every rejection to find the first page (a second
 * at a million decisions). PostgreSQL's planner weighs the LIMIT itself.
 */
function listSource(q: Queries, filter: DecisionFilter): string {
  return q.kind === "sqlite" && filter.applicant === undefined
    ? "loan_history INDEXED BY loan_history_processed"
    : "loan_history";
}

function decisionWhere(filter: DecisionFilter): { where: string[]; params: SqlValue[] } {
  const where: string[] = [];
  const params: SqlValue[] = [];
  if (filter.applicant !== undefined) {
    where.push("applicant_name = ?");
    params.push(filter.applicant);
  }
  if (filter.approved !== undefined) {
    where.push("approved = ?");
    params.push(filter.approved ? 1 : 0);
  }
  if (filter.rejectionReason !== undefined) {
    where.push("rejection_reason = ?");
    params.push(filter.rejectionReason);
  }
  if (filter.from !== undefined) (where.push("processed_at >= ?"), params.push(filter.from));
  if (filter.to !== undefined) (where.push("processed_at < ?"), params.push(filter.to));
  return { where, params };
}

/** A page of decisions matching `filter`, newest first, and how many match in all. */
export async function listDecisions(
  q: Queries,
  filter: DecisionFilter,
  page: { limit: number; offset: number },
): Promise<{ items: DecisionRow[]; total: number }> {
  const { where, params } = decisionWhere(filter);
  const clause = where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
  const [rows, count] = await Promise.all([
    q.all<RawDecision>(
      `SELECT ${DECISION_COLUMNS} FROM ${listSource(q, filter)} ${clause}
       ORDER BY processed_at DESC, id DESC LIMIT ? OFFSET ?`,
      [...params, page.limit, page.offset],
    ),
    q.get<{ n: number | bigint | string }>(
      `SELECT count(*) AS n FROM loan_history ${clause}`,
      params,
    ),
  ]);
  return { items: rows.map(toDecision), total: Number(count?.n ?? 0) };
}

/** Where a keyset read stopped: the last row's processed_at and id. */
export interface DecisionCursor {
  processedAt: string;
  id: number;
}

/**
 * Where the next batch of `limit` decisions matching `filter` after `after` (newest first)
 * ends: its last row's keyset, or null when no more than `limit` rows are left. An index-only
 * read of a few thousand entries (loan_history_processed holds the outcome and the reason,
 * loan_history_applicant's rowid is the id).
 */
export async function batchEnd(
  q: Queries,
  filter: DecisionFilter,
  after: DecisionCursor | null,
  limit: number,
): Promise<DecisionCursor | null> {
  const { where, params } = decisionWhere(filter);
  if (after !== null) {
    // A row value, which both engines read as a range of the index.
    where.push("(processed_at, id) < (?, ?)");
    params.push(after.processedAt, after.id);
  }
  const clause = where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
  // The row after the last one, if any: the batch ends on the one before it.
  const rows = await q.all<{ processed_at: string; id: number | bigint }>(
    `SELECT processed_at, id FROM ${listSource(q, filter)} ${clause}
     ORDER BY processed_at DESC, id DESC LIMIT 2 OFFSET ?`,
    [...params, limit - 1],
  );
  const last = rows[0];
  return rows.length === 2 && last ? { processedAt: last.processed_at, id: Number(last.id) } : null;
}

/**
 * The CSV records of the decisions matching `filter` after `range.after` down to `range.end`
 * (included; to the last without it), newest first, each ended by CRLF, as UTF-8 bytes; null when
 * there are none. Each record is the decision's `csv_line` (migration 038: on SQLite read from
 * loan_history_processed, which holds it), joined by the database into one value per batch.
 */
export async function csvRecords(
  q: Queries,
  filter: DecisionFilter,
  range: { after: DecisionCursor | null; end: DecisionCursor | null },
): Promise<Uint8Array | null> {
  const { where, params } = decisionWhere(filter);
  if (range.after !== null) {
    where.push("(processed_at, id) < (?, ?)");
    params.push(range.after.processedAt, range.after.id);
  }
  if (range.end !== null) {
    where.push("(processed_at, id) >= (?, ?)");
    params.push(range.end.processedAt, range.end.id);
  }
  const clause = where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
  if (q.kind === "sqlite") {
    // group_concat follows the order of the subquery it reads (which, ordered, is never
    // flattened into the aggregate); a BLOB comes out as bytes, with no string made of it.
    const row = await q.get<{ bytes: Uint8Array | null }>(
      `SELECT CAST(group_concat(csv_line, char(13, 10)) || char(13, 10) AS BLOB) AS bytes
       FROM (SELECT csv_line FROM ${listSource(q, filter)} ${clause}
         ORDER BY processed_at DESC, id DESC)`,
      params,
    );
    return row?.bytes ?? null;
  }
  const row = await q.get<{ text: string | null }>(
    `SELECT string_agg(csv_line, chr(13) || chr(10) ORDER BY processed_at DESC, id DESC) AS text
     FROM loan_history ${clause}`,
    params,
  );
  return row?.text == null ? null : new TextEncoder().encode(`${row.text}\r\n`);
}

/** The totals of the decisions of one span of processed_at. */
export interface SpanTotals {
  approved: number;
  rejected: number;
  /** The rejections whose stored text is the one asked for. */
  rejectedAs: number;
  amountApproved: number;
}

// One row per span of the JSON array `?1` (`[[from, to], ...]`: processed_at in [from, to)),
// in its order, each a range of loan_history_processed aggregated there into a JSON array (the
// one column a correlated subquery gives SQLite): [decisions, approvals, rejections with the
// text `?2`, sum of the approved amounts].
const SPAN_TOTALS = {
  sqlite: `SELECT (SELECT json_array(count(*), count(*) FILTER (WHERE h.approved = 1),
      count(*) FILTER (WHERE h.rejection_reason = ?2),
      sum(h.requested_amount) FILTER (WHERE h.approved = 1))
    FROM loan_history h
    WHERE h.processed_at >= s.value ->> 0 AND h.processed_at < s.value ->> 1) AS totals
  FROM json_each(?1) AS s ORDER BY s.key`,
  postgres: `SELECT t.totals FROM jsonb_array_elements(CAST(?1 AS text)::jsonb)
      WITH ORDINALITY AS s(span, i)
    CROSS JOIN LATERAL (
      SELECT json_build_array(count(*), count(*) FILTER (WHERE h.approved = 1),
        count(*) FILTER (WHERE h.rejection_reason = ?2),
        sum(h.requested_amount) FILTER (WHERE h.approved = 1))::text AS totals
      FROM loan_history h
      WHERE h.processed_at >= s.span ->> 0 AND h.processed_at < s.span ->> 1) AS t
    ORDER BY s.i`,
};

/**
 * The totals of the decisions processed in each span `[from, to)` of `spans`, in order, in one
 * statement: a range scan of the covering loan_history_processed per span, no row read here.
 * `rejectedAs` counts the rejections whose stored text is `reasonText`.
 */
export async function spanTotals(
  q: Queries,
  spans: ReadonlyArray<readonly [string, string]>,
  reasonText: string,
): Promise<SpanTotals[]> {
  const rows = await q.all<{ totals: string }>(SPAN_TOTALS[q.kind], [
    JSON.stringify(spans),
    reasonText,
  ]);
  return rows.map((r) => {
    const [n, approved, rejectedAs, amount] = JSON.parse(r.totals) as Array<number | null>;
    return {
      approved: approved ?? 0,
      rejected: (n ?? 0) - (approved ?? 0),
      rejectedAs: rejectedAs ?? 0,
      amountApproved: Number(amount ?? 0),
    };
  });
}
