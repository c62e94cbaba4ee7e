/**
 * axe-core on every page, in both themes and both languages, and in the `system` theme under a
 * light and a dark device: no serious or critical violation. axe is read from the installed npm
 * package and put into the page (tests/e2e/axe.ts); nothing is downloaded while the test runs.
 * The page a single sign-on sign-out shows on its way to the provider needs a real provider:
 * tests/e2e/sso_e2e_test.ts checks it.
 */
import assert from "node:assert/strict";
import { seriousViolations } from "./axe.ts";
import { browserTest, launch } from "./browser.ts";
import { callJson, everyPageServer, seedEveryPage } from "./every_page.ts";

browserTest(
  "no page has a serious or critical axe-core violation, in both themes and both languages",
  async () => {
    const t = await everyPageServer();
    const browser = await launch();
    try {
      const {
        ann,
        annEmail,
        projectId,
        noteId,
        paths,
        publicPaths,
        statuses,
        ssoLink,
        verifyPath,
      } = await seedEveryPage(t);
      const ok = async (method: string, path: string, body?: unknown) => {
        const res = await callJson(t.baseUrl, method, path, ann, body);
        assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${JSON.stringify(res.json)}`);
        return res.json;
      };
      const q = `/projects/${projectId}`;
      const found: string[] = [];
      const context = await browser.newContext();
      const [name, value] = ann.split("=") as [string, string];
      await context.addCookies([{ name, value, url: t.baseUrl }]);
      const page = await context.newPage();
      // Each theme in each language on every page. `system` draws the same colours as light or
      // dark by a media query, so a few pages under a light and a dark device show it does.
      const some = ["/", `${q}/todos`, `${q}/calendar?month=2026-11`, "/settings"];
      const runs: Array<[string, string, "light" | "dark"]> = [
        ["en", "dark", "dark"],
        ["en", "light", "dark"],
        ["ja", "dark", "dark"],
        ["ja", "light", "dark"],
        ["en", "system", "light"],
        ["en", "system", "dark"],
      ];
      for (const [locale, theme, scheme] of runs) {
        await ok("PATCH", "/api/users/me", { locale, theme });
        await page.emulateMedia({ colorScheme: scheme });
        for (const path of theme === "system" ? some : paths) {
          const res = await page.goto(`${t.baseUrl}${path}`);
          const run = `${locale} ${theme}${theme === "system" ? `/${scheme}` : ""}`;
          assert.equal(res?.status(), 200, `${run} ${path}`);
          for (const v of await seriousViolations(page)) {
            const where = v.nodes.slice(0, 3).map((n) =>
              `${n.target.join(" ")}${n.failureSummary ? ` (${n.failureSummary})` : ""}`
            ).join("; ");
            found.push(`${run} ${path}: ${v.impact} ${v.id} ${v.help}: ${where}`);
          }
        }
      }
      // The mention list, open: still no violation, and the box's label stays in sight.
      await page.goto(`${t.baseUrl}${q}/chat`);
      await page.focus("#chat-text");
      await page.keyboard.type("@b");
      await page.waitForSelector("#chat-mentions:not([hidden]) [role=option]");
      assert.equal(
        await page.getAttribute("#chat-text", "aria-activedescendant"),
        "chat-mention-0",
      );
      assert.equal(await page.getAttribute("#chat-mention-0", "aria-selected"), "true");
      const [label, list] = await page.evaluate(
        `["label[for=chat-text]", "#chat-mentions"].map((s) => {
          const r = document.querySelector(s).getBoundingClientRect();
          return { top: r.top, bottom: r.bottom };
        })`,
      ) as { top: number; bottom: number }[];
      assert.ok(list!.top >= label!.bottom, "the mention list does not cover the Message label");
      for (const v of await seriousViolations(page)) found.push(`open mention list: ${v.id}`);
      // A Markdown box showing its preview, mentions in it (the reader's own too), both themes.
      for (const theme of ["dark", "light"]) {
        await ok("PATCH", "/api/users/me", { locale: "en", theme });
        await page.goto(`${t.baseUrl}${q}/notes/${noteId}`);
        await page.evaluate(
          `document.querySelectorAll("details").forEach((d) => { d.open = true; })`,
        );
        await page.fill("[data-markdown-box] textarea", `**Hi** @bo@example.com, @${annEmail}`);
        await page.click("[data-markdown-box] [data-md-tab=preview]");
        await page.waitForSelector("[data-markdown-preview] .mention-me");
        for (const v of await seriousViolations(page)) found.push(`${theme} preview: ${v.id}`);
      }
      await context.close();
      // The pages seen without a session (sign-in, registration, unsubscribe, password reset,
      // verification, a link that does not work, single sign-on's refusals and link page), in
      // each language and theme as the visitor's cookies choose them.
      for (
        const [locale, theme] of [["en", "dark"], ["en", "light"], ["ja", "dark"], ["ja", "light"]]
      ) {
        const visitor = await browser.newContext();
        await visitor.addCookies([
          { name: "locale", value: locale!, url: t.baseUrl },
          { name: "theme", value: theme!, url: t.baseUrl },
        ]);
        const publicPage = await visitor.newPage();
        // The verification link's page verifies on opening: a new link each time.
        const check = async (path: string, status: number, label = path) => {
          const res = await publicPage.goto(`${t.baseUrl}${path}`);
          assert.equal(res?.status(), status, `${locale} ${theme} ${label}`);
          assert.equal(await publicPage.getAttribute("html", "lang"), locale, label);
          for (const v of await seriousViolations(publicPage)) {
            found.push(`visitor ${locale} ${theme} ${label}: ${v.impact} ${v.id} ${v.help}`);
          }
        };
        for (const path of [...publicPaths, await verifyPath()]) {
          await check(path, statuses[path] ?? 200);
        }
        // The single sign-on link page with a link waiting: its password form.
        await visitor.addCookies([{ ...ssoLink.cookie, domain: "127.0.0.1" }]);
        await check(ssoLink.path, 200, `${ssoLink.path} (a link waiting)`);
        await visitor.close();
      }
      assert.deepEqual(found, [], `axe-core violations:\n${found.join("\n")}`);
    } finally {
      await browser.close();
      await t.close();
    }
  },
);
