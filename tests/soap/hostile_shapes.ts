/**
 * Hostile SOAP bodies of about 1 MiB, one per shape of XML that could make a parser work
 * hard: shared by tests/soap/parse_bound_test.ts (the parse stops where a limit is crossed)
 * and bench/hostile_bench.ts (what each costs the server).
 */

/** One hostile body. */
export interface HostileShape {
  name: string;
  /** The whole envelope (at most 1 MiB in UTF-8). */
  body: string;
  /**
   * The end (exclusive, in UTF-16 code units) of the shortest start of `body` that crosses
   * a limit: a parser that has read up to here can refuse the document, and one that has
   * read a character less cannot. null when the body crosses no limit (its cost is then the
   * parser's plain speed over 1 MiB).
   */
  crossing: number | null;
  /** The refusal's message; null when the body crosses no limit. */
  message: RegExp | null;
}

/** Just under 1 MiB: the largest body the endpoints read. */
const MAX_BYTES = 1024 * 1024 - 64;
const SOAP_ENV = "http://schemas.xmlsoap.org/soap/envelope/";
const HEAD = `<S:Envelope xmlns:S="${SOAP_ENV}"><S:Body>` +
  `<ns2:getHelloWorld xmlns:ns2="http://soap.example.com/">`;
const TAIL = `</ns2:getHelloWorld></S:Body></S:Envelope>`;
/** Elements HEAD opens. */
const HEAD_DEPTH = 3;
/** Attributes (namespace declarations) in HEAD. */
const HEAD_ATTRIBUTES = 2;

const utf8Length = (text: string) => new TextEncoder().encode(text).byteLength;

/** HEAD, `before`, `unit(i)` for i = 0, 1, ... while it fits, `after`, TAIL. */
function fill(
  before: string,
  unit: (i: number) => string,
  after = "",
): { body: string; starts: number[] } {
  const parts: string[] = [HEAD, before];
  let length = HEAD.length + before.length;
  const starts: number[] = [];
  const room = MAX_BYTES - after.length - TAIL.length;
  for (let i = 0;; i++) {
    const piece = unit(i);
    if (length + piece.length > room) break;
    starts.push(length);
    parts.push(piece);
    length += piece.length;
  }
  parts.push(after, TAIL);
  return { body: parts.join(""), starts };
}

/** One huge token: HEAD, `before`, `filler` repeated while it fits, `after`, TAIL. */
function huge(before: string, filler: string, after: string, head = HEAD, tail = TAIL): string {
  const room = MAX_BYTES - utf8Length(head + before + after + tail);
  return head + before + filler.repeat(Math.floor(room / utf8Length(filler))) + after + tail;
}

/** The start offset of unit `i`, which must exist. */
function start(starts: number[], i: number): number {
  const offset = starts[i];
  if (offset === undefined) throw new Error(`the body has no unit ${i}`);
  return offset;
}

