/**
 * Calendar feeds: the URLs, the iCalendar documents (checked byte by byte here, and parsed by
 * an independent parser, Debian's python3-icalendar, whose reading is compared item by item
 * with the API's `/calendar` and meetings answers), ETag/304, reset and membership.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { scryptHasher } from "../../domain/accounts/passwords.ts";
import { createApp } from "../../routes/app.ts";
import { type TestApp, testApp } from "../helpers/app.ts";
import {
  addMember,
  api,
  createProject,
  expectError,
  expectJson,
  expectNoContent,
  type Json,
  PASSWORD,
  signUp,
} from "../helpers/api.ts";
import { pythonModule, runPython } from "../helpers/python.ts";

const SCRIPT = join(import.meta.dirname!, "ics_parse.py");
const NOW = "2026-11-22T08:30:00.000Z";

const icalendar = await pythonModule("icalendar", "the independent iCalendar parse of the feeds");

async function post(t: TestApp, cookie: string, path: string, body: unknown): Promise<Json> {
  return expectJson(await api(t, "POST", path, { cookie, body }), 201);
}

/** The feed URLs of `cookie`'s user. */
async function feedUrls(t: TestApp, cookie: string): Promise<Json> {
  return expectJson(await api(t, "GET", "/api/me/calendar-feed", { cookie }), 200).urls;
}

/** Fetches a feed URL (absolute) in process, without any cookie. */
async function fetchFeed(t: TestApp, url: string, headers: Record<string, string> = {}) {
  const u = new URL(url);
  const res = await t.app.request(u.pathname, { headers });
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { res, bytes, text: new TextDecoder().decode(bytes) };
}

/**
 * A world: Ada owns Apollo (with dated and undated things of every kind, Japanese text,
 * commas, semicolons and line breaks), is a member of Zeus (Bob's), and not of Hermes.
 */
async function world(t: TestApp) {
  const ada = await signUp(t, "ada@example.com", { displayName: 'Ada; Lovelace, "the first"' });
  const bob = await signUp(t, "bob@example.com", { displayName: "ボブ" });
  const apollo = await createProject(t, ada.cookie, "Apollo, 計画; 第一");
  const zeus = await createProject(t, bob.cookie, "Zeus");
  const hermes = await createProject(t, bob.cookie, "Hermes");
  await addMember(t, ada.cookie, apollo.id, "bob@example.com", "member");
  await addMember(t, bob.cookie, zeus.id, "ada@example.com", "member");
  const a = `/api/projects/${apollo.id}`;
  const longTitle = "S".repeat(60) + "日本語の会議、カンマ,セミコロン;改行";
  await post(t, ada.cookie, `${a}/calendar/events`, {
    title: longTitle,
    description: "一行目\n二行目, with a comma; and a semicolon \\ backslash",
    startAt: "2026-12-01T09:00:00.000Z",
    endAt: "2026-12-01T10:30:00.000Z",
  });
  await post(t, ada.cookie, `${a}/calendar/events`, {
    title: "Offsite\nday two",
    startAt: "2026-12-02T00:00:00.000Z",
    endAt: "2026-12-04T00:00:00.000Z",
    allDay: true,
  });
  await post(t, ada.cookie, `${a}/calendar/events`, {
    title: "Deadline instant",
    startAt: "2026-12-05T17:00:00+09:00",
    endAt: "2026-12-05T17:00:00+09:00",
  });
  const gone = await post(t, ada.cookie, `${a}/calendar/events`, {
    title: "Cancelled",
    startAt: "2026-12-06T09:00:00.000Z",
    endAt: "2026-12-06T10:00:00.000Z",
  });
  expectNoContent(
    await api(t, "DELETE", `${a}/calendar/events/${gone.event.id}`, { cookie: ada.cookie }),
  );
  await post(t, ada.cookie, `${a}/milestones`, { title: "ベータ版", dueDate: "2026-12-31" });
  await post(t, ada.cookie, `${a}/milestones`, { title: "Someday" });
  await post(t, ada.cookie, `${a}/todos/items`, {
    title: "Span",
    startDate: "2026-12-10",
    dueDate: "2026-12-12",
  });
  await post(t, ada.cookie, `${a}/todos/items`, { title: "Due only", dueDate: "2026-12-15" });
  await post(t, ada.cookie, `${a}/todos/items`, { title: "Start only", startDate: "2026-12-16" });
  await post(t, ada.cookie, `${a}/todos/items`, { title: "Undated" });
  const done = await post(t, ada.cookie, `${a}/todos/items`, {
    title: "Done already",
    dueDate: "2026-11-30",
  });
  expectJson(
    await api(t, "POST", `${a}/todos/items/${done.item.id}/toggle-complete`, {
      cookie: ada.cookie,
    }),
    200,
  );
  await post(t, ada.cookie, `${a}/meetings`, {
    title: "レビュー会議",
    startAt: "2026-12-01T09:30:00.000Z",
    endAt: "2026-12-01T10:00:00.000Z",
    location: "会議室 3, 2F; east wing",
    inviteeIds: [bob.user.id],
  });
  await post(t, bob.cookie, `/api/projects/${zeus.id}/calendar/events`, {
    title: "Zeus launch",
    startAt: "2026-12-20T12:00:00.000Z",
    endAt: "2026-12-20T13:00:00.000Z",
  });
  await post(t, bob.cookie, `/api/projects/${zeus.id}/milestones`, {
    title: "Zeus GA",
    dueDate: "2027-01-15",
  });
  await post(t, bob.cookie, `/api/projects/${hermes.id}/calendar/events`, {
    title: "Hermes secret",
    startAt: "2026-12-21T12:00:00.000Z",
    endAt: "2026-12-21T13:00:00.000Z",
  });
  return { ada, bob, apollo, zeus, hermes };
}

