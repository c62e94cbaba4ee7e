/**
 * Every page at a phone's width (390 px), in English and Japanese, with every closed section
 * opened: nothing scrolls sideways, a project's tabs keep to one row, and every visible control
 * is at least 24 × 24 px (WCAG 2.5.8). The month calendar is a list at 390 px and a grid at
 * 1280 px.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { browserTest, launch } from "./browser.ts";
import { callJson, everyPageServer, seedEveryPage } from "./every_page.ts";

const PHONE = { width: 390, height: 844 };

/** What a person can tap or click. */
const INTERACTIVE = [
  "a[href]",
  "button",
  "input:not([type=hidden])",
  "select",
  "textarea",
  "summary",
  "[role=button]",
  "[tabindex]:not([tabindex='-1'])",
  "[data-drag-handle]",
].join(", ");

/**
 * The visible controls smaller than 24 × 24 px, described. Only one exception, kept narrow:
 * a link inside a sentence of rendered Markdown (WCAG's "inline" exception), whose size the
 * text around it sets.
 */
function smallTargets(page: Page): Promise<string[]> {
  return page.evaluate(`(() => {
    const small = [];
    for (const el of document.querySelectorAll(${JSON.stringify(INTERACTIVE)})) {
      if (!el.checkVisibility({ visibilityProperty: true })) continue;
      const r = el.getBoundingClientRect();
      // Placed off the screen until focused (the skip link).
      if (r.right <= 0 || r.bottom <= 0) continue;
      if (el.matches(".markdown :is(p, li, td, blockquote) a")) continue;
      if (r.width < 23.99 || r.height < 23.99) {
        const name = (el.getAttribute("aria-label") || el.textContent || el.getAttribute("name") || "").trim().slice(0, 24);
        small.push(el.tagName.toLowerCase() + (el.className ? "." + String(el.className).split(" ").join(".") : "") +
          (el.type && el.tagName === "INPUT" ? "[" + el.type + "]" : "") +
          ' "' + name + '" ' + Math.round(r.width * 10) / 10 + "x" + Math.round(r.height * 10) / 10);
      }
    }
    return small;
  })()`);
}

/** The elements reaching past the screen's right edge, when the page scrolls sideways. */
async function tooWide(page: Page): Promise<string | null> {
  const [scroll, inner] = await page.evaluate(
    "[document.documentElement.scrollWidth, innerWidth]",
  ) as [number, number];
  if (scroll <= inner) return null;
  const culprits = await page.evaluate(
    `[...document.querySelectorAll("body *")].filter((e) => e.getBoundingClientRect().right > innerWidth + 1).slice(0, 8).map((e) => e.tagName + "." + e.className + " " + Math.round(e.getBoundingClientRect().right)).join(" | ")`,
  );
  return `${scroll} px (${culprits})`;
}

/** The tops of a project's tabs: one value when they keep to one row; none off a project. */
async function tabRows(page: Page): Promise<number[]> {
  const tops = await page.$$eval(
    "nav.tabs a",
    (els) => els.map((el) => Math.round(el.getBoundingClientRect().top)),
  );
  return [...new Set(tops)];
}

async function contextAs(browser: Browser, baseUrl: string, cookie: string | null, width = 390) {
  const context = await browser.newContext({ viewport: { ...PHONE, width } });
  if (cookie) {
    const [name, value] = cookie.split("=") as [string, string];
    await context.addCookies([{ name, value, url: baseUrl }]);
  }
  return context;
}

