/**
 * The notes pages: the list (pinned first, filterable by tag, paged) with the new-note form,
 * and a note in Markdown with its edit and delete forms. Forms work without JavaScript.
 */
import { parseForm } from "./forms.ts";
import { type Context, Hono } from "hono";
import type { Note } from "../../domain/notes.ts";
import { type Page, pageRequest } from "../../domain/paging.ts";
import type { Services } from "../../domain/services.ts";
import type { AppEnv } from "../api/openapi.ts";
import type { Translate } from "../i18n/i18n.ts";
import { FormCard, MarkdownField, TitleField } from "./components.tsx";
import { Alert, FieldError } from "./layout.tsx";
import { notFound } from "./project_pages.tsx";
import {
  attempt,
  canEdit,
  checkText,
  type FormState,
  frameRunner,
  Markdown,
  nameOf,
  Pager,
  paramId,
  type ProjectFrame,
  type ReadForm,
  renderArea,
  splitBody,
  submitForm,
  Time,
} from "./project_nav.tsx";

const TITLE_MAX = 200;
const BODY_MAX = 100_000;
const TAG_MAX = 50;
const TAGS_MAX = 20;

type Ctx = Context<AppEnv>;

/** Tags typed as one comma-separated field (a Japanese comma works too). */
function parseTags(raw: string | undefined): string[] {
  return [...new Set((raw ?? "").split(/[,、，]/).map((s) => s.trim()).filter(Boolean))];
}

/** A checked note form. */
function readNoteForm(
  fields: Record<string, string>,
  t: Translate,
): ReadForm<{ title: string; body: string; tags: string[]; pinned: boolean }> {
  const errors: Record<string, string> = {};
  checkText(errors, t, { name: "title", value: fields.title, max: TITLE_MAX, required: true });
  checkText(errors, t, { name: "body", value: fields.body, max: BODY_MAX, required: false });
  const tags = parseTags(fields.tags);
  if (tags.length > TAGS_MAX || tags.some((tag) => tag.length > TAG_MAX)) {
    errors.tags = t("notes.tagsInvalid");
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    input: { title: fields.title!, body: fields.body ?? "", tags, pinned: fields.pinned === "on" },
  };
}

function tagHref(projectId: number, tag: string): string {
  return `/projects/${projectId}/notes?tag=${encodeURIComponent(tag)}`;
}

function Tags(props: { frame: ProjectFrame; tags: string[] }) {
  if (props.tags.length === 0) return null;
  return (
    <span class="tags row">
      {props.tags.map((tag) => (
        <a class="tag" href={tagHref(props.frame.project.id, tag)} data-tag={tag}>{tag}</a>
      ))}
    </span>
  );
}

/** The title, body, tags and pinned fields, shared by the new and edit forms. */
function NoteFields(
  props: { frame: ProjectFrame; values: Record<string, string>; errors: Record<string, string> },
) {
  const { t } = props.frame.ctx;
  const { values, errors } = props;
  return (
    <>
      <TitleField
        label={t("content.title")}
        max={TITLE_MAX}
        value={values.title ?? ""}
        error={errors.title}
      />
      <MarkdownField
        t={t}
        label={t("content.body")}
        name="body"
        value={values.body}
        max={BODY_MAX}
        rows={12}
        error={errors.body}
      />
      <label>
        {t("notes.tags")}
        <input name="tags" value={values.tags ?? ""} />
        <span class="hint">{t("notes.tagsHint")}</span>
        <FieldError message={errors.tags} />
      </label>
      <label class="check">
        <input type="checkbox" name="pinned" value="on" checked={values.pinned === "on"} />
        {t("content.pinOnTop")}
      </label>
    </>
  );
}

function NotesPage(
  props: {
    frame: ProjectFrame;
    notes: Page<Note>;
    tag: string | null;
    message?: string | null;
    state: FormState;
  },
) {
  const { frame, tag } = props;
  const { t } = frame.ctx;
  const base = `/projects/${frame.project.id}/notes`;
  const errors = props.state.errors ?? {};
  return (
    <>
      <h1>{tag === null ? t("notes.title") : t("notes.filteredBy", { tag })}</h1>
      <Alert message={props.message} />
      {tag !== null
        ? (
          <p>
            <a href={base}>{t("notes.showAll")}</a>
          </p>
        )
        : null}
      {frame.canWrite
        ? (
          <FormCard
            open={props.state.values !== undefined}
            summary={t("notes.new")}
            action={base}
            submit={t("notes.create")}
          >
            <NoteFields frame={frame} values={props.state.values ?? {}} errors={errors} />
          </FormCard>
        )
        : null}
      {props.notes.items.length === 0
        ? <p class="muted">{t("notes.none")}</p>
        : (
          <ul class="plain card notes">
            {props.notes.items.map((note) => (
              <li data-note={note.id}>
                <div class="row">
                  {note.pinned ? <span class="tag pinned">{t("content.pinned")}</span> : null}
                  <a href={`${base}/${note.id}`}>
                    <strong>{note.title}</strong>
                  </a>
                  <Tags frame={frame} tags={note.tags} />
                </div>
                <div class="meta muted row">
                  <span>{t("content.by", { name: nameOf(frame, note.authorId) })}</span>
                  <Time ctx={frame.ctx} iso={note.updatedAt} />
                </div>
              </li>
            ))}
          </ul>
        )}
      <Pager ctx={frame.ctx} page={props.notes} path={base} query={{ tag }} />
    </>
  );
}