/** `YYYY-MM-DD` moved by `days`. */
function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00.000Z`) + days * 86_400_000).toISOString()
    .slice(0, 10);
}

/** An API instant at iCalendar's precision (seconds). */
function seconds(iso: string): string {
  return iso.slice(0, 19) + "Z";
}

/** The last UTC day an instant span reaches (`end` exclusive; an empty span is its start). */
function lastDay(start: string, end: string): string {
  const endMs = Date.parse(end);
  return endMs > Date.parse(start)
    ? new Date(endMs - 1).toISOString().slice(0, 10)
    : start.slice(0, 10);
}

/** A name as a parameter value holds it: a DQUOTE cannot be in one (RFC 5545 §3.1). */
function paramText(name: string): string {
  return name.replaceAll('"', "'");
}

/** What a feed must say about each item of a project, from the API's own answers. */
async function expectedItems(t: TestApp, cookie: string, project: Json): Promise<Json[]> {
  const base = `/api/projects/${project.id}`;
  const calendar = expectJson(
    await api(t, "GET", `${base}/calendar?from=0001-01-01&to=9999-12-31`, { cookie }),
    200,
  ).items;
  const events = expectJson(await api(t, "GET", `${base}/calendar/events`, { cookie }), 200)
    .items;
  const milestones = expectJson(await api(t, "GET", `${base}/milestones`, { cookie }), 200)
    .items;
  const meetings = expectJson(await api(t, "GET", `${base}/meetings`, { cookie }), 200).items;
  const members = expectJson(await api(t, "GET", `${base}/members`, { cookie }), 200).items;
  const person = (id: number) => members.find((m: Json) => m.userId === id);
  const expected: Json[] = calendar.map((item: Json) => {
    const common = {
      uid: `${item.type}-${item.id}@collab`,
      summary: item.title,
      location: null,
      organizer: [],
      attendees: [],
    };
    if (item.type === "event") {
      const event = events.find((e: Json) => e.id === item.id);
      const description = event.description;
      if (item.allDay) {
        const first = item.start.slice(0, 10);
        const end = addDays(lastDay(item.start, item.end), 1);
        return { ...common, description, start: first, startIsDate: true, end };
      }
      const end = seconds(item.end) === seconds(item.start) ? null : seconds(item.end);
      return { ...common, description, start: seconds(item.start), startIsDate: false, end };
    }
    const description = item.type === "milestone"
      ? milestones.find((m: Json) => m.id === item.id).description
      : null;
    return {
      ...common,
      description,
      start: item.start,
      startIsDate: true,
      end: addDays(item.end, 1),
    };
  });
  for (const m of meetings) {
    const organizer = person(m.creatorId);
    expected.push({
      uid: `meeting-${m.id}@collab`,
      summary: m.title,
      description: null,
      location: m.location,
      start: seconds(m.startAt),
      startIsDate: false,
      end: seconds(m.endAt) === seconds(m.startAt) ? null : seconds(m.endAt),
      organizer: [{ address: `mailto:${organizer.email}`, cn: paramText(organizer.displayName) }],
      attendees: m.inviteeIds.map((id: number) => ({
        address: `mailto:${person(id).email}`,
        cn: paramText(person(id).displayName),
      })),
    });
  }
  return expected;
}

/** Parses feed bodies with python3-icalendar; one JSON object per body. */
async function parseWithPython(bodies: Uint8Array[]): Promise<Json[]> {
  const dir = await Deno.makeTempDir({ prefix: "ics-parse-" });
  try {
    const files = [];
    for (const [i, body] of bodies.entries()) {
      const file = join(dir, `${i}.ics`);
      await Deno.writeFile(file, body);
      files.push(file);
    }
    const out = await runPython(SCRIPT, files);
    return JSON.parse(out);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Asserts RFC 5545's line rules on raw bytes: CRLF only, at most 75 octets, whole UTF-8. */
function assertWellFormedLines(bytes: Uint8Array): void {
  const strict = new TextDecoder("utf-8", { fatal: true });
  let start = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0x0a) {
      assert.equal(bytes[i - 1], 0x0d, `a bare LF at octet ${i}`);
      const line = bytes.subarray(start, i - 1);
      assert.ok(line.length <= 75, `a line of ${line.length} octets at octet ${start}`);
      strict.decode(line); // throws when a UTF-8 sequence was split across lines
      start = i + 1;
    } else if (bytes[i] === 0x0d) {
      assert.equal(bytes[i + 1], 0x0a, `a bare CR at octet ${i}`);
    }
  }
  assert.equal(start, bytes.length, "the body ends with CRLF");
}

function byUid(a: Json, b: Json): number {
  return a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0;
}

Deno.test("GET /api/me/calendar-feed answers absolute URLs of all.ics and each project's feed", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { ada, apollo, zeus } = await world(t);
    const urls = await feedUrls(t, ada.cookie);
    assert.deepEqual(Object.keys(urls).sort(), ["all", "projects"]);
    const match = /^http:\/\/localhost\/ics\/([A-Za-z0-9_-]{43})\/all\.ics$/.exec(urls.all);
    assert.ok(match, urls.all);
    const token = match[1];
    assert.deepEqual(urls.projects, [
      { projectId: apollo.id, url: `http://localhost/ics/${token}/projects/${apollo.id}.ics` },
      { projectId: zeus.id, url: `http://localhost/ics/${token}/projects/${zeus.id}.ics` },
    ]);
    // The same URLs every time until a reset.
    assert.deepEqual(await feedUrls(t, ada.cookie), urls);
    // Only a hash of the token is stored.
    const stored = JSON.stringify(await t.sql.all("SELECT * FROM calendar_feeds"));
    assert.ok(!stored.includes(token!), "the token itself is not stored");
    // Without a session: 401.
    expectError(await api(t, "GET", "/api/me/calendar-feed"), 401, "unauthenticated");
  } finally {
    await t.close();
  }
});

