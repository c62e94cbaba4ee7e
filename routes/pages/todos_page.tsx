/**
 * The to-do pages: a kanban board (columns in position order, cards in order) with a create
 * form and, on every card, move buttons (← → ↑ ↓) and a complete toggle that are plain
 * forms, so the board works without JavaScript and from the keyboard; and an item page with
 * its attachments, an edit form and an upload form. `static/kanban.js` adds drag and drop
 * and live updates, re-rendering from `?fragment=1` (the board alone, same markup).
 */
import { parseForm } from "./forms.ts";
import { type Context, Hono } from "hono";
import { DomainError } from "../../domain/errors.ts";
import { allowedType } from "../../domain/file_types.ts";
import type { Milestone } from "../../domain/milestones.ts";
import type { Services } from "../../domain/services.ts";
import type { Column, Item, ItemInput, Priority } from "../../domain/todos.ts";
import type { AppEnv } from "../api/openapi.ts";
import type { Translate } from "../i18n/i18n.ts";
import { AttachmentItem, FormCard, MarkdownField, TitleField } from "./components.tsx";
import { Alert, FieldError, PAGE_CSP } from "./layout.tsx";
import { notFound } from "./project_pages.tsx";
import {
  attempt,
  checkText,
  fileErrors,
  type FormState,
  frameRunner,
  Markdown,
  nameOf,
  paramId,
  type ProjectFrame,
  renderArea,
  splitBody,
  submitForm,
  Time,
  uploadLimitMb,
} from "./project_nav.tsx";

type Ctx = Context<AppEnv>;

const TITLE_MAX = 300;
const DESCRIPTION_MAX = 100_000;
const PRIORITIES: readonly Priority[] = ["low", "normal", "high"];
const STANDARD_NAMES: Record<string, string> = {
  todo: "To Do",
  in_progress: "In Progress",
  done: "Done",
};
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A column's label: the standard columns in the reader's language until renamed. */
function columnLabel(t: Translate, column: Column): string {
  if (column.key && column.name === STANDARD_NAMES[column.key]) {
    return t(`todos.column.${column.key}`);
  }
  return column.name;
}

/** A calendar date (`YYYY-MM-DD`) in the reader's language. */
function formatDate(date: string, locale: string): string {
  return new Intl.DateTimeFormat(locale === "ja" ? "ja-JP" : "en-GB", {
    dateStyle: "medium",
    timeZone: "UTC",
  }).format(new Date(`${date}T00:00:00Z`));
}

/** What the board needs to draw itself. */
interface BoardData {
  columns: Column[];
  items: Item[];
  milestones: Milestone[];
  /** Today's UTC date, for overdue marks. */
  today: string;
}

function MoveButton(
  props: {
    frame: ProjectFrame;
    item: Item;
    dir: "left" | "right" | "up" | "down";
    /** The target column and index, or null when the card cannot go that way. */
    target: { columnId: number; orderIndex: number } | null;
  },
) {
  const { frame, item, dir, target } = props;
  const { t } = frame.ctx;
  const arrows = { left: "←", right: "→", up: "↑", down: "↓" };
  const labels = {
    left: "todos.moveLeft",
    right: "todos.moveRight",
    up: "todos.moveUp",
    down: "todos.moveDown",
  } as const;
  const label = t(labels[dir], { title: item.title });
  return (
    <form
      class="inline"
      method="post"
      action={`/projects/${frame.project.id}/todos/${item.id}/move`}
      data-kanban-move
    >
      <input type="hidden" name="columnId" value={target?.columnId ?? item.columnId} />
      <input type="hidden" name="orderIndex" value={target?.orderIndex ?? item.orderIndex} />
      <button
        class="secondary small"
        type="submit"
        aria-label={label}
        title={label}
        data-move={dir}
        disabled={target === null}
      >
        {arrows[dir]}
      </button>
    </form>
  );
}

