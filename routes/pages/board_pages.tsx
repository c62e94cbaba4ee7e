/**
 * The message board pages: the thread list (by category, pinned first, paged) with the
 * new-thread form, and a thread with its attachments, comments and reply form. Every form
 * works without JavaScript: POST, then 303; a refusal re-renders with its message.
 */
import type { Category, Comment, Thread } from "../../domain/content/board.ts";
import type { FileInfo } from "../../domain/content/files.ts";
import { type Page, pageRequest } from "../../domain/kernel/paging.ts";
import type { Services } from "../../domain/services.ts";
import { CommentInput, CommentPatch, ThreadInput } from "../api/board.ts";
import type { Translate } from "../i18n/i18n.ts";
import {
  type AreaPage,
  areaRoutes,
  canEdit,
  mentionsOf,
  nameOf,
  paramId,
  type ProjectFrame,
} from "./kit/area.tsx";
import { AttachmentItem, Markdown, Pager, Time } from "./kit/content.tsx";
import {
  ButtonForm,
  Checkbox,
  FileField,
  FormCard,
  type FormState,
  formState,
  MarkdownBox,
  MarkdownField,
  PostForm,
  SelectField,
  TextArea,
  TextField,
} from "./kit/fields.tsx";
import { checked, type Fields } from "./kit/forms.ts";
import { Alert, FieldError } from "./kit/layout.tsx";
import { FilePicker, pickableFiles, pickedFileIds, PICKER_FIELDS } from "./kit/file_picker.tsx";
import type { Shown } from "./kit/submit.ts";
import { afterCreate, afterDelete, afterSave } from "./kit/notices.tsx";
import { live } from "./kit/live.tsx";

const MULTIPART = { enctype: "multipart/form-data" };

function categoryLabel(t: Translate, category: string): string {
  return t(`board.category.${category as Category}`);
}

/** A subject's attachments, each a download link with its size. */
function Attachments(props: { frame: ProjectFrame; files: FileInfo[] }) {
  const { t, locale } = props.frame.ctx;
  if (props.files.length === 0) return null;
  return (
    <div class="attachments">
      <strong>{t("content.attachments")}</strong>
      <ul class="plain">
        {props.files.map((f) => <AttachmentItem key={f.id} file={f} locale={locale} />)}
      </ul>
    </div>
  );
}

function ThreadItem(props: { frame: ProjectFrame; thread: Thread }) {
  const { frame, thread } = props;
  const { t } = frame.ctx;
  return (
    <li class="thread" data-thread={thread.id}>
      <div class="row">
        {thread.pinned ? <span class="tag pinned">{t("content.pinned")}</span> : null}
        <a href={`/projects/${frame.project.id}/board/${thread.id}`}>
          <strong>{thread.title}</strong>
        </a>
        <span class="tag">{categoryLabel(t, thread.category)}</span>
      </div>
      <div class="meta muted row">
        <span>{t("content.by", { name: nameOf(frame, thread.authorId) })}</span>
        <Time ctx={frame.ctx} iso={thread.createdAt} />
        <span>{t("board.commentCount", { count: thread.commentCount })}</span>
        {thread.attachments.length > 0
          ? <span>{t("board.attachmentCount", { count: thread.attachments.length })}</span>
          : null}
      </div>
    </li>
  );
}

/** The title, category and body of a thread, shared by the new and edit forms. */
function ThreadFields(props: { frame: ProjectFrame; form: FormState }) {
  const { frame, form } = props;
  const { t } = frame.ctx;
  return (
    <>
      <TextField label={t("content.title")} schema={ThreadInput} name="title" form={form} />
      <SelectField
        label={t("board.category")}
        name="category"
        form={form}
        options={frame.services.board.categories.map((c) => [c, categoryLabel(t, c)])}
        initial="general"
      />
      <MarkdownField t={t} label={t("content.body")} schema={ThreadInput} name="body" form={form} />
    </>
  );
}

interface Threads {
  category: Category | null;
  threads: Page<Thread>;
  /** The project's files a new thread may attach. */
  pickable: FileInfo[];
}