Deno.test("Feed URLs start with BASE_URL when it is set", async () => {
  const t = await testApp({ env: { BASE_URL: "https://collab.example.org/base" } });
  try {
    const { cookie } = await signUp(t, "ada@example.com");
    const urls = await feedUrls(t, cookie);
    assert.match(
      urls.all,
      /^https:\/\/collab\.example\.org\/base\/ics\/[A-Za-z0-9_-]{43}\/all\.ics$/,
    );
  } finally {
    await t.close();
  }
});

Deno.test("all.ics is text/calendar in UTF-8 with CRLF lines of at most 75 octets, an ETag and no cookie needed", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { ada } = await world(t);
    const urls = await feedUrls(t, ada.cookie);
    const { res, bytes, text } = await fetchFeed(t, urls.all);
    assert.equal(res.status, 200, text);
    assert.equal(res.headers.get("content-type"), "text/calendar; charset=utf-8");
    assert.equal(res.headers.get("cache-control"), "private, no-cache");
    assert.match(res.headers.get("etag") ?? "", /^"[A-Za-z0-9_-]{43}"$/);
    assert.equal(res.headers.get("set-cookie"), null);
    assertWellFormedLines(bytes);
    assert.ok(text.startsWith("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n"));
    assert.ok(text.endsWith("END:VCALENDAR\r\n"));
    assert.ok(!text.includes("VTIMEZONE"));
    // A long Japanese title was folded, and unfolds to the escaped text.
    const unfolded = text.replace(/\r\n /g, "");
    assert.ok(
      unfolded.includes(`SUMMARY:${"S".repeat(60)}日本語の会議、カンマ\\,セミコロン\\;改行\r\n`),
    );
    assert.ok(unfolded.includes("SUMMARY:Offsite\\nday two\r\n"));
    assert.ok(!text.includes("Hermes secret"), "a project Ada is not in");
    assert.ok(!text.includes("Cancelled"), "a deleted event");
    assert.ok(!text.includes("Someday") && !text.includes("Undated"), "undated items");
    // Feeds are not logged with their token.
    const token = new URL(urls.all).pathname.split("/")[2]!;
    assert.ok(!t.logs.some((line) => line.includes(token)), t.logs.join("\n"));
    assert.ok(t.logs.some((line) => line.startsWith("GET /ics/…/all.ics 200")), t.logs.join("\n"));
  } finally {
    await t.close();
  }
});

