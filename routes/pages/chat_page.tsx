/**
 * The project chat page: the latest messages (Markdown through the one renderer, author
 * names, attachments), older pages by link, and a send form with an optional attachment
 * that works without JavaScript. `static/chat.js` adds live updates from the project
 * stream, Enter to send, @-mention completion, inline edit and delete, and loading older
 * messages on scroll; it asks the fragment routes below for server-rendered messages, so
 * every message on the page comes from the same escaping and Markdown code.
 */
import type { Context } from "hono";
import { HISTORY_DEFAULT, type Message } from "../../domain/content/chat.ts";
import type { FileInfo } from "../../domain/content/files.ts";
import type { Services } from "../../domain/services.ts";
import { MessageInput, MessagePatch } from "../api/chat.ts";
import {
  type AreaPage,
  areaRoutes,
  canEdit,
  mentionsOf,
  nameOf,
  paramId,
  type ProjectFrame,
} from "./kit/area.tsx";
import { AttachmentItem, Markdown, Time } from "./kit/content.tsx";
import { ButtonForm, formState, MarkdownBox, PostForm, TextArea } from "./kit/fields.tsx";
import { textAttrs } from "./kit/forms.ts";
import { Alert, FieldError, renderFragment } from "./kit/layout.tsx";
import { FilePicker, pickableFiles, pickedFileIds, PICKER_FIELDS } from "./kit/file_picker.tsx";
import type { Shown } from "./kit/submit.ts";
import { afterDelete } from "./kit/notices.tsx";

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
function ChatMessage(props: { frame: ProjectFrame; message: Message; shown?: Shown | undefined }) {
  const { frame, message } = props;
  const { t } = frame.ctx;
  const form = formState(props.shown ?? {}, `edit-${message.id}`, { text: message.text });
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
        <Time ctx={frame.ctx} iso={message.createdAt} relative />
        {message.updatedAt !== message.createdAt
          ? <span class="muted">{t("chat.edited")}</span>
          : null}
      </div>
      <div class="chat-text">
        <Markdown source={message.text} mentions={mentionsOf(frame)} />
      </div>
      <Attachments frame={frame} files={message.attachments} />
      {canEdit(frame, message.authorId)
        ? (
          <div class="chat-actions row">
            <details class="chat-edit" open={form.refused}>
              <summary>{t("chat.edit")}</summary>
              <PostForm
                action={base}
                submit={t("chat.save")}
                attrs={{ "data-chat-edit": message.id }}
              >
                <MarkdownBox t={t}>
                  <TextArea
                    schema={MessagePatch}
                    name="text"
                    value={form.values.text}
                    rows={3}
                    label={t("chat.message")}
                  />
                </MarkdownBox>
                <FieldError message={form.errors.text} />
              </PostForm>
            </details>
            <ButtonForm
              class="inline"
              action={`${base}/delete`}
              label={t("chat.delete")}
              confirm={t("chat.deleteConfirm")}
              button="danger small"
              attrs={{ "data-chat-delete": message.id }}
            />
          </div>
        )
        : null}
    </li>
  );
}

/** The messages of a history page, for the page and for the older-messages fragment. */
function ChatItems(props: { frame: ProjectFrame; history: History; shown?: Shown | undefined }) {
  return (
    <>
      {props.history.items.map((m) => (
        <ChatMessage key={m.id} frame={props.frame} message={m} shown={props.shown} />
      ))}
    </>
  );
}

/** A page of the chat: the latest messages, or those before `before`. */
interface ChatData {
  history: History;
  /** The `before` of an older page, or null for the latest messages. */
  before: number | null;
  /** The project's files a message may attach (none for the fragments). */
  pickable: FileInfo[];
}

