/**
 * A quick reader for the envelopes SOAP clients send, tried before saxes (`parseXml`).
 *
 * It reads a small subset of XML and gives up (null) on anything outside it, leaving the
 * document to saxes and every check of `xml.ts`. What it reads, it reads exactly as saxes
 * does: the same tree, for a document saxes accepts within the SOAP limits. The subset:
 * an optional XML declaration (version 1.0, encoding UTF-8, standalone), then one element
 * tree of ASCII names with at most one prefix, whose only attributes are namespace
 * declarations, whose texts have no reference, CR, control character, surrogate or `]]>`,
 * and nothing else: no comment, CDATA section, processing instruction or DOCTYPE.
 * Whitespace may surround the root element. Documents longer than `QUICK_MAX_CHARS` are not
 * tried.
 *
 * Why: saxes and the tree built from its events were about a quarter of the CPU of a
 * `getHelloWorld` request (bench/README.md, "A quick envelope reader"); this reads the same
 * envelopes in a fraction of that. `tests/soap/quick_xml_test.ts` compares the two on client
 * envelopes, the subset's edges and mutations of them (docs/decisions/0012).
 */
import { NO_ATTRIBUTES, SOAP_XML_LIMITS, type XmlElement, XMLNS_NS } from "./xml_element.ts";

/**
 * Longer documents go to saxes. Within this length no document can reach the SOAP limits on
 * elements (10,000), texts (64 Ki characters), references or sections (none are read here) or
 * attributes in all (1,024); the others are checked as it reads.
 */
export const QUICK_MAX_CHARS = 4096;
const { maxDepth: MAX_DEPTH, maxName: MAX_NAME, maxAttributes: MAX_DECLARATIONS } = SOAP_XML_LIMITS;

const XML_NS = "http://www.w3.org/XML/1998/namespace";

/** The XML declarations read here (XML 1.0, UTF-8): anything else goes to saxes. */
const DECLARATION =
  /^<\?xml[ \t\n]+version[ \t\n]*=[ \t\n]*(["'])1\.0\1(?:[ \t\n]+encoding[ \t\n]*=[ \t\n]*(["'])[uU][tT][fF]-8\2)?(?:[ \t\n]+standalone[ \t\n]*=[ \t\n]*(["'])(?:yes|no)\3)?[ \t\n]*\?>/;

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const COLON = 0x3a;
const EQUALS = 0x3d;
const AMP = 0x26;
const QUOTE = 0x22;
const APOSTROPHE = 0x27;
const BRACKET = 0x5d;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a;
}

function isNameStart(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f;
}

function isNameChar(c: number): boolean {
  return isNameStart(c) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2e;
}

/**
 * Whether `c` may stand as itself in a text or attribute value read here: no control
 * character (tab and line feed aside: saxes turns CR into LF, and whitespace in attribute
 * values into spaces), no surrogate, no U+FFFE or U+FFFF.
 */
function isPlainChar(c: number): boolean {
  return c >= 0x20 ? c < 0xd800 || (c > 0xdfff && c < 0xfffe) : c === 0x09 || c === 0x0a;
}

/** A prefix that names or binds a reserved namespace (`xml…`): left to saxes. */
function isReservedPrefix(prefix: string): boolean {
  return prefix.length >= 3 && prefix.slice(0, 3).toLowerCase() === "xml";
}

/**
 * The end of the name at `i` (an NCName, or prefix:NCName when `qualified`), or -1 when
 * there is none or it is longer than `MAX_NAME`.
 */
function nameEnd(text: string, i: number, end: number, qualified: boolean): number {
  const start = i;
  if (i >= end || !isNameStart(text.charCodeAt(i))) return -1;
  i++;
  while (i < end && isNameChar(text.charCodeAt(i))) i++;
  if (qualified && i < end && text.charCodeAt(i) === COLON) {
    i++;
    if (i >= end || !isNameStart(text.charCodeAt(i))) return -1;
    i++;
    while (i < end && isNameChar(text.charCodeAt(i))) i++;
  }
  return i - start > MAX_NAME ? -1 : i;
}

