/** iCalendar writing: escaping, folding at 75 octets, values, and a whole calendar. */
import assert from "node:assert/strict";
import { renderCalendar } from "../../../domain/integrations/calendar_feeds.ts";
import {
  contentLine,
  dateValue,
  escapeText,
  foldLine,
  instantValue,
  mailto,
  MAX_LINE_OCTETS,
  nextDateValue,
  paramValue,
} from "../../../domain/formats/ical.ts";

const encoder = new TextEncoder();
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const strict = new TextDecoder("utf-8", { fatal: true });

/** The physical lines of a folded text (each must end with CRLF). */
function physicalLines(text: string): string[] {
  assert.ok(text.endsWith("\r\n"), "ends with CRLF");
  const lines = text.slice(0, -2).split("\r\n");
  for (const line of lines) assert.ok(!/[\r\n]/.test(line), "no bare CR or LF");
  return lines;
}

/** Asserts that `folded` is `original` folded by RFC 5545's rules. */
function assertFolded(folded: string, original: string): void {
  const lines = physicalLines(folded);
  lines.forEach((line, i) => {
    const bytes = encoder.encode(line);
    assert.ok(bytes.length <= MAX_LINE_OCTETS, `line ${i} has ${bytes.length} octets`);
    // Each physical line is whole UTF-8 on its own: no sequence was split.
    assert.equal(strict.decode(bytes), line);
    if (i > 0) assert.equal(line[0], " ", "a continuation starts with one space");
  });
  // Unfolding (RFC 5545 §3.1) gives the line back.
  assert.equal(folded.slice(0, -2).replace(/\r\n /g, ""), original);
}

Deno.test("escapeText escapes backslash, semicolon, comma and every kind of line break", () => {
  assert.equal(escapeText("a\\b;c,d"), "a\\\\b\\;c\\,d");
  assert.equal(escapeText("one\ntwo\r\nthree\rfour"), "one\\ntwo\\nthree\\nfour");
  assert.equal(escapeText("tab\tstays"), "tab\tstays");
  assert.equal(
    escapeText("bell\u0007 and nul\u0000 go; del\u007f too"),
    "bell and nul go\\; del too",
  );
  assert.equal(escapeText("日本語、カンマ,セミコロン;"), "日本語、カンマ\\,セミコロン\\;");
  assert.equal(escapeText("colon: stays"), "colon: stays");
});

Deno.test("foldLine leaves lines of up to 75 octets alone and ends them with CRLF", () => {
  assert.equal(foldLine("SUMMARY:short"), "SUMMARY:short\r\n");
  const exact = "X".repeat(75);
  assert.equal(foldLine(exact), `${exact}\r\n`);
  const japanese = "SUMMARY:" + "あ".repeat(22) + "a"; // 8 + 66 + 1 = 75 octets
  assert.equal(encoder.encode(japanese).length, 75);
  assert.equal(foldLine(japanese), `${japanese}\r\n`);
});

Deno.test("foldLine folds at 75 octets with CRLF and one space", () => {
  const line = "X".repeat(76);
  assert.equal(foldLine(line), `${"X".repeat(75)}\r\n X\r\n`);
  const long = "D".repeat(75 + 74 + 10);
  assert.equal(foldLine(long), `${"D".repeat(75)}\r\n ${"D".repeat(74)}\r\n ${"D".repeat(10)}\r\n`);
});

Deno.test("foldLine never splits a Japanese character at the fold boundary", () => {
  // 74 ASCII octets then a 3-octet character: it would end at octet 77, so it moves down.
  const line = "S".repeat(74) + "会議";
  const folded = foldLine(line);
  assert.equal(folded, `${"S".repeat(74)}\r\n 会議\r\n`);
  assertFolded(folded, line);
  // Every offset of a 3-octet character against the boundary.
  for (let pad = 60; pad <= 80; pad++) {
    const text = "S".repeat(pad) + "日本語のタイトル、カンマ付き".repeat(4);
    assertFolded(foldLine(text), text);
  }
});

Deno.test("foldLine never splits a 4-octet character (an emoji, a surrogate pair) or a 2-octet one", () => {
  for (let pad = 68; pad <= 76; pad++) {
    for (const char of ["🎉", "𠮷", "é", "Ω"]) {
      const text = "E".repeat(pad) + char.repeat(40);
      assertFolded(foldLine(text), text);
    }
  }
});

Deno.test("foldLine keeps every invariant for mixed text of many lengths", () => {
  const alphabet = ["a", "Z", " ", "\\,", "é", "あ", "漢", "🎉", "𠮷", "\\n"];
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let n = 0; n < 300; n++) {
    let text = "DESCRIPTION:";
    const length = Math.floor(random() * 400);
    for (let i = 0; i < length; i++) text += alphabet[Math.floor(random() * alphabet.length)];
    assertFolded(foldLine(text), text);
  }
});

