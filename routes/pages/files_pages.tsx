/**
 * The files page: an upload form (multipart, works without JavaScript) and the project's
 * files, newest first, each with its thumbnail when an image, size, uploader, download link and
 * delete button; and the preview route that shows an image inline.
 */
import { invalid } from "../../domain/kernel/errors.ts";
import { isPreviewType } from "../../domain/formats/file_types.ts";
import type { FileInfo } from "../../domain/content/files.ts";
import { type Page, pageRequest } from "../../domain/kernel/paging.ts";
import type { Services } from "../../domain/services.ts";
import {
  type AreaPage,
  areaRoutes,
  canEdit,
  nameOf,
  paramId,
  type ProjectFrame,
} from "./kit/area.tsx";
import { formatSize } from "../i18n/format.ts";
import { contentDisposition } from "../api/files.ts";
import { Pager, Table, Thumbnail, Time } from "./kit/content.tsx";
import { uploadLimitMb } from "./kit/errors.tsx";
import { ButtonForm, Field, formState, PostForm } from "./kit/fields.tsx";
import { Alert } from "./kit/layout.tsx";
import type { Shown } from "./kit/submit.ts";
import { afterCreate, afterDelete } from "./kit/notices.tsx";
import { live } from "./kit/live.tsx";

type Source = "upload" | "attachment";
const SOURCES: Source[] = ["upload", "attachment"];

/** A page of the project's files, of one source or all. */
interface Files {
  files: Page<FileInfo>;
  source: Source | null;
}

function FilesPage(props: { frame: ProjectFrame; data: Files; shown: Shown }) {
  const { frame, shown } = props;
  const { files, source } = props.data;
  const { t, locale } = frame.ctx;
  const base = `/projects/${frame.project.id}/files`;
  return (
    <>
      <h1>{t("files.title")}</h1>
      <Alert message={shown.message} />
      {frame.canWrite
        ? (
          <PostForm
            action={base}
            submit={t("files.upload")}
            attrs={{ class: "card stack", enctype: "multipart/form-data" }}
          >
            <Field label={t("files.uploadTitle")} error={formState(shown, "upload").errors.file}>
              <input type="file" name="file" required />
              <span class="hint">
                {t("files.allowed", { mb: uploadLimitMb(frame.services) })}
              </span>
            </Field>
          </PostForm>
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
      {files.items.length === 0 ? <p class="muted">{t("files.none")}</p> : (
        <Table
          wrap="card table-wrap"
          class="files"
          heads={[
            t("files.name"),
            t("files.size"),
            t("files.source"),
            t("files.uploader"),
            t("files.uploaded"),
            { hidden: t("content.actions") },
          ]}
        >
          {files.items.map((f) => (
            <tr data-file={f.id}>
              <td>
                <Thumbnail file={f} />
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
                    <ButtonForm
                      class="inline"
                      action={`${base}/${f.id}/delete`}
                      label={t("content.delete")}
                      confirm={t("files.deleteConfirm")}
                    />
                  )
                  : null}
              </td>
            </tr>
          ))}
        </Table>
      )}
      <Pager ctx={frame.ctx} page={files} path={base} query={{ source }} />
    </>
  );
}

const filesPage: AreaPage<Files> = {
  area: "files",
  load: async (c, { services, ctx, project }) => {
    const raw = c.req.query("source") as Source;
    const source = SOURCES.includes(raw) ? raw : null;
    const page = pageRequest({ page: c.req.query("page") }, { clampPage: true });
    return { source, files: await services.files.list(ctx.actor!, project.id, { source, page }) };
  },
  title: (_, t) => t("files.title"),
  view: (props) => <FilesPage {...props} />,
};

/** The files pages. */
export function filesPages(services: Services) {
  const { files } = services;
  const area = areaRoutes(services);
  const P = "/projects/:projectId{[0-9]+}/files";

  area.page(P, live(filesPage, ["files"]));
  area.form(P, filesPage, {
    form: "upload",
    fields: { file: "files.missing" },
    change: async ({ actor, projectId, file }) => {
      if (!file) throw invalid("file", "Choose a file to upload");
      const { id } = await files.upload(actor, projectId, file);
      return afterCreate(`/projects/${projectId}/files`, { type: "file", id });
    },
  });
  // An image (sniffed from its stored bytes) inline, sandboxed; any other file as a download.
  area.app.get(`${P}/:fileId{[0-9]+}/preview`, (c) =>
    area.run(c, async (frame) => {
      const preview = await services.filePreviews.open(
        frame.ctx.actor!,
        frame.project.id,
        paramId(c, "fileId"),
      );
      const { file, imageType } = preview;
      // A name that says image on bytes that are not one is no image type either.
      const storedType = isPreviewType(file.contentType)
        ? "application/octet-stream"
        : file.contentType;
      // No cache keeps it: every signed-in answer is `no-store` (the session middleware).
      const headers = {
        "content-type": imageType ?? storedType,
        "content-length": String(preview.size),
        "content-disposition": contentDisposition(file.name, imageType ? "inline" : "attachment"),
        "x-content-type-options": "nosniff",
        "content-security-policy": "sandbox; default-src 'none'",
      };
      return new Response(preview.bytes, { headers });
    }));
  area.form(`${P}/:fileId{[0-9]+}/delete`, filesPage, {
    change: async ({ c, actor, projectId }) => {
      const removed = await files.remove(actor, projectId, paramId(c, "fileId"));
      return afterDelete(`/projects/${projectId}/files`, removed);
    },
  });
  return area.app;
}
