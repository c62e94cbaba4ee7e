/**
 * Several instances on one PostgreSQL database (ignored without PostgreSQL): two apps, each
 * with its own engine (its own connections), as two processes behind one address would be.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { openPostgresEngine } from "../../db/postgres/engine.ts";
import { migratePostgres, POSTGRES_MIGRATIONS_DIR } from "../../db/postgres/migrate.ts";
import { FixedClock } from "../../domain/kernel/clock.ts";
import { parseConfig } from "../../domain/config.ts";
import { scryptHasher } from "../../domain/accounts/passwords.ts";
import { type App, createApp } from "../../routes/app.ts";
import type { TestApp } from "../helpers/app.ts";
import {
  addMember,
  api,
  createComment,
  createNote,
  createProject,
  createThread,
  createTodo,
  expectJson,
  getJson,
  type Json,
  nextNamedEvent,
  signUp,
  SseReader,
} from "../helpers/api.ts";
import { receiver } from "../helpers/receiver.ts";
import { DAY } from "../helpers/trash.ts";
import { fanOutAll, RETRY_DELAYS_MS } from "../../domain/projects/webhook_outbox.ts";
import { CLAIM_LEASE_MS } from "../../domain/integrations/webhook_sender.ts";
import { keepPostgresClientErrors, postgresTest } from "../helpers/postgres.ts";
import { exportProject, importZip, richProject } from "../helpers/project_fixture.ts";
import { IMPORT_LEASE_MS, type ImportOptions } from "../../domain/archives/project_import.ts";

/** An instance: its app, and how it ends. */
interface Instance {
  t: TestApp;
  close(): Promise<void>;
}

/** What an instance is started with beside its database and files: configuration, import pacing. */
interface InstanceOptions {
  env?: Record<string, string>;
  imports?: ImportOptions;
}

/**
 * Starts an instance on the database at `url`, sharing `filesDir` and the secret.
 */
async function instance(
  url: string,
  filesDir: string,
  { env = {}, imports }: InstanceOptions = {},
): Promise<Instance> {
  const dataDir = await Deno.makeTempDir({ prefix: "collab-instance-" });
  keepPostgresClientErrors();
  const engine = openPostgresEngine(url, { max: 4 });
  const clock = new FixedClock("2026-11-25T09:00:00.000Z");
  const config = parseConfig({ ...env, DATA_DIR: dataDir, FILES_DIR: filesDir, PORT: "0" });
  const logs: string[] = [];
  const app: App = createApp({
    engine,
    config,
    clock,
    sessionSecret: "instances-secret-0123456789abcdef0123456789",
    hasher: scryptHasher({ N: 1024, r: 8, p: 1 }),
    log: (line) => logs.push(line),
    webhooks: { timeoutMs: 5000 },
    ...(imports ? { imports } : {}),
  });
  await app.services.presence.start();
  await app.services.relay.start();
  const t = { app, engine, clock, config, dataDir, logs } as unknown as TestApp;
  return {
    t,
    async close() {
      app.services.hub.closeAll();
      await app.services.webhookSender.stop();
      await app.services.relay.stop();
      await app.services.presence.stop();
      await engine.close();
      await Deno.remove(dataDir, { recursive: true });
    },
  };
}

/**
 * Migrates the database at `url` and starts two instances on it sharing one files directory;
 * `close` ends both and removes the directory.
 */
async function twoInstances(
  url: string,
  sql: postgres.Sql,
  options: InstanceOptions = {},
): Promise<{ a: Instance; b: Instance; close(): Promise<void> }> {
  await migratePostgres(sql, POSTGRES_MIGRATIONS_DIR, () => new Date());
  const filesDir = await Deno.makeTempDir({ prefix: "collab-shared-files-" });
  const a = await instance(url, filesDir, options);
  const b = await instance(url, filesDir, options);
  return {
    a,
    b,
    async close() {
      await a.close();
      await b.close();
      await Deno.remove(filesDir, { recursive: true });
    },
  };
}