browserTest(
  "at 390 px no page scrolls sideways, tabs keep to one row and every control is 24 px or more",
  async () => {
    const t = await everyPageServer();
    const browser = await launch();
    try {
      const seeded = await seedEveryPage(t);
      const problems: string[] = [];
      const visit = async (
        page: Page,
        label: string,
        path: string,
        status = seeded.statuses[path] ?? 200,
      ) => {
        const res = await page.goto(`${t.baseUrl}${path}`);
        assert.equal(res?.status(), status, `${label} ${path}`);
        // Closed sections (edit forms, delete buttons) open, so their controls count too.
        await page.evaluate(
          `document.querySelectorAll("details").forEach((d) => { d.open = true; })`,
        );
        const wide = await tooWide(page);
        if (wide) problems.push(`${label} ${path}: scrolls sideways, ${wide}`);
        const rows = await tabRows(page);
        if (rows.length > 1) problems.push(`${label} ${path}: tabs on ${rows.length} rows`);
        for (const small of await smallTargets(page)) {
          problems.push(`${label} ${path}: small target ${small}`);
        }
      };
      for (const locale of ["en", "ja"]) {
        const changed = await callJson(t.baseUrl, "PATCH", "/api/users/me", seeded.ann, {
          locale,
        });
        assert.equal(changed.status, 200);
        const context = await contextAs(browser, t.baseUrl, seeded.ann);
        const page = await context.newPage();
        for (const path of seeded.paths) {
          await visit(page, locale, path);
          assert.equal(await page.getAttribute("html", "lang"), locale);
        }
        await context.close();
        const visitor = await contextAs(browser, t.baseUrl, `locale=${locale}`);
        const publicPage = await visitor.newPage();
        for (const path of [...seeded.publicPaths, await seeded.verifyPath()]) {
          await visit(publicPage, `${locale} visitor`, path);
        }
        // The single sign-on link page with a link waiting: its password form.
        await visitor.addCookies([{ ...seeded.ssoLink.cookie, domain: "127.0.0.1" }]);
        await visit(publicPage, `${locale} visitor, a link waiting`, seeded.ssoLink.path, 200);
        await visitor.close();
      }
      assert.deepEqual(problems, [], problems.join("\n"));
    } finally {
      await browser.close();
      await t.close();
    }
  },
);

browserTest(
  "the month calendar is a list of days at 390 px and a grid at 1280 px; the current tab is in view",
  async () => {
    const t = await everyPageServer();
    const browser = await launch();
    try {
      const seeded = await seedEveryPage(t);
      const month = `${t.baseUrl}/projects/${seeded.projectId}/calendar?month=2026-11`;
      const shown = (page: Page, selector: string) =>
        page.$eval(selector, (el) => el.checkVisibility());

      const phone = await contextAs(browser, t.baseUrl, seeded.ann);
      const page = await phone.newPage();
      await page.goto(month);
      assert.equal(await shown(page, "[data-calendar-month-agenda]"), true);
      assert.equal(await shown(page, "table.calendar-month"), false);
      // The hidden grid is out of the accessibility tree too: one list of days, no table.
      const tree = await page.locator("[data-calendar]").ariaSnapshot();
      assert.doesNotMatch(tree, /table/);
      assert.match(tree, /heading "Tuesday · 24 Nov 2026" \[level=3\]/);
      assert.match(tree, /link "Quarterly planning review with the whole team"/);
      // Calendar is the seventh tab: scrolled into view in the tab bar, the page not moved.
      const current = await page.$eval("nav.tabs [aria-current=page]", (el) => {
        const r = el.getBoundingClientRect();
        return { left: r.left, right: r.right };
      });
      assert.ok(current.left >= 0 && current.right <= 390, JSON.stringify(current));
      assert.ok(await page.$eval("nav.tabs", (el) => el.scrollLeft > 0));
      assert.equal(await page.evaluate("scrollX"), 0);
      await phone.close();

      const desk = await contextAs(browser, t.baseUrl, seeded.ann, 1280);
      const wide = await desk.newPage();
      await wide.goto(month);
      assert.equal(await shown(wide, "table.calendar-month"), true);
      assert.equal(await shown(wide, "[data-calendar-month-agenda]"), false);
      assert.equal((await tabRows(wide)).length, 1);
      await desk.close();
    } finally {
      await browser.close();
      await t.close();
    }
  },
);
