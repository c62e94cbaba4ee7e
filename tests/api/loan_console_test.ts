/**
 * The loan operations console's API (loan-console contract): who may use it (admins, and users
 * an admin marks loan officers: audited), the customers' search, filter, order and counts, a
 * customer's flag history, a flag change with its reason (recorded in the history and the audit
 * log together; a refused one changes nothing) and the SOAP decisions that follow it, the
 * decisions' filters in the viewer's time zone and paging, the CSV's headers, order and keyset
 * batches, and the daily statistics.
 */
import assert from "node:assert/strict";
import { type TestApp, testApp } from "../helpers/app.ts";
import { api, expectError, expectJson, type Json, signUp } from "../helpers/api.ts";
import { application, post, registration } from "../helpers/soap.ts";

/** Registers `name` through SOAP at the clock's time. */
async function register(t: TestApp, name: string, blacklisted?: boolean): Promise<void> {
  const res = await post(t, "/loan", registration(name, blacklisted));
  assert.ok(res.text.includes("Registration Successful"), res.text);
}

/** Applies for `amount` through SOAP; whether it was approved, by the answer's bytes. */
async function apply(t: TestApp, name: string, amount: number): Promise<boolean> {
  const res = await post(t, "/loan", application(name, amount));
  assert.equal(res.status, 200, res.text);
  return res.text.includes("<approved>true</approved>");
}

/** An admin and a member (who is no loan officer yet). */
async function people(t: TestApp) {
  const admin = await signUp(t, "root@example.com", { displayName: "Root Admin" });
  const member = await signUp(t, "mo@example.com", { displayName: "Mo Member" });
  return { admin, member };
}

const enc = encodeURIComponent;

Deno.test("only admins and loan officers use the console; an admin marks officers, audited, and only admins may", async () => {
  const t = await testApp();
  try {
    const { admin, member } = await people(t);
    await register(t, "Ada");
    const paths = [
      "/api/loan/customers",
      `/api/loan/customers/Ada`,
      "/api/loan/decisions",
      "/api/loan/decisions.csv",
      "/api/loan/stats",
    ];
    for (const path of paths) {
      expectError(await api(t, "GET", path, { cookie: member.cookie }), 403, "forbidden");
      expectError(await api(t, "GET", path), 401, "unauthenticated");
      expectJsonOrCsv(await api(t, "GET", path, { cookie: admin.cookie }));
    }
    const patch = { blacklisted: true, reason: "fraud report" };
    expectError(
      await api(t, "PATCH", "/api/loan/customers/Ada", { cookie: member.cookie, body: patch }),
      403,
      "forbidden",
    );
    assert.equal(await t.sql.count("loan_blacklist_changes"), 0);
    // A member cannot make themselves an officer.
    expectError(
      await api(t, "PATCH", `/api/admin/users/${member.user.id}`, {
        cookie: member.cookie,
        body: { loanOfficer: true },
      }),
      403,
      "forbidden",
    );
    assert.equal(member.user.loanOfficer, false);

    const marked = expectJson(
      await api(t, "PATCH", `/api/admin/users/${member.user.id}`, {
        cookie: admin.cookie,
        body: { loanOfficer: true },
      }),
      200,
    );
    assert.equal(marked.user.loanOfficer, true);
    const me = expectJson(await api(t, "GET", "/api/auth/me", { cookie: member.cookie }), 200);
    assert.equal(me.user.loanOfficer, true);
    for (const path of paths) {
      expectJsonOrCsv(await api(t, "GET", path, { cookie: member.cookie }));
    }
    expectJson(
      await api(t, "PATCH", "/api/loan/customers/Ada", { cookie: member.cookie, body: patch }),
      200,
    );
    // The same mark again changes nothing and writes no second row.
    expectJson(
      await api(t, "PATCH", `/api/admin/users/${member.user.id}`, {
        cookie: admin.cookie,
        body: { loanOfficer: true },
      }),
      200,
    );
    expectJson(
      await api(t, "PATCH", `/api/admin/users/${member.user.id}`, {
        cookie: admin.cookie,
        body: { loanOfficer: false },
      }),
      200,
    );
    expectError(
      await api(t, "GET", "/api/loan/customers", { cookie: member.cookie }),
      403,
      "forbidden",
    );
    const audit = expectJson(
      await api(t, "GET", "/api/admin/audit?action=user.loan_officer_changed", {
        cookie: admin.cookie,
      }),
      200,
    );
    assert.deepEqual(
      [...audit.items].reverse().map((r: Json) => [r.actorId, r.targetId, r.details]),
      [
        [admin.user.id, member.user.id, { from: false, to: true }],
        [admin.user.id, member.user.id, { from: true, to: false }],
      ],
    );
    // Not a boolean: 400, nothing changed.
    expectError(
      await api(t, "PATCH", `/api/admin/users/${member.user.id}`, {
        cookie: admin.cookie,
        body: { loanOfficer: "yes" },
      }),
      400,
      "validation",
    );
    const users = expectJson(
      await api(t, "GET", "/api/admin/users", { cookie: admin.cookie }),
      200,
    );
    assert.equal(users.items.find((u: Json) => u.id === member.user.id).loanOfficer, false);
  } finally {
    await t.close();
  }
});

