/**
 * Hardened, namespace-aware XML reading for SOAP envelopes (saxes with `xmlns: true`).
 *
 * Refused: any DOCTYPE (so no entity can ever be declared or expanded), processing
 * instructions other than the XML declaration, undefined entities, and anything malformed
 * or truncated; past the `XmlLimits`: deep nesting, long names, long texts, attribute
 * values, comments or references, and too many elements, attributes, comments and CDATA
 * sections, or references. Nothing is fetched.
 *
 * Every limit stops the parse as soon as it is crossed, whatever the shape of the input.
 * A limit on a count is checked by the handler of each thing counted. A limit on a length
 * is checked by the handlers too, but cannot wait for them: saxes gathers a whole token (a
 * start tag's name, an attribute, a text, a comment) before it reports it, so a 1 MiB token
 * would be read whole first. So
 * a document longer than `FEED_CHARS` is given to saxes in stretches of that many
 * characters, and between two stretches the token saxes is in the middle of is checked
 * (`checkToken`): a parse goes at most `FEED_CHARS` characters past the point where a
 * limit was crossed. Short documents (every real envelope) are parsed in one call.
 *
 * `parseXml` reuses one saxes parser from document to document: saxes resets itself at
 * the end of every well-formed document (`close()`); after a failed parse the parser is in
 * the middle of a document, so it is dropped and the next parse gets a new one. An
 * `XmlPieceReader` (a body read as it arrives) has a parser of its own. The handlers are
 * installed once, and read the document being parsed from this module (`doc`), which is
 * set around every synchronous `write`.
 */
import { type SaxesAttributeNS, SaxesParser, type SaxesTagNS } from "saxes";
import { quickParse } from "./quick_xml.ts";
import {
  NO_ATTRIBUTES,
  SOAP_XML_LIMITS,
  type XmlElement,
  type XmlLimits,
  XMLNS_NS,
} from "./xml_element.ts";

export { SOAP_XML_LIMITS, type XmlElement, type XmlLimits } from "./xml_element.ts";

/** Why an XML document was refused; `message` is safe to show a client. */
export class XmlError extends Error {
  override name = "XmlError";
}

/**
 * A document longer than this is given to saxes in stretches of this many characters, with
 * the token in progress checked in between: no parse reads more than this past a crossed
 * limit. (saxes reads a stretch of the costliest shape in well under a millisecond;
 * envelopes are shorter than one.)
 */
export const FEED_CHARS = 4096;

/** What is known of one document while it is parsed. */
interface ParseState {
  limits: XmlLimits;
  stack: XmlElement[];
  root: XmlElement | undefined;
  elements: number;
  sections: number;
  references: number;
  attributes: number;
  /** Attributes of the start tag being read (saxes reports each before the tag). */
  tagAttributes: number;
}

function newDocument(limits: XmlLimits): ParseState {
  return {
    limits,
    stack: [],
    root: undefined,
    elements: 0,
    sections: 0,
    references: 0,
    attributes: 0,
    tagAttributes: 0,
  };
}

function resetDocument(document: ParseState, limits: XmlLimits): ParseState {
  document.limits = limits;
  document.stack = [];
  document.root = undefined;
  document.elements = 0;
  document.sections = 0;
  document.references = 0;
  document.attributes = 0;
  document.tagAttributes = 0;
  return document;
}

/** The document of `parseXml`, which parses one document at a time from start to end. */
const SHARED_DOCUMENT = newDocument(SOAP_XML_LIMITS);

/**
 * The document whose parser is running. The handlers are shared by every parser and read
 * it from here; it is set around each synchronous `write`, so documents read as their
 * bodies arrive, in turns, never see each other's.
 */
let doc: ParseState = newDocument(SOAP_XML_LIMITS);
/** `doc` between parses, so that no finished tree is kept alive by it. */
const IDLE = doc;

type Parser = SaxesParser<{ xmlns: true; position: false }>;

/** The reusable parser; undefined until first use and after a failed parse. */
let shared: Parser | undefined;

function createParser(): Parser {
  const parser = new SaxesParser({ xmlns: true, position: false });
  // saxes stores each handler in a property that `on()` adds under a computed name, and V8
  // turns an object that gains a seventh property that way into a slow dictionary object
  // (parsing then took three times as long). Added first by plain assignments, the same
  // properties keep the parser a fast object, however many handlers there are.
  const slots = parser as unknown as Record<string, unknown>;
  slots.doctypeHandler = undefined;
  slots.piHandler = undefined;
  slots.attributeHandler = undefined;
  slots.openTagHandler = undefined;
  slots.closeTagHandler = undefined;
  slots.textHandler = undefined;
  slots.cdataHandler = undefined;
  slots.commentHandler = undefined;
  // saxes has no event for a reference: its own method that resolves one is wrapped.
  slots.parseEntity = parseCountedReference;
  parser.on("doctype", onDoctype);
  parser.on("processinginstruction", onProcessingInstruction);
  parser.on("attribute", onAttribute);
  parser.on("opentag", onOpenTag);
  parser.on("closetag", onCloseTag);
  parser.on("text", onText);
  parser.on("cdata", onCData);
  parser.on("comment", onComment);
  // No "error" handler: saxes then throws its error from `write`/`close`.
  return parser;
}

