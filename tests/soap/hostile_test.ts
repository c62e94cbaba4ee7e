/** Hostile and malformed input: each gets a clear client fault (or 413), stores nothing. */
import assert from "node:assert/strict";
import { testApp } from "../helpers/app.ts";
import {
  application,
  count,
  envelope,
  faultCode,
  faultString,
  post,
  registration,
} from "../helpers/soap.ts";

const REGISTER_EVE = registration("Eve");

const CASES: Array<[string, string | Uint8Array, RegExp]> = [
  [
    "a DOCTYPE with an internal entity (billion laughs)",
    `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>` +
    REGISTER_EVE.replace("Eve", "&lol2;"),
    /DOCTYPE is not allowed/,
  ],
  [
    "an external entity (XXE)",
    `<!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>` +
    REGISTER_EVE.replace("Eve", "&xxe;"),
    /DOCTYPE is not allowed/,
  ],
  ["an undefined entity", REGISTER_EVE.replace("Eve", "&xxe;"), /undefined entity/],
  [
    "a processing instruction",
    `<?xml version="1.0"?><?xml-stylesheet href="x"?>${REGISTER_EVE}`,
    /processing instruction/,
  ],
  ["truncated XML", REGISTER_EVE.slice(0, -20), /Cannot read SOAP message/],
  ["mismatched tags", REGISTER_EVE.replace("</arg0>", "</arg1>"), /Cannot read SOAP message/],
  ["an unbound prefix", REGISTER_EVE.replace("<arg0>", "<q:arg0>"), /unbound namespace prefix/],
  [
    "nesting deeper than 32 levels",
    envelope(
      `<soap:registerNewCustomer><arg0><customerName>Eve</customerName>${"<x>".repeat(40)}${
        "</x>".repeat(40)
      }</arg0></soap:registerNewCustomer>`,
    ),
    /nested deeper than 32 levels/,
  ],
  ["an oversized text", registration("E".repeat(70_000)), /text is longer than/],
  [
    "an oversized element name",
    REGISTER_EVE.replace("<arg0>", `<${"a".repeat(300)}/><arg0>`),
    /element name is longer than/,
  ],
  [
    "invalid UTF-8",
    new Uint8Array([
      ...new TextEncoder().encode(REGISTER_EVE.slice(0, 150)),
      0xc3,
      0x28,
      ...new TextEncoder().encode(REGISTER_EVE.slice(150)),
    ]),
    /not valid utf-8/,
  ],
  ["not XML at all", `{"name": "Eve"}`, /Cannot read SOAP message/],
  ["an empty body", "", /Cannot read SOAP message/],
  ["a root that is not an Envelope", "<Body/>", /not a SOAP Envelope/],
  [
    "an Envelope without a Body",
    `<S:Envelope xmlns:S="http://schemas.xmlsoap.org/soap/envelope/"></S:Envelope>`,
    /has no Body/,
  ],
  ["an empty Body", envelope(""), /Body is empty/],
  [
    "an operation in no namespace",
    envelope(
      "<registerNewCustomer><arg0><customerName>Eve</customerName></arg0></registerNewCustomer>",
    ),
    /^Cannot find dispatch method for \{\}registerNewCustomer$/,
  ],
  [
    "an operation of the other service",
    envelope("<soap:getHelloWorld><arg0>Eve</arg0></soap:getHelloWorld>"),
    /^Cannot find dispatch method for \{http:\/\/soap.example.com\/\}getHelloWorld$/,
  ],
  [
    "an unknown charset",
    REGISTER_EVE,
    /unsupported charset/,
  ],
  [
    "a blacklisted flag that is not a boolean",
    registration("Eve").replace(
      "</customerName>",
      "</customerName><blacklisted>maybe</blacklisted>",
    ),
    /blacklisted must be true or false/,
  ],
];

for (const [what, body, message] of CASES) {
  Deno.test(`POST /loan with ${what} is a client fault and stores nothing`, async () => {
    const t = await testApp();
    try {
      const headers: Record<string, string> = what === "an unknown charset"
        ? { "content-type": "text/xml; charset=x-klingon" }
        : {};
      const res = await post(t, "/loan", body, headers);
      assert.equal(res.status, 500);
      assert.equal(res.type, "text/xml; charset=utf-8");
      assert.equal(faultCode(res.text), "S:Client");
      assert.match(faultString(res.text) ?? "", message);
      assert.doesNotMatch(res.text, /at .*\.ts|Error:|stack/i);
      assert.equal(await count(t, "customers"), 0);
      // The server is unharmed: the next good request works.
      const ok = await post(t, "/loan", registration("Zoe"));
      assert.equal(ok.status, 200);
      assert.equal(await count(t, "customers"), 1);
    } finally {
      await t.close();
    }
  });
}