/** Opens a project's event stream on `t` after `lastEventId` (or from now). */
async function openStream(
  t: TestApp,
  cookie: string,
  projectId: number,
  lastEventId?: number,
): Promise<SseReader> {
  const headers: Record<string, string> = { cookie };
  if (lastEventId !== undefined) headers["last-event-id"] = String(lastEventId);
  const res = await t.app.request(`/api/projects/${projectId}/chat/stream`, { headers });
  if (res.status !== 200) assert.fail(`stream: ${res.status} ${await res.text()}`);
  return new SseReader(res.body!);
}

/** Posts a chat message through `t`; answers its id. */
async function post(t: TestApp, cookie: string, projectId: number, text: string) {
  const res = await t.app.request(`/api/projects/${projectId}/chat/messages`, {
    method: "POST",
    headers: { cookie, "content-type": "application/json" },
    body: JSON.stringify({ text }),
  });
  const answer = await res.text();
  assert.equal(res.status, 201, answer);
  return JSON.parse(answer).message.id as number;
}

Deno.test(postgresTest(
  "a chat message posted through one instance reaches a stream on the other within a second",
  async (pg, sql) => {
    const { a, b, close } = await twoInstances(pg.url, sql);
    try {
      const owner = await signUp(a.t, "owner@example.com");
      const project = await createProject(a.t, owner.cookie, "Two instances");
      const onB = await openStream(b.t, owner.cookie, project.id);
      try {
        await onB.next(); // retry: 3000
        const started = performance.now();
        const id = await post(a.t, owner.cookie, project.id, "hello from A");
        const frame = await nextNamedEvent(onB, 1000);
        assert.equal(frame.event, "chat.message.created");
        assert.equal(JSON.parse(frame.data!).id, id);
        assert.ok(performance.now() - started < 1000);
      } finally {
        await onB.cancel();
      }
    } finally {
      await close();
    }
  },
));

Deno.test(postgresTest(
  "a client reconnecting from one instance to the other with Last-Event-ID misses nothing",
  async (pg, sql) => {
    const { a, b, close } = await twoInstances(pg.url, sql);
    try {
      const owner = await signUp(a.t, "owner@example.com");
      const project = await createProject(a.t, owner.cookie, "Reconnect");
      const onA = await openStream(a.t, owner.cookie, project.id);
      await onA.next();
      await post(b.t, owner.cookie, project.id, "one");
      const first = await nextNamedEvent(onA, 1000);
      await onA.cancel();
      // Written while the client is away, through both instances.
      const missed = [
        await post(a.t, owner.cookie, project.id, "two"),
        await post(b.t, owner.cookie, project.id, "three"),
      ];
      const onB = await openStream(b.t, owner.cookie, project.id, Number(first.id));
      try {
        await onB.next();
        const replayed = [];
        for (const _ of missed) {
          replayed.push(JSON.parse((await nextNamedEvent(onB, 1000)).data!).id);
        }
        assert.deepEqual(replayed, missed);
        // And live after the replay.
        const live = await post(a.t, owner.cookie, project.id, "four");
        assert.equal(JSON.parse((await nextNamedEvent(onB, 1000)).data!).id, live);
      } finally {
        await onB.cancel();
      }
    } finally {
      await close();
    }
  },
));