function expectJsonOrCsv(res: Awaited<ReturnType<typeof api>>): void {
  assert.equal(res.status, 200, res.text);
}

Deno.test("customers: a case-sensitive name search, the flag filter, newest registration first then by name, and counts", async () => {
  const t = await testApp({ now: "2026-03-01T00:00:00.000Z" });
  try {
    const { admin } = await people(t);
    await register(t, "Bob Stone");
    await register(t, "alice bobson", true);
    t.clock.set("2026-03-02T00:00:00.000Z");
    await register(t, "Zed Bob");
    await register(t, "Carol");
    await register(t, "山田 太郎");
    t.clock.set("2026-03-03T09:00:00.000Z");
    assert.equal(await apply(t, "Bob Stone", 1000), true);
    t.clock.set("2026-03-03T10:00:00.000Z");
    assert.equal(await apply(t, "Bob Stone", 2000), true);
    assert.equal(await apply(t, "alice bobson", 500), false);
    const list = async (query: string) =>
      expectJson(await api(t, "GET", `/api/loan/customers${query}`, { cookie: admin.cookie }), 200);

    const all = await list("");
    assert.deepEqual(all.items.map((c: Json) => c.name), [
      "Carol",
      "Zed Bob",
      "山田 太郎",
      "Bob Stone",
      "alice bobson",
    ]);
    assert.equal(all.total, 5);
    assert.deepEqual(all.items[3], {
      name: "Bob Stone",
      blacklisted: false,
      registeredAt: "2026-03-01T00:00:00.000Z",
      applications: 2,
      approved: 2,
      lastAppliedAt: "2026-03-03T10:00:00.000Z",
    });
    assert.deepEqual(
      [all.items[4].applications, all.items[4].approved, all.items[4].blacklisted],
      [1, 0, true],
    );
    assert.equal(all.items[0].lastAppliedAt, null);

    assert.deepEqual((await list("?q=Bob")).items.map((c: Json) => c.name), [
      "Zed Bob",
      "Bob Stone",
    ]);
    assert.deepEqual((await list("?q=bob")).items.map((c: Json) => c.name), ["alice bobson"]);
    assert.deepEqual((await list(`?q=${enc("田 太")}`)).items.map((c: Json) => c.name), [
      "山田 太郎",
    ]);
    assert.deepEqual((await list("?q=%25")).items, []);
    assert.deepEqual((await list("?blacklisted=true")).items.map((c: Json) => c.name), [
      "alice bobson",
    ]);
    assert.equal((await list("?blacklisted=false")).total, 4);
    assert.deepEqual((await list("?q=Bob&blacklisted=false")).total, 2);
    const paged = await list("?pageSize=2&page=2");
    assert.deepEqual(paged.items.map((c: Json) => c.name), ["山田 太郎", "Bob Stone"]);
    assert.deepEqual([paged.page, paged.pageSize, paged.total, paged.hasMore], [2, 2, 5, true]);
    expectError(
      await api(t, "GET", "/api/loan/customers?blacklisted=maybe", { cookie: admin.cookie }),
      400,
      "validation",
    );
  } finally {
    await t.close();
  }
});

