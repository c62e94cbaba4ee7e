/**
 * The files page: an upload form (multipart, works without JavaScript) and the project's
 * files, newest first, each with its size, uploader, download link and delete button.
 */
import { parseForm } from "./forms.ts";
import { type Context, Hono } from "hono";
import { allowedType } from "../../domain/file_types.ts";
import type { FileInfo } from "../../domain/files.ts";
import { type Page, pageRequest } from "../../domain/paging.ts";
import type { Services } from "../../domain/services.ts";
import type { AppEnv } from "../api/openapi.ts";
import { pageCtx } from "./context.ts";
import { Alert, FieldError, renderPage } from "./layout.tsx";
import { notFound } from "./project_pages.tsx";
import {
  attempt,
  canEdit,
  type Failure,
  formatSize,
  frameRunner,
  nameOf,
  Pager,
  paramId,
  type ProjectFrame,
  renderArea,
  splitBody,
  Time,
  uploadLimitMb,
} from "./project_nav.tsx";

type Source = "upload" | "attachment";
const SOURCES: Source[] = ["upload", "attachment"];

function FilesPage(
  props: {
    frame: ProjectFrame;
    files: Page<FileInfo>;
    source: Source | null;
    maxUploadMb: number;
    message?: string | null;
    fileError?: string | undefined;
  },
) {
  const { frame, source } = props;
  const { t, locale } = frame.ctx;
  const base = `/projects/${frame.project.id}/files`;
  return (
    <>
      <h1>{t("files.title")}</h1>
      <Alert message={props.message} />
      {frame.canWrite
        ? (
          <form class="card stack" method="post" action={base} enctype="multipart/form-data">
            <label>
              {t("files.uploadTitle")}
              <input type="file" name="file" required />
              <span class="hint">{t("files.allowed", { mb: props.maxUploadMb })}</span>
              <FieldError message={props.fileError} />
            </label>
            <div>
              <button type="submit">{t("files.upload")}</button>
            </div>
          </form>
        )
        : null}
      <nav class="filters row" aria-label={t("files.source")}>
        <a href={base} aria-current={source === null ? "page" : undefined}>{t("content.all")}</a>
        {SOURCES.map((s) => (
          <a href={`${base}?source=${s}`} aria-current={source === s ? "page" : undefined}>
            {t(`files.filter.${s}`)}
          </a>
        ))}
      </nav>
      {props.files.items.length === 0
        ? <p class="muted">{t("files.none")}</p>
        : (
          <div class="card table-wrap">
            <table class="files">
              <thead>
                <tr>
                  <th>{t("files.name")}</th>
                  <th>{t("files.size")}</th>
                  <th>{t("files.source")}</th>
                  <th>{t("files.uploader")}</th>
                  <th>{t("files.uploaded")}</th>
                  <th></th>
                </tr>
              </thead>
              <tbody>
                {props.files.items.map((f) => (
                  <tr data-file={f.id}>
                    <td>
                      <a href={f.downloadUrl} download={f.name} title={t("files.download")}>
                        {f.name}
                      </a>
                    </td>
                    <td class="num">{formatSize(f.size, locale)}</td>
                    <td>{t(`files.source.${f.source}`)}</td>
                    <td>{nameOf(frame, f.uploaderId)}</td>
                    <td class="muted">
                      <Time ctx={frame.ctx} iso={f.createdAt} />
                    </td>
                    <td>
                      {canEdit(frame, f.uploaderId)
                        ? (
                          <form
                            class="inline"
                            method="post"
                            action={`${base}/${f.id}/delete`}
                            data-confirm={t("files.deleteConfirm")}
                          >
                            <button class="danger" type="submit">{t("content.delete")}</button>
                          </form>
                        )
                        : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      <Pager ctx={frame.ctx} page={props.files} path={base} query={{ source }} />
    </>
  );
}

/**
 * The page answered when an upload is larger than the limit (the body limit stops reading
 * it): the message and a way back to the form, with status 413.
 */
export function tooLargePage(c: Context<AppEnv>, services: Services) {
  const ctx = pageCtx(c, services);
  const back = c.req.path.replace(/\/comments$/, "");
  return renderPage(c, ctx, {
    title: ctx.t("files.tooLarge", { mb: uploadLimitMb(services) }),
    status: 413,
    body: (
      <div class="card narrow">
        <div class="alert" role="alert">
          {ctx.t("files.tooLarge", { mb: uploadLimitMb(services) })}
        </div>
        <p>
          <a href={back}>{ctx.t("common.back")}</a>
        </p>
      </div>
    ),
  });
}

/** The files pages. */
export function filesPages(services: Services) {
  const app = new Hono<AppEnv>();
  const { files } = services;
  const maxUploadMb = uploadLimitMb(services);
  const run = frameRunner(services, { notFound });
  const P = "/projects/:projectId{[0-9]+}/files";

  const show = (c: Context<AppEnv>, frame: ProjectFrame, failure?: Failure) => {
    const raw = c.req.query("source");
    const source = SOURCES.includes(raw as Source) ? raw as Source : null;
    const page = files.list(frame.ctx.actor!, frame.project.id, {
      source,
      page: pageRequest({ page: c.req.query("page") }, { clampPage: true }),
    });
    const fileError = failure && failure.status !== 403 ? failure.message : undefined;
    return renderArea(c, frame, {
      area: "files",
      title: frame.ctx.t("files.title"),
      status: failure?.status ?? 200,
      body: (
        <FilesPage
          frame={frame}
          files={page}
          source={source}
          maxUploadMb={maxUploadMb}
          message={failure?.message ?? null}
          fileError={fileError}
        />
      ),
    });
  };

  app.get(P, (c) => run(c, (frame) => show(c, frame)));

  app.post(P, (c) =>
    run(c, async (frame) => {
      const { t, actor } = frame.ctx;
      const { file } = splitBody(await parseForm(c));
      if (!file) return show(c, frame, { status: 400, message: t("files.missing") });
      if (!allowedType(file.name)) {
        return show(c, frame, { status: 415, message: t("files.unsupported") });
      }
      return attempt(c, frame, {
        maxUploadMb,
        change: async () => {
          await files.upload(actor!, frame.project.id, file);
          return `/projects/${frame.project.id}/files`;
        },
        fail: (failure) => show(c, frame, failure),
      });
    }));

  app.post(`${P}/:fileId{[0-9]+}/delete`, (c) =>
    run(c, (frame) =>
      attempt(c, frame, {
        change: () => {
          files.remove(frame.ctx.actor!, frame.project.id, paramId(c, "fileId"));
          return `/projects/${frame.project.id}/files`;
        },
        fail: (failure) => show(c, frame, failure),
      })));

  return app;
}
