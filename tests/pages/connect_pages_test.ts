/**
 * The settings pages that connect other tools, in process: API tokens (create with the secret
 * shown once, list, revoke), the calendar feed URLs (reset), and a project's webhooks (who may
 * see them, add with the secret shown once, refused forms in the reader's words, disable,
 * enable, redeliver, delete). Every form is posted as a browser without JavaScript posts it.
 */
import assert from "node:assert/strict";
import { en } from "../../routes/i18n/en.ts";
import { ja } from "../../routes/i18n/ja.ts";
import { type TestApp, testApp } from "../helpers/app.ts";
import {
  api,
  createTodo,
  expectJson,
  getJson,
  type Json,
  login,
  signUp,
  type Team,
  team,
} from "../helpers/api.ts";
import { page, post } from "./page_requests.ts";

/** Text as the page escapes it. */
function escaped(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;");
}

/** Switches the user's language to Japanese with the settings form. */
async function toJapanese(t: TestApp, cookie: string) {
  assert.equal((await post(t, cookie, "/settings", { locale: "ja" })).status, 303);
}

async function bearer(t: TestApp, secret: string, path = "/api/projects") {
  const res = await t.app.request(path, { headers: { authorization: `Bearer ${secret}` } });
  await res.body?.cancel();
  return res.status;
}

const SECRET = /<code id="token-secret" class="copy-text">(clb_[0-9A-Za-z]+)<\/code>/;

// --- API tokens ---

Deno.test("the settings page links to the token and calendar feed pages", async () => {
  const t = await testApp();
  try {
    const { cookie } = await signUp(t, "ann@example.com");
    const settings = await page(t, cookie, "/settings");
    assert.match(settings.html, /href="\/settings\/tokens"/);
    assert.match(settings.html, /href="\/settings\/calendar"/);
    assert.ok(settings.html.includes(en["connect.title"]));
    for (const path of ["/settings/tokens", "/settings/calendar"]) {
      const res = await t.app.request(path);
      assert.equal(res.status, 302, path);
      assert.equal(res.headers.get("location"), `/login?next=${encodeURIComponent(path)}`);
    }
  } finally {
    await t.close();
  }
});

Deno.test("creating a token shows its secret once with a Copy button, and it works as a Bearer", async () => {
  const t = await testApp();
  try {
    const { cookie } = await signUp(t, "ann@example.com");
    const empty = await page(t, cookie, "/settings/tokens");
    assert.equal(empty.status, 200);
    assert.ok(empty.html.includes(en["tokens.none"]));

    const posted = await post(t, cookie, "/settings/tokens", {
      name: "Nightly report",
      scope: "read",
      expiresInDays: "30",
    });
    // Answered like every form (303), so a reload never makes a second token.
    assert.equal(posted.status, 303);
    assert.equal(posted.location, "/settings/tokens");
    const created = await page(t, cookie, posted.location!);
    assert.equal(created.status, 200);
    assert.equal(created.headers.get("cache-control"), "no-store");
    const secret = created.html.match(SECRET)?.[1];
    assert.ok(secret, "the secret is shown in full, selectable");
    assert.ok(created.html.includes(escaped(en["tokens.created"])));
    // Without JavaScript the Copy button stays hidden; the script shows it.
    assert.match(created.html, /<button[^>]*\bhidden\b[^>]*data-copy="token-secret"/);
    assert.match(created.html, /src="\/static\/copy.js"/);
    // The form is blank again, ready for another token.
    assert.doesNotMatch(created.html, /value="Nightly report"/);

    assert.equal(await bearer(t, secret), 200);
    // A read token may not write.
    const write = await t.app.request("/api/projects", {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "x" }),
    });
    assert.equal(write.status, 403);
    await write.body?.cancel();

    const [token] = (await getJson(t, cookie, "/api/tokens")).items;
    assert.equal(token.name, "Nightly report");
    assert.equal(token.scope, "read");
    assert.equal(token.expiresAt, "2026-12-22T08:30:00.000Z");

    // Shown once: the list shows the token, never its secret.
    const listed = await page(t, cookie, "/settings/tokens");
    assert.ok(!listed.html.includes(secret));
    assert.doesNotMatch(listed.html, /data-secret/);
    assert.match(listed.html, new RegExp(`<tr data-token="${token.id}">`));
    assert.ok(listed.html.includes("Nightly report"));
    assert.ok(listed.html.includes(en["tokens.scope.read"]));
    // Its use above is recorded.
    assert.ok(!listed.html.includes(en["tokens.notUsed"]));

    // Japanese.
    await toJapanese(t, cookie);
    const jaList = await page(t, cookie, "/settings/tokens");
    assert.ok(jaList.html.includes(ja["tokens.title"]));
    assert.ok(jaList.html.includes(ja["tokens.scope.read"]));
  } finally {
    await t.close();
  }
});

