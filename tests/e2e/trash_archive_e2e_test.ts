/**
 * The trash and project archives in a real browser: a to-do deleted from its page comes back
 * on the board with the Undo of the message that follows; a note deleted from its page is
 * restored from the project's Trash page; a project exported from its page and imported from
 * the projects page shows the report and the new project.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import type { TestServer } from "../helpers/app.ts";
import { browserTest } from "./browser.ts";
import { call, pageAs, register, withBrowser } from "./session.ts";

/** Runs `fn` with a fresh server, a browser, and Ann's page in a project of hers. */
async function withAnn(
  fn: (t: TestServer, page: Page, ann: string, projectId: number) => Promise<void>,
): Promise<void> {
  await withBrowser(async (t, browser) => {
    const ann = await register(t, "ann@example.com", "Ann");
    const project = (await call(t, ann, "POST", "/api/projects", { name: "Harbour" })).json
      .project as { id: number };
    const page = await pageAs(browser, t, ann, {
      context: { acceptDownloads: true },
      acceptDialogs: true,
    });
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await fn(t, page, ann, project.id);
    assert.deepEqual(errors, []);
  });
}

browserTest("trash: a to-do deleted from its page is back on the board after Undo", async () => {
  await withAnn(async (t, page, ann, projectId) => {
    const created = await call(t, ann, "POST", `/api/projects/${projectId}/todos/items`, {
      title: "Book the venue",
    });
    const itemId = created.json.item.id as number;
    await page.goto(`${t.baseUrl}/projects/${projectId}/todos/${itemId}`);
    await Promise.all([
      page.waitForURL(new RegExp(`/todos\\?deleted=item-${itemId}$`)),
      page.locator("button", { hasText: "Delete to-do" }).click(),
    ]);
    assert.equal(await page.locator(`[data-item="${itemId}"]`).count(), 0);
    const notice = page.locator(`[data-deleted="item-${itemId}"]`);
    assert.match((await notice.textContent()) ?? "", /To-do moved to the trash\./);

    await Promise.all([
      page.waitForURL(new RegExp(`/todos\\?restored=item-${itemId}#item-${itemId}$`)),
      notice.locator("button", { hasText: "Undo" }).click(),
    ]);
    await page.locator(`[data-item="${itemId}"]`, { hasText: "Book the venue" }).waitFor();
    assert.match(
      (await page.locator("[data-restored]").textContent()) ?? "",
      /To-do restored\./,
    );
    const items = (await call(t, ann, "GET", `/api/projects/${projectId}/todos/items`)).json;
    assert.deepEqual(items.items.map((i: { id: number }) => i.id), [itemId]);
  });
});

browserTest("trash: a deleted note is restored from the project's Trash page", async () => {
  await withAnn(async (t, page, ann, projectId) => {
    const created = await call(t, ann, "POST", `/api/projects/${projectId}/notes`, {
      title: "Tide tables",
      body: "High water at six.",
    });
    const noteId = created.json.note.id as number;
    await page.goto(`${t.baseUrl}/projects/${projectId}/notes/${noteId}`);
    await Promise.all([
      page.waitForURL(/\/notes\?deleted=note-\d+$/),
      page.locator("button", { hasText: "Delete note" }).click(),
    ]);
    await Promise.all([
      page.waitForURL(new RegExp(`/projects/${projectId}/trash$`)),
      page.locator("nav.tabs a", { hasText: "Trash" }).click(),
    ]);
    const row = page.locator(`[data-trash="note-${noteId}"]`);
    assert.match((await row.textContent()) ?? "", /Tide tables/);
    assert.match((await row.textContent()) ?? "", /Ann/);

    await Promise.all([
      page.waitForURL(new RegExp(`/trash\\?restored=note-${noteId}$`)),
      row.locator("button", { hasText: "Restore" }).click(),
    ]);
    assert.equal(await page.locator(`[data-trash="note-${noteId}"]`).count(), 0);
    await Promise.all([
      page.waitForURL(new RegExp(`/notes/${noteId}$`)),
      page.locator("[data-restored] a", { hasText: "Show it" }).click(),
    ]);
    assert.equal(await page.locator("h1").textContent(), "Tide tables");
  });
});

browserTest(
  "archives: a project exported from its page imports from the projects page with its report",
  async () => {
    await withAnn(async (t, page, ann, projectId) => {
      await call(t, ann, "POST", `/api/projects/${projectId}/notes`, {
        title: "Moorings",
        body: "Berth 4.",
      });
      await page.goto(`${t.baseUrl}/projects/${projectId}`);
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.locator("[data-export]").click(),
      ]);
      assert.match(download.suggestedFilename(), /^Harbour-\d{4}-\d{2}-\d{2}\.zip$/);
      const archive = await download.path();

      await page.goto(`${t.baseUrl}/projects`);
      await page.locator("form[data-import] input[name=file]").setInputFiles(archive);
      await Promise.all([
        page.waitForURL(`${t.baseUrl}/projects/import`),
        page.locator("form[data-import] button[type=submit]").click(),
      ]);
      assert.equal(await page.locator("h1").textContent(), "Project imported");
      assert.equal(
        await page.locator('[data-count="notes"] td').nth(1).textContent(),
        "1",
      );
      assert.equal(await page.locator("[data-unmatched=none]").count(), 1);
      const imported = Number(await page.locator("[data-imported]").getAttribute("data-imported"));
      assert.notEqual(imported, projectId);

      await Promise.all([
        page.waitForURL(`${t.baseUrl}/projects/${imported}`),
        page.locator("[data-imported] a").click(),
      ]);
      assert.equal(await page.locator("h1").first().textContent(), "Harbour");
      await page.goto(`${t.baseUrl}/projects/${imported}/notes`);
      await page.locator("a", { hasText: "Moorings" }).waitFor();
    });
  },
);
