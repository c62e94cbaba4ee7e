/**
 * Reading a request body into an XML tree: decoding it (by its byte order mark, else its
 * charset) and parsing it, with the size limit counted on the bytes received.
 *
 * A body declared short (every real envelope) is read whole, Deno's cheapest read. A longer
 * or chunked one is parsed as it arrives. The size limit wins over the content's rules: a
 * body declared over the limit is refused unread, and one whose length is not declared is
 * counted to its end even after its content was refused (a text too long, say), so that a
 * body over 1 MiB is a 413 whatever its shape. Past a refusal nothing more is decoded.
 */
import { SoapFault } from "./codec.ts";
import { isClientGone } from "./http_body.ts";
import { parseXml, type XmlElement, XmlPieceReader } from "./xml.ts";

/** Bodies declared at most this long are read whole; longer ones as they arrive. */
export const WHOLE_BODY_BYTES = 64 * 1024;

/**
 * The root element of `request`'s body (`charset`: the content type's, lower case), or
 * null when the body is longer than `maxBytes`. Throws `XmlError` or `SoapFault` (a client
 * fault) for a body that cannot be read, and what the HTTP layer throws when the client
 * goes away.
 */
export async function readEnvelope(
  request: Request,
  charset: string,
  maxBytes: number,
): Promise<XmlElement | null> {
  const length = declaredLength(request);
  if (length !== null && length > maxBytes) {
    await request.body?.cancel();
    return null;
  }
  if (length !== null && length <= WHOLE_BODY_BYTES) {
    // The HTTP layer holds the body to its declared length.
    return parseXml(decode(await request.bytes(), charset));
  }
  // A declared length within the limit is held to by the HTTP layer: the size rule is met,
  // and a refusal needs no count of the rest.
  return await readInPieces(request, charset, maxBytes, length === null);
}

/** The declared Content-Length, or null (none, not a length, or a Transfer-Encoding). */
function declaredLength(request: Request): number | null {
  const declared = request.headers.get("content-length");
  if (declared === null || request.headers.get("transfer-encoding") !== null) return null;
  const length = Number(declared);
  return Number.isSafeInteger(length) && length >= 0 ? length : null;
}

async function readInPieces(
  request: Request,
  charset: string,
  maxBytes: number,
  countAfterRefusal: boolean,
): Promise<XmlElement | null> {
  if (!request.body) return parseXml(decode(new Uint8Array(0), charset));
  const reader = request.body.getReader();
  const xml = new XmlPieceReader();
  let size = 0;
  let decoder: TextDecoder | null = null;
  /** The first bytes, held until they show whether a byte order mark starts the body. */
  let start: Uint8Array = new Uint8Array(0);
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel();
        return null;
      }
      let bytes: Uint8Array = value;
      if (decoder === null) {
        bytes = concat(start, value);
        if (bytes.byteLength < 3) {
          start = bytes;
          continue;
        }
        decoder = decoderFor(bytes, charset);
      }
      xml.write(decodePiece(decoder, bytes, true));
    }
    // A body of fewer than three bytes is still held; the last call, without `stream`,
    // also refuses a sequence cut off at the end.
    const last = decoder === null ? start : new Uint8Array(0);
    decoder ??= decoderFor(start, charset);
    xml.write(decodePiece(decoder, last, false));
    return xml.end();
  } catch (error) {
    if (isClientGone(error)) throw error; // nobody is left to answer, nor anything to drain
    // The size rule wins over every rule about the content: a body of undeclared length
    // refused for its content is still counted to its end, and one that passes the limit
    // meanwhile is a 413. Only the count is kept, nothing is decoded. Otherwise the HTTP
    // layer drains the rest (the client can still read the answer).
    if (countAfterRefusal && await countPast(reader, maxBytes - size)) return null;
    if (!countAfterRefusal) await reader.cancel().catch(() => {});
    throw error;
  }
}

/**
 * Reads the rest of a body, keeping only its length: true (and the read cancelled) once more
 * than `left` bytes came, false when it ended within them. A client that goes away meanwhile
 * ends it too (false: the refusal already decided stands, and nobody reads it).
 */
async function countPast(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  left: number,
): Promise<boolean> {
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) return false;
      left -= value.byteLength;
      if (left < 0) {
        await reader.cancel().catch(() => {});
        return true;
      }
    }
  } catch (error) {
    if (isClientGone(error)) return false;
    throw error;
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.byteLength === 0) return b;
  const joined = new Uint8Array(a.byteLength + b.byteLength);
  joined.set(a);
  joined.set(b, a.byteLength);
  return joined;
}

/** A strict UTF-8 decoder; without `stream` a decoder keeps no state between calls. */
const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** Decodes a whole body strictly (see `encodingOf`). */
export function decode(bytes: Uint8Array, charset: string): string {
  const encoding = encodingOf(bytes, charset);
  return decodePiece(encoding === "utf-8" ? UTF8 : newDecoder(encoding, charset), bytes, false);
}

/** A decoder for a body that starts with `bytes` (see `encodingOf`). */
function decoderFor(bytes: Uint8Array, charset: string): TextDecoder {
  return newDecoder(encodingOf(bytes, charset), charset);
}

/**
 * A byte order mark decides the encoding whatever the charset parameter says (as the
 * reference does, and as XML 1.0 appendix F has it): FE FF is UTF-16BE, FF FE UTF-16LE,
 * EF BB BF UTF-8. Without one, `utf-16` is big-endian (RFC 2781, and what Java writes; the
 * WHATWG label would mean little-endian).
 */
function encodingOf(bytes: Uint8Array, charset: string): string {
  return byteOrderMark(bytes) ?? (charset === "utf-16" ? "utf-16be" : charset);
}

/** The encoding named by the byte order mark `bytes` start with, or null. */
function byteOrderMark(bytes: Uint8Array): string | null {
  const first = bytes[0];
  if (first === 0xfe) return bytes[1] === 0xff ? "utf-16be" : null;
  if (first === 0xff) return bytes[1] === 0xfe ? "utf-16le" : null;
  if (first === 0xef) return bytes[1] === 0xbb && bytes[2] === 0xbf ? "utf-8" : null;
  return null;
}

function newDecoder(encoding: string, charset: string): TextDecoder {
  try {
    return new TextDecoder(encoding, { fatal: true });
  } catch {
    throw new SoapFault(
      "Client",
      `Cannot read SOAP message: unsupported charset ${JSON.stringify(charset.slice(0, 40))}`,
    );
  }
}

/** `bytes` decoded strictly; the decoder drops the byte order mark of its own encoding. */
function decodePiece(decoder: TextDecoder, bytes: Uint8Array, stream: boolean): string {
  try {
    return decoder.decode(bytes, { stream });
  } catch {
    throw new SoapFault(
      "Client",
      `Cannot read SOAP message: the body is not valid ${decoder.encoding}`,
    );
  }
}
