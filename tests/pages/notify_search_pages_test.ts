/**
 * The header's live unread badge and search box, "Mark all as read" on the notifications
 * page, a project's notification level on its page, and the search across projects.
 */
import assert from "node:assert/strict";
import { testApp } from "../helpers/app.ts";
import {
  api,
  createNote,
  createProject,
  notificationsOf,
  sendChat,
  type Team,
  team,
} from "../helpers/api.ts";

type T = Awaited<ReturnType<typeof testApp>>;

async function page(t: T, cookie: string, path: string, init: RequestInit = {}) {
  const headers = new Headers(init.headers);
  headers.set("cookie", cookie);
  const res = await t.app.request(path, { ...init, headers });
  return { status: res.status, location: res.headers.get("location"), html: await res.text() };
}

function post(t: T, cookie: string, path: string, fields: Record<string, string> = {}) {
  return page(t, cookie, path, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
}

async function withTeam(fn: (t: T, team: Team) => Promise<void>) {
  const t = await testApp();
  try {
    await fn(t, await team(t));
  } finally {
    await t.close();
  }
}

const japanese = (t: T, cookie: string) =>
  api(t, "PATCH", "/api/users/me", { cookie, body: { locale: "ja" } });

Deno.test("every page has the unread badge (hidden at 0), notify.js and the header search box", () =>
  withTeam(async (t, { alice, bob, project }) => {
    await api(t, "POST", "/api/notifications/read-all", { cookie: alice.cookie });
    for (const path of ["/", `/projects/${project.id}`, "/settings"]) {
      const { html } = await page(t, alice.cookie, path);
      assert.match(html, /<span class="badge" data-unread="0" hidden=""/, path);
      assert.match(html, /<script type="module" src="\/static\/notify.js"><\/script>/, path);
      assert.match(html, /<form class="header-search" method="get" action="\/search"/, path);
      assert.match(html, /placeholder="Search all projects"/, path);
    }
    await sendChat(t, bob.cookie, project.id, "@alice@example.com hi");
    const { html } = await page(t, alice.cookie, "/");
    assert.match(html, /<span class="badge" data-unread="1"\s+aria-label="1 unread">1<\/span>/);
    await japanese(t, alice.cookie);
    assert.match(
      (await page(t, alice.cookie, "/")).html,
      /placeholder="すべてのプロジェクトを検索"/,
    );
    const script = await t.app.request("/static/notify.js");
    assert.equal(script.status, 200);
    assert.match(await script.text(), /new EventSource\("\/api\/me\/stream"\)/);
  }));

Deno.test("a visitor's login page has no badge, search box or stream script", async () => {
  const t = await testApp();
  try {
    const html = await (await t.app.request("/login")).text();
    assert.doesNotMatch(html, /notify\.js|header-search|data-unread/);
  } finally {
    await t.close();
  }
});

Deno.test("Mark all as read on the notifications page reads them all, in English and Japanese", () =>
  withTeam(async (t, { alice, bob, project }) => {
    await sendChat(t, bob.cookie, project.id, "@alice@example.com one");
    const before = await page(t, alice.cookie, "/notifications");
    assert.match(before.html, /<button type="submit" data-mark-all-read="true">Mark all as read/);
    const done = await post(t, alice.cookie, "/notifications/read-all");
    assert.equal(done.status, 303);
    assert.equal(done.location, "/notifications");
    assert.equal((await notificationsOf(t, alice.cookie)).unreadCount, 0);
    assert.doesNotMatch((await page(t, alice.cookie, "/notifications")).html, /data-mark-all-read/);
    await sendChat(t, bob.cookie, project.id, "@alice@example.com two");
    await japanese(t, alice.cookie);
    assert.match((await page(t, alice.cookie, "/notifications")).html, />すべて既読にする</);
  }));

Deno.test("the project page sets the caller's notification level: All, Mentions, Nothing", () =>
  withTeam(async (t, { admin, alice, bob, project }) => {
    const base = `/projects/${project.id}`;
    const shown = await page(t, alice.cookie, base);
    assert.match(shown.html, /<legend>Notifications from this project<\/legend>/);
    assert.match(shown.html, /value="all" checked data-notification-level="all"/);
    const saved = await post(t, alice.cookie, `${base}/notification-level`, { level: "none" });
    assert.equal(saved.status, 303, saved.html);
    assert.equal(saved.location, base);
    assert.match(
      (await page(t, alice.cookie, base)).html,
      /value="none" checked data-notification-level="none"/,
    );
    await api(t, "POST", "/api/notifications/read-all", { cookie: alice.cookie });
    await sendChat(t, bob.cookie, project.id, "@alice@example.com quiet?");
    assert.equal((await notificationsOf(t, alice.cookie)).unreadCount, 0);

    const refused = await post(t, alice.cookie, `${base}/notification-level`, { level: "loud" });
    assert.equal(refused.status, 400);
    assert.match(refused.html, /class="alert"/);
    assert.match(
      (await page(t, alice.cookie, base)).html,
      /value="none" checked data-notification-level="none"/,
    );
    // An admin who is not a member has no level to set.
    assert.doesNotMatch((await page(t, admin.cookie, base)).html, /notification-level/);
    await japanese(t, alice.cookie);
    const ja = (await page(t, alice.cookie, base)).html;
    assert.match(ja, /このプロジェクトからの通知/);
    assert.match(ja, /メンションのみ/);
    assert.match(ja, /通知しない/);
  }));

Deno.test("the search page finds items in every project of the caller, labelled by project", () =>
  withTeam(async (t, { owner, outsider, project }) => {
    const other = await createProject(t, owner.cookie, "Zephyr");
    const hidden = await createProject(t, outsider.cookie, "Hidden");
    await createNote(t, owner.cookie, project.id, { title: "Rocket plan", body: "" });
    await createNote(t, owner.cookie, other.id, { title: "Rocket party", body: "" });
    await createNote(t, outsider.cookie, hidden.id, { title: "Rocket secret", body: "" });
    const { status, html } = await page(t, owner.cookie, "/search?q=rocket");
    assert.equal(status, 200);
    assert.match(html, /data-search-total="2"/);
    assert.match(html, new RegExp(`data-hit-project="${other.id}">Zephyr</a>`));
    assert.match(html, new RegExp(`data-hit-project="${project.id}">Apollo</a>`));
    assert.doesNotMatch(html, /Rocket secret/);
    const blank = await page(t, owner.cookie, "/search");
    assert.match(blank.html, /in all your projects/);
    const bad = await page(t, owner.cookie, "/search?q=rocket&type=nope");
    assert.equal(bad.status, 400);
    assert.match(bad.html, /Unknown type/);
    // The project's own search stays.
    const own = await page(t, owner.cookie, `/projects/${project.id}/search?q=rocket`);
    assert.match(own.html, /data-search-total="1"/);
    await japanese(t, owner.cookie);
    assert.match(
      (await page(t, owner.cookie, "/search")).html,
      /<h1>すべてのプロジェクトを検索<\/h1>/,
    );
  }));
