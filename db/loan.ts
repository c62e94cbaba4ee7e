/** Storage of the loan service: customers and the loan history. */
import type { Database } from "./sqlite.ts";

/** One decision as written to the loan history. */
export interface LoanHistoryRecord {
  applicantName: string;
  requestedAmount: number;
  approved: boolean;
  approvedRate: number;
  rejectionReason: string | null;
  processedAt: string;
}

/** A stored loan history row. */
export interface LoanHistoryRow extends LoanHistoryRecord {
  id: number;
}

/** A registered customer. */
export interface CustomerRow {
  customerName: string;
  blacklisted: boolean;
  registeredAt: string;
}

/** Prepared statements over the loan tables. Call inside a transaction for writes. */
export interface LoanStore {
  /** Inserts a customer; false when the name is already registered. */
  insertCustomer(name: string, blacklisted: boolean, registeredAt: string): boolean;
  /** Whether `name` is a registered, blacklisted customer. */
  isBlacklisted(name: string): boolean;
  /** Appends one decision to the history and returns its id. */
  insertDecision(record: LoanHistoryRecord): number;
  /** Every customer, by name (for tests and operators). */
  customers(): CustomerRow[];
  /** The whole history, oldest first (for tests and operators). */
  history(): LoanHistoryRow[];
}

/** Prepares the loan statements on `db`. */
export function loanStore(db: Database): LoanStore {
  const insertCustomer = db.sql.prepare(
    "INSERT INTO customers (customer_name, is_blacklisted, registered_at) VALUES (?, ?, ?) " +
      "ON CONFLICT (customer_name) DO NOTHING",
  );
  const blacklisted = db.sql.prepare(
    "SELECT is_blacklisted FROM customers WHERE customer_name = ?",
  );
  const insertDecision = db.sql.prepare(
    "INSERT INTO loan_history (applicant_name, requested_amount, approved, approved_rate, " +
      "rejection_reason, processed_at) VALUES (?, ?, ?, ?, ?, ?)",
  );
  return {
    insertCustomer(name, isBlacklisted, registeredAt) {
      return insertCustomer.run(name, isBlacklisted ? 1 : 0, registeredAt).changes === 1;
    },
    isBlacklisted(name) {
      const row = blacklisted.get(name) as { is_blacklisted: number } | undefined;
      return row?.is_blacklisted === 1;
    },
    insertDecision(r) {
      const result = insertDecision.run(
        r.applicantName,
        r.requestedAmount,
        r.approved ? 1 : 0,
        r.approvedRate,
        r.rejectionReason,
        r.processedAt,
      );
      return Number(result.lastInsertRowid);
    },
    customers() {
      const rows = db.sql.prepare(
        "SELECT customer_name, is_blacklisted, registered_at FROM customers ORDER BY customer_name",
      ).all() as Array<{ customer_name: string; is_blacklisted: number; registered_at: string }>;
      return rows.map((r) => ({
        customerName: r.customer_name,
        blacklisted: r.is_blacklisted === 1,
        registeredAt: r.registered_at,
      }));
    },
    history() {
      const rows = db.sql.prepare(
        "SELECT id, applicant_name, requested_amount, approved, approved_rate, rejection_reason, " +
          "processed_at FROM loan_history ORDER BY id",
      ).all() as Array<{
        id: number;
        applicant_name: string;
        requested_amount: number;
        approved: number;
        approved_rate: number;
        rejection_reason: string | null;
        processed_at: string;
      }>;
      return rows.map((r) => ({
        id: r.id,
        applicantName: r.applicant_name,
        requestedAmount: r.requested_amount,
        approved: r.approved === 1,
        approvedRate: r.approved_rate,
        rejectionReason: r.rejection_reason,
        processedAt: r.processed_at,
      }));
    },
  };
}
