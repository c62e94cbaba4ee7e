/**
 * In a real browser: a note's Markdown box gets Write and Preview tabs; Preview shows the
 * text as the server renders it (mentions as names, the writer's own marked, raw HTML
 * inert), the keyboard moves between the tabs, and the note saves from either tab.
 */
import assert from "node:assert/strict";
import { browserTest } from "./browser.ts";
import { call, pageAs, registerUser, withBrowser } from "./session.ts";

browserTest("a Markdown box toggles between Write and Preview, by mouse and keyboard", async () => {
  await withBrowser(async (t, browser) => {
    const ann = await registerUser(t, "ann@example.com", "Ann Archer");
    await registerUser(t, "bob@example.com", "Bob Baker");
    const project = (await call(t, ann.session, "POST", "/api/projects", { name: "Apollo" }))
      .json.project;
    await call(t, ann.session, "POST", `/api/projects/${project.id}/members`, {
      email: "bob@example.com",
      role: "member",
    });
    const page = await pageAs(browser, t, ann.session);
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(String(error)));
    await page.goto(`${t.baseUrl}/projects/${project.id}/notes`);
    await page.click("summary:has-text('New note')");

    const box = page.locator("[data-markdown-box]").first();
    const write = box.locator("[role=tab][data-md-tab=write]");
    const preview = box.locator("[role=tab][data-md-tab=preview]");
    const textarea = box.locator("textarea[name=body]");
    const panel = box.locator("[role=tabpanel][data-markdown-preview]");
    await write.waitFor();
    assert.equal(await write.getAttribute("aria-selected"), "true");
    assert.equal(await preview.getAttribute("aria-selected"), "false");
    assert.equal(await panel.isVisible(), false);

    await page.fill("input[name=title]", "Plan");
    await textarea.fill(
      "The **marketing** plan for @bob@example.com and @ann@example.com <img src=x onerror=window.__xss=1>",
    );
    await preview.click();
    await panel.locator("strong").waitFor();
    assert.equal(await preview.getAttribute("aria-selected"), "true");
    assert.equal(await textarea.isVisible(), false);
    assert.equal(await panel.locator("strong").textContent(), "marketing");
    assert.equal(await panel.locator(".mention:not(.mention-me)").textContent(), "@Bob Baker");
    assert.equal(await panel.locator(".mention.mention-me").textContent(), "@Ann Archer");
    assert.equal(await panel.locator("img").count(), 0);
    assert.equal(await page.evaluate("typeof window.__xss"), "undefined");

    // The keyboard: Left goes back to Write (focus moves with it), Right to Preview.
    await preview.focus();
    await page.keyboard.press("ArrowLeft");
    assert.equal(await write.getAttribute("aria-selected"), "true");
    assert.equal(await page.evaluate("document.activeElement?.dataset.mdTab"), "write");
    assert.equal(await textarea.isVisible(), true);
    assert.equal(await write.getAttribute("tabindex"), "0");
    assert.equal(await preview.getAttribute("tabindex"), "-1");
    await page.keyboard.press("ArrowRight");
    assert.equal(await preview.getAttribute("aria-selected"), "true");
    await panel.locator("strong").waitFor();

    // Saving from the Preview tab sends the text as written.
    await page.click("button:has-text('Create note')");
    await page.waitForURL(/\/notes\/\d+/);
    assert.equal(await page.locator("[data-markdown] strong").first().textContent(), "marketing");
    assert.equal(
      await page.locator("[data-markdown] .mention.mention-me").textContent(),
      "@Ann Archer",
    );
    assert.deepEqual(errors, []);
  });
});

browserTest("an empty Markdown box previews as 'Nothing to preview.'", async () => {
  await withBrowser(async (t, browser) => {
    const ann = await registerUser(t, "ann@example.com");
    const page = await pageAs(browser, t, ann.session);
    await page.goto(`${t.baseUrl}/projects`);
    const box = page.locator("[data-markdown-box]").first();
    await box.locator("[role=tab][data-md-tab=preview]").click();
    assert.equal(
      await box.locator("[data-markdown-preview]").textContent(),
      "Nothing to preview.",
    );
  });
});
