/**
 * The live side of the per-project event stream: subscribers per project, each event
 * encoded once and the same bytes written to every subscriber, one heartbeat timer for
 * all streams, and the limits (10 streams per user, 1,000 in all).
 */
import type { EventRow } from "../db/events.ts";
import { DomainError } from "./errors.ts";

/** One connected stream. */
export interface Subscriber {
  projectId: number;
  userId: number;
  /** The session the stream was opened with (its end ends the stream). */
  sessionIdHash: string | null;
  /** When that session expires (epoch ms): the first heartbeat after it ends the stream. */
  expiresAt: number | null;
  /** Writes already-encoded bytes; must not throw. */
  write(bytes: Uint8Array): void;
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
    let set = this.#projects.get(subscriber.projectId);
    if (!set) this.#projects.set(subscriber.projectId, set = new Set());
    set.add(subscriber);
    this.#perUser.set(subscriber.userId, mine + 1);
    this.#total++;
    this.#startHeartbeat();
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      set.delete(subscriber);
      if (set.size === 0) this.#projects.delete(subscriber.projectId);
      const left = (this.#perUser.get(subscriber.userId) ?? 1) - 1;
      if (left > 0) this.#perUser.set(subscriber.userId, left);
      else this.#perUser.delete(subscriber.userId);
      this.#total--;
      if (this.#total === 0) this.#stopHeartbeat();
    };
  }

  /** Sends a committed event to its project's streams, encoded once. */
  publish(event: EventRow): void {
    const set = this.#projects.get(event.projectId);
    if (!set || set.size === 0) return;
    const bytes = encodeEvent(event);
    for (const subscriber of set) subscriber.write(bytes);
  }

  /** Ends every stream of a user (their sessions ended), or those on projects `only` names. */
  closeUser(userId: number, only: (projectId: number) => boolean = () => true): void {
    this.#closeWhere((s) => s.userId === userId && only(s.projectId));
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
    for (const set of [...this.#projects.values()]) {
      for (const subscriber of [...set]) if (matches(subscriber)) subscriber.close();
    }
  }

  /** Ends every stream (shutdown). */
  closeAll(): void {
    this.#closeWhere(() => true);
    this.#stopHeartbeat();
  }

  #startHeartbeat(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => {
      const now = this.#options.now();
      for (const set of [...this.#projects.values()]) {
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
