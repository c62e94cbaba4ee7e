/**
 * Wire details where we differed from the reference: UTF-16 bodies, carriage returns in
 * answers, the dispatch fault of an operation in no namespace, and `xs:int` with leading
 * zeros.
 */
import assert from "node:assert/strict";
import { testApp } from "../helpers/app.ts";
import { application, count, envelope, faultCode, faultString, post } from "../helpers/soap.ts";

const hello = (inner: string) => envelope(`<soap:getHelloWorld>${inner}</soap:getHelloWorld>`);

/** `text` as UTF-16 in the given byte order, with a byte order mark when `bom`. */
function utf16(text: string, order: "be" | "le", bom: boolean): Uint8Array {
  const units = (bom ? "\ufeff" : "") + text;
  const bytes = new Uint8Array(units.length * 2);
  for (let i = 0; i < units.length; i++) {
    const unit = units.charCodeAt(i);
    const [high, low] = [unit >> 8, unit & 0xff];
    bytes[2 * i] = order === "be" ? high : low;
    bytes[2 * i + 1] = order === "be" ? low : high;
  }
  return bytes;
}

// What a JAX-WS client with SerializationFeature("UTF-16") sends: Java's UTF-16 encoder
// writes big-endian with a byte order mark.
const UTF16_REQUEST = `<?xml version="1.0" encoding="UTF-16"?>` +
  hello("<arg0>Zoë 山田 \u{1f600}</arg0>");
const GREETING = "<return>Hello World, Zoë 山田 \u{1f600}!</return>";

Deno.test("a UTF-16 body is decoded by its byte order mark, whatever the charset says", async () => {
  const t = await testApp();
  try {
    const cases: Array<[string, Uint8Array]> = [
      ["text/xml; charset=utf-16", utf16(UTF16_REQUEST, "be", true)],
      ["text/xml;charset=UTF-16", utf16(UTF16_REQUEST, "be", true)],
      ["text/xml; charset=utf-16be", utf16(UTF16_REQUEST, "be", true)],
      ["text/xml; charset=utf-16", utf16(UTF16_REQUEST, "le", true)],
      ["text/xml; charset=utf-16le", utf16(UTF16_REQUEST, "le", true)],
      // A mark that contradicts the charset parameter wins.
      ["text/xml; charset=utf-8", utf16(UTF16_REQUEST, "be", true)],
      ["text/xml; charset=utf-16be", utf16(UTF16_REQUEST, "le", true)],
      ["text/xml", utf16(UTF16_REQUEST, "le", true)],
      // Without a mark: utf-16 is big-endian (RFC 2781, as Java reads it).
      ["text/xml; charset=utf-16", utf16(UTF16_REQUEST, "be", false)],
      ["text/xml; charset=utf-16be", utf16(UTF16_REQUEST, "be", false)],
      ["text/xml; charset=utf-16le", utf16(UTF16_REQUEST, "le", false)],
    ];
    for (const [type, body] of cases) {
      const res = await post(t, "/hello", body, { "content-type": type });
      assert.equal(res.status, 200, `${type}: ${res.text}`);
      // The answer is UTF-8, as every answer is.
      assert.equal(res.type, "text/xml; charset=utf-8");
      assert.ok(res.text.includes(GREETING), `${type}: ${res.text}`);
    }
  } finally {
    await t.close();
  }
});

Deno.test("a UTF-8 body with a byte order mark is read whatever the charset says", async () => {
  const t = await testApp();
  try {
    const bytes = new TextEncoder().encode("\ufeff" + UTF16_REQUEST.replace("UTF-16", "UTF-8"));
    assert.deepEqual([...bytes.slice(0, 3)], [0xef, 0xbb, 0xbf]);
    const res = await post(t, "/hello", bytes, { "content-type": "text/xml; charset=utf-16" });
    assert.equal(res.status, 200, res.text);
    assert.ok(res.text.includes(GREETING), res.text);
  } finally {
    await t.close();
  }
});

