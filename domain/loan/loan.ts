/**
 * The loan approval service: customer registration and loan decisions.
 *
 * Every decision is durably stored (group commit) before it is returned; a validation
 * failure stores nothing.
 */
import type { Engine } from "../../db/kernel/engine.ts";
import { insertCustomer, insertDecision, isBlacklisted } from "../../db/loan/loan.ts";
import type { Clock } from "../kernel/clock.ts";
import { invalid } from "../kernel/errors.ts";

/** Finds an applicant's credit score (0 to 850); replaceable by a real bureau. */
export type CreditScoreLookup = (applicantName: string) => number | Promise<number>;

/** The lookup the reference service ships: every applicant scores 700. */
export const fixedCreditScore: CreditScoreLookup = () => 700;

/** The outcome of one application. */
export interface LoanDecision {
  approved: boolean;
  approvedRate: number;
  rejectionReason: string | null;
  message: string;
}

/** A registration request as decoded from the wire (null when absent). */
export interface RegistrationInput {
  customerName: string | null;
  blacklisted: boolean | null;
}

/** A loan application as decoded from the wire; a non-integer amount is NaN. */
export interface LoanApplicationInput {
  applicantName: string | null;
  requestedAmount: number | null;
}

/** The answer to a registration: a new customer, or a name that was taken. */
export type RegistrationResult = "Registration Successful" | "Error: Customer already exists";

const INT_MAX = 2 ** 31 - 1;

/** Why an application was rejected, as the console names it. */
export type RejectionCode = "blacklisted" | "low_score";

/** The rejection reasons' codes. */
export const REJECTION_CODES: readonly RejectionCode[] = ["blacklisted", "low_score"];

/** Each rejection's text: the SOAP answer's `rejectionReason`, stored as it is in the history. */
export const REJECTION_TEXTS: Readonly<Record<RejectionCode, string>> = {
  blacklisted: "Applicant is blacklisted",
  low_score: "Credit score too low",
};

/** The code of a stored rejection text (null for an approval's null). */
export function rejectionCode(text: string | null): RejectionCode | null {
  if (text === null) return null;
  return text === REJECTION_TEXTS.blacklisted ? "blacklisted" : "low_score";
}

/** The decision table: the blacklist first, then the score bands. */
export function decideLoan(score: number, blacklisted: boolean): LoanDecision {
  if (blacklisted) {
    return rejected(REJECTION_TEXTS.blacklisted);
  }
  if (score >= 700) return approved(3.5, "Loan approved with excellent rate");
  if (score >= 600) return approved(5.5, "Loan approved with standard rate");
  if (score >= 500) return approved(8.5, "Loan approved with high risk rate");
  return rejected(REJECTION_TEXTS.low_score);
}

function approved(rate: number, message: string): LoanDecision {
  return { approved: true, approvedRate: rate, rejectionReason: null, message };
}

function rejected(reason: string): LoanDecision {
  return {
    approved: false,
    approvedRate: 0,
    rejectionReason: reason,
    message: "Loan application rejected",
  };
}

/** The loan service's operations. */
export interface LoanService {
  registerNewCustomer(input: RegistrationInput): Promise<RegistrationResult>;
  processLoanApplication(input: LoanApplicationInput): Promise<LoanDecision>;
}

/** Builds the loan service over `db`, with the clock and credit-score lookup it is handed. */
export function createLoanService(
  db: Engine,
  options: { clock: Clock; creditScore: CreditScoreLookup },
): LoanService {
  return {
    async registerNewCustomer(input) {
      const name = input.customerName;
      if (name === null || name.trim() === "") {
        throw invalid("customerName", "Customer name cannot be null or empty");
      }
      const blacklisted = input.blacklisted ?? false;
      // The engine's SQLite transactions are jobs of the group commit: one fsync per batch.
      const created = await db.transaction((tx) =>
        insertCustomer(tx, name, blacklisted, options.clock.now().toISOString())
      );
      return created ? "Registration Successful" : "Error: Customer already exists";
    },

    async processLoanApplication(input) {
      const name = input.applicantName;
      if (name === null || name.trim() === "") {
        throw invalid("applicantName", "Applicant name cannot be null or empty");
      }
      const amount = input.requestedAmount;
      if (amount === null || !Number.isInteger(amount) || amount <= 0 || amount > INT_MAX) {
        throw invalid("requestedAmount", "Requested amount must be greater than 0");
      }
      const score = await options.creditScore(name);
      if (!Number.isFinite(score)) {
        throw new Error(`Cannot decide the application: the credit score lookup gave ${score}`);
      }
      return await db.transaction(async (tx) => {
        // Read the blacklist inside the write so the decision and its record agree.
        const decision = decideLoan(score, await isBlacklisted(tx, name));
        await insertDecision(tx, {
          applicantName: name,
          requestedAmount: amount,
          ...decision,
          processedAt: options.clock.now().toISOString(),
        });
        return decision;
      });
    },
  };
}
