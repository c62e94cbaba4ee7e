/**
 * Lists that grow for years, on the pages: meetings, milestones and activity are paged with
 * next and previous links, and the dashboards show 20 entries at most with each list's total
 * and an "all N" link to the full list.
 */
import assert from "node:assert/strict";
import { type TestApp, testApp } from "../helpers/app.ts";
import { api, expectJson, team } from "../helpers/api.ts";
import { page, post } from "./page_requests.ts";

const NOW = "2026-11-22T08:30:00.000Z";

/** The content of a dashboard section. */
function section(html: string, name: string): string {
  const match = html.match(
    new RegExp(`<section[^>]*data-section="${name}"[^>]*>([\\s\\S]*?)</section>`),
  );
  assert.ok(match, `no section ${name}`);
  return match[1]!;
}

/** The ids in `data-<attr>="N"` attributes, in page order. */
function idsOf(html: string, attr: string): number[] {
  return [...html.matchAll(new RegExp(`data-${attr}="(\\d+)"`, "g"))].map((m) => Number(m[1]));
}

/** `n` as two digits. */
const pad = (n: number) => String(n).padStart(2, "0");

async function insertMeeting(
  t: TestApp,
  projectId: number,
  creatorId: number,
  m: { title: string; startAt: string; endAt: string },
): Promise<number> {
  return (await t.sql.returning<{ id: number }>(
    `INSERT INTO meetings (project_id, creator_id, title, start_at, end_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    [projectId, creatorId, m.title, m.startAt, m.endAt, NOW, NOW],
  )).id;
}

async function insertMilestone(
  t: TestApp,
  projectId: number,
  creatorId: number,
  title: string,
  createdAt: string,
): Promise<number> {
  return (await t.sql.returning<{ id: number }>(
    `INSERT INTO milestones (project_id, creator_id, title, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?) RETURNING id`,
    [projectId, creatorId, title, createdAt, createdAt],
  )).id;
}

Deno.test("the meetings page is paged: upcoming soonest first, then past latest first, with links", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { alice, project } = await team(t);
    const base = `/projects/${project.id}/meetings`;
    const upcoming: number[] = [];
    const past: number[] = [];
    // Made latest first, so neither the ids nor creation order give the list's order.
    for (let i = 23; i >= 0; i--) {
      upcoming.unshift(
        await insertMeeting(t, project.id, alice.user.id, {
          title: `Next ${pad(i)}`,
          startAt: `2026-12-${pad(i + 1)}T09:00:00.000Z`,
          endAt: `2026-12-${pad(i + 1)}T10:00:00.000Z`,
        }),
      );
    }
    for (let i = 0; i < 3; i++) {
      past.unshift(
        await insertMeeting(t, project.id, alice.user.id, {
          title: `Past ${i}`,
          startAt: `2026-11-${pad(i + 1)}T09:00:00.000Z`,
          endAt: `2026-11-${pad(i + 1)}T10:00:00.000Z`,
        }),
      );
    }

    const first = await page(t, alice.cookie, base);
    assert.equal(first.status, 200);
    assert.deepEqual(idsOf(first.html, "meeting"), upcoming.slice(0, 20));
    assert.match(first.html, /data-meetings="upcoming"/);
    assert.doesNotMatch(first.html, /data-meetings="past"/);
    assert.match(first.html, new RegExp(`href="${base}\\?page=2" rel="next"`));
    assert.doesNotMatch(first.html, /rel="prev"/);
    assert.match(first.html, /27 meetings in all\./);
    assert.match(first.html, /Page 1 of 2/);

    const second = await page(t, alice.cookie, `${base}?page=2`);
    assert.deepEqual(idsOf(second.html, "meeting"), [...upcoming.slice(20), ...past]);
    const upcomingAt = second.html.indexOf('data-meetings="upcoming"');
    const pastAt = second.html.indexOf('data-meetings="past"');
    assert.ok(upcomingAt > 0 && pastAt > upcomingAt, "upcoming, then past");
    assert.match(second.html, new RegExp(`href="${base}" rel="prev"`));
    assert.doesNotMatch(second.html, /rel="next"/);

    // Beyond the last page: an empty page, still with the way back.
    const beyond = await page(t, alice.cookie, `${base}?page=7`);
    assert.equal(beyond.status, 200);
    assert.deepEqual(idsOf(beyond.html, "meeting"), []);
    assert.match(beyond.html, /rel="prev"/);

    await api(t, "PATCH", "/api/users/me", { cookie: alice.cookie, body: { locale: "ja" } });
    const ja = await page(t, alice.cookie, `${base}?page=2`);
    assert.match(ja.html, /会議は全部で 27 件です。/);
    assert.match(ja.html, /過去の会議/);
  } finally {
    await t.close();
  }
});

Deno.test("the milestones page is paged, oldest first; a save returns to the page that lists it", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { alice, project } = await team(t);
    const base = `/projects/${project.id}/milestones`;
    const ids: number[] = [];
    for (let i = 0; i < 23; i++) {
      ids.push(
        await insertMilestone(
          t,
          project.id,
          alice.user.id,
          `M${pad(i)}`,
          `2026-11-01T00:${pad(i)}:00.000Z`,
        ),
      );
    }
    const first = await page(t, alice.cookie, base);
    assert.deepEqual(idsOf(first.html, "milestone"), ids.slice(0, 20));
    assert.match(first.html, new RegExp(`href="${base}\\?page=2" rel="next"`));
    assert.match(first.html, /23 milestones in all\./);
    const second = await page(t, alice.cookie, `${base}?page=2`);
    assert.deepEqual(idsOf(second.html, "milestone"), ids.slice(20));
    assert.match(second.html, new RegExp(`href="${base}" rel="prev"`));

    // Saving the 22nd goes back to page 2, at its card; a refused save shows it there too.
    const saved = await post(t, alice.cookie, `${base}/${ids[21]}`, { title: "Renamed" });
    assert.equal(saved.status, 303);
    assert.match(
      saved.location ?? "",
      new RegExp(`^${base}\\?page=2&saved=milestone-${ids[21]}#milestone-${ids[21]}$`),
    );
    const refused = await post(t, alice.cookie, `${base}/${ids[21]}`, { title: "   " });
    assert.equal(refused.status, 400);
    assert.deepEqual(idsOf(refused.html, "milestone"), ids.slice(20));
    // A new one is the newest: the last page.
    const created = await post(t, alice.cookie, base, { title: "Newest" });
    assert.equal(created.status, 303);
    assert.match(created.location ?? "", new RegExp(`^${base}\\?page=2&created=milestone-\\d+#`));
  } finally {
    await t.close();
  }
});

