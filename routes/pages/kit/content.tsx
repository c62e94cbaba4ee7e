/**
 * How content is shown on every page that shows it: Markdown, times, file sizes and
 * attachments, due dates, progress, activity entries, and paging links.
 */
import { raw } from "hono/html";
import type { Child } from "hono/jsx";
import type { Activity } from "../../../domain/projects/activity.ts";
import { isPreviewType } from "../../../domain/formats/file_types.ts";
import type { FileInfo } from "../../../domain/content/files.ts";
import type { MentionContext } from "../../../domain/formats/markdown.ts";
import type { Page } from "../../../domain/kernel/paging.ts";
import { en, type MessageKey } from "../../i18n/en.ts";
import { formatDateTime, formatDay, formatRelative, formatSize } from "../../i18n/format.ts";
import type { Translate } from "../../i18n/i18n.ts";
import { renderMarkdown } from "../../markdown.ts";
import type { PageCtx } from "../context.ts";

/**
 * User Markdown as sanitised HTML: the only place pages insert user text unescaped. With
 * `mentions`, an @mention of a member shows their name, marked (strongly for the reader).
 */
export function Markdown(props: { source: string; mentions?: MentionContext | undefined }) {
  return (
    <div class="markdown" data-markdown>{raw(renderMarkdown(props.source, props.mentions))}</div>
  );
}

/**
 * A timestamp in the reader's language and time zone. `relative` shows how long ago it was
 * ("3 minutes ago", counted from the request's clock) for lists people scan, with the exact
 * local time and zone on hover.
 */
export function Time(props: { ctx: PageCtx; iso: string; relative?: boolean }) {
  const { locale, timeZone, now } = props.ctx;
  if (props.relative) {
    return (
      <time datetime={props.iso} title={formatDateTime(props.iso, locale, timeZone, true)}>
        {formatRelative(props.iso, now, locale, timeZone)}
      </time>
    );
  }
  return <time datetime={props.iso}>{formatDateTime(props.iso, locale, timeZone)}</time>;
}

/** Where a page shows a project file inline (an image) or serves it as a download. */
export function previewUrl(f: FileInfo): string {
  return `/projects/${f.projectId}/files/${f.id}/preview`;
}

/**
 * A file's thumbnail, linked to the image at full size, when its type is an image a preview
 * shows; nothing otherwise. The browser scales it (see docs/decisions/0005).
 */
export function Thumbnail(props: { file: FileInfo }) {
  const f = props.file;
  if (!isPreviewType(f.contentType)) return null;
  return (
    <a class="thumb" href={previewUrl(f)} data-thumb={f.id}>
      <img
        src={previewUrl(f)}
        alt={f.name}
        width={64}
        height={64}
        loading="lazy"
        decoding="async"
      />
    </a>
  );
}

/** An attachment's list item: its thumbnail when an image, its download link and size. */
export function AttachmentItem(props: { file: FileInfo; locale: string }) {
  const f = props.file;
  return (
    <li data-file={f.id}>
      <Thumbnail file={f} />
      <a href={f.downloadUrl} download={f.name}>{f.name}</a>{" "}
      <span class="muted">{formatSize(f.size, props.locale)}</span>
    </li>
  );
}

/** A due date, marked when it has passed (and the work is not done). */
export function Due(props: { ctx: PageCtx; date: string; overdue: boolean }) {
  const { t, locale } = props.ctx;
  return (
    <span class={props.overdue ? "due overdue" : "due"} data-due={props.date}>
      <time datetime={props.date}>{t("todos.due", { date: formatDay(props.date, locale) })}</time>
      {props.overdue ? ` · ${t("todos.overdue")}` : ""}
    </span>
  );
}

/** A milestone's progress bar with its percentage. */
export function ProgressBar(props: { t: Translate; title: string; progress: number }) {
  const { t } = props;
  const value = Math.max(0, Math.min(100, Math.floor(props.progress)));
  return (
    <div class="progress row" data-progress={value}>
      <progress
        max={100}
        value={value}
        aria-label={t("milestones.progressOf", { title: props.title })}
      >
        {`${value}%`}
      </progress>
      <span class="progress-value">{`${value}%`}</span>
    </div>
  );
}