function ToggleButton(props: { frame: ProjectFrame; item: Item; from: "board" | "item" }) {
  const { frame, item } = props;
  const { t } = frame.ctx;
  const label = item.completed
    ? t("todos.reopen", { title: item.title })
    : t("todos.complete", { title: item.title });
  return (
    <form
      class="inline"
      method="post"
      action={`/projects/${frame.project.id}/todos/${item.id}/toggle`}
      data-kanban-toggle
    >
      <input type="hidden" name="from" value={props.from} />
      <button
        class="check"
        type="submit"
        aria-label={label}
        title={label}
        aria-pressed={item.completed ? "true" : "false"}
        data-toggle
      >
        {item.completed ? "✓" : ""}
      </button>
    </form>
  );
}

function TagChip(props: { tag: string }) {
  return <span class="tag todo-tag" data-tag={props.tag}>#{props.tag}</span>;
}

/** The facts on a card and on the item page: assignee, due date, priority, tags. */
function ItemFacts(props: { frame: ProjectFrame; item: Item; today: string }) {
  const { frame, item } = props;
  const { t, locale } = frame.ctx;
  const overdue = !item.completed && item.dueDate !== null && item.dueDate < props.today;
  return (
    <div class="card-facts row">
      {item.assigneeId !== null
        ? (
          <span class="assignee" data-assignee={item.assigneeId}>
            {t("todos.assignee", { name: nameOf(frame, item.assigneeId) })}
          </span>
        )
        : null}
      {item.dueDate !== null
        ? (
          <span class={overdue ? "due overdue" : "due"} data-due={item.dueDate}>
            <time datetime={item.dueDate}>
              {t("todos.due", { date: formatDate(item.dueDate, locale) })}
            </time>
            {overdue ? ` · ${t("todos.overdue")}` : ""}
          </span>
        )
        : null}
      <span
        class={`tag priority priority-${item.priority}`}
        data-priority={item.priority}
        title={t("todos.priorityLabel", { priority: t(`todos.priority.${item.priority}`) })}
      >
        {t(`todos.priority.${item.priority}`)}
      </span>
      {item.tags.map((tag) => <TagChip key={tag} tag={tag} />)}
    </div>
  );
}

function Card(
  props: {
    frame: ProjectFrame;
    item: Item;
    index: number;
    columnIndex: number;
    columns: Column[];
    counts: Map<number, number>;
    today: string;
  },
) {
  const { frame, item, index, columnIndex, columns, counts } = props;
  const prev = columns[columnIndex - 1];
  const next = columns[columnIndex + 1];
  const own = counts.get(item.columnId) ?? 0;
  return (
    <li
      class={item.completed ? "kanban-card completed" : "kanban-card"}
      id={`item-${item.id}`}
      data-item={item.id}
      data-completed={item.completed ? "true" : "false"}
      draggable={frame.canWrite ? "true" : undefined}
    >
      <div class="card-head">
        {frame.canWrite
          ? <ToggleButton frame={frame} item={item} from="board" />
          : item.completed
          ? <span class="check done" aria-hidden="true">✓</span>
          : null}
        <a class="card-title" href={`/projects/${frame.project.id}/todos/${item.id}`}>
          {item.title}
        </a>
      </div>
      <ItemFacts frame={frame} item={item} today={props.today} />
      {frame.canWrite
        ? (
          <div class="card-moves">
            <MoveButton
              frame={frame}
              item={item}
              dir="left"
              target={prev ? { columnId: prev.id, orderIndex: counts.get(prev.id) ?? 0 } : null}
            />
            <MoveButton
              frame={frame}
              item={item}
              dir="up"
              target={index > 0 ? { columnId: item.columnId, orderIndex: index - 1 } : null}
            />
            <MoveButton
              frame={frame}
              item={item}
              dir="down"
              target={index < own - 1 ? { columnId: item.columnId, orderIndex: index + 1 } : null}
            />
            <MoveButton
              frame={frame}
              item={item}
              dir="right"
              target={next ? { columnId: next.id, orderIndex: counts.get(next.id) ?? 0 } : null}
            />
          </div>
        )
        : null}
    </li>
  );
}

