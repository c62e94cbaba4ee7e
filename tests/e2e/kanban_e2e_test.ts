/**
 * The kanban board in a real browser: a card dragged to another column, and within a column,
 * keeps its place after a reload and in the API; another member's board follows live; the
 * move buttons work from the keyboard and keep the focus on the card.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { browserTest } from "./browser.ts";
import { call, pageAs, register, registerUser, withBrowser } from "./session.ts";

/** The item ids shown in a column, in order. */
function shown(page: Page, columnId: number): Promise<number[]> {
  return page.$$eval(
    `[data-column-items="${columnId}"] > [data-item]`,
    (els) => els.map((el) => Number(el.getAttribute("data-item"))),
  );
}

/** Waits until a column shows exactly `ids`, in order. */
/** Writes `n` cards into a column straight to the database; their ids in board order. */
async function cards(
  t: Parameters<Parameters<typeof withBrowser>[0]>[0],
  projectId: number,
  columnId: number,
  creatorId: number,
  n: number,
): Promise<number[]> {
  const at = t.clock.now().toISOString();
  await t.sql.run(
    `WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i + 1 < ?)
     INSERT INTO todo_items (project_id, column_id, creator_id, title, tags, order_index,
       created_at, updated_at)
     SELECT ?, ?, ?, 'Card ' || CAST(i AS text), '[]', i, ?, ? FROM s`,
    [n, projectId, columnId, creatorId, at, at],
  );
  return (await t.sql.all<{ id: number }>(
    "SELECT id FROM todo_items WHERE column_id = ? ORDER BY order_index",
    [columnId],
  )).map((r) => r.id);
}

async function until(page: Page, columnId: number, ids: number[]): Promise<void> {
  const selector = ids.map((id, i) =>
    `[data-column-items="${columnId}"] > [data-item="${id}"]:nth-child(${i + 1})`
  );
  for (const s of selector) await page.waitForSelector(s);
  assert.deepEqual(await shown(page, columnId), ids);
}

