/**
 * Sessions: a 256-bit random id, sent in the `session` cookie signed with HMAC-SHA256
 * (Web Crypto) and stored server-side as a SHA-256 hash with its issue time, last use and
 * absolute expiry. The server's record decides: an expired or revoked session is refused
 * whatever the cookie says.
 */
import { createHash } from "node:crypto";
import {
  deleteSession,
  findSession,
  insertSession,
  touchSession,
} from "../../db/accounts/sessions.ts";
import type { Engine, Queries } from "../../db/kernel/engine.ts";
import { findUserById, type UserRow } from "../../db/accounts/users.ts";
import type { Clock } from "../kernel/clock.ts";

const TOUCH_INTERVAL_MS = 60_000;

/** A session made but not stored yet: its cookie value and the stored hash of its id. */
export interface MintedSession {
  idHash: string;
  cookie: string;
}

/** A verified session and its user. */
export interface ActiveSession {
  idHash: string;
  user: UserRow;
  /** When the session ends (ISO 8601), whatever happens meanwhile. */
  expiresAt: string;
}

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9_-]+$/.test(text) || text.length % 4 === 1) return null;
  try {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

/** Hashes a session id for storage and lookup. */
function hashId(id: string): string {
  return createHash("sha256").update(id).digest("hex");
}

/** Issues, resolves and revokes sessions. */
export class Sessions {
  readonly #db: Engine;
  readonly #clock: Clock;
  readonly #ttlMs: number;
  readonly #key: Promise<CryptoKey>;

  constructor(db: Engine, clock: Clock, options: { secret: string; ttlHours: number }) {
    this.#db = db;
    this.#clock = clock;
    this.#ttlMs = options.ttlHours * 3_600_000;
    this.#key = crypto.subtle.importKey(
      "raw",
      new TextEncoder().encode(options.secret),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign", "verify"],
    );
  }

  /** The lifetime of a session in seconds (for the cookie's Max-Age). */
  get maxAgeSeconds(): number {
    return Math.floor(this.#ttlMs / 1000);
  }

  /** Starts a session for `userId` and returns the signed cookie value. */
  async issue(userId: number): Promise<string> {
    const minted = await this.mint();
    await this.#db.transaction((tx) => this.store(tx, minted, userId));
    return minted.cookie;
  }

  /**
   * A new session's signed cookie value, not stored yet: `store` it in the transaction that
   * makes the account it signs in (so both commit, or neither).
   */
  async mint(): Promise<MintedSession> {
    const id = base64url(crypto.getRandomValues(new Uint8Array(32)));
    const signature = new Uint8Array(
      await crypto.subtle.sign("HMAC", await this.#key, new TextEncoder().encode(id)),
    );
    return { idHash: hashId(id), cookie: `${id}.${base64url(signature)}` };
  }

  /** Stores a minted session for `userId` in `tx`, starting now. */
  async store(tx: Queries, minted: MintedSession, userId: number): Promise<void> {
    const now = this.#clock.now();
    await insertSession(tx, {
      idHash: minted.idHash,
      userId,
      issuedAt: now.toISOString(),
      lastUsedAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + this.#ttlMs).toISOString(),
    });
  }

  /** The live session behind a cookie value, or null (bad signature, expired, revoked, disabled). */
  async resolve(cookie: string | undefined): Promise<ActiveSession | null> {
    if (!cookie || cookie.length > 200) return null;
    const dot = cookie.indexOf(".");
    if (dot <= 0) return null;
    const id = cookie.slice(0, dot);
    const signature = fromBase64url(cookie.slice(dot + 1));
    if (!signature || !fromBase64url(id)) return null;
    const valid = await crypto.subtle.verify(
      "HMAC",
      await this.#key,
      signature,
      new TextEncoder().encode(id),
    );
    if (!valid) return null;
    const idHash = hashId(id);
    const session = await findSession(this.#db, idHash);
    if (!session) return null;
    const now = this.#clock.now();
    if (Date.parse(session.expiresAt) <= now.getTime()) {
      await this.#db.transaction((tx) => deleteSession(tx, idHash));
      return null;
    }
    const user = await findUserById(this.#db, session.userId);
    if (!user || user.status !== "active") return null;
    if (now.getTime() - Date.parse(session.lastUsedAt) > TOUCH_INTERVAL_MS) {
      await this.#db.transaction((tx) => touchSession(tx, idHash, now.toISOString()));
    }
    return { idHash, user, expiresAt: session.expiresAt };
  }

  /** Ends one session. */
  async revoke(idHash: string): Promise<void> {
    await this.#db.transaction((tx) => deleteSession(tx, idHash));
  }
}
