/**
 * Getting back in without a session: "Forgot password?" (`/forgot-password`), the reset link's
 * page (`/reset-password/{token}`, the new-password form) and the verification link's page
 * (`/verify-email/{token}`, which verifies on opening). A link that does not work gets one
 * page whatever the reason. The pages speak the visitor's language (`visitorCtx`).
 */
import { type Context, Hono } from "hono";
import type { Services } from "../../domain/services.ts";
import type { AppEnv } from "../api/openapi.ts";
import { ResetRequestSchema, ResetSchema } from "../api/password_reset.ts";
import { clientAddress, requestMeta } from "../client_address.ts";
import { type PageCtx, visitorCtx } from "./context.ts";
import { Field, type FormState, formState, PostForm } from "./kit/fields.tsx";
import { Alert, renderPage } from "./kit/layout.tsx";
import { pageForms, type Shown } from "./kit/submit.ts";

/** The pages without a session that these routes answer (the login guard lets them through). */
export function isResetPage(path: string): boolean {
  return path === "/forgot-password" || path.startsWith("/reset-password/") ||
    path.startsWith("/verify-email/");
}

/** The one page of a link that does not work (404). */
function badLinkPage(c: Context<AppEnv>, ctx: PageCtx) {
  const { t } = ctx;
  return renderPage(c, ctx, {
    title: t("link.badTitle"),
    status: 404,
    body: (
      <div class="card narrow">
        <h1>{t("link.badTitle")}</h1>
        <div class="alert" role="alert">{t("link.bad")}</div>
        <p>
          <a href="/forgot-password">{t("reset.forgot")}</a>
        </p>
      </div>
    ),
  });
}

function NewPasswordField(props: { ctx: PageCtx; form: FormState }) {
  const { t } = props.ctx;
  return (
    <Field label={t("field.password")} error={props.form.errors.password}>
      <input name="password" type="password" autocomplete="new-password" required minlength={8} />
      <span class="hint">{t("field.passwordHint")}</span>
    </Field>
  );
}

/** The forgot-password, reset and verification pages. */
export function resetPages(services: Services) {
  const app = new Hono<AppEnv>();
  const form = pageForms(app, services);

  const showForgot = async (c: Context<AppEnv>, shown: Shown = {}) => {
    const ctx = await visitorCtx(c, services);
    const { t } = ctx;
    const sent = c.req.query("sent") === "1" && shown.status === undefined;
    const state = formState(shown, "forgot");
    return renderPage(c, ctx, {
      title: t("reset.title"),
      status: shown.status ?? 200,
      body: (
        <div class="card narrow">
          <h1>{t("reset.title")}</h1>
          {sent ? <div class="success" role="status">{t("reset.sent")}</div> : null}
          <Alert message={shown.message} />
          <p>{t("reset.intro")}</p>
          <PostForm action="/forgot-password" submit={t("reset.send")}>
            <Field label={t("field.email")} error={state.errors.email}>
              <input
                name="email"
                type="email"
                autocomplete="username"
                required
                value={state.values.email ?? ""}
              />
            </Field>
          </PostForm>
          <p class="muted">
            <a href="/login">{t("nav.login")}</a>
          </p>
        </div>
      ),
    });
  };

  app.get("/forgot-password", (c) => showForgot(c));
  form("/forgot-password", {
    form: "forgot",
    schema: ResetRequestSchema,
    show: (shown, { c }) => showForgot(c, shown),
    change: async ({ email }, { c }) => {
      await services.passwordReset.request(email, clientAddress(c));
      return "/forgot-password?sent=1";
    },
  });

  const showReset = async (c: Context<AppEnv>, shown: Shown = {}) => {
    const ctx = await visitorCtx(c, services);
    const token = c.req.param("token") ?? "";
    if (!await services.passwordReset.works(token)) return badLinkPage(c, ctx);
    const { t } = ctx;
    return renderPage(c, ctx, {
      title: t("reset.newTitle"),
      status: shown.status ?? 200,
      body: (
        <div class="card narrow">
          <h1>{t("reset.newTitle")}</h1>
          <Alert message={shown.message} />
          <p>{t("reset.newIntro")}</p>
          <PostForm
            action={`/reset-password/${encodeURIComponent(token)}`}
            submit={t("reset.submit")}
          >
            <NewPasswordField ctx={ctx} form={formState(shown, "reset")} />
          </PostForm>
        </div>
      ),
    });
  };

  app.get("/reset-password/:token", (c) => showReset(c));
  form("/reset-password/:token", {
    form: "reset",
    schema: ResetSchema,
    // A link that stopped working: its page says so (the show does).
    codes: { not_found: "link.bad" },
    show: (shown, { c }) => showReset(c, shown),
    change: async ({ password }, { c }) => {
      await services.passwordReset.complete(c.req.param("token") ?? "", password, requestMeta(c));
      return "/login?reset=1";
    },
  });

  app.get("/verify-email/:token", async (c) => {
    const verified = await services.emailVerification.verify(c.req.param("token"), requestMeta(c));
    const ctx = await visitorCtx(c, services);
    if (!verified) return badLinkPage(c, ctx);
    const { t } = ctx;
    return renderPage(c, ctx, {
      title: t("verify.title"),
      body: (
        <div class="card narrow">
          <h1>{t("verify.title")}</h1>
          <div class="success" role="status">{t("verify.done")}</div>
          <p>
            <a href={ctx.user ? "/settings" : "/login"}>
              {ctx.user ? t("nav.settings") : t("nav.login")}
            </a>
          </p>
        </div>
      ),
    });
  });

  return app;
}