Deno.test("a body over 1 MiB is 413 without a body, declared or chunked, and stores nothing", async () => {
  const t = await testApp();
  try {
    const big = registration("Eve").replace(
      "<arg0>",
      `<pad>${"x".repeat(60_000)}</pad>`.repeat(18) + "<arg0>",
    );
    assert.ok(new TextEncoder().encode(big).byteLength > 1024 * 1024);
    const declared = await post(t, "/loan", big);
    assert.equal(declared.status, 413);
    assert.equal(declared.text, "");
    const bytes = new TextEncoder().encode(big);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 65536) controller.enqueue(bytes.slice(i, i + 65536));
        controller.close();
      },
    });
    const chunked = await t.app.request("/loan", {
      method: "POST",
      headers: { "content-type": "text/xml" },
      body: stream,
    });
    assert.equal(chunked.status, 413);
    assert.equal(await chunked.text(), "");
    assert.equal(await count(t, "customers"), 0);
  } finally {
    await t.close();
  }
});

Deno.test("a mustUnderstand header block is a MustUnderstand fault; others are ignored", async () => {
  const t = await testApp();
  try {
    const withHeader = (attrs: string) =>
      `<S:Envelope xmlns:S="http://schemas.xmlsoap.org/soap/envelope/" xmlns:w="urn:sec">` +
      `<S:Header><w:Security ${attrs}>x</w:Security></S:Header><S:Body>` +
      `<ns2:getHelloWorld xmlns:ns2="http://soap.example.com/"><arg0>Al</arg0></ns2:getHelloWorld>` +
      `</S:Body></S:Envelope>`;
    const refused = await post(t, "/hello", withHeader(`S:mustUnderstand="1"`));
    assert.equal(refused.status, 500);
    assert.equal(faultCode(refused.text), "S:MustUnderstand");
    assert.equal(
      faultString(refused.text),
      "MustUnderstand headers:[{urn:sec}Security] are not understood",
    );
    const ignored = await post(t, "/hello", withHeader(`S:mustUnderstand="0"`));
    assert.equal(ignored.status, 200);
    assert.match(ignored.text, /Hello World, Al!/);
  } finally {
    await t.close();
  }
});

Deno.test("content types other than text/xml are 415 with an empty body", async () => {
  const t = await testApp();
  try {
    for (
      const type of ["application/soap+xml", "application/xml", "text/plain", "application/json"]
    ) {
      const res = await post(t, "/loan", REGISTER_EVE, { "content-type": type });
      assert.equal(res.status, 415, type);
      assert.equal(res.text, "", type);
    }
    const res = await t.app.request("/loan", { method: "POST", body: REGISTER_EVE });
    assert.equal(res.status, 415);
    await res.body?.cancel();
    assert.equal(await count(t, "customers"), 0);
  } finally {
    await t.close();
  }
});

Deno.test("other methods on the endpoints are 405 with Allow: GET, POST", async () => {
  const t = await testApp();
  try {
    for (const method of ["PUT", "DELETE", "PATCH"]) {
      for (const path of ["/hello", "/loan"]) {
        const res = await t.app.request(path, { method });
        assert.equal(res.status, 405);
        assert.equal(res.headers.get("allow"), "GET, POST");
        await res.body?.cancel();
      }
    }
  } finally {
    await t.close();
  }
});

Deno.test("a blank or non-numeric amount is the amount fault and stores nothing", async () => {
  const t = await testApp();
  try {
    for (
      const amount of ["", "abc", "1.5", "-5", "0", "2147483648", "99999999999999999999", "1e3"]
    ) {
      const res = await post(t, "/loan", application("Ann", amount));
      assert.equal(res.status, 500, amount);
      assert.equal(faultCode(res.text), "S:Server", amount);
      assert.equal(faultString(res.text), "Requested amount must be greater than 0", amount);
    }
    const missing = await post(
      t,
      "/loan",
      envelope(
        "<soap:processLoanApplication><arg0><applicantName>Ann</applicantName></arg0></soap:processLoanApplication>",
      ),
    );
    assert.equal(faultString(missing.text), "Requested amount must be greater than 0");
    assert.equal(await count(t, "loan_history"), 0);
  } finally {
    await t.close();
  }
});