Deno.test(postgresTest(
  "a member removed through one instance: their stream on the other ends with member.removed, and a thread made next reaches only the others",
  async (pg, sql) => {
    const { a, b, close } = await twoInstances(pg.url, sql);
    try {
      const owner = await signUp(a.t, "owner@example.com");
      const bob = await signUp(a.t, "bob@example.com");
      const project = await createProject(a.t, owner.cookie, "Leaving");
      await addMember(a.t, owner.cookie, project.id, "bob@example.com", "member");
      const bobOnB = await openStream(b.t, bob.cookie, project.id);
      const ownerOnB = await openStream(b.t, owner.cookie, project.id);
      try {
        await bobOnB.next(); // retry: 3000
        await ownerOnB.next();
        const removed = await a.t.app.request(
          `/api/projects/${project.id}/members/${bob.user.id}`,
          { method: "DELETE", headers: { cookie: owner.cookie } },
        );
        assert.equal(removed.status, 204);
        const thread = await a.t.app.request(`/api/projects/${project.id}/board/threads`, {
          method: "POST",
          headers: { cookie: owner.cookie, "content-type": "application/json" },
          body: JSON.stringify({ title: "After", body: "", category: "general" }),
        });
        assert.equal(thread.status, 201);
        const threadId = (await thread.json()).thread.id;
        assert.equal((await nextNamedEvent(bobOnB, 3000)).event, "member.removed");
        assert.equal(await bobOnB.nextEvent(), null, "Bob's stream on B ended");
        assert.equal((await nextNamedEvent(ownerOnB, 3000)).event, "member.removed");
        const created = await nextNamedEvent(ownerOnB, 3000);
        assert.equal(created.event, "board.thread.created");
        assert.equal(JSON.parse(created.data!).id, threadId);
      } finally {
        await bobOnB.cancel();
        await ownerOnB.cancel();
      }
    } finally {
      await close();
    }
  },
));

/** Asks `t`'s /healthz until it answers 200 (a real server restarting: bounded tries). */
async function healthy(t: TestApp): Promise<void> {
  let last = 0;
  for (let i = 0; i < 300; i++) {
    const res = await t.app.request("/healthz");
    await res.body?.cancel();
    last = res.status;
    if (last === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`/healthz never answered 200 after the restart; last ${last}`);
}

/**
 * A client of a project's stream on `t` as a browser's EventSource is: when the server ends
 * the stream it opens it again with Last-Event-ID. `messages(n)` answers the ids of the next
 * `n` chat messages it receives (each wait bounded by `ms`).
 */
async function reconnectingClient(t: TestApp, cookie: string, projectId: number) {
  let reader = await openStream(t, cookie, projectId);
  let lastEventId: number | undefined;
  let reconnects = 0;
  return {
    get reconnects() {
      return reconnects;
    },
    async messages(n: number, ms = 3000): Promise<number[]> {
      const ids: number[] = [];
      while (ids.length < n) {
        const frame = await reader.next(ms);
        if (frame === null) {
          reconnects++;
          reader = await openStream(t, cookie, projectId, lastEventId);
          continue;
        }
        if (frame.id !== undefined) lastEventId = Number(frame.id);
        if (frame.event === "chat.message.created") ids.push(JSON.parse(frame.data!).id);
      }
      return ids;
    },
    cancel: () => reader.cancel(),
  };
}

Deno.test(postgresTest(
  "after PostgreSQL restarts, live events reach the other instance again and a stream open " +
    "through the restart misses nothing",
  async (pg, sql) => {
    const { a, b, close } = await twoInstances(pg.url, sql);
    try {
      const owner = await signUp(a.t, "owner@example.com");
      const project = await createProject(a.t, owner.cookie, "Restarted");
      const through = await reconnectingClient(b.t, owner.cookie, project.id);
      try {
        const sent = [await post(a.t, owner.cookie, project.id, "before")];
        assert.deepEqual(await through.messages(1), sent);

        await pg.restartFast();
        for (const { t } of [a, b]) await healthy(t);
        // Written as soon as the database answers again, while the instances may still be
        // listening anew: these reach the streams through the catch-up from the logs.
        sent.push(await post(a.t, owner.cookie, project.id, "during A"));
        sent.push(await post(b.t, owner.cookie, project.id, "during B"));

        // A stream opened on B after the restart hears A's new message promptly.
        const fresh = await openStream(b.t, owner.cookie, project.id);
        try {
          await fresh.next(); // retry: 3000
          let after = 0;
          for (let i = 1; i <= 3; i++) {
            after = await post(a.t, owner.cookie, project.id, `after ${i}`);
            sent.push(after);
            const frame = await nextNamedEvent(fresh, 1000);
            assert.equal(frame.event, "chat.message.created");
            assert.equal(JSON.parse(frame.data!).id, after);
          }
        } finally {
          await fresh.cancel();
        }

        // The stream open through the restart: everything, once each, in order.
        assert.deepEqual(await through.messages(sent.length - 1), sent.slice(1));
        const last = await post(a.t, owner.cookie, project.id, "last");
        assert.deepEqual(await through.messages(1), [last], "nothing repeated");
      } finally {
        await through.cancel();
      }
    } finally {
      await close();
    }
  },
));

/** How many listening connections (the relays') the cluster has now. */
async function listeners(sql: postgres.Sql): Promise<number> {
  const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_stat_activity
    WHERE application_name = 'collab listen'`;
  return row!.n;
}

Deno.test(postgresTest(
  "while an instance cannot listen it still delivers the other's events (it reads the logs), " +
    "and it listens again once it can",
  async (pg, sql) => {
    const { a, b, close } = await twoInstances(pg.url, sql);
    // The database's connections are allowed from another database only.
    const admin = postgres(pg.url.replace(/\/[^/]+$/, "/postgres"), { max: 1 });
    const connections = (allowed: boolean) =>
      admin.unsafe(`ALTER DATABASE collab WITH ALLOW_CONNECTIONS ${allowed}`);
    try {
      const owner = await signUp(a.t, "owner@example.com");
      const project = await createProject(a.t, owner.cookie, "Unheard");
      const onB = await openStream(b.t, owner.cookie, project.id);
      try {
        await onB.next(); // retry: 3000
        const received = async () => JSON.parse((await nextNamedEvent(onB, 3000)).data!).id;
        const before = await post(a.t, owner.cookie, project.id, "before");
        assert.equal(await received(), before);
        assert.equal(await listeners(sql), 2);

        // The listening connections are cut and cannot be made again; the pools' open
        // connections still serve.
        await connections(false);
        await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE application_name = 'collab listen'`;
        const unheard = [
          await post(a.t, owner.cookie, project.id, "unheard one"),
          await post(a.t, owner.cookie, project.id, "unheard two"),
        ];
        assert.deepEqual([await received(), await received()], unheard);
        assert.equal(await listeners(sql), 0, "nobody listens meanwhile");

        await connections(true);
        for (let i = 0; (await listeners(sql)) < 2; i++) {
          if (i >= 100) assert.fail("the instances did not listen again");
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        const after = await post(a.t, owner.cookie, project.id, "after");
        assert.equal(await received(), after, "once each, in order");
      } finally {
        await onB.cancel();
      }
    } finally {
      await connections(true);
      await admin.end();
      await close();
    }
  },
));