const boardPage: AreaPage<Threads> = {
  area: "board",
  load: async (c, { services, ctx, project, canWrite }) => {
    const raw = c.req.query("category") as Category;
    const category = services.board.categories.includes(raw) ? raw : null;
    const page = pageRequest({ page: c.req.query("page") }, { clampPage: true });
    return {
      category,
      threads: await services.board.list(ctx.actor!, project.id, { category, page }),
      pickable: canWrite ? await pickableFiles(services, ctx.actor!, project.id) : [],
    };
  },
  title: (_, t) => t("board.title"),
  view: ({ frame, data: { category, threads, pickable }, shown }) => {
    const { t } = frame.ctx;
    const base = `/projects/${frame.project.id}/board`;
    const form = formState(shown, "create");
    return (
      <>
        <h1>{t("board.title")}</h1>
        <Alert message={shown.message} />
        {frame.canWrite
          ? (
            <FormCard
              open={form.refused}
              summary={t("board.new")}
              action={base}
              submit={t("board.post")}
              attrs={MULTIPART}
            >
              <ThreadFields frame={frame} form={form} />
              <Checkbox label={t("content.pinOnTop")} name="pinned" form={form} />
              <FileField t={t} error={form.errors.file} />
              <FilePicker
                ctx={frame.ctx}
                files={pickable}
                value={form.values.fileId}
                error={form.errors.fileIds}
              />
            </FormCard>
          )
          : null}
        <nav class="filters row" aria-label={t("board.categoryFilter")}>
          <a href={base} aria-current={category === null ? "page" : undefined}>
            {t("content.all")}
          </a>
          {frame.services.board.categories.map((c) => (
            <a href={`${base}?category=${c}`} aria-current={category === c ? "page" : undefined}>
              {categoryLabel(t, c)}
            </a>
          ))}
        </nav>
        {threads.items.length === 0
          ? <p class="muted">{t("board.none")}</p>
          : (
            <ul class="plain card threads">
              {threads.items.map((thread) => (
                <ThreadItem key={thread.id} frame={frame} thread={thread} />
              ))}
            </ul>
          )}
        <Pager ctx={frame.ctx} page={threads} path={base} query={{ category }} />
      </>
    );
  },
};

function CommentItem(
  props: { frame: ProjectFrame; thread: Thread; comment: Comment; shown: Shown },
) {
  const { frame, thread, comment } = props;
  const { t } = frame.ctx;
  const base = `/projects/${frame.project.id}/board/${thread.id}/comments/${comment.id}`;
  const form = formState(props.shown, `comment-${comment.id}`, { body: comment.body });
  return (
    <article class="card comment" id={`comment-${comment.id}`} data-comment={comment.id}>
      <div class="meta muted row">
        <strong>{nameOf(frame, comment.authorId)}</strong>
        <Time ctx={frame.ctx} iso={comment.createdAt} />
        {comment.updatedAt !== comment.createdAt
          ? <EditedAt frame={frame} iso={comment.updatedAt} />
          : null}
      </div>
      <Markdown source={comment.body} mentions={mentionsOf(frame)} />
      <Attachments frame={frame} files={comment.attachments} />
      {canEdit(frame, comment.authorId)
        ? (
          <div class="row actions">
            <details open={form.refused}>
              <summary>{t("board.editComment")}</summary>
              <PostForm action={base} submit={t("content.save")}>
                <MarkdownBox t={t}>
                  <TextArea
                    schema={CommentPatch}
                    name="body"
                    value={form.values.body}
                    label={t("board.comment")}
                  />
                </MarkdownBox>
                <FieldError message={form.errors.body} />
              </PostForm>
            </details>
            <ButtonForm
              class="inline"
              action={`${base}/delete`}
              label={t("board.deleteComment")}
              confirm={t("board.deleteCommentConfirm")}
            />
          </div>
        )
        : null}
    </article>
  );
}

function EditedAt(props: { frame: ProjectFrame; iso: string }) {
  const { t } = props.frame.ctx;
  const [before = "", after = ""] = t("content.edited", { time: "\u0000" }).split("\u0000");
  return (
    <span>
      {before}
      <Time ctx={props.frame.ctx} iso={props.iso} />
      {after}
    </span>
  );
}

