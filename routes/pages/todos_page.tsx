/**
 * The to-do pages: a kanban board (columns in position order, cards in order) with a create
 * form and, on every card, move buttons (← → ↑ ↓) and a complete toggle that are plain
 * forms, so the board works without JavaScript and from the keyboard; and an item page with
 * its attachments, an edit form and an upload form. `static/kanban.js` adds drag and drop
 * and live updates, re-rendering from `?fragment=1` (the board alone, same markup).
 */
import { invalid } from "../../domain/errors.ts";
import type { Milestone } from "../../domain/milestones.ts";
import type { Services } from "../../domain/services.ts";
import type { BoardCard, BoardLane, BoardPlace, Direction } from "../../domain/todo_board.ts";
import { type Column, hasStandardName, type Item, type Priority } from "../../domain/todos.ts";
import { MoveInput, TodoInput } from "../api/todos.ts";
import type { Translate } from "../i18n/i18n.ts";
import {
  type AreaPage,
  areaRoutes,
  mentionsOf,
  nameOf,
  paramId,
  type ProjectFrame,
} from "./kit/area.tsx";
import { AttachmentItem, BackLink, Due, Facts, Markdown, Time } from "./kit/content.tsx";
import { formatDay } from "../i18n/format.ts";
import { todayOf } from "./kit/dates.ts";
import {
  DateField,
  EditAndDelete,
  Field,
  type FormState,
  formState,
  MarkdownField,
  NewForm,
  SelectField,
  TextField,
} from "./kit/fields.tsx";
import { type Fields, idOrNull, orNull, readForm, tagList } from "./kit/forms.ts";
import { Alert, FieldError } from "./kit/layout.tsx";
import { type Shown, submit } from "./kit/submit.ts";
import { afterCreate, afterDelete, afterSave } from "./kit/notices.tsx";

const PRIORITIES: readonly Priority[] = ["low", "normal", "high"];

/** A column's label: the standard columns in the reader's language until renamed. */
function columnLabel(t: Translate, column: Column): string {
  return column.key && hasStandardName(column) ? t(`todos.column.${column.key}`) : column.name;
}

/** What the board needs to draw itself. */
interface BoardData {
  lanes: BoardLane<Item>[];
  milestones: Milestone[];
  /** Today's UTC date, for overdue marks. */
  today: string;
}

/** Each direction's arrow and button label. */
const MOVES = {
  left: ["←", "todos.moveLeft"],
  right: ["→", "todos.moveRight"],
  up: ["↑", "todos.moveUp"],
  down: ["↓", "todos.moveDown"],
} as const;

function MoveButton(
  props: {
    frame: ProjectFrame;
    item: Item;
    dir: Direction;
    /** The target column and index, or null when the card cannot go that way. */
    target: BoardPlace | null;
  },
) {
  const { frame, item, dir, target } = props;
  const { t } = frame.ctx;
  const [arrow, key] = MOVES[dir];
  const label = t(key, { title: item.title });
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
        {arrow}
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
  const { t } = frame.ctx;
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
      {item.dueDate !== null ? <Due ctx={frame.ctx} date={item.dueDate} overdue={overdue} /> : null}
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

function Card(props: { frame: ProjectFrame; card: BoardCard<Item>; today: string }) {
  const { frame, card: { item, moves } } = props;
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
            {(["left", "up", "down", "right"] as const).map((dir) => (
              <MoveButton frame={frame} item={item} dir={dir} target={moves[dir]} />
            ))}
          </div>
        )
        : null}
    </li>
  );
}

/** The board alone: the page's middle and the `?fragment=1` answer. */
function Board(props: { frame: ProjectFrame; data: BoardData }) {
  const { frame, data } = props;
  const { t } = frame.ctx;
  return (
    <div
      class="kanban"
      data-kanban-board
      data-project={frame.project.id}
      data-can-write={frame.canWrite ? "true" : "false"}
    >
      {data.lanes.map(({ column, cards }) => (
        <section
          class="kanban-column"
          data-column={column.id}
          data-column-key={column.key ?? ""}
          aria-labelledby={`column-${column.id}`}
        >
          <h2 id={`column-${column.id}`}>
            {columnLabel(t, column)}{" "}
            <span class="count muted">
              {cards.length === 1 ? t("todos.countOne") : t("todos.count", { count: cards.length })}
            </span>
          </h2>
          <ol class="kanban-items" data-column-items={column.id}>
            {cards.map((card) => (
              <Card key={card.item.id} frame={frame} card={card} today={data.today} />
            ))}
          </ol>
          {cards.length === 0 ? <p class="muted kanban-empty">{t("todos.columnEmpty")}</p> : null}
        </section>
      ))}
    </div>
  );
}