Deno.test(postgresTest(
  "an event's webhook delivery is posted once although the senders of two instances run",
  async (pg, sql) => {
    const env = { WEBHOOK_ALLOW_HOSTS: "127.0.0.1" };
    const { a, b, close } = await twoInstances(pg.url, sql, { env });
    const rx = receiver();
    try {
      const owner = await signUp(a.t, "owner@example.com");
      const project = await createProject(a.t, owner.cookie, "Hooked");
      const hook = expectJson(
        await api(a.t, "POST", `/api/projects/${project.id}/webhooks`, {
          cookie: owner.cookie,
          body: { url: rx.url, events: ["*"] },
        }),
        201,
      ).webhook;
      await post(b.t, owner.cookie, project.id, "one event");
      // The event is a due delivery before either sender looks, so both would find it.
      await fanOutAll(a.t.engine);
      const [onA, onB] = await Promise.all([
        a.t.app.services.webhookSender.runOnce(),
        b.t.app.services.webhookSender.runOnce(),
      ]);
      assert.equal(onA + onB, 1, "one attempt over both instances");
      assert.equal(rx.received.length, 1);
      assert.equal(JSON.parse(rx.received[0]!.body).event, "chat.message.created");
      // Recorded as sent: neither instance sends it again.
      const again = await Promise.all([
        a.t.app.services.webhookSender.runOnce(),
        b.t.app.services.webhookSender.runOnce(),
      ]);
      assert.deepEqual(again, [0, 0]);
      assert.equal(rx.received.length, 1);
      const log = await getJson(
        b.t,
        owner.cookie,
        `/api/projects/${project.id}/webhooks/${hook.id}/deliveries`,
      );
      assert.deepEqual(
        log.items.map((d: Json) => [d.status, d.attempts]),
        [["succeeded", 1]],
      );
    } finally {
      await rx.close();
      await close();
    }
  },
));

