/**
 * The milestones page: the milestones, paged (oldest first), each with its progress bar (a `<progress>` element, with
 * the percentage and the count of linked to-dos as text), its due date and description, an
 * edit form per milestone, and the new-milestone form. Forms work without JavaScript: POST,
 * then 303 back to the milestone, on the page that lists it.
 */
import { DEFAULT_PAGE_SIZE, type Page, pageRequest } from "../../domain/kernel/paging.ts";
import type { Actor } from "../../domain/accounts/accounts.ts";
import type { Milestone } from "../../domain/planning/milestones.ts";
import type { Services } from "../../domain/services.ts";
import { MilestoneInput } from "../api/planning.ts";
import { type AreaPage, areaRoutes, mentionsOf, paramId, type ProjectFrame } from "./kit/area.tsx";
import { Due, Markdown, Pager, ProgressBar } from "./kit/content.tsx";
import { todayOf } from "./kit/dates.ts";
import {
  DateField,
  type FormState,
  formState,
  MarkdownField,
  NewForm,
  PostForm,
  TextField,
} from "./kit/fields.tsx";
import { type Fields, orNull } from "./kit/forms.ts";
import { Alert } from "./kit/layout.tsx";
import { afterCreate, afterSave } from "./kit/notices.tsx";
import type { Shown } from "./kit/submit.ts";
import { live } from "./kit/live.tsx";

/** How the domain's refusals of a milestone's fields are said. */
const FIELDS = { dueDate: "planning.dateInvalid", title: "content.required" } as const;

/** The milestone form's fields read into the input of a create or update. */
function readMilestone(fields: Fields) {
  return { ...fields, description: orNull(fields.description), dueDate: orNull(fields.dueDate) };
}

function MilestoneFields(props: { frame: ProjectFrame; form: FormState }) {
  const { t } = props.frame.ctx;
  const { form } = props;
  return (
    <>
      <TextField label={t("content.title")} schema={MilestoneInput} name="title" form={form} />
      <DateField label={t("milestones.dueDate")} name="dueDate" form={form} />
      <MarkdownField
        t={t}
        label={t("field.description")}
        schema={MilestoneInput}
        name="description"
        form={form}
        rows={3}
      />
    </>
  );
}

/** The linked to-dos of each milestone: how many, and how many are complete. */
type Counts = Map<number, { total: number; done: number }>;

function MilestoneCard(
  props: { frame: ProjectFrame; milestone: Milestone; counts: Counts; today: string; shown: Shown },
) {
  const { frame, milestone: m } = props;
  const { t } = frame.ctx;
  const counts = props.counts.get(m.id) ?? { total: 0, done: 0 };
  const overdue = m.dueDate !== null && m.dueDate < props.today && m.progress < 100;
  const form = formState(props.shown, `edit-${m.id}`, {
    title: m.title,
    dueDate: m.dueDate ?? "",
    description: m.description ?? "",
  });
  return (
    <li class="card milestone" id={`milestone-${m.id}`} data-milestone={m.id}>
      <div class="row">
        <h2 class="milestone-title">{m.title}</h2>
        <span class="spacer"></span>
        {m.dueDate
          ? <Due ctx={frame.ctx} date={m.dueDate} overdue={overdue} />
          : <span class="muted">{t("milestones.noDueDate")}</span>}
      </div>
      <ProgressBar t={t} title={m.title} progress={m.progress} />
      <p class="muted">
        {counts.total === 0
          ? t("milestones.noTodos")
          : t("milestones.todoCount", { done: counts.done, total: counts.total })} {counts.total > 0
          ? <a href={`/projects/${frame.project.id}/todos`}>{t("milestones.viewTodos")}</a>
          : null}
      </p>
      {m.description ? <Markdown source={m.description} mentions={mentionsOf(frame)} /> : null}
      {frame.canWrite
        ? (
          <details class="milestone-edit" open={form.refused}>
            <summary>{t("milestones.edit")}</summary>
            <PostForm
              action={`/projects/${frame.project.id}/milestones/${m.id}`}
              submit={t("content.save")}
              attrs={{ "data-milestone-edit": m.id }}
            >
              <MilestoneFields frame={frame} form={form} />
            </PostForm>
          </details>
        )
        : null}
    </li>
  );
}

