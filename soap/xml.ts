/**
 * Hardened, namespace-aware XML reading for SOAP envelopes (saxes with `xmlns: true`).
 *
 * Refused: any DOCTYPE (so no entity can ever be declared or expanded), processing
 * instructions other than the XML declaration, undefined entities, nesting deeper than
 * `maxDepth`, names longer than `maxName`, texts longer than `maxText`, too many
 * elements or attributes, and anything malformed or truncated. Nothing is fetched.
 *
 * One saxes parser is reused from document to document: saxes resets itself at the end
 * of every well-formed document (`close()`), and its handlers are installed once and read
 * the state of the document being parsed from this module. A parse runs synchronously from
 * start to end, so documents never share that state. After a failed parse the parser is
 * in the middle of a document, so it is dropped and the next parse gets a new one.
 */
import { type SaxesAttributeNS, SaxesParser, type SaxesTagNS } from "saxes";

/** One element of the parsed tree. */
export interface XmlElement {
  /** Namespace URI, "" when in no namespace. */
  ns: string;
  local: string;
  /**
   * Attributes keyed by `{ns}local` (just `local` when in no namespace). Namespace
   * declarations (`xmlns`, `xmlns:p`) are not attributes here: saxes applies them.
   */
  attributes: ReadonlyMap<string, string>;
  children: XmlElement[];
  /** The concatenated character data directly inside this element. */
  text: string;
}

/** Why an XML document was refused; `message` is safe to show a client. */
export class XmlError extends Error {
  override name = "XmlError";
}

/** Parser limits. */
export interface XmlLimits {
  maxDepth: number;
  maxName: number;
  maxText: number;
  maxElements: number;
  maxAttributes: number;
}

/** The limits the SOAP endpoints use. */
export const SOAP_XML_LIMITS: XmlLimits = {
  maxDepth: 32,
  maxName: 256,
  maxText: 64 * 1024,
  maxElements: 10_000,
  maxAttributes: 64,
};

/** The attributes of every element that has none (never written to). */
const NO_ATTRIBUTES: ReadonlyMap<string, string> = new Map();
const XMLNS_NS = "http://www.w3.org/2000/xmlns/";

// The document being parsed; only meaningful during a `parseXml` call.
let limits: XmlLimits = SOAP_XML_LIMITS;
let stack: XmlElement[] = [];
let root: XmlElement | undefined;
let elements = 0;

/** The reusable parser; undefined until first use and after a failed parse. */
let shared: SaxesParser<{ xmlns: true; position: false }> | undefined;

function createParser(): SaxesParser<{ xmlns: true; position: false }> {
  const parser = new SaxesParser({ xmlns: true, position: false });
  // Six handlers at most: saxes stores each one as a new property of the parser, and V8
  // turns an object that gains more properties this way into a slow dictionary object
  // (with the seventh, parsing took three times as long). So the checks saxes offers
  // separate events for (the start of a tag, each attribute) are made in "opentag".
  parser.on("doctype", onDoctype);
  parser.on("processinginstruction", onProcessingInstruction);
  parser.on("opentag", onOpenTag);
  parser.on("closetag", onCloseTag);
  parser.on("text", onText);
  parser.on("cdata", onText);
  // No "error" handler: saxes then throws its error from `write`/`close`.
  return parser;
}

function onDoctype(): void {
  throw new XmlError("a DOCTYPE is not allowed");
}

function onProcessingInstruction(pi: { target: string }): void {
  throw new XmlError(`the processing instruction <?${pi.target.slice(0, 32)}?> is not allowed`);
}

function onOpenTag(tag: SaxesTagNS): void {
  if (tag.name.length > limits.maxName) {
    throw new XmlError(`an element name is longer than ${limits.maxName} characters`);
  }
  if (stack.length >= limits.maxDepth) {
    throw new XmlError(`elements are nested deeper than ${limits.maxDepth} levels`);
  }
  if (++elements > limits.maxElements) {
    throw new XmlError(`the document has more than ${limits.maxElements} elements`);
  }
  let attributes = NO_ATTRIBUTES;
  let count = 0;
  // saxes keeps the attributes in a null-prototype object keyed by qualified name.
  for (const name in tag.attributes) {
    const attribute = tag.attributes[name] as SaxesAttributeNS;
    if (++count > limits.maxAttributes) {
      throw new XmlError(`an element has more than ${limits.maxAttributes} attributes`);
    }
    if (name.length > limits.maxName) {
      throw new XmlError(`an attribute name is longer than ${limits.maxName} characters`);
    }
    if (attribute.value.length > limits.maxText) {
      throw new XmlError(`an attribute value is longer than ${limits.maxText} characters`);
    }
    const uri = attribute.uri;
    if (uri === XMLNS_NS) continue;
    if (attributes === NO_ATTRIBUTES) attributes = new Map<string, string>();
    (attributes as Map<string, string>).set(
      uri ? `{${uri}}${attribute.local}` : attribute.local,
      attribute.value,
    );
  }
  const element: XmlElement = {
    ns: tag.uri ?? "",
    local: tag.local ?? tag.name,
    attributes,
    children: [],
    text: "",
  };
  const parent = stack[stack.length - 1];
  if (parent) parent.children.push(element);
  else root = element;
  stack.push(element);
}

function onCloseTag(): void {
  stack.pop();
}

function onText(data: string): void {
  const top = stack[stack.length - 1];
  if (!top) return; // whitespace around the root element
  if (top.text.length + data.length > limits.maxText) {
    throw new XmlError(`a text is longer than ${limits.maxText} characters`);
  }
  top.text += data;
}

/** Parses `text` into its root element, or throws `XmlError`. */
export function parseXml(text: string, parseLimits: XmlLimits = SOAP_XML_LIMITS): XmlElement {
  const parser = shared ?? createParser();
  shared = undefined; // taken: a parse that throws must not hand a dirty parser on
  limits = parseLimits;
  stack = [];
  root = undefined;
  elements = 0;
  try {
    parser.write(text).close();
  } catch (error) {
    if (error instanceof XmlError) throw error;
    throw new XmlError(cleanMessage(error instanceof Error ? error.message : String(error)));
  } finally {
    stack = [];
  }
  // The document ended well-formed, and saxes reset the parser for the next one.
  shared = parser;
  const result = root;
  root = undefined;
  if (!result) throw new XmlError("the document has no root element");
  return result;
}

/** saxes prefixes messages with a position and may quote input; keep a short message. */
function cleanMessage(message: string): string {
  const text = message.replace(/^[^:]*:\d+:\d+: /, "").replace(/^\d+:\d+: /, "");
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
