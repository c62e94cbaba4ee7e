/** axe-core in a page: read from the installed npm package, nothing downloaded. */
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const AXE_SOURCE = Deno.readTextFileSync(
  createRequire(import.meta.url).resolve("axe-core/axe.min.js"),
);

export interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/** The serious and critical violations axe finds on the page as it is now. */
export async function seriousViolations(page: Page): Promise<Violation[]> {
  if (!(await page.evaluate("typeof axe !== 'undefined'"))) {
    // Evaluated through the DevTools protocol, which the page's CSP (no inline script) allows.
    await page.evaluate(AXE_SOURCE);
  }
  // Closed details (edit forms, delete buttons) open first, so their controls are checked too.
  await page.evaluate(`document.querySelectorAll("details").forEach((d) => { d.open = true; })`);
  const results = await page.evaluate(
    `axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations)`,
  ) as Violation[];
  return results.filter((v) => v.impact === "serious" || v.impact === "critical");
}
