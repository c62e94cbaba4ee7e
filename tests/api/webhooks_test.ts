/**
 * Webhooks: management by owners and admins, the outbox written with the change, delivery
 * to a real loopback receiver (body, headers, signature), retries, the 3-day rule,
 * redelivery, refused targets, and the sender's limits.
 */
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { emits, runAction } from "../../domain/projects/actions.ts";
import { ConfigError, parseConfig } from "../../domain/config.ts";
import { fanOutProject, fanOutQueued } from "../../domain/projects/webhook_outbox.ts";
import type { WebhookSenderOptions } from "../../domain/integrations/webhook_sender.ts";
import {
  api,
  createProject,
  createTodo,
  expectError,
  expectJson,
  expectNoContent,
  getJson,
  type Json,
  notificationsOf,
  sendChat,
  storedEvents,
  type Team,
  team,
} from "../helpers/api.ts";
import { type TestApp, testApp } from "../helpers/app.ts";
import type { SqlValue } from "../../db/kernel/engine.ts";
import { spyOnEngine } from "../helpers/engine_spy.ts";
import { type Receiver, receiver } from "../helpers/receiver.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** An app whose webhooks may target the loopback receiver, with a short attempt timeout. */
async function hookApp(
  options: { allow?: string; webhooks?: WebhookSenderOptions } = {},
): Promise<TestApp> {
  return await testApp({
    env: { WEBHOOK_ALLOW_HOSTS: options.allow ?? "127.0.0.1" },
    webhooks: { timeoutMs: 500, ...options.webhooks },
  });
}

const hooksPath = (projectId: number) => `/api/projects/${projectId}/webhooks`;

/** Creates a webhook as `cookie` (expects 201) and returns `{webhook, secret}`. */
async function createHook(
  t: TestApp,
  cookie: string,
  projectId: number,
  body: Record<string, unknown>,
): Promise<{ webhook: Json; secret: string }> {
  const res = await api(t, "POST", hooksPath(projectId), { cookie, body });
  return expectJson(res, 201);
}

/** Changes a webhook as `cookie` (expects 200) and returns it. */
async function patchHook(
  t: TestApp,
  cookie: string,
  projectId: number,
  hookId: number,
  body: Record<string, unknown>,
): Promise<Json> {
  return expectJson(
    await api(t, "PATCH", `${hooksPath(projectId)}/${hookId}`, { cookie, body }),
    200,
  );
}

/** Creates webhooks of one project for paths of one receiver: `hook(path, events)`. */
function hooksTo(t: TestApp, cookie: string, projectId: number, rx: Receiver) {
  return async (path: string, events: string[]): Promise<Json> =>
    (await createHook(t, cookie, projectId, { url: `${rx.origin}${path}`, events })).webhook;
}

/** The deliveries of a webhook (first page of 100). */
async function deliveriesOf(t: TestApp, cookie: string, projectId: number, hookId: number) {
  return (await getJson(t, cookie, `${hooksPath(projectId)}/${hookId}/deliveries?pageSize=100`))
    .items as Json[];
}

/** Runs the test with an app, a team and a receiver; closes both whatever happens. */
async function withHooks(
  fn: (t: TestApp, team: Team, rx: Receiver) => Promise<void>,
  options: { allow?: string; webhooks?: WebhookSenderOptions } = {},
): Promise<void> {
  const t = await hookApp(options);
  const rx = receiver();
  try {
    await fn(t, await team(t), rx);
  } finally {
    await rx.close();
    await t.close();
  }
}

/** The signature a receiver computes for itself (node:crypto, not the server's code). */
function expectedSignature(secret: string, t: string, body: string): string {
  return createHmac("sha256", secret).update(`${t}.${body}`).digest("hex");
}

Deno.test("owners and admins create, list, read, change and delete webhooks; the secret is shown once", async () => {
  await withHooks(async (t, { owner, admin, project }, rx) => {
    const created = await createHook(t, owner.cookie, project.id, {
      url: rx.url,
      events: ["chat.message.created", "todo.updated", "todo.updated"],
      description: " Build bot ",
    });
    assert.match(created.secret, /^whsec_[A-Za-z0-9_-]{43}$/);
    const hook = created.webhook;
    assert.deepEqual(Object.keys(hook).sort(), [
      "active",
      "createdAt",
      "description",
      "events",
      "failingSince",
      "id",
      "projectId",
      "url",
    ]);
    assert.equal(hook.projectId, project.id);
    assert.equal(hook.url, rx.url);
    assert.deepEqual(hook.events, ["chat.message.created", "todo.updated"]);
    assert.equal(hook.description, "Build bot");
    assert.equal(hook.active, true);
    assert.equal(hook.createdAt, "2026-11-22T08:30:00.000Z");
    assert.equal(hook.failingSince, null);

    // An admin who is not a member manages it as an owner would.
    const byAdmin = await createHook(t, admin.cookie, project.id, { url: rx.url, events: ["*"] });
    assert.notEqual(byAdmin.secret, created.secret);

    const list = await api(t, "GET", hooksPath(project.id), { cookie: owner.cookie });
    assert.deepEqual(expectJson(list, 200).items.map((w: Json) => w.id), [
      hook.id,
      byAdmin.webhook.id,
    ]);
    const one = await api(t, "GET", `${hooksPath(project.id)}/${hook.id}`, {
      cookie: admin.cookie,
    });
    assert.deepEqual(expectJson(one, 200), { webhook: hook });
    // The secret never comes back.
    assert.ok(!list.text.includes(created.secret) && !one.text.includes(created.secret));

    const patched = await api(t, "PATCH", `${hooksPath(project.id)}/${hook.id}`, {
      cookie: owner.cookie,
      body: { url: `${rx.origin}/other`, events: ["*"], active: false },
    });
    assert.deepEqual(expectJson(patched, 200).webhook, {
      ...hook,
      url: `${rx.origin}/other`,
      events: ["*"],
      active: false,
    });

    expectNoContent(
      await api(t, "DELETE", `${hooksPath(project.id)}/${hook.id}`, { cookie: owner.cookie }),
    );
    expectError(
      await api(t, "GET", `${hooksPath(project.id)}/${hook.id}`, { cookie: owner.cookie }),
      404,
      "not_found",
    );
    const after = await getJson(t, owner.cookie, hooksPath(project.id));
    assert.deepEqual(after.items.map((w: Json) => w.id), [byAdmin.webhook.id]);
  });
});

