/**
 * Bodies read as they arrive (chunked, or declared longer than 64 KiB): any split of the
 * bytes reads the same, a hostile body is answered before its end has been sent, and a body
 * of undeclared length over 1 MiB is 413 whatever its content (the size rule wins).
 */
import assert from "node:assert/strict";
import type { TestApp } from "../helpers/app.ts";
import { testApp, testServer } from "../helpers/app.ts";
import { envelope, faultCode, faultString } from "../helpers/soap.ts";

const hello = (inner: string) => envelope(`<soap:getHelloWorld>${inner}</soap:getHelloWorld>`);

/** Posts `bytes` to /hello as a chunked stream of pieces of `size` bytes. */
async function postInPieces(
  t: TestApp,
  bytes: Uint8Array,
  size: number,
  type = "text/xml; charset=utf-8",
): Promise<{ status: number; text: string }> {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += size) controller.enqueue(bytes.slice(i, i + size));
      controller.close();
    },
  });
  const init: RequestInit & { duplex: "half" } = {
    method: "POST",
    headers: { "content-type": type },
    body,
    duplex: "half",
  };
  const res = await t.app.request("/hello", init);
  return { status: res.status, text: await res.text() };
}

function utf16be(text: string): Uint8Array {
  const units = "\ufeff" + text;
  const bytes = new Uint8Array(units.length * 2);
  for (let i = 0; i < units.length; i++) {
    bytes[2 * i] = units.charCodeAt(i) >> 8;
    bytes[2 * i + 1] = units.charCodeAt(i) & 0xff;
  }
  return bytes;
}

Deno.test("a body sent in pieces of any size reads the same, characters split across pieces", async () => {
  const t = await testApp();
  try {
    const name = "Zoë 山田 \u{1f600}";
    const utf8 = new TextEncoder().encode("\ufeff" + hello(`<arg0>${name}</arg0>`));
    const utf16 = utf16be(hello(`<arg0>${name}</arg0>`));
    for (const size of [1, 2, 3, 7, 64, 100_000]) {
      const a = await postInPieces(t, utf8, size);
      assert.equal(a.status, 200, `utf-8 in ${size}: ${a.text}`);
      assert.ok(a.text.includes(`<return>Hello World, ${name}!</return>`), a.text);
      const b = await postInPieces(t, utf16, size, "text/xml; charset=utf-16");
      assert.equal(b.status, 200, `utf-16 in ${size}: ${b.text}`);
      assert.ok(b.text.includes(`<return>Hello World, ${name}!</return>`), b.text);
    }
  } finally {
    await t.close();
  }
});

Deno.test("bodies of one or two bytes, in pieces, are refused as not XML", async () => {
  const t = await testApp();
  try {
    for (const bytes of [new Uint8Array(0), new Uint8Array([0x3c]), new Uint8Array([0xfe, 0xff])]) {
      const res = await postInPieces(t, bytes, 1);
      assert.equal(res.status, 500);
      assert.equal(faultCode(res.text), "S:Client");
    }
  } finally {
    await t.close();
  }
});

Deno.test("invalid or cut-off UTF-8 in a body read in pieces is a client fault", async () => {
  const t = await testApp();
  try {
    const good = new TextEncoder().encode(hello("<arg0>山田</arg0>"));
    const at = good.indexOf(0xe5); // the first byte of 山
    const invalid = good.slice();
    invalid[at + 1] = 0x41;
    const cut = new Uint8Array([...good, 0xe5, 0xb1]);
    for (const body of [invalid, cut]) {
      for (const size of [1, 5, 4096]) {
        const res = await postInPieces(t, body, size);
        assert.equal(res.status, 500);
        assert.equal(
          faultString(res.text),
          "Cannot read SOAP message: the body is not valid utf-8",
        );
      }
    }
  } finally {
    await t.close();
  }
});

Deno.test("a valid body over 64 KiB is read in pieces to its end", async () => {
  const t = await testApp();
  try {
    const name = "N".repeat(60_000);
    const body = hello(`<pad>${"p".repeat(60_000)}</pad><arg0>${name}</arg0>`);
    assert.ok(body.length > 64 * 1024);
    const res = await t.app.request("/hello", {
      method: "POST",
      headers: { "content-type": "text/xml" },
      body,
    });
    assert.equal(res.status, 200);
    assert.ok((await res.text()).includes(`<return>Hello World, ${name}!</return>`));
  } finally {
    await t.close();
  }
});

