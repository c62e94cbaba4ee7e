/**
 * The SOAP 1.1 envelope codec: reading a request envelope into an operation call, and
 * writing responses and faults byte for byte as JAX-WS RI 2.3 does.
 */
import {
  complexType,
  type Field,
  type OperationDescription,
  type ServiceDescription,
} from "./description.ts";
import { escapeAttribute, escapeText } from "./xml_writer.ts";
import type { XmlElement } from "./xml.ts";

/** The SOAP 1.1 envelope namespace. */
export const SOAP11_NS = "http://schemas.xmlsoap.org/soap/envelope/";
/** The SOAP 1.2 envelope namespace (a VersionMismatch here). */
export const SOAP12_NS = "http://www.w3.org/2003/05/soap-envelope";
const XSI_NS = "http://www.w3.org/2001/XMLSchema-instance";

/** A decoded value: what an XSD type reads to. A non-integer `int` reads as NaN. */
export type SoapValue = string | number | boolean | null | { [field: string]: SoapValue };

/** The fault codes this server sends. */
export type FaultCode = "Client" | "Server" | "VersionMismatch" | "MustUnderstand";

/** A failure that is answered with a SOAP fault. */
export class SoapFault extends Error {
  override name = "SoapFault";
  readonly code: FaultCode;

  constructor(code: FaultCode, message: string) {
    super(message);
    this.code = code;
  }
}

/** A request envelope decoded into the operation it calls and its `arg0`. */
export interface DecodedCall {
  operation: OperationDescription;
  arg0: SoapValue;
}

/** Reads an envelope for `service` in `namespace`, or throws `SoapFault`. */
export function decodeRequest(
  root: XmlElement,
  service: ServiceDescription,
  namespace: string,
): DecodedCall {
  if (root.local !== "Envelope") {
    throw new SoapFault(
      "Client",
      `Cannot read SOAP message: the root element is ${qname(root)}, not a SOAP Envelope`,
    );
  }
  if (root.ns !== SOAP11_NS) {
    throw new SoapFault(
      "VersionMismatch",
      `Couldn't create SOAP message. Expecting Envelope in namespace ${SOAP11_NS}, but got ${root.ns} `,
    );
  }
  let body: XmlElement | undefined;
  for (const child of root.children) {
    if (child.ns === SOAP11_NS && child.local === "Header" && !body) {
      checkHeaders(child);
    } else if (child.ns === SOAP11_NS && child.local === "Body" && !body) {
      body = child;
    } else {
      throw new SoapFault(
        "Client",
        `Cannot read SOAP message: unexpected element ${qname(child)} in the Envelope`,
      );
    }
  }
  if (!body) throw new SoapFault("Client", "Cannot read SOAP message: the Envelope has no Body");
  const payload = body.children[0];
  if (!payload) {
    throw new SoapFault("Client", "Cannot find dispatch method: the Body is empty");
  }
  const operation = payload.ns === namespace
    ? service.operations.find((op) => op.name === payload.local)
    : undefined;
  if (!operation) {
    // The reference writes the braces even around no namespace: `{}getHelloWorld`.
    throw new SoapFault(
      "Client",
      `Cannot find dispatch method for {${payload.ns}}${payload.local}`,
    );
  }
  return { operation, arg0: decodeField(service, payload, operation.input) };
}

function checkHeaders(header: XmlElement): void {
  const blocks = header.children.filter((block) => {
    const flag = block.attributes.get(`{${SOAP11_NS}}mustUnderstand`)?.trim();
    return flag === "1" || flag === "true";
  });
  if (blocks.length > 0) {
    throw new SoapFault(
      "MustUnderstand",
      `MustUnderstand headers:[${blocks.map(qname).join(", ")}] are not understood`,
    );
  }
}

/** Java's QName.toString(): `{ns}local`, or just `local` in no namespace. */
function qname(element: XmlElement): string {
  return element.ns ? `{${element.ns}}${element.local}` : element.local;
}

/** Reads the unqualified child `field` of `parent`; absent, qualified or nil reads as null. */
function decodeField(service: ServiceDescription, parent: XmlElement, field: Field): SoapValue {
  const element = parent.children.find((c) => c.ns === "" && c.local === field.name);
  if (!element) return null;
  const nil = element.attributes.get(`{${XSI_NS}}nil`)?.trim();
  if (nil === "true" || nil === "1") return null;
  const type = field.type;
  if (typeof type === "object") {
    const result: { [field: string]: SoapValue } = {};
    for (const child of complexType(service, type.complex).fields) {
      result[child.name] = decodeField(service, element, child);
    }
    return result;
  }
  switch (type) {
    case "string":
      return element.text;
    case "int":
      return decodeInt(element.text);
    case "double":
      return decodeDouble(element.text);
    case "boolean":
      return decodeBoolean(element.text, field.name);
  }
}

