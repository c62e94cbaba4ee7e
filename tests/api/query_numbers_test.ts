/**
 * Numbers in query strings: page numbers beyond the safe integer range are 400 (never page 1),
 * sizes and limits clamp however large, ids beyond the range are 400, in API and pages alike.
 */
import assert from "node:assert/strict";
import { testApp } from "../helpers/app.ts";
import {
  api,
  createThread,
  expectError,
  expectJson,
  getJson,
  type Json,
  sendChat,
  signUp,
  team,
} from "../helpers/api.ts";

const HUGE = "100000000000000000000";
const MAX_SAFE = String(Number.MAX_SAFE_INTEGER);
/** Lets the owner add a webhook on loopback (the deliveries list is a paged list). */
const WEBHOOKS_TO_LOOPBACK = { env: { WEBHOOK_ALLOW_HOSTS: "127.0.0.1" } };

/**
 * Every paged list the OpenAPI document describes (paths with a `page` query parameter), in
 * a project where the caller (its owner) has a webhook.
 */
async function pagedLists(
  t: Awaited<ReturnType<typeof testApp>>,
  projectId: number,
  owner: string,
) {
  const hook = expectJson(
    await api(t, "POST", `/api/projects/${projectId}/webhooks`, {
      cookie: owner,
      body: { url: "http://127.0.0.1:9/hook", events: ["*"] },
    }),
    201,
  ).webhook;
  const doc = expectJson(await api(t, "GET", "/api/openapi.json"), 200);
  const paths: string[] = [];
  for (const [path, operations] of Object.entries<Json>(doc.paths)) {
    const names = (operations.get?.parameters ?? []).map((p: Json) => p.name);
    if (!names.includes("page")) continue;
    const url = path.replace("{projectId}", String(projectId))
      .replace("{webhookId}", String(hook.id));
    paths.push(url.endsWith("/search") ? `${url}?q=kick&` : `${url}?`);
  }
  return paths;
}

/** The admin's cookie for the admin and loan console routes, the project owner's for the rest. */
function cookieFor(list: string, users: { admin: { cookie: string }; owner: { cookie: string } }) {
  return list.startsWith("/api/admin/") || list.startsWith("/api/loan/")
    ? users.admin.cookie
    : users.owner.cookie;
}

Deno.test("every paged list answers a page number beyond the safe integer range with 400 naming page", async () => {
  const t = await testApp(WEBHOOKS_TO_LOOPBACK);
  try {
    const { admin, owner, project } = await team(t);
    const lists = await pagedLists(t, project.id, owner.cookie);
    assert.equal(lists.length, 18, lists.join(" "));
    for (const list of lists) {
      const cookie = cookieFor(list, { admin, owner });
      for (const page of [HUGE, "9007199254740993", `${MAX_SAFE}0`]) {
        const res = await api(t, "GET", `${list}page=${page}`, { cookie });
        const error = expectError(res, 400, "validation");
        assert.ok(error.details.page, `${list}page=${page}: ${res.text}`);
      }
    }
  } finally {
    await t.close();
  }
});

Deno.test("paged lists: the largest safe page number is an empty page; non-numeric, zero and negative mean 1", async () => {
  const t = await testApp(WEBHOOKS_TO_LOOPBACK);
  try {
    const { admin, owner, alice, project } = await team(t);
    await createThread(t, alice.cookie, project.id);
    const lists = await pagedLists(t, project.id, owner.cookie);
    for (const list of lists) {
      const cookie = cookieFor(list, { admin, owner });
      const first = await getJson(t, cookie, `${list}pageSize=5`);
      const far = await getJson(t, cookie, `${list}page=${MAX_SAFE}&pageSize=100`);
      const { items, page, pageSize, total, hasMore } = far;
      assert.deepEqual({ items, page, pageSize, total, hasMore }, {
        items: [],
        page: Number.MAX_SAFE_INTEGER,
        pageSize: 100,
        total: first.total,
        hasMore: false,
      }, list);
      for (const page of ["abc", "0", "-1", `-${HUGE}`, "1.5", "1e3", ""]) {
        const body = await getJson(t, cookie, `${list}page=${page}&pageSize=5`);
        assert.deepEqual(body, first, `${list}page=${page}`);
      }
    }
  } finally {
    await t.close();
  }
});

