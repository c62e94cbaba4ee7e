/**
 * The webhook outbox's fan-out on PostgreSQL, where transactions overlap: a fan-out takes
 * exactly the rows it turns into deliveries, whatever commits meanwhile, and two fan-outs at
 * once (two instances) take each row once. (On SQLite one writer runs them one after another:
 * tests/api/webhooks_test.ts.)
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import type { Engine, Queries, Row, SqlValue } from "../../../db/kernel/engine.ts";
import { openPostgresEngine } from "../../../db/postgres/engine.ts";
import { migratePostgres, POSTGRES_MIGRATIONS_DIR } from "../../../db/postgres/migrate.ts";
import { fanOutDeliveries, fanOutProjectDeliveries } from "../../../db/integrations/webhooks.ts";
import { fanOutAll } from "../../../domain/projects/webhook_outbox.ts";
import { type Postgres, postgresTest, settledOrWaiting } from "../../helpers/postgres.ts";

const T = "2026-11-25T09:00:00.000Z";
const PROJECT = 1;

/** The two ways the sender fans out: the oldest events of every project, or one project's. */
const FAN_OUTS: Record<string, (q: Queries) => Promise<number>> = {
  oldest: (q) => fanOutDeliveries(q, 50),
  project: (q) => fanOutProjectDeliveries(q, PROJECT),
};

/** A project with two webhooks subscribed to `chat.message`: two deliveries per event. */
async function setUp(pg: Postgres, admin: postgres.Sql): Promise<Engine> {
  await migratePostgres(admin, POSTGRES_MIGRATIONS_DIR, () => new Date(T));
  await admin`INSERT INTO users (id, email, display_name, password_hash, created_at, updated_at)
    VALUES (1, 'olga@example.com', 'Olga', 'x', ${T}, ${T})`;
  await admin`INSERT INTO projects (id, name, created_by, created_at, updated_at)
    VALUES (${PROJECT}, 'Hooks', 1, ${T}, ${T})`;
  await admin`INSERT INTO webhooks (project_id, url, events, secret, created_at, updated_at)
    VALUES (${PROJECT}, 'https://a.example/', '["*"]', 's', ${T}, ${T}),
           (${PROJECT}, 'https://b.example/', '["chat.message"]', 's', ${T}, ${T})`;
  return openPostgresEngine(pg.url);
}

/** Queues the stream event `eventId` of the project (committed by `sql`, a transaction or not). */
async function queue(sql: postgres.Sql | postgres.TransactionSql, eventId: number) {
  await sql`INSERT INTO webhook_outbox (project_id, event_id, event, body, created_at)
    VALUES (${PROJECT}, ${eventId}, 'chat.message', '{}', ${T})`;
}

/** The event ids of the deliveries (one per webhook each) and those still in the outbox. */
async function state(admin: postgres.Sql) {
  const delivered = await admin<{ event_id: number }[]>`SELECT event_id::int FROM
    webhook_deliveries ORDER BY event_id, webhook_id`;
  const queued = await admin<{ event_id: number }[]>`SELECT event_id::int FROM webhook_outbox
    ORDER BY event_id`;
  return { delivered: delivered.map((r) => r.event_id), queued: queued.map((r) => r.event_id) };
}

/** `q`, with `then` awaited after each statement whose text matches `pattern`. */
function after(q: Queries, pattern: RegExp, then: () => Promise<void>): Queries {
  const hook = async <R>(text: string, result: R): Promise<R> => {
    if (pattern.test(text)) await then();
    return result;
  };
  return {
    kind: q.kind,
    get: async <T = Row>(text: string, params?: SqlValue[]) =>
      hook(text, await q.get<T>(text, params)),
    all: async <T = Row>(text: string, params?: SqlValue[]) =>
      hook(text, await q.all<T>(text, params)),
    run: async (text: string, params?: SqlValue[]) => hook(text, await q.run(text, params)),
  };
}