Deno.test("a blank expiry makes a token that never expires", async () => {
  const t = await testApp();
  try {
    const { cookie } = await signUp(t, "ann@example.com");
    const created = await post(t, cookie, "/settings/tokens", {
      name: "Forever",
      scope: "write",
      expiresInDays: "",
    });
    assert.equal(created.status, 303);
    const [token] = (await getJson(t, cookie, "/api/tokens")).items;
    assert.equal(token.expiresAt, null);
    assert.equal(token.scope, "write");
    const listed = (await page(t, cookie, "/settings/tokens")).html;
    assert.ok(listed.includes(en["tokens.never"]));
    assert.ok(listed.includes(en["tokens.notUsed"]));
  } finally {
    await t.close();
  }
});

Deno.test("a refused token form answers 400 in the reader's words, keeps the values and creates nothing", async () => {
  const t = await testApp();
  try {
    const { cookie } = await signUp(t, "ann@example.com");
    const cases: Array<[Record<string, string>, string]> = [
      [{ name: "  ", scope: "read", expiresInDays: "30" }, en["content.required"]],
      [{ name: "Bad days", scope: "read", expiresInDays: "soon" }, en["tokens.expiryInvalid"]],
      [{ name: "Bad days", scope: "read", expiresInDays: "0" }, en["tokens.expiryInvalid"]],
      [{ name: "Bad days", scope: "read", expiresInDays: "3651" }, en["tokens.expiryInvalid"]],
      [{ name: "Bad scope", scope: "admin", expiresInDays: "1" }, en["form.invalid"]],
    ];
    for (const [fields, message] of cases) {
      const res = await post(t, cookie, "/settings/tokens", fields);
      assert.equal(res.status, 400, JSON.stringify(fields));
      assert.ok(res.html.includes(`<span class="field-error">${message}</span>`), message);
      assert.doesNotMatch(res.html, /clb_/);
      if (fields.name!.trim()) assert.ok(res.html.includes(`value="${fields.name}"`));
    }
    await toJapanese(t, cookie);
    const jaRes = await post(t, cookie, "/settings/tokens", {
      name: "x",
      scope: "read",
      expiresInDays: "-1",
    });
    assert.equal(jaRes.status, 400);
    assert.ok(jaRes.html.includes(ja["tokens.expiryInvalid"]));
    assert.deepEqual((await getJson(t, cookie, "/api/tokens")).items, []);
  } finally {
    await t.close();
  }
});

Deno.test("revoking a token from the page ends it; another user's token is the 404 page", async () => {
  const t = await testApp();
  try {
    const ann = await signUp(t, "ann@example.com");
    const bo = await signUp(t, "bo@example.com");
    await post(t, ann.cookie, "/settings/tokens", {
      name: "CI",
      scope: "write",
      expiresInDays: "7",
    });
    const secret = (await page(t, ann.cookie, "/settings/tokens")).html.match(SECRET)![1]!;
    const [token] = (await getJson(t, ann.cookie, "/api/tokens")).items;
    const listed = await page(t, ann.cookie, "/settings/tokens");
    assert.match(listed.html, new RegExp(`action="/settings/tokens/${token.id}/revoke"`));
    assert.ok(listed.html.includes(escaped(en["tokens.revokeConfirm"].replace("{name}", "CI"))));

    const other = await post(t, bo.cookie, `/settings/tokens/${token.id}/revoke`, {});
    assert.equal(other.status, 404);
    assert.equal(await bearer(t, secret), 200);

    const revoked = await post(t, ann.cookie, `/settings/tokens/${token.id}/revoke`, {});
    assert.equal(revoked.status, 303);
    assert.equal(revoked.location, "/settings/tokens");
    assert.equal(await bearer(t, secret), 401);
    assert.deepEqual((await getJson(t, ann.cookie, "/api/tokens")).items, []);
  } finally {
    await t.close();
  }
});

