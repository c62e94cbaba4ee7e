/**
 * Refusals and failures as pages: the one mapping from a domain error to a page's status and
 * messages, and the pages answered instead of the one asked for (404, 413, 507, 400).
 */
import type { Context } from "hono";
import { html } from "hono/html";
import { DomainError, type ErrorCode } from "../../../domain/kernel/errors.ts";
import type { Services } from "../../../domain/services.ts";
import { statusOf } from "../../api/errors.ts";
import type { AppEnv } from "../../api/openapi.ts";
import type { MessageKey } from "../../i18n/en.ts";
import type { Translate } from "../../i18n/i18n.ts";
import { type PageCtx, pageCtx } from "../context.ts";
import { FormTooLarge, isImportForm, UnreadableForm } from "../../form_body.ts";
import type { FieldMessages } from "./forms.ts";
import { renderPage } from "./layout.tsx";

/** A change the domain refused, for the page: its status, its alert and each bad field's message. */
export interface Refusal {
  status: number;
  message: string;
  errors: Record<string, string>;
}

const MESSAGE: Partial<Record<ErrorCode, MessageKey>> = {
  forbidden: "error.forbidden",
  not_found: "error.notFound",
  conflict: "error.conflict",
  validation: "form.invalid",
  unsupported_media_type: "files.unsupported",
};

/** How a page words the refusals it knows more about. */
export interface RefusalWords {
  /** A field's message for a refusal naming it: by field, or `field:code` for a code. */
  fields?: FieldMessages;
  /**
   * The words for a code, in place of the general ones: in the alert, or next to `field`.
   * `{seconds}` in them is how long a `rate_limited` caller waits, `{mb}` the size limit.
   */
  codes?: Partial<Record<ErrorCode, MessageKey | { field: string; message: MessageKey }>>;
  /** The upload limit in MiB, for the 413 message (`{mb}`). */
  maxUploadMb?: number;
}

/**
 * The page's side of a domain error (anything else is thrown on). A refusal about a field (a
 * `validation` naming it, an upload of the wrong type or size naming `file`) says why next to
 * the field, and the alert only asks to correct it; any other refusal says why in the alert.
 */
export function refusalOf(error: unknown, t: Translate, words: RefusalWords = {}): Refusal {
  if (!(error instanceof DomainError)) throw error;
  const own = words.codes?.[error.code];
  const ownKey = typeof own === "object" ? own.message : own;
  const reason = ownKey
    ? t(ownKey, { seconds: error.retryAfter ?? 60, mb: words.maxUploadMb ?? 0 })
    : error.code === "too_large"
    ? t("files.tooLarge", { mb: words.maxUploadMb ?? 0 })
    : t(MESSAGE[error.code] ?? "error.generic");
  const errors: Record<string, string> = {};
  if (typeof own === "object") errors[own.field] = reason;
  else if (error.code === "validation") {
    for (const [field, detail] of Object.entries(error.details ?? {})) {
      const key = words.fields?.[`${field}:${detail}`] ?? words.fields?.[field] ?? "form.invalid";
      errors[field] = t(key);
    }
  } else if (!own && (error.code === "too_large" || error.code === "unsupported_media_type")) {
    errors.file = reason;
  }
  const status = statusOf(error.code);
  return { status, message: Object.keys(errors).length > 0 ? t("form.invalid") : reason, errors };
}

/** The HTML 404 page, for anything unknown or hidden from the caller. */
export function notFound(c: Context<AppEnv>, ctx: PageCtx) {
  return renderPage(c, ctx, {
    title: ctx.t("error.notFoundTitle"),
    status: 404,
    body: (
      <div class="card narrow">
        <h1>{ctx.t("error.notFoundTitle")}</h1>
        <p>
          <a href="/">{ctx.t("common.back")}</a>
        </p>
      </div>
    ),
  });
}

/** The HTML 403 page, for a page the caller may know of but not open (as the API answers 403). */
export function forbiddenPage(c: Context<AppEnv>, ctx: PageCtx) {
  return stopPage(c, ctx, { status: 403, title: ctx.t("error.forbidden"), back: "/" });
}

/** The largest upload in MiB (`MAX_UPLOAD_MB` counts mebibytes), for messages. */
export function uploadLimitMb(services: Services): number {
  return Math.round(services.maxUploadBytes / (1024 * 1024));
}

/** The largest project archive an import takes, in MiB (`MAX_IMPORT_MB`), for messages. */
export function importLimitMb(services: Services): number {
  return Math.round(services.maxImportBytes / (1024 * 1024));
}

/** A page with one alert and a way back, for a request that cannot be answered as asked. */
function stopPage(c: Context, ctx: PageCtx, page: { status: number; title: string; back: string }) {
  return renderPage(c, ctx, {
    title: page.title,
    status: page.status,
    body: (
      <div class="card narrow">
        {page.status === 507 ? <h1>{page.title}</h1> : null}
        <div class="alert" role="alert">
          {page.status === 507 ? ctx.t("error.storageFull") : page.title}
        </div>
        <p>
          <a href={page.back}>{ctx.t("common.back")}</a>
        </p>
      </div>
    ),
  });
}

/**
 * The answer to a page form that could not be accepted (see `parseForm`): 400 naming the
 * field at fault, or the 413 page for an upload over the limit; null for any other error.
 * Neither is the server's fault, so neither is logged as an error.
 */
export function formErrorPage(
  c: Context<AppEnv>,
  error: unknown,
  services: Services,
): Response | Promise<Response> | null {
  if (error instanceof FormTooLarge) return tooLargePage(c, services);
  if (!(error instanceof UnreadableForm)) return null;
  const field = error.field === undefined
    ? ""
    : html`<p>The field <code>${error.field}</code> holds text that cannot be accepted.</p>`;
  return c.html(
    html`<!DOCTYPE html><title>Bad request</title><h1>The form could not be read.</h1>${field}`,
    400,
  );
}

/** The 413 page for a form over the upload (or import) limit. */
async function tooLargePage(c: Context<AppEnv>, services: Services): Promise<Response> {
  const ctx = await pageCtx(c, services);
  if (isImportForm(c.req.path)) {
    const title = ctx.t("import.tooLarge", { mb: importLimitMb(services) });
    return await stopPage(c, ctx, { status: 413, title, back: "/projects" });
  }
  const title = ctx.t("files.tooLarge", { mb: uploadLimitMb(services) });
  return await stopPage(c, ctx, {
    status: 413,
    title,
    back: c.req.path.replace(/\/comments$/, ""),
  });
}

/** The page answered (507) when a change failed because the server's disk is full. */
export async function storageFullPage(c: Context<AppEnv>, services: Services): Promise<Response> {
  const ctx = await pageCtx(c, services);
  return await stopPage(c, ctx, {
    status: 507,
    title: ctx.t("error.storageFullTitle"),
    back: "/",
  });
}