Deno.test(postgresTest(
  "every change is an event across instances: a thread, a comment, a note and a to-do made through one reach a stream on the other in order, and one webhook delivery each",
  async (pg, sql) => {
    const env = { WEBHOOK_ALLOW_HOSTS: "127.0.0.1" };
    const { a, b, close } = await twoInstances(pg.url, sql, { env });
    const rx = receiver();
    try {
      const owner = await signUp(a.t, "owner@example.com");
      const project = await createProject(a.t, owner.cookie, "Mirrored");
      expectJson(
        await api(a.t, "POST", `/api/projects/${project.id}/webhooks`, {
          cookie: owner.cookie,
          body: { url: rx.url, events: ["*"] },
        }),
        201,
      );
      const onB = await openStream(b.t, owner.cookie, project.id);
      try {
        await onB.next(); // retry: 3000
        const thread = await createThread(a.t, owner.cookie, project.id, { title: "Plan" });
        const comment = await createComment(a.t, owner.cookie, project.id, thread.id);
        const note = await createNote(a.t, owner.cookie, project.id, { title: "Minutes" });
        const todo = await createTodo(a.t, owner.cookie, project.id, { title: "Ship" });
        const expected = [
          ["board.thread.created", thread.id],
          ["board.comment.created", comment.id],
          ["note.created", note.id],
          ["todo.created", todo.id],
        ];
        const seen = [];
        for (const _ of expected) {
          const frame = await nextNamedEvent(onB, 2000);
          seen.push([frame.event, JSON.parse(frame.data!).id]);
        }
        assert.deepEqual(seen, expected);
        // Both senders run: each change is delivered once, with the same name and data.
        // The two senders deliver side by side, so arrival order across them is not
        // defined: compare the deliveries as a set (a repeat would still show).
        await fanOutAll(a.t.engine);
        await Promise.all([
          a.t.app.services.webhookSender.runOnce(),
          b.t.app.services.webhookSender.runOnce(),
        ]);
        const delivered = rx.received.map((r) => JSON.parse(r.body))
          .filter((body) => expected.some(([name]) => name === body.event))
          .map((body) => [body.event, body.data.id]);
        const byName = (x: unknown[], y: unknown[]) => String(x[0]).localeCompare(String(y[0]));
        assert.deepEqual(delivered.sort(byName), [...expected].sort(byName));
      } finally {
        await onB.cancel();
      }
    } finally {
      await rx.close();
      await close();
    }
  },
));

Deno.test(postgresTest(
  "two instances sweeping the trash at once purge each expired item once and count it once",
  async (pg, sql) => {
    const { a, b, close } = await twoInstances(pg.url, sql);
    try {
      const owner = await signUp(a.t, "owner@example.com");
      const project = await createProject(a.t, owner.cookie, "Swept");
      const notes = 6;
      for (let i = 0; i < notes; i++) {
        const note = await createNote(a.t, owner.cookie, project.id, { title: `Note ${i}` });
        const res = await api(a.t, "DELETE", `/api/projects/${project.id}/notes/${note.id}`, {
          cookie: owner.cookie,
        });
        assert.equal(res.status, 204);
      }
      for (const { t } of [a, b]) t.clock.advance(t.config.trashDays * DAY + 1);
      const [onA, onB] = await Promise.all([
        a.t.app.services.trash.sweep(),
        b.t.app.services.trash.sweep(),
      ]);
      assert.equal(onA.items + onB.items, notes, "each item reported once in total");
      const [left] = await sql<[{ n: number }]>`SELECT count(*)::int AS n FROM notes`;
      assert.equal(left!.n, 0);
      // Nothing is left for a later sweep on either instance.
      assert.equal((await b.t.app.services.trash.sweep()).items, 0);
      assert.equal((await a.t.app.services.trash.sweep()).items, 0);
    } finally {
      await close();
    }
  },
));

