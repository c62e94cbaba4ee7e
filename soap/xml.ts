/**
 * Hardened, namespace-aware XML reading for SOAP envelopes (saxes with `xmlns: true`).
 *
 * Refused: any DOCTYPE (so no entity can ever be declared or expanded), processing
 * instructions other than the XML declaration, undefined entities, nesting deeper than
 * `maxDepth`, names longer than `maxName`, texts longer than `maxText`, too many
 * elements or attributes, and anything malformed or truncated. Nothing is fetched.
 */
import { SaxesParser } from "saxes";

/** One element of the parsed tree. */
export interface XmlElement {
  /** Namespace URI, "" when in no namespace. */
  ns: string;
  local: string;
  /** Attributes keyed by `{ns}local` (just `local` when in no namespace). */
  attributes: Map<string, string>;
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

/** Parses `text` into its root element, or throws `XmlError`. */
export function parseXml(text: string, limits: XmlLimits = SOAP_XML_LIMITS): XmlElement {
  const parser = new SaxesParser({ xmlns: true, position: false });
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let elements = 0;

  const addText = (data: string) => {
    const top = stack[stack.length - 1];
    if (!top) return; // whitespace around the root element
    if (top.text.length + data.length > limits.maxText) {
      throw new XmlError(`a text is longer than ${limits.maxText} characters`);
    }
    top.text += data;
  };

  parser.on("doctype", () => {
    throw new XmlError("a DOCTYPE is not allowed");
  });
  parser.on("processinginstruction", (pi) => {
    throw new XmlError(`the processing instruction <?${pi.target.slice(0, 32)}?> is not allowed`);
  });
  parser.on("opentagstart", (tag) => {
    if (tag.name.length > limits.maxName) {
      throw new XmlError(`an element name is longer than ${limits.maxName} characters`);
    }
    if (stack.length >= limits.maxDepth) {
      throw new XmlError(`elements are nested deeper than ${limits.maxDepth} levels`);
    }
    if (++elements > limits.maxElements) {
      throw new XmlError(`the document has more than ${limits.maxElements} elements`);
    }
  });
  parser.on("attribute", (attribute) => {
    if (attribute.name.length > limits.maxName) {
      throw new XmlError(`an attribute name is longer than ${limits.maxName} characters`);
    }
    if (attribute.value.length > limits.maxText) {
      throw new XmlError(`an attribute value is longer than ${limits.maxText} characters`);
    }
  });
  parser.on("opentag", (tag) => {
    const attributes = new Map<string, string>();
    for (const attribute of Object.values(tag.attributes)) {
      if (attributes.size >= limits.maxAttributes) {
        throw new XmlError(`an element has more than ${limits.maxAttributes} attributes`);
      }
      const key = attribute.uri ? `{${attribute.uri}}${attribute.local}` : attribute.local;
      attributes.set(key, attribute.value);
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
  });
  parser.on("closetag", () => {
    stack.pop();
  });
  parser.on("text", addText);
  parser.on("cdata", addText);
  parser.on("error", (error) => {
    throw new XmlError(cleanMessage(error.message));
  });

  try {
    parser.write(text).close();
  } catch (error) {
    if (error instanceof XmlError) throw error;
    throw new XmlError(cleanMessage(error instanceof Error ? error.message : String(error)));
  }
  if (!root) throw new XmlError("the document has no root element");
  return root;
}

/** saxes prefixes messages with a position and may quote input; keep a short message. */
function cleanMessage(message: string): string {
  const text = message.replace(/^[^:]*:\d+:\d+: /, "").replace(/^\d+:\d+: /, "");
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