Deno.test("a flag change needs a reason of 1 to 500 characters, is recorded in the history and the audit log, and the next SOAP decision follows it", async () => {
  const t = await testApp({ now: "2026-03-01T00:00:00.000Z" });
  try {
    const { admin } = await people(t);
    const name = 'Mallory, "M" 山田';
    await register(t, name, true);
    assert.equal(await apply(t, name, 1000), false, "blacklisted at registration");
    const path = `/api/loan/customers/${enc(name)}`;
    const patch = (body: unknown, customer = path) =>
      api(t, "PATCH", customer, { cookie: admin.cookie, body });

    // Refusals: nothing changes.
    const refusals: Array<[unknown, number, string]> = [
      [{ blacklisted: false }, 400, "validation"],
      [{ blacklisted: false, reason: "" }, 400, "validation"],
      [{ blacklisted: false, reason: "   " }, 400, "validation"],
      [{ blacklisted: false, reason: "x".repeat(501) }, 400, "validation"],
      [{ blacklisted: false, reason: "x".repeat(10 * 1024) }, 400, "validation"],
      [{ blacklisted: "no", reason: "ok" }, 400, "validation"],
    ];
    for (const [body, status, code] of refusals) {
      expectError(await patch(body), status, code);
    }
    expectError(
      await patch({ blacklisted: false, reason: "ok" }, "/api/loan/customers/Nobody"),
      404,
      "not_found",
    );
    expectError(
      await api(t, "GET", "/api/loan/customers/Nobody", { cookie: admin.cookie }),
      404,
      "not_found",
    );
    assert.equal(await t.sql.count("loan_blacklist_changes"), 0);
    assert.equal(await t.sql.count("audit_log WHERE action = 'loan.blacklist_changed'"), 0);
    assert.equal(await apply(t, name, 1000), false, "still blacklisted after the refusals");

    // 500 characters that are 1,000 UTF-16 units: characters are counted, not units.
    t.clock.set("2026-03-02T00:00:00.000Z");
    const long = "😀".repeat(500);
    const unblocked = expectJson(
      await patch({ blacklisted: false, reason: long }, path),
      200,
    );
    assert.equal(unblocked.customer.blacklisted, false);
    assert.equal(unblocked.customer.name, name);
    assert.equal(await apply(t, name, 1000), true, "approved once unblocked");

    t.clock.set("2026-03-03T00:00:00.000Z");
    expectJson(await patch({ blacklisted: true, reason: "  chargeback again  " }), 200);
    assert.equal(await apply(t, name, 1000), false, "rejected once blacklisted again");

    const detail = expectJson(await api(t, "GET", path, { cookie: admin.cookie }), 200);
    assert.equal(detail.customer.blacklisted, true);
    assert.equal(detail.customer.applications, 4);
    assert.equal(detail.customer.approved, 1);
    assert.deepEqual(detail.changes, [
      {
        at: "2026-03-03T00:00:00.000Z",
        by: { id: admin.user.id, displayName: "Root Admin" },
        blacklisted: true,
        reason: "chargeback again",
      },
      {
        at: "2026-03-02T00:00:00.000Z",
        by: { id: admin.user.id, displayName: "Root Admin" },
        blacklisted: false,
        reason: long,
      },
    ]);
    const audit = expectJson(
      await api(t, "GET", "/api/admin/audit?action=loan.blacklist_changed", {
        cookie: admin.cookie,
      }),
      200,
    );
    assert.deepEqual(
      audit.items.map((r: Json) => [r.actorId, r.at, r.details]),
      [
        [admin.user.id, "2026-03-03T00:00:00.000Z", {
          customerName: name,
          from: false,
          to: true,
          reason: "chargeback again",
        }],
        [admin.user.id, "2026-03-02T00:00:00.000Z", {
          customerName: name,
          from: true,
          to: false,
          reason: long,
        }],
      ],
    );
    assert.equal(audit.items[0].clientAddress, "local");
  } finally {
    await t.close();
  }
});