// --- Calendar feed ---

Deno.test("the calendar feed page shows the API's feed URLs with Copy buttons; Reset replaces them", async () => {
  const t = await testApp();
  try {
    const { owner, project } = await team(t);
    const shown = await page(t, owner.cookie, "/settings/calendar");
    assert.equal(shown.status, 200);
    const { urls } = expectJson(await api(t, "GET", "/api/me/calendar-feed", owner), 200);
    assert.ok(shown.html.includes(`<code id="feed-all" class="copy-text">${urls.all}</code>`));
    const projectUrl = urls.projects[0].url;
    assert.ok(shown.html.includes(projectUrl));
    assert.match(shown.html, new RegExp(`data-feed-project="${project.id}"`));
    assert.ok(shown.html.includes("Apollo"));
    assert.match(shown.html, /<button[^>]*data-copy="feed-all"/);
    assert.match(shown.html, /action="\/settings\/calendar\/reset"/);
    assert.ok(shown.html.includes(escaped(en["feeds.resetConfirm"])));
    assert.ok(shown.html.includes(escaped(en["feeds.resetHint"])));

    const before = new URL(urls.all).pathname;
    assert.equal((await t.app.request(before)).status, 200);

    const reset = await post(t, owner.cookie, "/settings/calendar/reset", {});
    assert.equal(reset.status, 303);
    assert.equal(reset.location, "/settings/calendar?reset=1");
    const after = await page(t, owner.cookie, reset.location!);
    assert.ok(after.html.includes(escaped(en["feeds.wasReset"])));
    assert.ok(!after.html.includes(urls.all));
    const fresh = after.html.match(/<code id="feed-all" class="copy-text">([^<]+)<\/code>/)![1]!;
    assert.equal((await t.app.request(before)).status, 404);
    assert.equal((await t.app.request(new URL(fresh).pathname)).status, 200);

    await toJapanese(t, owner.cookie);
    const jaPage = await page(t, owner.cookie, "/settings/calendar");
    assert.ok(jaPage.html.includes(ja["feeds.title"]));
    assert.ok(jaPage.html.includes(ja["feeds.reset"]));
    assert.ok(!jaPage.html.includes(ja["feeds.wasReset"]));
  } finally {
    await t.close();
  }
});

// --- Webhooks ---

/** An app whose webhooks may target loopback (nothing is sent: the sender is not started). */
async function withHooks(fn: (t: TestApp, team: Team) => Promise<void>) {
  const t = await testApp({ env: { WEBHOOK_ALLOW_HOSTS: "127.0.0.1" } });
  try {
    await fn(t, await team(t));
  } finally {
    await t.close();
  }
}

const HOOK_URL = "http://127.0.0.1:9/hook";
const hooksOf = async (t: TestApp, cookie: string, projectId: number): Promise<Json[]> =>
  (await getJson(t, cookie, `/api/projects/${projectId}/webhooks`)).items;

Deno.test("the webhooks page is for owners and admins: members get the 403 page, others the 404 page", async () => {
  await withHooks(async (t, { owner, admin, alice, viewer, outsider, project }) => {
    const path = `/projects/${project.id}/webhooks`;
    for (const who of [owner, admin]) {
      const res = await page(t, who.cookie, path);
      assert.equal(res.status, 200);
      assert.ok(res.html.includes(en["webhooks.none"]));
      assert.match(res.html, new RegExp(`<form class="stack" method="post" action="${path}"`));
    }
    const projectPage = await page(t, owner.cookie, `/projects/${project.id}`);
    assert.match(projectPage.html, new RegExp(`href="${path}"`));

    for (const who of [alice, viewer]) {
      assert.doesNotMatch((await page(t, who.cookie, `/projects/${project.id}`)).html, /webhooks/);
      const res = await page(t, who.cookie, path);
      assert.equal(res.status, 403);
      assert.ok(res.html.includes(en["error.forbidden"]));
      const add = await post(t, who.cookie, path, { url: HOOK_URL, events: "*" });
      assert.equal(add.status, 403);
      assert.doesNotMatch(add.html, /whsec_/);
    }
    assert.equal((await page(t, outsider.cookie, path)).status, 404);
    assert.equal(
      (await post(t, outsider.cookie, path, { url: HOOK_URL, events: "*" })).status,
      404,
    );
    assert.deepEqual(await hooksOf(t, owner.cookie, project.id), []);
  });
});