Deno.test("paged lists: a pageSize above 100, however large, is 100", async () => {
  const t = await testApp(WEBHOOKS_TO_LOOPBACK);
  try {
    const { admin, owner, project } = await team(t);
    for (const list of await pagedLists(t, project.id, owner.cookie)) {
      for (const size of ["101", "100000", HUGE, `${HUGE}${HUGE}`]) {
        const body = await getJson(t, cookieFor(list, { admin, owner }), `${list}pageSize=${size}`);
        assert.equal(body.pageSize, 100, `${list}pageSize=${size}`);
      }
    }
  } finally {
    await t.close();
  }
});

Deno.test("chat history: a huge limit is clamped to 200, a huge before is 400 naming before", async () => {
  const t = await testApp();
  try {
    const { cookie } = await signUp(t, "ann@example.com");
    const project = expectJson(
      await api(t, "POST", "/api/projects", { cookie, body: { name: "Chatty" } }),
      201,
    ).project;
    const path = `/api/projects/${project.id}/chat/messages`;
    for (let i = 0; i < 60; i++) await sendChat(t, cookie, project.id, `message ${i}`);
    // More than the default 50: the huge limit was read as "as many as allowed".
    assert.equal((await getJson(t, cookie, `${path}?limit=${HUGE}`)).items.length, 60);
    assert.equal((await getJson(t, cookie, `${path}?limit=abc`)).items.length, 50);
    assert.equal((await getJson(t, cookie, `${path}?before=${MAX_SAFE}`)).items.length, 50);
    const res = await api(t, "GET", `${path}?before=${HUGE}`, { cookie });
    assert.ok(expectError(res, 400, "validation").details.before, res.text);
  } finally {
    await t.close();
  }
});

Deno.test("ids in query strings (to-do filters, meeting check, stream resume) beyond the safe range are 400 naming them", async () => {
  const t = await testApp();
  try {
    const { alice, project } = await team(t);
    const p = `/api/projects/${project.id}`;
    const range = "startAt=2026-12-01T10:00:00Z&endAt=2026-12-01T11:00:00Z";
    const cases: Array<[string, string]> = [
      [`${p}/todos/items?columnId=${HUGE}`, "columnId"],
      [`${p}/todos/items?assigneeId=9007199254740993`, "assigneeId"],
      [`${p}/todos/items?milestoneId=0`, "milestoneId"],
      [`${p}/meetings/check?${range}&excludeMeetingId=${HUGE}`, "excludeMeetingId"],
      [`${p}/chat/stream?lastEventId=${HUGE}`, "lastEventId"],
    ];
    for (const [path, name] of cases) {
      const res = await api(t, "GET", path, { cookie: alice.cookie });
      assert.ok(expectError(res, 400, "validation").details[name], `${path}: ${res.text}`);
    }
    const items = await getJson(t, alice.cookie, `${p}/todos/items?columnId=${MAX_SAFE}`);
    assert.deepEqual(items, { items: [], nextCursor: null });
  } finally {
    await t.close();
  }
});

Deno.test("pages with a page number beyond the safe range show an empty page, not an error", async () => {
  const t = await testApp();
  try {
    const { alice, project } = await team(t);
    await createThread(t, alice.cookie, project.id);
    for (const path of ["board", "notes", "files", "activity", "search?q=kick&"]) {
      const sep = path.includes("?") ? "" : "?";
      const res = await t.app.request(`/projects/${project.id}/${path}${sep}page=${HUGE}`, {
        headers: { cookie: alice.cookie },
      });
      assert.equal(res.status, 200, path);
      assert.ok(!(await res.text()).includes("Kick-off"), `${path}: no thread on that page`);
    }
    const notifications = await t.app.request(`/notifications?page=${HUGE}`, {
      headers: { cookie: alice.cookie },
    });
    assert.equal(notifications.status, 200);
    await notifications.body?.cancel();
    assert.deepEqual(t.logs.filter((line) => line.startsWith("error")), []);
  } finally {
    await t.close();
  }
});
