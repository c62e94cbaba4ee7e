/**
 * A project's webhooks page (`/projects/{id}/webhooks`, owners and admins; a member gets the
 * 403 page, anyone else the 404 page, as the API answers): add a webhook (the signing secret
 * shown once), each webhook with its state and recent deliveries, redeliver, disable or
 * enable, delete. Forms work without JavaScript.
 */
import { requestMeta } from "../client_address.ts";
import type { Delivery, Webhook } from "../../domain/integrations/webhooks.ts";
import { EVENT_GROUPS, type EventGroup } from "../../domain/projects/event_names.ts";
import type { Services } from "../../domain/services.ts";
import { WebhookInput } from "../api/webhooks.ts";
import { formatDateTime } from "../i18n/format.ts";
import { type AreaPage, areaRoutes, paramId, type ProjectFrame } from "./kit/area.tsx";
import { BackLink, Table, Time } from "./kit/content.tsx";
import { CopyScript, CopyText } from "./kit/copy.tsx";
import { ButtonForm, type FormState, formState, PostForm, TextField } from "./kit/fields.tsx";
import { type Fields, orNull } from "./kit/forms.ts";
import { Alert } from "./kit/layout.tsx";
import { type OnceSecrets, onceSecrets } from "./kit/once.ts";

/** The page's path. */
const pathOf = (projectId: number) => `/projects/${projectId}/webhooks`;

/** How many of a webhook's latest deliveries the page lists. */
const RECENT = 10;

const FIELDS = {
  url: "webhooks.urlInvalid",
  "url:not_http": "webhooks.urlNotHttp",
  "url:credentials": "webhooks.urlCredentials",
  "url:not_public": "webhooks.urlNotPublic",
  "url:unresolvable": "webhooks.urlUnresolvable",
  events: "webhooks.eventsRequired",
  "events:mixed": "webhooks.eventsMixed",
} as const;

/** The add form read into the create input: the ticked events, a blank description none. */
function readWebhook(fields: Fields) {
  const events = (fields.events ?? "").split(",").filter(Boolean);
  return { url: fields.url, events, description: orNull(fields.description) };
}

interface WebhookView {
  webhook: Webhook;
  deliveries: Delivery[];
}

interface WebhooksData {
  views: WebhookView[];
  /** The signing secret of the webhook just added, shown this once. */
  secret: string | null;
}

function EventChoices(props: { frame: ProjectFrame; form: FormState }) {
  const { t } = props.frame.ctx;
  const chosen = new Set((props.form.values.events ?? "").split(","));
  return (
    <fieldset class="events" data-events>
      <legend>{t("webhooks.events")}</legend>
      <label class="check">
        <input type="checkbox" name="events" value="*" checked={chosen.has("*")} />
        {t("webhooks.allEvents")}
      </label>
      {(Object.keys(EVENT_GROUPS) as EventGroup[]).map((group) => (
        <fieldset class="event-group" data-event-group={group}>
          <legend>{t(`webhooks.group.${group}`)}</legend>
          {EVENT_GROUPS[group].map((name) => (
            <label class="check">
              <input type="checkbox" name="events" value={name} checked={chosen.has(name)} />
              <code>{name}</code>
            </label>
          ))}
        </fieldset>
      ))}
      <span class="hint">{t("webhooks.eventsHint")}</span>
      {props.form.errors.events
        ? <span class="field-error">{props.form.errors.events}</span>
        : null}
    </fieldset>
  );
}

function AddForm(props: { frame: ProjectFrame; form: FormState; action: string }) {
  const { t } = props.frame.ctx;
  const { form } = props;
  return (
    <div class="card">
      <h2>{t("webhooks.add")}</h2>
      <PostForm action={props.action} submit={t("webhooks.create")}>
        <TextField
          label={t("webhooks.url")}
          schema={WebhookInput}
          name="url"
          type="url"
          form={form}
          hint={t("webhooks.urlHint")}
        />
        <TextField
          label={t("field.description")}
          schema={WebhookInput}
          name="description"
          form={form}
        />
        <EventChoices frame={props.frame} form={form} />
      </PostForm>
    </div>
  );
}

function DeliveryRow(
  props: { frame: ProjectFrame; delivery: Delivery; base: string; active: boolean },
) {
  const { frame, delivery: d } = props;
  const { t } = frame.ctx;
  return (
    <tr data-delivery={d.id} data-status={d.status}>
      <td>
        <code>{d.event}</code>
      </td>
      <td>
        <span class={`tag delivery-${d.status}`}>{t(`webhooks.status.${d.status}`)}</span>
        {d.lastError ? <div class="muted small">{d.lastError}</div> : null}
      </td>
      <td data-code>{d.lastStatusCode === null ? "—" : String(d.lastStatusCode)}</td>
      <td>{String(d.attempts)}</td>
      <td>
        <Time ctx={frame.ctx} iso={d.deliveredAt ?? d.createdAt} />
      </td>
      <td>
        {props.active && !frame.project.archived
          ? (
            <ButtonForm
              class="inline"
              action={`${props.base}/deliveries/${d.id}/redeliver`}
              label={t("webhooks.redeliver")}
              button="secondary small"
            />
          )
          : null}
      </td>
    </tr>
  );
}

