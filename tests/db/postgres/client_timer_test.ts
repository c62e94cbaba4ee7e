/**
 * The `postgres` client's write to a closed connection, thrown from its own timer
 * (porsager/postgres#1154, #1208), does not end the process; any other uncaught error still
 * does. Run in a child process, since an uncaught error is what is tested.
 */
import assert from "node:assert/strict";
import { isClosedSocketWrite } from "../../../db/postgres/engine.ts";

const ENGINE = new URL("../../../db/postgres/engine.ts", import.meta.url).href;

/** The client's error as its timer throws it (the message and frames of 3.4.9). */
const CLIENT_STACK = "TypeError: Cannot read properties of null (reading 'write')\n" +
  "    at nextWrite (file:///cache/npm/postgres/3.4.9/src/connection.js:255:22)\n" +
  "    at ext:deno_web/02_timers.js:35:14";

function clientError(): TypeError {
  const error = new TypeError("Cannot read properties of null (reading 'write')");
  error.stack = CLIENT_STACK;
  return error;
}

Deno.test("the client's closed-socket write is recognised by its message and frames only", () => {
  assert.equal(isClosedSocketWrite(clientError()), true);
  const ours = new TypeError("Cannot read properties of null (reading 'write')");
  assert.equal(isClosedSocketWrite(ours), false, "the same message from our own code");
  const other = new TypeError("boom");
  other.stack = CLIENT_STACK.replace(/^.*\n/, "TypeError: boom\n");
  assert.equal(isClosedSocketWrite(other), false, "another error from the client");
  assert.equal(isClosedSocketWrite("text"), false);
});

async function child(throwing: string): Promise<{ code: number; out: string }> {
  const script = `
    import { keepClientTimerErrors } from ${JSON.stringify(ENGINE)};
    keepClientTimerErrors((line) => console.log("logged: " + line));
    setTimeout(() => { ${throwing} }, 0);
    setTimeout(() => { console.log("still running"); Deno.exit(0); }, 200);
  `;
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--ext=ts", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code, out: decode(stdout) + decode(stderr) };
}

Deno.test("the process goes on after the client's error, and still ends on any other", async () => {
  const kept = await child(
    `const e = new TypeError("Cannot read properties of null (reading 'write')");
     e.stack = ${JSON.stringify(CLIENT_STACK)}; throw e;`,
  );
  assert.equal(kept.code, 0, kept.out);
  assert.match(kept.out, /logged: PostgreSQL client wrote to a closed connection/);
  assert.match(kept.out, /still running/);
  const ended = await child(
    `throw new TypeError("Cannot read properties of null (reading 'write')");`,
  );
  assert.notEqual(ended.code, 0, ended.out);
  assert.doesNotMatch(ended.out, /still running/);
});

Deno.test("a reset read from a socket no one listens to any more does not end the process", async () => {
  // A real reset: the server side resets the connection; the client has no error listener,
  // as a connection the postgres client has let go of.
  const reset = `
    import("node:net").then((net) => {
      const server = net.createServer((s) => setTimeout(() => s.resetAndDestroy(), 20));
      server.listen(0, "127.0.0.1", () => {
        const client = net.connect({ port: server.address().port, host: "127.0.0.1" });
        client.on("data", () => {});
        client.on("close", () => server.close());
      });
    });`;
  const kept = await child(reset);
  assert.equal(kept.code, 0, kept.out);
  assert.match(kept.out, /logged: a closed connection was reset by its peer/);
  assert.match(kept.out, /still running/);
  // As a promise's rejection too.
  const rejected = await child(
    `Promise.reject(Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET", syscall: "read" }));`,
  );
  assert.equal(rejected.code, 0, rejected.out);
  assert.match(rejected.out, /still running/);
  // Any other reset or failure still ends it.
  const other = await child(
    `Promise.reject(Object.assign(new Error("write EPIPE"), { code: "EPIPE", syscall: "write" }));`,
  );
  assert.notEqual(other.code, 0, other.out);
  assert.doesNotMatch(other.out, /still running/);
});
