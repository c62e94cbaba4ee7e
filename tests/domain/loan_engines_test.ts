/**
 * The loan service on the storage interface: the same cases on the SQLite engine and, when
 * PostgreSQL is installed (`.ci/run` installs it), on the PostgreSQL engine with its own
 * migrations: registration, the blacklist read inside the decision's transaction, the stored
 * history, and a refused application that stores nothing.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Engine } from "../../db/engine.ts";
import { migrate, MIGRATIONS_DIR } from "../../db/migrate.ts";
import { openPostgresEngine } from "../../db/postgres/engine.ts";
import { migratePostgres, POSTGRES_MIGRATIONS_DIR } from "../../db/postgres/migrate.ts";
import { openDatabase } from "../../db/sqlite.ts";
import { sqliteEngine } from "../../db/sqlite_engine.ts";
import { DomainError } from "../../domain/errors.ts";
import { createLoanService } from "../../domain/loan.ts";
import { postgresTest } from "../helpers/postgres.ts";

const NOW = () => new Date("2026-11-25T09:00:00.000Z");

async function history(e: Engine) {
  return await e.all(
    "SELECT applicant_name, requested_amount, approved, approved_rate, rejection_reason, " +
      "processed_at FROM loan_history ORDER BY applicant_name", // concurrent: any id order
  );
}

async function cases(e: Engine): Promise<void> {
  const scores: Record<string, number> = { Ann: 720, Bob: 450, Cy: 820 };
  const loan = createLoanService(e, {
    clock: { now: NOW },
    creditScore: (name) => scores[name] ?? 700,
  });
  assert.equal(
    await loan.registerNewCustomer({ customerName: "Cy", blacklisted: true }),
    "Registration Successful",
  );
  assert.equal(
    await loan.registerNewCustomer({ customerName: "Cy", blacklisted: false }),
    "Error: Customer already exists",
  );
  // Several applications at once share a commit on SQLite and a pool on PostgreSQL.
  const decisions = await Promise.all([
    loan.processLoanApplication({ applicantName: "Ann", requestedAmount: 1000 }),
    loan.processLoanApplication({ applicantName: "Bob", requestedAmount: 2000 }),
    loan.processLoanApplication({ applicantName: "Cy", requestedAmount: 3000 }),
  ]);
  assert.deepEqual(decisions.map((d) => [d.approved, d.approvedRate, d.rejectionReason]), [
    [true, 3.5, null],
    [false, 0, "Credit score too low"],
    [false, 0, "Applicant is blacklisted"],
  ]);
  await assert.rejects(
    loan.processLoanApplication({ applicantName: "Dee", requestedAmount: 0 }),
    (error) => error instanceof DomainError && error.code === "validation",
  );
  const at = NOW().toISOString();
  assert.deepEqual((await history(e)).map((r) => ({ ...r })), [
    {
      applicant_name: "Ann",
      requested_amount: 1000,
      approved: 1,
      approved_rate: 3.5,
      rejection_reason: null,
      processed_at: at,
    },
    {
      applicant_name: "Bob",
      requested_amount: 2000,
      approved: 0,
      approved_rate: 0,
      rejection_reason: "Credit score too low",
      processed_at: at,
    },
    {
      applicant_name: "Cy",
      requested_amount: 3000,
      approved: 0,
      approved_rate: 0,
      rejection_reason: "Applicant is blacklisted",
      processed_at: at,
    },
  ]);
}

Deno.test("loan service on the SQLite engine", async () => {
  const dir = await Deno.makeTempDir({ prefix: "loan-engine-" });
  const db = openDatabase(join(dir, "collab.db"));
  try {
    migrate(db, MIGRATIONS_DIR, NOW);
    await cases(sqliteEngine(db));
  } finally {
    await db.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test(postgresTest("loan service on the PostgreSQL engine", async (pg, sql) => {
  const e = openPostgresEngine(pg.url);
  try {
    await migratePostgres(sql, POSTGRES_MIGRATIONS_DIR, NOW);
    await cases(e);
  } finally {
    await e.close();
  }
}));