Deno.test("contentLine writes parameters before the value and folds the whole line", () => {
  assert.equal(
    contentLine("DTSTART", "20261201", [["VALUE", "DATE"]]),
    "DTSTART;VALUE=DATE:20261201\r\n",
  );
  const line = contentLine("ATTENDEE", mailto("a@example.com"), [[
    "CN",
    paramValue("長い名前".repeat(10)),
  ]]);
  assertFolded(line, `ATTENDEE;CN="${"長い名前".repeat(10)}":mailto:a@example.com`);
});

Deno.test("Values: DATE, UTC DATE-TIME, quoted parameters and mailto addresses", () => {
  assert.equal(dateValue("2026-12-01"), "20261201");
  assert.equal(instantValue("2026-11-22T08:30:05.123Z"), "20261122T083005Z");
  assert.equal(paramValue('Ann "the boss"; A, B: C'), `"Ann 'the boss'; A, B: C"`);
  assert.equal(paramValue("line\nbreak\u0001"), '"line break "');
  assert.equal(mailto("ann+tag@example.com"), "mailto:ann+tag@example.com");
  assert.equal(mailto("a;b,c?@example.com"), "mailto:a%3Bb%2Cc%3F@example.com");
});

Deno.test("renderCalendar writes all-day items as VALUE=DATE with an exclusive DTEND, times in UTC", () => {
  const stamp = { updatedAt: "2026-11-02T03:04:05.000Z" };
  const text = decode(renderCalendar(
    "Apollo; 計画",
    [
      {
        type: "event",
        id: 1,
        title: "Launch",
        description: "Line one\nLine two",
        start: "2026-12-01T09:00:00.000Z",
        end: "2026-12-01T10:30:00.000Z",
        allDay: false,
        ...stamp,
      },
      {
        type: "event",
        id: 2,
        title: "Offsite",
        description: null,
        start: "2026-12-02T00:00:00.000Z",
        end: "2026-12-04T00:00:00.000Z",
        allDay: true,
        ...stamp,
      },
      {
        type: "milestone",
        id: 3,
        title: "Beta",
        description: null,
        start: "2026-12-31",
        end: "2026-12-31",
        allDay: true,
        ...stamp,
      },
      {
        type: "todo",
        id: 4,
        title: "Write docs",
        description: null,
        start: "2027-01-01",
        end: "2027-01-03",
        allDay: true,
        ...stamp,
      },
    ],
    [{
      id: 5,
      projectId: 7,
      title: "Review",
      startAt: "2026-12-01T09:30:00.000Z",
      endAt: "2026-12-01T09:30:00.000Z",
      location: "Room 1, floor 2",
      organizer: { id: 1, displayName: "Ann", email: "ann@example.com" },
      invitees: [{ id: 2, displayName: "Bob", email: "bob@example.com" }],
      ...stamp,
    }],
  ));
  const lines = physicalLines(text);
  assert.deepEqual(lines.slice(0, 9), [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//Collab//Calendar feed 1.0//EN",
    "CALSCALE:GREGORIAN",
    "METHOD:PUBLISH",
    "NAME:Apollo\\; 計画",
    "X-WR-CALNAME:Apollo\\; 計画",
    "REFRESH-INTERVAL;VALUE=DURATION:PT1H",
    "X-PUBLISHED-TTL:PT1H",
  ]);
  assert.equal(lines.at(-1), "END:VCALENDAR");
  assert.ok(!text.includes("VTIMEZONE"));
  const events = text.split("BEGIN:VEVENT\r\n").slice(1).map((e) => e.split("\r\n"));
  assert.deepEqual(events.map((e) => e[0]), [
    "UID:event-1@collab",
    "UID:meeting-5@collab",
    "UID:event-2@collab",
    "UID:milestone-3@collab",
    "UID:todo-4@collab",
  ]);
  const [timed, meeting, offsite, milestone, todo] = events;
  assert.ok(timed!.includes("DTSTART:20261201T090000Z"));
  assert.ok(timed!.includes("DTEND:20261201T103000Z"));
  assert.ok(timed!.includes("DTSTAMP:20261102T030405Z"));
  assert.ok(timed!.includes("DESCRIPTION:Line one\\nLine two"));
  assert.ok(meeting!.includes("DTSTART:20261201T093000Z"));
  assert.ok(!meeting!.some((l) => l.startsWith("DTEND")), "an instant meeting has no DTEND");
  assert.ok(meeting!.includes("LOCATION:Room 1\\, floor 2"));
  assert.ok(meeting!.includes('ORGANIZER;CN="Ann":mailto:ann@example.com'));
  assert.ok(meeting!.includes('ATTENDEE;CN="Bob";ROLE=REQ-PARTICIPANT:mailto:bob@example.com'));
  assert.ok(offsite!.includes("DTSTART;VALUE=DATE:20261202"));
  assert.ok(offsite!.includes("DTEND;VALUE=DATE:20261204"), "the end instant is exclusive");
  assert.ok(milestone!.includes("DTSTART;VALUE=DATE:20261231"));
  assert.ok(milestone!.includes("DTEND;VALUE=DATE:20270101"), "the day after, across a year");
  assert.ok(todo!.includes("DTSTART;VALUE=DATE:20270101"));
  assert.ok(todo!.includes("DTEND;VALUE=DATE:20270104"), "the day after the last day");
  assert.deepEqual(
    events.map((e) => e.find((l) => l.startsWith("SUMMARY:"))),
    ["Launch", "Review", "Offsite", "Beta", "Write docs"].map((s) => `SUMMARY:${s}`),
  );
  assert.equal(events.filter((e) => e.includes("TRANSP:TRANSPARENT")).length, 2);
});

