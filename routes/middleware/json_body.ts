/**
 * JSON request bodies for `/api`: at most 1 MiB, enforced while reading (chunked bodies
 * too); invalid UTF-8 is rejected rather than replaced; malformed JSON is a 400 naming
 * `body`. The decoded text is handed to Hono's body cache, so validators read it once.
 * U+0000 is refused in every text, body (keys too) or query string, with a 400 naming where:
 * the database would keep it but read the text back cut short at it.
 */
import type { MiddlewareHandler } from "hono";
import { errorBody } from "../api/errors.ts";

/** Largest accepted JSON body. */
export const MAX_JSON_BYTES = 1024 * 1024;

const BODYLESS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Routes that stream a body of their own media type (keyed by method and path). */
const RAW_BODIES = new Map([["POST /api/projects/import", "application/zip"]]);

const NUL_MESSAGE = "Cannot contain the NUL character (U+0000)";

/** A path segment as validation details spell it, a NUL shown as the escape `\u0000`. */
const segment = (key: string) => key.replaceAll("\0", "\\u0000");

/** A place in a parsed body: its value, its key and the place holding it. */
interface Place {
  value: unknown;
  key: string | null;
  parent: Place | null;
}

/**
 * The path (`a.0.b`, or `body` for the whole) of the first key or string holding U+0000, in
 * document order. Iterative, with paths spelled out only for the finding: a deeply nested body
 * costs neither call stack nor quadratic time.
 */
function nulPath(value: unknown): string | null {
  const pathOf = (place: Place) => {
    const keys: string[] = [];
    for (let at = place; at.key !== null && at.parent; at = at.parent) keys.push(segment(at.key));
    return keys.length ? keys.reverse().join(".") : "body";
  };
  const stack: Place[] = [{ value, key: null, parent: null }];
  while (stack.length > 0) {
    const place = stack.pop()!;
    if (place.key?.includes("\0")) return pathOf(place);
    if (typeof place.value === "string") {
      if (place.value.includes("\0")) return pathOf(place);
    } else if (typeof place.value === "object" && place.value !== null) {
      const entries = Object.entries(place.value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i]!;
        stack.push({ value: child, key, parent: place });
      }
    }
  }
  return null;
}

/** The first query parameter whose name or value holds U+0000, or null. */
function nulQuery(url: string): string | null {
  const query = url.indexOf("?");
  if (query < 0 || !url.includes("%00", query)) return null;
  for (const [name, value] of new URLSearchParams(url.slice(query + 1))) {
    if (name.includes("\0") || value.includes("\0")) return segment(name);
  }
  return null;
}

/** Reads and checks JSON bodies; other media types with a body are 415 (multipart passes). */
export function jsonBody(): MiddlewareHandler {
  return async (c, next) => {
    const badParameter = nulQuery(c.req.url);
    if (badParameter !== null) {
      return c.json(errorBody("validation", NUL_MESSAGE, { [badParameter]: NUL_MESSAGE }), 400);
    }
    if (BODYLESS.has(c.req.method)) return await next();
    const type = (c.req.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (type === "multipart/form-data") return await next();
    if (RAW_BODIES.get(`${c.req.method} ${c.req.path}`) === type) return await next();
    const isJson = type === "application/json" || /^application\/[\w.-]+\+json$/.test(type);
    const bytes = await readBodyLimited(c.req.raw, MAX_JSON_BYTES);
    if (bytes === null) {
      return c.json(errorBody("too_large", "The request body is larger than 1 MiB"), 413);
    }
    if (bytes.byteLength === 0) {
      cacheText(c.req.bodyCache, isJson ? "{}" : "");
      return await next();
    }
    if (!isJson) {
      return c.json(
        errorBody("unsupported_media_type", "Send the body as application/json"),
        415,
      );
    }
    let text: string;
    let value: unknown;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
      value = JSON.parse(text);
    } catch (error) {
      const message = error instanceof SyntaxError
        ? "The body is not valid JSON"
        : "The body is not valid UTF-8";
      return c.json(errorBody("validation", message, { body: message }), 400);
    }
    // Only a text that holds a NUL somewhere (raw or escaped) is walked.
    const nul = /\\u0000|\0/.test(text) ? nulPath(value) : null;
    if (nul !== null) {
      return c.json(errorBody("validation", NUL_MESSAGE, { [nul]: NUL_MESSAGE }), 400);
    }
    cacheText(c.req.bodyCache, text);
    return await next();
  };
}

/** Hono's body cache holds promises at run time, though its type says strings. */
function cacheText(cache: object, text: string): void {
  (cache as Record<string, unknown>).text = Promise.resolve(text);
}

/** Reads `request`'s body, or returns null as soon as it exceeds `limit` bytes. */
export async function readBodyLimited(request: Request, limit: number): Promise<Uint8Array | null> {
  const declared = request.headers.get("content-length");
  if (declared !== null) {
    const length = Number(declared);
    if (length > limit) {
      await request.body?.cancel();
      return null;
    }
    // A declared length is enforced by the HTTP layer (a body cannot run past it), so the
    // whole body can be taken at once: Deno's fast path, much cheaper than a stream reader.
    // With a Transfer-Encoding the length does not apply: that body is read as a stream.
    if (
      Number.isSafeInteger(length) && length >= 0 &&
      request.headers.get("transfer-encoding") === null
    ) {
      const body = await request.bytes();
      if (body.byteLength <= limit) return body;
      return null;
    }
  }
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}
