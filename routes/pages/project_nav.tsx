/**
 * The frame of every project area page: the project's name, its section tabs, paging, the
 * Markdown container, author names, and the error handling the area pages share.
 */
import type { Context } from "hono";
import { raw } from "hono/html";
import type { Child } from "hono/jsx";
import type { Member, Project } from "../../domain/projects.ts";
import { DomainError } from "../../domain/errors.ts";
import type { Page } from "../../domain/paging.ts";
import type { Services } from "../../domain/services.ts";
import type { AppEnv } from "../api/openapi.ts";
import type { MessageKey } from "../i18n/en.ts";
import { formatDateTime, type Translate } from "../i18n/i18n.ts";
import { renderMarkdown } from "../markdown.ts";
import { type PageCtx, pageCtx } from "./context.ts";
import type { SpooledFile } from "../multipart.ts";
import { type FormValue, pageError } from "./forms.ts";
import { renderPage } from "./layout.tsx";

/** A project section: its path below `/projects/{id}` and its tab label. */
export type ProjectArea =
  | "dashboard"
  | "board"
  | "notes"
  | "chat"
  | "todos"
  | "files"
  | "calendar"
  | "milestones"
  | "meetings"
  | "search"
  | "activity";

const AREAS: ProjectArea[] = [
  "dashboard",
  "board",
  "notes",
  "chat",
  "todos",
  "files",
  "calendar",
  "milestones",
  "meetings",
  "search",
  "activity",
];

/** The link of a project section. */
export function areaHref(projectId: number, area: ProjectArea): string {
  return area === "dashboard" ? `/projects/${projectId}` : `/projects/${projectId}/${area}`;
}

/** The project's section tabs; `current` is marked for assistive technology and styling. */
export function ProjectNav(props: { ctx: PageCtx; projectId: number; current: ProjectArea }) {
  const { t } = props.ctx;
  return (
    <nav class="tabs" aria-label={t("projectNav.label")}>
      {AREAS.map((area) => (
        <a
          href={areaHref(props.projectId, area)}
          aria-current={area === props.current ? "page" : undefined}
        >
          {t(`projectNav.${area}` as MessageKey)}
        </a>
      ))}
    </nav>
  );
}

/** What an area page knows about its project and the caller's standing in it. */
export interface ProjectFrame {
  ctx: PageCtx;
  project: Project;
  members: Member[];
  /** Whether the caller may add content (a member or owner of an open project, or an admin). */
  canWrite: boolean;
  /** Whether the caller manages the project (an owner or an admin). */
  isOwner: boolean;
}

/** Loads the project for the caller; throws the domain's `not_found` when they cannot see it. */
export function loadFrame(c: Context<AppEnv>, services: Services, projectId: number): ProjectFrame {
  const ctx = pageCtx(c, services);
  const { project, members } = services.projects.get(ctx.actor!, projectId);
  const isAdmin = ctx.user?.role === "admin";
  const isOwner = isAdmin || project.myRole === "owner";
  const canWrite = !project.archived && (isAdmin || project.myRole === "owner" ||
    project.myRole === "member");
  return { ctx, project, members, canWrite, isOwner };
}

/** Whether the caller may edit or delete content written by `authorId`. */
export function canEdit(frame: ProjectFrame, authorId: number): boolean {
  return frame.canWrite && (frame.isOwner || authorId === frame.ctx.user?.id);
}

/** A member's display name (or a placeholder for someone who left). */
export function nameOf(frame: ProjectFrame, userId: number): string {
  return frame.members.find((m) => m.userId === userId)?.displayName ??
    (userId === frame.ctx.user?.id
      ? frame.ctx.user.displayName
      : frame.ctx.t("content.unknownUser"));
}

/** Answers an area page: the project's name, its tabs, then `body`. */
export function renderArea(
  c: Context<AppEnv>,
  frame: ProjectFrame,
  page: { area: ProjectArea; title: string; status?: number; body: Child },
): Response | Promise<Response> {
  const { ctx, project } = frame;
  return renderPage(c, ctx, {
    title: `${page.title} · ${project.name}`,
    status: page.status ?? 200,
    body: (
      <>
        <div class="project-head row">
          <a class="project-name" href={`/projects/${project.id}`}>{project.name}</a>
          {project.archived ? <span class="tag">{ctx.t("projects.archived")}</span> : null}
        </div>
        <ProjectNav ctx={ctx} projectId={project.id} current={page.area} />
        {project.archived ? <div class="notice">{ctx.t("projects.archivedNotice")}</div> : null}
        {page.body}
      </>
    ),
  });
}

