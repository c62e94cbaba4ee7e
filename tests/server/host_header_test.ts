/**
 * A `Host` header that is not a host is 400 on every path that could build an address from
 * it, never a 500; real connections, since `fetch` does not send such a header.
 */
import assert from "node:assert/strict";
import { type TestServer, testServer } from "../helpers/app.ts";
import { envelope } from "../helpers/soap.ts";

interface RawResponse {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/** Sends one raw HTTP/1.1 request with `host` as the Host header and reads the answer. */
async function raw(
  t: TestServer,
  method: string,
  path: string,
  host: string,
  extra: Record<string, string> = {},
  body = "",
): Promise<RawResponse> {
  const port = Number(new URL(t.baseUrl).port);
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  let text = "";
  try {
    const headers = Object.entries({ ...extra, "Content-Length": String(body.length) })
      .map(([name, value]) => `${name}: ${value}\r\n`).join("");
    const request = `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\n${headers}` +
      `Connection: close\r\n\r\n${body}`;
    await conn.write(new TextEncoder().encode(request));
    const decoder = new TextDecoder();
    const buffer = new Uint8Array(64 * 1024);
    for (let n = await conn.read(buffer); n !== null; n = await conn.read(buffer)) {
      text += decoder.decode(buffer.subarray(0, n), { stream: true });
    }
  } finally {
    conn.close();
  }
  const [head = "", ...rest] = text.split("\r\n\r\n");
  const [statusLine = "", ...lines] = head.split("\r\n");
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  return { status: Number(statusLine.split(" ")[1]), headers, body: rest.join("\r\n\r\n") };
}

const BAD_HOSTS = [
  "exa mple.com",
  "[::1",
  "example.com:99999",
  "a<b",
  "a?b",
  "a#b",
  "a/b",
  "a@b",
  "münchen.de",
  "a:b:c",
];

Deno.test("GET /hello?wsdl with a Host that is not a host is 400, never a 500 or an error line", async () => {
  const t = await testServer();
  try {
    for (const host of BAD_HOSTS) {
      for (const path of ["/hello?wsdl", "/loan?WSDL", "/hello?xsd=1", "/hello"]) {
        const res = await raw(t, "GET", path, host);
        assert.equal(res.status, 400, `${host} ${path}`);
        assert.equal(res.headers.get("content-type"), "text/plain; charset=utf-8");
        assert.equal(
          res.body,
          "Cannot read the request: the Host header is not a valid host\n",
          host,
        );
        assert.equal(res.headers.get("x-content-type-options"), "nosniff");
      }
    }
    assert.deepEqual(t.logs.filter((line) => line.startsWith("error")), []);
  } finally {
    await t.close();
  }
});

Deno.test("a Host that is not a host is 400 on the API (JSON), forms and pages too", async () => {
  const t = await testServer();
  try {
    for (const host of BAD_HOSTS) {
      // The CSRF check builds our origin from the address of every unsafe request.
      const login = await raw(
        t,
        "POST",
        "/api/auth/login",
        host,
        { "Content-Type": "application/json" },
        '{"email":"a@b.c","password":"x"}',
      );
      assert.equal(login.status, 400, host);
      assert.match(login.headers.get("content-type") ?? "", /^application\/json/, host);
      // The error carries the request's id, as every error body does.
      assert.deepEqual(JSON.parse(login.body), {
        error: {
          code: "validation",
          message: "Cannot read the request: the Host header is not a valid host",
          details: { host: "not a valid host" },
          requestId: login.headers.get("x-request-id"),
        },
      });
      // A page behind the login redirect builds `next` from the address.
      const page = await raw(t, "GET", "/projects", host);
      assert.equal(page.status, 400, host);
      const form = await raw(t, "POST", "/login", host, {
        "Content-Type": "application/x-www-form-urlencoded",
      }, "email=a%40b.c&password=x");
      assert.equal(form.status, 400, host);
    }
    assert.deepEqual(t.logs.filter((line) => line.startsWith("error")), []);
  } finally {
    await t.close();
  }
});

Deno.test("valid Host headers keep working, and the WSDL names the host sent", async () => {
  const t = await testServer();
  try {
    for (const host of ["example.com", "example.com:8080", "127.0.0.1:1", "[::1]:8080", "my_box"]) {
      const res = await raw(t, "GET", "/hello?wsdl", host);
      assert.equal(res.status, 200, host);
      assert.ok(res.body.includes(`<soap:address location="http://${host}/hello"/>`), host);
    }
  } finally {
    await t.close();
  }
});

Deno.test("a SOAP POST, which builds no address, is answered whatever the Host", async () => {
  const t = await testServer();
  try {
    const body = envelope("<soap:getHelloWorld><arg0>Al</arg0></soap:getHelloWorld>");
    const res = await raw(
      t,
      "POST",
      "/hello",
      "exa mple.com",
      { "Content-Type": "text/xml" },
      body,
    );
    assert.equal(res.status, 200);
    assert.match(res.body, /Hello World, Al!/);
  } finally {
    await t.close();
  }
});
