/**
 * A checklist in a real browser: two entries added and one checked on the to-do page, by
 * their labels and accessible names, and the board's card reads 1/2.
 */
import assert from "node:assert/strict";
import { browserTest } from "./browser.ts";
import { call, pageAs, register, withBrowser } from "./session.ts";

browserTest("checklist: two entries added, one checked, the board's card shows 1/2", async () => {
  await withBrowser(async (t, browser) => {
    const ann = await register(t, "ann@example.com", "Ann");
    const project = (await call(t, ann, "POST", "/api/projects", { name: "Launch" })).json.project;
    const item = (await call(t, ann, "POST", `/api/projects/${project.id}/todos/items`, {
      title: "Print slides",
    })).json.item;
    const page = await pageAs(browser, t, ann);
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(`${t.baseUrl}/projects/${project.id}/todos/${item.id}`);

    for (const text of ["Draft the slides", "Rehearse"]) {
      await page.getByLabel("New checklist entry").fill(text);
      await Promise.all([
        page.waitForURL(/#checklist$/),
        page.getByRole("button", { name: "Add entry" }).click(),
      ]);
      await page.getByText(text, { exact: true }).waitFor();
    }
    await page.getByRole("button", { name: "Mark “Draft the slides” as done" }).click();
    await page.getByRole("button", { name: "Mark “Draft the slides” as not done" }).waitFor();
    assert.equal(
      await page.locator("[data-checklist-progress]").textContent(),
      "1 of 2 done",
    );

    await page.goto(`${t.baseUrl}/projects/${project.id}/todos`);
    const count = page.locator(`[data-item="${item.id}"] [data-checklist-count]`);
    assert.equal(await count.getAttribute("data-checklist-count"), "1/2");
    assert.equal((await count.locator("[aria-hidden=true]").textContent())?.trim(), "✓ 1/2");
    await page.getByText("Checklist: 1 of 2 done").waitFor({ state: "attached" });
    const entries = (await call(
      t,
      ann,
      "GET",
      `/api/projects/${project.id}/todos/items/${item.id}/checklist`,
    )).json.items;
    assert.deepEqual(entries.map((e: { text: string; done: boolean }) => [e.text, e.done]), [
      ["Draft the slides", true],
      ["Rehearse", false],
    ]);
    assert.deepEqual(errors, []);
  });
});