browserTest(
  "kanban: drag and drop between and within columns persists; keyboard move buttons work",
  async () => {
    await withBrowser(async (t, browser) => {
      const ann = await register(t, "ann@example.com", "Ann");
      const bo = await register(t, "bo@example.com", "Bo");
      const project = (await call(t, ann, "POST", "/api/projects", { name: "Board" })).json
        .project;
      await call(t, ann, "POST", `/api/projects/${project.id}/members`, {
        email: "bo@example.com",
        role: "member",
      });
      const columns = (await call(t, ann, "GET", `/api/projects/${project.id}/todos/columns`))
        .json.items as Array<{ id: number }>;
      const [todo, doing, done] = columns.map((c) => c.id) as [number, number, number];
      const ids: number[] = [];
      for (const title of ["Alpha", "Beta", "Gamma"]) {
        const res = await call(t, ann, "POST", `/api/projects/${project.id}/todos/items`, {
          title,
        });
        assert.equal(res.status, 201);
        ids.push(res.json.item.id);
      }
      const [alpha, beta, gamma] = ids as [number, number, number];
      const apiOrder = async (columnId: number) =>
        ((await call(t, ann, "GET", `/api/projects/${project.id}/todos/items?columnId=${columnId}`))
          .json.items as Array<{ id: number }>).map((i) => i.id);

      const url = `${t.baseUrl}/projects/${project.id}/todos`;
      const page = await pageAs(browser, t, ann);
      const other = await pageAs(browser, t, bo);
      const errors: string[] = [];
      for (const p of [page, other]) {
        p.on("pageerror", (error) => errors.push(error.message));
        await p.goto(url);
        await p.waitForSelector("body[data-stream=open]");
      }
      assert.deepEqual(await shown(page, todo), [alpha, beta, gamma]);
      // Each card's controls are named with its title (aria-labelledby: words said once per
      // board, and the card's title), and show that name when pointed at.
      const named = (name: string) => page.getByRole("button", { name, exact: true });
      assert.equal(await named("Move Beta to the next column").count(), 1);
      assert.equal(await named("Move Beta up").count(), 1);
      assert.equal(await named("Mark Alpha as complete").count(), 1);
      await named("Move Gamma up").hover();
      assert.equal(await named("Move Gamma up").getAttribute("title"), "Move Gamma up");
      assert.equal(
        await page.getAttribute(`[data-item="${alpha}"] [data-drag-handle]`, "title"),
        "Drag to move",
      );

      // Drag Alpha from To Do into In Progress.
      await Promise.all([
        page.waitForResponse((r) => /\/todos\/items\/\d+\/move$/.test(r.url()) && r.ok()),
        page.dragAndDrop(`[data-item="${alpha}"]`, `[data-column-items="${doing}"]`),
      ]);
      assert.deepEqual(await apiOrder(doing), [alpha]);
      assert.deepEqual(await apiOrder(todo), [beta, gamma]);
      // Bo's board follows without a reload.
      await until(other, doing, [alpha]);
      await until(other, todo, [beta, gamma]);
      await page.reload();
      await until(page, doing, [alpha]);
      await until(page, todo, [beta, gamma]);

      // Within a column: Gamma dropped on the top half of Beta goes above it.
      await page.waitForSelector("body[data-stream=open]");
      await Promise.all([
        page.waitForResponse((r) => /\/todos\/items\/\d+\/move$/.test(r.url()) && r.ok()),
        page.dragAndDrop(`[data-item="${gamma}"]`, `[data-item="${beta}"]`, {
          targetPosition: { x: 20, y: 3 },
        }),
      ]);
      assert.deepEqual(await apiOrder(todo), [gamma, beta]);
      await page.reload();
      await until(page, todo, [gamma, beta]);
      await until(other, todo, [gamma, beta]);

      // The keyboard: focus Beta's → button and press Enter; the card moves and keeps focus.
      await page.waitForSelector("body[data-stream=open]");
      await page.focus(`[data-item="${beta}"] [aria-labelledby$=" w-right"]`);
      await Promise.all([
        page.waitForResponse((r) => r.url().includes(`/todos/items/${beta}/move`) && r.ok()),
        page.keyboard.press("Enter"),
      ]);
      await until(page, doing, [alpha, beta]);
      const focused = () =>
        page.evaluate(`(() => {
          const el = document.activeElement;
          const card = el && el.closest("[data-item]");
          const words = el.closest(".card-moves") ? el.getAttribute("aria-labelledby").split(" ").at(-1) : el.className;
          return card ? card.getAttribute("data-item") + " " + words : null;
        })()`);
      assert.equal(await focused(), `${beta} w-right`);
      // ↑ takes it above Alpha; Space works as well as Enter on a button.
      await page.focus(`[data-item="${beta}"] [aria-labelledby$=" w-up"]`);
      await Promise.all([
        page.waitForResponse((r) => r.url().includes(`/todos/items/${beta}/move`) && r.ok()),
        page.keyboard.press("Space"),
      ]);
      await until(page, doing, [beta, alpha]);
      // At the top, ↑ is disabled, so the focus goes to another button of the same card.
      assert.match(String(await focused()), new RegExp(`^${beta} `));
      assert.deepEqual(await apiOrder(doing), [beta, alpha]);
      // → again moves it to Done; the toggle completes it.
      await page.focus(`[data-item="${beta}"] [aria-labelledby$=" w-right"]`);
      await Promise.all([
        page.waitForResponse((r) => r.url().includes(`/todos/items/${beta}/move`) && r.ok()),
        page.keyboard.press("Enter"),
      ]);
      await until(page, done, [beta]);
      await Promise.all([
        page.waitForResponse((r) => r.url().includes(`/items/${beta}/toggle-complete`) && r.ok()),
        page.click(`[data-item="${beta}"] .card-toggle button`),
      ]);
      await page.waitForSelector(`[data-item="${beta}"].completed`);
      await other.waitForSelector(`[data-item="${beta}"].completed`);
      const item = (await call(t, ann, "GET", `/api/projects/${project.id}/todos/items/${beta}`))
        .json.item;
      assert.equal(item.columnId, done);
      assert.equal(item.completed, true);
      assert.deepEqual(errors, []);
    });
  },
);

