/**
 * The milestones page: every milestone with its progress bar (a `<progress>` element, with
 * the percentage and the count of linked to-dos as text), its due date and description, an
 * edit form per milestone, and the new-milestone form. Forms work without JavaScript: POST,
 * then 303 back to the milestone.
 */
import { parseForm } from "./forms.ts";
import { type Context, Hono } from "hono";
import type { Milestone } from "../../domain/milestones.ts";
import type { Services } from "../../domain/services.ts";
import type { Item } from "../../domain/todos.ts";
import type { AppEnv } from "../api/openapi.ts";
import type { Translate } from "../i18n/i18n.ts";
import { FormCard, MarkdownField, TitleField } from "./components.tsx";
import { DATE, domainFieldErrors, formatDay, todayOf } from "./calendar_page.tsx";
import { Alert, FieldError } from "./layout.tsx";
import { notFound } from "./project_pages.tsx";
import {
  checkText,
  type FormState,
  frameRunner,
  Markdown,
  paramId,
  type ProjectFrame,
  renderArea,
  splitBody,
  submitForm,
} from "./project_nav.tsx";

type Ctx = Context<AppEnv>;

const TITLE_MAX = 200;
const DESCRIPTION_MAX = 10_000;

/** A milestone's progress bar with its percentage; the same on the dashboard. */
export function ProgressBar(props: { t: Translate; title: string; progress: number }) {
  const { t } = props;
  const value = Math.max(0, Math.min(100, Math.floor(props.progress)));
  return (
    <div class="progress row" data-progress={value}>
      <progress
        max={100}
        value={value}
        aria-label={t("milestones.progressOf", { title: props.title })}
      >
        {`${value}%`}
      </progress>
      <span class="progress-value">{`${value}%`}</span>
    </div>
  );
}

/** The linked to-dos of each milestone: how many, and how many are complete. */
type Counts = Map<number, { total: number; done: number }>;

function countsOf(items: Item[]): Counts {
  const counts: Counts = new Map();
  for (const item of items) {
    if (item.milestoneId === null) continue;
    const entry = counts.get(item.milestoneId) ?? { total: 0, done: 0 };
    entry.total++;
    if (item.completed) entry.done++;
    counts.set(item.milestoneId, entry);
  }
  return counts;
}

function MilestoneFields(
  props: {
    t: Translate;
    values: Record<string, string>;
    errors: Record<string, string>;
  },
) {
  const { t, values, errors } = props;
  return (
    <>
      <TitleField
        label={t("content.title")}
        max={TITLE_MAX}
        value={values.title ?? ""}
        error={errors.title}
      />
      <label>
        {t("milestones.dueDate")}
        <input type="date" name="dueDate" value={values.dueDate ?? ""} />
        <FieldError message={errors.dueDate} />
      </label>
      <MarkdownField
        t={t}
        label={t("field.description")}
        name="description"
        value={values.description}
        max={DESCRIPTION_MAX}
        rows={3}
        error={errors.description}
      />
    </>
  );
}

function valuesOf(m: Milestone): Record<string, string> {
  return { title: m.title, dueDate: m.dueDate ?? "", description: m.description ?? "" };
}

function MilestoneCard(
  props: {
    frame: ProjectFrame;
    milestone: Milestone;
    counts: { total: number; done: number };
    today: string;
    /** The edit form's state when this milestone's edit was refused. */
    edit: FormState | null;
  },
) {
  const { frame, milestone: m, counts } = props;
  const { t, locale } = frame.ctx;
  const overdue = m.dueDate !== null && m.dueDate < props.today && m.progress < 100;
  return (
    <li class="card milestone" id={`milestone-${m.id}`} data-milestone={m.id}>
      <div class="row">
        <h2 class="milestone-title">{m.title}</h2>
        <span class="spacer"></span>
        {m.dueDate
          ? (
            <span class={overdue ? "due overdue" : "due"} data-due={m.dueDate}>
              <time datetime={m.dueDate}>
                {t("todos.due", { date: formatDay(m.dueDate, locale) })}
              </time>
              {overdue ? ` · ${t("todos.overdue")}` : ""}
            </span>
          )
          : <span class="muted">{t("milestones.noDueDate")}</span>}
      </div>
      <ProgressBar t={t} title={m.title} progress={m.progress} />
      <p class="muted">
        {counts.total === 0
          ? t("milestones.noTodos")
          : t("milestones.todoCount", { done: counts.done, total: counts.total })} {counts.total > 0
          ? (
            <a href={`/projects/${frame.project.id}/todos`}>
              {t("milestones.viewTodos")}
            </a>
          )
          : null}
      </p>
      {m.description ? <Markdown source={m.description} /> : null}
      {frame.canWrite
        ? (
          <details class="milestone-edit" open={props.edit !== null}>
            <summary>{t("milestones.edit")}</summary>
            <form
              class="stack"
              method="post"
              action={`/projects/${frame.project.id}/milestones/${m.id}`}
              data-milestone-edit={m.id}
            >
              <MilestoneFields
                t={t}
                values={props.edit?.values ?? valuesOf(m)}
                errors={props.edit?.errors ?? {}}
              />
              <div>
                <button type="submit">{t("content.save")}</button>
              </div>
            </form>
          </details>
        )
        : null}
    </li>
  );
}