/** The hostile shapes, built for the SOAP limits (tests/soap/parse_bound_test.ts checks). */
export function hostileShapes(): HostileShape[] {
  const maxName = 256;
  const maxText = 64 * 1024;
  const shapes: HostileShape[] = [];
  const add = (name: string, body: string, crossing: number | null, message: RegExp | null) =>
    shapes.push({ name, body, crossing, message });
  const tooLong = (what: string) => new RegExp(`^${what} is longer than`);
  const SECTIONS = /more than 1000 comments and CDATA sections/;
  const REFERENCES = /more than 20000 references/;

  // Attributes and namespace declarations: the 65th on one element, the 1025th in all.
  {
    const { body, starts } = fill("<a", (i) => ` a${i}="x"`, "/>");
    add("many attributes on one element", body, start(starts, 65), /more than 64 attributes/);
  }
  {
    const { body, starts } = fill("<a", (i) => ` xmlns:p${i}="urn:x"`, "/>");
    add("many namespace declarations", body, start(starts, 65), /more than 64 attributes/);
  }
  {
    const unit = (i: number) => ` p${i}:a="x" xmlns:p${i}="urn:${i}"`;
    const { body, starts } = fill("<a", unit, "/>");
    const crossing = start(starts, 32) + unit(32).indexOf(" xmlns");
    add("many prefixed attributes and declarations", body, crossing, /more than 64 attributes/);
  }
  {
    const attributes: string[] = [];
    for (let i = 0; i < 64; i++) attributes.push(` a${i}="x"`);
    const { body, starts } = fill("", () => `<a${attributes.join("")}/>`);
    // The 1,025th attribute of the document is this one of the filler.
    const index = 1024 - HEAD_ATTRIBUTES;
    const crossing = start(starts, Math.floor(index / 64)) +
      `<a${attributes.slice(0, (index % 64) + 1).join("")}`.length;
    add("elements with 64 attributes each", body, crossing, /more than 1024 attributes/);
  }
  {
    const { body, starts } = fill("", (i) => `<a x="${i}"/>`);
    const index = 1024 - HEAD_ATTRIBUTES;
    const crossing = start(starts, index) + `<a x="${index}"`.length;
    add("many elements with an attribute", body, crossing, /more than 1024 attributes/);
  }
  // One attribute value, name or reference too long.
  add(
    "a huge attribute value",
    huge(`<a b="`, "x", `"/>`),
    HEAD.length + 6 + maxText + 1,
    tooLong("an attribute value"),
  );
  add(
    "a huge attribute value of references",
    huge(`<a b="`, "&amp;", `"/>`),
    HEAD.length + 6 + 20_001 * 5,
    REFERENCES,
  );
  add(
    "a huge element name",
    huge("<a", "a", "/>"),
    HEAD.length + 1 + maxName + 1,
    tooLong("an element name"),
  );
  add(
    "a huge attribute name",
    huge("<a b", "b", `="x"/>`),
    HEAD.length + 3 + maxName + 1,
    tooLong("an attribute name"),
  );
  add(
    "a huge closing tag name",
    huge("<a></a", "a", ">"),
    HEAD.length + 5 + maxName + 1,
    tooLong("an element name"),
  );
  add(
    "a huge character reference",
    huge("<arg0>&#x", "0", "41;</arg0>"),
    HEAD.length + 7 + maxText + 1,
    tooLong("a reference"),
  );
  // Structure.
  {
    const { body, starts } = fill("", () => "<a>");
    const crossing = start(starts, 32 - HEAD_DEPTH) + 3;
    add("deep nesting", body, crossing, /nested deeper than 32 levels/);
  }
  {
    const { body, starts } = fill("", () => "<a/>");
    const crossing = start(starts, 10_000 - HEAD_DEPTH) + 4;
    add("many siblings", body, crossing, /more than 10000 elements/);
  }
  // Texts: an element's text is all its character data, CDATA sections included.
  add(
    "a huge text",
    huge("<arg0>", "x", "</arg0>"),
    HEAD.length + 6 + maxText + 1,
    tooLong("a text"),
  );
  {
    const { body, starts } = fill("<arg0>", () => "x<b/>", "</arg0>");
    const crossing = start(starts, 10_000 - HEAD_DEPTH - 1) + "x<b/>".length;
    add("tiny texts between elements", body, crossing, /more than 10000 elements/);
  }
  // saxes reports a comment on the second "-" of "-->", a CDATA section on its ">".
  {
    const { body, starts } = fill("<arg0>", () => "x<!---->", "</arg0>");
    const crossing = start(starts, 1_000) + "x<!---".length;
    add("tiny texts between comments", body, crossing, SECTIONS);
  }
  {
    const { body, starts } = fill("<arg0>", () => "<![CDATA[x]]>", "</arg0>");
    const crossing = start(starts, 1_000) + "<![CDATA[x]]>".length;
    add("many tiny CDATA sections", body, crossing, SECTIONS);
  }
  add(
    "one huge CDATA section",
    huge("<arg0><![CDATA[", "x", "]]></arg0>"),
    HEAD.length + 15 + maxText + 1,
    tooLong("a text"),
  );
  add(
    "a flood of &amp;",
    huge("<arg0>", "&amp;", "</arg0>"),
    HEAD.length + 6 + 20_001 * 5,
    REFERENCES,
  );
  add(
    "a flood of character references",
    huge("<arg0>", "&#x41;", "</arg0>"),
    HEAD.length + 6 + 20_001 * 6,
    REFERENCES,
  );
  {
    // Each text well under the text limit.
    const { body, starts } = fill("", () => `<a>${"&lt;".repeat(1000)}</a>`);
    const crossing = start(starts, 20) + "<a>".length + 1 * 4;
    add("references spread over many texts", body, crossing, REFERENCES);
  }
  add(
    "a run of spaces in a text",
    huge("<arg0>", " ", "</arg0>"),
    HEAD.length + 6 + maxText + 1,
    tooLong("a text"),
  );
  add(
    "a run of CR LF line breaks in a text",
    huge("<arg0>", "\r\n", "</arg0>"),
    HEAD.length + 6 + (maxText + 1) * 2,
    tooLong("a text"),
  );
  add(
    "a run of spaces between elements",
    huge("", " ", ""),
    HEAD.length + maxText + 1,
    tooLong("a text"),
  );
  add(
    "a run of multi-byte characters",
    huge("<arg0>", "\u20ac\u{1f600}", "</arg0>"),
    // Three UTF-16 code units a unit: the 65,537th is the high surrogate of an emoji.
    HEAD.length + 6 + maxText + 2,
    tooLong("a text"),
  );
  add(
    "a run of spaces around the root element",
    huge("", " ", "", "<a/>", ""),
    "<a/>".length + maxText + 1,
    tooLong("a text"),
  );
  add("a run of spaces inside a start tag", huge("<a", " ", "/>"), null, null);
  add("a run of spaces inside an end tag", huge("<a></a", " ", ">"), null, null);
  add("a run of spaces before the root element", huge("", " ", "", "", HEAD + TAIL), null, null);
  // Comments, declarations, processing instructions.
  add(
    "one huge comment",
    huge("<!--", "x", "-->"),
    HEAD.length + 4 + maxText + 1,
    tooLong("a comment"),
  );
  {
    const { body, starts } = fill("", () => "<!---->");
    add("many comments", body, start(starts, 1_000) + "<!---".length, SECTIONS);
  }
  add(
    "a huge XML declaration",
    huge(`<?xml version="1.0" encoding="`, "a", `"?>`, "", "<a/>"),
    `<?xml version="1.0" encoding="`.length + maxText + 1,
    tooLong("the XML declaration"),
  );
  add(
    "a huge processing instruction",
    huge("<?pi ", "x", "?>"),
    HEAD.length + 5,
    /processing instruction &lt;\?pi\?&gt; is not allowed/,
  );
  add(
    "a huge DOCTYPE",
    huge(`<!DOCTYPE a [<!ENTITY x "`, "x", `">]>`, "", "<a/>"),
    "<!DOCTYPE".length,
    /DOCTYPE is not allowed/,
  );
  return shapes;
}