Deno.test("webhooks are for owners: members and viewers get 403, others 404, and an archived project is read-only", async () => {
  await withHooks(async (t, { owner, alice, viewer, outsider, project }, rx) => {
    const { webhook } = await createHook(t, owner.cookie, project.id, {
      url: rx.url,
      events: ["*"],
    });
    const paths = [
      ["GET", hooksPath(project.id), undefined],
      ["POST", hooksPath(project.id), { url: rx.url, events: ["*"] }],
      ["GET", `${hooksPath(project.id)}/${webhook.id}`, undefined],
      ["PATCH", `${hooksPath(project.id)}/${webhook.id}`, { active: false }],
      ["DELETE", `${hooksPath(project.id)}/${webhook.id}`, undefined],
      ["GET", `${hooksPath(project.id)}/${webhook.id}/deliveries`, undefined],
      ["POST", `${hooksPath(project.id)}/${webhook.id}/deliveries/1/redeliver`, undefined],
    ] as const;
    for (const [method, path, body] of paths) {
      for (const who of [alice, viewer]) {
        const res = await api(t, method, path, { cookie: who.cookie, ...(body ? { body } : {}) });
        expectError(res, 403, "forbidden");
      }
      const res = await api(t, method, path, {
        cookie: outsider.cookie,
        ...(body ? { body } : {}),
      });
      expectError(res, 404, "not_found");
      const anonymous = await api(t, method, path, body ? { body } : {});
      expectError(anonymous, 401, "unauthenticated");
    }
    // Nothing changed.
    const list = await getJson(t, owner.cookie, hooksPath(project.id));
    assert.deepEqual(list.items, [webhook]);

    const archive = await api(t, "POST", `/api/projects/${project.id}/archive`, {
      cookie: owner.cookie,
    });
    expectJson(archive, 200);
    expectError(
      await api(t, "POST", hooksPath(project.id), {
        cookie: owner.cookie,
        body: { url: rx.url, events: ["*"] },
      }),
      403,
      "forbidden",
    );
    expectError(
      await api(t, "PATCH", `${hooksPath(project.id)}/${webhook.id}`, {
        cookie: owner.cookie,
        body: { active: false },
      }),
      403,
      "forbidden",
    );
    // Reading still works.
    assert.deepEqual((await getJson(t, owner.cookie, hooksPath(project.id))).items, [webhook]);
  });
});

Deno.test("POST /webhooks rejects bad input with 400 and creates nothing", async () => {
  await withHooks(async (t, { owner, project }, rx) => {
    const cases: Array<[unknown, string]> = [
      [{ events: ["*"] }, "url"],
      [{ url: rx.url }, "events"],
      [{ url: rx.url, events: [] }, "events"],
      [{ url: rx.url, events: ["todo.destroyed"] }, "events.0"],
      [{ url: rx.url, events: ["*", "todo.updated"] }, "events"],
      [{ url: "ftp://127.0.0.1/hook", events: ["*"] }, "url"],
      [{ url: "/relative/hook", events: ["*"] }, "url"],
      [{ url: "http://user:pass@127.0.0.1/hook", events: ["*"] }, "url"],
      [{ url: `http://127.0.0.1/${"a".repeat(2100)}`, events: ["*"] }, "url"],
      [{ url: rx.url, events: ["*"], description: "x".repeat(501) }, "description"],
    ];
    for (const [body, field] of cases) {
      const res = await api(t, "POST", hooksPath(project.id), { cookie: owner.cookie, body });
      const error = expectError(res, 400, "validation");
      assert.ok(error.details?.[field], `${JSON.stringify(body)}: ${res.text}`);
    }
    // What the schema cannot judge the domain reports as a code, its sentence in `message`.
    const coded: Array<[unknown, Record<string, string>]> = [
      [{ url: "ftp://127.0.0.1/hook", events: ["*"] }, { url: "not_http" }],
      [{ url: "/relative/hook", events: ["*"] }, { url: "not_http" }],
      [{ url: "http://user:pass@127.0.0.1/hook", events: ["*"] }, { url: "credentials" }],
      [{ url: rx.url, events: ["*", "todo.updated"] }, { events: "mixed" }],
    ];
    for (const [body, details] of coded) {
      const res = await api(t, "POST", hooksPath(project.id), { cookie: owner.cookie, body });
      const error = expectError(res, 400, "validation");
      assert.deepEqual(error.details, details, JSON.stringify(body));
      assert.match(error.message, /^Cannot /);
    }
    const malformed = await api(t, "POST", hooksPath(project.id), {
      cookie: owner.cookie,
      raw: "{",
      headers: { "content-type": "application/json" },
    });
    expectError(malformed, 400, "validation");
    const { webhook } = await createHook(t, owner.cookie, project.id, {
      url: rx.url,
      events: ["*"],
    });
    const patch = await api(t, "PATCH", `${hooksPath(project.id)}/${webhook.id}`, {
      cookie: owner.cookie,
      body: { events: ["nope"], url: "http://10.0.0.1/" },
    });
    expectError(patch, 400, "validation");
    assert.deepEqual((await getJson(t, owner.cookie, hooksPath(project.id))).items, [webhook]);
  });
});

Deno.test("targets on loopback, private, link-local or unspecified addresses are refused at create", async () => {
  const t = await testApp(); // no WEBHOOK_ALLOW_HOSTS
  try {
    const { owner, project } = await team(t);
    const refused = [
      "http://127.0.0.1:8080/hook",
      "http://127.1.2.3/hook",
      "http://2130706433/hook", // 127.0.0.1 written as one number
      "http://10.0.0.1/hook",
      "https://172.16.5.4/hook",
      "http://192.168.1.10/hook",
      "http://100.64.0.1/hook",
      "http://169.254.169.254/latest/meta-data",
      "http://0.0.0.0:8000/hook",
      "http://[::1]/hook",
      "http://[::]/hook",
      "http://[fe80::1]/hook",
      "http://[fd00::1]/hook",
      "http://[::ffff:127.0.0.1]/hook",
      "http://[::ffff:10.0.0.1]/hook",
      "http://localhost:8000/hook", // a name resolving to loopback
      "http://LOCALHOST./hook",
    ];
    for (const url of refused) {
      const res = await api(t, "POST", hooksPath(project.id), {
        cookie: owner.cookie,
        body: { url, events: ["*"] },
      });
      const error = expectError(res, 400, "validation");
      // A code for callers, the sentence in the message.
      assert.deepEqual(error.details, { url: "not_public" }, url);
      assert.match(error.message, /^Cannot deliver to .+: not a public address$/, url);
    }
    const unresolvable = await api(t, "POST", hooksPath(project.id), {
      cookie: owner.cookie,
      body: { url: "http://no-such-host.invalid/hook", events: ["*"] },
    });
    const unresolved = expectError(unresolvable, 400, "validation");
    assert.deepEqual(unresolved.details, { url: "unresolvable" });
    assert.match(unresolved.message, /^Cannot resolve the host no-such-host\.invalid$/);
    assert.deepEqual((await getJson(t, owner.cookie, hooksPath(project.id))).items, []);
  } finally {
    await t.close();
  }
});

