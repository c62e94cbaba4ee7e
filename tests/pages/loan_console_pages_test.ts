/**
 * The loan console's pages (/loan-console): only admins and loan officers see its link and
 * open it (others the 403 page); the chart of the last 30 days is SVG with a table of the same
 * numbers; the customers' search and flag filter; the blacklist switch as a plain form post
 * that asks for the reason (a refused one shows the page again with 400 and changes nothing),
 * the customer's history; the decisions' filters with a CSV link of the same filters; in English
 * and Japanese.
 */
import assert from "node:assert/strict";
import { type TestApp, testApp } from "../helpers/app.ts";
import { api, expectJson, signUp } from "../helpers/api.ts";
import { application, post as soap, registration } from "../helpers/soap.ts";
import { page, post } from "./page_requests.ts";

async function seed(t: TestApp) {
  const admin = await signUp(t, "root@example.com", { displayName: "Root Admin" });
  const member = await signUp(t, "mo@example.com");
  for (
    const [name, flag] of [["Ada Lovelace", false], ["Bad Actor", true], [
      "山田 太郎",
      false,
    ]] as const
  ) {
    await soap(t, "/loan", registration(name, flag));
    await soap(t, "/loan", application(name, 1000));
  }
  return { admin, member };
}

Deno.test("the console's link and pages are for admins and loan officers only", async () => {
  const t = await testApp();
  try {
    const { admin, member } = await seed(t);
    const home = await page(t, member.cookie, "/");
    assert.doesNotMatch(home.html, /href="\/loan-console"/);
    for (
      const path of [
        "/loan-console",
        "/loan-console/decisions",
        "/loan-console/customers/Bad%20Actor",
      ]
    ) {
      assert.equal((await page(t, member.cookie, path)).status, 403, path);
    }
    const refused = await post(t, member.cookie, "/loan-console/customers/Bad%20Actor/blacklist", {
      blacklisted: "false",
      reason: "let me in",
    });
    assert.equal(refused.status, 403);
    assert.equal(await t.sql.count("loan_blacklist_changes"), 0);

    assert.match((await page(t, admin.cookie, "/")).html, /href="\/loan-console"/);
    // An admin marks the member a loan officer on the admin page's form.
    const marked = await post(t, admin.cookie, `/admin/users/${member.user.id}`, {
      role: "member",
      status: "active",
      loanOfficer: "true",
    });
    assert.equal(marked.status, 303);
    assert.match((await page(t, member.cookie, "/")).html, /href="\/loan-console"/);
    assert.equal((await page(t, member.cookie, "/loan-console")).status, 200);
  } finally {
    await t.close();
  }
});

Deno.test("the console page: the 30-day chart as SVG with its table, the customers' search and filter", async () => {
  const t = await testApp();
  try {
    const { admin } = await seed(t);
    const all = await page(t, admin.cookie, "/loan-console");
    assert.equal(all.status, 200);
    assert.match(all.html, /<svg viewBox="0 0 600 200" class="chart" aria-hidden="true"/);
    assert.equal([...all.html.matchAll(/data-chart-day="/g)].length, 30);
    assert.match(all.html, /<table data-chart-table="true"><caption>Decisions in the last 30 days/);
    assert.match(all.html, /2 approved, 1 rejected\./);
    assert.doesNotMatch(all.html, /<script(?! type="module" src="\/static\/)/, "no inline script");
    const shown = (html: string) => [...html.matchAll(/data-customer="([^"]+)"/g)].map((m) => m[1]);
    assert.deepEqual(shown(all.html).sort(), ["Ada Lovelace", "Bad Actor", "山田 太郎"]);
    assert.deepEqual(shown((await page(t, admin.cookie, "/loan-console?q=Act")).html), [
      "Bad Actor",
    ]);
    assert.deepEqual(shown((await page(t, admin.cookie, "/loan-console?q=act")).html), []);
    assert.deepEqual(
      shown((await page(t, admin.cookie, "/loan-console?blacklisted=true")).html),
      ["Bad Actor"],
    );
    assert.equal((await page(t, admin.cookie, "/loan-console?blacklisted=maybe")).status, 400);

    expectJson(
      await api(t, "PATCH", "/api/users/me", { cookie: admin.cookie, body: { locale: "ja" } }),
      200,
    );
    const ja = await page(t, admin.cookie, "/loan-console");
    assert.match(ja.html, /<h1>ローン管理コンソール<\/h1>/);
    assert.match(ja.html, /過去 30 日間の審査結果/);
  } finally {
    await t.close();
  }
});

Deno.test("the blacklist switch posts with a reason; without one the page answers 400 and nothing changes; the history shows the change", async () => {
  const t = await testApp();
  try {
    const { admin } = await seed(t);
    const path = "/loan-console/customers/Bad%20Actor";
    const before = await page(t, admin.cookie, path);
    assert.equal(before.status, 200);
    assert.match(before.html, /data-history-none/);
    assert.match(before.html, /action="\/loan-console\/customers\/Bad%20Actor\/blacklist"/);

    const empty = await post(t, admin.cookie, `${path}/blacklist`, {
      blacklisted: "false",
      reason: " ",
    });
    assert.equal(empty.status, 400);
    assert.match(empty.html, /class="field-error"/);
    const long = await post(t, admin.cookie, `${path}/blacklist`, {
      blacklisted: "false",
      reason: "x".repeat(10 * 1024),
    });
    assert.equal(long.status, 400);
    assert.equal(await t.sql.count("loan_blacklist_changes"), 0);
    assert.equal(
      (await post(t, admin.cookie, "/loan-console/customers/Nobody/blacklist", {
        blacklisted: "false",
        reason: "who?",
      })).status,
      404,
    );
    assert.equal((await page(t, admin.cookie, "/loan-console/customers/Nobody")).status, 404);

    const done = await post(t, admin.cookie, `${path}/blacklist`, {
      blacklisted: "false",
      reason: "Paid in full <b>today</b>",
    });
    assert.equal(done.status, 303);
    assert.equal(done.location, path);
    const after = await page(t, admin.cookie, path);
    assert.match(after.html, /data-change-blacklisted="false"/);
    assert.match(
      after.html,
      /<td data-change-reason="true">Paid in full &lt;b&gt;today&lt;\/b&gt;<\/td>/,
    );
    assert.match(after.html, /<td>Root Admin<\/td>/);
    const res = await soap(t, "/loan", application("Bad Actor", 1000));
    assert.match(res.text, /<approved>true<\/approved>/);
  } finally {
    await t.close();
  }
});

Deno.test("the decisions page filters as the API does and links the CSV of the same filters", async () => {
  const t = await testApp();
  try {
    const { admin } = await seed(t);
    const all = await page(t, admin.cookie, "/loan-console/decisions");
    assert.equal(all.status, 200);
    assert.equal([...all.html.matchAll(/data-decision="/g)].length, 3);
    assert.match(all.html, /href="\/api\/loan\/decisions.csv" download/);
    const rejected = await page(
      t,
      admin.cookie,
      "/loan-console/decisions?approved=false&reason=blacklisted&from=2026-11-01",
    );
    assert.equal([...rejected.html.matchAll(/data-decision="/g)].length, 1);
    assert.match(
      rejected.html,
      /href="\/api\/loan\/decisions.csv\?approved=false&amp;reason=blacklisted&amp;from=2026-11-01"/,
    );
    const bad = await page(t, admin.cookie, "/loan-console/decisions?from=2026-02-30");
    assert.equal(bad.status, 400);
    assert.match(bad.html, /role="alert"/);
  } finally {
    await t.close();
  }
});
