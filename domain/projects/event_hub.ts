/**
 * The live side of the event streams (per project, and each user's own): subscribers per
 * project and per user, each event encoded once and the same bytes written to every subscriber, one heartbeat timer for
 * all streams, and the limits (10 streams per user, 1,000 in all).
 */
import type { EventRow } from "../../db/projects/events.ts";
import type { UserEventRow } from "../../db/projects/user_events.ts";
import { DomainError } from "../kernel/errors.ts";

/** One connected stream. */
export interface Subscriber {
  /** The project whose stream this is, or null for the user's own stream. */
  projectId: number | null;
  userId: number;
  /** The session the stream was opened with (its end ends the stream). */
  sessionIdHash: string | null;
  /** When that session expires (epoch ms): the first heartbeat after it ends the stream. */
  expiresAt: number | null;
  /**
   * Whether the reader sees every project (a system admin): their project stream outlives a
   * `member.removed` of theirs.
   */
  seesEveryProject?: boolean;
  /** Writes already-encoded bytes; must not throw. */
  /** `id` is the event's, absent for a heartbeat. */
  write(bytes: Uint8Array, id?: number): void;
  /** Ends the stream (shutdown, disabled user). */
  close(): void;
}

/** Limits and timing of the hub. */
export interface HubOptions {
  heartbeatMs: number;
  /** The current time in epoch ms (the application's clock). */
  now?: () => number;
  maxPerUser?: number;
  maxTotal?: number;
}

const encoder = new TextEncoder();
const HEARTBEAT = encoder.encode(": heartbeat\n\n");

/** Encodes one event in the SSE wire format. */
export function encodeEvent(event: Pick<EventRow, "id" | "name" | "data">): Uint8Array {
  return encoder.encode(`id: ${event.id}\nevent: ${event.name}\ndata: ${event.data}\n\n`);
}

/** Fans events out to the streams of their project. */
export class EventHub {
  readonly #projects = new Map<number, Set<Subscriber>>();
  /** Each user's own streams. */
  readonly #users = new Map<number, Set<Subscriber>>();
  readonly #perUser = new Map<number, number>();
  readonly #options: Required<HubOptions>;
  #total = 0;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(options: HubOptions) {
    this.#options = { maxPerUser: 10, maxTotal: 1000, now: () => Date.now(), ...options };
  }

  /** How many streams are connected. */
  get size(): number {
    return this.#total;
  }

  /** Adds a stream; throws `rate_limited` over the limits. Returns its removal. */
  subscribe(subscriber: Subscriber): () => void {
    const mine = this.#perUser.get(subscriber.userId) ?? 0;
    if (mine >= this.#options.maxPerUser || this.#total >= this.#options.maxTotal) {
      throw new DomainError("rate_limited", "Too many open event streams", { retryAfter: 5 });
    }
    const [map, key] = subscriber.projectId === null
      ? [this.#users, subscriber.userId]
      : [this.#projects, subscriber.projectId];
    let set = map.get(key);
    if (!set) map.set(key, set = new Set());
    set.add(subscriber);
    this.#perUser.set(subscriber.userId, mine + 1);
    this.#total++;
    this.#startHeartbeat();
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      set.delete(subscriber);
      if (set.size === 0) map.delete(key);
      const left = (this.#perUser.get(subscriber.userId) ?? 1) - 1;
      if (left > 0) this.#perUser.set(subscriber.userId, left);
      else this.#perUser.delete(subscriber.userId);
      this.#total--;
      if (this.#total === 0) this.#stopHeartbeat();
    };
  }

  /**
   * Sends a committed event to its project's streams, encoded once. A `member.removed` ends
   * the removed member's streams of the project once it is written to them, so no later event
   * of the project reaches them (whichever instance removed them).
   */
  publish(event: EventRow): void {
    const set = this.#projects.get(event.projectId);
    if (!set || set.size === 0) return;
    const bytes = encodeEvent(event);
    for (const subscriber of set) subscriber.write(bytes, event.id);
    if (event.name === "member.removed") {
      const { userId } = JSON.parse(event.data) as { userId: number };
      for (const subscriber of [...set]) {
        if (subscriber.userId === userId && !subscriber.seesEveryProject) subscriber.close();
      }
    }
  }

  /** Sends a committed event to its user's own streams, encoded once. */
  publishToUser(event: UserEventRow): void {
    const set = this.#users.get(event.userId);
    if (!set || set.size === 0) return;
    const bytes = encodeEvent(event);
    for (const subscriber of set) subscriber.write(bytes, event.id);
  }

  /**
   * Ends every stream of a user (their sessions ended), or only those on the projects `only`
   * names (their own stream then stays).
   */
  closeUser(userId: number, only?: (projectId: number) => boolean): void {
    this.#closeWhere((s) =>
      s.userId === userId &&
      (only === undefined || (s.projectId !== null && only(s.projectId)))
    );
  }

  /** Ends the streams opened with one session (logout). */
  closeSession(sessionIdHash: string): void {
    this.#closeWhere((s) => s.sessionIdHash === sessionIdHash);
  }

  /** Ends a project's streams, or only `userId`'s (the project was deleted, or they left it). */
  closeProject(projectId: number, userId?: number): void {
    this.#closeWhere((s) =>
      s.projectId === projectId && (userId === undefined || s.userId === userId)
    );
  }

  /** Closes the streams `matches` picks (each close removes its subscription). */
  #closeWhere(matches: (subscriber: Subscriber) => boolean): void {
    for (const set of this.#sets()) {
      for (const subscriber of [...set]) if (matches(subscriber)) subscriber.close();
    }
  }

  /** Ends every stream (shutdown). */
  closeAll(): void {
    this.#closeWhere(() => true);
    this.#stopHeartbeat();
  }

  /** Every subscriber set, projects' and users' (a copy: closing changes the maps). */
  #sets(): Array<Set<Subscriber>> {
    return [...this.#projects.values(), ...this.#users.values()];
  }

  #startHeartbeat(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => {
      const now = this.#options.now();
      for (const set of this.#sets()) {
        for (const subscriber of [...set]) {
          if (subscriber.expiresAt !== null && subscriber.expiresAt <= now) subscriber.close();
          else subscriber.write(HEARTBEAT);
        }
      }
    }, this.#options.heartbeatMs);
  }

  #stopHeartbeat(): void {
    if (this.#timer === undefined) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