/** The page shown for an unknown or hidden project or subject. */
export type NotFoundPage = (c: Context<AppEnv>, ctx: PageCtx) => Response | Promise<Response>;

/**
 * Makes the runner of area pages: it loads the project frame and runs the handler. A project
 * (or a thing in it) that the caller cannot see answers the 404 page, as the API answers 404.
 */
export function frameRunner(services: Services, options: { notFound: NotFoundPage }) {
  return async (
    c: Context<AppEnv>,
    handler: (frame: ProjectFrame) => Response | Promise<Response>,
  ): Promise<Response> => {
    try {
      return await handler(loadFrame(c, services, paramId(c, "projectId")));
    } catch (error) {
      if (error instanceof DomainError && error.code === "not_found") {
        return await options.notFound(c, pageCtx(c, services));
      }
      throw error;
    }
  };
}

/** A refused change: its status and translated message. */
export interface Failure {
  status: number;
  message: string;
}

/**
 * Runs a form's change and redirects (303) to the path it returns. A refusal re-renders
 * through `fail` with its status and message; `not_found` goes on to the 404 page.
 */
export async function attempt(
  c: Context<AppEnv>,
  frame: ProjectFrame,
  options: {
    change: () => string | Promise<string>;
    fail: (failure: Failure) => Response | Promise<Response>;
    maxUploadMb?: number;
  },
): Promise<Response> {
  let location: string;
  try {
    location = await options.change();
  } catch (error) {
    if (error instanceof DomainError && error.code === "not_found") throw error;
    return await options.fail(failureOf(error, frame.ctx.t, { maxUploadMb: options.maxUploadMb }));
  }
  return c.redirect(location, 303);
}

/** A page form read into a change's input, or the message of each bad field. */
export type ReadForm<I> = { ok: true; input: I } | { ok: false; errors: Record<string, string> };

/**
 * Submits a read form. Bad fields re-render through `show` with 400 and `form.invalid`;
 * otherwise the change runs as in `attempt`, and a refusal re-renders through `show` with
 * the field messages `fieldErrors` reads from the domain's error.
 */
export function submitForm<I>(
  c: Context<AppEnv>,
  frame: ProjectFrame,
  options: {
    form: ReadForm<I>;
    values: Record<string, string>;
    change: (input: I) => string | Promise<string>;
    /** The field messages of a refusal (none when left out). */
    fieldErrors?: (error: unknown, t: Translate) => Record<string, string>;
    show: (failure: Failure, state: FormState) => Response | Promise<Response>;
  },
): Response | Promise<Response> {
  const { form, values } = options;
  const { t } = frame.ctx;
  if (!form.ok) {
    return options.show({ status: 400, message: t("form.invalid") }, {
      values,
      errors: form.errors,
    });
  }
  let errors: Record<string, string> = {};
  return attempt(c, frame, {
    change: async () => {
      try {
        return await options.change(form.input);
      } catch (error) {
        errors = options.fieldErrors?.(error, t) ?? {};
        throw error;
      }
    },
    fail: (failure) => options.show(failure, { values, errors }),
  });
}

/** A refused upload (413, 415) as the message of the form's file field; otherwise none. */
export function fileErrors(failure: Failure): Record<string, string> {
  return failure.status === 413 || failure.status === 415 ? { file: failure.message } : {};
}

/** The largest upload in MiB (`MAX_UPLOAD_MB` counts mebibytes), for messages. */
export function uploadLimitMb(services: Services): number {
  return Math.round(services.maxUploadBytes / (1024 * 1024));
}

/** A numeric route parameter (0 when absent or malformed, which no row has). */
export function paramId(c: Context<AppEnv>, name: string): number {
  const raw = c.req.param(name) ?? "";
  return /^\d{1,15}$/.test(raw) ? Number(raw) : 0;
}

