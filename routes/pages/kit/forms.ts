/**
 * Reading page forms (urlencoded or multipart, strictly) and checking them with the input
 * schema of the operation, the one the API validates with; the schema also gives a form's
 * fields their `required` and `maxlength`.
 */
import type { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { isClientGone } from "../../../soap/http_body.ts";
import type { MessageKey } from "../../i18n/en.ts";
import type { Translate } from "../../i18n/i18n.ts";
import { isMultipart, MultipartError, readMultipart, type SpooledFile } from "../../multipart.ts";

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

/** A page form's text fields. */
export type Fields = Record<string, string>;

/** A page form read: its text fields (the last value of each) and its `file`, if one was sent. */
export interface ReadForm {
  fields: Fields;
  file: SpooledFile | null;
}

/**
 * Reads a page form. A field named in `lists` may repeat (checkboxes): its values are joined
 * with commas. A file input left empty sends a part with no name and no bytes: not a file.
 */
export async function readForm(c: Context, options: { lists?: string[] } = {}): Promise<ReadForm> {
  const lists = options.lists ?? [];
  const body = await parseForm(c, { all: lists.length > 0 });
  const fields: Fields = {};
  let file: SpooledFile | null = null;
  for (const [name, raw] of Object.entries(body)) {
    const values = Array.isArray(raw) ? raw : [raw];
    const texts = values.filter((v): v is string => typeof v === "string");
    if (lists.includes(name)) fields[name] = texts.map((v) => v.trim()).filter(Boolean).join(",");
    else if (texts.length > 0) fields[name] = texts[texts.length - 1]!;
    if (name === "file" && values.length === 1 && typeof values[0] !== "string") file = values[0]!;
  }
  for (const name of lists) fields[name] ??= "";
  return { fields, file };
}

/** A form checked: the operation's input, or the message of each bad field. */
export type FormResult<T> = { ok: true; data: T } | { ok: false; errors: Record<string, string> };

/** A field's message when the schema refuses it, where the general one would not say enough. */
export type FieldMessages = Partial<Record<string, MessageKey>>;

/**
 * Checks `input` (the form's fields read into the operation's shape) with `schema`, the one
 * the API uses, into translated messages: a blank field the schema refuses is required; a
 * field with its own message in `messages` gets it; a text too long or too short says its
 * limit; anything else asks to correct the field.
 */
export function validateForm<T extends z.ZodType>(
  schema: T,
  input: Record<string, unknown>,
  t: Translate,
  messages: FieldMessages = {},
): FormResult<z.output<T>> {
  const result = schema.safeParse(input);
  if (result.success) return { ok: true, data: result.data };
  const errors: Record<string, string> = {};
  for (const issue of result.error.issues) {
    const field = String(issue.path[0] ?? "form");
    const value = input[field];
    const own = messages[field];
    errors[field] ??= value === undefined || (typeof value === "string" && value.trim() === "")
      ? t("content.required")
      : own
      ? t(own)
      : issue.code === "too_big" && issue.origin === "string"
      ? t("content.tooLong", { max: Number(issue.maximum) })
      : issue.code === "too_small" && issue.origin === "string"
      ? t("content.tooShort", { min: Number(issue.minimum) })
      : t("form.invalid");
  }
  return { ok: false, errors };
}

/** The `required`, `maxlength` and `minlength` a text field's input schema gives its control. */
export interface TextAttrs {
  required: boolean;
  maxlength?: number;
  minlength?: number;
}

/**
 * The attributes of field `name` of the object schema `schema`: required when it is not
 * optional and refuses blank text, its length limits when it has them.
 */
export function textAttrs(schema: z.ZodObject, name: string): TextAttrs {
  let field = schema.shape[name] as z.ZodType | undefined;
  if (!field) throw new Error(`Cannot describe field ${name}: the schema has no such field`);
  const required = !field.safeParse(undefined).success && !field.safeParse("").success;
  // Optional, nullable and piped strings describe their lengths inside.
  for (let inner = unwrap(field); inner; inner = unwrap(field)) field = inner;
  const { minLength, maxLength } = field as Partial<z.ZodString>;
  return {
    required,
    ...(typeof maxLength === "number" ? { maxlength: maxLength } : {}),
    ...(typeof minLength === "number" && minLength > 1 ? { minlength: minLength } : {}),
  };
}

function unwrap(field: z.ZodType): z.ZodType | null {
  const def = field.def as { type: string; innerType?: z.ZodType; in?: z.ZodType };
  return def.innerType ?? (def.type === "pipe" ? def.in ?? null : null);
}

/** A text field read for an optional input: blank is `null` (none). */
export function orNull(value: string | undefined): string | null {
  return value === undefined || value.trim() === "" ? null : value;
}

/** A checkbox read as a boolean. */
export function checked(value: string | undefined): boolean {
  return value === "on";
}

/** Tags typed as one comma-separated field (a Japanese comma works too), each once. */
export function tagList(value: string | undefined): string[] {
  return [...new Set((value ?? "").split(/[,、，]/).map((s) => s.trim()).filter(Boolean))];
}

/** An id field read for an optional input: blank is `null`, other text passes for the schema. */
export function idOrNull(value: string | undefined): number | string | null {
  const raw = (value ?? "").trim();
  if (raw === "") return null;
  return /^\d{1,15}$/.test(raw) ? Number(raw) : raw;
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