/** Two instances, a project and its webhook of chat messages to a receiver, as `fn` sees them. */
interface WebhookPair {
  a: Instance;
  b: Instance;
  rx: ReturnType<typeof receiver>;
  owner: { cookie: string };
  projectId: number;
}

/** Runs `fn` with two instances and a project (made through A) whose webhook posts to `rx`. */
async function withWebhook(
  pg: { url: string },
  sql: postgres.Sql,
  fn: (pair: WebhookPair) => Promise<void>,
): Promise<void> {
  const env = { WEBHOOK_ALLOW_HOSTS: "127.0.0.1" };
  const { a, b, close } = await twoInstances(pg.url, sql, { env });
  const rx = receiver();
  try {
    const owner = await signUp(a.t, "owner@example.com");
    const project = await createProject(a.t, owner.cookie, "Hooked");
    const res = await api(a.t, "POST", `/api/projects/${project.id}/webhooks`, {
      cookie: owner.cookie,
      body: { url: rx.url, events: ["chat.message.created"] },
    });
    assert.equal(res.status, 201);
    await fn({ a, b, rx, owner, projectId: project.id });
  } finally {
    await rx.close();
    await close();
  }
}

/**
 * Two instances where A's sender holds a claimed delivery mid-attempt (its receiver hangs, then
 * answers 200 to whoever comes next); runs `fn` with B's sender and the receiver.
 */
function withAttemptOnA(
  pg: { url: string },
  sql: postgres.Sql,
  fn: (held: { a: Instance; b: Instance; rx: ReturnType<typeof receiver> }) => Promise<void>,
): Promise<void> {
  return withWebhook(pg, sql, async ({ a, b, rx, owner, projectId }) => {
    rx.answer = () => "hang";
    a.t.app.services.webhookSender.start();
    await post(a.t, owner.cookie, projectId, "one event");
    await rx.waitFor(1);
    rx.answer = () => 200;
    await fn({ a, b, rx });
  });
}

Deno.test(postgresTest(
  "a delivery claimed by an instance stalled mid-attempt (still running) is sent by the other once its lease ran out",
  (pg, sql) =>
    withAttemptOnA(pg, sql, async ({ a, b, rx }) => {
      // A's sender stalls with its attempt cut short: nothing is recorded, and A still runs.
      await a.t.app.services.webhookSender.stop();
      const senderB = b.t.app.services.webhookSender;
      assert.equal(await senderB.runOnce(), 0, "leased to A");
      b.t.clock.advance(CLAIM_LEASE_MS);
      assert.equal(await senderB.runOnce(), 1, "the lease ran out");
      assert.equal(rx.received.length, 2);
      assert.equal(rx.received[1]!.body, rx.received[0]!.body);
    }),
));

Deno.test(postgresTest(
  "a delivery claimed by an instance that is gone is sent by the other at once, before its lease ran out",
  (pg, sql) =>
    withAttemptOnA(pg, sql, async ({ a, b, rx }) => {
      const senderB = b.t.app.services.webhookSender;
      assert.equal(await senderB.runOnce(), 0, "claimed by A, which runs");
      // A goes as a killed process does: its connections close, its number with them.
      await a.t.app.services.webhookSender.stop();
      await a.t.app.services.presence.stop();
      assert.equal(await senderB.runOnce(), 1, "taken over without waiting for the lease");
      assert.equal(rx.received.length, 2);
      assert.equal(rx.received[1]!.body, rx.received[0]!.body);
      assert.equal(await senderB.runOnce(), 0, "and sent once");
    }),
));

