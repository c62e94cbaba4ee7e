/**
 * Image previews in a real browser: a PNG uploaded on the Files page shows as a thumbnail that
 * the browser really draws (served inline through the preview route), opens full size when
 * clicked, and is attached to a to-do from the picker, where it shows as a thumbnail too.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import type { Page } from "playwright-core";
import { PNG_BYTES } from "../helpers/api.ts";
import { browserTest } from "./browser.ts";
import { call, pageAs, register, withBrowser } from "./session.ts";

/** What the page's `<img>` offers here (the tests are type-checked without the DOM's types). */
interface DrawnImage {
  complete: boolean;
  naturalWidth: number;
  addEventListener(type: "load" | "error", listener: () => void, options: { once: true }): void;
}

/** Waits for the thumbnail `selector` to be drawn; answers its natural width. */
async function drawnWidth(page: Page, selector: string): Promise<number> {
  // Evaluated through the protocol, not polled by a string in the page: the pages' CSP refuses
  // `eval`, which `waitForFunction` with a string uses once the image is not drawn at once.
  return await page.locator(selector).evaluate((img: DrawnImage) =>
    img.complete ? img.naturalWidth : new Promise<number>((resolve, reject) => {
      img.addEventListener("load", () => resolve(img.naturalWidth), { once: true });
      img.addEventListener("error", () => reject(new Error("the image did not load")), {
        once: true,
      });
    })
  );
}

browserTest(
  "images: an uploaded PNG shows its thumbnail and is attached to a to-do from the picker",
  async () => {
    await withBrowser(async (t, browser) => {
      const ann = await register(t, "ann@example.com", "Ann");
      const project = (await call(t, ann, "POST", "/api/projects", { name: "Pictures" })).json
        .project;
      const item = (await call(t, ann, "POST", `/api/projects/${project.id}/todos/items`, {
        title: "Check the logo",
      })).json.item;
      const page = await pageAs(browser, t, ann);
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));

      await page.goto(`${t.baseUrl}/projects/${project.id}/files`);
      await page.locator("input[name=file]").setInputFiles({
        name: "logo.png",
        mimeType: "image/png",
        buffer: Buffer.from(PNG_BYTES),
      });
      await page.locator("form[enctype='multipart/form-data'] button[type=submit]").click();
      const thumb = "table.files img[alt='logo.png']";
      assert.equal(await drawnWidth(page, thumb), 1, "the browser draws the PNG");
      const box = await page.locator(thumb).boundingBox();
      assert.ok(box && box.width > 30 && box.width < 100, `a thumbnail-sized box: ${box?.width}`);

      // Clicked, it opens at full size: the image alone, inline.
      const [response] = await Promise.all([
        page.waitForNavigation(),
        page.locator("table.files a.thumb").click(),
      ]);
      assert.equal(response?.status(), 200);
      assert.equal(response?.headers()["content-type"], "image/png");
      assert.match(response?.headers()["content-disposition"] ?? "", /^inline;/);
      assert.match(page.url(), /\/files\/\d+\/preview$/);

      await page.goto(`${t.baseUrl}/projects/${project.id}/todos/${item.id}`);
      await page.locator("form[data-attach-existing] select[name=fileId]").selectOption({
        label: `logo.png (${PNG_BYTES.byteLength} B)`,
      });
      await page.locator("form[data-attach-existing] button[type=submit]").click();
      const attached = "[data-attachments] img[alt='logo.png']";
      assert.equal(await drawnWidth(page, attached), 1, "the to-do shows the thumbnail");
      const api = await call(t, ann, "GET", `/api/projects/${project.id}/todos/items/${item.id}`);
      const attachments = (api.json.item ?? api.json).attachments as Array<{ name: string }>;
      assert.deepEqual(attachments.map((f) => f.name), ["logo.png"]);
      assert.deepEqual(errors, []);
    });
  },
);