/** The board alone: the page's middle and the `?fragment=1` answer. */
export function Board(props: { frame: ProjectFrame; data: BoardData }) {
  const { frame, data } = props;
  const { t } = frame.ctx;
  const counts = new Map<number, number>();
  for (const item of data.items) counts.set(item.columnId, (counts.get(item.columnId) ?? 0) + 1);
  return (
    <div
      class="kanban"
      data-kanban-board
      data-project={frame.project.id}
      data-can-write={frame.canWrite ? "true" : "false"}
    >
      {data.columns.map((column, columnIndex) => {
        const items = data.items.filter((i) => i.columnId === column.id);
        return (
          <section
            class="kanban-column"
            data-column={column.id}
            data-column-key={column.key ?? ""}
            aria-labelledby={`column-${column.id}`}
          >
            <h2 id={`column-${column.id}`}>
              {columnLabel(t, column)}{" "}
              <span class="count muted">
                {items.length === 1
                  ? t("todos.countOne")
                  : t("todos.count", { count: items.length })}
              </span>
            </h2>
            <ol class="kanban-items" data-column-items={column.id}>
              {items.map((item, index) => (
                <Card
                  frame={frame}
                  item={item}
                  index={index}
                  columnIndex={columnIndex}
                  columns={data.columns}
                  counts={counts}
                  today={data.today}
                />
              ))}
            </ol>
            {items.length === 0 ? <p class="muted kanban-empty">{t("todos.columnEmpty")}</p> : null}
          </section>
        );
      })}
    </div>
  );
}

/** Select options of the members, with "unassigned" first. */
function AssigneeSelect(props: { frame: ProjectFrame; value: string }) {
  const { frame } = props;
  return (
    <select name="assigneeId">
      <option value="" selected={props.value === ""}>{frame.ctx.t("todos.unassigned")}</option>
      {frame.members.map((m) => (
        <option value={m.userId} selected={props.value === String(m.userId)}>
          {m.displayName} ({m.email})
        </option>
      ))}
    </select>
  );
}

function PrioritySelect(props: { t: Translate; value: string }) {
  return (
    <select name="priority">
      {PRIORITIES.map((p) => (
        <option value={p} selected={props.value === p}>{props.t(`todos.priority.${p}`)}</option>
      ))}
    </select>
  );
}

function MilestoneSelect(props: { t: Translate; milestones: Milestone[]; value: string }) {
  return (
    <select name="milestoneId">
      <option value="" selected={props.value === ""}>{props.t("todos.noMilestone")}</option>
      {props.milestones.map((m) => (
        <option value={m.id} selected={props.value === String(m.id)}>{m.title}</option>
      ))}
    </select>
  );
}

/** The fields shared by the create and edit forms. */
function ItemFields(
  props: {
    frame: ProjectFrame;
    milestones: Milestone[];
    values: Record<string, string>;
    errors: Record<string, string>;
  },
) {
  const { frame, values, errors } = props;
  const { t } = frame.ctx;
  return (
    <>
      <TitleField
        label={t("todos.field.title")}
        max={TITLE_MAX}
        value={values.title ?? ""}
        error={errors.title}
      />
      <div class="form-grid">
        <label>
          {t("todos.field.assignee")}
          <AssigneeSelect frame={frame} value={values.assigneeId ?? ""} />
          <FieldError message={errors.assigneeId} />
        </label>
        <label>
          {t("todos.field.priority")}
          <PrioritySelect t={t} value={values.priority ?? "normal"} />
          <FieldError message={errors.priority} />
        </label>
        <label>
          {t("todos.field.startDate")}
          <input type="date" name="startDate" value={values.startDate ?? ""} />
          <FieldError message={errors.startDate} />
        </label>
        <label>
          {t("todos.field.dueDate")}
          <input type="date" name="dueDate" value={values.dueDate ?? ""} />
          <FieldError message={errors.dueDate} />
        </label>
        <label>
          {t("todos.field.milestone")}
          <MilestoneSelect t={t} milestones={props.milestones} value={values.milestoneId ?? ""} />
          <FieldError message={errors.milestoneId} />
        </label>
        <label>
          {t("todos.field.tags")}
          <input name="tags" value={values.tags ?? ""} aria-describedby="todo-tags-hint" />
          <span class="hint" id="todo-tags-hint">{t("todos.tagsHint")}</span>
          <FieldError message={errors.tags} />
        </label>
      </div>
      <MarkdownField
        t={t}
        label={t("todos.field.description")}
        name="description"
        value={values.description}
        max={DESCRIPTION_MAX}
        rows={4}
        error={errors.description}
      />
    </>
  );
}