function ChatPage(props: { frame: ProjectFrame; data: ChatData; shown: Shown }) {
  const { frame, shown } = props;
  const { history, before, pickable } = props.data;
  const { t, user } = frame.ctx;
  const form = formState(shown, "send");
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
      <Alert message={shown.message} />
      <section
        class="chat"
        aria-label={t("chat.title")}
        data-chat
        data-project={projectId}
        data-me={user?.id ?? 0}
        data-live={before === null ? "true" : "false"}
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
          <ChatItems frame={frame} history={history} shown={shown} />
        </ol>
        {history.items.length === 0
          ? <p class="muted chat-empty" data-chat-empty>{t("chat.empty")}</p>
          : null}
        {before !== null
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
              <MarkdownBox t={t}>
                <label for="chat-text">{t("chat.message")}</label>
                <div class="chat-compose">
                  <textarea
                    id="chat-text"
                    name="text"
                    maxlength={textAttrs(MessageInput, "text").maxlength}
                    required
                    rows={3}
                    placeholder={t("chat.placeholder")}
                    aria-describedby="chat-hint"
                    aria-autocomplete="list"
                    aria-controls="chat-mentions"
                    data-chat-input
                  >
                    {`\n${form.values.text ?? ""}`}
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
              </MarkdownBox>
              <span class="hint" id="chat-hint">{t("chat.hint")}</span>
              <FieldError message={form.errors.text} />
              <div class="row">
                <label class="chat-file">
                  {t("content.attachFile")}
                  <input type="file" name="file" />
                  <FieldError message={form.errors.file} />
                </label>
                <FilePicker
                  ctx={frame.ctx}
                  files={pickable}
                  value={form.values.fileId}
                  error={form.errors.fileIds}
                />
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

/** A positive id in the query string, or null. */
function positive(raw: string | undefined): number | null {
  return raw !== undefined && /^\d{1,15}$/.test(raw) && Number(raw) > 0 ? Number(raw) : null;
}

/** A page of messages: the latest, or those before `?before=`. */
async function historyOf(c: Context, { services, ctx, project }: ProjectFrame) {
  const before = positive(c.req.query("before"));
  const options = { before, limit: HISTORY_DEFAULT };
  return { before, history: await services.chat.history(ctx.actor!, project.id, options) };
}

const chatPage: AreaPage<ChatData> = {
  area: "chat",
  load: async (c, frame) => ({
    ...(await historyOf(c, frame)),
    pickable: frame.canWrite
      ? await pickableFiles(frame.services, frame.ctx.actor!, frame.project.id)
      : [],
  }),
  title: (_, t) => t("chat.title"),
  view: (props) => <ChatPage {...props} />,
};

/** The chat pages. */
export function chatPages(services: Services) {
  const { chat, attachments } = services;
  const area = areaRoutes(services);
  const P = "/projects/:projectId{[0-9]+}/chat";
  const M = `${P}/:messageId{[0-9]+}`;

  area.page(P, chatPage);
  // Older messages (`?before=`) or the latest page, as list items.
  area.app.get(`${P}/fragment`, (c) =>
    area.run(c, async (frame) => {
      const { history } = await historyOf(c, frame);
      c.header("x-has-more", history.hasMore ? "true" : "false");
      return renderFragment(c, <ChatItems frame={frame} history={history} />);
    }));
  // One message as a list item; 404 (empty) once it is deleted.
  area.app.get(`${P}/fragment/:messageId{[0-9]+}`, (c) =>
    area.run(c, async (frame) => {
      const id = paramId(c, "messageId");
      const found = (await chat.history(frame.ctx.actor!, frame.project.id, {
        before: id + 1,
        limit: 1,
      })).items.find((m) => m.id === id);
      if (!found) return c.body(null, 404);
      return renderFragment(c, <ChatMessage frame={frame} message={found} />);
    }));
  area.form(P, chatPage, {
    form: "send",
    schema: MessageInput,
    fields: PICKER_FIELDS,
    // The message and its file are one post: the file is stored first so the message is
    // announced with it; a refused message takes the file back.
    change: async ({ actor, projectId, input: { text }, fields, file }) => {
      const picked = pickedFileIds(fields);
      const sent = await attachments.createWith(
        actor,
        projectId,
        file,
        (fileIds) =>
          chat.send(actor, projectId, {
            text,
            fileIds: [...picked, ...fileIds],
            uploadedFileIds: fileIds,
          }),
      );
      return `/projects/${projectId}/chat#message-${sent.id}`;
    },
  });
  area.form(M, chatPage, {
    form: (c) => `edit-${paramId(c, "messageId")}`,
    schema: MessagePatch,
    change: async ({ c, actor, projectId, input: { text } }) => {
      const messageId = paramId(c, "messageId");
      await chat.edit(actor, projectId, { messageId, text });
      return `/projects/${projectId}/chat#message-${messageId}`;
    },
  });
  area.form(`${M}/delete`, chatPage, {
    change: async ({ c, actor, projectId }) => {
      const removed = await chat.remove(actor, projectId, paramId(c, "messageId"));
      return afterDelete(`/projects/${projectId}/chat`, removed);
    },
  });
  return area.app;
}