Deno.test("escapeText handles escapes at the very start and end, lone CRs and DEL", () => {
  assert.equal(escapeText(",start"), "\\,start");
  assert.equal(escapeText("end;"), "end\\;");
  assert.equal(escapeText("\r\n"), "\\n");
  assert.equal(escapeText("a\r"), "a\\n");
  assert.equal(escapeText("\n\n"), "\\n\\n");
  assert.equal(escapeText("\u007f"), "");
  assert.equal(escapeText("plain 日本語"), "plain 日本語");
  assert.equal(escapeText(""), "");
});

Deno.test("nextDateValue is the day after, across months, years and leap days", () => {
  const cases: Array<[string, string]> = [
    ["2026-12-01", "20261202"],
    ["2026-01-31", "20260201"],
    ["2026-02-28", "20260301"],
    ["2024-02-28", "20240229"],
    ["2024-02-29", "20240301"],
    ["1900-02-28", "19000301"],
    ["2000-02-28", "20000229"],
    ["2026-12-31", "20270101"],
    ["0001-01-01", "00010102"],
  ];
  for (const [date, next] of cases) assert.equal(nextDateValue(date), next, date);
  // Every day of four years agrees with Date arithmetic.
  for (let ms = Date.UTC(2023, 0, 1); ms < Date.UTC(2027, 0, 1); ms += 86_400_000) {
    const date = new Date(ms).toISOString().slice(0, 10);
    const next = new Date(ms + 86_400_000).toISOString().slice(0, 10).replaceAll("-", "");
    assert.equal(nextDateValue(date), next, date);
  }
});

Deno.test("An all-day event ends the day after the last day its exclusive endAt reaches", () => {
  const event = (id: number, start: string, end: string) => ({
    type: "event" as const,
    id,
    title: `e${id}`,
    description: null,
    start,
    end,
    allDay: true,
    updatedAt: "2026-11-02T03:04:05.000Z",
  });
  const text = decode(renderCalendar("x", [
    event(1, "2026-12-02T00:00:00.000Z", "2026-12-04T00:00:00.000Z"),
    event(2, "2026-12-02T00:00:00.000Z", "2026-12-04T10:00:00.000Z"),
    event(3, "2026-12-02T00:00:00.000Z", "2026-12-02T00:00:00.000Z"),
    event(4, "2026-12-02T15:00:00.000Z", "2026-12-03T00:00:00.000Z"),
    event(5, "2026-12-31T09:00:00.000Z", "2026-12-31T09:00:00.000Z"),
  ], []));
  const spans = text.split("BEGIN:VEVENT\r\n").slice(1).map((e) =>
    e.split("\r\n").filter((l) => l.startsWith("DTSTART") || l.startsWith("DTEND"))
  );
  assert.deepEqual(spans, [
    ["DTSTART;VALUE=DATE:20261202", "DTEND;VALUE=DATE:20261204"],
    ["DTSTART;VALUE=DATE:20261202", "DTEND;VALUE=DATE:20261205"],
    ["DTSTART;VALUE=DATE:20261202", "DTEND;VALUE=DATE:20261203"],
    ["DTSTART;VALUE=DATE:20261202", "DTEND;VALUE=DATE:20261203"],
    ["DTSTART;VALUE=DATE:20261231", "DTEND;VALUE=DATE:20270101"],
  ]);
});

Deno.test("A calendar larger than one encoded chunk comes out whole and in order", () => {
  const items = Array.from({ length: 3000 }, (_, i) => ({
    type: "todo" as const,
    id: i + 1,
    title: `タスク ${i + 1}, 日本語; の題名`,
    description: i % 2 ? "一行目\n二行目" : null,
    start: "2026-12-01",
    end: "2026-12-02",
    allDay: true,
    updatedAt: "2026-11-02T03:04:05.000Z",
  }));
  const text = decode(renderCalendar("x", items, []));
  assertFolded(text.slice(0, text.indexOf("\r\n") + 2), "BEGIN:VCALENDAR");
  const uids = [...text.matchAll(/^UID:todo-(\d+)@collab\r$/gm)].map((m) => Number(m[1]));
  assert.deepEqual(uids, items.map((item) => item.id));
  assert.equal(text.split("SUMMARY:タスク ").length - 1, 3000);
  assert.ok(text.endsWith("END:VEVENT\r\nEND:VCALENDAR\r\n"));
  for (const line of physicalLines(text)) assert.ok(encoder.encode(line).length <= 75);
});