function TodosPage(
  props: { frame: ProjectFrame; data: BoardData; message: string | null; state: FormState },
) {
  const { frame, data } = props;
  const { t } = frame.ctx;
  const values = props.state.values ?? {};
  const errors = props.state.errors ?? {};
  return (
    <>
      <h1>{t("todos.title")}</h1>
      <Alert message={props.message} />
      {frame.canWrite
        ? (
          <FormCard
            open={props.state.values !== undefined}
            summary={t("todos.new")}
            action={`/projects/${frame.project.id}/todos`}
            submit={t("todos.create")}
            attrs={{ "data-todo-create": true }}
          >
            <ItemFields
              frame={frame}
              milestones={data.milestones}
              values={values}
              errors={errors}
            />
            <label>
              {t("todos.field.column")}
              <select name="columnId">
                {data.columns.map((c) => (
                  <option value={c.id} selected={values.columnId === String(c.id)}>
                    {columnLabel(t, c)}
                  </option>
                ))}
              </select>
              <FieldError message={errors.columnId} />
            </label>
          </FormCard>
        )
        : null}
      {frame.canWrite ? <p class="hint">{t("todos.dragHint")}</p> : null}
      <p class="kanban-status alert" role="alert" data-kanban-status hidden>
        {t("todos.moveFailed")}
      </p>
      <Board frame={frame} data={data} />
      <script type="module" src="/static/kanban.js"></script>
    </>
  );
}

/** The values an item's edit form starts from. */
function valuesOf(item: Item): Record<string, string> {
  return {
    title: item.title,
    description: item.description ?? "",
    assigneeId: item.assigneeId === null ? "" : String(item.assigneeId),
    priority: item.priority,
    startDate: item.startDate ?? "",
    dueDate: item.dueDate ?? "",
    tags: item.tags.join(", "),
    milestoneId: item.milestoneId === null ? "" : String(item.milestoneId),
  };
}