Deno.test("WEBHOOK_ALLOW_HOSTS allows named hosts, addresses and ranges; * allows every target", async () => {
  const cases: Array<[string, string[], string[]]> = [
    ["localhost", ["http://localhost:9/a"], ["http://127.0.0.1:9/a", "http://[::1]:9/a"]],
    ["127.0.0.1", ["http://127.0.0.1:9/a"], ["http://localhost:9/a", "http://127.0.0.2:9/a"]],
    ["10.0.0.0/8, ::1", ["http://10.9.8.7/a", "http://[::1]/a", "http://[::ffff:10.0.0.1]/a"], [
      "http://192.168.0.1/a",
      "http://localhost/a",
    ]],
    ["127.0.0.0/8,::1/128", ["http://localhost:9/a", "http://127.0.0.9/a"], ["http://10.0.0.1/a"]],
    ["*", ["http://localhost:9/a", "http://169.254.169.254/a", "http://[fe80::1]/a"], []],
  ];
  for (const [allow, allowed, refused] of cases) {
    const t = await testApp({ env: { WEBHOOK_ALLOW_HOSTS: allow } });
    try {
      const cookie = (await team(t)).owner.cookie;
      const project = await createProject(t, cookie, "Allow");
      for (const url of allowed) {
        const res = await api(t, "POST", hooksPath(project.id), {
          cookie,
          body: { url, events: ["*"] },
        });
        expectJson(res, 201);
      }
      for (const url of refused) {
        const res = await api(t, "POST", hooksPath(project.id), {
          cookie,
          body: { url, events: ["*"] },
        });
        expectError(res, 400, "validation");
      }
    } finally {
      await t.close();
    }
  }
  assert.throws(
    () => parseConfig({ WEBHOOK_ALLOW_HOSTS: "127.0.0.1, 10.0.0.0/33" }),
    (error) =>
      error instanceof ConfigError &&
      /WEBHOOK_ALLOW_HOSTS: "10\.0\.0\.0\/33" is not a valid CIDR range/.test(error.message),
  );
  assert.throws(
    () => parseConfig({ WEBHOOK_ALLOW_HOSTS: "exa mple.com" }),
    (error) => error instanceof ConfigError && /WEBHOOK_ALLOW_HOSTS/.test(error.message),
  );
});

Deno.test("an event is delivered with the contract's body, headers and a signature the receiver can check", async () => {
  await withHooks(async (t, { owner, alice, project }, rx) => {
    const { webhook, secret } = await createHook(t, owner.cookie, project.id, {
      url: rx.url,
      events: ["chat.message.created"],
    });
    const message = await sendChat(t, alice.cookie, project.id, "Hello, hooks 日本語");
    // Queued with the change, not yet attempted.
    const [queued] = await deliveriesOf(t, owner.cookie, project.id, webhook.id);
    const [event] = (await storedEvents(t, project.id)).filter((e) =>
      e.name === "chat.message.created"
    );
    assert.deepEqual(queued, {
      id: queued.id,
      event: "chat.message.created",
      eventId: event!.id,
      status: "pending",
      attempts: 0,
      lastStatusCode: null,
      lastError: null,
      nextAttemptAt: "2026-11-22T08:30:00.000Z",
      createdAt: "2026-11-22T08:30:00.000Z",
      deliveredAt: null,
    });
    assert.equal(rx.received.length, 0);

    assert.equal(await t.app.services.webhookSender.runOnce(), 1);
    assert.equal(rx.received.length, 1);
    const got = rx.received[0]!;
    assert.equal(got.method, "POST");
    assert.equal(got.path, "/hook");
    assert.equal(got.headers.get("content-type"), "application/json");
    assert.equal(got.headers.get("user-agent"), "Collab-Webhook/1");
    assert.equal(got.headers.get("x-collab-event"), "chat.message.created");
    assert.equal(got.headers.get("x-collab-delivery"), String(queued.id));
    assert.deepEqual(JSON.parse(got.body), {
      id: event!.id,
      event: "chat.message.created",
      projectId: project.id,
      occurredAt: "2026-11-22T08:30:00.000Z",
      data: message,
    });
    assert.deepEqual(JSON.parse(got.body).data, event!.data);
    const signature = got.headers.get("x-collab-signature") ?? "";
    const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(signature);
    assert.ok(match, signature);
    assert.equal(Number(match[1]), Date.parse("2026-11-22T08:30:00.000Z") / 1000);
    assert.equal(match[2], expectedSignature(secret, match[1]!, got.body));
    assert.notEqual(match[2], expectedSignature("whsec_wrong", match[1]!, got.body));

    const [done] = await deliveriesOf(t, owner.cookie, project.id, webhook.id);
    assert.deepEqual(done, {
      ...queued,
      status: "succeeded",
      attempts: 1,
      lastStatusCode: 200,
      nextAttemptAt: null,
      deliveredAt: "2026-11-22T08:30:00.000Z",
    });
    // Nothing more to send.
    assert.equal(await t.app.services.webhookSender.runOnce(), 0);
  });
});

Deno.test("a change that rolls back queues no delivery", async () => {
  await withHooks(async (t, { owner, project }, rx) => {
    const { webhook } = await createHook(t, owner.cookie, project.id, {
      url: rx.url,
      events: ["*"],
    });
    await assert.rejects(() =>
      runAction(
        {
          db: t.engine,
          clock: t.app.services.clock,
          hub: t.app.services.hub,
          files: t.app.services.fileStore,
          maxUploadBytes: t.app.services.maxUploadBytes,
          relay: t.app.services.relay,
          presence: t.app.services.presence,
        },
        emits("todo.updated"),
        (_tx, fx) => {
          fx.event(project.id, "todo.updated", { projectId: project.id, itemIds: [], action: "x" });
          return Promise.reject(new Error("the change failed"));
        },
      ), /the change failed/);
    assert.deepEqual(await deliveriesOf(t, owner.cookie, project.id, webhook.id), []);
    assert.equal(await t.app.services.webhookSender.runOnce(), 0);
    assert.equal(rx.received.length, 0);
  });
});

