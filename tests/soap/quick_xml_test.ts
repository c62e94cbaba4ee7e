/**
 * The quick envelope reader gives exactly saxes' tree for what it reads, and leaves to saxes
 * (null) everything outside its subset: checked on the envelopes real clients sent, on the
 * cases at the subset's edges, and on mutations of those envelopes.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { QUICK_MAX_CHARS, quickParse } from "../../soap/quick_xml.ts";
import { parseWithSaxes, parseXml, SOAP_XML_LIMITS, type XmlElement } from "../../soap/xml.ts";

const FIXTURES = join(import.meta.dirname!, "..", "fixtures", "soap-reference");
const SOAP_ENV = "http://schemas.xmlsoap.org/soap/envelope/";
const NS = "http://soap.example.com/";

/** The bodies of the recorded requests (real clients and the reference's captures). */
function recordedBodies(): Array<[string, string]> {
  const bodies: Array<[string, string]> = [];
  for (const entry of Deno.readDirSync(FIXTURES)) {
    if (!entry.name.endsWith(".request")) continue;
    const raw = Deno.readTextFileSync(join(FIXTURES, entry.name));
    const at = raw.search(/\r?\n\r?\n/);
    bodies.push([entry.name, raw.slice(at).replace(/^\r?\n\r?\n/, "")]);
  }
  assert.ok(bodies.length >= 10, "the recorded requests are there");
  return bodies;
}

/** saxes' tree of `text`, or null when saxes refuses it. */
function saxesTree(text: string): XmlElement | null {
  try {
    return parseWithSaxes(text);
  } catch {
    return null;
  }
}

/** The quick reader read `text` (and then as saxes does), or left it to saxes. */
function sameOrLeft(text: string): "read" | "left" {
  const quick = quickParse(text);
  if (quick === null) return "left";
  const full = saxesTree(text);
  assert.notEqual(full, null, `saxes refuses what the quick reader read: ${JSON.stringify(text)}`);
  assert.deepEqual(quick, full, `different trees for ${JSON.stringify(text)}`);
  return "read";
}

const HELLO = `<soapenv:Envelope xmlns:soapenv="${SOAP_ENV}" xmlns:soap="${NS}">` +
  `<soapenv:Header/><soapenv:Body><soap:getHelloWorld><arg0>Alice</arg0>` +
  `</soap:getHelloWorld></soapenv:Body></soapenv:Envelope>`;

const SHAPES = [
  HELLO,
  // .NET: the operation in a default namespace, its part undeclaring it.
  `<?xml version="1.0" encoding="utf-8"?><s:Envelope xmlns:s="${SOAP_ENV}"><s:Body ` +
  `xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ` +
  `xmlns:xsd="http://www.w3.org/2001/XMLSchema"><getHelloWorld xmlns="${NS}">` +
  `<arg0 xmlns="">Ünïcødé 名前 &gt;</arg0></getHelloWorld></s:Body></s:Envelope>`,
  // SoapUI: indented, with a single-quoted declaration and a standalone one.
  `<?xml version='1.0' standalone='yes'?>\n<soapenv:Envelope xmlns:soapenv='${SOAP_ENV}'\n` +
  `\txmlns:soap="${NS}">\n   <soapenv:Header/>\n   <soapenv:Body>\n      <soap:processLoanApplication>` +
  `\n         <arg0>\n            <applicantName>Bob</applicantName>\n            ` +
  `<requestedAmount>25000</requestedAmount>\n         </arg0>\n      </soap:processLoanApplication>` +
  `\n   </soapenv:Body>\n</soapenv:Envelope>\n`,
];

Deno.test("the quick reader reads every recorded client envelope, as saxes does", () => {
  for (const [name, body] of recordedBodies()) {
    assert.equal(sameOrLeft(body), "read", `${name} is read quickly`);
    assert.deepEqual(parseXml(body), saxesTree(body), name);
  }
});

Deno.test("the quick reader reads the envelopes of the common clients' shapes", () => {
  assert.equal(sameOrLeft(SHAPES[0]!), "read");
  assert.equal(sameOrLeft(SHAPES[2]!), "read");
  // A reference (&gt;) is left to saxes.
  assert.equal(sameOrLeft(SHAPES[1]!), "left");
  assert.equal(sameOrLeft(SHAPES[1]!.replace(" &gt;", "")), "read");
  const tree = quickParse(HELLO)!;
  assert.equal(tree.ns, SOAP_ENV);
  assert.equal(tree.local, "Envelope");
  assert.equal(tree.children[1]!.children[0]!.ns, NS);
  assert.equal(tree.children[1]!.children[0]!.children[0]!.text, "Alice");
});

