/** Reading page forms and turning domain errors into page messages. */
import type { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { DomainError } from "../../domain/errors.ts";
import type { Translate } from "../i18n/i18n.ts";

/** The form fields of a urlencoded or multipart request, as strings. */
export async function formFields(c: Context): Promise<Record<string, string>> {
  const body = await c.req.parseBody();
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
