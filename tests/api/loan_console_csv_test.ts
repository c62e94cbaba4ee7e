/**
 * The loan decisions' CSV read back by an independent parser (Debian's python3 `csv` module):
 * names with Japanese text, commas, double quotes and line breaks come back intact, and a text
 * cell that a spreadsheet would run as a formula comes back with its `'` in front. And the
 * records SQL builds are the bytes the JavaScript formatter writes for the same decisions.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { CSV_FIELDS, type Decision, decisionCsvRecord } from "../../domain/loan/console.ts";
import { csvRecord } from "../../domain/formats/csv.ts";
import { testApp } from "../helpers/app.ts";
import { api, expectJson, signUp } from "../helpers/api.ts";
import { runPython } from "../helpers/python.ts";
import { application, post } from "../helpers/soap.ts";

const SCRIPT = join(import.meta.dirname!, "csv_parse.py");

/** The records of `csv` as Python's csv module reads them. */
async function parseWithPython(csv: string): Promise<string[][]> {
  const dir = await Deno.makeTempDir({ prefix: "csv-parse-" });
  try {
    const file = join(dir, "decisions.csv");
    await Deno.writeTextFile(file, csv);
    return JSON.parse(await runPython(SCRIPT, [file]));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** XML text of `name` (the SOAP envelope carries it escaped). */
function xmlText(name: string): string {
  return name.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll("\r", "&#13;");
}

Deno.test("the CSV parses back with Python's csv module: names intact, formula cells neutralised", async () => {
  const t = await testApp({ now: "2026-03-01T00:00:00.000Z" });
  try {
    const { cookie } = await signUp(t, "root@example.com");
    const names = [
      "山田 太郎",
      "Smith, John",
      'Anne "Nan" O\'Hara',
      "two\r\nlines",
      "line\nfeed",
      '=HYPERLINK("http://evil.example","click")',
      "+1 555 0100",
      "-2+3",
      "@SUM(A1:A9)",
      "plain",
    ];
    for (const [i, name] of names.entries()) {
      t.clock.set(new Date(Date.UTC(2026, 2, 1, 0, 0, i)));
      const res = await post(t, "/loan", application(xmlText(name), 100 + i));
      assert.equal(res.status, 200, res.text);
    }
    const res = await api(t, "GET", "/api/loan/decisions.csv", { cookie });
    assert.equal(res.status, 200);
    const rows = await parseWithPython(res.text);
    assert.deepEqual(rows[0], [
      "id",
      "applicantName",
      "requestedAmount",
      "approved",
      "approvedRate",
      "rejectionReason",
      "processedAt",
    ]);
    const expected = names.map((name, i) => [
      String(i + 1),
      /^[=+\-@]/.test(name) ? `'${name}` : name,
      String(100 + i),
      "true",
      "3.5",
      "",
      new Date(Date.UTC(2026, 2, 1, 0, 0, i)).toISOString(),
    ]).reverse();
    assert.deepEqual(rows.slice(1), expected);
    // Every record ends with CRLF, the quoted line breaks inside names aside.
    assert.ok(res.text.endsWith("\r\n"));
    assert.equal(res.text.replaceAll("\r\n", "").includes("\r"), false);
  } finally {
    await t.close();
  }
});

Deno.test("the CSV's records, built by SQL, are byte for byte the JSON's decisions as the JavaScript formatter writes them", async () => {
  const t = await testApp({ now: "2026-03-01T00:00:00.000Z" });
  try {
    const { cookie } = await signUp(t, "root@example.com");
    // Names with every character the quoting and the formula rule look at, where they look;
    // whole and fractional rates; both stored rejection texts and an unknown one.
    const rows: Array<[string, number, number, string | null]> = [
      ["Smith, John", 100, 3.5, null],
      ['say "hi"', 101, 5.5, null],
      ["cr\rinside", 102, 8.5, null],
      ["lf\ninside", 103, 7, null],
      ["crlf\r\n", 104, 0.1, null],
      ["=1+2", 105, 2.675, null],
      ['=HYPERLINK("x","y")', 106, 12.25, null],
      ["+1", 107, 0, "Applicant is blacklisted"],
      ["-x", 108, 0, "Credit score too low"],
      ["@me", 109, 0, "something else"],
      ["'quoted already", 110, 3.5, null],
      [" =space first", 111, 3.5, null],
      ["山田 太郎", 99_999_999_999, 3.5, null],
      ["", 112, 3.5, null],
      ["tab\tand;semicolon", 113, 3.5, null],
      ['"', 114, 3.5, null],
    ];
    for (const [i, [name, amount, rate, reason]] of rows.entries()) {
      await t.sql.run(
        `INSERT INTO loan_history (applicant_name, requested_amount, approved, approved_rate,
           rejection_reason, processed_at) VALUES (?, ?, ?, ?, ?, ?)`,
        [
          name,
          amount,
          reason === null ? 1 : 0,
          rate,
          reason,
          new Date(Date.UTC(2026, 1, 1, 0, 0, i % 3)).toISOString(),
        ],
      );
    }
    const page = await expectJson(
      await api(t, "GET", "/api/loan/decisions?pageSize=100", { cookie }),
      200,
    );
    assert.equal(page.items.length, rows.length);
    const res = await api(t, "GET", "/api/loan/decisions.csv", { cookie });
    assert.equal(res.status, 200);
    assert.equal(
      res.text,
      csvRecord(CSV_FIELDS) + page.items.map((d: Decision) => decisionCsvRecord(d)).join(""),
    );
  } finally {
    await t.close();
  }
});