browserTest("kanban: the move buttons work with JavaScript turned off", async () => {
  await withBrowser(async (t, browser) => {
    const ann = await register(t, "ann@example.com", "Ann");
    const project = (await call(t, ann, "POST", "/api/projects", { name: "Plain" })).json.project;
    const columns = (await call(t, ann, "GET", `/api/projects/${project.id}/todos/columns`)).json
      .items as Array<{ id: number }>;
    const item = (await call(t, ann, "POST", `/api/projects/${project.id}/todos/items`, {
      title: "No script",
    })).json.item;
    const context = await browser.newContext({ javaScriptEnabled: false });
    await context.addCookies([{ name: "session", value: ann, url: t.baseUrl }]);
    const page = await context.newPage();
    await page.goto(`${t.baseUrl}/projects/${project.id}/todos`);
    await page.focus(`[data-item="${item.id}"] [aria-labelledby$=" w-right"]`);
    await Promise.all([page.waitForURL(/#item-\d+$/), page.keyboard.press("Enter")]);
    await page.waitForSelector(
      `[data-column-items="${columns[1]!.id}"] > [data-item="${item.id}"]`,
    );
    // The create form, too.
    await page.click("summary:has-text('New to-do')");
    await page.fill("form[data-todo-create] input[name=title]", "Made without script");
    await page.selectOption("form[data-todo-create] select[name=priority]", "high");
    await page.click("form[data-todo-create] button[type=submit]");
    await page.waitForSelector("[data-item] .card-title:has-text('Made without script')");
  });
});

browserTest(
  "kanban on a phone: a finger drags a card by its handle to another column and the server has it there",
  async () => {
    await withBrowser(async (t, browser) => {
      const ann = await register(t, "ann@example.com", "Ann");
      const project = (await call(t, ann, "POST", "/api/projects", { name: "Touch" })).json
        .project;
      const columns = (await call(t, ann, "GET", `/api/projects/${project.id}/todos/columns`))
        .json.items as Array<{ id: number }>;
      const [todo, doing] = columns.map((c) => c.id) as [number, number];
      const ids: number[] = [];
      for (const title of ["Alpha", "Beta"]) {
        ids.push(
          (await call(t, ann, "POST", `/api/projects/${project.id}/todos/items`, { title })).json
            .item.id,
        );
      }
      const [alpha, beta] = ids as [number, number];
      const apiColumn = async (id: number) =>
        (await call(t, ann, "GET", `/api/projects/${project.id}/todos/items/${id}`)).json.item
          .columnId;

      const page = await pageAs(browser, t, ann, {
        context: { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true },
      });
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      const requests: string[] = [];
      page.on("request", (r) => {
        if (r.method() === "POST") requests.push(new URL(r.url()).pathname);
      });
      await page.goto(`${t.baseUrl}/projects/${project.id}/todos`);
      await page.waitForSelector("body[data-stream=open]");
      // Real touch input through the browser's input pipeline, as a phone sends it.
      const cdp = await page.context().newCDPSession(page);
      const touch = (
        type: "touchStart" | "touchMove" | "touchEnd",
        points: Array<{ x: number; y: number }>,
      ) => cdp.send("Input.dispatchTouchEvent", { type, touchPoints: points });
      const centre = (selector: string) =>
        page.$eval(selector, (el) => {
          const r = el.getBoundingClientRect();
          return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
        });
      const swipe = async (from: { x: number; y: number }, to: { x: number; y: number }) => {
        await touch("touchStart", [from]);
        for (let i = 1; i <= 10; i++) {
          await touch("touchMove", [{
            x: from.x + (to.x - from.x) * i / 10,
            y: from.y + (to.y - from.y) * i / 10,
          }]);
        }
        await touch("touchEnd", []);
      };
      assert.equal(
        await page.evaluate(
          `getComputedStyle(document.querySelector("[data-drag-handle]")).touchAction`,
        ),
        "none",
      );
      assert.equal(
        await page.evaluate(
          `getComputedStyle(document.querySelector('[data-item="${alpha}"]')).touchAction`,
        ),
        "auto",
      );

      // A finger on the card's text, not its handle, moves nothing.
      const title = await centre(`[data-item="${beta}"] .card-facts`);
      await swipe(title, { x: title.x, y: title.y + 120 });
      await page.waitForTimeout(300);
      assert.deepEqual(requests, []);
      assert.equal(await apiColumn(beta), todo);

      // Alpha's handle, dragged onto the In progress column (partly in sight at 390 px).
      const from = await centre(`[data-item="${alpha}"] [data-drag-handle]`);
      const list = await page.$eval(`[data-column-items="${doing}"]`, (el) => {
        const r = el.getBoundingClientRect();
        return { x: Math.min(r.left + 30, 390 - 50), y: r.top + r.height / 2 };
      });
      await Promise.all([
        page.waitForResponse((r) => /\/todos\/items\/\d+\/move$/.test(r.url()) && r.ok()),
        swipe(from, list),
      ]);
      assert.equal(await apiColumn(alpha), doing);
      assert.equal(await apiColumn(beta), todo);
      await until(page, doing, [alpha]);
      await until(page, todo, [beta]);
      assert.equal(await page.$$eval(".kanban-card.dragging", (els) => els.length), 0);
      assert.deepEqual(errors, []);
    });
  },
);

browserTest(
  "kanban: a long column shows 100 cards and Show more adds the next 100; a later card still moves",
  async () => {
    await withBrowser(async (t, browser) => {
      const ann = await registerUser(t, "ann@example.com", "Ann");
      const project = (await call(t, ann.session, "POST", "/api/projects", { name: "Long" })).json
        .project;
      const [todo, doing] = ((await call(
        t,
        ann.session,
        "GET",
        `/api/projects/${project.id}/todos/columns`,
      )).json.items as Array<{ id: number }>).map((c) => c.id) as [number, number];
      const ids = await cards(t, project.id, todo, ann.id, 250);
      const page = await pageAs(browser, t, ann.session);
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      await page.goto(`${t.baseUrl}/projects/${project.id}/todos`);
      await page.waitForSelector("body[data-stream=open]");
      assert.deepEqual(await shown(page, todo), ids.slice(0, 100));
      await page.click(`[data-kanban-more="${todo}"] a`);
      await page.waitForSelector(`[data-column-items="${todo}"] > [data-item]:nth-child(200)`);
      assert.deepEqual(await shown(page, todo), ids.slice(0, 200));
      assert.match(await page.textContent(`[data-kanban-more="${todo}"]`) ?? "", /200 of 250/);
      // Card 150 (loaded by Show more) moves right with its button; the board keeps 200 shown.
      const card = ids[150]!;
      await Promise.all([
        page.waitForResponse((r) => r.url().includes(`/todos/items/${card}/move`) && r.ok()),
        page.click(`[data-item="${card}"] [aria-labelledby$=" w-right"]`),
      ]);
      await until(page, doing, [card]);
      assert.deepEqual(await shown(page, todo), ids.filter((id) => id !== card).slice(0, 200));
      assert.deepEqual(errors, []);
    });
  },
);

browserTest(
  "kanban: a re-render that was on its way when Show more added cards keeps them shown",
  async () => {
    await withBrowser(async (t, browser) => {
      const ann = await registerUser(t, "ann@example.com", "Ann");
      const project = (await call(t, ann.session, "POST", "/api/projects", { name: "Race" })).json
        .project;
      const [todo] = ((await call(
        t,
        ann.session,
        "GET",
        `/api/projects/${project.id}/todos/columns`,
      )).json.items as Array<{ id: number }>).map((c) => c.id) as [number];
      const ids = await cards(t, project.id, todo, ann.id, 150);
      const page = await pageAs(browser, t, ann.session);
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      // The first re-render (the stream's opening) is held until Show more has added its page.
      let release = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      let fragments = 0;
      await page.route(/\/todos\?fragment=1/, async (route) => {
        fragments++;
        if (fragments === 1) await held;
        await route.continue();
      });
      await page.goto(`${t.baseUrl}/projects/${project.id}/todos`);
      await page.waitForSelector("body[data-stream=open]");
      while (fragments === 0) await page.waitForTimeout(20);
      await page.click(`[data-kanban-more="${todo}"] a`);
      await page.waitForSelector(`[data-column-items="${todo}"] > [data-item]:nth-child(150)`);
      release();
      // The held answer (100 cards) is not shown; the board asks again for the 150 shown.
      await page.waitForSelector("body[data-kanban-version]", { state: "attached" });
      assert.equal(fragments, 2);
      assert.deepEqual(await shown(page, todo), ids);
      assert.deepEqual(errors, []);
    });
  },
);
