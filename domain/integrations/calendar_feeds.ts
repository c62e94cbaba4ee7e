/**
 * Calendar feeds: each user's secret feed token, and the iCalendar documents it opens (all
 * of the user's projects, or one). A feed lists the projects its owner belongs to now
 * (membership, not an admin's view of every project): calendar events, milestones with a due
 * date, to-dos with a date, and meetings. The spans are those of the project calendar.
 *
 * The token is a credential in a URL, so it is never stored: it is derived from the server
 * secret, the user id and a stored random salt (HMAC-SHA256), and only its SHA-256 is kept
 * for the lookup. Resetting draws a new salt. After the server secret is rotated, a feed URL
 * keeps working until its owner next asks for their URLs (`access`), which gives new ones.
 */
import { createHash, createHmac, randomBytes } from "node:crypto";
import {
  type FeedItemRow,
  feedItems,
  type FeedMeetingRow,
  feedMeetings,
  findFeedByHash,
  findFeedOfUser,
  saveFeed,
  setFeedHash,
} from "../../db/integrations/calendar_feeds.ts";
import { listProjectsOfUser } from "../../db/projects/projects.ts";
import type { Engine, Queries } from "../../db/kernel/engine.ts";
import { findUserById } from "../../db/accounts/users.ts";
import type { Actor } from "../accounts/accounts.ts";
import type { Clock } from "../kernel/clock.ts";
import {
  contentLine,
  dateValue,
  escapeText,
  instantValue,
  mailto,
  nextDateValue,
  paramValue,
} from "../formats/ical.ts";

/** A feed token and the projects it covers (for their URLs). */
export interface FeedAccess {
  token: string;
  projectIds: number[];
}

/** A rendered feed: the iCalendar text (UTF-8) and its entity tag. */
export interface RenderedFeed {
  body: Uint8Array<ArrayBuffer>;
  /** A strong entity tag (quoted): the SHA-256 of the body. */
  etag: string;
}

/** What the feeds need. */
export interface CalendarFeedDeps {
  db: Engine;
  clock: Clock;
  /** The server secret the tokens are derived from. */
  secret: string;
}

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
/** The UIDs' domain: the same on every host and after every reset, so items stay the same. */
const UID_DOMAIN = "collab";
const PRODID = "-//Collab//Calendar feed 1.0//EN";
const encoder = new TextEncoder();
/** Lines written before they are encoded into a chunk. */
const FLUSH_LINES = 4096;

function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/**
 * Writes VEVENTs into `out`, one string per line, encoded to UTF-8 a few thousand lines at a
 * time: a feed of ten thousand items is megabytes, and building it as one string (piece by
 * piece, or even joined once) costs far more in garbage collection. Lines whose length is
 * known to fit (dates, times, UIDs) skip folding.
 */
class Writer {
  out: string[] = [];
  readonly chunks: Uint8Array[] = [];

  /** Encodes the lines so far into a chunk of UTF-8 once there are enough of them. */
  maybeFlush(): void {
    if (this.out.length >= FLUSH_LINES) this.flush();
  }

  /** Encodes the lines so far into a chunk of UTF-8. */
  flush(): void {
    this.chunks.push(encoder.encode(this.out.join("")));
    this.out = [];
  }

  /** A line that may need folding. */
  line(name: string, value: string, params?: ReadonlyArray<readonly [string, string]>): void {
    this.out.push(contentLine(name, value, params));
  }

  /** DTSTART and DTEND of an all-day span from `first` to `last` (inclusive dates). */
  allDay(first: string, last: string): void {
    this.out.push(
      `DTSTART;VALUE=DATE:${dateValue(first)}\r\n`,
      `DTEND;VALUE=DATE:${nextDateValue(last)}\r\n`,
    );
  }

  /**
   * DTSTART and DTEND of an all-day event stored as instants: from the UTC day of `start` to
   * the last day `end` reaches (`end` is exclusive, so a midnight end is that day's start; an
   * empty span is its first day). Instants are stored as `toISOString()` gives them, so they
   * compare as text.
   */
  allDayEvent(start: string, end: string): void {
    const endDay = end.slice(0, 10);
    const exclusive = end > start && end.endsWith("T00:00:00.000Z")
      ? dateValue(endDay)
      : nextDateValue(endDay);
    this.out.push(
      `DTSTART;VALUE=DATE:${dateValue(start.slice(0, 10))}\r\n`,
      `DTEND;VALUE=DATE:${exclusive}\r\n`,
    );
  }

  /** DTSTART, and DTEND unless the span is empty, of an instant span. */
  timed(start: string, end: string): void {
    const from = instantValue(start);
    const to = instantValue(end);
    this.out.push(`DTSTART:${from}\r\n`);
    // A VEVENT without DTEND ends when it starts; DTEND must be later than DTSTART.
    if (to > from) this.out.push(`DTEND:${to}\r\n`);
  }

  /** The lines every VEVENT starts with. */
  head(uid: string, item: { updatedAt: string }): void {
    const updated = instantValue(item.updatedAt);
    this.out.push(
      "BEGIN:VEVENT\r\n",
      `UID:${uid}\r\n`,
      // The item's last change, not "now": the body (and its ETag) stays the same until
      // something in it changes.
      `DTSTAMP:${updated}\r\n`,
      `LAST-MODIFIED:${updated}\r\n`,
    );
  }

