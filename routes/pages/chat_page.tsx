/**
 * The project chat page: the latest messages (Markdown through the one renderer, author
 * names, attachments), older pages by link, and a send form with an optional attachment
 * that works without JavaScript. `static/chat.js` adds live updates from the project
 * stream, Enter to send, @-mention completion, inline edit and delete, and loading older
 * messages on scroll; it asks the fragment routes below for server-rendered messages, so
 * every message on the page comes from the same escaping and Markdown code.
 */
import { parseForm } from "./forms.ts";
import { type Context, Hono } from "hono";
import { HISTORY_DEFAULT, type Message } from "../../domain/chat.ts";
import { allowedType } from "../../domain/file_types.ts";
import type { FileInfo } from "../../domain/files.ts";
import type { Services } from "../../domain/services.ts";
import type { AppEnv } from "../api/openapi.ts";
import { AttachmentItem } from "./components.tsx";
import { Alert, FieldError, PAGE_CSP } from "./layout.tsx";
import { notFound } from "./project_pages.tsx";
import {
  attempt,
  canEdit,
  checkText,
  fileErrors,
  frameRunner,
  Markdown,
  nameOf,
  paramId,
  type ProjectFrame,
  renderArea,
  splitBody,
  TextArea,
  Time,
  uploadLimitMb,
} from "./project_nav.tsx";

/** The longest message, as the API allows. */
const TEXT_MAX = 10_000;

type Ctx = Context<AppEnv>;

/** A page of messages, oldest first, and whether older ones exist. */
interface History {
  items: Message[];
  hasMore: boolean;
}

function Attachments(props: { frame: ProjectFrame; files: FileInfo[] }) {
  const { t, locale } = props.frame.ctx;
  if (props.files.length === 0) return null;
  return (
    <ul class="plain chat-files" aria-label={t("content.attachments")}>
      {props.files.map((f) => <AttachmentItem key={f.id} file={f} locale={locale} />)}
    </ul>
  );
}

/** One message; the same markup for the page and for `chat.js`'s fragments. */
export function ChatMessage(props: { frame: ProjectFrame; message: Message }) {
  const { frame, message } = props;
  const { t } = frame.ctx;
  const base = `/projects/${frame.project.id}/chat/${message.id}`;
  const mine = message.authorId === frame.ctx.user?.id;
  return (
    <li
      class={mine ? "chat-message mine" : "chat-message"}
      id={`message-${message.id}`}
      data-message={message.id}
      data-author={message.authorId}
      data-updated={message.updatedAt}
    >
      <div class="chat-meta row">
        <strong class="chat-author">{nameOf(frame, message.authorId)}</strong>
        <Time ctx={frame.ctx} iso={message.createdAt} />
        {message.updatedAt !== message.createdAt
          ? <span class="muted">{t("chat.edited")}</span>
          : null}
      </div>
      <div class="chat-text">
        <Markdown source={message.text} />
      </div>
      <Attachments frame={frame} files={message.attachments} />
      {canEdit(frame, message.authorId)
        ? (
          <div class="chat-actions row">
            <details class="chat-edit">
              <summary>{t("chat.edit")}</summary>
              <form class="stack" method="post" action={base} data-chat-edit={message.id}>
                <TextArea name="text" value={message.text} max={TEXT_MAX} required rows={3} />
                <div>
                  <button type="submit">{t("chat.save")}</button>
                </div>
              </form>
            </details>
            <form
              class="inline"
              method="post"
              action={`${base}/delete`}
              data-confirm={t("chat.deleteConfirm")}
              data-chat-delete={message.id}
            >
              <button class="danger small" type="submit">{t("chat.delete")}</button>
            </form>
          </div>
        )
        : null}
    </li>
  );
}

/** The messages of a history page, for the page and for the older-messages fragment. */
function ChatItems(props: { frame: ProjectFrame; history: History }) {
  return (
    <>
      {props.history.items.map((m) => <ChatMessage key={m.id} frame={props.frame} message={m} />)}
    </>
  );
}

