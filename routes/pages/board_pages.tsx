/**
 * The message board pages: the thread list (by category, pinned first, paged) with the
 * new-thread form, and a thread with its attachments, comments and reply form. Every form
 * works without JavaScript: POST, then 303; a refusal re-renders with its message.
 */
import type { SpooledFile } from "../multipart.ts";
import { parseForm } from "./forms.ts";
import { type Context, Hono } from "hono";
import type { Category, Comment, Thread } from "../../domain/board.ts";
import { allowedType } from "../../domain/file_types.ts";
import type { FileInfo } from "../../domain/files.ts";
import { type Page, pageRequest } from "../../domain/paging.ts";
import type { Services } from "../../domain/services.ts";
import type { AppEnv } from "../api/openapi.ts";
import type { Translate } from "../i18n/i18n.ts";
import { AttachmentItem, FileField, FormCard, MarkdownField, TitleField } from "./components.tsx";
import { Alert, FieldError } from "./layout.tsx";
import { notFound } from "./project_pages.tsx";
import {
  attempt,
  canEdit,
  checkText,
  fileErrors,
  type FormState,
  frameRunner,
  Markdown,
  nameOf,
  Pager,
  paramId,
  type ProjectFrame,
  renderArea,
  splitBody,
  TextArea,
  Time,
  uploadLimitMb,
} from "./project_nav.tsx";

const TITLE_MAX = 200;
const BODY_MAX = 100_000;

type Ctx = Context<AppEnv>;

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

function CategorySelect(
  props: { frame: ProjectFrame; categories: readonly Category[]; value: string | undefined },
) {
  const { t } = props.frame.ctx;
  return (
    <select name="category">
      {props.categories.map((c) => (
        <option value={c} selected={c === (props.value ?? "general")}>{categoryLabel(t, c)}</option>
      ))}
    </select>
  );
}

