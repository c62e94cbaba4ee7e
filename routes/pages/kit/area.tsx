/**
 * The pages of a project's areas (board, notes, chat, ...): the frame every such page shares
 * (the project, the caller's standing in it, the section tabs) and the routes' side of an area
 * page, `areaRoutes`: GET shows a page, POST runs one of its forms and shows it again when the
 * form is refused (see `submit.ts`).
 */
import type { z } from "@hono/zod-openapi";
import { type Context, Hono } from "hono";
import type { Child } from "hono/jsx";
import type { Actor } from "../../../domain/accounts/accounts.ts";
import type { MentionContext } from "../../../domain/formats/markdown.ts";
import type { Member, Project } from "../../../domain/projects/projects.ts";
import type { Services } from "../../../domain/services.ts";
import type { AppEnv } from "../../api/openapi.ts";
import type { MessageKey } from "../../i18n/en.ts";
import type { Translate } from "../../i18n/i18n.ts";
import type { SpooledFile } from "../../multipart.ts";
import { type PageCtx, pageCtx } from "../context.ts";
import { type RefusalWords, uploadLimitMb } from "./errors.tsx";
import { ActionNotice, noticesOf } from "./notices.tsx";
import { type Fields, readForm, validateForm } from "./forms.ts";
import { renderFragment, renderPage } from "./layout.tsx";
import { type Shown, submit } from "./submit.ts";

type Ctx = Context<AppEnv>;

/** The project's sections, in tab order: each a path below `/projects/{id}` and a tab label. */
const AREAS = [
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
  "trash",
] as const;

/** A project section. */
export type ProjectArea = (typeof AREAS)[number];

/**
 * The project's section tabs; `current` is marked for assistive technology and styling. The
 * trash is a tab for those who may see it (`trash`: members and owners, not viewers).
 */
export function ProjectNav(
  props: { ctx: PageCtx; projectId: number; current: ProjectArea; trash: boolean },
) {
  const { t } = props.ctx;
  const href = (area: ProjectArea) =>
    area === "dashboard" ? `/projects/${props.projectId}` : `/projects/${props.projectId}/${area}`;
  return (
    <nav class="tabs" aria-label={t("projectNav.label")}>
      {AREAS.filter((area) => area !== "trash" || props.trash).map((area) => (
        <a href={href(area)} aria-current={area === props.current ? "page" : undefined}>
          {t(`projectNav.${area}` as MessageKey)}
        </a>
      ))}
    </nav>
  );
}

/** What an area page knows about its project and the caller's standing in it. */
export interface ProjectFrame {
  ctx: PageCtx;
  /** The services, for loading what a page shows. */
  services: Services;
  project: Project;
  members: Member[];
  /** Whether the caller may add content (a member or owner of an open project, or an admin). */
  canWrite: boolean;
  /** Whether the caller manages the project (an owner or an admin). */
  isOwner: boolean;
  /** Whether the caller may see the project's trash (anyone but a viewer). */
  seesTrash: boolean;
}

/** Loads the project for the caller; throws the domain's `not_found` when they cannot see it. */
export async function loadFrame(
  c: Ctx,
  services: Services,
  projectId: number,
): Promise<ProjectFrame> {
  const ctx = await pageCtx(c, services);
  const { project, members } = await services.projects.get(ctx.actor!, projectId);
  const isAdmin = ctx.user?.role === "admin";
  const isOwner = isAdmin || project.myRole === "owner";
  const canWrite = !project.archived && (isOwner || project.myRole === "member");
  const seesTrash = isOwner || project.myRole === "member";
  return { ctx, services, project, members, canWrite, isOwner, seesTrash };
}

/** Mentions in the project's Markdown resolve to its members; the reader's own stand out. */
export function mentionsOf(frame: ProjectFrame): MentionContext {
  return { members: frame.members, viewerId: frame.ctx.user?.id ?? null };
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

/** A numeric route parameter (0 when absent or malformed, which no row has). */
export function paramId(c: Context, name: string): number {
  const raw = c.req.param(name) ?? "";
  return /^\d{1,15}$/.test(raw) ? Number(raw) : 0;
}

/** Answers an area page: the project's name, its tabs, then `body`. */
export function renderArea(
  c: Ctx,
  frame: ProjectFrame,
  page: { area: ProjectArea; title: string; status?: number | undefined; body: Child },
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
        <ProjectNav
          ctx={ctx}
          projectId={project.id}
          current={page.area}
          trash={frame.seesTrash}
        />
        {project.archived ? <div class="notice">{ctx.t("projects.archivedNotice")}</div> : null}
        {c.req.method === "GET"
          ? (
            <ActionNotice
              ctx={ctx}
              notices={noticesOf(c.req.url)}
              projectId={project.id}
              canUndo={frame.canWrite}
            />
          )
          : null}
        {page.body}
      </>
    ),
  });
}

