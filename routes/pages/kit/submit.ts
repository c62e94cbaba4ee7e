/**
 * The show-then-submit pattern of every page form: a form posts, its change runs and the
 * answer is 303 to where it says; a form that does not check out, or a change the domain
 * refuses, renders the same page again with the refusal's status and alert and the form as
 * sent, each bad field with its message.
 */
import type { z } from "@hono/zod-openapi";
import type { Context, Hono } from "hono";
import type { DomainError } from "../../../domain/kernel/errors.ts";
import type { Services } from "../../../domain/services.ts";
import type { AppEnv } from "../../api/openapi.ts";
import type { Translate } from "../../i18n/i18n.ts";
import { type PageCtx, pageCtx } from "../context.ts";
import { refusalOf, type RefusalWords } from "./errors.tsx";
import { type Fields, type FormResult, readForm, validateForm } from "./forms.ts";
import type { SpooledFile } from "../../multipart.ts";

/** What a page shows besides its data: a refusal's status and alert, and the refused form. */
export interface Shown {
  status?: number;
  message?: string | null;
  form?: RefusedForm;
}

/** A refused form: which of the page's forms, what it sent, and each bad field's message. */
export interface RefusedForm {
  /** The form's name on its page (`create`, `edit`, `comment-12`, ...). */
  name: string;
  values: Fields;
  errors: Record<string, string>;
}

/** Renders a page with what a refusal left to show. */
export type Show = (shown: Shown) => Response | Promise<Response>;

/** The refused state of the page's form `name`, or undefined when another (or none) was. */
export function refused(shown: Shown, name: string): RefusedForm | undefined {
  return shown.form?.name === name ? shown.form : undefined;
}

/** How a form is submitted. */
export interface Submission<I> extends RefusalWords {
  t: Translate;
  /** The form's name on its page. */
  form: string;
  /** The fields as sent, shown again on a refusal. */
  values: Fields;
  /** The form checked into the change's input. */
  input: FormResult<I>;
  /**
   * Makes the change; returns where to go next, or the page to answer itself (an import shows
   * its report, which no address could carry).
   */
  change: (input: I) => Done | Promise<Done>;
}

/** Where a form's change leads: an address to go to (303), or a page answered as it is. */
export type Done = string | Response;

/**
 * Submits a form (see the module comment). A `not_found` refusal is thrown on: the page
 * application answers it with the 404 page, as the API answers 404.
 */
export async function submit<I>(c: Context, show: Show, form: Submission<I>): Promise<Response> {
  const { t, input, values } = form;
  if (!input.ok) {
    const errors = input.errors;
    return show({
      status: 400,
      message: t("form.invalid"),
      form: { name: form.form, values, errors },
    });
  }
  let done: Done;
  try {
    done = await form.change(input.data);
  } catch (error) {
    const refusal = refusalOf(error, t, form);
    if (refusal.status === 404 && !form.codes?.not_found) throw error;
    // A caller told to wait is told for how long, as the API tells it.
    const wait = (error as DomainError).retryAfter;
    if (wait !== undefined) c.header("Retry-After", String(wait));
    const { status, message, errors } = refusal;
    return show({ status, message, form: { name: form.form, values, errors } });
  }
  return typeof done === "string" ? c.redirect(done, 303) : done;
}

/** What a form's change is given, outside the areas (see `pageForms`). */
export interface PageChange {
  c: Context<AppEnv>;
  ctx: PageCtx;
  fields: Fields;
  /** The form's `file`, when it sent one. */
  file: SpooledFile | null;
}

/** How a form of a page outside the projects' areas is read, checked and carried out. */
export interface PageForm<I> extends RefusalWords {
  /** The form's name on its page. */
  form: string;
  /** The operation's input schema (the API's); none for a form without fields. */
  schema?: z.ZodType<I>;
  /** How the fields are read into the schema's shape (default: as they are). */
  read?: (fields: Fields) => Record<string, unknown>;
  /** Looked up first: an unknown subject is the 404 page before any field is judged. */
  subject?: (change: PageChange) => unknown;
  /** Shows the page again with what a refusal left. */
  show: (shown: Shown, change: PageChange) => Response | Promise<Response>;
  /** Makes the change; returns where to go next (see `Submission.change`). */
  change: (input: I, change: PageChange) => Done | Promise<Done>;
}

/**
 * The forms of pages outside the projects' areas (login, settings, projects), on `app`:
 * `form(path, form)` takes a form's POST: read, checked with its schema, then submitted.
 */
export function pageForms(app: Hono<AppEnv>, services: Services) {
  return <I>(path: string, form: PageForm<I>): void => {
    app.post(path, (c) => take(c, services, form));
  };
}

/** Reads, checks and submits one form of `pageForms`. */
async function take<I>(c: Context<AppEnv>, services: Services, form: PageForm<I>) {
  const { fields, file } = await readForm(c);
  const ctx = await pageCtx(c, services);
  const page = { c, ctx, fields, file };
  await form.subject?.(page);
  return await submit(c, (shown) => form.show(shown, page), {
    ...form,
    t: ctx.t,
    values: fields,
    input: form.schema
      ? validateForm(form.schema, form.read?.(fields) ?? fields, ctx.t, form.fields)
      : { ok: true, data: undefined as I },
    change: (input) => form.change(input, page),
  });
}
