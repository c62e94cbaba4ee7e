/**
 * A client that sends part of a body and goes away is not a server error: no error line
 * in the log, however many do it; the requests whose body read failed are counted.
 */
import assert from "node:assert/strict";
import { testServer } from "../helpers/app.ts";
import { createProject, register } from "../helpers/api.ts";
import { envelope } from "../helpers/soap.ts";

const encoder = new TextEncoder();

/** Sends `head` and `body` over a new connection to `port` and closes it at once. */
async function sendAndLeave(port: number, head: string, body: string): Promise<void> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(encoder.encode(head + body));
  } finally {
    conn.close();
  }
}

/** Waits (polling, up to 10 s) until `check` holds. */
async function eventually(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const HELLO = envelope("<soap:getHelloWorld><arg0>Al</arg0></soap:getHelloWorld>");

Deno.test("clients that send part of a body and go away are counted, never logged as errors", async () => {
  const t = await testServer();
  try {
    const port = Number(new URL(t.baseUrl).port);
    const cookie = await register(t, "ann@example.com");
    const project = await createProject(t, cookie);
    const host = `Host: 127.0.0.1:${port}\r\n`;
    const declared = (path: string, type: string, extra = "") =>
      `POST ${path} HTTP/1.1\r\n${host}${extra}Content-Type: ${type}\r\nContent-Length: 5000\r\n\r\n`;
    const chunked = (path: string, type: string, extra = "") =>
      `POST ${path} HTTP/1.1\r\n${host}${extra}Content-Type: ${type}\r\n` +
      `Transfer-Encoding: chunked\r\n\r\n`;
    const auth = `Cookie: ${cookie}\r\n`;
    const boundary = "gone-boundary";
    const part = `--${boundary}\r\nContent-Disposition: form-data; name="file"; ` +
      `filename="a.txt"\r\nContent-Type: text/plain\r\n\r\naaaa`;
    const multipart = `multipart/form-data; boundary=${boundary}`;
    const files = `/api/projects/${project.id}/files`;
    // Each: the request, and whether its failed body read reaches a place that counts it.
    const cases: Array<[string, string, boolean]> = [
      [declared("/hello", "text/xml; charset=utf-8"), HELLO.slice(0, 100), true],
      [declared("/loan", "text/xml"), HELLO.slice(0, 100), true],
      [chunked("/hello", "text/xml"), `400\r\n${HELLO.slice(0, 100)}`, true],
      [declared("/api/projects", "application/json", auth), '{"name": "Ap', true],
      [chunked("/api/projects", "application/json", auth), '100\r\n{"name": "Ap', true],
      [chunked(files, multipart, auth), `1000\r\n${part}`, true],
      [declared(files, multipart, auth), part, true],
      [declared("/login", "application/x-www-form-urlencoded"), "email=a%40b.c&pass", true],
    ];
    const before = t.logs.length;
    for (const [head, body] of cases) await sendAndLeave(port, head, body);
    // Every request gets its one request line once the server has seen its client go.
    const lines = () => t.logs.slice(before).filter((line) => /^POST \S+ \d{3} /.test(line));
    await eventually(() => lines().length === cases.length, "a request line for each case");
    const logged = t.logs.slice(before);
    assert.deepEqual(logged.filter((line) => !/^POST \S+ \d{3} /.test(line)), [], "error lines");
    assert.equal(t.app.stats.clientGone, cases.filter(([, , counted]) => counted).length);
    const counted = lines().filter((line) => / 499 /.test(line));
    assert.equal(counted.length, t.app.stats.clientGone, logged.join("\n"));
    // The server is unharmed.
    const res = await fetch(`${t.baseUrl}/hello`, {
      method: "POST",
      headers: { "content-type": "text/xml" },
      body: HELLO,
    });
    assert.equal(res.status, 200);
    assert.match(await res.text(), /Hello World, Al!/);
  } finally {
    await t.close();
  }
});

Deno.test("a thousand clients going away mid-body write no error line", async () => {
  const t = await testServer();
  try {
    const port = Number(new URL(t.baseUrl).port);
    const head = `POST /hello HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
      `Content-Type: text/xml\r\nContent-Length: 5000\r\n\r\n`;
    for (let round = 0; round < 10; round++) {
      await Promise.all(
        Array.from({ length: 100 }, () => sendAndLeave(port, head, HELLO.slice(0, 50))),
      );
    }
    await eventually(() => t.app.stats.clientGone === 1000, "1000 counted requests");
    assert.deepEqual(t.logs.filter((line) => line.startsWith("error")), []);
  } finally {
    await t.close();
  }
});