Deno.test({
  name:
    "python3-icalendar reads every feed item exactly as the API's calendar and meetings give it",
  ignore: icalendar.ignore,
  async fn() {
    icalendar.require();
    const t = await testApp({ now: NOW });
    try {
      const { ada, apollo, zeus } = await world(t);
      const urls = await feedUrls(t, ada.cookie);
      const feeds = [
        await fetchFeed(t, urls.all),
        ...await Promise.all(urls.projects.map((p: Json) => fetchFeed(t, p.url))),
      ];
      for (const feed of feeds) assert.equal(feed.res.status, 200, feed.text);
      const [all, apolloFeed, zeusFeed] = await parseWithPython(feeds.map((f) => f.bytes));
      const expectApollo = await expectedItems(t, ada.cookie, apollo);
      const expectZeus = await expectedItems(t, ada.cookie, zeus);
      // Every kind is there: timed, all-day and instant events, milestones, to-dos, meetings.
      assert.equal(expectApollo.length, 9);
      assert.equal(expectZeus.length, 2);

      const seen = (calendar: Json) =>
        calendar.events.map((e: Json) => {
          const { dtstamp, ...rest } = e;
          assert.match(dtstamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
          return rest;
        }).sort(byUid);
      assert.deepEqual(seen(apolloFeed), expectApollo.sort(byUid));
      assert.deepEqual(seen(zeusFeed), expectZeus.sort(byUid));
      assert.deepEqual(seen(all), [...expectApollo, ...expectZeus].sort(byUid));
      for (const calendar of [all, apolloFeed, zeusFeed]) {
        assert.equal(calendar.version, "2.0");
        assert.equal(calendar.timezones, 0);
      }
      assert.equal(apolloFeed.name, apollo.name);
      assert.equal(all.name, "Collab");
    } finally {
      await t.close();
    }
  },
});

Deno.test("UIDs and the whole body stay the same across requests; a change changes the ETag", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { ada, apollo } = await world(t);
    const urls = await feedUrls(t, ada.cookie);
    const first = await fetchFeed(t, urls.all);
    t.clock.advance(3_600_000);
    const second = await fetchFeed(t, urls.all);
    assert.equal(second.text, first.text, "no request time in the body");
    assert.equal(second.res.headers.get("etag"), first.res.headers.get("etag"));
    await post(t, ada.cookie, `/api/projects/${apollo.id}/milestones`, {
      title: "New",
      dueDate: "2027-02-01",
    });
    const third = await fetchFeed(t, urls.all);
    assert.notEqual(third.res.headers.get("etag"), first.res.headers.get("etag"));
    const uids = (text: string) => text.match(/^UID:.*$/gm)!;
    assert.deepEqual(
      uids(third.text).filter((u) => uids(first.text).includes(u)),
      uids(first.text),
    );
  } finally {
    await t.close();
  }
});