/** The status and message of a refused form, including uploads' 413 and 415. */
export function failureOf(
  error: unknown,
  t: Translate,
  options: { maxUploadMb?: number | undefined } = {},
): Failure {
  if (error instanceof DomainError && error.code === "unsupported_media_type") {
    return { status: 415, message: t("files.unsupported") };
  }
  if (error instanceof DomainError && error.code === "too_large") {
    return { status: 413, message: t("files.tooLarge", { mb: options.maxUploadMb ?? 0 }) };
  }
  return pageError(error, t);
}

/** A form's submitted values and the message of each bad field. */
export interface FormState {
  values?: Record<string, string>;
  errors?: Record<string, string>;
}

/** Checks a required text field's presence and length, recording a translated message. */
export function checkText(
  errors: Record<string, string>,
  t: Translate,
  field: { name: string; value: string | undefined; max: number; required: boolean },
): void {
  const value = field.value ?? "";
  if (field.required && value.trim() === "") errors[field.name] = t("content.required");
  else if (value.length > field.max) {
    errors[field.name] = t("content.tooLong", { max: field.max });
  }
}

/** The text fields of a parsed form body and its file field, if any. */
export function splitBody(
  body: Record<string, FormValue | FormValue[]>,
  fileField = "file",
): { fields: Record<string, string>; file: SpooledFile | null } {
  const fields: Record<string, string> = {};
  for (const [key, value] of Object.entries(body)) {
    if (typeof value === "string") fields[key] = value;
  }
  const file = body[fileField];
  // A file input left empty sends a part with no name and no bytes: it is not listed.
  const single = Array.isArray(file) ? undefined : file;
  return { fields, file: single !== undefined && typeof single !== "string" ? single : null };
}

/** A textarea whose content survives the parser's dropping of one leading newline. */
export function TextArea(
  props: {
    name: string;
    value: string | undefined;
    max: number;
    required?: boolean | undefined;
    rows?: number | undefined;
  },
) {
  return (
    <textarea
      name={props.name}
      maxlength={props.max}
      required={props.required ?? false}
      rows={props.rows ?? 8}
    >
      {`\n${props.value ?? ""}`}
    </textarea>
  );
}

/** User Markdown as sanitised HTML: the only place area pages insert HTML unescaped. */
export function Markdown(props: { source: string }) {
  return <div class="markdown" data-markdown>{raw(renderMarkdown(props.source))}</div>;
}

/** A timestamp in the reader's language. */
export function Time(props: { ctx: PageCtx; iso: string }) {
  return <time datetime={props.iso}>{formatDateTime(props.iso, props.ctx.locale)}</time>;
}

/** A byte count for people: "980 B", "12.5 kB", "3.1 MB". */
export function formatSize(bytes: number, locale: string): string {
  const units = ["B", "kB", "MB", "GB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  const number = new Intl.NumberFormat(locale === "ja" ? "ja-JP" : "en-GB", {
    maximumFractionDigits: unit === 0 ? 0 : 1,
  }).format(value);
  return `${number} ${units[unit]}`;
}

/** Previous and next links for a page of results, keeping the other query parameters. */
export function Pager<T>(
  props: { ctx: PageCtx; page: Page<T>; path: string; query?: Record<string, string | null> },
) {
  const { t } = props.ctx;
  const { page } = props;
  const pages = Math.max(1, Math.ceil(page.total / page.pageSize));
  if (pages <= 1 && page.page === 1) return null;
  const href = (n: number) => {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(props.query ?? {})) {
      if (value !== null) params.set(key, value);
    }
    if (n > 1) params.set("page", String(n));
    const search = params.toString();
    return search ? `${props.path}?${search}` : props.path;
  };
  return (
    <nav class="pager row" aria-label={t("content.pageOf", { page: page.page, pages })}>
      {page.page > 1
        ? <a href={href(Math.min(page.page - 1, pages))} rel="prev">{t("content.previous")}</a>
        : null}
      <span class="muted">{t("content.pageOf", { page: page.page, pages })}</span>
      {page.hasMore ? <a href={href(page.page + 1)} rel="next">{t("content.next")}</a> : null}
    </nav>
  );
}
