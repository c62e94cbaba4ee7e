/**
 * What both XML readers share (`xml.ts`, with saxes, and `quick_xml.ts`): the tree they give
 * and the limits a document is read within.
 */

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

/** The attributes of every element that has none (never written to). */
export const NO_ATTRIBUTES: ReadonlyMap<string, string> = new Map();

/** The namespace of namespace declarations (`xmlns`, `xmlns:p`). */
export const XMLNS_NS = "http://www.w3.org/2000/xmlns/";

/** Parser limits. */
export interface XmlLimits {
  maxDepth: number;
  maxName: number;
  /**
   * Longest text of an element (its character data and CDATA sections together), attribute
   * value, comment or reference, in UTF-16 code units.
   */
  maxText: number;
  maxElements: number;
  /**
   * Most comments and CDATA sections in a document, together. With the elements, this
   * bounds the texts too: a text lies between two of these or two tags.
   */
  maxSections: number;
  /** Most entity and character references (`&amp;`, `&#x41;`) in a document. */
  maxReferences: number;
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
  maxSections: 1_000,
  maxReferences: 20_000,
  maxAttributes: 64,
  maxDocumentAttributes: 1024,
};