Deno.test("a flag change whose audit row cannot be written leaves the flag and the history as they were", async () => {
  const t = await testApp();
  try {
    const { admin } = await people(t);
    await register(t, "Eve", true);
    // The audit log refuses rows: the change's transaction must roll back as a whole.
    await t.sql.run("ALTER TABLE audit_log RENAME TO audit_log_away");
    const res = await api(t, "PATCH", "/api/loan/customers/Eve", {
      cookie: admin.cookie,
      body: { blacklisted: false, reason: "cleared" },
    });
    assert.equal(res.status, 500);
    await t.sql.run("ALTER TABLE audit_log_away RENAME TO audit_log");
    assert.equal(await t.sql.count("loan_blacklist_changes"), 0);
    assert.equal(await apply(t, "Eve", 100), false, "still blacklisted");
  } finally {
    await t.close();
  }
});

/** Stores a decision as the loan service does, at `at`. */
async function decision(
  t: TestApp,
  name: string,
  at: string,
  outcome: "approved" | "blacklisted" | "low_score",
  amount = 1000,
): Promise<void> {
  const reason = outcome === "approved"
    ? null
    : outcome === "blacklisted"
    ? "Applicant is blacklisted"
    : "Credit score too low";
  await t.sql.run(
    `INSERT INTO loan_history (applicant_name, requested_amount, approved, approved_rate,
       rejection_reason, processed_at) VALUES (?, ?, ?, ?, ?, ?)`,
    [name, amount, reason === null ? 1 : 0, reason === null ? 3.5 : 0, reason, at],
  );
}

/** The admin's time zone set to Tokyo (UTC+9, no daylight saving). */
async function inTokyo(t: TestApp, cookie: string): Promise<void> {
  expectJson(
    await api(t, "PATCH", "/api/users/me", { cookie, body: { timeZone: "Asia/Tokyo" } }),
    200,
  );
}

Deno.test("decisions: filters by applicant, outcome, reason and days in the viewer's zone (inclusive), newest first, paged; bad filters are 400", async () => {
  const t = await testApp({ now: "2026-03-10T00:00:00.000Z" });
  try {
    const { admin } = await people(t);
    await inTokyo(t, admin.cookie);
    // 1 March in Tokyo runs from 2026-02-28T15:00Z to 2026-03-01T15:00Z.
    await decision(t, "Ann", "2026-02-28T14:59:59.999Z", "approved"); // 28 Feb in Tokyo
    await decision(t, "Ann", "2026-02-28T15:00:00.000Z", "blacklisted"); // 1 Mar
    await decision(t, "Ann Lee", "2026-03-01T14:59:59.999Z", "low_score", 70); // 1 Mar
    await decision(t, "Ben", "2026-03-01T15:00:00.000Z", "approved", 500); // 2 Mar
    await decision(t, "Ben", "2026-03-01T15:00:00.000Z", "low_score"); // 2 Mar, same instant
    const list = async (query: string) =>
      expectJson(await api(t, "GET", `/api/loan/decisions${query}`, { cookie: admin.cookie }), 200);
    const ids = async (query: string) => (await list(query)).items.map((d: Json) => d.id);

    const all = await list("");
    assert.deepEqual(all.items.map((d: Json) => d.id), [5, 4, 3, 2, 1]);
    assert.deepEqual(all.items[1], {
      id: 4,
      applicantName: "Ben",
      requestedAmount: 500,
      approved: true,
      approvedRate: 3.5,
      rejectionReason: null,
      processedAt: "2026-03-01T15:00:00.000Z",
    });
    assert.equal(all.items[0].rejectionReason, "low_score");
    assert.equal(all.items[3].rejectionReason, "blacklisted");
    assert.deepEqual(await ids("?applicant=Ann"), [2, 1]);
    assert.deepEqual(await ids(`?applicant=${enc("Ann Lee")}`), [3]);
    assert.deepEqual(await ids("?approved=true"), [4, 1]);
    assert.deepEqual(await ids("?approved=false"), [5, 3, 2]);
    assert.deepEqual(await ids("?reason=blacklisted"), [2]);
    assert.deepEqual(await ids("?reason=low_score"), [5, 3]);
    assert.deepEqual(await ids("?from=2026-03-01&to=2026-03-01"), [3, 2]);
    assert.deepEqual(await ids("?from=2026-03-02"), [5, 4]);
    assert.deepEqual(await ids("?to=2026-02-28"), [1]);
    assert.deepEqual(await ids("?from=2026-03-02&to=2026-03-01"), []);
    assert.deepEqual(await ids("?applicant=Ben&approved=false&from=2026-03-02&to=2026-03-02"), [5]);
    assert.deepEqual(await ids("?reason=low_score&approved=true"), []);
    assert.deepEqual(await ids("?reason=low_score&approved=false&applicant=Ben"), [5]);
    const page2 = await list("?pageSize=2&page=2");
    assert.deepEqual(page2.items.map((d: Json) => d.id), [3, 2]);
    assert.deepEqual([page2.total, page2.hasMore], [5, true]);
    const filteredPage = await list("?approved=false&pageSize=2");
    assert.deepEqual([filteredPage.total, filteredPage.hasMore], [3, true]);

    for (
      const bad of [
        "?from=2026-02-30",
        "?to=yesterday",
        "?from=2026-3-1",
        "?to=2026-03-01T00:00:00Z",
        "?reason=fraud",
        "?approved=1",
        "?applicant=",
      ]
    ) {
      expectError(
        await api(t, "GET", `/api/loan/decisions${bad}`, { cookie: admin.cookie }),
        400,
        "validation",
      );
      expectError(
        await api(t, "GET", `/api/loan/decisions.csv${bad}`, { cookie: admin.cookie }),
        400,
        "validation",
      );
    }
  } finally {
    await t.close();
  }
});