Deno.test("each webhook gets the events it subscribes to, * gets all, inactive ones and other projects get none", async () => {
  await withHooks(async (t, { owner, alice, project }, rx) => {
    const hook = hooksTo(t, owner.cookie, project.id, rx);
    await hook("/todos", ["todo.created"]);
    await hook("/all", ["*"]);
    await hook("/chat", ["chat.message.created", "chat.message.updated"]);
    const off = await hook("/off", ["*"]);
    await patchHook(t, owner.cookie, project.id, off.id, { active: false });
    const other = await createProject(t, owner.cookie, "Other");
    await sendChat(t, owner.cookie, other.id, "elsewhere");

    await sendChat(t, alice.cookie, project.id, "hi");
    await createTodo(t, alice.cookie, project.id);
    await t.app.services.webhookSender.runOnce();
    const seen = rx.received.map((r) => `${r.path} ${r.headers.get("x-collab-event")}`).sort();
    assert.deepEqual(seen, [
      "/all chat.message.created",
      "/all todo.created",
      "/chat chat.message.created",
      "/todos todo.created",
    ]);
    for (const r of rx.received) assert.equal(JSON.parse(r.body).projectId, project.id);
  });
});

Deno.test("a failing delivery is retried after 1 min, 5 min, 30 min, 2 h, 6 h, 12 h and 24 h, then failed after 8 attempts", async () => {
  await withHooks(async (t, { owner, alice, project }, rx) => {
    rx.answer = () => 500;
    const { webhook } = await createHook(t, owner.cookie, project.id, {
      url: rx.url,
      events: ["*"],
    });
    await sendChat(t, alice.cookie, project.id, "retry me");
    const sender = t.app.services.webhookSender;
    assert.equal(await sender.runOnce(), 1);
    const delays = [MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 6 * HOUR, 12 * HOUR, 24 * HOUR];
    for (const [i, delay] of delays.entries()) {
      const [d] = await deliveriesOf(t, owner.cookie, project.id, webhook.id);
      assert.equal(d.status, "pending");
      assert.equal(d.attempts, i + 1);
      assert.equal(d.lastStatusCode, 500);
      assert.equal(d.lastError, "HTTP 500");
      assert.equal(d.nextAttemptAt, new Date(t.clock.now().getTime() + delay).toISOString());
      t.clock.advance(delay - 1000);
      assert.equal(await sender.runOnce(), 0, `attempt ${i + 2} is not due yet`);
      t.clock.advance(1000);
      assert.equal(await sender.runOnce(), 1, `attempt ${i + 2} is due`);
    }
    const [d] = await deliveriesOf(t, owner.cookie, project.id, webhook.id);
    assert.equal(d.status, "failed");
    assert.equal(d.attempts, 8);
    assert.equal(d.nextAttemptAt, null);
    assert.equal(d.deliveredAt, null);
    t.clock.advance(7 * DAY);
    assert.equal(await sender.runOnce(), 0);
    assert.equal(rx.received.length, 8);
    assert.equal(new Set(rx.received.map((r) => r.headers.get("x-collab-delivery"))).size, 1);
    assert.equal(new Set(rx.received.map((r) => r.body)).size, 1);
  });
});

Deno.test("a success clears failingSince; a webhook failing for 3 days is set inactive and the owners get webhook_disabled", async () => {
  await withHooks(async (t, { admin, owner, alice, project }, rx) => {
    // bob, a member, becomes a second owner.
    const bob = await api(t, "GET", `/api/projects/${project.id}/members`, {
      cookie: owner.cookie,
    });
    const bobId = expectJson(bob, 200).items.find((m: Json) => m.email === "bob@example.com")
      .userId;
    expectJson(
      await api(t, "PATCH", `/api/projects/${project.id}/members/${bobId}`, {
        cookie: owner.cookie,
        body: { role: "owner" },
      }),
      200,
    );
    const sender = t.app.services.webhookSender;
    const { webhook } = await createHook(t, owner.cookie, project.id, {
      url: rx.url,
      events: ["chat.message.created"],
    });
    const hookPath = `${hooksPath(project.id)}/${webhook.id}`;
    const state = async () => (await getJson(t, owner.cookie, hookPath)).webhook;

    rx.answer = () => 500;
    const start = t.clock.now().toISOString();
    await sendChat(t, alice.cookie, project.id, "one");
    await sender.runOnce();
    assert.equal((await state()).failingSince, start);
    rx.answer = () => 204;
    t.clock.advance(MINUTE);
    await sender.runOnce(); // the retry succeeds
    assert.equal((await state()).failingSince, null);

    rx.answer = () => 500;
    const since = t.clock.now().toISOString();
    await sendChat(t, alice.cookie, project.id, "two");
    await sender.runOnce();
    assert.equal((await state()).failingSince, since);
    // New events keep failing; each one's first attempt happens at once.
    t.clock.advance(3 * DAY - MINUTE);
    await sendChat(t, alice.cookie, project.id, "three");
    await sender.runOnce();
    assert.equal((await state()).active, true, "not yet 3 days");
    assert.equal((await state()).failingSince, since);
    t.clock.advance(MINUTE);
    await sendChat(t, alice.cookie, project.id, "four");
    await sender.runOnce();
    const disabled = await state();
    assert.equal(disabled.active, false);
    assert.equal(disabled.failingSince, since);

    for (const who of [owner.cookie, await loginAs(t, "bob@example.com")]) {
      const notes = (await notificationsOf(t, who)).items.filter((n: Json) =>
        n.kind === "webhook_disabled"
      );
      assert.equal(notes.length, 1);
      assert.deepEqual(
        { ...notes[0], id: 0 },
        {
          id: 0,
          kind: "webhook_disabled",
          projectId: project.id,
          actorId: null,
          subjectType: "project",
          subjectId: project.id,
          text: rx.url,
          read: false,
          createdAt: t.clock.now().toISOString(),
        },
      );
    }
    for (const who of [alice.cookie, admin.cookie]) {
      const notes = (await notificationsOf(t, who)).items;
      assert.ok(!notes.some((n: Json) => n.kind === "webhook_disabled"));
    }

    // An inactive webhook queues nothing and its pending retries wait.
    const before = rx.received.length;
    const queued = (await deliveriesOf(t, owner.cookie, project.id, webhook.id)).length;
    await sendChat(t, alice.cookie, project.id, "five");
    t.clock.advance(DAY);
    assert.equal(await sender.runOnce(), 0);
    assert.equal(rx.received.length, before);
    assert.equal((await deliveriesOf(t, owner.cookie, project.id, webhook.id)).length, queued);

    // Made active again, it starts afresh and its pending retries go out.
    rx.answer = () => 200;
    const again = await api(t, "PATCH", hookPath, {
      cookie: owner.cookie,
      body: { active: true },
    });
    assert.equal(expectJson(again, 200).webhook.failingSince, null);
    assert.ok(await sender.runOnce() > 0);
    const pending = (await deliveriesOf(t, owner.cookie, project.id, webhook.id))
      .filter((d) => d.status === "pending");
    assert.deepEqual(pending, []);
  });
});

