/**
 * Our responses compared byte for byte with what the JAX-WS reference put on the wire for
 * the same requests (`tests/fixtures/soap-reference/`), ignoring `Date` and transfer framing.
 */
import assert from "node:assert/strict";
import { testApp } from "../helpers/app.ts";
import { post, REFERENCE_DIR, registration } from "../helpers/soap.ts";

interface Exchange {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Uint8Array;
}

async function readRequest(name: string): Promise<Exchange> {
  const raw = await Deno.readFile(new URL(`${name}.request`, REFERENCE_DIR));
  const text = new TextDecoder().decode(raw);
  const split = text.search(/\r?\n\r?\n/);
  const head = text.slice(0, split).split(/\r?\n/);
  const [method, path] = head[0]!.split(" ");
  const headers: Record<string, string> = {};
  for (const line of head.slice(1)) {
    const colon = line.indexOf(":");
    const key = line.slice(0, colon).trim().toLowerCase();
    if (key === "content-length" || key === "host") continue;
    headers[key] = line.slice(colon + 1).trim();
  }
  const bodyStart = text.slice(split).match(/^\r?\n\r?\n/)![0].length + split;
  const body = new TextEncoder().encode(text.slice(bodyStart));
  return { method: method!, path: path!, headers, body };
}

async function readResponse(name: string): Promise<{ status: number; type: string; body: string }> {
  const text = await Deno.readTextFile(new URL(`${name}.response`, REFERENCE_DIR));
  const split = text.indexOf("\r\n\r\n");
  const head = text.slice(0, split).split("\r\n");
  const status = Number(head[0]!.split(" ")[1]);
  const type = head.find((l) => l.toLowerCase().startsWith("content-type:"))!.slice(13).trim();
  return { status, type, body: text.slice(split + 4) };
}

const PAIRS = [
  "11-getHelloWorld-Alice",
  "19-registerNewCustomer-new",
  "20-registerNewCustomer-duplicate",
  "23-registerNewCustomer-empty-name-FAULT",
  "27-processLoanApplication-normal-registered",
  "28-processLoanApplication-blacklisted",
  "34-processLoanApplication-amount-0-FAULT",
  "44-unknown-operation",
  "47-soap12-envelope-with-soap11-content-type",
];

Deno.test("every reference exchange is answered with the reference's status, type and bytes", async (t) => {
  const app = await testApp();
  try {
    // The reference had Mallory registered as blacklisted before exchange 28.
    assert.equal((await post(app, "/loan", registration("Mallory", true))).status, 200);
    for (const name of PAIRS) {
      await t.step(name, async () => {
        const request = await readRequest(name);
        const expected = await readResponse(name);
        const res = await app.app.request(request.path, {
          method: request.method,
          headers: request.headers,
          body: request.body as BodyInit,
        });
        assert.equal(res.status, expected.status);
        assert.equal(res.headers.get("content-type"), expected.type);
        assert.equal(await res.text(), expected.body);
      });
    }
  } finally {
    await app.close();
  }
});

Deno.test("requests as the wsimport and zeep clients send them are answered", async () => {
  const app = await testApp();
  try {
    const expected = (await readResponse("11-getHelloWorld-Alice")).body;
    for (const client of ["client-wsimport-getHelloWorld", "client-zeep-getHelloWorld"]) {
      const request = await readRequest(client);
      const res = await app.app.request(request.path, {
        method: "POST",
        headers: request.headers,
        body: request.body as BodyInit,
      });
      assert.equal(res.status, 200, client);
      assert.equal(await res.text(), expected, client);
    }
  } finally {
    await app.close();
  }
});

for (
  const [path, wsdl, xsd] of [["/hello", "hello.wsdl", "hello-xsd1.xsd"], [
    "/loan",
    "loan.wsdl",
    "loan-xsd1.xsd",
  ]] as const
) {
  Deno.test(`GET ${path}?wsdl and ?xsd=1 match the reference documents byte for byte`, async () => {
    const app = await testApp();
    try {
      for (const query of ["?wsdl", "?WSDL"]) {
        const res = await app.app.request(`http://127.0.0.1:18080${path}${query}`);
        assert.equal(res.status, 200);
        assert.equal(res.headers.get("content-type"), "text/xml; charset=utf-8");
        assert.equal(await res.text(), await Deno.readTextFile(new URL(wsdl, REFERENCE_DIR)));
      }
      const res = await app.app.request(`http://127.0.0.1:18080${path}?xsd=1`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "text/xml; charset=utf-8");
      assert.equal(await res.text(), await Deno.readTextFile(new URL(xsd, REFERENCE_DIR)));
      const other = await app.app.request(`http://127.0.0.1:18080${path}?xsd=2`);
      assert.equal(other.status, 404);
      await other.body?.cancel();
    } finally {
      await app.close();
    }
  });
}

Deno.test("the WSDL's addresses follow BASE_URL when it is set", async () => {
  const app = await testApp({ env: { BASE_URL: "https://soap.example.org/base/" } });
  try {
    const res = await app.app.request("http://internal:9000/loan?wsdl");
    const text = await res.text();
    assert.match(text, /<soap:address location="https:\/\/soap.example.org\/base\/loan"\/>/);
    assert.match(text, /schemaLocation="https:\/\/soap.example.org\/base\/loan\?xsd=1"/);
  } finally {
    await app.close();
  }
});

Deno.test("the WSDL and schema use SOAP_NAMESPACE, and requests are dispatched in it", async () => {
  const ns = "urn:example:loans";
  const app = await testApp({ env: { SOAP_NAMESPACE: ns } });
  try {
    const wsdl = await (await app.app.request("http://h/hello?wsdl")).text();
    assert.match(wsdl, /targetNamespace="urn:example:loans"/);
    assert.match(wsdl, /wsam:Action="urn:example:loansHelloWorld\/getHelloWorldRequest"/);
    const xsd = await (await app.app.request("http://h/hello?xsd=1")).text();
    assert.match(xsd, /targetNamespace="urn:example:loans"/);
    const body = `<S:Envelope xmlns:S="http://schemas.xmlsoap.org/soap/envelope/"><S:Body>` +
      `<x:getHelloWorld xmlns:x="${ns}"><arg0>Ann</arg0></x:getHelloWorld></S:Body></S:Envelope>`;
    const res = await post(app, "/hello", body);
    assert.equal(res.status, 200);
    assert.match(res.text, /<ns2:getHelloWorldResponse xmlns:ns2="urn:example:loans">/);
    const old = await post(app, "/hello", body.replaceAll(ns, "http://soap.example.com/"));
    assert.equal(old.status, 500);
    assert.match(
      old.text,
      /Cannot find dispatch method for \{http:\/\/soap.example.com\/\}getHelloWorld/,
    );
  } finally {
    await app.close();
  }
});