function MilestonesPage(
  props: {
    frame: ProjectFrame;
    milestones: Milestone[];
    counts: Counts;
    today: string;
    message: string | null;
    create: FormState;
    /** The milestone whose edit was refused, with its form state. */
    edit: { id: number; state: FormState } | null;
  },
) {
  const { frame } = props;
  const { t } = frame.ctx;
  return (
    <>
      <h1>{t("milestones.title")}</h1>
      <Alert message={props.message} />
      {frame.canWrite
        ? (
          <FormCard
            open={props.create.values !== undefined}
            summary={t("milestones.new")}
            action={`/projects/${frame.project.id}/milestones`}
            submit={t("milestones.create")}
            attrs={{ "data-milestone-create": true }}
          >
            <MilestoneFields
              t={t}
              values={props.create.values ?? {}}
              errors={props.create.errors ?? {}}
            />
          </FormCard>
        )
        : null}
      {props.milestones.length === 0
        ? <p class="muted">{t("milestones.none")}</p>
        : (
          <ul class="plain milestones">
            {props.milestones.map((m) => (
              <MilestoneCard
                frame={frame}
                milestone={m}
                counts={props.counts.get(m.id) ?? { total: 0, done: 0 }}
                today={props.today}
                edit={props.edit?.id === m.id ? props.edit.state : null}
              />
            ))}
          </ul>
        )}
    </>
  );
}

/** A checked milestone form; empty optional fields clear (null). */
function readForm(
  fields: Record<string, string>,
  t: Translate,
):
  | { ok: true; input: { title: string; description: string | null; dueDate: string | null } }
  | { ok: false; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  checkText(errors, t, { name: "title", value: fields.title, max: TITLE_MAX, required: true });
  checkText(errors, t, {
    name: "description",
    value: fields.description,
    max: DESCRIPTION_MAX,
    required: false,
  });
  const dueDate = (fields.dueDate ?? "").trim();
  if (dueDate !== "" && !DATE.test(dueDate)) errors.dueDate = t("planning.dateInvalid");
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    input: {
      title: fields.title!.trim(),
      description: (fields.description ?? "").trim() === "" ? null : fields.description!,
      dueDate: dueDate === "" ? null : dueDate,
    },
  };
}

/** The milestone pages. */
export function milestonesPages(services: Services) {
  const app = new Hono<AppEnv>();
  const { milestones, todos } = services;
  const run = frameRunner(services, { notFound });
  const P = "/projects/:projectId{[0-9]+}/milestones";

  const show = (
    c: Ctx,
    frame: ProjectFrame,
    extra: {
      status?: number;
      message?: string;
      create?: FormState;
      edit?: { id: number; state: FormState };
    } = {},
  ) => {
    const actor = frame.ctx.actor!;
    const projectId = frame.project.id;
    const items = todos.list(actor, projectId, {
      columnId: null,
      assigneeId: null,
      milestoneId: null,
    });
    return renderArea(c, frame, {
      area: "milestones",
      title: frame.ctx.t("milestones.title"),
      status: extra.status ?? 200,
      body: (
        <MilestonesPage
          frame={frame}
          milestones={milestones.list(actor, projectId)}
          counts={countsOf(items)}
          today={todayOf(services)}
          message={extra.message ?? null}
          create={extra.create ?? {}}
          edit={extra.edit ?? null}
        />
      ),
    });
  };

  app.get(P, (c) => run(c, (frame) => show(c, frame)));

  app.post(P, (c) =>
    run(c, async (frame) => {
      const { t, actor } = frame.ctx;
      const { fields } = splitBody(await parseForm(c));
      return submitForm(c, frame, {
        form: readForm(fields, t),
        values: fields,
        change: (input) => {
          const m = milestones.create(actor!, frame.project.id, input);
          return `/projects/${frame.project.id}/milestones#milestone-${m.id}`;
        },
        fieldErrors: domainFieldErrors,
        show: (failure, create) => show(c, frame, { ...failure, create }),
      });
    }));

  app.post(`${P}/:milestoneId{[0-9]+}`, (c) =>
    run(c, async (frame) => {
      const { t, actor } = frame.ctx;
      const { fields } = splitBody(await parseForm(c));
      const milestoneId = paramId(c, "milestoneId");
      // An unknown milestone is the 404 page, before any field is judged.
      milestones.get(actor!, frame.project.id, milestoneId);
      return submitForm(c, frame, {
        form: readForm(fields, t),
        values: fields,
        change: (input) => {
          milestones.update(actor!, frame.project.id, { milestoneId, ...input });
          return `/projects/${frame.project.id}/milestones#milestone-${milestoneId}`;
        },
        fieldErrors: domainFieldErrors,
        show: (failure, state) => show(c, frame, { ...failure, edit: { id: milestoneId, state } }),
      });
    }));

  return app;
}