/** The fields shared by the create and edit forms. */
function ItemFields(props: { frame: ProjectFrame; milestones: Milestone[]; form: FormState }) {
  const { frame, form } = props;
  const { t } = frame.ctx;
  const people = frame.members.map((m) => [m.userId, `${m.displayName} (${m.email})`] as const);
  return (
    <>
      <TextField label={t("todos.field.title")} schema={TodoInput} name="title" form={form} />
      <div class="form-grid">
        <SelectField
          label={t("todos.field.assignee")}
          name="assigneeId"
          form={form}
          options={[["", t("todos.unassigned")], ...people]}
          initial=""
        />
        <SelectField
          label={t("todos.field.priority")}
          name="priority"
          form={form}
          options={PRIORITIES.map((p) => [p, t(`todos.priority.${p}`)])}
          initial="normal"
        />
        <DateField label={t("todos.field.startDate")} name="startDate" form={form} />
        <DateField label={t("todos.field.dueDate")} name="dueDate" form={form} />
        <SelectField
          label={t("todos.field.milestone")}
          name="milestoneId"
          form={form}
          options={[
            ["", t("todos.noMilestone")],
            ...props.milestones.map((m) => [m.id, m.title] as const),
          ]}
          initial=""
        />
        <Field label={t("todos.field.tags")} error={form.errors.tags}>
          <input name="tags" value={form.values.tags ?? ""} aria-describedby="todo-tags-hint" />
          <span class="hint" id="todo-tags-hint">{t("todos.tagsHint")}</span>
        </Field>
      </div>
      <MarkdownField
        t={t}
        label={t("todos.field.description")}
        schema={TodoInput}
        name="description"
        form={form}
        rows={4}
      />
    </>
  );
}

const todosPage: AreaPage<BoardData> = {
  area: "todos",
  load: (_, frame) => boardData(frame),
  title: (_, t) => t("todos.title"),
  fragment: ({ frame, data }) => <Board frame={frame} data={data} />,
  view: ({ frame, data, shown }) => {
    const { t } = frame.ctx;
    const form = formState(shown, "create");
    return (
      <>
        <h1>{t("todos.title")}</h1>
        <Alert message={shown.message} />
        <NewForm
          canWrite={frame.canWrite}
          form={form}
          summary={t("todos.new")}
          action={`/projects/${frame.project.id}/todos`}
          submit={t("todos.create")}
          attrs={{ "data-todo-create": true }}
        >
          <ItemFields frame={frame} milestones={data.milestones} form={form} />
          <SelectField
            label={t("todos.field.column")}
            name="columnId"
            form={form}
            options={data.lanes.map(({ column: c }) => [c.id, columnLabel(t, c)])}
          />
        </NewForm>
        {frame.canWrite ? <p class="hint">{t("todos.dragHint")}</p> : null}
        <p class="kanban-status alert" role="alert" data-kanban-status hidden>
          {t("todos.moveFailed")}
        </p>
        <Board frame={frame} data={data} />
        <script type="module" src="/static/kanban.js"></script>
      </>
    );
  },
};

/** What the board needs to draw itself. */
function boardData({ services, ctx, project }: ProjectFrame): BoardData {
  return {
    lanes: services.todos.board(ctx.actor!, project.id),
    milestones: services.milestones.list(ctx.actor!, project.id),
    today: todayOf(services),
  };
}