/** Logs in as `email` with the test password. */
async function loginAs(t: TestApp, email: string): Promise<string> {
  const res = await api(t, "POST", "/api/auth/login", {
    body: { email, password: "correct horse battery" },
  });
  expectJson(res, 200);
  return res.cookies.filter((c) => c.name === "session").map((c) => `session=${c.value}`)[0]!;
}

Deno.test("redeliver answers 202 with a new delivery of the same event", async () => {
  await withHooks(async (t, { owner, alice, project }, rx) => {
    const sender = t.app.services.webhookSender;
    const { webhook } = await createHook(t, owner.cookie, project.id, {
      url: rx.url,
      events: ["*"],
    });
    const second = await createHook(t, owner.cookie, project.id, {
      url: `${rx.origin}/second`,
      events: ["*"],
    });
    await sendChat(t, alice.cookie, project.id, "again");
    await sender.runOnce();
    const [first] = await deliveriesOf(t, owner.cookie, project.id, webhook.id);
    const path = `${hooksPath(project.id)}/${webhook.id}/deliveries/${first.id}/redeliver`;
    expectError(await api(t, "POST", path, { cookie: alice.cookie }), 403, "forbidden");

    const res = await api(t, "POST", path, { cookie: owner.cookie });
    const { delivery } = expectJson(res, 202);
    assert.ok(delivery.id > first.id);
    assert.deepEqual(delivery, {
      id: delivery.id,
      event: first.event,
      eventId: first.eventId,
      status: "pending",
      attempts: 0,
      lastStatusCode: null,
      lastError: null,
      nextAttemptAt: t.clock.now().toISOString(),
      createdAt: t.clock.now().toISOString(),
      deliveredAt: null,
    });
    // Newest first.
    const log = await deliveriesOf(t, owner.cookie, project.id, webhook.id);
    assert.deepEqual(log.map((d) => d.id), [delivery.id, first.id]);

    assert.equal(await sender.runOnce(), 1);
    const [a, b] = rx.received.filter((r) => r.path === "/hook");
    assert.equal(a!.body, b!.body);
    assert.equal(b!.headers.get("x-collab-delivery"), String(delivery.id));
    assert.notEqual(a!.headers.get("x-collab-delivery"), b!.headers.get("x-collab-delivery"));

    // Another webhook's delivery, or none at all: 404.
    const [ofSecond] = await deliveriesOf(t, owner.cookie, project.id, second.webhook.id);
    const wrong = `${hooksPath(project.id)}/${webhook.id}/deliveries/${ofSecond.id}/redeliver`;
    expectError(await api(t, "POST", wrong, { cookie: owner.cookie }), 404, "not_found");
    const none = `${hooksPath(project.id)}/${webhook.id}/deliveries/999999/redeliver`;
    expectError(await api(t, "POST", none, { cookie: owner.cookie }), 404, "not_found");

    // An inactive webhook cannot be redelivered to.
    await patchHook(t, owner.cookie, project.id, webhook.id, { active: false });
    expectError(await api(t, "POST", path, { cookie: owner.cookie }), 409, "conflict");
  });
});

Deno.test("a redirect is a failed attempt and is never followed", async () => {
  await withHooks(async (t, { owner, alice, project }, rx) => {
    rx.answer = (r) =>
      r.path === "/hook"
        ? new Response(null, { status: 307, headers: { location: `${rx.origin}/elsewhere` } })
        : 200;
    const { webhook } = await createHook(t, owner.cookie, project.id, {
      url: rx.url,
      events: ["*"],
    });
    await sendChat(t, alice.cookie, project.id, "redirect me");
    await t.app.services.webhookSender.runOnce();
    assert.deepEqual(rx.received.map((r) => r.path), ["/hook"]);
    const [d] = await deliveriesOf(t, owner.cookie, project.id, webhook.id);
    assert.equal(d.status, "pending");
    assert.equal(d.lastStatusCode, 307);
    assert.equal(d.lastError, "Redirect not followed (HTTP 307)");
  });
});

Deno.test("an attempt without an answer within the timeout fails and is retried", async () => {
  await withHooks(async (t, { owner, alice, project }, rx) => {
    rx.answer = () => "hang";
    const { webhook } = await createHook(t, owner.cookie, project.id, {
      url: rx.url,
      events: ["*"],
    });
    await sendChat(t, alice.cookie, project.id, "anyone there?");
    await t.app.services.webhookSender.runOnce();
    const [d] = await deliveriesOf(t, owner.cookie, project.id, webhook.id);
    assert.equal(d.status, "pending");
    assert.equal(d.attempts, 1);
    assert.equal(d.lastStatusCode, null);
    assert.equal(d.lastError, "No answer within 0.2 s");
    assert.equal(d.nextAttemptAt, new Date(t.clock.now().getTime() + MINUTE).toISOString());
  }, { webhooks: { timeoutMs: 200 } });
});