Deno.test(postgresTest(
  "while one instance sends a webhook's delivery the other does not start the webhook's next one",
  (pg, sql) =>
    withWebhook(pg, sql, async ({ a, b, rx, owner, projectId }) => {
      rx.answer = () => "hang";
      const first = await post(a.t, owner.cookie, projectId, "first");
      const onA = a.t.app.services.webhookSender.runOnce();
      await rx.waitFor(1);
      const second = await post(b.t, owner.cookie, projectId, "second");
      const senderB = b.t.app.services.webhookSender;
      assert.equal(await senderB.runOnce(), 0, "A holds the webhook's claim");
      rx.release(200);
      assert.equal(await onA, 1);
      rx.answer = () => 200;
      assert.equal(await senderB.runOnce(), 1);
      const sent = rx.received.map((r) => JSON.parse(r.body).data.id);
      assert.deepEqual(sent, [first, second]);
    }),
));

/**
 * An import hook that holds the import after each of the `at` commits until `release(n)`;
 * `reached(n)` resolves once it waits there.
 */
function holdAt(...at: number[]) {
  const gates = new Map(at.map((n) => {
    let reached!: () => void;
    let release!: () => void;
    const gate = {
      reached: new Promise<void>((resolve) => reached = resolve),
      released: new Promise<void>((resolve) => release = resolve),
    };
    return [n, { ...gate, reach: reached, release }] as const;
  }));
  const gate = (n: number) => gates.get(n) ?? assert.fail(`no hold at ${n}`);
  return {
    reached: (n: number) => gate(n).reached,
    release: (n: number) => gate(n).release(),
    betweenBatches: async (committed: number) => {
      const held = gates.get(committed);
      if (!held) return;
      held.reach();
      await held.released;
    },
  };
}

/** The projects an import is writing (or left unfinished). */
async function importing(sql: postgres.Sql): Promise<number[]> {
  const rows = await sql<{ id: string }[]>`
    SELECT id FROM projects WHERE importing_since IS NOT NULL ORDER BY id`;
  return rows.map((r) => Number(r.id));
}

Deno.test(postgresTest(
  "while one instance retries a webhook's delivery the other does not start the webhook's next one",
  (pg, sql) =>
    withWebhook(pg, sql, async ({ a, b, rx, owner, projectId }) => {
      const senderA = a.t.app.services.webhookSender;
      const senderB = b.t.app.services.webhookSender;
      const first = await post(a.t, owner.cookie, projectId, "first");
      rx.answer = () => 500;
      assert.equal(await senderA.runOnce(), 1, "the first attempt fails");
      // Its retry falls due; A sends it, and the receiver holds it.
      for (const { t } of [a, b]) t.clock.advance(RETRY_DELAYS_MS[0]!);
      rx.answer = () => "hang";
      const onA = senderA.runOnce();
      await rx.waitFor(2);
      const second = await post(b.t, owner.cookie, projectId, "second");
      assert.equal(await senderB.runOnce(), 0, "A holds the webhook's retry");
      rx.release(200);
      assert.equal(await onA, 1);
      rx.answer = () => 200;
      assert.equal(await senderB.runOnce(), 1);
      const sent = rx.received.map((r) => JSON.parse(r.body).data.id);
      assert.deepEqual(sent, [first, first, second]);
    }),
));

/** An import under way on A, held after its first `holds` commit; what the import tests share. */
interface HeldImport {
  a: Instance;
  b: Instance;
  hold: ReturnType<typeof holdAt>;
  owner: { cookie: string };
  /** The import's answer, once released. */
  pending: ReturnType<typeof importZip>;
  /** The hidden project it writes. */
  half: number;
}

/**
 * Starts two instances whose imports commit a row at a time, imports a rich project's archive
 * through A (B's clock set to A's) and runs `fn` once A is held after commit `holds[0]`.
 */