Deno.test("what lies outside the subset is left to saxes, which refuses it or reads it", () => {
  // HELLO with more namespace declarations on its root, before its own `soap` one.
  const declaring = (declarations: string) =>
    HELLO.replace('xmlns:soap="', `${declarations} xmlns:soap="`);
  const body = (inner: string) =>
    `<S:Envelope xmlns:S="${SOAP_ENV}"><S:Body><ns2:getHelloWorld xmlns:ns2="${NS}">` +
    `${inner}</ns2:getHelloWorld></S:Body></S:Envelope>`;
  const left = [
    // Refused by saxes.
    `<!DOCTYPE x [<!ENTITY a "b">]>${HELLO}`,
    `<?xml-stylesheet href="x"?>${HELLO}`,
    ` <?xml version="1.0"?>${HELLO}`,
    HELLO.replace("<soapenv:Header/>", "<undeclared:Header/>"),
    declaring('xmlns:soapenv="x"'),
    declaring('xmlns:empty=""'),
    declaring('xmlns:p="http://www.w3.org/2000/xmlns/"'),
    declaring('xmlns:xml="http://example.com/"'),
    HELLO.replace('xmlns:soap="', 'xmlns:soap = "x" soap="'),
    body("<arg0>a ]]> b</arg0>"),
    body("<arg0>a & b</arg0>"),
    body("<arg0>\u0001</arg0>"),
    body("<arg0>\uFFFE</arg0>"),
    body("<arg0>\uD800</arg0>"),
    body("<arg0>Alice</arg1>"),
    body("<arg0>Alice"),
    `${HELLO}<second/>`,
    `${HELLO}text`,
    HELLO.slice(0, -1),
    "",
    "   ",
    // Read by saxes, with its own checks and limits.
    `<?xml version="1.0" encoding="ISO-8859-1"?>${HELLO}`,
    `<?xml version="1.1"?>${HELLO}`,
    HELLO.replace("Alice", "Al&#105;ce"),
    HELLO.replace("Alice", "Al<![CDATA[i]]>ce"),
    HELLO.replace("Alice", "Al<!-- x -->ice"),
    HELLO.replace("Alice", "Al\r\nice"),
    declaring('xmlns:q="a\tb"'),
    declaring('xmlns:q=" a"'),
    declaring('xmlns:q="a\u00a0"'),
    HELLO.replace("<arg0>", '<arg0 xsi:nil="false">'),
    HELLO.replace("Alice", "😀"),
    `\uFEFF${HELLO}`,
    body(`<${"a".repeat(257)}/>`),
    body("<a>".repeat(30) + "</a>".repeat(30)),
    `<a ${Array.from({ length: 65 }, (_, i) => `xmlns:p${i}="u"`).join(" ")}/>`,
    HELLO + " ".repeat(QUICK_MAX_CHARS),
  ];
  for (const text of left) {
    assert.equal(quickParse(text), null, `left to saxes: ${JSON.stringify(text.slice(0, 120))}`);
  }
  // At the subset's own bounds, the quick reader still reads.
  const read = [
    body("<a>".repeat(29) + "</a>".repeat(29)),
    body(`<${"a".repeat(256)}/>`),
    `<a ${Array.from({ length: 64 }, (_, i) => `xmlns:p${i}="u"`).join(" ")}/>`,
    declaring('xmlns = ""'),
    HELLO.replace("Alice", "a > b ]> c ] ] >"),
    `<?xml version="1.0"?>\n\n${HELLO}\n\t `,
  ];
  for (const text of read) assert.equal(sameOrLeft(text), "read", JSON.stringify(text));
});

/** A small deterministic generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  "<",
  ">",
  "/",
  "=",
  '"',
  "'",
  ":",
  "&",
  ";",
  "!",
  "?",
  "[",
  "]",
  "-",
  " ",
  "\t",
  "\n",
  "\r",
  "x",
  "xml",
  "xmlns",
  "xmlns:",
  "a",
  "0",
  ".",
  "é",
  "\u0000",
  "\uFFFE",
  "\uD83D",
  "]]>",
  "<!--",
  "-->",
  "<![CDATA[",
  "<?",
  "?>",
  "&amp;",
  "&#60;",
  "</",
  "/>",
  "S:",
  ' xmlns="',
  ' xmlns:p="u"',
  "<p:x>",
  "</p:x>",
  "<x/>",
  "<?xml version='1.0'?>",
];

Deno.test("on mutated envelopes, the quick reader reads as saxes does or leaves them", () => {
  const next = random(20261129);
  const seeds = [...SHAPES, ...recordedBodies().map(([, body]) => body)];
  let read = 0;
  let left = 0;
  for (let n = 0; n < 20_000; n++) {
    let text = seeds[Math.floor(next() * seeds.length)]!;
    const edits = 1 + Math.floor(next() * 3);
    for (let e = 0; e < edits; e++) {
      const at = Math.floor(next() * (text.length + 1));
      const kind = next();
      const piece = PIECES[Math.floor(next() * PIECES.length)]!;
      if (kind < 0.4) text = text.slice(0, at) + piece + text.slice(at);
      else if (kind < 0.7) text = text.slice(0, at) + text.slice(at + 1 + Math.floor(next() * 8));
      else if (kind < 0.9) text = text.slice(0, at) + piece + text.slice(at + piece.length);
      else {
        // A stretch of the text copied elsewhere: whole tags and texts moved about.
        const from = Math.floor(next() * text.length);
        const stretch = text.slice(from, from + 1 + Math.floor(next() * 40));
        text = text.slice(0, at) + stretch + text.slice(at);
      }
    }
    if (sameOrLeft(text) === "read") read++;
    else left++;
  }
  // Both sides are exercised, not just one.
  assert.ok(read > 1_000, `read ${read}`);
  assert.ok(left > 1_000, `left ${left}`);
});

Deno.test("parseXml uses the quick reader only with the SOAP limits", () => {
  const tight = { ...SOAP_XML_LIMITS, maxText: 3 };
  assert.throws(() => parseXml(HELLO, tight), /is longer than 3 characters/);
  assert.deepEqual(parseXml(HELLO), saxesTree(HELLO));
});
