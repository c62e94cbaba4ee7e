/**
 * The two PostgreSQL clients issue 18 names, `postgres` (porsager, 3.x) and `pg` (node-postgres,
 * 8.x), side by side on the kinds of query the server runs, against one throwaway cluster
 * (`tests/helpers/postgres.ts`, durable defaults: fsync and synchronous commit on).
 *
 *   deno run --allow-all bench/pg_driver_bench.ts
 *   BENCH_SECONDS=10 BENCH_CONCURRENCY=64 deno run --allow-all bench/pg_driver_bench.ts
 *
 * Workloads, each run for BENCH_SECONDS (5) by BENCH_CONCURRENCY (32) tasks over a pool of
 * BENCH_POOL (10) connections, both clients with prepared statements:
 * - `insert`: one `INSERT … RETURNING id` (a loan decision);
 * - `write tx`: a transaction of three inserts (a chat message, its stream event, its activity);
 * - `point read`: a row by primary key (a project);
 * - `page read`: 50 to-dos of a project in board order (a page of a list).
 * Reported: operations a second, p50 and p99 latency, and this process's CPU time per operation
 * (the client's own cost; the server's is the same SQL for both).
 */
import pg from "pg";
import postgres from "postgres";
import { startPostgres } from "../tests/helpers/postgres.ts";
import { envNumber } from "./harness.ts";

const SECONDS = envNumber("BENCH_SECONDS", 5, 1);
const CONCURRENCY = envNumber("BENCH_CONCURRENCY", 32, 1);
const POOL = envNumber("BENCH_POOL", 10, 1);
const PROJECTS = 20;
const TODOS_PER_PROJECT = 500;

/** One client's way of running the four workloads. */
interface Client {
  name: string;
  insert(i: number): Promise<number>;
  writeTx(i: number): Promise<void>;
  pointRead(id: number): Promise<unknown>;
  pageRead(projectId: number, offset: number): Promise<unknown>;
  close(): Promise<void>;
}

const SCHEMA = `
CREATE TABLE projects (id bigserial PRIMARY KEY, name text NOT NULL, description text NOT NULL,
  archived boolean NOT NULL DEFAULT false, created_at text NOT NULL);
CREATE TABLE todos (id bigserial PRIMARY KEY, project_id bigint NOT NULL REFERENCES projects,
  title text NOT NULL, position double precision NOT NULL, done boolean NOT NULL DEFAULT false,
  created_at text NOT NULL);
CREATE INDEX todos_board ON todos (project_id, position, id);
CREATE TABLE loan_history (id bigserial PRIMARY KEY, name text NOT NULL, score integer NOT NULL,
  approved boolean NOT NULL, message text NOT NULL, created_at text NOT NULL);
CREATE TABLE chat_messages (id bigserial PRIMARY KEY, project_id bigint NOT NULL, author_id bigint NOT NULL,
  body text NOT NULL, created_at text NOT NULL);
CREATE TABLE events (id bigserial PRIMARY KEY, project_id bigint NOT NULL, name text NOT NULL,
  data text NOT NULL, created_at text NOT NULL);
CREATE TABLE activity (id bigserial PRIMARY KEY, project_id bigint NOT NULL, kind text NOT NULL,
  subject_id bigint NOT NULL, created_at text NOT NULL);
`;

async function seed(url: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  await sql.unsafe(SCHEMA);
  const now = new Date().toISOString();
  for (let p = 1; p <= PROJECTS; p++) {
    await sql`INSERT INTO projects (name, description, created_at)
      VALUES (${`Project ${p}`}, ${"A project of the benchmark"}, ${now})`;
    const rows = Array.from({ length: TODOS_PER_PROJECT }, (_, i) => ({
      project_id: p,
      title: `To-do ${i} of project ${p}: review the design notes`,
      position: i * 1024,
      done: i % 3 === 0,
      created_at: now,
    }));
    await sql`INSERT INTO todos ${sql(rows)}`;
  }
  await sql`ANALYZE`;
  await sql.end();
}

const now = () => new Date().toISOString();

/** The write transaction's three inserts, through a `postgres` transaction or connection. */
async function chatInserts(tx: postgres.Sql | postgres.TransactionSql, i: number): Promise<void> {
  const at = now();
  const [m] = await tx`INSERT INTO chat_messages (project_id, author_id, body, created_at)
    VALUES (${1 + (i % PROJECTS)}, ${1}, ${`Message ${i}`}, ${at}) RETURNING id`;
  await tx`INSERT INTO events (project_id, name, data, created_at)
    VALUES (${1 + (i % PROJECTS)}, ${"chat.message.created"}, ${`{"id":${m!.id}}`}, ${at})`;
  await tx`INSERT INTO activity (project_id, kind, subject_id, created_at)
    VALUES (${1 + (i % PROJECTS)}, ${"chat"}, ${m!.id}, ${at})`;
}

function porsager(url: string): Client {
  const sql = postgres(url, { max: POOL, prepare: true, onnotice: () => {} });
  return {
    name: "postgres 3.4.9",
    async insert(i) {
      const [row] = await sql`INSERT INTO loan_history (name, score, approved, message, created_at)
        VALUES (${`Applicant ${i}`}, ${600 + (i % 200)}, ${i % 2 === 0}, ${"approved"}, ${now()})
        RETURNING id`;
      return Number(row!.id);
    },
    async writeTx(i) {
      await sql.begin((tx) => chatInserts(tx, i));
    },
    async pointRead(id) {
      const [row] = await sql`SELECT id, name, description, archived, created_at FROM projects
        WHERE id = ${id}`;
      return row;
    },
    async pageRead(projectId, offset) {
      return await sql`SELECT id, title, position, done, created_at FROM todos
        WHERE project_id = ${projectId} ORDER BY position, id LIMIT 50 OFFSET ${offset}`;
    },
    close: () => sql.end(),
  };
}

