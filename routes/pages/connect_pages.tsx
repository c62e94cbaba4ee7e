/**
 * The settings pages that connect other tools to the caller's account: API tokens (create,
 * the secret shown once, list, revoke) and the calendar feed URLs (copy, reset). Both are
 * for a browser session only; every form works without JavaScript, and `static/copy.js`
 * adds the Copy buttons.
 */
import { requestMeta } from "../client_address.ts";
import { type Context, Hono } from "hono";
import type { ApiToken } from "../../domain/accounts/api_tokens.ts";
import type { Services } from "../../domain/services.ts";
import { feedUrls } from "../api/calendar_feed.ts";
import type { AppEnv } from "../api/openapi.ts";
import { TokenInputSchema } from "../api/tokens.ts";
import { type PageCtx, pageCtx } from "./context.ts";
import { paramId } from "./kit/area.tsx";
import { BackLink, Table, Time } from "./kit/content.tsx";
import { CopyScript, CopyText } from "./kit/copy.tsx";
import {
  ButtonForm,
  Field,
  type FormState,
  formState,
  PostForm,
  SelectField,
  TextField,
} from "./kit/fields.tsx";
import type { Fields } from "./kit/forms.ts";
import { Alert, renderPage } from "./kit/layout.tsx";
import { onceSecrets } from "./kit/once.ts";
import { pageForms, type Shown } from "./kit/submit.ts";

const TOKENS = "/settings/tokens";
const CALENDAR = "/settings/calendar";

const FIELDS = { expiresInDays: "tokens.expiryInvalid" } as const;

/** The token form read into the create input: a blank expiry never expires. */
function readToken(fields: Fields) {
  const days = (fields.expiresInDays ?? "").trim();
  return {
    ...fields,
    // Digits become the number the schema judges; other text is refused as it is.
    expiresInDays: days === "" ? null : /^\d{1,9}$/.test(days) ? Number(days) : days,
  };
}

function TokenRow(props: { ctx: PageCtx; token: ApiToken; now: string }) {
  const { ctx, token } = props;
  const { t } = ctx;
  const expired = token.expiresAt !== null && token.expiresAt <= props.now;
  return (
    <tr data-token={token.id}>
      <td>{token.name}</td>
      <td>{t(`tokens.scope.${token.scope}`)}</td>
      <td>
        <Time ctx={ctx} iso={token.createdAt} />
      </td>
      <td>
        {token.expiresAt === null ? t("tokens.never") : <Time ctx={ctx} iso={token.expiresAt} />}
        {expired ? <span class="tag">{t("tokens.expired")}</span> : null}
      </td>
      <td>
        {token.lastUsedAt === null
          ? t("tokens.notUsed")
          : <Time ctx={ctx} iso={token.lastUsedAt} />}
      </td>
      <td>
        <ButtonForm
          class="inline"
          action={`${TOKENS}/${token.id}/revoke`}
          label={t("tokens.revoke")}
          confirm={t("tokens.revokeConfirm", { name: token.name })}
        />
      </td>
    </tr>
  );
}

function TokenFields(props: { ctx: PageCtx; form: FormState }) {
  const { t } = props.ctx;
  const { form } = props;
  return (
    <>
      <TextField label={t("field.name")} schema={TokenInputSchema} name="name" form={form} />
      <SelectField
        label={t("tokens.scope")}
        name="scope"
        form={form}
        options={[["read", t("tokens.scope.read")], ["write", t("tokens.scope.write")]]}
        initial="read"
      />
      <Field label={t("tokens.expiresInDays")} error={form.errors.expiresInDays}>
        <input
          name="expiresInDays"
          type="number"
          min={1}
          max={3650}
          step={1}
          value={form.values.expiresInDays ?? ""}
        />
        <span class="hint">{t("tokens.expiresHint")}</span>
      </Field>
    </>
  );
}

function TokensPage(
  props: { ctx: PageCtx; tokens: ApiToken[]; now: string; secret: string | null; shown: Shown },
) {
  const { ctx, tokens, shown, secret } = props;
  const { t } = ctx;
  const form = formState(shown, "token", { expiresInDays: "90" });
  return (
    <>
      <BackLink href="/settings" label={t("connect.backToSettings")} />
      <h1>{t("tokens.title")}</h1>
      <p class="muted">{t("tokens.intro")}</p>
      <Alert message={shown.message} />
      {secret
        ? (
          <div class="success" role="status" data-secret>
            <p>{t("tokens.created")}</p>
            <CopyText t={t} id="token-secret" text={secret} label={t("tokens.secret")} />
          </div>
        )
        : null}
      <div class="card">
        <h2>{t("tokens.new")}</h2>
        <PostForm action={TOKENS} submit={t("tokens.create")}>
          <TokenFields ctx={ctx} form={form} />
        </PostForm>
      </div>
      <h2>{t("tokens.yours")}</h2>
      {tokens.length === 0 ? <p class="muted">{t("tokens.none")}</p> : (
        <div class="card">
          <Table
            heads={[
              t("field.name"),
              t("tokens.scope"),
              t("common.created"),
              t("tokens.expires"),
              t("tokens.lastUsed"),
              { hidden: t("content.actions") },
            ]}
          >
            {tokens.map((token) => (
              <TokenRow key={token.id} ctx={ctx} token={token} now={props.now} />
            ))}
          </Table>
        </div>
      )}
      {secret ? <CopyScript /> : null}
    </>
  );
}

