/** Reading page forms and turning domain errors into page messages. */
import type { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { DomainError } from "../../domain/errors.ts";
import type { Translate } from "../i18n/i18n.ts";
import { isMultipart, MultipartError, readMultipart, type SpooledFile } from "../multipart.ts";
import { isClientGone } from "../../soap/http_body.ts";

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A form that cannot be read: answered 400 (see `app.onError`), nothing changed. `field`
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

/** The form fields of a urlencoded or multipart request, as strings. */
export async function formFields(c: Context): Promise<Record<string, string>> {
  const body = await parseForm(c);
  const fields: Record<string, string> = {};
  for (const [key, value] of Object.entries(body)) {
    if (typeof value === "string") fields[key] = value;
  }
  return fields;
}

/** A validated form, or the message of each bad field. */
export type FormResult<T> = { ok: true; data: T } | { ok: false; errors: Record<string, string> };

/** Validates `fields` with `schema` (the same schema the API uses). */
export function validateForm<T extends z.ZodType>(
  schema: T,
  fields: Record<string, unknown>,
): FormResult<z.output<T>> {
  const result = schema.safeParse(fields);
  if (result.success) return { ok: true, data: result.data };
  const errors: Record<string, string> = {};
  for (const issue of result.error.issues) {
    errors[String(issue.path[0] ?? "form")] ??= issue.message;
  }
  return { ok: false, errors };
}

/** The HTTP status and translated message for a domain error on a page. */
export function pageError(error: unknown, t: Translate): { status: number; message: string } {
  if (!(error instanceof DomainError)) throw error;
  switch (error.code) {
    case "forbidden":
      return { status: 403, message: t("error.forbidden") };
    case "not_found":
      return { status: 404, message: t("error.notFound") };
    case "conflict":
      return { status: 409, message: t("error.conflict") };
    case "validation":
      return { status: 400, message: t("form.invalid") };
    default:
      return { status: 400, message: t("error.generic") };
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