Deno.test("a hostile body is answered before the rest of it is sent", async () => {
  const t = await testServer();
  try {
    const port = Number(new URL(t.baseUrl).port);
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    try {
      // A 1 MiB start tag, of which only the first 64 KiB is ever sent. A server that read
      // the whole body (or the whole tag) before checking would wait for the rest forever.
      const start = "<S:Envelope xmlns:S='http://schemas.xmlsoap.org/soap/envelope/'><S:Body><a" +
        Array.from({ length: 6000 }, (_, i) => ` a${i}="x"`).join("");
      const head = `POST /hello HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
        `Content-Type: text/xml\r\nContent-Length: ${1024 * 1024}\r\n\r\n`;
      await conn.write(new TextEncoder().encode(head + start.slice(0, 64 * 1024)));
      const buffer = new Uint8Array(4096);
      let answer = "";
      // Not a speed check: without an answer in 10 s the test fails instead of hanging.
      const giveUp = setTimeout(() => conn.close(), 10_000);
      try {
        while (!answer.includes("</S:Envelope>")) {
          const n = await conn.read(buffer);
          if (n === null) break;
          answer += new TextDecoder().decode(buffer.subarray(0, n));
        }
      } catch {
        // closed by giveUp
      } finally {
        clearTimeout(giveUp);
      }
      assert.match(answer, /^HTTP\/1\.1 500 /);
      assert.equal(
        faultString(answer),
        "Cannot read SOAP message: an element has more than 64 attributes",
      );
    } finally {
      try {
        conn.close();
      } catch {
        // already closed by giveUp
      }
    }
    assert.deepEqual(t.logs.filter((line) => line.startsWith("error")), []);
  } finally {
    await t.close();
  }
});

Deno.test("a chunked body over 1 MiB is 413 even when a content rule refused it first", async () => {
  const t = await testApp();
  try {
    // One text node that grows past 64 Ki characters (a content rule) and the body past
    // 1 MiB (the size rule): the size rule wins, whatever the split.
    const over = new TextEncoder().encode(hello(`<arg0>${"x".repeat(1024 * 1024)}</arg0>`));
    for (const size of [1000, 65536, 300_000]) {
      const res = await postInPieces(t, over, size);
      assert.equal(res.status, 413, `pieces of ${size}: ${res.text.slice(0, 200)}`);
      assert.equal(res.text, "");
    }
    // Within 1 MiB, the same text is refused for its length, as before.
    const under = new TextEncoder().encode(hello(`<arg0>${"x".repeat(100_000)}</arg0>`));
    const refused = await postInPieces(t, under, 4096);
    assert.equal(refused.status, 500);
    assert.equal(faultCode(refused.text), "S:Client");
    assert.match(faultString(refused.text) ?? "", /a text is longer than 65536 characters/);
  } finally {
    await t.close();
  }
});

Deno.test("over HTTP, Transfer-Encoding: chunked past 1 MiB inside one text is 413 with no body", async () => {
  const t = await testServer();
  try {
    const port = Number(new URL(t.baseUrl).port);
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    try {
      const encoder = new TextEncoder();
      const chunk = (text: string) =>
        encoder.encode(`${encoder.encode(text).byteLength.toString(16)}\r\n${text}\r\n`);
      await conn.write(encoder.encode(
        `POST /hello HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: text/xml\r\n` +
          `Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n`,
      ));
      const [open, close] = hello("<arg0>\u0000</arg0>").split("\u0000") as [string, string];
      await conn.write(chunk(open));
      for (let sent = 0; sent <= 1024 * 1024; sent += 32 * 1024) {
        await conn.write(chunk("y".repeat(32 * 1024)));
      }
      await conn.write(chunk(close));
      await conn.write(encoder.encode("0\r\n\r\n"));
      const answer = new TextDecoder().decode(await readAll(conn));
      assert.match(answer, /^HTTP\/1\.1 413 /);
      assert.match(answer, /\r\ncontent-length: 0\r\n/i);
      assert.ok(answer.endsWith("\r\n\r\n"), "no body");
    } finally {
      try {
        conn.close();
      } catch {
        // closed by the server already
      }
    }
    assert.deepEqual(t.logs.filter((line) => line.startsWith("error")), []);
  } finally {
    await t.close();
  }
});

/** Everything the server sends until it closes the connection. */
async function readAll(conn: Deno.Conn): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  const buffer = new Uint8Array(16 * 1024);
  while (true) {
    const n = await conn.read(buffer).catch(() => null);
    if (n === null) break;
    parts.push(buffer.slice(0, n));
  }
  const all = new Uint8Array(parts.reduce((sum, p) => sum + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.byteLength;
  }
  return all;
}