const itemPage: AreaPage<{ item: Item; board: BoardData }> = {
  area: "todos",
  load: (c, frame) => ({
    item: frame.services.todos.get(frame.ctx.actor!, frame.project.id, paramId(c, "itemId")),
    board: boardData(frame),
  }),
  title: ({ item }) => item.title,
  view: ({ frame, data: { item, board }, shown }) => {
    const { t, locale } = frame.ctx;
    const base = `/projects/${frame.project.id}/todos/${item.id}`;
    const column = board.lanes.find((lane) => lane.column.id === item.columnId)?.column;
    const milestone = board.milestones.find((m) => m.id === item.milestoneId);
    const form = formState(shown, "edit", {
      title: item.title,
      description: item.description ?? "",
      assigneeId: item.assigneeId === null ? "" : String(item.assigneeId),
      priority: item.priority,
      startDate: item.startDate ?? "",
      dueDate: item.dueDate ?? "",
      tags: item.tags.join(", "),
      milestoneId: item.milestoneId === null ? "" : String(item.milestoneId),
    });
    return (
      <>
        <BackLink
          href={`/projects/${frame.project.id}/todos#item-${item.id}`}
          label={t("todos.back")}
        />
        <article class="todo-detail" data-item-detail={item.id}>
          <div class="row">
            {frame.canWrite ? <ToggleButton frame={frame} item={item} from="item" /> : null}
            <h1>{item.title}</h1>
            {item.completed ? <span class="tag done">{t("todos.completed")}</span> : null}
          </div>
          <Alert message={shown.message} />
          <div class="card">
            <ItemFacts frame={frame} item={item} today={board.today} />
            <Facts
              facts={[
                [t("todos.field.column"), column && columnLabel(t, column)],
                [t("todos.field.startDate"), item.startDate && formatDay(item.startDate, locale)],
                [t("todos.field.milestone"), milestone?.title],
                [
                  t("common.created"),
                  (
                    <>
                      {t("todos.createdBy", { name: nameOf(frame, item.creatorId) })} ·{" "}
                      <Time ctx={frame.ctx} iso={item.createdAt} />
                    </>
                  ),
                ],
                [
                  t("todos.completed"),
                  item.completedAt && (
                    <Time key="completed" ctx={frame.ctx} iso={item.completedAt} />
                  ),
                ],
              ]}
            />
            {item.description
              ? <Markdown source={item.description} mentions={mentionsOf(frame)} />
              : null}
          </div>
          <h2>{t("todos.attachments")}</h2>
          <div class="card">
            {item.attachments.length === 0
              ? <p class="muted">{t("todos.noAttachments")}</p>
              : (
                <ul class="plain" data-attachments>
                  {item.attachments.map((f) => (
                    <AttachmentItem key={f.id} file={f} locale={locale} />
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
                    <FieldError message={formState(shown, "upload").errors.file} />
                  </label>
                  <button type="submit">{t("todos.upload")}</button>
                </form>
              )
              : null}
          </div>
          <EditAndDelete
            show={frame.canWrite}
            form={form}
            action={base}
            heading={t("todos.edit")}
            submit={t("todos.save")}
            attrs={{ "data-todo-edit": true }}
            remove={{ label: t("todos.delete"), confirm: t("todos.deleteConfirm") }}
          >
            <ItemFields frame={frame} milestones={board.milestones} form={form} />
          </EditAndDelete>
        </article>
      </>
    );
  },
};

/** How the domain's refusals of an item's fields are said. */
const FIELDS = {
  startDate: "todos.dateInvalid",
  dueDate: "todos.dateInvalid",
  "dueDate:before_start": "todos.spanInvalid",
  tags: "todos.tagsInvalid",
  file: "files.missing",
} as const;

/** The item form's fields read into the input of a create or update; empty clears (null). */
function readItem(fields: Fields) {
  const columnId = idOrNull(fields.columnId);
  return {
    ...fields,
    description: orNull(fields.description),
    assigneeId: idOrNull(fields.assigneeId),
    priority: fields.priority ?? "normal",
    startDate: orNull(fields.startDate)?.trim() ?? null,
    dueDate: orNull(fields.dueDate)?.trim() ?? null,
    tags: tagList(fields.tags),
    milestoneId: idOrNull(fields.milestoneId),
    columnId: columnId ?? undefined,
  };
}

/** The to-do pages. */
export function todoPages(services: Services) {
  const { todos, attachments } = services;
  const area = areaRoutes(services);
  const P = "/projects/:projectId{[0-9]+}/todos";
  const I = `${P}/:itemId{[0-9]+}`;
  const boardUrl = (projectId: number, itemId?: number) =>
    `/projects/${projectId}/todos${itemId ? `#item-${itemId}` : ""}`;
  const itemUrl = (projectId: number, itemId: number) => `/projects/${projectId}/todos/${itemId}`;
  area.things({
    list: [P, todosPage],
    item: [I, itemPage],
    form: { schema: TodoInput, read: readItem, fields: FIELDS },
    create: ({ actor, projectId, input }) => {
      const { id } = todos.create(actor, projectId, input);
      return afterCreate(boardUrl(projectId, id), { type: "item", id });
    },
    update: ({ c, actor, projectId, input }) => {
      const { columnId: _, ...changes } = input;
      const item = todos.update(actor, projectId, { itemId: paramId(c, "itemId"), ...changes });
      return afterSave(itemUrl(projectId, item.id), { type: "item", id: item.id });
    },
    remove: ({ c, actor, projectId }) => {
      return afterDelete(boardUrl(projectId), todos.remove(actor, projectId, paramId(c, "itemId")));
    },
  });
  area.form(`${I}/move`, todosPage, {
    form: "move",
    schema: MoveInput,
    read: (fields) => ({
      columnId: Number(fields.columnId),
      orderIndex: Number(fields.orderIndex),
    }),
    change: ({ c, actor, projectId, input }) => {
      const itemId = paramId(c, "itemId");
      todos.move(actor, projectId, { itemId, ...input });
      return boardUrl(projectId, itemId);
    },
  });
  // Toggled on the board or on the item's page: a refusal shows the page it came from.
  area.app.post(`${I}/toggle`, (c) =>
    area.run(c, async (frame) => {
      const { fields } = await readForm(c);
      const toItem = fields.from === "item";
      const show = (shown: Shown) =>
        toItem ? area.render(c, frame, itemPage, shown) : area.render(c, frame, todosPage, shown);
      const { actor, t } = frame.ctx;
      const projectId = frame.project.id;
      return submit(c, show, {
        t,
        form: "toggle",
        values: fields,
        input: { ok: true, data: paramId(c, "itemId") },
        change: (itemId) => {
          todos.toggleComplete(actor!, projectId, itemId);
          return toItem ? itemUrl(projectId, itemId) : boardUrl(projectId, itemId);
        },
      });
    }));
  area.form(`${I}/attachments`, itemPage, {
    form: "upload",
    fields: FIELDS,
    change: async ({ c, actor, projectId, file }) => {
      if (!file) throw invalid("file", "Choose a file to upload");
      const target = { projectId, type: "item" as const, id: paramId(c, "itemId") };
      await attachments.add(actor, target, { upload: file });
      return itemUrl(projectId, target.id);
    },
  });
  return area.app;
}
