/**
 * Tokens carried in links (invitations, password reset, email verification, unsubscribe):
 * 32 random bytes, base64url. Only a token's SHA-256 is stored, so a copy of the database
 * opens no link; a token read from a request is looked up by its hash, and the stored hash
 * is compared with it in constant time before it counts.
 */
import { createHash, timingSafeEqual } from "node:crypto";

/** The longest token a link can carry (43 characters today); longer ones are refused unread. */
const MAX_TOKEN_LENGTH = 100;

/** The stored form of a link token: its SHA-256, hex. */
export function linkTokenHash(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** A new link token and its stored form. */
export function newLinkToken(): { token: string; hash: string } {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const token = btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_")
    .replace(/=+$/, "");
  return { token, hash: linkTokenHash(token) };
}

/** The hash to look a token from a request up by, or null for one no link can carry. */
export function lookupHash(token: string): string | null {
  if (token.length === 0 || token.length > MAX_TOKEN_LENGTH) return null;
  return linkTokenHash(token);
}

/** Whether a stored hash is the hash looked up, compared in constant time. */
export function sameHash(stored: string, looked: string): boolean {
  const a = new TextEncoder().encode(stored);
  const b = new TextEncoder().encode(looked);
  return a.length === b.length && timingSafeEqual(a, b);
}