Deno.test("If-None-Match with the current ETag is 304 without a body; a stale one gets the feed", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { ada } = await world(t);
    const urls = await feedUrls(t, ada.cookie);
    const first = await fetchFeed(t, urls.all);
    const etag = first.res.headers.get("etag")!;
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
      const again = await fetchFeed(t, urls.all, { "if-none-match": header });
      assert.equal(again.res.status, 304, header);
      assert.equal(again.bytes.length, 0);
      assert.equal(again.res.headers.get("etag"), etag);
      assert.equal(again.res.headers.get("cache-control"), "private, no-cache");
    }
    const stale = await fetchFeed(t, urls.all, { "if-none-match": '"stale"' });
    assert.equal(stale.res.status, 200);
    assert.equal(stale.text, first.text);
    const head = await t.app.request(new URL(urls.all).pathname, { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get("etag"), etag);
    assert.equal(await head.text(), "");
  } finally {
    await t.close();
  }
});

Deno.test("POST /api/me/calendar-feed/reset answers new URLs; the old ones are 404; UIDs stay", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { ada, apollo } = await world(t);
    const old = await feedUrls(t, ada.cookie);
    const before = await fetchFeed(t, old.all);
    const res = await api(t, "POST", "/api/me/calendar-feed/reset", { cookie: ada.cookie });
    const fresh = expectJson(res, 200).urls;
    assert.notEqual(fresh.all, old.all);
    assert.deepEqual(fresh.projects.map((p: Json) => p.projectId), [
      apollo.id,
      old.projects[1].projectId,
    ]);
    assert.deepEqual(await feedUrls(t, ada.cookie), fresh);
    for (const url of [old.all, ...old.projects.map((p: Json) => p.url)]) {
      const gone = await fetchFeed(t, url);
      assert.equal(gone.res.status, 404, url);
      assert.match(gone.res.headers.get("content-type") ?? "", /^text\/plain/);
    }
    const after = await fetchFeed(t, fresh.all);
    assert.equal(after.res.status, 200);
    assert.equal(after.text, before.text, "same items, same UIDs, same body");
    // The reset is a cookie-session action: the CSRF check applies.
    const crossSite = await api(t, "POST", "/api/me/calendar-feed/reset", {
      cookie: ada.cookie,
      headers: { origin: "https://evil.example" },
    });
    expectError(crossSite, 403, "forbidden");
    assert.equal((await fetchFeed(t, fresh.all)).res.status, 200);
  } finally {
    await t.close();
  }
});

Deno.test("A removed member's all.ics stops listing the project and its per-project feed is 404", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { ada, bob, zeus } = await world(t);
    const urls = await feedUrls(t, ada.cookie);
    const zeusUrl = urls.projects.find((p: Json) => p.projectId === zeus.id).url;
    assert.equal((await fetchFeed(t, zeusUrl)).res.status, 200);
    assert.ok((await fetchFeed(t, urls.all)).text.includes("Zeus launch"));
    expectNoContent(
      await api(t, "DELETE", `/api/projects/${zeus.id}/members/${ada.user.id}`, {
        cookie: bob.cookie,
      }),
    );
    const all = await fetchFeed(t, urls.all);
    assert.equal(all.res.status, 200);
    assert.ok(!all.text.includes("Zeus"), "nothing of Zeus is left");
    assert.equal((await fetchFeed(t, zeusUrl)).res.status, 404);
    const now = await feedUrls(t, ada.cookie);
    assert.ok(!now.projects.some((p: Json) => p.projectId === zeus.id));
  } finally {
    await t.close();
  }
});