Deno.test("an endless response body does not hold the attempt: it is never read", async () => {
  await withHooks(async (t, { owner, alice, project }, rx) => {
    let pulls = 0;
    rx.answer = () =>
      new Response(
        new ReadableStream({
          pull(controller) {
            pulls++;
            controller.enqueue(new Uint8Array(64 * 1024));
          },
        }),
        { status: 200 },
      );
    const { webhook } = await createHook(t, owner.cookie, project.id, {
      url: rx.url,
      events: ["*"],
    });
    await sendChat(t, alice.cookie, project.id, "big answer");
    await t.app.services.webhookSender.runOnce();
    const [d] = await deliveriesOf(t, owner.cookie, project.id, webhook.id);
    assert.equal(d.status, "succeeded");
    assert.equal(d.lastStatusCode, 200);
    assert.ok(pulls < 200, `the receiver produced ${pulls} chunks`);
  });
});

Deno.test("at most 4 attempts per webhook and 16 in all are in flight", async () => {
  await withHooks(async (t, { owner, alice, project }, rx) => {
    rx.answer = () => "hang";
    for (let i = 0; i < 5; i++) {
      await createHook(t, owner.cookie, project.id, { url: `${rx.origin}/h${i}`, events: ["*"] });
    }
    for (let i = 0; i < 10; i++) await sendChat(t, alice.cookie, project.id, `m${i}`);
    const sender = t.app.services.webhookSender;
    const run = sender.runOnce();
    await rx.waitFor(16);
    assert.equal(sender.inFlight, 16);
    const perHook = new Map<string, number>();
    for (const r of rx.received) perHook.set(r.path, (perHook.get(r.path) ?? 0) + 1);
    for (const [path, n] of perHook) assert.ok(n <= 4, `${path} got ${n} at once`);
    rx.release(200);
    assert.equal(await run, 16);
    assert.equal(rx.received.length, 16);
    assert.equal(sender.inFlight, 0);
  }, { webhooks: { timeoutMs: 5000 } });
});

Deno.test("a receiver that never answers does not slow the requests that cause events", async () => {
  await withHooks(async (t, { owner, alice, project }, rx) => {
    rx.answer = () => "hang";
    const { webhook } = await createHook(t, owner.cookie, project.id, {
      url: rx.url,
      events: ["*"],
    });
    const sender = t.app.services.webhookSender;
    sender.start();
    // Every request answers while the receiver holds the attempts it got open.
    for (let i = 0; i < 12; i++) await sendChat(t, alice.cookie, project.id, `m${i}`);
    await rx.waitFor(4);
    assert.equal(sender.inFlight, 4);
    await sendChat(t, alice.cookie, project.id, "still fast");
    // Stopping abandons the attempts in flight: they are given back, uncounted, for later.
    await sender.stop();
    const log = await deliveriesOf(t, owner.cookie, project.id, webhook.id);
    assert.equal(log.length, 13);
    for (const d of log) {
      assert.equal(d.status, "pending");
      assert.equal(d.attempts, 0);
    }
  }, { webhooks: { timeoutMs: 60_000 } });
});

Deno.test("a started sender is woken by the commit that queued a delivery, not by its poll", async () => {
  await withHooks(async (t, { owner, alice, project }, rx) => {
    await createHook(t, owner.cookie, project.id, { url: rx.url, events: ["*"] });
    const sender = t.app.services.webhookSender;
    sender.start();
    await sendChat(t, alice.cookie, project.id, "wake up");
    // Far sooner than the hour-long poll, with room for a loaded machine.
    await rx.waitFor(1, 10_000);
    await sender.stop();
  }, { webhooks: { pollMs: 3_600_000 } });
});

Deno.test("a commit during the sender's look is sent when its fan-out ends, not at the next poll", async () => {
  await withHooks(async (t, { owner, alice, project }, rx) => {
    await createHook(t, owner.cookie, project.id, { url: rx.url, events: ["*"] });
    // The sender's first look in the database is held until the chat message is committed:
    // the look that follows it then reads before that commit's fan-out has written anything.
    const engine = t.engine;
    const all = engine.all.bind(engine);
    let looked!: () => void;
    const lookStarted = new Promise<void>((r) => looked = r);
    let release!: () => void;
    const released = new Promise<void>((r) => release = r);
    let held = false;
    engine.all = (async (sql: string, params?: unknown[]) => {
      if (!held && sql.includes(") AS due")) {
        held = true;
        looked();
        await released;
      }
      return await all(sql, params as never);
    }) as typeof engine.all;
    const sender = t.app.services.webhookSender;
    try {
      sender.start();
      await lookStarted;
      await sendChat(t, alice.cookie, project.id, "during the look");
      release();
      await rx.waitFor(1, 10_000);
    } finally {
      release();
      await sender.stop();
      engine.all = all;
    }
  }, { webhooks: { pollMs: 3_600_000 } });
});

Deno.test("deliveries waiting in the sender's batch follow a change of their webhook at once: a new URL, turned off", async () => {
  await withHooks(async (t, { owner, alice, project }, rx) => {
    const { webhook } = await createHook(t, owner.cookie, project.id, {
      url: `${rx.origin}/old`,
      events: ["*"],
    });
    rx.answer = () => "hang";
    for (const text of ["one", "two", "three", "four"]) {
      await sendChat(t, alice.cookie, project.id, text);
    }
    const sender = t.app.services.webhookSender;
    sender.start();
    // The first attempt is held; the other three wait, picked, in the sender.
    await rx.waitFor(1, 2000);
    await patchHook(t, owner.cookie, project.id, webhook.id, { url: `${rx.origin}/new` });
    rx.release();
    await rx.waitFor(2, 2000);
    assert.deepEqual(rx.received.map((r) => r.path), ["/old", "/new"]);
    // Turned off while the second attempt is held and two still wait: no further one starts.
    await patchHook(t, owner.cookie, project.id, webhook.id, { active: false });
    rx.release();
    await sender.stop(1000);
    assert.deepEqual(rx.received.map((r) => r.path), ["/old", "/new"]);
    const log = await deliveriesOf(t, owner.cookie, project.id, webhook.id);
    assert.deepEqual(log.map((d) => d.status).toSorted(), [
      "pending",
      "pending",
      "succeeded",
      "succeeded",
    ]);
  }, { webhooks: { pollMs: 3_600_000, maxInFlightPerWebhook: 1 } });
});

