/**
 * Reading a page form's body (urlencoded or multipart) strictly, as `json_body.ts` reads the
 * API's: text that is not UTF-8, or holds U+0000, is refused rather than replaced; a multipart
 * body is read as it arrives, its files spooled to temporary files (see `multipart.ts`).
 */
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { UploadSpool } from "../domain/content/files.ts";
import { isClientGone } from "../soap/http_body.ts";
import {
  isMultipart,
  MultipartError,
  multipartScope,
  readMultipart,
  type SpooledFile,
} from "./multipart.ts";

/** Page forms that carry an upload: files, a thread, a reply, a chat message, a to-do attachment. */
const UPLOAD_FORM =
  /^\/projects\/\d+\/(files|chat|todos\/\d+\/attachments|board(\/\d+(\/comments)?)?)$/;

/** The page form that imports a project archive (as large as `MAX_IMPORT_MB`). */
const IMPORT_FORM = /^\/projects\/import$/;

/** Whether `path` is the page form that imports a project archive. */
export function isImportForm(path: string): boolean {
  return IMPORT_FORM.test(path);
}

/** Every page form but an upload may hold this many bytes in all. */
const FORM_BYTES = 1024 * 1024;

/**
 * The size limits of page form bodies, held while they are read (chunked ones too): an upload
 * form's multipart body may carry a file as large as an upload, the import form's an archive as
 * large as an import, any other form 1 MiB in all.
 * Multipart bodies are read as they arrive, their files spooled to `store`.
 */
export function formLimits(
  options: { store: UploadSpool; maxUploadBytes: number; maxImportBytes: number },
) {
  const { store } = options;
  const limit = bodyLimit({
    maxSize: FORM_BYTES,
    onError: (c) => c.text("Payload Too Large", 413),
  });
  const uploadScope = multipartScope({
    store,
    maxFileBytes: options.maxUploadBytes,
    refuseNul: true,
  });
  const importScope = multipartScope({
    store,
    maxFileBytes: options.maxImportBytes,
    refuseNul: true,
  });
  const formScope = multipartScope({ store, maxFileBytes: FORM_BYTES, refuseNul: true });
  const middleware: MiddlewareHandler = (c, next) =>
    c.req.method === "POST" && UPLOAD_FORM.test(c.req.path) && isMultipart(c)
      ? uploadScope(c, next)
      : c.req.method === "POST" && IMPORT_FORM.test(c.req.path) && isMultipart(c)
      ? importScope(c, next)
      : limit(c, async () => {
        await formScope(c, next);
      });
  return middleware;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A form that cannot be read: answered 400 by the pages (see `formErrorPage`), nothing changed. `field`
 * names the field at fault, when one is.
 */
export class UnreadableForm extends Error {
  override name = "UnreadableForm";
  readonly field: string | undefined;

  constructor(message: string, field?: string) {
    super(message);
    this.field = field;
  }
}

/** An upload form over the size limit: answered with the 413 page, nothing changed. */
export class FormTooLarge extends Error {
  override name = "FormTooLarge";
}

/** A page form's value: text, or an uploaded file spooled to a temporary file. */
export type FormValue = string | SpooledFile;

/**
 * One `application/x-www-form-urlencoded` name or value. A `%` not followed by two hex digits
 * stands for itself (as with `URLSearchParams`); percent-encoded bytes that are not UTF-8
 * make `decodeURIComponent` throw, so they are refused, not replaced.
 */
function decodeFormComponent(text: string): string {
  const plus = text.replaceAll("+", " ");
  if (!plus.includes("%")) return plus;
  return decodeURIComponent(plus.replace(/%(?![0-9A-Fa-f]{2})/g, "%25"));
}

/** As `parseBody`: the last value of a repeated name, or all of them with `all`. */
function addField<V>(
  fields: Record<string, V | V[]>,
  name: string,
  value: V,
  all: boolean | undefined,
): void {
  const before = fields[name];
  if (!all || before === undefined) fields[name] = value;
  else fields[name] = Array.isArray(before) ? [...before, value] : [before as V, value];
}

/**
 * The body of a page form (urlencoded or multipart), as Hono's `parseBody` gives it, except
 * that a multipart file is spooled to a temporary file as it arrives (see `multipart.ts`).
 * A body that cannot be parsed, or text that is not UTF-8 (a urlencoded value, raw or
 * percent-encoded, or a multipart text field), throws `UnreadableForm`: invalid UTF-8 is
 * refused, never replaced; so is a multipart text field holding U+0000. An upload over the
 * limit throws `FormTooLarge`.
 */
export async function parseForm(
  c: Context,
  options: { all?: boolean } = {},
): Promise<Record<string, FormValue | FormValue[]>> {
  const type = c.req.header("content-type") ?? "";
  if (isMultipart(c)) {
    let body;
    try {
      body = await readMultipart(c);
    } catch (error) {
      if (!(error instanceof MultipartError)) throw error;
      if (error.problem === "too_large") throw new FormTooLarge(error.message);
      throw new UnreadableForm(error.message, error.field);
    }
    // No prototype: a field named `constructor` is a field like any other.
    const fields: Record<string, FormValue | FormValue[]> = Object.create(null);
    for (const [name, value] of body.fields) addField(fields, name, value, options.all);
    for (const file of body.files) addField(fields, file.field, file, options.all);
    return fields;
  }
  try {
    if (/^application\/x-www-form-urlencoded\b/i.test(type)) {
      const text = strictUtf8.decode(await c.req.arrayBuffer());
      // No prototype: a field named `constructor` is a field like any other.
      const fields: Record<string, string | string[]> = Object.create(null);
      for (const pair of text.split("&")) {
        if (pair === "") continue;
        const eq = pair.indexOf("=");
        const name = decodeFormComponent(eq < 0 ? pair : pair.slice(0, eq));
        const value = eq < 0 ? "" : decodeFormComponent(pair.slice(eq + 1));
        refuseNul(name, value);
        addField(fields, name, value, options.all);
      }
      return fields;
    }
    return await c.req.parseBody(options.all ? { all: true } : {}) as Record<
      string,
      string | string[]
    >;
  } catch (error) {
    // A client that went away is counted by the app's error handler, not answered.
    if (error instanceof UnreadableForm || isClientGone(error)) throw error;
    throw new UnreadableForm(error instanceof Error ? error.message : String(error));
  }
}

/**
 * Refuses U+0000 in a urlencoded field's name or value: the database would keep it but read
 * the text back cut short at it.
 */
function refuseNul(name: string, value: string): void {
  if (name.includes("\0") || value.includes("\0")) {
    const field = name.replaceAll("\0", "\\u0000");
    throw new UnreadableForm(`Cannot read the form: ${field} holds U+0000`, field);
  }
}
