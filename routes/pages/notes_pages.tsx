/**
 * The notes pages: the list (pinned first, filterable by tag, paged) with the new-note form,
 * and a note in Markdown with its edit and delete forms. Forms work without JavaScript.
 */
import type { Note } from "../../domain/content/notes.ts";
import { type Page, pageRequest } from "../../domain/kernel/paging.ts";
import type { Services } from "../../domain/services.ts";
import { NoteInput } from "../api/notes.ts";
import {
  type AreaPage,
  areaRoutes,
  canEdit,
  mentionsOf,
  nameOf,
  paramId,
  type ProjectFrame,
} from "./kit/area.tsx";
import { BackLink, Markdown, Pager, Time } from "./kit/content.tsx";
import {
  Checkbox,
  EditAndDelete,
  type FormState,
  formState,
  MarkdownField,
  NewForm,
  TextField,
} from "./kit/fields.tsx";
import { checked, type Fields, tagList } from "./kit/forms.ts";
import { Alert } from "./kit/layout.tsx";
import { afterCreate, afterDelete, afterSave } from "./kit/notices.tsx";
import { live } from "./kit/live.tsx";

const FIELDS = { tags: "notes.tagsInvalid" } as const;

/** The note form's fields read into the input of a create or update. */
function readNote(fields: Fields) {
  return { ...fields, tags: tagList(fields.tags), pinned: checked(fields.pinned) };
}

function Tags(props: { frame: ProjectFrame; tags: string[] }) {
  if (props.tags.length === 0) return null;
  const base = `/projects/${props.frame.project.id}/notes`;
  return (
    <span class="tags row">
      {props.tags.map((tag) => (
        <a class="tag" href={`${base}?tag=${encodeURIComponent(tag)}`} data-tag={tag}>{tag}</a>
      ))}
    </span>
  );
}

/** The title, body, tags and pinned fields, shared by the new and edit forms. */
function NoteFields(props: { frame: ProjectFrame; form: FormState }) {
  const { t } = props.frame.ctx;
  const { form } = props;
  return (
    <>
      <TextField label={t("content.title")} schema={NoteInput} name="title" form={form} />
      <MarkdownField
        t={t}
        label={t("content.body")}
        schema={NoteInput}
        name="body"
        form={form}
        rows={12}
      />
      <TextField
        label={t("notes.tags")}
        schema={NoteInput}
        name="tags"
        form={form}
        hint={t("notes.tagsHint")}
      />
      <Checkbox label={t("content.pinOnTop")} name="pinned" form={form} />
    </>
  );
}

interface NoteList {
  notes: Page<Note>;
  tag: string | null;
}

const notesPage: AreaPage<NoteList> = {
  area: "notes",
  load: async (c, frame) => {
    const tag = c.req.query("tag")?.trim() || null;
    const page = pageRequest({ page: c.req.query("page") }, { clampPage: true });
    return {
      tag,
      notes: await frame.services.notes.list(frame.ctx.actor!, frame.project.id, { tag, page }),
    };
  },
  title: (_, t) => t("notes.title"),
  view: ({ frame, data: { notes, tag }, shown }) => {
    const { t } = frame.ctx;
    const base = `/projects/${frame.project.id}/notes`;
    const form = formState(shown, "create");
    return (
      <>
        <h1>{tag === null ? t("notes.title") : t("notes.filteredBy", { tag })}</h1>
        <Alert message={shown.message} />
        {tag !== null
          ? (
            <p>
              <a href={base}>{t("notes.showAll")}</a>
            </p>
          )
          : null}
        <NewForm
          canWrite={frame.canWrite}
          form={form}
          summary={t("notes.new")}
          action={base}
          submit={t("notes.create")}
        >
          <NoteFields frame={frame} form={form} />
        </NewForm>
        {notes.items.length === 0
          ? <p class="muted">{t("notes.none")}</p>
          : (
            <ul class="plain card notes">
              {notes.items.map((note) => (
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
        <Pager ctx={frame.ctx} page={notes} path={base} query={{ tag }} />
      </>
    );
  },
};

const notePage: AreaPage<Note> = {
  area: "notes",
  load: (c, frame) =>
    frame.services.notes.get(frame.ctx.actor!, frame.project.id, paramId(c, "noteId")),
  title: (note) => note.title,
  view: ({ frame, data: note, shown }) => {
    const { t } = frame.ctx;
    const base = `/projects/${frame.project.id}/notes/${note.id}`;
    const form = formState(shown, "edit", {
      title: note.title,
      body: note.body,
      tags: note.tags.join(", "),
      ...(note.pinned ? { pinned: "on" } : {}),
    });
    return (
      <>
        <BackLink href={`/projects/${frame.project.id}/notes`} label={t("notes.back")} />
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
          <Alert message={shown.message} />
          <div class="card">
            <Markdown source={note.body} mentions={mentionsOf(frame)} />
          </div>
        </article>
        <EditAndDelete
          show={canEdit(frame, note.authorId)}
          form={form}
          action={base}
          summary={t("notes.edit")}
          submit={t("content.save")}
          remove={{ label: t("notes.delete"), confirm: t("notes.deleteConfirm") }}
        >
          <NoteFields frame={frame} form={form} />
        </EditAndDelete>
      </>
    );
  },
};

/** The notes pages. */
export function notesPages(services: Services) {
  const { notes } = services;
  const area = areaRoutes(services);
  const P = "/projects/:projectId{[0-9]+}/notes";
  const N = `${P}/:noteId{[0-9]+}`;

  area.things({
    list: [P, live(notesPage, ["notes"])],
    item: [N, notePage],
    form: { schema: NoteInput, read: readNote, fields: FIELDS },
    create: async ({ actor, projectId, input }) => {
      const { id } = await notes.create(actor, projectId, input);
      return afterCreate(`/projects/${projectId}/notes/${id}`, { type: "note", id });
    },
    update: async ({ c, actor, projectId, input }) => {
      const note = await notes.update(actor, projectId, { noteId: paramId(c, "noteId"), ...input });
      return afterSave(`/projects/${projectId}/notes/${note.id}`, { type: "note", id: note.id });
    },
    remove: async ({ c, actor, projectId }) => {
      const removed = await notes.remove(actor, projectId, paramId(c, "noteId"));
      return afterDelete(`/projects/${projectId}/notes`, removed);
    },
  });
  return area.app;
}