Deno.test("while events keep arriving the sender holds off, at most 2 s; after 50 ms without one it sends", async () => {
  let now = 0;
  await withHooks(async (t, { owner, alice, project }, rx) => {
    await createHook(t, owner.cookie, project.id, { url: rx.url, events: ["*"] });
    const sender = t.app.services.webhookSender;
    sender.start();
    await sendChat(t, alice.cookie, project.id, "in a burst");
    // The monotonic clock stands still: the event came "just now", for as long as this
    // waits, so nothing may be sent.
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.equal(rx.received.length, 0);
    now += 60; // 60 ms without an event
    await rx.waitFor(1, 2000);

    // Events every 40 ms: held off, until 2 s after the first of them.
    await sendChat(t, alice.cookie, project.id, "a long burst");
    for (let i = 0; i < 49; i++) {
      now += 40;
      await sendChat(t, alice.cookie, project.id, `more ${i}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.equal(rx.received.length, 1);
    now += 40; // 2,000 ms after the first: no longer held, though events still come
    await sendChat(t, alice.cookie, project.id, "still coming");
    await rx.waitFor(52, 3000);
    await sender.stop();
  }, { webhooks: { pollMs: 3_600_000, monotonic: () => now } });
});

Deno.test("a wake-up that lands while a look is under way gets a look of its own: its delivery does not wait for the next poll", async () => {
  let now = 0;
  await withHooks(async (t, { owner, alice, project }, rx) => {
    await createHook(t, owner.cookie, project.id, { url: rx.url, events: ["*"] });
    // The sender's first look for due deliveries is held until the test lets it go.
    const engine = t.engine;
    const all = engine.all;
    let held = false;
    let release = () => {};
    let entered = () => {};
    const inLook = new Promise<void>((resolve) => entered = resolve);
    engine.all = (async (text: string, params?: SqlValue[]) => {
      if (!held && text.includes("FROM webhooks w") && text.includes("next_attempt_at")) {
        held = true;
        entered();
        await new Promise<void>((resolve) => release = resolve);
      }
      return await all.call(engine, text, params);
    }) as typeof engine.all;
    const sender = t.app.services.webhookSender;
    try {
      sender.start(); // looks at once (nothing is due yet): that look is held
      await inLook;
      await sendChat(t, alice.cookie, project.id, "while the sender looks");
      now += 60; // a quiet spell after the event: no holding off
      // The event's wake-up finds the look under way and joins it (it began before the event).
      await new Promise((resolve) => setTimeout(resolve, 200));
      release();
      await rx.waitFor(1, 5000);
    } finally {
      engine.all = all;
      release();
      await sender.stop();
    }
  }, { webhooks: { pollMs: 3_600_000, monotonic: () => now } });
});

Deno.test("a webhook its failures turn off gets no further attempt from the sender's picked batch", async () => {
  let now = 0;
  await withHooks(async (t, { owner, alice, project }, rx) => {
    const { webhook } = await createHook(t, owner.cookie, project.id, {
      url: rx.url,
      events: ["*"],
    });
    // Failing for more than 3 days already: its next failure turns it off.
    const longAgo = new Date(t.clock.now().getTime() - 4 * DAY).toISOString();
    await t.sql.run("UPDATE webhooks SET failing_since = ? WHERE id = ?", [longAgo, webhook.id]);
    const active = async () =>
      (await t.sql.get<{ active: number }>("SELECT active FROM webhooks WHERE id = ?", [
        webhook.id,
      ]))?.active;
    rx.answer = () => "hang";
    for (let i = 0; i < 40; i++) await sendChat(t, alice.cookie, project.id, `m${i}`);
    now += 60; // no longer a burst
    const sender = t.app.services.webhookSender;
    sender.start();
    // The first attempt fails; its slot goes at once to the second, which is held.
    await rx.waitFor(1, 2000);
    rx.release(500);
    await rx.waitFor(2, 2000);
    // The first failure is written and turns the webhook off.
    for (let i = 0; i < 200 && await active() === 1; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(await active(), 0);
    // The second attempt ends: nothing of the 30 more picked goes out (the monotonic clock
    // stands still and the poll is an hour away, so only that write can stop the batch).
    rx.release(500);
    for (let i = 0; i < 200 && sender.inFlight > 0; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(rx.received.length, 2);
    await sender.stop();
  }, { webhooks: { pollMs: 3_600_000, maxInFlightPerWebhook: 1, monotonic: () => now } });
});

Deno.test("an http delivery connects to the address it checked; a name that turns private fails without a connection", async () => {
  const names = new Map<string, string[]>([["hooks.example.test", ["127.0.0.1"]]]);
  await withHooks(async (t, { owner, alice, project }, rx) => {
    const port = new URL(rx.origin).port;
    const { webhook } = await createHook(t, owner.cookie, project.id, {
      url: `http://hooks.example.test:${port}/hook`,
      events: ["*"],
    });
    await sendChat(t, alice.cookie, project.id, "pinned");
    await t.app.services.webhookSender.runOnce();
    // The system resolver does not know this name: the request went to the checked address.
    assert.equal(rx.received.length, 1);
    assert.equal(rx.received[0]!.headers.get("host"), `hooks.example.test:${port}`);

    // The name now resolves to a private address (DNS rebinding): refused, at once final.
    names.set("hooks.example.test", ["127.0.0.1", "10.0.0.7"]);
    await sendChat(t, alice.cookie, project.id, "rebound");
    await t.app.services.webhookSender.runOnce();
    assert.equal(rx.received.length, 1);
    const [d] = await deliveriesOf(t, owner.cookie, project.id, webhook.id);
    assert.equal(d.status, "failed");
    assert.equal(d.attempts, 1);
    assert.equal(d.lastStatusCode, null);
    assert.equal(d.lastError, "Refused: 10.0.0.7 is not a public address");
    assert.equal(d.nextAttemptAt, null);

    // At create the same name is refused.
    const res = await api(t, "POST", hooksPath(project.id), {
      cookie: owner.cookie,
      body: { url: "http://hooks.example.test/x", events: ["*"] },
    });
    const error = expectError(res, 400, "validation");
    assert.deepEqual(error.details, { url: "not_public" });
    assert.equal(error.message, "Cannot deliver to 10.0.0.7: not a public address");
  }, { webhooks: { resolve: (host) => Promise.resolve(names.get(host) ?? []) } });
});

/** Rows of the outbox and of the delivery table, read straight from the database. */
async function queued(t: TestApp): Promise<{ outbox: number; deliveries: number }> {
  return {
    outbox: await t.sql.count("webhook_outbox"),
    deliveries: await t.sql.count("webhook_deliveries"),
  };
}