Deno.test("stats: each day in the viewer's zone with zeros for quiet days, by reason, amounts and totals; at most 366 days", async () => {
  const t = await testApp({ now: "2026-03-10T03:00:00.000Z" });
  try {
    const { admin } = await people(t);
    await inTokyo(t, admin.cookie);
    await decision(t, "Ann", "2026-02-28T14:59:59.999Z", "approved", 100); // 28 Feb in Tokyo
    await decision(t, "Ann", "2026-02-28T15:00:00.000Z", "blacklisted"); // 1 Mar
    await decision(t, "Ann", "2026-03-01T10:00:00.000Z", "approved", 250); // 1 Mar
    await decision(t, "Ann", "2026-03-01T14:59:59.999Z", "low_score"); // 1 Mar
    await decision(t, "Ben", "2026-03-02T15:00:00.000Z", "approved", 7); // 3 Mar
    await decision(t, "Ben", "2026-03-09T15:30:00.000Z", "approved", 1); // 10 Mar (today there)
    const stats = async (query: string) =>
      expectJson(await api(t, "GET", `/api/loan/stats${query}`, { cookie: admin.cookie }), 200);

    const span = await stats("?from=2026-02-28&to=2026-03-03");
    const zero = { blacklisted: 0, low_score: 0 };
    assert.deepEqual(span.days, [
      { date: "2026-02-28", approved: 1, rejected: 0, byReason: zero, amountApproved: 100 },
      {
        date: "2026-03-01",
        approved: 1,
        rejected: 2,
        byReason: { blacklisted: 1, low_score: 1 },
        amountApproved: 250,
      },
      { date: "2026-03-02", approved: 0, rejected: 0, byReason: zero, amountApproved: 0 },
      { date: "2026-03-03", approved: 1, rejected: 0, byReason: zero, amountApproved: 7 },
    ]);
    assert.deepEqual(span.totals, {
      approved: 3,
      rejected: 2,
      byReason: { blacklisted: 1, low_score: 1 },
      amountApproved: 357,
    });

    // Without dates: the 30 days to today in the viewer's zone (10 March in Tokyo).
    const recent = await stats("");
    assert.equal(recent.days.length, 30);
    assert.equal(recent.days[0].date, "2026-02-09");
    assert.equal(recent.days[29].date, "2026-03-10");
    assert.equal(recent.days[29].approved, 1);
    assert.equal(recent.totals.approved, 4);

    assert.equal((await stats("?from=2025-03-11&to=2026-03-11")).days.length, 366);
    for (
      const bad of [
        "?from=2025-03-10&to=2026-03-11",
        "?from=2026-03-02&to=2026-03-01",
        "?from=2026-02-30",
        "?to=03/01/2026",
      ]
    ) {
      expectError(
        await api(t, "GET", `/api/loan/stats${bad}`, { cookie: admin.cookie }),
        400,
        "validation",
      );
    }
  } finally {
    await t.close();
  }
});