function NewThreadForm(
  props: { frame: ProjectFrame; categories: readonly Category[]; state: FormState },
) {
  const { frame } = props;
  const { t } = frame.ctx;
  const values = props.state.values ?? {};
  const errors = props.state.errors ?? {};
  const failed = Object.keys(errors).length > 0 || props.state.values !== undefined;
  return (
    <FormCard
      open={failed}
      summary={t("board.new")}
      action={`/projects/${frame.project.id}/board`}
      submit={t("board.post")}
      attrs={{ enctype: "multipart/form-data" }}
    >
      <TitleField
        label={t("content.title")}
        max={TITLE_MAX}
        value={values.title ?? ""}
        error={errors.title}
      />
      <label>
        {t("board.category")}
        <CategorySelect frame={frame} categories={props.categories} value={values.category} />
        <FieldError message={errors.category} />
      </label>
      <MarkdownField
        t={t}
        label={t("content.body")}
        name="body"
        value={values.body}
        max={BODY_MAX}
        error={errors.body}
      />
      <label class="check">
        <input type="checkbox" name="pinned" value="on" checked={values.pinned === "on"} />
        {t("content.pinOnTop")}
      </label>
      <FileField t={t} error={errors.file} />
    </FormCard>
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

function BoardPage(
  props: {
    frame: ProjectFrame;
    categories: readonly Category[];
    category: Category | null;
    threads: Page<Thread>;
    message?: string | null;
    state: FormState;
  },
) {
  const { frame, category } = props;
  const { t } = frame.ctx;
  const base = `/projects/${frame.project.id}/board`;
  return (
    <>
      <h1>{t("board.title")}</h1>
      <Alert message={props.message} />
      {frame.canWrite
        ? <NewThreadForm frame={frame} categories={props.categories} state={props.state} />
        : null}
      <nav class="filters row" aria-label={t("board.category")}>
        <a href={base} aria-current={category === null ? "page" : undefined}>{t("content.all")}</a>
        {props.categories.map((c) => (
          <a href={`${base}?category=${c}`} aria-current={category === c ? "page" : undefined}>
            {categoryLabel(t, c)}
          </a>
        ))}
      </nav>
      {props.threads.items.length === 0
        ? <p class="muted">{t("board.none")}</p>
        : (
          <ul class="plain card threads">
            {props.threads.items.map((thread) => (
              <ThreadItem key={thread.id} frame={frame} thread={thread} />
            ))}
          </ul>
        )}
      <Pager ctx={frame.ctx} page={props.threads} path={base} query={{ category }} />
    </>
  );
}

/** What the thread page's forms carry after a refusal. */
interface ThreadForms {
  edit?: FormState;
  reply?: FormState;
  comment?: { id: number; state: FormState };
}

function EditThreadForm(
  props: {
    frame: ProjectFrame;
    thread: Thread;
    categories: readonly Category[];
    state?: FormState;
  },
) {
  const { frame, thread } = props;
  const { t } = frame.ctx;
  const values = props.state?.values ?? {};
  const errors = props.state?.errors ?? {};
  return (
    <FormCard
      open={props.state !== undefined}
      summary={t("board.edit")}
      action={`/projects/${frame.project.id}/board/${thread.id}`}
      submit={t("content.save")}
      attrs={{ enctype: "multipart/form-data" }}
    >
      <TitleField
        label={t("content.title")}
        max={TITLE_MAX}
        value={values.title ?? thread.title}
        error={errors.title}
      />
      <label>
        {t("board.category")}
        <CategorySelect
          frame={frame}
          categories={props.categories}
          value={values.category ?? thread.category}
        />
      </label>
      <MarkdownField
        t={t}
        label={t("content.body")}
        name="body"
        value={values.body ?? thread.body}
        max={BODY_MAX}
        error={errors.body}
      />
      <FileField t={t} error={errors.file} />
    </FormCard>
  );
}

function CommentItem(
  props: { frame: ProjectFrame; thread: Thread; comment: Comment; state?: FormState },
) {
  const { frame, thread, comment } = props;
  const { t } = frame.ctx;
  const base = `/projects/${frame.project.id}/board/${thread.id}/comments/${comment.id}`;
  const values = props.state?.values ?? {};
  const errors = props.state?.errors ?? {};
  return (
    <article class="card comment" id={`comment-${comment.id}`} data-comment={comment.id}>
      <div class="meta muted row">
        <strong>{nameOf(frame, comment.authorId)}</strong>
        <Time ctx={frame.ctx} iso={comment.createdAt} />
        {comment.updatedAt !== comment.createdAt
          ? <EditedAt frame={frame} iso={comment.updatedAt} />
          : null}
      </div>
      <Markdown source={comment.body} />
      <Attachments frame={frame} files={comment.attachments} />
      {canEdit(frame, comment.authorId)
        ? (
          <div class="row actions">
            <details open={props.state !== undefined}>
              <summary>{t("board.editComment")}</summary>
              <form class="stack" method="post" action={base}>
                <TextArea name="body" value={values.body ?? comment.body} max={BODY_MAX} required />
                <FieldError message={errors.body} />
                <div>
                  <button type="submit">{t("content.save")}</button>
                </div>
              </form>
            </details>
            <form
              class="inline"
              method="post"
              action={`${base}/delete`}
              data-confirm={t("board.deleteCommentConfirm")}
            >
              <button class="danger" type="submit">{t("board.deleteComment")}</button>
            </form>
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

function ThreadPage(
  props: {
    frame: ProjectFrame;
    thread: Thread;
    comments: Comment[];
    categories: readonly Category[];
    message?: string | null;
    forms: ThreadForms;
  },
) {
  const { frame, thread, forms } = props;
  const { t } = frame.ctx;
  const base = `/projects/${frame.project.id}/board/${thread.id}`;
  const replyValues = forms.reply?.values ?? {};
  const replyErrors = forms.reply?.errors ?? {};
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
        <Alert message={props.message} />
        <div class="card">
          <Markdown source={thread.body} />
          <Attachments frame={frame} files={thread.attachments} />
        </div>
      </article>
      {canEdit(frame, thread.authorId)
        ? (
          <>
            <div class="row actions">
              <form class="inline" method="post" action={`${base}/pin`}>
                <input type="hidden" name="pinned" value={thread.pinned ? "false" : "true"} />
                <button class="secondary" type="submit">
                  {thread.pinned ? t("board.unpin") : t("board.pin")}
                </button>
              </form>
              <form
                class="inline"
                method="post"
                action={`${base}/delete`}
                data-confirm={t("board.deleteConfirm")}
              >
                <button class="danger" type="submit">{t("board.delete")}</button>
              </form>
            </div>
            <EditThreadForm
              frame={frame}
              thread={thread}
              categories={props.categories}
              {...(forms.edit ? { state: forms.edit } : {})}
            />
          </>
        )
        : null}
      <h2>{t("board.comments")}</h2>
      {props.comments.length === 0 ? <p class="muted">{t("board.noComments")}</p> : null}
      {props.comments.map((comment) => (
        <CommentItem
          key={comment.id}
          frame={frame}
          thread={thread}
          comment={comment}
          {...(forms.comment?.id === comment.id ? { state: forms.comment.state } : {})}
        />
      ))}
      {frame.canWrite
        ? (
          <form
            class="stack card"
            method="post"
            action={`${base}/comments`}
            enctype="multipart/form-data"
          >
            <MarkdownField
              t={t}
              label={t("board.reply")}
              name="body"
              value={replyValues.body}
              max={BODY_MAX}
              required
              rows={5}
              error={replyErrors.body}
            />
            <FileField t={t} error={replyErrors.file} />
            <div>
              <button type="submit">{t("board.postReply")}</button>
            </div>
          </form>
        )
        : null}
    </>
  );
}

function threadErrors(
  fields: Record<string, string>,
  t: Translate,
  categories: readonly Category[],
): Record<string, string> {
  const errors: Record<string, string> = {};
  checkText(errors, t, { name: "title", value: fields.title, max: TITLE_MAX, required: true });
  checkText(errors, t, { name: "body", value: fields.body, max: BODY_MAX, required: false });
  if (!categories.includes(fields.category as Category)) errors.category = t("content.required");
  return errors;
}

/** Runs `action`, then undoes `undo` when it fails, and rethrows. */
async function orUndo(action: () => Promise<unknown>, undo: () => void): Promise<void> {
  try {
    await action();
  } catch (error) {
    undo();
    throw error;
  }
}

/** The board pages. */
export function boardPages(services: Services) {
  const app = new Hono<AppEnv>();
  const { board, attachments } = services;
  const categories = board.categories;
  const maxUploadMb = uploadLimitMb(services);
  const run = frameRunner(services, { notFound });
  const P = "/projects/:projectId{[0-9]+}/board";
  const T = `${P}/:threadId{[0-9]+}`;

  const categoryOf = (raw: string | undefined): Category | null =>
    categories.includes(raw as Category) ? raw as Category : null;

  const showBoard = (
    c: Ctx,
    frame: ProjectFrame,
    extra: { status?: number; message?: string; state?: FormState } = {},
  ) => {
    const { t, actor } = frame.ctx;
    const category = categoryOf(c.req.query("category"));
    const threads = board.list(actor!, frame.project.id, {
      category,
      page: pageRequest({ page: c.req.query("page") }, { clampPage: true }),
    });
    return renderArea(c, frame, {
      area: "board",
      title: t("board.title"),
      status: extra.status ?? 200,
      body: (
        <BoardPage
          frame={frame}
          categories={categories}
          category={category}
          threads={threads}
          message={extra.message ?? null}
          state={extra.state ?? {}}
        />
      ),
    });
  };

  const showThread = (
    c: Ctx,
    frame: ProjectFrame,
    extra: { status?: number; message?: string; forms?: ThreadForms } = {},
  ) => {
    const { thread, comments } = board.get(
      frame.ctx.actor!,
      frame.project.id,
      paramId(c, "threadId"),
    );
    return renderArea(c, frame, {
      area: "board",
      title: thread.title,
      status: extra.status ?? 200,
      body: (
        <ThreadPage
          frame={frame}
          thread={thread}
          comments={comments}
          categories={categories}
          message={extra.message ?? null}
          forms={extra.forms ?? {}}
        />
      ),
    });
  };

  const upload = (file: SpooledFile) => ({ upload: file });

  app.get(P, (c) => run(c, (frame) => showBoard(c, frame)));

  app.post(P, (c) =>
    run(c, async (frame) => {
      const { t, actor } = frame.ctx;
      const { fields, file } = splitBody(await parseForm(c));
      const errors = threadErrors(fields, t, categories);
      if (file && !allowedType(file.name)) errors.file = t("files.unsupported");
      if (Object.keys(errors).length > 0) {
        const onlyFile = Object.keys(errors).length === 1 && errors.file !== undefined;
        return showBoard(c, frame, {
          status: onlyFile ? 415 : 400,
          message: onlyFile ? errors.file! : t("form.invalid"),
          state: { values: fields, errors },
        });
      }
      const projectId = frame.project.id;
      return attempt(c, frame, {
        maxUploadMb,
        change: async () => {
          const thread = board.create(actor!, projectId, {
            title: fields.title!,
            body: fields.body ?? "",
            category: fields.category as Category,
            pinned: fields.pinned === "on",
          });
          if (file) {
            // The thread and its upload are one post: a refused upload withdraws the thread.
            await orUndo(
              () =>
                attachments.add(actor!, { projectId, type: "thread", id: thread.id }, upload(file)),
              () => board.remove(actor!, projectId, thread.id),
            );
          }
          return `/projects/${projectId}/board/${thread.id}`;
        },
        fail: (failure) =>
          showBoard(c, frame, {
            ...failure,
            state: { values: fields, errors: fileErrors(failure) },
          }),
      });
    }));

  app.get(T, (c) => run(c, (frame) => showThread(c, frame)));

  app.post(T, (c) =>
    run(c, async (frame) => {
      const { t, actor } = frame.ctx;
      const { fields, file } = splitBody(await parseForm(c));
      const threadId = paramId(c, "threadId");
      const errors = threadErrors(fields, t, categories);
      if (file && !allowedType(file.name)) errors.file = t("files.unsupported");
      if (Object.keys(errors).length > 0) {
        return showThread(c, frame, {
          status: 400,
          message: t("form.invalid"),
          forms: { edit: { values: fields, errors } },
        });
      }
      const projectId = frame.project.id;
      return attempt(c, frame, {
        maxUploadMb,
        change: async () => {
          board.update(actor!, projectId, {
            threadId,
            title: fields.title!,
            body: fields.body ?? "",
            category: fields.category as Category,
          });
          if (file) {
            await attachments.add(
              actor!,
              { projectId, type: "thread", id: threadId },
              upload(file),
            );
          }
          return `/projects/${projectId}/board/${threadId}`;
        },
        fail: (failure) =>
          showThread(c, frame, {
            ...failure,
            forms: { edit: { values: fields, errors: fileErrors(failure) } },
          }),
      });
    }));

  app.post(`${T}/pin`, (c) =>
    run(c, async (frame) => {
      const fields = splitBody(await parseForm(c)).fields;
      const threadId = paramId(c, "threadId");
      return attempt(c, frame, {
        maxUploadMb,
        change: () => {
          board.update(frame.ctx.actor!, frame.project.id, {
            threadId,
            pinned: fields.pinned === "true",
          });
          return `/projects/${frame.project.id}/board/${threadId}`;
        },
        fail: (failure) => showThread(c, frame, failure),
      });
    }));

  app.post(`${T}/delete`, (c) =>
    run(c, (frame) =>
      attempt(c, frame, {
        maxUploadMb,
        change: () => {
          board.remove(frame.ctx.actor!, frame.project.id, paramId(c, "threadId"));
          return `/projects/${frame.project.id}/board`;
        },
        fail: (failure) => showThread(c, frame, failure),
      })));

  app.post(`${T}/comments`, (c) =>
    run(c, async (frame) => {
      const { t, actor } = frame.ctx;
      const { fields, file } = splitBody(await parseForm(c));
      const threadId = paramId(c, "threadId");
      const errors: Record<string, string> = {};
      checkText(errors, t, { name: "body", value: fields.body, max: BODY_MAX, required: true });
      if (file && !allowedType(file.name)) errors.file = t("files.unsupported");
      if (Object.keys(errors).length > 0) {
        return showThread(c, frame, {
          status: errors.body ? 400 : 415,
          message: errors.body ? t("form.invalid") : errors.file!,
          forms: { reply: { values: fields, errors } },
        });
      }
      const projectId = frame.project.id;
      return attempt(c, frame, {
        maxUploadMb,
        change: async () => {
          const comment = board.comment(actor!, projectId, { threadId, body: fields.body! });
          if (file) {
            await orUndo(
              () =>
                attachments.add(
                  actor!,
                  { projectId, type: "comment", id: comment.id },
                  upload(file),
                ),
              () => board.removeComment(actor!, projectId, comment.id),
            );
          }
          return `/projects/${projectId}/board/${threadId}#comment-${comment.id}`;
        },
        fail: (failure) =>
          showThread(c, frame, {
            ...failure,
            forms: { reply: { values: fields, errors: fileErrors(failure) } },
          }),
      });
    }));

  app.post(
    `${T}/comments/:commentId{[0-9]+}`,
    (c) =>
      run(c, async (frame) => {
        const { t, actor } = frame.ctx;
        const fields = splitBody(await parseForm(c)).fields;
        const threadId = paramId(c, "threadId");
        const commentId = paramId(c, "commentId");
        const errors: Record<string, string> = {};
        checkText(errors, t, { name: "body", value: fields.body, max: BODY_MAX, required: true });
        const state = { values: fields, errors };
        if (Object.keys(errors).length > 0) {
          return showThread(c, frame, {
            status: 400,
            message: t("form.invalid"),
            forms: { comment: { id: commentId, state } },
          });
        }
        return attempt(c, frame, {
          change: () => {
            board.updateComment(actor!, frame.project.id, { commentId, body: fields.body! });
            return `/projects/${frame.project.id}/board/${threadId}#comment-${commentId}`;
          },
          fail: (failure) =>
            showThread(c, frame, { ...failure, forms: { comment: { id: commentId, state } } }),
        });
      }),
  );

  app.post(
    `${T}/comments/:commentId{[0-9]+}/delete`,
    (c) =>
      run(c, (frame) =>
        attempt(c, frame, {
          maxUploadMb,
          change: () => {
            board.removeComment(frame.ctx.actor!, frame.project.id, paramId(c, "commentId"));
            return `/projects/${frame.project.id}/board/${paramId(c, "threadId")}`;
          },
          fail: (failure) => showThread(c, frame, failure),
        })),
  );

  return app;
}
