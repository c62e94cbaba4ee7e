/**
 * Runs a command with `DATABASE_URL` naming a throwaway PostgreSQL cluster: made in a new
 * temporary directory, on a free loopback port, as an unprivileged user (tests/helpers/
 * postgres.ts), and stopped and removed when the command ends. Exits with the command's
 * status. `.ci/run` runs the suite on PostgreSQL with it:
 *
 *   deno run --allow-all .ci/with_postgres.ts deno task test
 */
import { startPostgres } from "../tests/helpers/postgres.ts";

const [command, ...args] = Deno.args;
if (!command) {
  console.error("Usage: deno run --allow-all .ci/with_postgres.ts COMMAND [ARGS...]");
  Deno.exit(2);
}
// Durability is not what the tests are about: fsync off makes the many small databases cheap.
const pg = await startPostgres({ settings: { fsync: "off" } });
console.log(`PostgreSQL on port ${pg.port}: DATABASE_URL=${pg.url}`);
let code = 1;
const child = new Deno.Command(command, {
  args,
  env: { DATABASE_URL: pg.url },
  stdin: "inherit",
  stdout: "inherit",
  stderr: "inherit",
}).spawn();
// Stopped from outside, the command is stopped first, then the cluster is removed as usual.
const forward = (signal: Deno.Signal) => () => {
  try {
    child.kill(signal);
  } catch { /* already ended */ }
};
const listeners = (["SIGINT", "SIGTERM"] as const).map((s) => [s, forward(s)] as const);
for (const [signal, listener] of listeners) Deno.addSignalListener(signal, listener);
try {
  code = (await child.status).code;
} finally {
  for (const [signal, listener] of listeners) Deno.removeSignalListener(signal, listener);
  await pg.stop();
}
Deno.exit(code);