async function withImportOnA(
  pg: { url: string },
  sql: postgres.Sql,
  holds: number[],
  fn: (held: HeldImport) => Promise<void>,
): Promise<void> {
  const hold = holdAt(...holds);
  const imports = { batchRows: 1, betweenBatches: hold.betweenBatches };
  const { a, b, close } = await twoInstances(pg.url, sql, { imports });
  try {
    const { owner, project } = await richProject(a.t);
    const { bytes } = await exportProject(a.t, owner.cookie, project.id);
    b.t.clock.set(a.t.clock.now());
    const pending = importZip(a.t, owner.cookie, bytes);
    await hold.reached(holds[0]!);
    const [half] = await importing(sql);
    assert.ok(half !== undefined, "an import is under way");
    await fn({ a, b, hold, owner, pending, half });
  } finally {
    await close();
  }
}

/** Whether project `id` still exists (hidden or not). */
async function projectExists(sql: postgres.Sql, id: number): Promise<boolean> {
  return (await sql`SELECT id FROM projects WHERE id = ${id}`).length > 0;
}

Deno.test(postgresTest(
  "an import one instance is writing is no leftover to the other: each batch moves its lease on",
  (pg, sql) =>
    withImportOnA(pg, sql, [2, 4], async ({ a, b, hold, owner, pending, half }) => {
      // B starts (or sweeps) within the lease A took: the import is A's.
      b.t.clock.advance(IMPORT_LEASE_MS - 1000);
      assert.equal(await b.t.app.services.projectImport.removeLeftovers(), 0);
      // A goes on later; its batches move the lease on from their own time.
      a.t.clock.advance(IMPORT_LEASE_MS - 1000);
      hold.release(2);
      await hold.reached(4);
      b.t.clock.advance(2000); // past the lease A took first, within the one it renewed
      assert.equal(await b.t.app.services.projectImport.removeLeftovers(), 0);
      assert.deepEqual(await importing(sql), [half]);

      hold.release(4);
      const done = expectJson(await pending, 201);
      assert.equal(done.project.id, half);
      assert.deepEqual(await importing(sql), []);
      const seen = await getJson(b.t, owner.cookie, `/api/projects/${half}/todos/items`);
      assert.equal(seen.items.length, done.report.counts.items, "B sees it whole");
    }),
));

Deno.test(postgresTest(
  "the import of an instance stalled (still running) is removed by another once its lease ran out, not before",
  (pg, sql) =>
    withImportOnA(pg, sql, [3], async ({ b, hold, pending, half }) => {
      const rowsOf = async () =>
        Number(
          (await sql`SELECT count(*) AS n FROM project_members WHERE project_id = ${half}`)[0]!.n,
        );
      assert.ok(await rowsOf() > 0, "some rows are written");

      // A stops renewing, as a stalled instance would; it still runs (holds its number).
      b.t.clock.advance(IMPORT_LEASE_MS - 1000);
      assert.equal(await b.t.app.services.projectImport.removeLeftovers(), 0, "still A's");
      b.t.clock.advance(2000);
      assert.equal(await b.t.app.services.projectImport.removeLeftovers(), 1);
      assert.deepEqual(await importing(sql), []);
      assert.equal(await rowsOf(), 0, "its rows went with it");
      assert.equal(await b.t.app.services.projectImport.removeLeftovers(), 0, "removed once");

      // Should A wake after all, it finds the project no longer its own and writes nothing.
      hold.release(3);
      assert.equal((await pending).status, 500);
      assert.deepEqual(await importing(sql), []);
      assert.equal(await rowsOf(), 0);
      assert.equal(await projectExists(sql, half), false);
    }),
));

Deno.test(postgresTest(
  "the import of an instance that is gone is removed by another at once, within its lease",
  (pg, sql) =>
    withImportOnA(pg, sql, [3], async ({ a, b, hold, pending, half }) => {
      assert.equal(await b.t.app.services.projectImport.removeLeftovers(), 0, "A's, which runs");

      // A goes as a killed process does: its connections close, its number with them.
      await a.t.app.services.presence.stop();
      assert.equal(await b.t.app.services.projectImport.removeLeftovers(), 1);
      assert.deepEqual(await importing(sql), []);
      assert.equal(await projectExists(sql, half), false);

      hold.release(3);
      assert.equal((await pending).status, 500, "A's import, had it gone on, writes nothing");
      assert.equal(await projectExists(sql, half), false);
    }),
));
