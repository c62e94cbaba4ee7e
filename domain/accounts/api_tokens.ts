/**
 * Personal API tokens: a secret `clb_` + 43 random base62 characters (about 256 bits),
 * shown once at creation. Only its SHA-256 is stored, so checking a token is one hash and
 * one indexed lookup: no password hashing, which would make every API call slow. A token
 * acts as its owner with a scope (`read`: GET and HEAD only; `write`: everything a token
 * may do); the routes a token may never use are decided by the bearer middleware.
 */
import { audit, type RequestMeta } from "./audit.ts";
import { createHash } from "node:crypto";
import {
  type ApiTokenRow,
  countApiTokens,
  deleteApiToken,
  findApiToken,
  findApiTokenByHash,
  insertApiToken,
  listApiTokens,
  touchApiToken,
} from "../../db/accounts/api_tokens.ts";
import type { Engine } from "../../db/kernel/engine.ts";
import type { Actor } from "./accounts.ts";
import type { Clock } from "../kernel/clock.ts";
import { DomainError, invalid, isStorageFull } from "../kernel/errors.ts";

/** A token as the API shows it: never its secret or hash. */
export interface ApiToken {
  id: number;
  name: string;
  scope: TokenScope;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
}

/** What a token allows: `read` is GET and HEAD only. */
export type TokenScope = "read" | "write";

/** A request authenticated by a token: who it acts as, and how far. */
export interface TokenAuth {
  tokenId: number;
  user: Actor;
  scope: TokenScope;
  /** When the token stops working (ISO 8601), or null. */
  expiresAt: string | null;
}

/** The prefix of every secret (lets secret scanners and people recognise one). */
export const SECRET_PREFIX = "clb_";
const SECRET_LENGTH = 43;
const SECRET_PATTERN = /^clb_[0-9A-Za-z]{40,64}$/;
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** `lastUsedAt` is written on first use, then at most this often. */
const TOUCH_INTERVAL_MS = 60_000;
const DAY_MS = 86_400_000;
/** Tokens one user may hold at once. */
export const MAX_TOKENS_PER_USER = 100;

/** `length` random base62 characters, without modulo bias (bytes ≥ 248 are drawn again). */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of crypto.getRandomValues(new Uint8Array(length * 2))) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** The stored form of a secret: its SHA-256, hex (node:crypto's is synchronous and fast). */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

function publicToken(row: ApiTokenRow): ApiToken {
  return {
    id: row.id,
    name: row.name,
    scope: row.scope,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    lastUsedAt: row.lastUsedAt,
  };
}

/** What the token operations need. */
export interface ApiTokenDeps {
  db: Engine;
  clock: Clock;
  /** Called after tokens were revoked (to end the event streams opened with them). */
  onRevoked?: (tokenIds: number[]) => void;
}

/** The token operations. */
export function createApiTokens(deps: ApiTokenDeps) {
  const { db, clock } = deps;

  return {
    /** Creates a token for the caller; the answer is the only time its secret is seen. */
    async create(
      actor: Actor,
      input: { name: string; scope: TokenScope; expiresInDays?: number | null | undefined },
      meta: RequestMeta,
    ): Promise<{ token: ApiToken; secret: string }> {
      const name = input.name.trim();
      if (!name) throw invalid("name", "Cannot be blank");
      const days = input.expiresInDays ?? null;
      if (days !== null && (!Number.isInteger(days) || days < 1 || days > 3650)) {
        throw invalid("expiresInDays", "Use a whole number of days from 1 to 3650");
      }
      const secret = SECRET_PREFIX + randomBase62(SECRET_LENGTH);
      const now = clock.now();
      const row = await db.transaction(async (tx) => {
        if ((await countApiTokens(tx, actor.id)) >= MAX_TOKENS_PER_USER) {
          throw new DomainError(
            "conflict",
            `Cannot create a token: you already have ${MAX_TOKENS_PER_USER}; revoke one first`,
          );
        }
        const id = await insertApiToken(tx, {
          userId: actor.id,
          name,
          scope: input.scope,
          secretHash: hashSecret(secret),
          createdAt: now.toISOString(),
          expiresAt: days === null ? null : new Date(now.getTime() + days * DAY_MS).toISOString(),
        });
        await audit(tx, meta, now.toISOString(), {
          action: "token.created",
          actorId: actor.id,
          target: { type: "token", id },
          details: { name, scope: input.scope },
        });
        return (await findApiToken(tx, actor.id, id))!;
      });
      return { token: publicToken(row), secret };
    },

    /** The caller's tokens, oldest first (expired ones too, until revoked). */
    async list(actor: Actor): Promise<ApiToken[]> {
      return (await listApiTokens(db, actor.id)).map(publicToken);
    },

    /** Revokes one of the caller's tokens; another user's is `not_found`. */
    async revoke(actor: Actor, tokenId: number, meta: RequestMeta): Promise<void> {
      await db.transaction(async (tx) => {
        const token = await findApiToken(tx, actor.id, tokenId);
        if (!token) throw new DomainError("not_found", "No such token");
        await deleteApiToken(tx, tokenId);
        await audit(tx, meta, clock.now().toISOString(), {
          action: "token.revoked",
          actorId: actor.id,
          target: { type: "token", id: tokenId },
          details: { name: token.name },
        });
      });
      deps.onRevoked?.([tokenId]);
    },

    /**
     * The token a secret belongs to, or null when it is malformed, unknown (revoked), expired,
     * or its owner is disabled. Records the use on first use, then at most once a minute.
     */
    async authenticate(secret: string): Promise<TokenAuth | null> {
      if (!SECRET_PATTERN.test(secret)) return null;
      const row = await findApiTokenByHash(db, hashSecret(secret));
      if (!row || row.userStatus !== "active") return null;
      const now = clock.now();
      if (row.expiresAt !== null && Date.parse(row.expiresAt) <= now.getTime()) return null;
      if (
        row.lastUsedAt === null || now.getTime() - Date.parse(row.lastUsedAt) >= TOUCH_INTERVAL_MS
      ) {
        try {
          await db.transaction((tx) => touchApiToken(tx, row.id, now.toISOString()));
        } catch (error) {
          // On a full disk reads go on: the use is recorded by a later request.
          if (!isStorageFull(error)) throw error;
        }
      }
      return {
        tokenId: row.id,
        user: { id: row.userId, role: row.userRole },
        scope: row.scope,
        expiresAt: row.expiresAt,
      };
    },
  };
}

/** The token operations' type. */
export type ApiTokens = ReturnType<typeof createApiTokens>;

/** The key an event stream opened with a token is closed by when the token is revoked. */
export function tokenStreamKey(tokenId: number): string {
  return `token:${tokenId}`;
}