interface FeedLinks {
  all: string;
  projects: Array<{ projectId: number; name: string; url: string }>;
}

function CalendarPage(props: { ctx: PageCtx; links: FeedLinks; reset: boolean; shown: Shown }) {
  const { ctx, links, shown } = props;
  const { t } = ctx;
  return (
    <>
      <BackLink href="/settings" label={t("connect.backToSettings")} />
      <h1>{t("feeds.title")}</h1>
      <p class="muted">{t("feeds.intro")}</p>
      {props.reset ? <div class="success" role="status">{t("feeds.wasReset")}</div> : null}
      <Alert message={shown.message} />
      <div class="card" data-feeds>
        <h2>{t("feeds.all")}</h2>
        <CopyText t={t} id="feed-all" text={links.all} label={t("feeds.all")} />
        {links.projects.length > 0 ? <h2>{t("feeds.perProject")}</h2> : null}
        {links.projects.map((p) => (
          <div class="stack" data-feed-project={p.projectId}>
            <strong>{p.name}</strong>
            <CopyText t={t} id={`feed-${p.projectId}`} text={p.url} label={p.name} />
          </div>
        ))}
      </div>
      <div class="card">
        <h2>{t("feeds.reset")}</h2>
        <p>{t("feeds.resetHint")}</p>
        <ButtonForm
          action={`${CALENDAR}/reset`}
          label={t("feeds.reset")}
          confirm={t("feeds.resetConfirm")}
        />
      </div>
      <CopyScript />
    </>
  );
}

/** The API token and calendar feed pages under `/settings`. */
export function connectPages(services: Services, options: { baseUrl: string | null }) {
  const app = new Hono<AppEnv>();
  const form = pageForms(app, services);
  const { apiTokens, calendarFeeds } = services;
  const secrets = onceSecrets(() => services.clock.now().getTime());

  const showTokens = async (c: Context<AppEnv>, shown: Shown = {}) => {
    const ctx = await pageCtx(c, services);
    const tokens = await apiTokens.list(ctx.actor!);
    const now = services.clock.now().toISOString();
    const secret = secrets.take(c, TOKENS);
    return renderPage(c, ctx, {
      title: ctx.t("tokens.title"),
      status: shown.status ?? 200,
      body: <TokensPage ctx={ctx} tokens={tokens} now={now} secret={secret} shown={shown} />,
    });
  };

  const showCalendar = async (c: Context<AppEnv>, shown: Shown = {}) => {
    const ctx = await pageCtx(c, services);
    const urls = feedUrls(c, options.baseUrl, await calendarFeeds.access(ctx.actor!));
    const names = new Map(
      (await services.projects.list(ctx.actor!, { archived: true })).map((p) => [p.id, p.name]),
    );
    const links = {
      all: urls.all,
      projects: urls.projects.map((p) => ({
        ...p,
        name: names.get(p.projectId) ?? `#${p.projectId}`,
      })),
    };
    const reset = c.req.query("reset") === "1" && shown.status === undefined;
    return renderPage(c, ctx, {
      title: ctx.t("feeds.title"),
      status: shown.status ?? 200,
      body: <CalendarPage ctx={ctx} links={links} reset={reset} shown={shown} />,
    });
  };

  app.get(TOKENS, (c) => showTokens(c));

  form(TOKENS, {
    form: "token",
    schema: TokenInputSchema,
    read: readToken,
    fields: FIELDS,
    codes: { conflict: "tokens.tooMany" },
    show: (shown, { c }) => showTokens(c, shown),
    change: async (input, { c, ctx }) => {
      secrets.put(c, TOKENS, (await apiTokens.create(ctx.actor!, input, requestMeta(c))).secret);
      return TOKENS;
    },
  });

  form(`${TOKENS}/:tokenId{[0-9]+}/revoke`, {
    form: "revoke",
    show: (shown, { c }) => showTokens(c, shown),
    change: async (_, { c, ctx }) => {
      await apiTokens.revoke(ctx.actor!, paramId(c, "tokenId"), requestMeta(c));
      return TOKENS;
    },
  });

  app.get(CALENDAR, (c) => showCalendar(c));

  form(`${CALENDAR}/reset`, {
    form: "reset",
    show: (shown, { c }) => showCalendar(c, shown),
    change: async (_, { ctx }) => {
      await calendarFeeds.reset(ctx.actor!);
      return `${CALENDAR}?reset=1`;
    },
  });

  return app;
}