const parseReference = (SaxesParser.prototype as unknown as {
  parseEntity: (this: Parser, entity: string) => string;
}).parseEntity;

function parseCountedReference(this: Parser, entity: string): string {
  if (++doc.references > doc.limits.maxReferences) {
    throw new XmlError(`the document has more than ${doc.limits.maxReferences} references`);
  }
  return parseReference.call(this, entity);
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

function onAttribute(attribute: { name: string; value: string }): void {
  if (++doc.tagAttributes > doc.limits.maxAttributes) {
    throw new XmlError(`an element has more than ${doc.limits.maxAttributes} attributes`);
  }
  if (++doc.attributes > doc.limits.maxDocumentAttributes) {
    throw new XmlError(`the document has more than ${doc.limits.maxDocumentAttributes} attributes`);
  }
  if (attribute.name.length > doc.limits.maxName) {
    throw tooLong("an attribute name", doc.limits.maxName);
  }
  if (attribute.value.length > doc.limits.maxText) {
    throw tooLong("an attribute value", doc.limits.maxText);
  }
}

function onOpenTag(tag: SaxesTagNS): void {
  doc.tagAttributes = 0;
  if (tag.name.length > doc.limits.maxName) throw tooLong("an element name", doc.limits.maxName);
  if (doc.stack.length >= doc.limits.maxDepth) {
    throw new XmlError(`elements are nested deeper than ${doc.limits.maxDepth} levels`);
  }
  if (++doc.elements > doc.limits.maxElements) {
    throw new XmlError(`the document has more than ${doc.limits.maxElements} elements`);
  }
  // Every attribute passed `onAttribute`. saxes keeps them in a null-prototype object keyed
  // by qualified name.
  let map = NO_ATTRIBUTES;
  for (const name in tag.attributes) {
    const attribute = tag.attributes[name] as SaxesAttributeNS;
    const uri = attribute.uri;
    if (uri === XMLNS_NS) continue;
    if (map === NO_ATTRIBUTES) map = new Map<string, string>();
    (map as Map<string, string>).set(
      uri ? `{${uri}}${attribute.local}` : attribute.local,
      attribute.value,
    );
  }
  const element: XmlElement = {
    ns: tag.uri ?? "",
    local: tag.local ?? tag.name,
    attributes: map,
    children: [],
    text: "",
  };
  const parent = doc.stack[doc.stack.length - 1];
  if (parent) parent.children.push(element);
  else doc.root = element;
  doc.stack.push(element);
}

function onCloseTag(): void {
  doc.stack.pop();
}

function onText(data: string): void {
  const top = doc.stack[doc.stack.length - 1];
  if (!top) return; // whitespace around the root element
  if (top.text.length + data.length > doc.limits.maxText) {
    throw tooLong("a text", doc.limits.maxText);
  }
  top.text += data;
}

function onCData(data: string): void {
  countSection();
  onText(data);
}

function onComment(text: string): void {
  countSection();
  if (text.length > doc.limits.maxText) throw tooLong("a comment", doc.limits.maxText);
}

function countSection(): void {
  if (++doc.sections > doc.limits.maxSections) {
    throw new XmlError(
      `the document has more than ${doc.limits.maxSections} comments and CDATA sections`,
    );
  }
}

function tooLong(what: string, limit: number): XmlError {
  return new XmlError(`${what} is longer than ${limit} characters`);
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
  /** In a reference, the state to return to after it. */
  entityReturnState: number | undefined;
  /** The element or attribute name being read (or, in an attribute value, just read). */
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
/** States whose text joins the current element's text. */
const TEXT_STATES = saxesStates("sText", "sCData", "sCDataEnding", "sCDataEnding2");
const ENTITY_STATE = saxesStates("sEntity");

/**
 * Throws the `XmlError` of a limit that the token saxes is in the middle of has crossed,
 * if any: what the handlers check once a token is complete, checked on its start. (A
 * reference or the XML declaration has no handler: only this bounds them.)
 */
function checkToken(parser: Parser): void {
  const token = parser as unknown as SaxesToken;
  let state = token.stateTable[token.state];
  if (DOCTYPE_STATES.has(state)) throw doctypeError();
  if (PI_BODY_STATES.has(state)) throw processingInstructionError(token.piTarget);
  // Only "xml" (the declaration) may follow "<?": a longer target is a PI.
  if (PI_TARGET_STATES.has(state) && token.piTarget.length > 3) {
    throw processingInstructionError(token.piTarget);
  }
  if (token.name.length > doc.limits.maxName) {
    const what = ELEMENT_NAME_STATES.has(state)
      ? "an element name"
      : XML_DECLARATION_STATES.has(state)
      ? "a name in the XML declaration"
      : "an attribute name";
    throw tooLong(what, doc.limits.maxName);
  }
  if (token.entity.length > doc.limits.maxText) throw tooLong("a reference", doc.limits.maxText);
  // A reference in a text or attribute value is part of the text it returns to.
  if (ENTITY_STATE.has(state) && token.entityReturnState !== undefined) {
    state = token.stateTable[token.entityReturnState];
  }
  let length = token.text.length;
  if (TEXT_STATES.has(state)) length += doc.stack[doc.stack.length - 1]?.text.length ?? 0;
  if (length > doc.limits.maxText) {
    const what = ATTRIBUTE_VALUE_STATES.has(state)
      ? "an attribute value"
      : COMMENT_STATES.has(state)
      ? "a comment"
      : XML_DECLARATION_STATES.has(state)
      ? "the XML declaration"
      : "a text";
    throw tooLong(what, doc.limits.maxText);
  }
}

/**
 * Writes `text` to `parser` for the current document in stretches of `FEED_CHARS`, checking
 * the token in progress after each.
 */
function feed(parser: Parser, text: string): void {
  for (let start = 0; start < text.length; start += FEED_CHARS) {
    // saxes carries a stretch's trailing CR or lone high surrogate over to the next.
    parser.write(text.slice(start, start + FEED_CHARS));
    checkToken(parser);
  }
}

/** `error` from saxes or a handler as an `XmlError`. */
function asXmlError(error: unknown): XmlError {
  if (error instanceof XmlError) return error;
  return new XmlError(cleanMessage(error instanceof Error ? error.message : String(error)));
}

/** The root element of the document that just ended, or the error for none. */
function rootOf(document: ParseState): XmlElement {
  if (!document.root) throw new XmlError("the document has no root element");
  return document.root;
}

/**
 * Parses `text` into its root element, or throws `XmlError`. An envelope as clients send it
 * is read by `quickParse`, which gives the same tree; anything else by saxes.
 */
export function parseXml(text: string, limits: XmlLimits = SOAP_XML_LIMITS): XmlElement {
  if (limits === SOAP_XML_LIMITS) {
    const quick = quickParse(text);
    if (quick !== null) return quick;
  }
  return parseWithSaxes(text, limits);
}

/** `parseXml` without the quick reader: every document through saxes. */
export function parseWithSaxes(text: string, limits: XmlLimits = SOAP_XML_LIMITS): XmlElement {
  const parser = shared ?? createParser();
  shared = undefined; // taken: a parse that throws must not hand a dirty parser on
  // One document object serves every parse here, reset rather than allocated.
  const document = doc = resetDocument(SHARED_DOCUMENT, limits);
  let root: XmlElement | undefined;
  try {
    if (text.length <= FEED_CHARS) parser.write(text);
    else feed(parser, text);
    parser.close();
    root = document.root;
  } catch (error) {
    throw asXmlError(error);
  } finally {
    // Keep nothing of this document alive.
    doc = IDLE;
    document.stack = [];
    document.root = undefined;
  }
  // The document ended well-formed, and saxes reset the parser for the next one.
  shared = parser;
  if (!root) throw new XmlError("the document has no root element");
  return root;
}

/**
 * A document read in pieces as they arrive (a long request body): `write` each piece, then
 * `end`. Each throws `XmlError` as soon as a limit is crossed (within `FEED_CHARS` of it),
 * so the rest of the body need not be read. Other parses may run between two pieces: each
 * reader has its own saxes parser and document.
 */
export class XmlPieceReader {
  #parser: Parser = createParser();
  #document: ParseState;
  #failed = false;

  constructor(limits: XmlLimits = SOAP_XML_LIMITS) {
    this.#document = newDocument(limits);
  }

  /** Reads the next piece of the document. */
  write(text: string): void {
    this.#run(() => feed(this.#parser, text));
  }

  /** Ends the document and returns its root element. */
  end(): XmlElement {
    this.#run(() => this.#parser.close());
    return rootOf(this.#document);
  }

  #run(step: () => void): void {
    if (this.#failed) throw new XmlError("the document was already refused");
    doc = this.#document;
    try {
      step();
    } catch (error) {
      this.#failed = true;
      throw asXmlError(error);
    } finally {
      doc = IDLE;
    }
  }
}

/** saxes prefixes messages with a position and may quote input; keep a short message. */
function cleanMessage(message: string): string {
  const text = message.replace(/^[^:]*:\d+:\d+: /, "").replace(/^\d+:\d+: /, "");
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