function NotePage(
  props: { frame: ProjectFrame; note: Note; message?: string | null; state?: FormState },
) {
  const { frame, note } = props;
  const { t } = frame.ctx;
  const base = `/projects/${frame.project.id}/notes/${note.id}`;
  const values = props.state?.values ?? {
    title: note.title,
    body: note.body,
    tags: note.tags.join(", "),
    ...(note.pinned ? { pinned: "on" } : {}),
  };
  return (
    <>
      <p>
        <a href={`/projects/${frame.project.id}/notes`}>{t("notes.back")}</a>
      </p>
      <article class="note-view" data-note={note.id}>
        <div class="row">
          <h1>{note.title}</h1>
          {note.pinned ? <span class="tag pinned">{t("content.pinned")}</span> : null}
        </div>
        <div class="meta muted row">
          <span>{t("content.by", { name: nameOf(frame, note.authorId) })}</span>
          <Time ctx={frame.ctx} iso={note.createdAt} />
          <Tags frame={frame} tags={note.tags} />
        </div>
        <Alert message={props.message} />
        <div class="card">
          <Markdown source={note.body} />
        </div>
      </article>
      {canEdit(frame, note.authorId)
        ? (
          <>
            <FormCard
              open={props.state !== undefined}
              summary={t("notes.edit")}
              action={base}
              submit={t("content.save")}
            >
              <NoteFields frame={frame} values={values} errors={props.state?.errors ?? {}} />
            </FormCard>
            <form method="post" action={`${base}/delete`} data-confirm={t("notes.deleteConfirm")}>
              <button class="danger" type="submit">{t("notes.delete")}</button>
            </form>
          </>
        )
        : null}
    </>
  );
}

/** The notes pages. */
export function notesPages(services: Services) {
  const app = new Hono<AppEnv>();
  const { notes } = services;
  const run = frameRunner(services, { notFound });
  const P = "/projects/:projectId{[0-9]+}/notes";
  const N = `${P}/:noteId{[0-9]+}`;

  const showList = (
    c: Ctx,
    frame: ProjectFrame,
    extra: { status?: number; message?: string; state?: FormState } = {},
  ) => {
    const tag = c.req.query("tag")?.trim() || null;
    const page = notes.list(frame.ctx.actor!, frame.project.id, {
      tag,
      page: pageRequest({ page: c.req.query("page") }, { clampPage: true }),
    });
    return renderArea(c, frame, {
      area: "notes",
      title: frame.ctx.t("notes.title"),
      status: extra.status ?? 200,
      body: (
        <NotesPage
          frame={frame}
          notes={page}
          tag={tag}
          message={extra.message ?? null}
          state={extra.state ?? {}}
        />
      ),
    });
  };

  const showNote = (
    c: Ctx,
    frame: ProjectFrame,
    extra: { status?: number; message?: string; state?: FormState } = {},
  ) => {
    const note = notes.get(frame.ctx.actor!, frame.project.id, paramId(c, "noteId"));
    return renderArea(c, frame, {
      area: "notes",
      title: note.title,
      status: extra.status ?? 200,
      body: (
        <NotePage
          frame={frame}
          note={note}
          message={extra.message ?? null}
          {...(extra.state ? { state: extra.state } : {})}
        />
      ),
    });
  };

  app.get(P, (c) => run(c, (frame) => showList(c, frame)));

  app.post(P, (c) =>
    run(c, async (frame) => {
      const { t, actor } = frame.ctx;
      const fields = splitBody(await parseForm(c)).fields;
      return submitForm(c, frame, {
        form: readNoteForm(fields, t),
        values: fields,
        change: (input) => {
          const note = notes.create(actor!, frame.project.id, input);
          return `/projects/${frame.project.id}/notes/${note.id}`;
        },
        show: (failure, state) => showList(c, frame, { ...failure, state }),
      });
    }));

  app.get(N, (c) => run(c, (frame) => showNote(c, frame)));

  app.post(N, (c) =>
    run(c, async (frame) => {
      const { t, actor } = frame.ctx;
      const fields = splitBody(await parseForm(c)).fields;
      const noteId = paramId(c, "noteId");
      return submitForm(c, frame, {
        form: readNoteForm(fields, t),
        values: fields,
        change: (input) => {
          notes.update(actor!, frame.project.id, { noteId, ...input });
          return `/projects/${frame.project.id}/notes/${noteId}`;
        },
        show: (failure, state) => showNote(c, frame, { ...failure, state }),
      });
    }));

  app.post(`${N}/delete`, (c) =>
    run(c, (frame) =>
      attempt(c, frame, {
        change: () => {
          notes.remove(frame.ctx.actor!, frame.project.id, paramId(c, "noteId"));
          return `/projects/${frame.project.id}/notes`;
        },
        fail: (failure) => showNote(c, frame, failure),
      })));

  return app;
}