/**
 * An `xs:int` (optional sign, digits; whitespace around it collapsed by the schema), or NaN.
 * Leading zeros do not count: the value decides. More than ten significant digits is out of
 * range whatever they are, so Number() only ever sees a short string. (The parser bounds
 * the text, so the pattern's work is bounded too.)
 */
function decodeInt(text: string): number {
  // Character classes that cannot overlap: the pattern never backtracks more than linearly.
  const match = /^[ \t\r\n]*([+-]?)(\d+)[ \t\r\n]*$/.exec(text);
  if (!match) return NaN;
  const digits = match[2]!;
  let first = 0;
  while (first < digits.length - 1 && digits.charCodeAt(first) === 0x30) first++;
  return digits.length - first > 10 ? NaN : Number(match[1]! + digits.slice(first));
}

function decodeDouble(text: string): number {
  const trimmed = text.trim();
  if (trimmed === "INF") return Infinity;
  if (trimmed === "-INF") return -Infinity;
  return /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(trimmed) ? Number(trimmed) : NaN;
}

function decodeBoolean(text: string, name: string): boolean {
  const trimmed = text.trim();
  if (trimmed === "true" || trimmed === "1") return true;
  if (trimmed === "false" || trimmed === "0") return false;
  throw new SoapFault(
    "Client",
    `Cannot read SOAP message: ${name} must be true or false`,
  );
}

const ENVELOPE_START =
  `<?xml version='1.0' encoding='UTF-8'?><S:Envelope xmlns:S="${SOAP11_NS}"><S:Body>`;
const ENVELOPE_END = "</S:Body></S:Envelope>";

/** The response envelope of `operation` returning `value`. */
export function encodeResponse(
  service: ServiceDescription,
  operation: OperationDescription,
  namespace: string,
  value: SoapValue,
): string {
  return responseEncoder(service, operation, namespace)(value);
}

/**
 * The encoder of `operation`'s response envelopes: what does not depend on the value (the
 * envelope around it, the complex types of its fields) is worked out once.
 */
export function responseEncoder(
  service: ServiceDescription,
  operation: OperationDescription,
  namespace: string,
): (value: SoapValue) => string {
  const name = `${operation.name}Response`;
  const start = `${ENVELOPE_START}<ns2:${name} xmlns:ns2="${escapeAttribute(namespace)}">`;
  const end = `</ns2:${name}>${ENVELOPE_END}`;
  const encodeReturn = fieldEncoder(service, operation.output);
  return (value) => start + encodeReturn(value) + end;
}

type FieldEncoder = (value: SoapValue) => string;

function fieldEncoder(service: ServiceDescription, field: Field): FieldEncoder {
  const open = `<${field.name}>`;
  const close = `</${field.name}>`;
  const type = field.type;
  if (typeof type === "object") {
    const fields = complexType(service, type.complex).fields.map((f) => ({
      name: f.name,
      encode: fieldEncoder(service, f),
    }));
    return (value) => {
      if (value === null) return "";
      if (typeof value !== "object") throw new TypeError(`${field.name} must be an object`);
      let content = "";
      for (const f of fields) content += f.encode(value[f.name] ?? null);
      return open + content + close;
    };
  }
  if (type === "double") {
    return (value) => value === null ? "" : open + formatDouble(value as number) + close;
  }
  return (value) => value === null ? "" : open + escapeText(String(value)) + close;
}

/** Java's Double.toString for the values this service sends: `3.5`, `0.0`, `700.0`. */
export function formatDouble(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value > 0 ? "Infinity" : "-Infinity";
  return Number.isInteger(value) && Math.abs(value) < 1e7 ? value.toFixed(1) : String(value);
}

/** The fault envelope, with the unused `ns4` declaration the reference writes. */
export function encodeFault(code: FaultCode, message: string): string {
  return `${ENVELOPE_START}<S:Fault xmlns:ns4="${SOAP12_NS}"><faultcode>S:${code}</faultcode>` +
    `<faultstring>${escapeText(message)}</faultstring></S:Fault>${ENVELOPE_END}`;
}
