/**
 * The to-do pages: a kanban board (columns in position order, cards in order) with a create
 * form and, on every card, move buttons (← → ↑ ↓) and a complete toggle that are plain
 * forms, so the board works without JavaScript and from the keyboard; and an item page with
 * its attachments, its checklist (add, check, rename, move and delete entries, each a plain
 * form too), an edit form and an upload form. `static/kanban.js` adds drag and drop and live
 * updates, re-rendering from `?fragment=1` (the board alone, same markup).
 */
import type { ChecklistEntry } from "../../domain/planning/checklists.ts";
import { invalid } from "../../domain/kernel/errors.ts";
import type { FileInfo } from "../../domain/content/files.ts";
import type { Milestone } from "../../domain/planning/milestones.ts";
import type { Services } from "../../domain/services.ts";
import type { BoardCard } from "../../domain/planning/todo_board.ts";
import {
  type BoardColumn,
  type Column,
  DONE_SHOWN,
  hasStandardName,
  type Item,
  PAGE_DEFAULT,
  type Priority,
} from "../../domain/planning/todos.ts";
import { MoveInput, TodoInput } from "../api/todos.ts";
import { ChecklistEntryInput, ChecklistEntryPatch } from "../api/checklists.ts";
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
import { Alert, FieldError, renderFragment } from "./kit/layout.tsx";
import { FilePicker, pickableFiles, PICKER_FIELDS, requiredPick } from "./kit/file_picker.tsx";
import { type Shown, submit } from "./kit/submit.ts";
import { afterCreate, afterDelete, afterSave } from "./kit/notices.tsx";
import { liveEvents } from "./kit/live.tsx";

const PRIORITIES: readonly Priority[] = ["low", "normal", "high"];

/** A column's label: the standard columns in the reader's language until renamed. */
function columnLabel(t: Translate, column: Column): string {
  return column.key && hasStandardName(column) ? t(`todos.column.${column.key}`) : column.name;
}

/** What the board needs to draw itself. */
interface BoardData {
  lanes: BoardColumn[];
  milestones: Milestone[];
  /** Today's date in the viewer's zone, for overdue marks. */
  today: string;
}

/**
 * A card's controls are named with its title in them ("Move “Write the report” up"). Said in
 * full on every card, those names were most of a large board's weight; instead each names
 * itself by `aria-labelledby`: the words before the title and after it, said once per board
 * (`ControlWords`), and the title's own link. Quotation marks around the title are left out
 * (a name joins its parts with spaces).
 */
const WORDS = {
  left: "todos.moveLeft",
  up: "todos.moveUp",
  down: "todos.moveDown",
  right: "todos.moveRight",
  complete: "todos.complete",
  reopen: "todos.reopen",
} as const;

type Words = keyof typeof WORDS;

/** The words of `key` before and after its `{title}`, without the quotation marks. */
function wordsAround(t: Translate, key: (typeof WORDS)[Words]): [string, string] {
  const [before = "", after = ""] = t(key).split("{title}");
  return [before.replace(/[“「"]\s*$/u, "").trim(), after.replace(/^\s*[”」"]/u, "").trim()];
}

/** The board's control words, hidden, for the cards' `aria-labelledby`. */
function ControlWords(props: { t: Translate }) {
  return (
    <div hidden data-kanban-words>
      {(Object.keys(WORDS) as Words[]).map((w) => {
        const [before, after] = wordsAround(props.t, WORDS[w]);
        return (
          <>
            {before ? <span id={`w0-${w}`}>{before}</span> : null}
            {after ? <span id={`w-${w}`}>{after}</span> : null}
          </>
        );
      })}
    </div>
  );
}

/**
 * The `aria-labelledby` of a card's control: the words before the title (`w0-<words>`), the
 * title (`ct-<item id>`) and the words after it (`w-<words>`, which every control has in
 * both languages, so `[aria-labelledby$=" w-right"]` finds a card's → button).
 */
function labelledBy(t: Translate, w: Words, itemId: number): string {
  const [before, after] = wordsAround(t, WORDS[w]);
  return [before && `w0-${w}`, `ct-${itemId}`, after && `w-${w}`].filter(Boolean).join(" ");
}

