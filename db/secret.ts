/** The session-signing secret generated once and kept in the data directory (mode 0600). */
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Reads `DATA_DIR/session_secret`, creating it with 256 random bits when missing. */
export function loadOrCreateSecret(dataDir: string): string {
  const path = join(dataDir, "session_secret");
  try {
    const existing = readFileSync(path, "utf8").trim();
    if (existing.length >= 32) return existing;
    throw new Error(`Cannot use ${path}: it holds fewer than 32 characters`);
  } catch (error) {
    if ((error as { code?: string }).code !== "ENOENT") throw error;
  }
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const secret = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  // "wx" fails if another process created it meanwhile; that one's secret then wins.
  try {
    writeFileSync(path, secret + "\n", { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as { code?: string }).code === "EEXIST") return loadOrCreateSecret(dataDir);
    throw error;
  }
  chmodSync(path, 0o600);
  return secret;
}