Deno.test("adding a webhook shows its secret once; the page lists it with its events and state", async () => {
  await withHooks(async (t, { owner, project }) => {
    const path = `/projects/${project.id}/webhooks`;
    const posted = await post(t, owner.cookie, path, {
      url: HOOK_URL,
      description: "Build server",
      events: ["todo.updated", "file.uploaded"],
    });
    assert.equal(posted.status, 303);
    assert.equal(posted.location, path);
    // Another session of the same owner is not shown the secret.
    const elsewhere = await login(t, "olga@example.com");
    assert.doesNotMatch((await page(t, elsewhere, path)).html, /whsec_/);
    const added = await page(t, owner.cookie, path);
    assert.equal(added.status, 200);
    const secret = added.html.match(/<code id="webhook-secret" class="copy-text">([^<]+)</)?.[1];
    assert.match(secret ?? "", /^whsec_/);
    assert.ok(added.html.includes(escaped(en["webhooks.created"])));
    assert.match(added.html, /<button[^>]*data-copy="webhook-secret"/);

    const [hook] = await hooksOf(t, owner.cookie, project.id);
    assert.deepEqual(hook.events, ["todo.updated", "file.uploaded"]);
    assert.equal(hook.description, "Build server");

    const listed = await page(t, owner.cookie, path);
    assert.ok(!listed.html.includes(secret!));
    assert.match(listed.html, new RegExp(`data-webhook="${hook.id}"`));
    assert.ok(listed.html.includes(HOOK_URL));
    assert.ok(listed.html.includes("todo.updated, file.uploaded"));
    assert.ok(listed.html.includes(en["webhooks.active"]));
    assert.ok(listed.html.includes(en["webhooks.noDeliveries"]));

    await toJapanese(t, owner.cookie);
    const jaPage = await page(t, owner.cookie, path);
    assert.ok(jaPage.html.includes(ja["webhooks.title"]));
    assert.ok(jaPage.html.includes(ja["webhooks.active"]));
  });
});

Deno.test("a refused webhook form answers 400 with the field's message in the reader's words and adds nothing", async () => {
  await withHooks(async (t, { owner, project }) => {
    const path = `/projects/${project.id}/webhooks`;
    const cases: Array<[Record<string, string | string[]>, string, string]> = [
      [{ url: HOOK_URL }, "events", en["webhooks.eventsRequired"]],
      [{ url: "", events: "*" }, "url", en["content.required"]],
      [{ url: "ftp://127.0.0.1/hook", events: "*" }, "url", en["webhooks.urlNotHttp"]],
      [{ url: "not a url", events: "*" }, "url", en["webhooks.urlNotHttp"]],
      [{ url: "http://u:p@127.0.0.1/hook", events: "*" }, "url", en["webhooks.urlCredentials"]],
      [{ url: "http://10.0.0.1/hook", events: "*" }, "url", en["webhooks.urlNotPublic"]],
      [{ url: "http://[::1]/hook", events: "*" }, "url", en["webhooks.urlNotPublic"]],
      [{ url: HOOK_URL, events: ["*", "todo.updated"] }, "events", en["webhooks.eventsMixed"]],
      [{ url: HOOK_URL, events: "todo.destroyed" }, "events", en["webhooks.eventsRequired"]],
    ];
    for (const [fields, field, message] of cases) {
      const res = await post(t, owner.cookie, path, fields);
      assert.equal(res.status, 400, `${JSON.stringify(fields)} ${field}`);
      assert.ok(
        res.html.includes(`<span class="field-error">${escaped(message)}</span>`),
        `${JSON.stringify(fields)}: ${message}`,
      );
      assert.ok(res.html.includes(en["form.invalid"]));
      assert.doesNotMatch(res.html, /whsec_/);
      const url = fields.url as string;
      if (url) assert.ok(res.html.includes(`value="${escaped(url)}"`), url);
    }
    await toJapanese(t, owner.cookie);
    const jaRes = await post(t, owner.cookie, path, { url: "http://10.1.2.3/", events: "*" });
    assert.equal(jaRes.status, 400);
    assert.ok(jaRes.html.includes(ja["webhooks.urlNotPublic"]));
    // The ticked events come back ticked.
    const kept = await post(t, owner.cookie, path, { url: "ftp://x/", events: ["todo.updated"] });
    assert.match(kept.html, /value="todo.updated" checked/);
    assert.doesNotMatch(kept.html, /value="file.uploaded" checked/);
    assert.deepEqual(await hooksOf(t, owner.cookie, project.id), []);
  });
});