const threadPage: AreaPage<{ thread: Thread; comments: Comment[]; pickable: FileInfo[] }> = {
  area: "board",
  load: async (c, { services, ctx, project, canWrite }) => ({
    ...(await services.board.get(ctx.actor!, project.id, paramId(c, "threadId"))),
    pickable: canWrite ? await pickableFiles(services, ctx.actor!, project.id) : [],
  }),
  title: ({ thread }) => thread.title,
  view: ({ frame, data: { thread, comments, pickable }, shown }) => {
    const { t } = frame.ctx;
    const base = `/projects/${frame.project.id}/board/${thread.id}`;
    const edit = formState(shown, "edit", {
      title: thread.title,
      category: thread.category,
      body: thread.body,
    });
    const reply = formState(shown, "reply");
    return (
      <>
        <p>
          <a href={`/projects/${frame.project.id}/board`}>{t("board.back")}</a>
        </p>
        <article class="thread-view" data-thread={thread.id}>
          <div class="row">
            <h1>{thread.title}</h1>
            {thread.pinned ? <span class="tag pinned">{t("content.pinned")}</span> : null}
            <span class="tag">{categoryLabel(t, thread.category)}</span>
          </div>
          <div class="meta muted row">
            <span>{t("content.by", { name: nameOf(frame, thread.authorId) })}</span>
            <Time ctx={frame.ctx} iso={thread.createdAt} />
            {thread.updatedAt !== thread.createdAt
              ? <EditedAt frame={frame} iso={thread.updatedAt} />
              : null}
          </div>
          <Alert message={shown.message} />
          <div class="card">
            <Markdown source={thread.body} mentions={mentionsOf(frame)} />
            <Attachments frame={frame} files={thread.attachments} />
          </div>
        </article>
        {canEdit(frame, thread.authorId)
          ? (
            <>
              <div class="row actions">
                <ButtonForm
                  class="inline"
                  action={`${base}/pin`}
                  label={thread.pinned ? t("board.unpin") : t("board.pin")}
                  button="secondary"
                >
                  <input type="hidden" name="pinned" value={thread.pinned ? "false" : "true"} />
                </ButtonForm>
                <ButtonForm
                  class="inline"
                  action={`${base}/delete`}
                  label={t("board.delete")}
                  confirm={t("board.deleteConfirm")}
                />
              </div>
              <FormCard
                open={edit.refused}
                summary={t("board.edit")}
                action={base}
                submit={t("content.save")}
                attrs={MULTIPART}
              >
                <ThreadFields frame={frame} form={edit} />
                <FileField t={t} error={edit.errors.file} />
                <FilePicker
                  ctx={frame.ctx}
                  files={pickable.filter((f) => !thread.attachments.some((a) => a.id === f.id))}
                  value={edit.values.fileId}
                  error={edit.errors.fileIds}
                />
              </FormCard>
            </>
          )
          : null}
        <h2>{t("board.comments")}</h2>
        {comments.length === 0 ? <p class="muted">{t("board.noComments")}</p> : null}
        {comments.map((comment) => (
          <CommentItem
            key={comment.id}
            frame={frame}
            thread={thread}
            comment={comment}
            shown={shown}
          />
        ))}
        {frame.canWrite
          ? (
            <PostForm
              action={`${base}/comments`}
              submit={t("board.postReply")}
              attrs={{ class: "stack card", ...MULTIPART }}
            >
              <MarkdownField
                t={t}
                label={t("board.reply")}
                schema={CommentInput}
                name="body"
                form={reply}
                rows={5}
              />
              <FileField t={t} error={reply.errors.file} />
              <FilePicker
                ctx={frame.ctx}
                files={pickable}
                value={reply.values.fileId}
                error={reply.errors.fileIds}
              />
            </PostForm>
          )
          : null}
      </>
    );
  },
};

/** The thread form's fields read into the input of a create or update. */
function readThread(fields: Fields) {
  return { ...fields, body: fields.body ?? "" };
}

