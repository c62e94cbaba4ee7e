/**
 * The loan operations console: what the people who run the loan service see and change beyond
 * the SOAP operations. Customers with their decision counts and the history of their blacklist
 * flag; the flag changed with a reason (the change, its history row and its audit row in one
 * transaction, so the next `processLoanApplication`, which reads the flag in its own
 * transaction, follows it); the decisions filtered, paged or streamed as CSV; and the daily
 * totals of a span of days.
 *
 * Admins and users an admin marked loan officers only (`forbidden` for others). Dates are the
 * caller's, in their time zone: a day runs from its first moment there to the next day's.
 */
import { findUserById } from "../../db/accounts/users.ts";
import type { Engine, Queries } from "../../db/kernel/engine.ts";
import {
  batchEnd,
  type BlacklistChangeRow,
  csvRecords,
  type CustomerRow,
  type DecisionCursor,
  type DecisionFilter,
  type DecisionRow,
  findCustomer,
  insertBlacklistChange,
  listBlacklistChanges,
  listCustomers,
  listDecisions,
  setBlacklisted,
  spanTotals,
} from "../../db/loan/console.ts";
import type { Actor } from "../accounts/accounts.ts";
import { audit, type RequestMeta } from "../accounts/audit.ts";
import { csvNumber, csvRecord, csvText } from "../formats/csv.ts";
import type { Clock } from "../kernel/clock.ts";
import { addDays } from "../kernel/days.ts";
import { DomainError, invalid } from "../kernel/errors.ts";
import { garbagePacer } from "../kernel/garbage.ts";
import { offsetOf, type Page, pageOf, type PageRequest } from "../kernel/paging.ts";
import { DEFAULT_TIME_ZONE, startOfDayInZone, todayInZone } from "../kernel/time_zones.ts";
import { REJECTION_TEXTS, type RejectionCode, rejectionCode } from "./loan.ts";

export type { CustomerRow as Customer };

/** A change of a customer's flag as the console shows it. */
export interface BlacklistChange {
  at: string;
  by: { id: number; displayName: string };
  blacklisted: boolean;
  reason: string;
}

/** A decision as the console shows it. */
export interface Decision {
  id: number;
  applicantName: string;
  requestedAmount: number;
  approved: boolean;
  approvedRate: number;
  rejectionReason: RejectionCode | null;
  processedAt: string;
}

/** The decisions' filters as asked (dates `YYYY-MM-DD` in the caller's zone, inclusive). */
export interface DecisionQuery {
  applicant?: string;
  approved?: boolean;
  reason?: RejectionCode;
  from?: string;
  to?: string;
}

/** One day's (or a span's) totals. */
export interface DayTotals {
  approved: number;
  rejected: number;
  byReason: Record<RejectionCode, number>;
  amountApproved: number;
}

/** The statistics of a span of days. */
export interface LoanStats {
  days: Array<{ date: string } & DayTotals>;
  totals: DayTotals;
}

/** The longest span of days the statistics cover. */
export const MAX_STATS_DAYS = 366;
/** The span the statistics cover when no `from` is asked for (ending on `to`, or today). */
export const DEFAULT_STATS_DAYS = 30;
/** The longest reason for a change of the flag, in characters. */
export const MAX_REASON = 500;
/** Rows per batch of the CSV (one value joined by the database each, never more held at once). */
const CSV_BATCH = 5_000;

/** After this many bytes of the CSV, a young collection frees the batches already sent. */
const CSV_COLLECT_EVERY_BYTES = 8 * 1024 * 1024;