function ItemPage(
  props: {
    frame: ProjectFrame;
    item: Item;
    data: BoardData;
    message: string | null;
    edit: FormState;
    uploadError: string | null;
  },
) {
  const { frame, item, data } = props;
  const { t, locale } = frame.ctx;
  const base = `/projects/${frame.project.id}/todos/${item.id}`;
  const column = data.columns.find((c) => c.id === item.columnId);
  const milestone = data.milestones.find((m) => m.id === item.milestoneId);
  return (
    <>
      <p>
        <a href={`/projects/${frame.project.id}/todos#item-${item.id}`}>{t("todos.back")}</a>
      </p>
      <article class="todo-detail" data-item-detail={item.id}>
        <div class="row">
          {frame.canWrite ? <ToggleButton frame={frame} item={item} from="item" /> : null}
          <h1>{item.title}</h1>
          {item.completed ? <span class="tag done">{t("todos.completed")}</span> : null}
        </div>
        <Alert message={props.message} />
        <div class="card">
          <ItemFacts frame={frame} item={item} today={data.today} />
          <dl class="facts">
            {column
              ? (
                <>
                  <dt>{t("todos.field.column")}</dt>
                  <dd>{columnLabel(t, column)}</dd>
                </>
              )
              : null}
            {item.startDate
              ? (
                <>
                  <dt>{t("todos.field.startDate")}</dt>
                  <dd>{formatDate(item.startDate, locale)}</dd>
                </>
              )
              : null}
            {milestone
              ? (
                <>
                  <dt>{t("todos.field.milestone")}</dt>
                  <dd>{milestone.title}</dd>
                </>
              )
              : null}
            <dt>{t("common.created")}</dt>
            <dd>
              {t("todos.createdBy", { name: nameOf(frame, item.creatorId) })} ·{" "}
              <Time ctx={frame.ctx} iso={item.createdAt} />
            </dd>
            {item.completedAt
              ? (
                <>
                  <dt>{t("todos.completed")}</dt>
                  <dd>
                    <Time ctx={frame.ctx} iso={item.completedAt} />
                  </dd>
                </>
              )
              : null}
          </dl>
          {item.description ? <Markdown source={item.description} /> : null}
        </div>
        <h2>{t("todos.attachments")}</h2>
        <div class="card">
          {item.attachments.length === 0
            ? <p class="muted">{t("todos.noAttachments")}</p>
            : (
              <ul class="plain" data-attachments>
                {item.attachments.map((f) => (
                  <AttachmentItem
                    key={f.id}
                    file={f}
                    locale={locale}
                  />
                ))}
              </ul>
            )}
          {frame.canWrite
            ? (
              <form
                class="inline upload"
                method="post"
                action={`${base}/attachments`}
                enctype="multipart/form-data"
              >
                <label>
                  {t("todos.uploadTitle")}
                  <input type="file" name="file" required />
                  <FieldError message={props.uploadError ?? undefined} />
                </label>
                <button type="submit">{t("todos.upload")}</button>
              </form>
            )
            : null}
        </div>
        {frame.canWrite
          ? (
            <>
              <h2>{t("todos.edit")}</h2>
              <form class="stack card" method="post" action={base} data-todo-edit>
                <ItemFields
                  frame={frame}
                  milestones={data.milestones}
                  values={props.edit.values ?? valuesOf(item)}
                  errors={props.edit.errors ?? {}}
                />
                <div>
                  <button type="submit">{t("todos.save")}</button>
                </div>
              </form>
              <form method="post" action={`${base}/delete`} data-confirm={t("todos.deleteConfirm")}>
                <button class="danger" type="submit">{t("todos.delete")}</button>
              </form>
            </>
          )
          : null}
      </article>
    </>
  );
}

/** A checked item form: the domain input, or the message of each bad field. */
type ItemForm =
  | { ok: true; input: ItemInput & { title: string } }
  | { ok: false; errors: Record<string, string> };

/** Reads the create and edit forms; an empty optional field clears it (null). */
function readItemForm(
  fields: Record<string, string>,
  t: Translate,
  frame: ProjectFrame,
): ItemForm {
  const errors: Record<string, string> = {};
  checkText(errors, t, { name: "title", value: fields.title, max: TITLE_MAX, required: true });
  checkText(errors, t, {
    name: "description",
    value: fields.description,
    max: DESCRIPTION_MAX,
    required: false,
  });
  const optionalId = (name: string): number | null => {
    const raw = (fields[name] ?? "").trim();
    if (raw === "") return null;
    if (!/^\d{1,15}$/.test(raw)) {
      errors[name] = t("form.invalid");
      return null;
    }
    return Number(raw);
  };
  const date = (name: string): string | null => {
    const raw = (fields[name] ?? "").trim();
    if (raw === "") return null;
    if (!DATE.test(raw)) errors[name] = t("todos.dateInvalid");
    return raw;
  };
  const assigneeId = optionalId("assigneeId");
  if (assigneeId !== null && !frame.members.some((m) => m.userId === assigneeId)) {
    errors.assigneeId = t("form.invalid");
  }
  const priority = (fields.priority ?? "normal") as Priority;
  if (!PRIORITIES.includes(priority)) errors.priority = t("form.invalid");
  const tags = (fields.tags ?? "").split(/[,、，]/).map((s) => s.trim()).filter((s) => s !== "");
  if (tags.length > 20 || tags.some((tag) => tag.length > 50)) {
    errors.tags = t("todos.tagsInvalid");
  }
  const description = (fields.description ?? "").trim() === "" ? null : fields.description!;
  const input = {
    title: (fields.title ?? "").trim(),
    description,
    assigneeId,
    priority,
    startDate: date("startDate"),
    dueDate: date("dueDate"),
    tags,
    milestoneId: optionalId("milestoneId"),
  };
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, input };
}