interface Milestones {
  milestones: Page<Milestone>;
  counts: Counts;
  today: string;
}

const milestonesPage: AreaPage<Milestones> = {
  area: "milestones",
  load: async (c, { services, ctx, project }) => {
    // A milestone's form shown again (its fields refused) is on the page that lists it.
    const milestoneId = c.req.param("milestoneId");
    const page = c.req.query("page") ?? (milestoneId === undefined ? undefined : String(
      await services.milestones.pageHolding(
        ctx.actor!,
        project.id,
        Number(milestoneId),
        DEFAULT_PAGE_SIZE,
      ),
    ));
    return {
      milestones: await services.milestones.page(
        ctx.actor!,
        project.id,
        pageRequest({ page }, { clampPage: true }),
      ),
      counts: await services.milestones.todoCounts(ctx.actor!, project.id),
      today: todayOf(services, ctx.timeZone),
    };
  },
  title: (_, t) => t("milestones.title"),
  view: ({ frame, data, shown }) => {
    const { t } = frame.ctx;
    const form = formState(shown, "create");
    return (
      <>
        <h1>{t("milestones.title")}</h1>
        <Alert message={shown.message} />
        <NewForm
          canWrite={frame.canWrite}
          form={form}
          summary={t("milestones.new")}
          action={`/projects/${frame.project.id}/milestones`}
          submit={t("milestones.create")}
          attrs={{ "data-milestone-create": true }}
        >
          <MilestoneFields frame={frame} form={form} />
        </NewForm>
        {data.milestones.items.length === 0
          ? <p class="muted">{t("milestones.none")}</p>
          : (
            <ul class="plain milestones">
              {data.milestones.items.map((m) => (
                <MilestoneCard
                  frame={frame}
                  milestone={m}
                  counts={data.counts}
                  today={data.today}
                  shown={shown}
                />
              ))}
            </ul>
          )}
        <p class="muted" data-total={data.milestones.total}>
          {t("milestones.total", { count: data.milestones.total })}
        </p>
        <Pager
          ctx={frame.ctx}
          page={data.milestones}
          path={`/projects/${frame.project.id}/milestones`}
        />
      </>
    );
  },
};

/** Where a saved milestone is shown: its card, on the page that lists it. */
async function milestoneHref(
  services: Services,
  c: { actor: Actor; projectId: number; milestoneId: number },
): Promise<string> {
  const page = await services.milestones.pageHolding(
    c.actor,
    c.projectId,
    c.milestoneId,
    DEFAULT_PAGE_SIZE,
  );
  const query = page > 1 ? `?page=${page}` : "";
  return `/projects/${c.projectId}/milestones${query}#milestone-${c.milestoneId}`;
}

/** The milestone pages. */
export function milestonesPages(services: Services) {
  const { milestones } = services;
  const area = areaRoutes(services);
  const P = "/projects/:projectId{[0-9]+}/milestones";

  area.page(P, live(milestonesPage, ["milestones", "todos"]));
  area.form(P, milestonesPage, {
    form: "create",
    schema: MilestoneInput,
    read: readMilestone,
    fields: FIELDS,
    change: async ({ actor, projectId, input }) => {
      const { id } = await milestones.create(actor, projectId, input);
      return afterCreate(await milestoneHref(services, { actor, projectId, milestoneId: id }), {
        type: "milestone",
        id,
      });
    },
  });
  area.form(`${P}/:milestoneId{[0-9]+}`, milestonesPage, {
    form: (c) => `edit-${paramId(c, "milestoneId")}`,
    // An unknown milestone is the 404 page, before any field is judged.
    subject: async (c, { ctx, project }) =>
      await milestones.get(ctx.actor!, project.id, paramId(c, "milestoneId")),
    schema: MilestoneInput,
    read: readMilestone,
    fields: FIELDS,
    change: async ({ c, actor, projectId, input }) => {
      const milestoneId = paramId(c, "milestoneId");
      await milestones.update(actor, projectId, { milestoneId, ...input });
      return afterSave(await milestoneHref(services, { actor, projectId, milestoneId }), {
        type: "milestone",
        id: milestoneId,
      });
    },
  });
  return area.app;
}