/** The board pages. */
export function boardPages(services: Services) {
  const { board, attachments } = services;
  const area = areaRoutes(services);
  const P = "/projects/:projectId{[0-9]+}/board";
  const T = `${P}/:threadId{[0-9]+}`;
  const C = `${T}/comments/:commentId{[0-9]+}`;
  const FIELDS = { category: "content.required", ...PICKER_FIELDS } as const;
  const threadUrl = (projectId: number, threadId: number) =>
    `/projects/${projectId}/board/${threadId}`;

  area.page(P, live(boardPage, ["board"]));
  area.form(P, boardPage, {
    form: "create",
    schema: ThreadInput,
    read: (fields) => ({ ...readThread(fields), pinned: checked(fields.pinned) }),
    fields: FIELDS,
    // The thread and its upload are one post: a refused upload leaves no thread.
    change: async ({ actor, projectId, input, fields, file }) => {
      const picked = pickedFileIds(fields);
      const thread = await attachments.createWith(
        actor,
        projectId,
        file,
        (fileIds) =>
          board.create(actor, projectId, { ...input, fileIds: picked, uploadedFileIds: fileIds }),
      );
      return afterCreate(threadUrl(projectId, thread.id), { type: "thread", id: thread.id });
    },
  });
  area.page(T, live(threadPage, ["board", "files"]));
  area.form(T, threadPage, {
    form: "edit",
    schema: ThreadInput,
    read: readThread,
    fields: FIELDS,
    change: async ({ c, actor, projectId, input: { title, body, category }, fields, file }) => {
      const threadId = paramId(c, "threadId");
      // The files first: a refused file (type, size, rights, an id of no file of the project)
      // must leave the thread unchanged, and the fields were checked against the schema
      // already, so the update cannot fail on them afterwards.
      const fileIds = pickedFileIds(fields);
      if (file || fileIds.length > 0) {
        await attachments.add(
          actor,
          { projectId, type: "thread", id: threadId },
          file ? { upload: file, fileIds } : { fileIds },
        );
      }
      await board.update(actor, projectId, { threadId, title, body, category });
      return afterSave(threadUrl(projectId, threadId), { type: "thread", id: threadId });
    },
  });
  area.form(`${T}/pin`, threadPage, {
    change: async ({ c, actor, projectId, fields }) => {
      const threadId = paramId(c, "threadId");
      await board.update(actor, projectId, { threadId, pinned: fields.pinned === "true" });
      return threadUrl(projectId, threadId);
    },
  });
  area.form(`${T}/delete`, threadPage, {
    change: async ({ c, actor, projectId }) => {
      const removed = await board.remove(actor, projectId, paramId(c, "threadId"));
      return afterDelete(`/projects/${projectId}/board`, removed);
    },
  });
  area.form(`${T}/comments`, threadPage, {
    form: "reply",
    schema: CommentInput,
    fields: PICKER_FIELDS,
    change: async ({ c, actor, projectId, input: { body }, fields, file }) => {
      const threadId = paramId(c, "threadId");
      const picked = pickedFileIds(fields);
      const comment = await attachments.createWith(
        actor,
        projectId,
        file,
        (fileIds) =>
          board.comment(actor, projectId, {
            threadId,
            body,
            fileIds: picked,
            uploadedFileIds: fileIds,
          }),
      );
      return `${threadUrl(projectId, threadId)}#comment-${comment.id}`;
    },
  });
  area.form(C, threadPage, {
    form: (c) => `comment-${paramId(c, "commentId")}`,
    schema: CommentPatch,
    change: async ({ c, actor, projectId, input: { body } }) => {
      const commentId = paramId(c, "commentId");
      await board.updateComment(actor, projectId, { commentId, body });
      return `${threadUrl(projectId, paramId(c, "threadId"))}#comment-${commentId}`;
    },
  });
  area.form(`${C}/delete`, threadPage, {
    change: async ({ c, actor, projectId }) => {
      const removed = await board.removeComment(actor, projectId, paramId(c, "commentId"));
      return afterDelete(threadUrl(projectId, paramId(c, "threadId")), removed);
    },
  });
  return area.app;
}