/** An activity entry's kind in words; a kind added later without its words shows as it is. */
export function kindLabel(t: Translate, kind: string): string {
  const key = `activity.kind.${kind}`;
  return key in en ? t(key as MessageKey) : kind;
}

/**
 * The page of a thing in project `projectId`, by its type in any of the names the domain
 * gives it (activity and notification subjects, search hits, calendar entries, conflicts);
 * null for a type without a page of its own.
 */
export function subjectHref(projectId: number, type: string, id: number): string | null {
  const base = `/projects/${projectId}`;
  switch (type) {
    case "thread":
    case "board":
      return `${base}/board/${id}`;
    case "note":
      return `${base}/notes/${id}`;
    case "item":
    case "todo":
      return `${base}/todos/${id}`;
    case "meeting":
      return `${base}/meetings/${id}`;
    case "milestone":
      return `${base}/milestones#milestone-${id}`;
    case "event":
      return `${base}/calendar/events/${id}`;
    case "file":
      return `/api/files/${id}/download`;
    default:
      return null;
  }
}

/** Where an activity entry's subject is shown, when it has a page of its own. */
export function activityHref(entry: Activity): string | null {
  return subjectHref(entry.projectId, entry.subjectType, entry.subjectId);
}

/** Previous and next links for a page of results, keeping the other query parameters. */
export function Pager<T>(
  props: {
    ctx: PageCtx;
    page: Page<T>;
    path: string;
    query?: Record<string, string | null>;
    /** The total is a lower bound (a capped count): "of 500+" pages, and at least this one. */
    pagesAtLeast?: boolean;
  },
) {
  const { t } = props.ctx;
  const { page } = props;
  const counted = Math.max(1, Math.ceil(page.total / page.pageSize));
  const pages = props.pagesAtLeast ? Math.max(counted, page.page) : counted;
  const shown = props.pagesAtLeast ? `${pages.toLocaleString(props.ctx.locale)}+` : pages;
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
    <nav class="pager row" aria-label={t("content.pageOf", { page: page.page, pages: shown })}>
      {page.page > 1
        ? <a href={href(Math.min(page.page - 1, pages))} rel="prev">{t("content.previous")}</a>
        : null}
      <span class="muted">{t("content.pageOf", { page: page.page, pages: shown })}</span>
      {page.hasMore ? <a href={href(page.page + 1)} rel="next">{t("content.next")}</a> : null}
    </nav>
  );
}

/** A link back to where a page was reached from. */
export function BackLink(props: { href: string; label: string }) {
  return (
    <p>
      <a href={props.href}>{props.label}</a>
    </p>
  );
}

/** A fact: its label, its value (left out when there is none), attributes of its value. */
export type Fact = readonly [string, Child, Record<string, true>?];

/** Facts as a definition list. */
export function Facts(props: { facts: Fact[] }) {
  return (
    <dl class="facts">
      {props.facts.map(([label, value, attrs]) =>
        value === null || value === undefined || value === false ? null : (
          <>
            <dt>{label}</dt>
            <dd {...attrs}>{value}</dd>
          </>
        )
      )}
    </dl>
  );
}

/** A table that scrolls sideways on narrow screens: its column headings, then `children` rows. */
export function Table(
  props: {
    /** Each column's header; `{ hidden }` names a column only screen readers need named. */
    heads: Array<string | { hidden: string }>;
    wrap?: string;
    class?: string | undefined;
    /**
     * Names the table's wrapper as a region a keyboard can focus (and so scroll): for a table
     * wide enough to scroll sideways with nothing in it to focus.
     */
    region?: string | undefined;
    children: Child;
  },
) {
  const heads = props.heads.map((head) =>
    typeof head === "string"
      // deno-lint-ignore jsx-key -- rendered once on the server: keys would only show as attributes
      ? <th>{head}</th>
      : (
        <th>
          <span class="visually-hidden">{head.hidden}</span>
        </th>
      )
  );
  return (
    <div
      class={props.wrap ?? "table-wrap"}
      {...(props.region ? { role: "region", "aria-label": props.region, tabindex: 0 } : {})}
    >
      <table class={props.class}>
        <thead>
          <tr>
            {heads}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}