/** Each direction's arrow. */
const ARROWS = { left: "←", up: "↑", down: "↓", right: "→" } as const;

/**
 * A card's four moves: one form whose buttons each send their target (`to`: column id and
 * index) without JavaScript; `static/kanban.js` sends the same to the API instead. A button
 * that cannot move the card is disabled.
 */
function MoveButtons(props: { frame: ProjectFrame; card: BoardCard<Item> }) {
  const { frame, card: { item, moves } } = props;
  const { t } = frame.ctx;
  return (
    <form
      class="card-moves"
      method="post"
      action={`/projects/${frame.project.id}/todos/${item.id}/move`}
    >
      {(["left", "up", "down", "right"] as const).map((dir) => {
        const target = moves[dir];
        return (
          // A submit button, the default in a form: `type` said on each of a large board's
          // 1,000 buttons weighed 14 KB.
          // deno-lint-ignore jsx-button-has-type
          <button
            name={target ? "to" : undefined}
            value={target ? `${target.columnId}.${target.orderIndex}` : undefined}
            aria-labelledby={labelledBy(t, dir, item.id)}
            disabled={target === null}
          >
            {ARROWS[dir]}
          </button>
        );
      })}
    </form>
  );
}

/** The complete toggle on the board: named by `aria-labelledby`, as the moves. */
function CardToggle(props: { frame: ProjectFrame; item: Item }) {
  const { frame, item } = props;
  const button = (
    // A submit button (no `type`), as the moves'.
    // deno-lint-ignore jsx-button-has-type
    <button
      class="check"
      aria-labelledby={labelledBy(frame.ctx.t, item.completed ? "reopen" : "complete", item.id)}
      aria-pressed={item.completed ? "true" : "false"}
    >
      {item.completed ? "✓" : ""}
    </button>
  );
  return (
    <form
      class="card-toggle"
      method="post"
      action={`/projects/${frame.project.id}/todos/${item.id}/toggle`}
    >
      {button}
    </form>
  );
}

/** The item page's complete toggle. */
function ToggleButton(props: { frame: ProjectFrame; item: Item }) {
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
    >
      <input type="hidden" name="from" value="item" />
      <button
        class="check"
        type="submit"
        aria-label={label}
        title={label}
        aria-pressed={item.completed ? "true" : "false"}
      >
        {item.completed ? "✓" : ""}
      </button>
    </form>
  );
}

