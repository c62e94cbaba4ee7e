/**
 * Storage of the loan service: customers and the loan history, over the storage interface
 * (`engine.ts`), so the same statements serve SQLite and PostgreSQL.
 */
import type { Queries } from "../kernel/engine.ts";

/** One decision as written to the loan history. */
export interface LoanHistoryRecord {
  applicantName: string;
  requestedAmount: number;
  approved: boolean;
  approvedRate: number;
  rejectionReason: string | null;
  processedAt: string;
}

/** Inserts a customer; false when the name is already registered. */
export async function insertCustomer(
  q: Queries,
  name: string,
  blacklisted: boolean,
  registeredAt: string,
): Promise<boolean> {
  const { changes } = await q.run(
    "INSERT INTO customers (customer_name, is_blacklisted, registered_at) VALUES (?, ?, ?) " +
      "ON CONFLICT (customer_name) DO NOTHING",
    [name, blacklisted ? 1 : 0, registeredAt],
  );
  return changes === 1;
}

/** Whether `name` is a registered, blacklisted customer. */
export async function isBlacklisted(q: Queries, name: string): Promise<boolean> {
  const row = await q.get<{ is_blacklisted: number }>(
    "SELECT is_blacklisted FROM customers WHERE customer_name = ?",
    [name],
  );
  return row?.is_blacklisted === 1;
}

/** Appends one decision to the history. */
export async function insertDecision(q: Queries, r: LoanHistoryRecord): Promise<void> {
  await q.run(
    "INSERT INTO loan_history (applicant_name, requested_amount, approved, approved_rate, " +
      "rejection_reason, processed_at) VALUES (?, ?, ?, ?, ?, ?)",
    [
      r.applicantName,
      r.requestedAmount,
      r.approved ? 1 : 0,
      r.approvedRate,
      r.rejectionReason,
      r.processedAt,
    ],
  );
}