function ChatPage(
  props: {
    frame: ProjectFrame;
    history: History;
    /** The `before` of an older page, or null for the latest messages. */
    before: number | null;
    message: string | null;
    values: Record<string, string>;
    errors: Record<string, string>;
  },
) {
  const { frame, history } = props;
  const { t, user } = frame.ctx;
  const projectId = frame.project.id;
  const base = `/projects/${projectId}/chat`;
  const oldest = history.items[0]?.id ?? null;
  const members = frame.members
    .filter((m) => m.userId !== user?.id)
    .map((m) => ({ email: m.email, name: m.displayName }));
  const strings = {
    live: t("chat.live"),
    offline: t("chat.offline"),
    sendFailed: t("chat.sendFailed"),
    blank: t("chat.blank"),
    loadFailed: t("chat.loadFailed"),
    loading: t("chat.loading"),
  };
  return (
    <>
      <div class="row">
        <h1>{t("chat.title")}</h1>
        <span class="spacer"></span>
        <span class="chat-status muted" data-chat-status role="status"></span>
      </div>
      <Alert message={props.message} />
      <section
        class="chat"
        aria-label={t("chat.title")}
        data-chat
        data-project={projectId}
        data-me={user?.id ?? 0}
        data-live={props.before === null ? "true" : "false"}
        data-members={JSON.stringify(members)}
        data-strings={JSON.stringify(strings)}
      >
        <p class="chat-more" data-chat-more hidden={!history.hasMore || oldest === null}>
          <a href={`${base}?before=${oldest ?? ""}`} data-chat-older>{t("chat.older")}</a>
        </p>
        <ol
          class="chat-log"
          aria-label={t("chat.log")}
          data-chat-log
          data-has-more={history.hasMore ? "true" : "false"}
          aria-live="polite"
          aria-relevant="additions"
          tabindex={0}
        >
          <ChatItems frame={frame} history={history} />
        </ol>
        {history.items.length === 0
          ? <p class="muted chat-empty" data-chat-empty>{t("chat.empty")}</p>
          : null}
        {props.before !== null
          ? (
            <p>
              <a href={base}>{t("chat.newest")}</a>
            </p>
          )
          : null}
        {frame.canWrite
          ? (
            <form
              class="chat-form stack card"
              method="post"
              action={base}
              enctype="multipart/form-data"
              data-chat-send
            >
              <label for="chat-text">{t("chat.message")}</label>
              <div class="chat-compose">
                <textarea
                  id="chat-text"
                  name="text"
                  maxlength={TEXT_MAX}
                  required
                  rows={3}
                  placeholder={t("chat.placeholder")}
                  aria-describedby="chat-hint"
                  aria-autocomplete="list"
                  aria-controls="chat-mentions"
                  aria-expanded="false"
                  data-chat-input
                >
                  {`\n${props.values.text ?? ""}`}
                </textarea>
                <ul
                  class="chat-mentions"
                  id="chat-mentions"
                  role="listbox"
                  aria-label={t("chat.mentions")}
                  data-chat-mentions
                  hidden
                >
                </ul>
              </div>
              <span class="hint" id="chat-hint">{t("chat.hint")}</span>
              <FieldError message={props.errors.text} />
              <div class="row">
                <label class="chat-file">
                  {t("content.attachFile")}
                  <input type="file" name="file" />
                  <FieldError message={props.errors.file} />
                </label>
                <span class="spacer"></span>
                <button type="submit">{t("chat.send")}</button>
              </div>
            </form>
          )
          : <p class="muted">{t("chat.readOnly")}</p>}
      </section>
      <script type="module" src="/static/chat.js"></script>
    </>
  );
}

function positive(raw: string | undefined): number | null {
  return raw !== undefined && /^\d{1,15}$/.test(raw) && Number(raw) > 0 ? Number(raw) : null;
}