/** The field messages of a domain validation error, in the reader's language. */
function domainFieldErrors(error: unknown, t: Translate): Record<string, string> {
  if (!(error instanceof DomainError) || error.code !== "validation") return {};
  const errors: Record<string, string> = {};
  for (const field of Object.keys(error.details ?? {})) {
    errors[field] = field === "startDate" || field === "dueDate"
      ? t("todos.dateInvalid")
      : t("form.invalid");
  }
  // The one cross-field rule: a due date before the start date.
  if (error.details?.dueDate?.includes("before")) errors.dueDate = t("todos.spanInvalid");
  return errors;
}

/** The to-do pages. */
export function todoPages(services: Services) {
  const app = new Hono<AppEnv>();
  const { todos, attachments } = services;
  const run = frameRunner(services, { notFound });
  const maxUploadMb = uploadLimitMb(services);
  const P = "/projects/:projectId{[0-9]+}/todos";
  const I = `${P}/:itemId{[0-9]+}`;

  const boardData = (frame: ProjectFrame): BoardData => {
    const actor = frame.ctx.actor!;
    const projectId = frame.project.id;
    return {
      columns: todos.columns(actor, projectId),
      items: todos.list(actor, projectId, { columnId: null, assigneeId: null, milestoneId: null }),
      milestones: services.milestones.list(actor, projectId),
      today: services.clock.now().toISOString().slice(0, 10),
    };
  };

  const showBoard = (
    c: Ctx,
    frame: ProjectFrame,
    extra: { status?: number; message?: string; state?: FormState } = {},
  ) =>
    renderArea(c, frame, {
      area: "todos",
      title: frame.ctx.t("todos.title"),
      status: extra.status ?? 200,
      body: (
        <TodosPage
          frame={frame}
          data={boardData(frame)}
          message={extra.message ?? null}
          state={extra.state ?? {}}
        />
      ),
    });

  const showItem = (
    c: Ctx,
    frame: ProjectFrame,
    extra: { status?: number; message?: string; edit?: FormState; uploadError?: string } = {},
  ) => {
    const item = todos.get(frame.ctx.actor!, frame.project.id, paramId(c, "itemId"));
    return renderArea(c, frame, {
      area: "todos",
      title: item.title,
      status: extra.status ?? 200,
      body: (
        <ItemPage
          frame={frame}
          item={item}
          data={boardData(frame)}
          message={extra.message ?? null}
          edit={extra.edit ?? {}}
          uploadError={extra.uploadError ?? null}
        />
      ),
    });
  };

  const boardUrl = (frame: ProjectFrame, itemId?: number) =>
    `/projects/${frame.project.id}/todos${itemId ? `#item-${itemId}` : ""}`;

  app.get(P, (c) =>
    run(c, (frame) => {
      if (c.req.query("fragment") === "1") {
        c.header("content-security-policy", PAGE_CSP);
        return c.html(<Board frame={frame} data={boardData(frame)} />);
      }
      return showBoard(c, frame);
    }));

  app.post(P, (c) =>
    run(c, async (frame) => {
      const { t, actor } = frame.ctx;
      const { fields } = splitBody(await parseForm(c));
      const columnId = fields.columnId ? Number(fields.columnId) : undefined;
      return submitForm(c, frame, {
        form: readItemForm(fields, t, frame),
        values: fields,
        change: (input) => {
          const item = todos.create(actor!, frame.project.id, {
            ...input,
            ...(columnId && Number.isSafeInteger(columnId) ? { columnId } : {}),
          });
          return boardUrl(frame, item.id);
        },
        fieldErrors: domainFieldErrors,
        show: (failure, state) => showBoard(c, frame, { ...failure, state }),
      });
    }));

  app.get(I, (c) => run(c, (frame) => showItem(c, frame)));

  app.post(I, (c) =>
    run(c, async (frame) => {
      const { t, actor } = frame.ctx;
      const { fields } = splitBody(await parseForm(c));
      const itemId = paramId(c, "itemId");
      return submitForm(c, frame, {
        form: readItemForm(fields, t, frame),
        values: fields,
        change: (input) => {
          todos.update(actor!, frame.project.id, { itemId, ...input });
          return `/projects/${frame.project.id}/todos/${itemId}`;
        },
        fieldErrors: domainFieldErrors,
        show: (failure, edit) => showItem(c, frame, { ...failure, edit }),
      });
    }));

  app.post(`${I}/move`, (c) =>
    run(c, async (frame) => {
      const { fields } = splitBody(await parseForm(c));
      const itemId = paramId(c, "itemId");
      const columnId = Number(fields.columnId);
      const orderIndex = Number(fields.orderIndex);
      if (!Number.isSafeInteger(columnId) || !Number.isSafeInteger(orderIndex) || orderIndex < 0) {
        return showBoard(c, frame, { status: 400, message: frame.ctx.t("form.invalid") });
      }
      return attempt(c, frame, {
        change: () => {
          todos.move(frame.ctx.actor!, frame.project.id, { itemId, columnId, orderIndex });
          return boardUrl(frame, itemId);
        },
        fail: (failure) => showBoard(c, frame, failure),
      });
    }));

  app.post(`${I}/toggle`, (c) =>
    run(c, async (frame) => {
      const { fields } = splitBody(await parseForm(c));
      const itemId = paramId(c, "itemId");
      const toItem = fields.from === "item";
      return attempt(c, frame, {
        change: () => {
          todos.toggleComplete(frame.ctx.actor!, frame.project.id, itemId);
          return toItem ? `/projects/${frame.project.id}/todos/${itemId}` : boardUrl(frame, itemId);
        },
        fail: (failure) => toItem ? showItem(c, frame, failure) : showBoard(c, frame, failure),
      });
    }));

  app.post(`${I}/delete`, (c) =>
    run(c, (frame) =>
      attempt(c, frame, {
        change: () => {
          todos.remove(frame.ctx.actor!, frame.project.id, paramId(c, "itemId"));
          return boardUrl(frame);
        },
        fail: (failure) => showItem(c, frame, failure),
      })));

  app.post(`${I}/attachments`, (c) =>
    run(c, async (frame) => {
      const { t, actor } = frame.ctx;
      const { file } = splitBody(await parseForm(c));
      const itemId = paramId(c, "itemId");
      if (!file) {
        // The reason next to the field; the page's alert says only that something needs fixing.
        const invalid = t("form.invalid");
        return showItem(c, frame, {
          status: 400,
          message: invalid,
          uploadError: t("todos.fileMissing"),
        });
      }
      if (!allowedType(file.name)) {
        return showItem(c, frame, {
          status: 415,
          message: t("form.invalid"),
          uploadError: t("files.unsupported"),
        });
      }
      return attempt(c, frame, {
        maxUploadMb,
        change: async () => {
          await attachments.add(
            actor!,
            { projectId: frame.project.id, type: "item", id: itemId },
            { upload: file },
          );
          return `/projects/${frame.project.id}/todos/${itemId}`;
        },
        fail: (failure) => {
          const field = fileErrors(failure).file;
          return showItem(c, frame, {
            ...failure,
            ...(field ? { message: t("form.invalid"), uploadError: field } : {}),
          });
        },
      });
    }));

  return app;
}
