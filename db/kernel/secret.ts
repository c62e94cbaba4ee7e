/** The session-signing secret generated once and kept in the data directory (mode 0600). */
import {
  closeSync,
  fsyncSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";

/** The secret file cannot be used or made; start-up stops with this one-line message. */
export class SecretError extends Error {
  override name = "SecretError";
}

const MIN_LENGTH = 32;

/**
 * Reads `DATA_DIR/session_secret`, creating it with 256 random bits when missing. A file
 * that is empty or short is refused rather than replaced: replacing it would sign everyone
 * out, so the operator decides.
 */
export function loadOrCreateSecret(dataDir: string): string {
  const path = join(dataDir, "session_secret");
  const existing = readSecret(path);
  if (existing !== null) return existing;
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const secret = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  let created: boolean;
  try {
    created = publish(dataDir, path, secret + "\n");
  } catch (error) {
    throw new SecretError(
      `Cannot start: cannot write the session secret ${path}: ${(error as Error).message}`,
    );
  }
  // When another process created it meanwhile, that one's secret wins.
  return created ? secret : readSecret(path) ?? loadOrCreateSecret(dataDir);
}

/** The secret in `path`, or null when there is no such file. */
function readSecret(path: string): string | null {
  let text;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return null;
    throw new SecretError(
      `Cannot start: cannot read the session secret ${path}: ${(error as Error).message}`,
    );
  }
  const secret = text.trim();
  if (secret.length >= MIN_LENGTH) return secret;
  throw new SecretError(
    `Cannot start: the session secret ${path} is ${
      secret.length === 0 ? "empty" : `shorter than ${MIN_LENGTH} characters`
    }: restore it from a backup, or delete it to have a new one made (which signs everyone out)`,
  );
}

/**
 * Writes `text` to `path` atomically, only if `path` does not exist yet: a temporary file is
 * written and flushed, then linked into place (a link, unlike a rename, never replaces an
 * existing file), so a crash leaves no file or a whole one, never an empty one. False when
 * `path` already existed.
 */
function publish(dir: string, path: string, text: string): boolean {
  const tmp = join(dir, `.session_secret.${crypto.randomUUID()}.tmp`);
  const fd = openSync(tmp, "wx", 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    try {
      linkSync(tmp, path);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === "EEXIST") return false;
      // A file system without hard links: rename, which is atomic too.
      if (code !== "EPERM" && code !== "ENOTSUP" && code !== "ENOSYS") throw error;
      renameSync(tmp, path);
    }
  } finally {
    rmSync(tmp, { force: true });
  }
  // The new name is durable only once the directory is flushed too.
  const dirFd = openSync(dir, "r");
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
  return true;
}