/** The index after the whitespace at `i`. */
function skipSpace(text: string, i: number, end: number): number {
  while (i < end && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/**
 * The URI bound to `prefix` by the declarations in scope (`prefixes[k]` to `uris[k]`, the
 * innermost last), "" for no default namespace, or null when `prefix` is unbound.
 */
function resolve(prefixes: string[], uris: string[], prefix: string): string | null {
  for (let k = prefixes.length - 1; k >= 0; k--) {
    if (prefixes[k] === prefix) return uris[k]!;
  }
  return prefix === "" ? "" : null;
}

/** Reads `text` when it is in the subset (see above): its root element; else null. */
export function quickParse(text: string): XmlElement | null {
  const end = text.length;
  if (end > QUICK_MAX_CHARS) return null;
  let i = 0;
  if (text.charCodeAt(0) === LT && text.charCodeAt(1) === 0x3f) {
    const declaration = DECLARATION.exec(text);
    if (declaration === null) return null;
    i = declaration[0].length;
  }
  i = skipSpace(text, i, end);
  // The elements open, their names, and how many declarations were in scope at each.
  const elements: XmlElement[] = [];
  const names: string[] = [];
  const scopes: number[] = [];
  // The namespace declarations in scope, the innermost last.
  const prefixes: string[] = [];
  const uris: string[] = [];
  let root: XmlElement | null = null;

  while (true) {
    // At `<` of a start tag (the root or a child) or an end tag.
    if (i >= end || text.charCodeAt(i) !== LT) return null;
    i++;
    if (text.charCodeAt(i) === SLASH) {
      i++;
      const depth = names.length - 1;
      if (depth < 0) return null;
      const name = names[depth]!;
      if (!text.startsWith(name, i)) return null;
      i += name.length;
      // The name must end there, with whitespace or `>`.
      i = skipSpace(text, i, end);
      if (text.charCodeAt(i) !== GT) return null;
      i++;
      elements.pop();
      names.pop();
      const scope = scopes.pop()!;
      prefixes.length = scope;
      uris.length = scope;
    } else {
      const nameStart = i;
      i = nameEnd(text, i, end, true);
      if (i < 0 || names.length >= MAX_DEPTH) return null;
      const name = text.slice(nameStart, i);
      const scope = prefixes.length;
      // The namespace declarations, the only attributes read here.
      let closed = false;
      while (true) {
        const before = i;
        i = skipSpace(text, i, end);
        const c = text.charCodeAt(i);
        if (c === GT) {
          i++;
          break;
        }
        if (c === SLASH) {
          if (text.charCodeAt(i + 1) !== GT) return null;
          i += 2;
          closed = true;
          break;
        }
        if (i === before) return null; // an attribute needs whitespace before it
        const attributeStart = i;
        i = nameEnd(text, i, end, true);
        if (i < 0) return null;
        let prefix: string;
        if (i - attributeStart === 5 && text.startsWith("xmlns", attributeStart)) prefix = "";
        else if (text.startsWith("xmlns:", attributeStart)) {
          prefix = text.slice(attributeStart + 6, i);
        } else return null; // any other attribute: saxes
        if (isReservedPrefix(prefix)) return null;
        i = skipSpace(text, i, end);
        if (text.charCodeAt(i) !== EQUALS) return null;
        i = skipSpace(text, i + 1, end);
        const quote = text.charCodeAt(i);
        if (quote !== QUOTE && quote !== APOSTROPHE) return null;
        const valueStart = ++i;
        while (i < end) {
          const v = text.charCodeAt(i);
          if (v === quote) break;
          // Whitespace in a value becomes a space in saxes: tab and line feed are left to it.
          if (v === LT || v === AMP || v < 0x20 || !isPlainChar(v)) return null;
          i++;
        }
        if (i >= end) return null;
        const uri = text.slice(valueStart, i);
        i++;
        // saxes trims a namespace, and an empty prefixed binding or one to a reserved
        // namespace is an error: both are left to it.
        if (uri !== uri.trim() || (prefix !== "" && uri === "")) return null;
        if (uri === XML_NS || uri === XMLNS_NS) return null;
        // The same declaration twice on one element is a duplicate attribute.
        if (prefixes.length - scope >= MAX_DECLARATIONS) return null;
        for (let k = scope; k < prefixes.length; k++) if (prefixes[k] === prefix) return null;
        prefixes.push(prefix);
        uris.push(uri);
      }
      const colon = name.indexOf(":");
      const prefix = colon < 0 ? "" : name.slice(0, colon);
      if (colon >= 0 && isReservedPrefix(prefix)) return null;
      const ns = resolve(prefixes, uris, prefix);
      if (ns === null) return null; // an unbound prefix
      const element: XmlElement = {
        ns,
        local: colon < 0 ? name : name.slice(colon + 1),
        attributes: NO_ATTRIBUTES,
        children: [],
        text: "",
      };
      const parent = elements[elements.length - 1];
      if (parent) parent.children.push(element);
      else if (root === null) root = element;
      else return null; // a second root
      if (closed) {
        prefixes.length = scope;
        uris.length = scope;
      } else {
        elements.push(element);
        names.push(name);
        scopes.push(scope);
      }
    }
    if (elements.length === 0) break;
    // The text up to the next tag.
    const start = i;
    while (i < end) {
      const c = text.charCodeAt(i);
      if (c === LT) break;
      if (c === AMP || !isPlainChar(c)) return null;
      if (
        c === GT && i - start >= 2 && text.charCodeAt(i - 1) === BRACKET &&
        text.charCodeAt(i - 2) === BRACKET
      ) {
        return null; // `]]>` may not stand in a text
      }
      i++;
    }
    if (i >= end) return null; // the document ends inside an element
    if (i > start) elements[elements.length - 1]!.text += text.slice(start, i);
    // Comments, CDATA sections and processing instructions: saxes.
    const next = text.charCodeAt(i + 1);
    if (next === 0x21 || next === 0x3f) return null;
  }
  return skipSpace(text, i, end) === end ? root : null;
}