Deno.test("invalid UTF-16 is a client fault, and stores nothing", async () => {
  const t = await testApp();
  try {
    const good = utf16(application("Ann", 1000), "be", true);
    // A lone high surrogate where a character should be, and a body of an odd length.
    const lone = good.slice();
    const at = good.length - 40;
    [lone[at], lone[at + 1]] = [0xd8, 0x00];
    const odd = good.slice(0, good.length - 1);
    for (const body of [lone, odd]) {
      const res = await post(t, "/loan", body, { "content-type": "text/xml; charset=utf-16" });
      assert.equal(res.status, 500);
      assert.equal(faultCode(res.text), "S:Client");
      assert.equal(
        faultString(res.text),
        "Cannot read SOAP message: the body is not valid utf-16be",
      );
    }
    assert.equal(await count(t, "loan_history"), 0);
  } finally {
    await t.close();
  }
});

Deno.test("the 1 MiB body limit counts the bytes sent, in UTF-16 too", async () => {
  const t = await testApp();
  try {
    // 600 Ki characters: 1.2 MiB in UTF-16, under 1 MiB in UTF-8.
    const request = hello(`<arg0>${"a".repeat(600 * 1024)}</arg0>`);
    assert.ok(new TextEncoder().encode(request).byteLength < 1024 * 1024);
    const res = await post(t, "/hello", utf16(request, "be", true), {
      "content-type": "text/xml; charset=utf-16",
    });
    assert.equal(res.status, 413);
    assert.equal(res.text, "");
  } finally {
    await t.close();
  }
});

Deno.test("a carriage return in an answer is written as &#13;, so the client reads it back", async () => {
  const t = await testApp();
  try {
    // A raw CR in a request is read as a line feed (XML line-end handling); &#13; is a CR.
    const res = await post(t, "/hello", hello("<arg0>A&#13;B&#xD;&#10;C\r\nD</arg0>"));
    assert.equal(res.status, 200);
    assert.ok(res.text.includes("<return>Hello World, A&#13;B&#13;\nC\nD!</return>"), res.text);
    assert.ok(!res.text.includes("\r"));
  } finally {
    await t.close();
  }
});

Deno.test("an operation in no namespace is not dispatched: {} names the empty namespace", async () => {
  const t = await testApp();
  try {
    const res = await post(t, "/hello", envelope("<getHelloWorld><arg0>Al</arg0></getHelloWorld>"));
    assert.equal(res.status, 500);
    assert.equal(faultCode(res.text), "S:Client");
    assert.equal(faultString(res.text), "Cannot find dispatch method for {}getHelloWorld");
    // A default namespace declaration of "" is no namespace too.
    const undeclared = await post(
      t,
      "/hello",
      envelope(`<getHelloWorld xmlns=""><arg0>Al</arg0></getHelloWorld>`),
    );
    assert.equal(faultString(undeclared.text), "Cannot find dispatch method for {}getHelloWorld");
  } finally {
    await t.close();
  }
});

Deno.test("an xs:int is read by its value: leading zeros, a sign and whitespace around it", async () => {
  const t = await testApp();
  try {
    const amounts = [
      "0".repeat(30) + "1000",
      "+" + "0".repeat(100) + "1000",
      "0".repeat(60_000) + "2147483647",
      " \n\t 000001000 \r\n ",
    ];
    for (const amount of amounts) {
      const res = await post(t, "/loan", application("Ann", amount));
      assert.equal(res.status, 200, `${amount.slice(-20)}: ${res.text}`);
      assert.ok(res.text.includes("<approved>true</approved>"), res.text);
    }
    const stored = await t.sql.all<{ amount: number }>(
      "SELECT requested_amount AS amount FROM loan_history ORDER BY id",
    );
    assert.deepEqual(stored.map((row) => row.amount), [1000, 1000, 2147483647, 1000]);
  } finally {
    await t.close();
  }
});

Deno.test("an xs:int out of range, however written, is the amount fault and stores nothing", async () => {
  const t = await testApp();
  try {
    const amounts = [
      "0".repeat(30) + "2147483648",
      "0".repeat(10) + "99999999999",
      "1" + "0".repeat(60_000),
      "-" + "0".repeat(30) + "1",
      "0".repeat(40),
      "1 000",
      "0x10",
      "\u00a01000",
    ];
    for (const amount of amounts) {
      const res = await post(t, "/loan", application("Ann", amount));
      assert.equal(res.status, 500, amount.slice(0, 40));
      assert.equal(faultCode(res.text), "S:Server");
      assert.equal(faultString(res.text), "Requested amount must be greater than 0");
    }
    assert.equal(await count(t, "loan_history"), 0);
  } finally {
    await t.close();
  }
});
