/** The loan decision table at every boundary, with the credit-score lookup injected. */
import assert from "node:assert/strict";
import { testApp } from "../../helpers/app.ts";
import { application, post, registration } from "../../helpers/soap.ts";
import { decideLoan } from "../../../domain/loan/loan.ts";

const TABLE: Array<[number, boolean, boolean, string, string | null, string]> = [
  [499, false, false, "0.0", "Credit score too low", "Loan application rejected"],
  [500, false, true, "8.5", null, "Loan approved with high risk rate"],
  [599, false, true, "8.5", null, "Loan approved with high risk rate"],
  [600, false, true, "5.5", null, "Loan approved with standard rate"],
  [699, false, true, "5.5", null, "Loan approved with standard rate"],
  [700, false, true, "3.5", null, "Loan approved with excellent rate"],
  [850, false, true, "3.5", null, "Loan approved with excellent rate"],
  [850, true, false, "0.0", "Applicant is blacklisted", "Loan application rejected"],
  [0, true, false, "0.0", "Applicant is blacklisted", "Loan application rejected"],
];

for (const [score, blacklisted, approved, rate, reason, message] of TABLE) {
  const who = blacklisted ? "a blacklisted applicant" : "an applicant";
  Deno.test(`${who} scoring ${score} is ${approved ? "approved" : "rejected"} and the decision is stored`, async () => {
    const t = await testApp({ creditScore: () => score });
    try {
      if (blacklisted) await post(t, "/loan", registration("Pat", true));
      const res = await post(t, "/loan", application("Pat", 1200));
      assert.equal(res.status, 200);
      assert.equal(res.type, "text/xml; charset=utf-8");
      const expected =
        `<return><approved>${approved}</approved><approvedRate>${rate}</approvedRate>` +
        (reason ? `<rejectionReason>${reason}</rejectionReason>` : "") +
        `<message>${message}</message></return>`;
      assert.ok(res.text.includes(expected), res.text);
      const rows = await t.sql.all(
        "SELECT id, applicant_name, requested_amount, approved, approved_rate, rejection_reason, " +
          "processed_at FROM loan_history",
      );
      assert.deepEqual(rows.map((r) => ({ ...r })), [{
        id: 1,
        applicant_name: "Pat",
        requested_amount: 1200,
        approved: approved ? 1 : 0,
        approved_rate: Number(rate),
        rejection_reason: reason,
        processed_at: "2026-11-22T08:30:00.000Z",
      }]);
    } finally {
      await t.close();
    }
  });
}

Deno.test("decideLoan checks the blacklist before the score", () => {
  assert.deepEqual(decideLoan(850, true), {
    approved: false,
    approvedRate: 0,
    rejectionReason: "Applicant is blacklisted",
    message: "Loan application rejected",
  });
  assert.equal(decideLoan(700, false).approvedRate, 3.5);
});

Deno.test("the credit-score lookup is asked for the applicant by name", async () => {
  const asked: string[] = [];
  const t = await testApp({
    creditScore: (name) => {
      asked.push(name);
      return 650;
    },
  });
  try {
    const res = await post(t, "/loan", application("Quinn", 10));
    assert.match(res.text, /Loan approved with standard rate/);
    assert.deepEqual(asked, ["Quinn"]);
  } finally {
    await t.close();
  }
});

Deno.test("a failing credit-score lookup is a server fault and stores nothing", async () => {
  const t = await testApp({
    creditScore: () => {
      throw new Error("bureau unreachable at 10.0.0.1");
    },
  });
  try {
    const res = await post(t, "/loan", application("Quinn", 10));
    assert.equal(res.status, 500);
    assert.match(res.text, /<faultcode>S:Server<\/faultcode><faultstring>Internal server error</);
    assert.doesNotMatch(res.text, /bureau/);
    assert.equal(await t.sql.count("loan_history"), 0);
  } finally {
    await t.close();
  }
});
