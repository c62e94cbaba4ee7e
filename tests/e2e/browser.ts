/**
 * Launching Debian's Chromium through playwright-core for end-to-end tests. Outside CI a
 * missing browser skips the tests loudly; in CI (CI=true) it is a failure.
 */
import { type Browser, chromium } from "playwright-core";

/** Where Debian installs Chromium. */
export const CHROMIUM = "/usr/bin/chromium";

function exists(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/** Whether the browser tests run; warns (or, in CI, fails the tests) when they cannot. */
export const browserAvailable: boolean = exists(CHROMIUM);
const inCi = Deno.env.get("CI") === "true";
if (!browserAvailable && !inCi) {
  console.warn(
    `\n!!! ${CHROMIUM} is missing: the browser tests in tests/e2e are SKIPPED. ` +
      `Install Debian's chromium (apt-get install chromium) to run them.\n`,
  );
}

/** Options for `Deno.test` of a browser test: ignored only outside CI without Chromium. */
export function browserTest(name: string, fn: () => Promise<void>): void {
  Deno.test({
    name,
    ignore: !browserAvailable && !inCi,
    // Playwright keeps internal timers and pipes alive between tests of one browser.
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async () => {
      if (!browserAvailable) throw new Error(`${CHROMIUM} is required in CI for the browser tests`);
      await fn();
    },
  });
}

/** Launches headless Chromium with the flags this sandboxed, offline machine needs. */
export function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-quic",
      "--no-first-run",
    ],
  });
}