Deno.test(postgresTest(
  "on PostgreSQL an outbox row committed while a fan-out runs stays queued for the next one",
  async (pg, admin, t) => {
    const engine = await setUp(pg, admin);
    const slow = postgres(pg.url, { max: 1, onnotice: () => {} });
    try {
      for (const [name, fanOut] of Object.entries(FAN_OUTS)) {
        await t.step(name, async () => {
          await admin`TRUNCATE webhook_outbox, webhook_deliveries`;
          await queue(admin, 1);
          // Event 2 takes its id before event 3 and commits after it, in the middle of the
          // fan-out (right after its deliveries are inserted).
          let inserted!: () => void;
          const wasInserted = new Promise<void>((resolve) => inserted = resolve);
          let commit!: () => void;
          const committing = new Promise<void>((resolve) => commit = resolve);
          const late = slow.begin(async (tx) => {
            await queue(tx, 2);
            inserted();
            await committing;
          });
          try {
            await wasInserted;
            await queue(admin, 3);
            const taken = await engine.transaction((tx) =>
              fanOut(
                after(tx, /INSERT INTO webhook_deliveries/, async () => {
                  commit();
                  await late;
                }),
              )
            );
            assert.equal(taken, 2);
            assert.deepEqual(await state(admin), { delivered: [1, 1, 3, 3], queued: [2] });
            assert.equal(await engine.transaction(fanOut), 1);
            assert.deepEqual(await state(admin), { delivered: [1, 1, 2, 2, 3, 3], queued: [] });
          } finally {
            commit();
            await late.catch(() => {});
          }
        });
      }
    } finally {
      await slow.end();
      await engine.close();
    }
  },
));

Deno.test(postgresTest(
  "on PostgreSQL two fan-outs at once turn each outbox row into its deliveries once",
  async (pg, admin, t) => {
    const engine = await setUp(pg, admin);
    try {
      for (
        const [first, second] of [
          ["oldest", "oldest"],
          ["project", "project"],
          ["oldest", "project"],
          ["project", "oldest"],
        ] as const
      ) {
        await t.step(`${first}, then ${second} while the first is not committed`, async () => {
          await admin`TRUNCATE webhook_outbox, webhook_deliveries`;
          for (const id of [1, 2, 3]) await queue(admin, id);
          let took!: () => void;
          const tookRows = new Promise<void>((resolve) => took = resolve);
          let commit!: () => void;
          const committing = new Promise<void>((resolve) => commit = resolve);
          const one = engine.transaction(async (tx) => {
            const taken = await FAN_OUTS[first]!(tx);
            took();
            await committing;
            return taken;
          });
          let other: Promise<number> | undefined;
          try {
            await tookRows;
            other = engine.transaction(FAN_OUTS[second]!);
            // The second either skips the rows the first holds or waits for its commit.
            await settledOrWaiting(admin, other);
            commit();
            const [a, b] = await Promise.all([one, other]);
            assert.deepEqual([a, b], [3, 0]);
            assert.deepEqual(await state(admin), { delivered: [1, 1, 2, 2, 3, 3], queued: [] });
          } finally {
            commit();
            await Promise.allSettled([one, other]);
          }
        });
      }
    } finally {
      await engine.close();
    }
  },
));

Deno.test(postgresTest(
  "on PostgreSQL the sender's fan-out of everything queued leaves the rows another fan-out holds to it",
  async (pg, admin) => {
    const engine = await setUp(pg, admin);
    for (const id of [1, 2]) await queue(admin, id);
    let took!: () => void;
    const tookRows = new Promise<void>((resolve) => took = resolve);
    let commit!: () => void;
    const committing = new Promise<void>((resolve) => commit = resolve);
    const other = engine.transaction(async (tx) => {
      const taken = await FAN_OUTS.oldest!(tx);
      took();
      await committing;
      return taken;
    });
    try {
      await tookRows;
      // Rows are queued but none can be taken now: it returns instead of trying again.
      const all = fanOutAll(engine);
      assert.equal(await settledOrWaiting(admin, all), "settled");
      assert.equal(await all, 0);
      commit();
      assert.equal(await other, 2);
      assert.deepEqual(await state(admin), { delivered: [1, 1, 2, 2], queued: [] });
    } finally {
      commit();
      await other.catch(() => {});
      await engine.close();
    }
  },
));