/** The CSV's header row: the JSON fields, in order. */
export const CSV_FIELDS = [
  "id",
  "applicantName",
  "requestedAmount",
  "approved",
  "approvedRate",
  "rejectionReason",
  "processedAt",
] as const;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Whether `text` is a calendar date, `YYYY-MM-DD`, that exists (no 30 February). */
export function isCalendarDate(text: string): boolean {
  if (!DATE.test(text)) return false;
  const ms = Date.parse(`${text}T00:00:00.000Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === text;
}

function checkDate(field: string, text: string | undefined): void {
  if (text !== undefined && !isCalendarDate(text)) {
    throw invalid(field, "Use a date, YYYY-MM-DD");
  }
}

/** Days from `from` to `to`, both included (0 or less when `to` is before `from`). */
function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 864e5) +
    1;
}

/** The reason's length in characters (code points, as a person counts them). */
function characters(text: string): number {
  return [...text].length;
}

function toDecision(row: DecisionRow): Decision {
  return { ...row, rejectionReason: rejectionCode(row.rejectionReason) };
}

function toChange(row: BlacklistChangeRow): BlacklistChange {
  return {
    at: row.at,
    by: { id: row.byUserId, displayName: row.byDisplayName ?? "" },
    blacklisted: row.blacklisted,
    reason: row.reason,
  };
}

/**
 * A CSV record of one decision, CRLF included: what the database keeps for each decision
 * (`csv_line`, migration 038), written here for the tests that hold the two together.
 */
export function decisionCsvRecord(d: Decision): string {
  return csvRecord([
    csvNumber(d.id),
    csvText(d.applicantName),
    csvNumber(d.requestedAmount),
    d.approved ? "true" : "false",
    csvNumber(d.approvedRate),
    d.rejectionReason ?? "",
    csvText(d.processedAt),
  ]);
}

/** The CSV's file name: the dates asked for, or none. */
export function csvFileName(query: Pick<DecisionQuery, "from" | "to">): string {
  const { from, to } = query;
  if (from !== undefined && to !== undefined) return `loan-decisions-${from}-${to}.csv`;
  if (from !== undefined) return `loan-decisions-from-${from}.csv`;
  if (to !== undefined) return `loan-decisions-to-${to}.csv`;
  return "loan-decisions.csv";
}

const emptyTotals = (): DayTotals => ({
  approved: 0,
  rejected: 0,
  byReason: { blacklisted: 0, low_score: 0 },
  amountApproved: 0,
});

/** Builds the console over `db`. */
export function createLoanConsole(deps: { db: Engine; clock: Clock }) {
  const { db, clock } = deps;

  /** The caller's time zone, once they are known to be allowed in (else `forbidden`). */
  async function officer(q: Queries, actor: Actor): Promise<string> {
    const user = await findUserById(q, actor.id);
    if (!user || user.status !== "active" || (user.role !== "admin" && !user.loanOfficer)) {
      throw new DomainError("forbidden", "Loan officers and administrators only");
    }
    return user.timeZone ?? DEFAULT_TIME_ZONE;
  }

  /** The storage filter of `query` in `zone` (after checking its dates). */
  function decisionFilter(query: DecisionQuery, zone: string): DecisionFilter {
    checkDate("from", query.from);
    checkDate("to", query.to);
    return {
      ...(query.applicant !== undefined ? { applicant: query.applicant } : {}),
      // A reason is a rejection's: said outright, its count reads loan_history_outcome (and an
      // `approved` asked for as well still has its say).
      ...(query.reason !== undefined
        ? { approved: false, rejectionReason: REJECTION_TEXTS[query.reason] }
        : {}),
      ...(query.approved !== undefined ? { approved: query.approved } : {}),
      ...(query.from !== undefined ? { from: startOfDayInZone(query.from, zone) } : {}),
      ...(query.to !== undefined ? { to: startOfDayInZone(addDays(query.to, 1), zone) } : {}),
    };
  }

  return {
    /** Throws `forbidden` unless `actor` may use the console. */
    async check(actor: Actor): Promise<void> {
      await officer(db, actor);
    },

    /** A page of customers, newest registration first, then by name. */
    async customers(
      actor: Actor,
      filter: { q?: string; blacklisted?: boolean },
      page: PageRequest,
    ): Promise<Page<CustomerRow>> {
      await officer(db, actor);
      const { items, total } = await listCustomers(
        db,
        { q: filter.q ?? "", blacklisted: filter.blacklisted ?? null },
        { limit: page.pageSize, offset: offsetOf(page) },
      );
      return pageOf(items, total, page);
    },

    /** A customer and the changes of their flag, newest first (`not_found` for no such name). */
    async customer(
      actor: Actor,
      name: string,
    ): Promise<{ customer: CustomerRow; changes: BlacklistChange[] }> {
      await officer(db, actor);
      return await db.read(async (q) => {
        const [customer, changes] = await Promise.all([
          findCustomer(q, name),
          listBlacklistChanges(q, name),
        ]);
        if (!customer) throw new DomainError("not_found", "No such customer");
        return { customer, changes: changes.map(toChange) };
      });
    },

    /**
     * Sets a customer's flag, with the reason (1–500 characters), recorded in the changes and
     * the audit log in the same transaction; the same flag again is recorded too (someone
     * confirmed it, and said why).
     */
    async setBlacklist(
      actor: Actor,
      name: string,
      change: { blacklisted: boolean; reason: string },
      meta: RequestMeta,
    ): Promise<CustomerRow> {
      await officer(db, actor);
      const reason = change.reason.trim();
      if (reason.length === 0) throw invalid("reason", "Say why the flag changes");
      if (characters(reason) > MAX_REASON) {
        throw invalid("reason", `Use at most ${MAX_REASON} characters`);
      }
      return await db.transaction(async (tx) => {
        const before = await findCustomer(tx, name);
        if (!before) throw new DomainError("not_found", "No such customer");
        const at = clock.now().toISOString();
        await setBlacklisted(tx, name, change.blacklisted);
        await insertBlacklistChange(tx, {
          customerName: name,
          at,
          byUserId: actor.id,
          blacklisted: change.blacklisted,
          reason,
        });
        await audit(tx, meta, at, {
          action: "loan.blacklist_changed",
          actorId: actor.id,
          details: {
            customerName: name,
            from: before.blacklisted,
            to: change.blacklisted,
            reason,
          },
        });
        return { ...before, blacklisted: change.blacklisted };
      });
    },

    /** A page of decisions matching `query`, newest first. */
    async decisions(
      actor: Actor,
      query: DecisionQuery,
      page: PageRequest,
    ): Promise<Page<Decision>> {
      const zone = await officer(db, actor);
      const { items, total } = await listDecisions(db, decisionFilter(query, zone), {
        limit: page.pageSize,
        offset: offsetOf(page),
      });
      return pageOf(items.map(toDecision), total, page);
    },

    /**
     * Every decision matching `query` as CSV (header row first), newest first: in batches by
     * keyset (processed_at, id), each made when the client asks for more (a pulled stream with
     * no queue of its own) as the bytes of the decisions' records joined by the database, so
     * no more than a batch is held however many rows there are and however slowly the client
     * reads. Rows decided while it streams are newer than where it has got to and are not in it.
     */
    async decisionsCsv(
      actor: Actor,
      query: DecisionQuery,
    ): Promise<{ fileName: string; stream: ReadableStream<Uint8Array> }> {
      const zone = await officer(db, actor);
      const filter = decisionFilter(query, zone);
      const encoder = new TextEncoder();
      let after: DecisionCursor | null = null;
      // The batches sent are garbage V8 would leave for tens of MiB (kernel/garbage.ts).
      const sent = garbagePacer(CSV_COLLECT_EVERY_BYTES);
      // Pulled, so a batch is made only when the client has taken the ones before it.
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(encoder.encode(csvRecord(CSV_FIELDS)));
        },
        async pull(controller) {
          const { end, bytes } = await db.read(async (q) => {
            const end = await batchEnd(q, filter, after, CSV_BATCH);
            return { end, bytes: await csvRecords(q, filter, { after, end }) };
          });
          if (bytes !== null) {
            controller.enqueue(bytes);
            sent(bytes.length);
          }
          if (end === null) controller.close();
          else after = end;
        },
      }, { highWaterMark: 0 });
      return { fileName: csvFileName(query), stream };
    },

    /**
     * The totals of each day from `from` to `to` (both included; days with no decisions as
     * zeros) and of the whole span. Without `to`, today; without `from`, the 30 days ending on
     * `to`. More than 366 days, or `to` before `from`, is `validation`.
     */
    async stats(
      actor: Actor,
      query: { from?: string | undefined; to?: string | undefined },
    ): Promise<LoanStats> {
      const zone = await officer(db, actor);
      checkDate("from", query.from);
      checkDate("to", query.to);
      const to = query.to ?? todayInZone(clock.now(), zone);
      const from = query.from ?? addDays(to, 1 - DEFAULT_STATS_DAYS);
      const span = daysBetween(from, to);
      if (span < 1) throw invalid("to", "Use a date on or after from");
      if (span > MAX_STATS_DAYS) {
        throw invalid("to", `Ask for at most ${MAX_STATS_DAYS} days`);
      }
      const dates = Array.from({ length: span }, (_, i) => addDays(from, i));
      // Each day from its first instant in the zone to the next day's (23 or 25 hours long on
      // the days the clocks change), all summed by one statement.
      const starts = [...dates, addDays(to, 1)].map((d) => startOfDayInZone(d, zone));
      const spans = await spanTotals(
        db,
        dates.map((_, i) => [starts[i]!, starts[i + 1]!] as const),
        REJECTION_TEXTS.blacklisted,
      );
      const totals = emptyTotals();
      const days = dates.map((date, i) => {
        const s = spans[i]!;
        const day: DayTotals = {
          approved: s.approved,
          rejected: s.rejected,
          byReason: { blacklisted: s.rejectedAs, low_score: s.rejected - s.rejectedAs },
          amountApproved: s.amountApproved,
        };
        totals.approved += day.approved;
        totals.rejected += day.rejected;
        totals.byReason.blacklisted += day.byReason.blacklisted;
        totals.byReason.low_score += day.byReason.low_score;
        totals.amountApproved += day.amountApproved;
        return { date, ...day };
      });
      return { days, totals };
    },
  };
}

/** The console's type. */
export type LoanConsole = ReturnType<typeof createLoanConsole>;