/**
 * `postgres` again, its transactions written as BEGIN and COMMIT on a reserved connection
 * instead of `sql.begin` (which measured slower than `pg` on the write transaction).
 */
function porsagerReserved(url: string): Client {
  const sql = postgres(url, { max: POOL, prepare: true, onnotice: () => {} });
  const base = porsager(url);
  return {
    ...base,
    name: "postgres reserve",
    async writeTx(i) {
      const tx = await sql.reserve();
      try {
        await tx`BEGIN`;
        await chatInserts(tx, i);
        await tx`COMMIT`;
      } catch (error) {
        await tx`ROLLBACK`.catch(() => {});
        throw error;
      } finally {
        tx.release();
      }
    },
    async close() {
      await base.close();
      await sql.end();
    },
  };
}

function nodePostgres(url: string): Client {
  const pool = new pg.Pool({ connectionString: url, max: POOL });
  return {
    name: "pg 8.23.1",
    async insert(i) {
      const r = await pool.query({
        name: "insert",
        text: `INSERT INTO loan_history (name, score, approved, message, created_at)
          VALUES ($1, $2, $3, $4, $5) RETURNING id`,
        values: [`Applicant ${i}`, 600 + (i % 200), i % 2 === 0, "approved", now()],
      });
      return Number(r.rows[0].id);
    },
    async writeTx(i) {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const at = now();
        const m = await client.query({
          name: "tx-message",
          text: `INSERT INTO chat_messages (project_id, author_id, body, created_at)
            VALUES ($1, $2, $3, $4) RETURNING id`,
          values: [1 + (i % PROJECTS), 1, `Message ${i}`, at],
        });
        const id = m.rows[0].id;
        await client.query({
          name: "tx-event",
          text: `INSERT INTO events (project_id, name, data, created_at) VALUES ($1, $2, $3, $4)`,
          values: [1 + (i % PROJECTS), "chat.message.created", `{"id":${id}}`, at],
        });
        await client.query({
          name: "tx-activity",
          text: `INSERT INTO activity (project_id, kind, subject_id, created_at)
            VALUES ($1, $2, $3, $4)`,
          values: [1 + (i % PROJECTS), "chat", id, at],
        });
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    async pointRead(id) {
      const r = await pool.query({
        name: "point",
        text: "SELECT id, name, description, archived, created_at FROM projects WHERE id = $1",
        values: [id],
      });
      return r.rows[0];
    },
    async pageRead(projectId, offset) {
      const r = await pool.query({
        name: "page",
        text: `SELECT id, title, position, done, created_at FROM todos
          WHERE project_id = $1 ORDER BY position, id LIMIT 50 OFFSET $2`,
        values: [projectId, offset],
      });
      return r.rows;
    },
    close: () => pool.end(),
  };
}

/** This process's CPU seconds (user + system) from /proc. */
function cpuSeconds(): number {
  const fields = Deno.readTextFileSync("/proc/self/stat").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

interface Result {
  ops: number;
  perSecond: number;
  p50: number;
  p99: number;
  cpuMicros: number;
}

async function measure(op: (i: number) => Promise<unknown>): Promise<Result> {
  // Warm-up: every connection opened, every statement prepared.
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => op(i)));
  const latencies: number[] = [];
  const started = performance.now();
  const cpu = cpuSeconds();
  const until = started + SECONDS * 1000;
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (performance.now() < until) {
      const t = performance.now();
      await op(next++);
      latencies.push(performance.now() - t);
    }
  }));
  const wall = (performance.now() - started) / 1000;
  const cpuUsed = cpuSeconds() - cpu;
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))]!;
  return {
    ops: latencies.length,
    perSecond: latencies.length / wall,
    p50: at(0.5),
    p99: at(0.99),
    cpuMicros: (cpuUsed / latencies.length) * 1e6,
  };
}

const cluster = await startPostgres();
try {
  await seed(cluster.url);
  const load = (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ");
  console.log(
    `pg driver bench: PostgreSQL 15 on loopback, ${SECONDS} s per workload, ${CONCURRENCY} tasks, ` +
      `pool ${POOL}; ${navigator.hardwareConcurrency} cores, Deno ${Deno.version.deno}, load ${load}`,
  );
  const clients = [porsager(cluster.url), nodePostgres(cluster.url)];
  const reserved = porsagerReserved(cluster.url);
  const rows: string[] = [];
  for (
    const [workload, run] of [
      ["insert", (c: Client) => (i: number) => c.insert(i)],
      ["write tx", (c: Client) => (i: number) => c.writeTx(i)],
      ["point read", (c: Client) => (i: number) => c.pointRead(1 + (i % PROJECTS))],
      [
        "page read",
        (c: Client) => (i: number) => c.pageRead(1 + (i % PROJECTS), (i * 50) % TODOS_PER_PROJECT),
      ],
    ] as const
  ) {
    // Alternate which client goes first, so neither always meets a warmer server.
    const these = workload === "write tx" ? [...clients, reserved] : clients;
    for (const client of workload.length % 2 ? these : [...these].reverse()) {
      const r = await measure(run(client));
      rows.push(
        `${workload.padEnd(10)} ${client.name.padEnd(15)} ${
          r.perSecond.toFixed(0).padStart(7)
        }/s ` +
          `p50 ${r.p50.toFixed(2).padStart(6)} ms  p99 ${r.p99.toFixed(2).padStart(6)} ms  ` +
          `client CPU ${r.cpuMicros.toFixed(0).padStart(4)} µs/op`,
      );
      console.log(rows.at(-1));
    }
  }
  for (const client of [...clients, reserved]) await client.close();
} finally {
  await cluster.stop();
}
