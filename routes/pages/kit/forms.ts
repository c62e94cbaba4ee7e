/**
 * Reading page forms (see `form_body.ts`) and checking them with the input schema of the
 * operation, the one the API validates with; the schema also gives a form's fields their
 * `required` and `maxlength`.
 */
import type { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { MessageKey } from "../../i18n/en.ts";
import type { Translate } from "../../i18n/i18n.ts";
import { parseForm } from "../../form_body.ts";
import type { SpooledFile } from "../../multipart.ts";

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
