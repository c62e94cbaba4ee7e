/**
 * JSON request bodies for `/api`: at most 1 MiB, enforced while reading (chunked bodies
 * too); invalid UTF-8 is rejected rather than replaced; malformed JSON is a 400 naming
 * `body`. The decoded text is handed to Hono's body cache, so validators read it once.
 */
import type { MiddlewareHandler } from "hono";
import { readBodyLimited } from "../../soap/http_body.ts";

/** Largest accepted JSON body. */
export const MAX_JSON_BYTES = 1024 * 1024;

const BODYLESS = new Set(["GET", "HEAD", "OPTIONS"]);

function errorBody(code: string, message: string, details?: Record<string, string>) {
  return { error: { code, message, ...(details ? { details } : {}) } };
}

/** Reads and checks JSON bodies; other media types with a body are 415 (multipart passes). */
export function jsonBody(): MiddlewareHandler {
  return async (c, next) => {
    if (BODYLESS.has(c.req.method)) return await next();
    const type = (c.req.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (type === "multipart/form-data") return await next();
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
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
      JSON.parse(text);
    } catch (error) {
      const message = error instanceof SyntaxError
        ? "The body is not valid JSON"
        : "The body is not valid UTF-8";
      return c.json(errorBody("validation", message, { body: message }), 400);
    }
    cacheText(c.req.bodyCache, text);
    return await next();
  };
}

/** Hono's body cache holds promises at run time, though its type says strings. */
function cacheText(cache: object, text: string): void {
  (cache as Record<string, unknown>).text = Promise.resolve(text);
}