/** One page of an area: what it loads, its title, and its view. */
export interface AreaPage<D> {
  area: ProjectArea;
  load(c: Ctx, frame: ProjectFrame): D | Promise<D>;
  title(data: D, t: Translate): string;
  /** The page's status when what it loaded says so (default 200). */
  status?(data: D): number | undefined;
  view(props: { frame: ProjectFrame; data: D; shown: Shown }): Child;
  /** The part a script re-renders, answered alone for `?fragment=1`. */
  fragment?(props: { frame: ProjectFrame; data: D }): Child;
}

/** What a form's change is given. */
export interface Change<I> {
  c: Ctx;
  frame: ProjectFrame;
  actor: Actor;
  projectId: number;
  input: I;
  fields: Fields;
  file: SpooledFile | null;
}

/** How one of an area page's forms is read, checked and carried out. */
export interface AreaForm<I> extends Omit<RefusalWords, "maxUploadMb"> {
  /** The form's name on its page (default `form`), or how a request names it. */
  form?: string | ((c: Ctx) => string);
  /** Fields that may repeat (checkboxes), read as comma-separated lists. */
  lists?: string[];
  /** Looked up first: an unknown subject is the 404 page before any field is judged. */
  subject?: (c: Ctx, frame: ProjectFrame) => unknown;
  /** The operation's input schema (the API's), and how the fields are read into its shape. */
  schema?: z.ZodType<I>;
  read?: (fields: Fields, frame: ProjectFrame) => Record<string, unknown>;
  /** Makes the change; returns where to go next. */
  change: (change: Change<I>) => string | Promise<string>;
}

/**
 * The routes of an area's pages, on `app`: `page(path, page)` shows a page (GET),
 * `form(path, page, form)` takes one of its forms (POST), showing the page again on a refusal,
 * and `things` wires the list, create, edit and delete routes most areas have.
 */
export function areaRoutes(services: Services) {
  const app = new Hono<AppEnv>();
  const maxUploadMb = uploadLimitMb(services);

  /**
   * Loads the frame and runs `handler`. A project (or a thing in it) the caller cannot see is
   * the domain's `not_found`: the 404 page (see `pages.ts`), as the API answers 404.
   */
  const run = async (
    c: Ctx,
    handler: (frame: ProjectFrame) => Response | Promise<Response>,
  ): Promise<Response> => await handler(await loadFrame(c, services, paramId(c, "projectId")));

  const render = async <D,>(c: Ctx, frame: ProjectFrame, page: AreaPage<D>, shown: Shown = {}) => {
    const data = await page.load(c, frame);
    return renderArea(c, frame, {
      area: page.area,
      title: page.title(data, frame.ctx.t),
      status: shown.status ?? page.status?.(data),
      body: page.view({ frame, data, shown }),
    });
  };

  /** Shows a page (GET). */
  const page = <D,>(path: string, areaPage: AreaPage<D>): void => {
    app.get(
      path,
      (c) =>
        run(
          c,
          async (frame) =>
            areaPage.fragment && c.req.query("fragment") === "1"
              ? renderFragment(c, areaPage.fragment({ frame, data: await areaPage.load(c, frame) }))
              : await render(c, frame, areaPage),
        ),
    );
  };

  /** Takes one of a page's forms (POST), showing the page again on a refusal. */
  const form = <D, I = undefined>(path: string, on: AreaPage<D>, taken: AreaForm<I>): void => {
    app.post(path, (c) =>
      run(c, async (frame) => {
        await taken.subject?.(c, frame);
        const { fields, file } = await readForm(c, { lists: taken.lists ?? [] });
        const { t, actor } = frame.ctx;
        const input = taken.schema
          ? validateForm(taken.schema, taken.read?.(fields, frame) ?? fields, t, taken.fields)
          : { ok: true as const, data: undefined as I };
        const projectId = frame.project.id;
        return submit(c, (shown) => render(c, frame, on, shown), {
          ...taken,
          t,
          maxUploadMb,
          form: typeof taken.form === "function" ? taken.form(c) : taken.form ?? "form",
          values: fields,
          input,
          change: (data) =>
            taken.change({ c, frame, actor: actor!, projectId, input: data, fields, file }),
        });
      }));
  };

  /**
   * The routes most areas have: the list page and its `create` form (posting to `createAt`,
   * by default the list's path), each thing's page and its `edit` form, and `{item}/delete`.
   */
  const things = <L, D, I>(routes: {
    list: [path: string, page: AreaPage<L>];
    item: [path: string, page: AreaPage<D>];
    createAt?: string;
    form: Pick<AreaForm<I>, "schema" | "read" | "fields" | "lists">;
    create: AreaForm<I>["change"];
    update: AreaForm<I>["change"];
    remove: AreaForm<undefined>["change"];
  }): void => {
    const [[listPath, list], [itemPath, item]] = [routes.list, routes.item];
    page(listPath, list);
    form(routes.createAt ?? listPath, list, {
      ...routes.form,
      form: "create",
      change: routes.create,
    });
    page(itemPath, item);
    form(itemPath, item, { ...routes.form, form: "edit", change: routes.update });
    form(`${itemPath}/delete`, item, { change: routes.remove });
  };

  return { app, run, render, page, form, things };
}