Deno.test("stats: a day is the zone's calendar day, 23 hours long when the clocks go forward", async () => {
  const t = await testApp({ now: "2026-03-10T12:00:00.000Z" });
  try {
    const { admin } = await people(t);
    expectJson(
      await api(t, "PATCH", "/api/users/me", {
        cookie: admin.cookie,
        body: { timeZone: "America/New_York" },
      }),
      200,
    );
    // New York moves from UTC-5 to UTC-4 at 02:00 on 8 March 2026: 8 March runs from 05:00Z
    // to 04:00Z the next morning.
    await decision(t, "Ann", "2026-03-08T04:59:59.999Z", "approved", 1); // 7 Mar, 23:59 EST
    await decision(t, "Ann", "2026-03-09T03:59:59.999Z", "approved", 10); // 8 Mar, 23:59 EDT
    await decision(t, "Ann", "2026-03-09T04:30:00.000Z", "low_score"); // 9 Mar, 00:30 EDT
    const stats = expectJson(
      await api(t, "GET", "/api/loan/stats?from=2026-03-07&to=2026-03-09", {
        cookie: admin.cookie,
      }),
      200,
    );
    assert.deepEqual(
      stats.days.map((d: Json) => [d.date, d.approved, d.rejected, d.amountApproved]),
      [["2026-03-07", 1, 0, 1], ["2026-03-08", 1, 0, 10], ["2026-03-09", 0, 1, 0]],
    );
  } finally {
    await t.close();
  }
});

Deno.test("the CSV: headers, the file name of its dates, the same filters, newest first, and every row once across batches of equal instants", async () => {
  const t = await testApp({ now: "2026-03-10T00:00:00.000Z" });
  try {
    const { admin } = await people(t);
    await decision(t, "Ann", "2026-03-01T10:00:00.000Z", "approved", 10);
    await decision(t, "Ben", "2026-03-02T10:00:00.000Z", "low_score", 20);
    const csv = (query: string) =>
      api(t, "GET", `/api/loan/decisions.csv${query}`, { cookie: admin.cookie });

    const both = await csv("?from=2026-03-01&to=2026-03-31");
    assert.equal(both.status, 200);
    assert.equal(both.headers.get("content-type"), "text/csv; charset=utf-8");
    assert.equal(
      both.headers.get("content-disposition"),
      'attachment; filename="loan-decisions-2026-03-01-2026-03-31.csv"',
    );
    assert.equal(
      both.text,
      "id,applicantName,requestedAmount,approved,approvedRate,rejectionReason,processedAt\r\n" +
        "2,Ben,20,false,0,low_score,2026-03-02T10:00:00.000Z\r\n" +
        "1,Ann,10,true,3.5,,2026-03-01T10:00:00.000Z\r\n",
    );
    const plain = await csv("");
    assert.equal(
      plain.headers.get("content-disposition"),
      'attachment; filename="loan-decisions.csv"',
    );
    assert.equal((await csv("?approved=true")).text.split("\r\n").length, 3);
    assert.equal((await csv("?applicant=Nobody")).text.split("\r\n").length, 2);

    // 12,001 rows at one instant: batches of 5,000 must go on by id within the instant.
    await t.sql.run(
      `INSERT INTO loan_history (applicant_name, requested_amount, approved, approved_rate,
         rejection_reason, processed_at)
       SELECT 'Same', 1, 1, 3.5, NULL, '2026-03-05T00:00:00.000Z'
       FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 12001)
             SELECT i FROM n) AS numbers`,
    );
    const many = await csv("?applicant=Same");
    const lines = many.text.split("\r\n").slice(1, -1);
    assert.equal(lines.length, 12_001);
    const ids = lines.map((line) => Number(line.split(",")[0]));
    assert.equal(new Set(ids).size, 12_001);
    assert.deepEqual(ids, [...ids].sort((a, b) => b - a), "newest (highest id) first");
    const everything = await csv("");
    assert.equal(everything.text.split("\r\n").length - 2, 12_003);
  } finally {
    await t.close();
  }
});