/** The chat pages. */
export function chatPages(services: Services) {
  const app = new Hono<AppEnv>();
  const { chat } = services;
  const run = frameRunner(services, { notFound });
  const maxUploadMb = uploadLimitMb(services);
  const P = "/projects/:projectId{[0-9]+}/chat";
  const M = `${P}/:messageId{[0-9]+}`;

  const history = (frame: ProjectFrame, before: number | null): History =>
    chat.history(frame.ctx.actor!, frame.project.id, { before, limit: HISTORY_DEFAULT });

  const showChat = (
    c: Ctx,
    frame: ProjectFrame,
    extra: {
      status?: number;
      message?: string;
      values?: Record<string, string>;
      errors?: Record<string, string>;
    } = {},
  ) => {
    const before = positive(c.req.query("before"));
    return renderArea(c, frame, {
      area: "chat",
      title: frame.ctx.t("chat.title"),
      status: extra.status ?? 200,
      body: (
        <ChatPage
          frame={frame}
          history={history(frame, before)}
          before={before}
          message={extra.message ?? null}
          values={extra.values ?? {}}
          errors={extra.errors ?? {}}
        />
      ),
    });
  };

  /** Answers an HTML fragment (no layout) for `chat.js`. */
  const fragment = (c: Ctx, body: Parameters<Ctx["html"]>[0], status = 200) => {
    c.header("content-security-policy", PAGE_CSP);
    return c.html(body, status as 200);
  };

  /** Runs a change, then 303 to where it says; a refusal re-renders the page. */
  const attemptChat = (
    c: Ctx,
    frame: ProjectFrame,
    change: () => string | Promise<string>,
    values: Record<string, string> = {},
  ): Promise<Response> =>
    attempt(c, frame, {
      maxUploadMb,
      change,
      fail: (failure) => showChat(c, frame, { ...failure, values, errors: fileErrors(failure) }),
    });

  app.get(P, (c) => run(c, (frame) => showChat(c, frame)));

  // Older messages (`?before=`) or the latest page, as list items.
  app.get(`${P}/fragment`, (c) =>
    run(c, (frame) => {
      const page = history(frame, positive(c.req.query("before")));
      c.header("x-has-more", page.hasMore ? "true" : "false");
      return fragment(c, <ChatItems frame={frame} history={page} />);
    }));

  // One message as a list item; 404 (empty) once it is deleted.
  app.get(`${P}/fragment/:messageId{[0-9]+}`, (c) =>
    run(c, (frame) => {
      const id = paramId(c, "messageId");
      const found = chat.history(frame.ctx.actor!, frame.project.id, { before: id + 1, limit: 1 })
        .items.find((m) => m.id === id);
      if (!found) return c.body(null, 404);
      return fragment(c, <ChatMessage frame={frame} message={found} />);
    }));

  app.post(P, (c) =>
    run(c, async (frame) => {
      const { t, actor } = frame.ctx;
      const { fields, file } = splitBody(await parseForm(c));
      const errors: Record<string, string> = {};
      checkText(errors, t, { name: "text", value: fields.text, max: TEXT_MAX, required: true });
      if (file && !allowedType(file.name)) errors.file = t("files.unsupported");
      if (Object.keys(errors).length > 0) {
        const onlyFile = errors.text === undefined;
        return showChat(c, frame, {
          status: onlyFile ? 415 : 400,
          message: onlyFile ? errors.file! : t("form.invalid"),
          values: fields,
          errors,
        });
      }
      const projectId = frame.project.id;
      return attemptChat(c, frame, async () => {
        const sent = await services.attachments.createWith(
          actor!,
          projectId,
          file,
          (fileIds) =>
            chat.send(actor!, projectId, { text: fields.text!, fileIds, uploadedFileIds: fileIds }),
        );
        return `/projects/${projectId}/chat#message-${sent.id}`;
      }, fields);
    }));

  app.post(M, (c) =>
    run(c, async (frame) => {
      const { t, actor } = frame.ctx;
      const { fields } = splitBody(await parseForm(c));
      const errors: Record<string, string> = {};
      checkText(errors, t, { name: "text", value: fields.text, max: TEXT_MAX, required: true });
      if (errors.text) return showChat(c, frame, { status: 400, message: errors.text });
      const messageId = paramId(c, "messageId");
      return attemptChat(c, frame, () => {
        chat.edit(actor!, frame.project.id, { messageId, text: fields.text! });
        return `/projects/${frame.project.id}/chat#message-${messageId}`;
      });
    }));

  app.post(`${M}/delete`, (c) =>
    run(c, (frame) =>
      attemptChat(c, frame, () => {
        chat.remove(frame.ctx.actor!, frame.project.id, paramId(c, "messageId"));
        return `/projects/${frame.project.id}/chat`;
      })));

  return app;
}