/** The facts on a card and on the item page: assignee, due date, priority, tags. */
function ItemFacts(props: { frame: ProjectFrame; item: Item; today: string }) {
  const { frame, item } = props;
  const { t } = frame.ctx;
  const overdue = !item.completed && item.dueDate !== null && item.dueDate < props.today;
  const priority = t(`todos.priority.${item.priority}`);
  return (
    <div class="card-facts row">
      {item.assigneeId !== null
        ? (
          <span class="assignee">
            {t("todos.assignee", { name: nameOf(frame, item.assigneeId) })}
          </span>
        )
        : null}
      {item.dueDate !== null ? <Due ctx={frame.ctx} date={item.dueDate} overdue={overdue} /> : null}
      <span
        class={`tag priority-${item.priority}`}
        title={t("todos.priorityLabel", { priority })}
      >
        {priority}
      </span>
      {item.tags.map((tag) => <span key={tag} class="tag">#{tag}</span>)}
    </div>
  );
}

/** A card's `✓ 2/5` when its item has a checklist, read out as "Checklist: 2 of 5 done". */
function ChecklistCount(props: { frame: ProjectFrame; item: Item }) {
  const { done, total } = props.item.checklist;
  if (total === 0) return null;
  const label = props.frame.ctx.t("todos.checklistBadge", { done, total });
  return (
    <p
      class={done === total ? "checklist-count all-done" : "checklist-count"}
      data-checklist-count={`${done}/${total}`}
      title={label}
    >
      <span aria-hidden="true">✓ {done}/{total}</span>
      <span class="visually-hidden">{label}</span>
    </p>
  );
}

/** One checklist entry: its check box, text, and (for editors) rename, move and delete forms. */
function ChecklistRow(
  props: {
    frame: ProjectFrame;
    base: string;
    entry: ChecklistEntry;
    first: boolean;
    last: boolean;
    shown: Shown;
  },
) {
  const { frame, entry } = props;
  const { t } = frame.ctx;
  const action = `${props.base}/checklist/${entry.id}`;
  const words = { text: entry.text };
  const toggle = entry.done ? t("todos.checklistUncheck", words) : t("todos.checklistCheck", words);
  const rename = formState(props.shown, `checklist-${entry.id}`, { text: entry.text });
  const move = (by: -1 | 1, arrow: string, label: string, disabled: boolean) => (
    <form class="inline" method="post" action={`${action}/move`}>
      <input type="hidden" name="by" value={String(by)} />
      <button
        class="secondary small"
        type="submit"
        aria-label={label}
        title={label}
        disabled={disabled}
      >
        {arrow}
      </button>
    </form>
  );
  return (
    <li
      class={entry.done ? "checklist-entry done" : "checklist-entry"}
      data-checklist-entry={entry.id}
      data-done={entry.done ? "true" : "false"}
    >
      <div class="row">
        {frame.canWrite
          ? (
            <form class="inline" method="post" action={`${action}/toggle`}>
              <input type="hidden" name="done" value={entry.done ? "false" : "true"} />
              <button
                class="check"
                type="submit"
                aria-label={toggle}
                title={toggle}
                aria-pressed={entry.done ? "true" : "false"}
              >
                {entry.done ? "✓" : ""}
              </button>
            </form>
          )
          : entry.done
          ? <span class="check done" aria-hidden="true">✓</span>
          : <span class="check" aria-hidden="true"></span>}
        <span class="checklist-text">
          {entry.text}
          {!frame.canWrite && entry.done
            ? <span class="visually-hidden">({t("todos.completed")})</span>
            : null}
        </span>
        {frame.canWrite
          ? (
            <span class="checklist-actions row">
              {move(-1, "↑", t("todos.checklistUp", words), props.first)}
              {move(1, "↓", t("todos.checklistDown", words), props.last)}
              <form class="inline" method="post" action={`${action}/delete`}>
                <button
                  class="secondary small"
                  type="submit"
                  aria-label={t("todos.checklistDeleteLabel", words)}
                >
                  {t("todos.checklistDelete")}
                </button>
              </form>
            </span>
          )
          : null}
      </div>
      {frame.canWrite
        ? (
          <details class="checklist-rename" open={rename.refused}>
            <summary>
              {t("todos.checklistRename")} <span class="visually-hidden">“{entry.text}”</span>
            </summary>
            <form class="inline" method="post" action={action}>
              <TextField
                label={t("todos.checklistRenameLabel", words)}
                schema={ChecklistEntryInput}
                name="text"
                form={rename}
              />
              <button type="submit">{t("todos.checklistSave")}</button>
            </form>
          </details>
        )
        : null}
    </li>
  );
}

/** The item page's checklist: the entries in order and, for editors, the form adding one. */
function Checklist(
  props: { frame: ProjectFrame; base: string; entries: ChecklistEntry[]; shown: Shown },
) {
  const { frame, entries } = props;
  const { t } = frame.ctx;
  const done = entries.filter((e) => e.done).length;
  const add = formState(props.shown, "checklist");
  return (
    <section class="checklist" id="checklist" aria-labelledby="checklist-title" data-checklist>
      <h2 id="checklist-title">
        {t("todos.checklist")} {entries.length > 0
          ? (
            <span class="count muted" data-checklist-progress>
              {t("todos.checklistProgress", { done, total: entries.length })}
            </span>
          )
          : null}
      </h2>
      <div class="card">
        {entries.length === 0
          ? <p class="muted">{t("todos.checklistEmpty")}</p>
          : (
            <ol class="plain checklist-entries">
              {entries.map((entry, i) => (
                <ChecklistRow
                  key={entry.id}
                  frame={frame}
                  base={props.base}
                  entry={entry}
                  first={i === 0}
                  last={i === entries.length - 1}
                  shown={props.shown}
                />
              ))}
            </ol>
          )}
        {frame.canWrite
          ? (
            <form class="inline checklist-add" method="post" action={`${props.base}/checklist`}>
              <TextField
                label={t("todos.checklistNew")}
                schema={ChecklistEntryInput}
                name="text"
                form={add}
              />
              <button type="submit">{t("todos.checklistAdd")}</button>
            </form>
          )
          : null}
      </div>
    </section>
  );
}

/**
 * A card: what a person reads and uses, and no more, as a large board draws hundreds (see
 * "Large boards" in docs/api-notes.md). Its controls are named through `ControlWords`; the
 * drag handle is drawn by `static/kanban.js`, which alone can drag.
 */
function Card(props: { frame: ProjectFrame; card: BoardCard<Item>; today: string }) {
  const { frame, card } = props;
  const { item } = card;
  return (
    <li
      class={item.completed ? "kanban-card completed" : "kanban-card"}
      id={`item-${item.id}`}
      data-item={item.id}
      data-order-index={item.orderIndex}
    >
      <div class="card-head">
        {frame.canWrite
          ? <CardToggle frame={frame} item={item} />
          : item.completed
          ? <span class="check done" aria-hidden="true">✓</span>
          : null}
        <a
          class="card-title"
          id={`ct-${item.id}`}
          href={`/projects/${frame.project.id}/todos/${item.id}`}
        >
          {item.title}
        </a>
      </div>
      <ItemFacts frame={frame} item={item} today={props.today} />
      <ChecklistCount frame={frame} item={item} />
      {frame.canWrite ? <MoveButtons frame={frame} card={card} /> : null}
    </li>
  );
}

/**
 * A column's "Show more", when it has more than it shows: a link to the board showing `step`
 * more of it (without JavaScript), which `static/kanban.js` turns into loading the next page
 * after `nextCursor` and adding its cards.
 */
function ShowMore(
  props: {
    frame: ProjectFrame;
    column: Column;
    shown: number;
    total: number;
    nextCursor: string | null;
    step: number;
  },
) {
  const { frame, column, nextCursor } = props;
  if (nextCursor === null) return null;
  const { t } = frame.ctx;
  const base = `/projects/${frame.project.id}/todos`;
  return (
    <p class="kanban-more" data-kanban-more={column.id}>
      <a
        class="button secondary small"
        href={`${base}?show=${column.id}.${props.shown + props.step}#column-${column.id}`}
        data-more-url={`${base}/columns/${column.id}/more?after=${encodeURIComponent(nextCursor)}`}
      >
        {t("todos.showMore")}
      </a>{" "}
      <span class="muted">{t("todos.shownOf", { shown: props.shown, total: props.total })}</span>
    </p>
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
      data-live-events={liveEvents(["todos", "milestones"])}
      data-can-write={frame.canWrite ? "true" : "false"}
      data-drag-title={frame.canWrite ? t("todos.dragHandle") : undefined}
    >
      {frame.canWrite ? <ControlWords t={t} /> : null}
      {data.lanes.map(({ column, cards, total, order, nextCursor }) => (
        <section
          class="kanban-column"
          data-column={column.id}
          data-column-key={column.key ?? ""}
          data-total={total}
          aria-labelledby={`column-${column.id}`}
        >
          <h2 id={`column-${column.id}`}>
            {columnLabel(t, column)}{" "}
            <span class="count muted">
              {total === 1 ? t("todos.countOne") : t("todos.count", { count: total })}
            </span>
          </h2>
          {order === "completed" && total > 1
            ? <p class="hint kanban-order">{t("todos.doneOrder")}</p>
            : null}
          <ol class="kanban-items" data-column-items={column.id} data-order={order}>
            {cards.map((card) => (
              <Card key={card.item.id} frame={frame} card={card} today={data.today} />
            ))}
          </ol>
          <ShowMore
            frame={frame}
            column={column}
            shown={cards.length}
            total={total}
            nextCursor={nextCursor}
            step={order === "completed" ? DONE_SHOWN : PAGE_DEFAULT}
          />
          {total === 0 ? <p class="muted kanban-empty">{t("todos.columnEmpty")}</p> : null}
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
  load: (c, frame) => boardData(frame, showOf(c.req.queries("show") ?? [])),
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

/**
 * How many of each column the board shows, from `?show=<columnId>.<count>` (repeatable, or
 * comma-separated): the "Show more" link's, and the live re-render's of what is loaded. Parts
 * that are not two numbers are ignored, as a page's other queries are read leniently.
 */
function showOf(raw: string[]): Map<number, number> {
  const show = new Map<number, number>();
  for (const part of raw.flatMap((r) => r.split(","))) {
    const m = /^(\d{1,15})\.(\d{1,6})$/.exec(part.trim());
    if (m) show.set(Number(m[1]), Number(m[2]));
  }
  return show;
}

/** What the board needs to draw itself. */
async function boardData(
  { services, ctx, project }: ProjectFrame,
  show: ReadonlyMap<number, number> = new Map(),
): Promise<BoardData> {
  return {
    lanes: await services.todos.board(ctx.actor!, project.id, show),
    milestones: await services.milestones.list(ctx.actor!, project.id),
    today: todayOf(services, ctx.timeZone),
  };
}

const itemPage: AreaPage<
  { item: Item; board: BoardData; pickable: FileInfo[]; checklist: ChecklistEntry[] }
> = {
  area: "todos",
  load: async (c, frame) => {
    const item = await frame.services.todos.get(
      frame.ctx.actor!,
      frame.project.id,
      paramId(c, "itemId"),
    );
    const pickable = frame.canWrite
      ? await pickableFiles(frame.services, frame.ctx.actor!, frame.project.id, item.attachments)
      : [];
    const checklist = await frame.services.checklists.list(
      frame.ctx.actor!,
      frame.project.id,
      item.id,
    );
    return { item, board: await boardData(frame), pickable, checklist };
  },
  title: ({ item }) => item.title,
  view: ({ frame, data: { item, board, pickable, checklist }, shown }) => {
    const { t, locale } = frame.ctx;
    const base = `/projects/${frame.project.id}/todos/${item.id}`;
    const column = board.lanes.find((lane) => lane.column.id === item.columnId)?.column;
    const milestone = board.milestones.find((m) => m.id === item.milestoneId);
    const attach = formState(shown, "attach");
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
            {frame.canWrite ? <ToggleButton frame={frame} item={item} /> : null}
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
          <Checklist frame={frame} base={base} entries={checklist} shown={shown} />
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
            {frame.canWrite && (pickable.length > 0 || attach.refused)
              ? (
                <form
                  class="inline upload"
                  method="post"
                  action={`${base}/attachments/existing`}
                  data-attach-existing
                >
                  <FilePicker
                    ctx={frame.ctx}
                    files={pickable}
                    value={attach.values.fileId}
                    error={attach.errors.fileIds}
                    required
                  />
                  <button type="submit">{t("files.pickSubmit")}</button>
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
  ...PICKER_FIELDS,
} as const;

/** How the checklist's refusals are said. */
const CHECKLIST_CODES = {
  conflict: { field: "text", message: "todos.checklistFull" },
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
    create: async ({ actor, projectId, input }) => {
      const { id } = await todos.create(actor, projectId, input);
      return afterCreate(boardUrl(projectId, id), { type: "item", id });
    },
    update: async ({ c, actor, projectId, input }) => {
      const { columnId: _, ...changes } = input;
      const item = await todos.update(actor, projectId, {
        itemId: paramId(c, "itemId"),
        ...changes,
      });
      return afterSave(itemUrl(projectId, item.id), { type: "item", id: item.id });
    },
    remove: async ({ c, actor, projectId }) => {
      return afterDelete(
        boardUrl(projectId),
        await todos.remove(actor, projectId, paramId(c, "itemId")),
      );
    },
  });
  area.form(`${I}/move`, todosPage, {
    form: "move",
    schema: MoveInput,
    // A card's button sends its target as `to` (`<columnId>.<orderIndex>`); `columnId` and
    // `orderIndex` apart are read too.
    read: (fields) => {
      const to = /^(\d{1,15})\.(\d{1,15})$/.exec(fields.to ?? "");
      return {
        columnId: Number(to?.[1] ?? fields.columnId),
        orderIndex: Number(to?.[2] ?? fields.orderIndex),
      };
    },
    change: async ({ c, actor, projectId, input }) => {
      const itemId = paramId(c, "itemId");
      await todos.move(actor, projectId, { itemId, ...input });
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
        change: async (itemId) => {
          await todos.toggleComplete(actor!, projectId, itemId);
          return toItem ? itemUrl(projectId, itemId) : boardUrl(projectId, itemId);
        },
      });
    }));
  // A column's next page of cards, for "Show more" (static/kanban.js): the cards and the
  // column's next "Show more", or none at the end.
  area.app.get(`${P}/columns/:columnId{[0-9]+}/more`, (c) =>
    area.run(c, async (frame) => {
      const columnId = paramId(c, "columnId");
      const after = c.req.query("after") ?? null;
      const lane = await todos.boardPage(frame.ctx.actor!, frame.project.id, {
        columnId,
        after,
        limit: PAGE_DEFAULT,
      });
      const today = todayOf(services, frame.ctx.timeZone);
      // How many the column showed before (the script says): only for the "n of m" text.
      const before = Math.min(
        Number(/^\d{1,9}$/.exec(c.req.query("shown") ?? "")?.[0] ?? 0),
        lane.total,
      );
      return renderFragment(
        c,
        <div data-more-page={columnId}>
          <ol>
            {lane.cards.map((card) => (
              <Card key={card.item.id} frame={frame} card={card} today={today} />
            ))}
          </ol>
          <ShowMore
            frame={frame}
            column={lane.column}
            shown={Math.min(before + lane.cards.length, lane.total)}
            total={lane.total}
            nextCursor={lane.nextCursor}
            step={PAGE_DEFAULT}
          />
        </div>,
      );
    }));
  checklistForms(services, area, I, itemUrl);
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
  area.form(`${I}/attachments/existing`, itemPage, {
    form: "attach",
    fields: FIELDS,
    change: async ({ c, actor, projectId, fields }) => {
      const target = { projectId, type: "item" as const, id: paramId(c, "itemId") };
      await attachments.add(actor, target, { fileIds: requiredPick(fields) });
      return itemUrl(projectId, target.id);
    },
  });
  return area.app;
}

/** The checklist's forms on the item page; each change goes back to the checklist. */
function checklistForms(
  services: Services,
  area: ReturnType<typeof areaRoutes>,
  I: string,
  itemUrl: (projectId: number, itemId: number) => string,
) {
  const { checklists } = services;
  const E = `${I}/checklist/:entryId{[0-9]+}`;
  const back = (projectId: number, itemId: number) => `${itemUrl(projectId, itemId)}#checklist`;
  area.form(`${I}/checklist`, itemPage, {
    form: "checklist",
    schema: ChecklistEntryInput,
    codes: CHECKLIST_CODES,
    change: async ({ c, actor, projectId, input }) => {
      const itemId = paramId(c, "itemId");
      await checklists.add(actor, projectId, itemId, input);
      return back(projectId, itemId);
    },
  });
  area.form(E, itemPage, {
    form: (c) => `checklist-${c.req.param("entryId")}`,
    schema: ChecklistEntryPatch,
    read: (fields) => ({ text: fields.text ?? "" }),
    change: async ({ c, actor, projectId, input }) => {
      const itemId = paramId(c, "itemId");
      await checklists.update(actor, projectId, itemId, paramId(c, "entryId"), input);
      return back(projectId, itemId);
    },
  });
  area.form(`${E}/toggle`, itemPage, {
    form: "checklist-entry",
    schema: ChecklistEntryPatch,
    read: (fields) => ({ done: fields.done === "true" }),
    change: async ({ c, actor, projectId, input }) => {
      const itemId = paramId(c, "itemId");
      await checklists.update(actor, projectId, itemId, paramId(c, "entryId"), input);
      return back(projectId, itemId);
    },
  });
  area.form(`${E}/move`, itemPage, {
    form: "checklist-entry",
    change: async ({ c, actor, projectId, fields }) => {
      const itemId = paramId(c, "itemId");
      if (fields.by !== "-1" && fields.by !== "1") throw invalid("by", "Use -1 (up) or 1 (down)");
      const by = fields.by === "-1" ? -1 : 1;
      await checklists.move(actor, projectId, itemId, paramId(c, "entryId"), by);
      return back(projectId, itemId);
    },
  });
  area.form(`${E}/delete`, itemPage, {
    form: "checklist-entry",
    change: async ({ c, actor, projectId }) => {
      const itemId = paramId(c, "itemId");
      await checklists.remove(actor, projectId, itemId, paramId(c, "entryId"));
      return back(projectId, itemId);
    },
  });
}