  item(item: FeedItemRow): void {
    this.head(`${item.type}-${item.id}@${UID_DOMAIN}`, item);
    if (item.type !== "event") {
      this.allDay(item.start, item.end);
      // Due dates and to-do spans do not make their days busy.
      this.out.push("TRANSP:TRANSPARENT\r\n");
    } else if (item.allDay) {
      this.allDayEvent(item.start, item.end);
    } else {
      this.timed(item.start, item.end);
    }
    this.line("SUMMARY", escapeText(item.title));
    if (item.description) this.line("DESCRIPTION", escapeText(item.description));
    this.out.push("END:VEVENT\r\n");
    this.maybeFlush();
  }

  meeting(m: FeedMeetingRow): void {
    this.head(`meeting-${m.id}@${UID_DOMAIN}`, m);
    this.timed(m.startAt, m.endAt);
    this.line("SUMMARY", escapeText(m.title));
    if (m.location) this.line("LOCATION", escapeText(m.location));
    this.line("ORGANIZER", mailto(m.organizer.email), [
      ["CN", paramValue(m.organizer.displayName)],
    ]);
    for (const person of m.invitees) {
      this.line("ATTENDEE", mailto(person.email), [
        ["CN", paramValue(person.displayName)],
        ["ROLE", "REQ-PARTICIPANT"],
      ]);
    }
    this.out.push("END:VEVENT\r\n");
    this.maybeFlush();
  }
}

/** The sort key of an item: its start as an instant. */
function startKey(start: string): string {
  return start.length === 10 ? `${start}T00:00:00.000Z` : start;
}

/** The iCalendar text (UTF-8) named `name` of items and meetings (each list sorted by start). */
export function renderCalendar(
  name: string,
  items: FeedItemRow[],
  meetings: FeedMeetingRow[],
): Uint8Array<ArrayBuffer> {
  const w = new Writer();
  w.out.push(
    "BEGIN:VCALENDAR\r\n",
    "VERSION:2.0\r\n",
    `PRODID:${PRODID}\r\n`,
    "CALSCALE:GREGORIAN\r\n",
    "METHOD:PUBLISH\r\n",
  );
  w.line("NAME", escapeText(name));
  w.line("X-WR-CALNAME", escapeText(name));
  w.out.push("REFRESH-INTERVAL;VALUE=DURATION:PT1H\r\n", "X-PUBLISHED-TTL:PT1H\r\n");
  // Items and meetings merged by start (both lists come sorted), for a stable order.
  let m = 0;
  for (const item of items) {
    const key = startKey(item.start);
    while (m < meetings.length && meetings[m]!.startAt < key) w.meeting(meetings[m++]!);
    w.item(item);
  }
  while (m < meetings.length) w.meeting(meetings[m++]!);
  w.out.push("END:VCALENDAR\r\n");
  w.flush();
  let size = 0;
  for (const c of w.chunks) size += c.length;
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of w.chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  return bytes;
}

/** The calendar feed operations. */
export function createCalendarFeeds(deps: CalendarFeedDeps) {
  const { db, clock } = deps;
  const tokenOf = (userId: number, salt: string) =>
    createHmac("sha256", deps.secret).update(`calendar-feed\n${userId}\n${salt}`)
      .digest("base64url");
  const projectIdsOf = async (userId: number) =>
    (await listProjectsOfUser(db, userId, true)).map((p) => p.id);
  const create = async (q: Queries, userId: number): Promise<string> => {
    const salt = randomBytes(16).toString("base64url");
    const token = tokenOf(userId, salt);
    await saveFeed(q, {
      userId,
      salt,
      tokenHash: sha256Hex(token),
      createdAt: clock.now().toISOString(),
    });
    return token;
  };

  return {
    /** The caller's feed token (created when missing) and the projects it covers. */
    async access(actor: Actor): Promise<FeedAccess> {
      const token = await db.transaction(async (tx) => {
        const feed = await findFeedOfUser(tx, actor.id);
        if (!feed) return await create(tx, actor.id);
        const token = tokenOf(actor.id, feed.salt);
        const hash = sha256Hex(token);
        if (hash !== feed.tokenHash) await setFeedHash(tx, actor.id, hash);
        return token;
      });
      return { token, projectIds: await projectIdsOf(actor.id) };
    },

    /** Replaces the caller's feed token: the old feed URLs stop working. */
    async reset(actor: Actor): Promise<FeedAccess> {
      const token = await db.transaction((tx) => create(tx, actor.id));
      return { token, projectIds: await projectIdsOf(actor.id) };
    },

    /**
     * The feed `token` opens: every project of its owner (`projectId` null) or one of them;
     * null when the token is unknown, its owner disabled, or the project not theirs now.
     */
    async render(token: string, projectId: number | null): Promise<RenderedFeed | null> {
      if (!TOKEN_PATTERN.test(token)) return null;
      const feed = await findFeedByHash(db, sha256Hex(token));
      if (!feed) return null;
      const user = await findUserById(db, feed.userId);
      if (!user || user.status !== "active") return null;
      let projects = await listProjectsOfUser(db, user.id, true);
      if (projectId !== null) {
        projects = projects.filter((p) => p.id === projectId);
        if (projects.length === 0) return null;
      }
      const ids = projects.map((p) => p.id);
      const name = projectId === null ? "Collab" : projects[0]!.name;
      const items = await feedItems(db, ids);
      const body = renderCalendar(name, items, await feedMeetings(db, ids));
      return { body, etag: `"${createHash("sha256").update(body).digest("base64url")}"` };
    },
  };
}

/** The calendar feed operations' type. */
export type CalendarFeeds = ReturnType<typeof createCalendarFeeds>;
