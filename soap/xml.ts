/**
 * Hardened, namespace-aware XML reading for SOAP envelopes (saxes with `xmlns: true`).
 *
 * Refused: any DOCTYPE (so no entity can ever be declared or expanded), processing
 * instructions other than the XML declaration, undefined entities, nesting deeper than
 * `maxDepth`, names longer than `maxName`, texts, comments and attribute values longer
 * than `maxText`, too many elements or attributes, and anything malformed or truncated.
 * Nothing is fetched.
 *
 * Every limit stops the parse as soon as it is crossed, whatever the shape of the input.
 * saxes gathers a whole token (a start tag with all its attributes, a text, a comment)
 * before it calls a handler, so a handler alone would see a 1 MiB start tag only after
 * saxes had read all of it (95,000 attributes took a quarter of a second). So a document
 * longer than `FEED_CHARS` is given to saxes in stretches of that many characters, and
 * between two stretches the token saxes is in the middle of is checked against the limits
 * (`checkToken`): a parse goes at most `FEED_CHARS` characters past the point where a limit
 * was crossed. Short documents (every real envelope) are parsed in one call, as before.
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
  /** Longest text of an element, attribute value or comment, in UTF-16 code units. */
  maxText: number;
  maxElements: number;
  /** Most attributes (namespace declarations included) on one element. */
  maxAttributes: number;
  /** Most attributes (namespace declarations included) in the whole document. */
  maxDocumentAttributes: number;
}

/** The limits the SOAP endpoints use. */
export const SOAP_XML_LIMITS: XmlLimits = {
  maxDepth: 32,
  maxName: 256,
  maxText: 64 * 1024,
  maxElements: 10_000,
  maxAttributes: 64,
  maxDocumentAttributes: 1024,
};

/**
 * A document longer than this is given to saxes in stretches of this many characters, with
 * the limits checked in between: no parse reads more than this past a crossed limit. (A
 * stretch of the costliest shape takes saxes well under a millisecond; envelopes are
 * shorter than one.)
 */
export const FEED_CHARS = 4096;

/** The attributes of every element that has none (never written to). */
const NO_ATTRIBUTES: ReadonlyMap<string, string> = new Map();
const XMLNS_NS = "http://www.w3.org/2000/xmlns/";

// The document being parsed; only meaningful during a `parseXml` call.
let limits: XmlLimits = SOAP_XML_LIMITS;
let stack: XmlElement[] = [];
let root: XmlElement | undefined;
let elements = 0;
let attributesSeen = 0;

type Parser = SaxesParser<{ xmlns: true; position: false }>;

/** The reusable parser; undefined until first use and after a failed parse. */
let shared: Parser | undefined;

function createParser(): Parser {
  const parser = new SaxesParser({ xmlns: true, position: false });
  // Six handlers at most: saxes stores each one as a new property of the parser, and V8
  // turns an object that gains more properties this way into a slow dictionary object
  // (with the seventh, parsing took three times as long). So the checks saxes offers
  // separate events for (the start of a tag, each attribute) are made in "opentag", and
  // between stretches of a long document by `checkToken`.
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
  throw doctypeError();
}

function doctypeError(): XmlError {
  return new XmlError("a DOCTYPE is not allowed");
}

function onProcessingInstruction(pi: { target: string }): void {
  throw processingInstructionError(pi.target);
}

