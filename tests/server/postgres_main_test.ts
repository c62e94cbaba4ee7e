/**
 * The server on PostgreSQL (`DATABASE_URL`): start-up, migrations, and readiness that follows
 * the database through an outage. Tests that need PostgreSQL are ignored without it.
 */
import assert from "node:assert/strict";
import { freePort, postgresBin, startPostgres } from "../helpers/postgres.ts";
import { runMain, startServer } from "../helpers/main_process.ts";

const noPostgres = postgresBin() === null;

/** GET /healthz: its status and body. */
async function health(baseUrl: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${baseUrl}/healthz`);
  return { status: res.status, body: await res.json() };
}

/** Asks /healthz until it answers `status` (a real process changing state: bounded tries). */
async function healthBecomes(baseUrl: string, status: number): Promise<unknown> {
  let last: { status: number; body: unknown } | undefined;
  for (let i = 0; i < 100; i++) {
    last = await health(baseUrl);
    if (last.status === status) return last.body;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`/healthz never answered ${status}; last ${JSON.stringify(last)}`);
}

Deno.test("a DATABASE_URL that cannot be reached stops start-up with one line and exit 1", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "collab-pg-main-" });
  try {
    const url = `postgres://collab:secret-password@127.0.0.1:${freePort()}/collab`;
    const { code, stderr } = await runMain([], { DATA_DIR: dataDir, DATABASE_URL: url });
    assert.equal(code, 1);
    assert.equal(stderr.length, 1, stderr.join("\n"));
    assert.match(stderr[0]!, /^Cannot start: DATABASE_URL cannot be reached: /);
    assert.ok(!stderr[0]!.includes("secret-password"), "the password is never printed");
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test({
  name: "on PostgreSQL (ignored without it) the server migrates, serves, answers 503 on /healthz " +
    "while the database is down, and recovers when it is back",
  ignore: noPostgres,
  async fn() {
    const pg = await startPostgres({ settings: { fsync: "off" } });
    const dataDir = await Deno.makeTempDir({ prefix: "collab-pg-main-" });
    try {
      const server = await startServer(dataDir, { DATABASE_URL: pg.url });
      try {
        assert.deepEqual(await health(server.baseUrl), { status: 200, body: { status: "ok" } });
        // The schema is PostgreSQL's, and the API works on it.
        const register = await fetch(`${server.baseUrl}/api/auth/register`, {
          method: "POST",
          headers: { "content-type": "application/json", origin: server.baseUrl },
          body: JSON.stringify({
            email: "ada@example.com",
            password: "correct horse battery",
            displayName: "Ada",
          }),
        });
        assert.equal(register.status, 201, await register.text());

        await pg.halt();
        assert.deepEqual(await healthBecomes(server.baseUrl, 503), {
          status: "database_unreachable",
        });
        await pg.restart();
        assert.deepEqual(await healthBecomes(server.baseUrl, 200), { status: "ok" });
        const login = await fetch(`${server.baseUrl}/api/auth/login`, {
          method: "POST",
          headers: { "content-type": "application/json", origin: server.baseUrl },
          body: JSON.stringify({ email: "ada@example.com", password: "correct horse battery" }),
        });
        assert.equal(login.status, 200, await login.text());
      } finally {
        await server.stop();
      }
    } finally {
      await Deno.remove(dataDir, { recursive: true });
      await pg.stop();
    }
  },
});