Deno.test("a change queues one outbox row however many webhooks; the sender fans it out to those subscribed when it happened", async () => {
  await withHooks(async (t, { owner, alice, project }, rx) => {
    const hook = hooksTo(t, owner.cookie, project.id, rx);
    const all = await hook("/all", ["*"]);
    await hook("/chat", ["chat.message.created"]);
    await hook("/also-all", ["*"]);
    await hook("/todos", ["todo.updated"]);
    const off = await hook("/off", ["*"]);
    await patchHook(t, owner.cookie, project.id, off.id, { active: false });
    const quiet = await createProject(t, owner.cookie, "No webhooks");
    await sendChat(t, owner.cookie, quiet.id, "nobody listens");
    assert.deepEqual(await queued(t), { outbox: 0, deliveries: 0 });

    await sendChat(t, alice.cookie, project.id, "first");
    await sendChat(t, alice.cookie, project.id, "second");
    // The request wrote one row per event, not one per webhook.
    assert.deepEqual(await queued(t), { outbox: 2, deliveries: 0 });
    // A webhook added after the events (but before the fan-out) gets none of them.
    t.clock.advance(1);
    const late = await hook("/late", ["*"]);

    await t.app.services.webhookSender.runOnce();
    assert.deepEqual(await queued(t), { outbox: 0, deliveries: 6 });
    const seen = rx.received.map((r) => `${r.path} ${JSON.parse(r.body).data.text}`);
    assert.deepEqual(seen.toSorted(), [
      "/all first",
      "/all second",
      "/also-all first",
      "/also-all second",
      "/chat first",
      "/chat second",
    ]);
    // Each webhook's deliveries were made in event order.
    const ids = await t.sql.all<{ event_id: number }>(
      "SELECT event_id FROM webhook_deliveries WHERE webhook_id = ? ORDER BY id",
      [all.id],
    );
    assert.equal(ids.length, 2);
    assert.ok(ids[0]!.event_id < ids[1]!.event_id);
    assert.deepEqual(await deliveriesOf(t, owner.cookie, project.id, late.id), []);
  });
});

Deno.test("a fan-out takes what was queued when it began; events queued meanwhile wait for the next", async () => {
  await withHooks(async (t, { owner, alice, project }) => {
    await createHook(t, owner.cookie, project.id, { url: "http://127.0.0.1:9/x", events: ["*"] });
    for (let i = 0; i < 120; i++) await sendChat(t, alice.cookie, project.id, `m${i}`);
    assert.deepEqual(await queued(t), { outbox: 120, deliveries: 0 });
    const fanning = fanOutQueued(t.engine, () => false);
    // Queued after the fan-out began (it reads the newest id before its first commit).
    for (let i = 0; i < 10; i++) await sendChat(t, alice.cookie, project.id, `late ${i}`);
    assert.equal(await fanning, 120);
    assert.deepEqual(await queued(t), { outbox: 10, deliveries: 120 });
  });
});

Deno.test("an empty outbox costs a fan-out no write transaction; a project's fan-out takes only its own events", async () => {
  await withHooks(async (t, { owner, alice, project }) => {
    await createHook(t, owner.cookie, project.id, { url: "http://127.0.0.1:9/x", events: ["*"] });
    const other = await createProject(t, owner.cookie, "Other");
    await createHook(t, owner.cookie, other.id, { url: "http://127.0.0.1:9/y", events: ["*"] });
    const spy = spyOnEngine(t.engine);
    try {
      assert.equal(await fanOutQueued(t.engine, () => false), 0);
      assert.equal(await fanOutProject(t.engine, project.id), 0);
      assert.equal(spy.counts.transactions, 0);
    } finally {
      spy.restore();
    }
    await sendChat(t, alice.cookie, project.id, "mine");
    await sendChat(t, owner.cookie, other.id, "theirs");
    const again = spyOnEngine(t.engine);
    try {
      assert.equal(await fanOutProject(t.engine, other.id), 1);
      assert.equal(again.counts.transactions, 1);
    } finally {
      again.restore();
    }
    // The other project's event left the outbox; this project's is still there.
    assert.deepEqual(await queued(t), { outbox: 1, deliveries: 1 });
  });
});

Deno.test("the delivery log shows an event still in the outbox as a pending delivery", async () => {
  await withHooks(async (t, { owner, alice, project }, rx) => {
    const { webhook } = await createHook(t, owner.cookie, project.id, {
      url: rx.url,
      events: ["*"],
    });
    await sendChat(t, alice.cookie, project.id, "not sent yet");
    assert.deepEqual(await queued(t), { outbox: 1, deliveries: 0 });
    const log = await deliveriesOf(t, owner.cookie, project.id, webhook.id);
    assert.equal(log.length, 1);
    assert.equal(log[0]!.status, "pending");
    assert.equal(log[0]!.attempts, 0);
    assert.equal(log[0]!.event, "chat.message.created");
    assert.deepEqual(await queued(t), { outbox: 0, deliveries: 1 });
    await t.app.services.webhookSender.runOnce();
    assert.equal(rx.received.length, 1);
    assert.equal(rx.received[0]!.headers.get("x-collab-event"), "chat.message.created");
  });
});

Deno.test("deleting a webhook drops its queued deliveries", async () => {
  await withHooks(async (t, { owner, alice, project }, rx) => {
    const { webhook } = await createHook(t, owner.cookie, project.id, {
      url: rx.url,
      events: ["*"],
    });
    await sendChat(t, alice.cookie, project.id, "never sent");
    expectNoContent(
      await api(t, "DELETE", `${hooksPath(project.id)}/${webhook.id}`, { cookie: owner.cookie }),
    );
    assert.equal(await t.app.services.webhookSender.runOnce(), 0);
    assert.equal(rx.received.length, 0);
  });
});

Deno.test("an allowed IPv6 loopback receiver gets its delivery, the connection pinned to [::1]", async () => {
  const t = await hookApp({ allow: "::1" });
  const rx = receiver("::1");
  try {
    const { owner, alice, project } = await team(t);
    const { webhook } = await createHook(t, owner.cookie, project.id, {
      url: rx.url,
      events: ["*"],
    });
    await sendChat(t, alice.cookie, project.id, "over IPv6");
    await t.app.services.webhookSender.runOnce();
    assert.equal(rx.received.length, 1);
    const [d] = await deliveriesOf(t, owner.cookie, project.id, webhook.id);
    assert.equal(d.status, "succeeded");
  } finally {
    await rx.close();
    await t.close();
  }
});