function WebhookCard(props: { frame: ProjectFrame; view: WebhookView; base: string }) {
  const { frame, view: { webhook: w, deliveries } } = props;
  const { t } = frame.ctx;
  const base = `${props.base}/${w.id}`;
  const writable = !frame.project.archived;
  return (
    <section class="card" id={`webhook-${w.id}`} data-webhook={w.id}>
      <div class="row">
        <code class="copy-text">{w.url}</code>
        <span class={w.active ? "tag" : "tag inactive"} data-state>
          {w.active ? t("webhooks.active") : t("webhooks.disabled")}
        </span>
      </div>
      {w.description ? <p>{w.description}</p> : null}
      <p class="muted">
        {t("webhooks.eventsList")}{" "}
        {w.events.includes("*") ? t("webhooks.allEvents") : w.events.join(", ")}
      </p>
      {w.failingSince
        ? (
          <p class="notice">
            {t("webhooks.failingSince", {
              time: formatDateTime(w.failingSince, frame.ctx.locale, frame.ctx.timeZone),
            })}
          </p>
        )
        : null}
      {writable
        ? (
          <div class="row">
            <ButtonForm
              action={`${base}/${w.active ? "disable" : "enable"}`}
              label={w.active ? t("webhooks.disable") : t("webhooks.enable")}
              button="secondary"
            />
            <ButtonForm
              action={`${base}/delete`}
              label={t("webhooks.delete")}
              confirm={t("webhooks.deleteConfirm")}
            />
          </div>
        )
        : null}
      <h3>{t("webhooks.deliveries")}</h3>
      {deliveries.length === 0 ? <p class="muted">{t("webhooks.noDeliveries")}</p> : (
        <Table
          heads={[
            t("webhooks.event"),
            t("webhooks.status"),
            t("webhooks.responseCode"),
            t("webhooks.attempts"),
            t("webhooks.time"),
            { hidden: t("content.actions") },
          ]}
        >
          {deliveries.map((d) => (
            <DeliveryRow frame={frame} delivery={d} base={base} active={w.active} />
          ))}
        </Table>
      )}
    </section>
  );
}

/** The page, showing a secret waiting in `secrets` once. */
const webhooksPage = (secrets: OnceSecrets): AreaPage<WebhooksData> => ({
  area: "dashboard",
  // The domain decides who may see them: a member is refused (the 403 page).
  load: async (c, frame) => {
    const { webhooks } = frame.services;
    const actor = frame.ctx.actor!;
    const projectId = frame.project.id;
    const views: WebhookView[] = [];
    // One after another: each reads (and may fan out) through the one engine, in order.
    for (const webhook of await webhooks.list(actor, projectId)) {
      const recent = await webhooks.deliveries(actor, projectId, webhook.id, {
        page: 1,
        pageSize: RECENT,
      });
      views.push({ webhook, deliveries: recent.items });
    }
    return { views, secret: secrets.take(c, pathOf(projectId)) };
  },
  title: (_, t) => t("webhooks.title"),
  view: ({ frame, data: { views, secret }, shown }) => {
    const { t } = frame.ctx;
    const base = `/projects/${frame.project.id}/webhooks`;
    return (
      <>
        <BackLink href={`/projects/${frame.project.id}`} label={t("webhooks.back")} />
        <h1>{t("webhooks.title")}</h1>
        <p class="muted">{t("webhooks.intro")}</p>
        <Alert message={shown.message} />
        {secret
          ? (
            <div class="success" role="status" data-secret>
              <p>{t("webhooks.created")}</p>
              <CopyText
                t={t}
                id="webhook-secret"
                text={secret}
                label={t("webhooks.secret")}
              />
            </div>
          )
          : null}
        {frame.project.archived
          ? null
          : <AddForm frame={frame} form={formState(shown, "create")} action={base} />}
        {views.length === 0
          ? <p class="muted">{t("webhooks.none")}</p>
          : views.map((view) => (
            <WebhookCard key={view.webhook.id} frame={frame} view={view} base={base} />
          ))}
        {secret ? <CopyScript /> : null}
      </>
    );
  },
});

/**
 * The webhooks page of a project and its forms. An unknown webhook or delivery is the domain's
 * `not_found`: the 404 page.
 */
export function webhookPages(services: Services) {
  const { webhooks } = services;
  const area = areaRoutes(services);
  const secrets = onceSecrets(() => services.clock.now().getTime());
  const page = webhooksPage(secrets);
  const P = "/projects/:projectId{[0-9]+}/webhooks";
  const W = `${P}/:webhookId{[0-9]+}`;
  const back = (projectId: number, webhookId: number) =>
    `/projects/${projectId}/webhooks#webhook-${webhookId}`;
  area.page(P, page);
  area.form(P, page, {
    form: "create",
    lists: ["events"],
    schema: WebhookInput,
    read: readWebhook,
    fields: FIELDS,
    change: async ({ c, actor, projectId, input }) => {
      const { secret } = await webhooks.create(actor, projectId, input, requestMeta(c));
      secrets.put(c, pathOf(projectId), secret);
      return pathOf(projectId);
    },
  });
  for (const [action, active] of [["disable", false], ["enable", true]] as const) {
    area.form(`${W}/${action}`, page, {
      form: "webhook",
      change: async ({ c, actor, projectId }) => {
        const id = paramId(c, "webhookId");
        await webhooks.update(actor, projectId, id, { active }, requestMeta(c));
        return back(projectId, id);
      },
    });
  }
  area.form(`${W}/delete`, page, {
    form: "webhook",
    change: async ({ c, actor, projectId }) => {
      await webhooks.remove(actor, projectId, paramId(c, "webhookId"), requestMeta(c));
      return `/projects/${projectId}/webhooks`;
    },
  });
  area.form(`${W}/deliveries/:deliveryId{[0-9]+}/redeliver`, page, {
    form: "webhook",
    codes: { conflict: "webhooks.redeliverInactive" },
    change: async ({ c, actor, projectId }) => {
      const id = paramId(c, "webhookId");
      await webhooks.redeliver(actor, projectId, id, paramId(c, "deliveryId"));
      return back(projectId, id);
    },
  });
  return area.app;
}