Deno.test("the activity page is paged (50 a page), newest first, with next and previous links", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { alice, project } = await team(t);
    const base = `/projects/${project.id}/activity`;
    // 55 entries about the (live) project, a second apart, so newest first is known.
    for (let i = 0; i < 55; i++) {
      await t.sql.run(
        `INSERT INTO activity (project_id, kind, actor_id, subject_type, subject_id, summary,
         created_at) VALUES (?, 'todo_created', ?, 'project', ?, ?, ?)`,
        [
          project.id,
          alice.user.id,
          project.id,
          `entry ${pad(i)}`,
          `2026-11-21T00:00:${pad(i)}.000Z`,
        ],
      );
    }
    const total = Number(
      (await t.sql.get<{ n: number }>(
        "SELECT count(*) AS n FROM activity WHERE project_id = ?",
        [project.id],
      ))!.n,
    );
    const first = await page(t, alice.cookie, base);
    assert.equal([...first.html.matchAll(/data-activity="/g)].length, 50);
    assert.match(first.html, /entry 54/);
    assert.doesNotMatch(first.html, />entry 04</);
    assert.match(first.html, new RegExp(`href="${base}\\?page=2" rel="next"`));
    assert.doesNotMatch(first.html, /rel="prev"/);
    const second = await page(t, alice.cookie, `${base}?page=2`);
    assert.equal([...second.html.matchAll(/data-activity="/g)].length, total - 50);
    assert.match(second.html, /entry 00/);
    assert.match(second.html, new RegExp(`href="${base}" rel="prev"`));
    assert.doesNotMatch(second.html, /rel="next"/);
  } finally {
    await t.close();
  }
});

Deno.test("the dashboards show 20 entries at most, the totals, and 'all N' links to the full lists", async () => {
  const t = await testApp({ now: NOW });
  try {
    const { owner, alice, project } = await team(t);
    const p = project.id;
    const columns = expectJson(
      await api(t, "GET", `/api/projects/${p}/todos/columns`, { cookie: alice.cookie }),
      200,
    ).items;
    const inProgress = columns.find((c: { key: string }) => c.key === "in_progress").id;
    for (let i = 0; i < 45; i++) {
      await t.sql.run(
        `INSERT INTO todo_items (project_id, column_id, creator_id, title, order_index, due_date,
         created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        [p, inProgress, alice.user.id, `Doing ${pad(i)}`, i, "2026-11-23", NOW, NOW],
      );
    }
    for (let i = 0; i < 23; i++) {
      await insertMilestone(t, p, alice.user.id, `M${pad(i)}`, `2026-11-01T00:${pad(i)}:00.000Z`);
    }
    const dash = await page(t, alice.cookie, `/projects/${p}`);
    assert.equal(dash.status, 200);
    const doing = section(dash.html, "inProgress");
    assert.equal(idsOf(doing, "item").length, 20);
    assert.match(doing, /data-count="true"> \(45\)</);
    assert.match(
      doing,
      new RegExp(
        `<a class="dash-more" href="/projects/${p}/todos#column-${inProgress}">All 45 in progress</a>`,
      ),
    );
    assert.match(doing, /Showing 20 of 45\./);
    const soon = section(dash.html, "nearDue");
    assert.equal(idsOf(soon, "item").length, 20);
    assert.match(soon, new RegExp(`href="/projects/${p}/todos">All 45 due soon</a>`));
    const milestones = section(dash.html, "milestones");
    assert.equal(idsOf(milestones, "milestone").length, 20);
    assert.match(milestones, new RegExp(`href="/projects/${p}/milestones">All 23 milestones</a>`));
    assert.match(milestones, /Showing 20 of 23\./);
    // A list that is not cut says nothing of the kind.
    assert.doesNotMatch(section(dash.html, "nextMeeting"), /data-capped/);

    // The personal dashboard: 22 projects, 20 listed.
    for (let i = 0; i < 21; i++) {
      await api(t, "POST", "/api/projects", { cookie: owner.cookie, body: { name: `P${pad(i)}` } });
    }
    const home = await page(t, owner.cookie, "/");
    const projects = section(home.html, "projects");
    assert.equal(idsOf(projects, "project").length, 20);
    assert.match(projects, /href="\/projects">All 22 projects<\/a>/);
    assert.match(projects, /Showing 20 of 22\./);

    await api(t, "PATCH", "/api/users/me", { cookie: alice.cookie, body: { locale: "ja" } });
    const ja = await page(t, alice.cookie, `/projects/${p}`);
    assert.match(section(ja.html, "inProgress"), /進行中のすべて（45 件）/);
    assert.match(section(ja.html, "inProgress"), /45 件中 20 件を表示しています。/);
  } finally {
    await t.close();
  }
});