Deno.test("from the page an owner disables, enables and deletes a webhook and redelivers a delivery", async () => {
  await withHooks(async (t, { owner, alice, project }) => {
    const path = `/projects/${project.id}/webhooks`;
    await post(t, owner.cookie, path, { url: HOOK_URL, events: "*" });
    const [hook] = await hooksOf(t, owner.cookie, project.id);
    const base = `${path}/${hook.id}`;
    await createTodo(t, alice.cookie, project.id);
    const listed = await page(t, owner.cookie, path);
    const [delivery] = (await getJson(t, owner.cookie, `${`/api${base}`}/deliveries`)).items;
    assert.match(listed.html, new RegExp(`data-delivery="${delivery.id}" data-status="pending"`));
    assert.ok(listed.html.includes(en["webhooks.status.pending"]));
    assert.ok(listed.html.includes(`action="${base}/deliveries/${delivery.id}/redeliver"`));

    // A member may not act on it.
    assert.equal((await post(t, alice.cookie, `${base}/disable`, {})).status, 403);
    assert.equal((await post(t, alice.cookie, `${base}/delete`, {})).status, 403);

    const disabled = await post(t, owner.cookie, `${base}/disable`, {});
    assert.equal(disabled.status, 303);
    assert.equal(disabled.location, `${path}#webhook-${hook.id}`);
    assert.equal((await hooksOf(t, owner.cookie, project.id))[0].active, false);
    const off = await page(t, owner.cookie, path);
    assert.ok(off.html.includes(en["webhooks.disabled"]));
    assert.ok(off.html.includes(`action="${base}/enable"`));
    assert.ok(!off.html.includes(`/deliveries/${delivery.id}/redeliver`));

    // Redelivering to a disabled webhook is refused in words, and queues nothing.
    const refused = await post(t, owner.cookie, `${base}/deliveries/${delivery.id}/redeliver`, {});
    assert.equal(refused.status, 409);
    assert.ok(refused.html.includes(en["webhooks.redeliverInactive"]));
    const deliveries = `/api${base}/deliveries`;
    assert.equal((await getJson(t, owner.cookie, deliveries)).total, 1);

    assert.equal((await post(t, owner.cookie, `${base}/enable`, {})).status, 303);
    assert.equal((await hooksOf(t, owner.cookie, project.id))[0].active, true);
    const again = await post(t, owner.cookie, `${base}/deliveries/${delivery.id}/redeliver`, {});
    assert.equal(again.status, 303);
    assert.equal((await getJson(t, owner.cookie, deliveries)).total, 2);
    assert.equal(
      (await post(t, owner.cookie, `${base}/deliveries/999999/redeliver`, {})).status,
      404,
    );

    const deleted = await post(t, owner.cookie, `${base}/delete`, {});
    assert.equal(deleted.status, 303);
    assert.equal(deleted.location, path);
    assert.deepEqual(await hooksOf(t, owner.cookie, project.id), []);
    assert.equal((await post(t, owner.cookie, `${base}/delete`, {})).status, 404);
  });
});