function processingInstructionError(target: string): XmlError {
  return new XmlError(`the processing instruction <?${target.slice(0, 32)}?> is not allowed`);
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
    if (++count > limits.maxAttributes) throw tooManyAttributes();
    if (++attributesSeen > limits.maxDocumentAttributes) throw tooManyDocumentAttributes();
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

function tooManyAttributes(): XmlError {
  return new XmlError(`an element has more than ${limits.maxAttributes} attributes`);
}

function tooManyDocumentAttributes(): XmlError {
  return new XmlError(`the document has more than ${limits.maxDocumentAttributes} attributes`);
}

function onCloseTag(): void {
  stack.pop();
}

function onText(data: string): void {
  const top = stack[stack.length - 1];
  if (!top) return; // whitespace around the root element
  if (top.text.length + data.length > limits.maxText) throw textTooLong();
  top.text += data;
}

function textTooLong(): XmlError {
  return new XmlError(`a text is longer than ${limits.maxText} characters`);
}

// ---------------------------------------------------------------------------------------
// Checks between stretches of a long document

/**
 * What saxes (6.0.0, pinned in deno.lock) keeps of the token it is reading: private in its
 * types, so read through this view. `state` indexes `stateTable`, which holds the methods
 * of `SaxesParser.prototype` named below.
 */
interface SaxesToken {
  state: number;
  stateTable: readonly unknown[];
  entityReturnState: number | undefined;
  /** The attributes of the start tag being read. */
  attribList: readonly unknown[];
  /** The element or attribute name being read (or just read). */
  name: string;
  /** The text, attribute value, comment, CDATA section, PI or DOCTYPE being read. */
  text: string;
  /** The entity or character reference being read, without `&` and `;`. */
  entity: string;
  piTarget: string;
}

/** The state methods of saxes named `names` (a missing one is a different saxes). */
function saxesStates(...names: string[]): ReadonlySet<unknown> {
  const prototype = SaxesParser.prototype as unknown as Record<string, unknown>;
  return new Set(names.map((name) => {
    const method = prototype[name];
    if (typeof method !== "function") throw new Error(`saxes has no state ${name}`);
    return method;
  }));
}

const DOCTYPE_STATES = saxesStates(
  "sDoctype",
  "sDoctypeQuote",
  "sDTD",
  "sDTDQuoted",
  "sDTDOpenWaka",
  "sDTDOpenWakaBang",
  "sDTDComment",
  "sDTDCommentEnding",
  "sDTDCommentEnded",
  "sDTDPI",
  "sDTDPIEnding",
);
const PI_TARGET_STATES = saxesStates("sPIFirstChar", "sPIRest");
const PI_BODY_STATES = saxesStates("sPIBody", "sPIEnding");
const XML_DECLARATION_STATES = saxesStates(
  "sXMLDeclNameStart",
  "sXMLDeclName",
  "sXMLDeclEq",
  "sXMLDeclValueStart",
  "sXMLDeclValue",
  "sXMLDeclSeparator",
  "sXMLDeclEnding",
);
const ELEMENT_NAME_STATES = saxesStates("sOpenTag", "sCloseTag", "sCloseTagSawWhite");
const ATTRIBUTE_VALUE_STATES = saxesStates("sAttribValueQuoted", "sAttribValueUnquoted");
const COMMENT_STATES = saxesStates("sComment", "sCommentEnding", "sCommentEnded");
/** States whose text goes to the current element's text (with the element's text so far). */
const TEXT_STATES = saxesStates("sText", "sCData", "sCDataEnding", "sCDataEnding2");
const ENTITY_STATE = saxesStates("sEntity");

/** Throws the `XmlError` of a limit that the token saxes is reading has crossed, if any. */
function checkToken(parser: Parser): void {
  const token = parser as unknown as SaxesToken;
  let state = token.stateTable[token.state];
  if (DOCTYPE_STATES.has(state)) throw doctypeError();
  if (PI_BODY_STATES.has(state)) throw processingInstructionError(token.piTarget);
  // Only "xml" (the declaration) may follow "<?": a longer target is a PI.
  if (PI_TARGET_STATES.has(state) && token.piTarget.length > 3) {
    throw processingInstructionError(token.piTarget);
  }
  const pending = token.attribList.length;
  if (pending > limits.maxAttributes) throw tooManyAttributes();
  if (attributesSeen + pending > limits.maxDocumentAttributes) throw tooManyDocumentAttributes();
  if (token.name.length > limits.maxName) {
    const what = ELEMENT_NAME_STATES.has(state)
      ? "an element name"
      : XML_DECLARATION_STATES.has(state)
      ? "a name in the XML declaration"
      : "an attribute name";
    throw new XmlError(`${what} is longer than ${limits.maxName} characters`);
  }
  if (token.entity.length > limits.maxText) {
    throw new XmlError(`a reference is longer than ${limits.maxText} characters`);
  }
  // A reference in a text or attribute value adds to the text of the state it returns to.
  if (ENTITY_STATE.has(state) && token.entityReturnState !== undefined) {
    state = token.stateTable[token.entityReturnState];
  }
  let length = token.text.length;
  if (TEXT_STATES.has(state)) length += stack[stack.length - 1]?.text.length ?? 0;
  if (length > limits.maxText) {
    if (TEXT_STATES.has(state)) throw textTooLong();
    const what = ATTRIBUTE_VALUE_STATES.has(state)
      ? "an attribute value"
      : COMMENT_STATES.has(state)
      ? "a comment"
      : XML_DECLARATION_STATES.has(state)
      ? "the XML declaration"
      : "a text";
    throw new XmlError(`${what} is longer than ${limits.maxText} characters`);
  }
}

/** Parses `text` into its root element, or throws `XmlError`. */
export function parseXml(text: string, parseLimits: XmlLimits = SOAP_XML_LIMITS): XmlElement {
  const parser = shared ?? createParser();
  shared = undefined; // taken: a parse that throws must not hand a dirty parser on
  limits = parseLimits;
  stack = [];
  root = undefined;
  elements = 0;
  attributesSeen = 0;
  try {
    if (text.length <= FEED_CHARS) {
      parser.write(text);
    } else {
      for (let start = 0; start < text.length; start += FEED_CHARS) {
        // saxes carries a stretch's trailing CR or lone high surrogate over to the next.
        parser.write(text.slice(start, start + FEED_CHARS));
        checkToken(parser);
      }
    }
    parser.close();
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
