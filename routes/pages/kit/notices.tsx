/**
 * The message a page shows right after an action, carried by a query parameter of the address
 * the action's 303 leads to: `?created={type}-{id}` after a create, `?saved={type}-{id}` after
 * a save, `?deleted={type}-{id}` after a delete, with an Undo button that restores the item
 * from the trash, and `?restored={type}-{id}` after a restore. Each names the thing, never a
 * sentence to show.
 */
import { isTrashType, type TrashType } from "../../../domain/projects/trash.ts";
import { type PageCtx, safeNext } from "../context.ts";
import { subjectHref } from "./content.tsx";
import { ButtonForm } from "./fields.tsx";

/** Things a notice names besides the trash's types: only created or saved, never trashed. */
const OTHER_TYPES = ["project", "member", "milestone"] as const;
type OtherType = (typeof OTHER_TYPES)[number];

/** What a notice names: an item of a project's trash, a project, a member or a milestone. */
export interface Noticed {
  type: TrashType | OtherType;
  id: number;
}

/** The notices a request's address asks for. */
export interface Notices {
  created: Noticed | null;
  saved: Noticed | null;
  deleted: Noticed | null;
  restored: Noticed | null;
  /** The page's own address without them: where an Undo comes back to. */
  here: string;
}

const BASE = "http://local.invalid";
const PARAMS = ["created", "saved", "deleted", "restored"] as const;

function withNotice(location: string, param: (typeof PARAMS)[number], ref: Noticed): string {
  const url = new URL(location, BASE);
  url.searchParams.set(param, `${ref.type}-${ref.id}`);
  return `${url.pathname}${url.search}${url.hash}`;
}

/** `location` telling its page that `ref` was just created. */
export function afterCreate(location: string, ref: Noticed): string {
  return withNotice(location, "created", ref);
}

/** `location` telling its page that the changes to `ref` were just saved. */
export function afterSave(location: string, ref: Noticed): string {
  return withNotice(location, "saved", ref);
}

/** `location` telling its page that `ref` was just moved to the trash (it offers Undo). */
export function afterDelete(location: string, ref: Noticed): string {
  return withNotice(location, "deleted", ref);
}

/**
 * `location` telling its page that `ref` was just restored, at the restored item's place on
 * that page when it has one (a to-do's card, a message, a comment).
 */
export function afterRestore(location: string, ref: Noticed): string {
  const shown = withNotice(location, "restored", ref);
  return shown.includes("#") ? shown : `${shown}${anchorOf(ref)}`;
}

function anchorOf(ref: Noticed): string {
  switch (ref.type) {
    case "item":
      return `#item-${ref.id}`;
    case "message":
      return `#message-${ref.id}`;
    case "comment":
      return `#comment-${ref.id}`;
    default:
      return "";
  }
}

function parse(raw: string | null): Noticed | null {
  const match = /^([a-z]{1,16})-(\d{1,15})$/.exec(raw ?? "");
  if (!match) return null;
  const [, type, id] = match as unknown as [string, string, string];
  const known = isTrashType(type) || (OTHER_TYPES as readonly string[]).includes(type);
  return known ? { type: type as Noticed["type"], id: Number(id) } : null;
}

/** The notices of a request's address (`c.req.url`); a malformed one is none. */
export function noticesOf(requestUrl: string): Notices {
  const url = new URL(requestUrl);
  const [created, saved, deleted, restored] = PARAMS.map((p) => parse(url.searchParams.get(p)));
  // `?saved=1` (a page's own saved message, as on the settings) stays in the address.
  for (const param of PARAMS) {
    if (parse(url.searchParams.get(param))) url.searchParams.delete(param);
  }
  return {
    created: created ?? null,
    saved: saved ?? null,
    deleted: deleted ?? null,
    restored: restored ?? null,
    here: `${url.pathname}${url.search}`,
  };
}

/** Where a project's trash item is restored (POST), by its page or an Undo. */
export function restorePath(projectId: number, ref: Noticed): string {
  return `/projects/${projectId}/trash/${ref.type}/${ref.id}/restore`;
}

/**
 * Where a restore sends the caller back to: `back` when it is a page of the same project (the
 * page the delete led to), else the project's trash.
 */
export function restoreBack(projectId: number, back: string | undefined): string {
  const base = `/projects/${projectId}`;
  const safe = safeNext(back);
  const inProject = safe === base || safe.startsWith(`${base}/`) || safe.startsWith(`${base}?`);
  return inProject ? safe : `${base}/trash`;
}

/**
 * The message after a delete or a restore on a page of project `projectId` (or, without one,
 * the admin's deleted projects): what happened, with Undo after a delete when `canUndo`.
 */
export function ActionNotice(
  props: { ctx: PageCtx; notices: Notices; projectId: number | null; canUndo: boolean },
) {
  const { ctx, notices, projectId } = props;
  const { t } = ctx;
  const kind = (ref: Noticed) =>
    ref.type === "member" || ref.type === "milestone"
      ? t(`notice.kind.${ref.type}` as const)
      : t(`trash.kind.${ref.type}` as const);
  const { created, saved, deleted, restored } = notices;
  const done = created ?? saved;
  if (done) {
    const text = created?.type === "member"
      ? t("notice.memberAdded")
      : t(created ? "notice.created" : "notice.saved", { type: kind(done) });
    return (
      <div class="success" role="status" data-notice={`${created ? "created" : "saved"}`}>
        {text}
      </div>
    );
  }
  if (restored) {
    const href = restored.type === "project"
      ? `/projects/${restored.id}`
      : projectId === null || restored.type === "file"
      ? null
      : subjectHref(projectId, restored.type, restored.id);
    return (
      <div class="success row" role="status" data-restored={`${restored.type}-${restored.id}`}>
        <span>{t("trash.restored", { type: kind(restored) })}</span>
        {href ? <a href={href}>{t("trash.show")}</a> : null}
      </div>
    );
  }
  if (deleted && deleted.type !== "project" && projectId !== null) {
    return (
      <div class="success row" role="status" data-deleted={`${deleted.type}-${deleted.id}`}>
        <span>{t("trash.deleted", { type: kind(deleted) })}</span>
        {props.canUndo
          ? (
            <ButtonForm
              class="inline"
              action={restorePath(projectId, deleted)}
              label={t("trash.undo")}
              button="secondary"
              attrs={{ "data-undo": `${deleted.type}-${deleted.id}` }}
            >
              <input type="hidden" name="back" value={notices.here} />
            </ButtonForm>
          )
          : null}
      </div>
    );
  }
  return null;
}