Deno.test("Feeds are 404 for unknown tokens and projects, and for a disabled owner; read-only otherwise", async () => {
  const t = await testApp({ now: NOW });
  try {
    const root = await signUp(t, "root@example.com");
    const { ada, hermes } = await world(t);
    const urls = await feedUrls(t, ada.cookie);
    const base = urls.all.replace(/\/all\.ics$/, "");
    const paths = [
      `${base}/projects/${hermes.id}.ics`,
      `${base}/projects/999.ics`,
      `${base}/projects/0.ics`,
      `${base}/projects/abc.ics`,
      `${base}/projects/1`,
      `${base}/other.ics`,
      "http://localhost/ics/short/all.ics",
      `http://localhost/ics/${"A".repeat(43)}/all.ics`,
    ];
    for (const url of paths) assert.equal((await fetchFeed(t, url)).res.status, 404, url);
    const post = await t.app.request(new URL(urls.all).pathname, { method: "POST" });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get("allow"), "GET, HEAD");
    // An admin who is not a member sees no project of Ada's in their own feed.
    const rootFeed = await fetchFeed(t, (await feedUrls(t, root.cookie)).all);
    assert.ok(!rootFeed.text.includes("BEGIN:VEVENT"));
    // A disabled owner's feed is gone.
    expectJson(
      await api(t, "PATCH", `/api/admin/users/${ada.user.id}`, {
        cookie: root.cookie,
        body: { status: "disabled" },
      }),
      200,
    );
    assert.equal((await fetchFeed(t, urls.all)).res.status, 404);
  } finally {
    await t.close();
  }
});

Deno.test("API tokens cannot read or reset the calendar feed (it would outlive the token)", async () => {
  const t = await testApp();
  try {
    const { cookie } = await signUp(t, "ada@example.com");
    const { secret } = expectJson(
      await api(t, "POST", "/api/tokens", { cookie, body: { name: "CI", scope: "write" } }),
      201,
    );
    const headers = { authorization: `Bearer ${secret}` };
    expectError(await api(t, "GET", "/api/me/calendar-feed", { headers }), 403, "forbidden");
    expectError(await api(t, "POST", "/api/me/calendar-feed/reset", { headers }), 403, "forbidden");
    assert.equal(await t.sql.count("calendar_feeds"), 0);
  } finally {
    await t.close();
  }
});

Deno.test("After the server secret changes, a feed URL works until its owner asks for the URLs again", async () => {
  const t = await testApp({ now: NOW });
  try {
    const ada = await signUp(t, "ada@example.com");
    await createProject(t, ada.cookie, "Apollo");
    const before = await feedUrls(t, ada.cookie);
    // The same database served with another secret (a rotated SESSION_SECRET); Ada signs in
    // again, since the rotation also ended her session.
    const rotated = createApp({
      ...(t.db ? { db: t.db } : {}),
      engine: t.engine,
      config: t.config,
      clock: t.clock,
      sessionSecret: "another-secret-0123456789abcdef0123456789",
      hasher: scryptHasher({ N: 1024, r: 8, p: 1 }),
      log: () => {},
    });
    const path = (url: string) => new URL(url).pathname;
    assert.equal((await rotated.request(path(before.all))).status, 200, "still subscribed");
    const login = await rotated.request("/api/auth/login", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "ada@example.com", password: PASSWORD }),
    });
    const cookie = login.headers.getSetCookie()[0]!.split(";")[0]!;
    const after = (await (await rotated.request("/api/me/calendar-feed", { headers: { cookie } }))
      .json()).urls;
    assert.notEqual(after.all, before.all);
    assert.equal((await rotated.request(path(before.all))).status, 404);
    assert.equal((await rotated.request(path(after.all))).status, 200);
  } finally {
    await t.close();
  }
});
