/** Login, registration, logout and settings pages; every form works without JavaScript. */
import { Hono } from "hono";
import { DomainError } from "../../domain/errors.ts";
import type { Services } from "../../domain/services.ts";
import type { AppEnv } from "../api/openapi.ts";
import { LoginSchema, ProfileSchema, RegisterSchema } from "../api/schemas.ts";
import { clientAddress } from "../client_address.ts";
import { clearSessionCookie, isHttps, setPreferenceCookies, setSessionCookie } from "../cookies.ts";
import type { Translate } from "../i18n/i18n.ts";
import { Field } from "./components.tsx";
import { type PageCtx, pageCtx, safeNext } from "./context.ts";
import { formFields, validateForm } from "./forms.ts";
import { Alert, FieldError, renderPage } from "./layout.tsx";

interface FormState {
  values?: Record<string, string>;
  errors?: Record<string, string>;
  message?: string | null;
}

/** The sign-in email field of the login and register forms. */
function EmailField(props: { t: Translate; value: string; error: string | undefined }) {
  return (
    <Field label={props.t("field.email")} error={props.error}>
      <input name="email" type="email" autocomplete="username" required value={props.value} />
    </Field>
  );
}

function LoginForm(props: { ctx: PageCtx; next: string; state: FormState }) {
  const { t } = props.ctx;
  const { values = {}, errors = {} } = props.state;
  return (
    <div class="card narrow">
      <h1>{t("login.title")}</h1>
      <Alert message={props.state.message} />
      <form class="stack" method="post" action="/login">
        <input type="hidden" name="next" value={props.next} />
        <EmailField t={t} value={values.email ?? ""} error={errors.email} />
        <label>
          {t("field.password")}
          <input name="password" type="password" autocomplete="current-password" required />
          <FieldError message={errors.password} />
        </label>
        <button type="submit">{t("login.submit")}</button>
      </form>
      <p class="muted">
        {t("login.noAccount")} <a href="/register">{t("nav.register")}</a>
      </p>
    </div>
  );
}

function RegisterForm(props: { ctx: PageCtx; state: FormState }) {
  const { t } = props.ctx;
  const { values = {}, errors = {} } = props.state;
  return (
    <div class="card narrow">
      <h1>{t("register.title")}</h1>
      <Alert message={props.state.message} />
      <form class="stack" method="post" action="/register">
        <label>
          {t("field.displayName")}
          <input name="displayName" required maxlength={100} value={values.displayName ?? ""} />
          <FieldError message={errors.displayName} />
        </label>
        <EmailField t={t} value={values.email ?? ""} error={errors.email} />
        <label>
          {t("field.password")}
          <input
            name="password"
            type="password"
            autocomplete="new-password"
            required
            minlength={8}
          />
          <span class="hint">{t("field.passwordHint")}</span>
          <FieldError message={errors.password} />
        </label>
        <button type="submit">{t("register.submit")}</button>
      </form>
      <p class="muted">
        {t("register.haveAccount")} <a href="/login">{t("nav.login")}</a>
      </p>
    </div>
  );
}

function SettingsPage(props: { ctx: PageCtx; saved: boolean; state: FormState }) {
  const { t, user } = props.ctx;
  const errors = props.state.errors ?? {};
  return (
    <>
      <h1>{t("settings.title")}</h1>
      {props.saved ? <div class="success" role="status">{t("form.saved")}</div> : null}
      <Alert message={props.state.message} />
      <div class="card">
        <form class="stack" method="post" action="/settings" data-autosubmit>
          <h2>{t("settings.profile")}</h2>
          <label>
            {t("field.displayName")}
            <input name="displayName" required maxlength={100} value={user!.displayName} />
            <FieldError message={errors.displayName} />
          </label>
          <h2>{t("settings.appearance")}</h2>
          <label>
            {t("field.theme")}
            <select name="theme">
              <option value="dark" selected={user!.theme === "dark"}>{t("theme.dark")}</option>
              <option value="light" selected={user!.theme === "light"}>{t("theme.light")}</option>
            </select>
          </label>
          <label>
            {t("field.locale")}
            <select name="locale">
              <option value="en" selected={user!.locale === "en"}>{t("locale.en")}</option>
              <option value="ja" selected={user!.locale === "ja"}>{t("locale.ja")}</option>
            </select>
          </label>
          <div>
            <button type="submit">{t("form.save")}</button>
          </div>
        </form>
      </div>
    </>
  );
}

/** The account pages. */
export function accountPages(services: Services, options: { baseUrl: string | null }) {
  const app = new Hono<AppEnv>();
  const maxAge = services.sessions.maxAgeSeconds;

  app.get("/login", (c) => {
    const next = safeNext(c.req.query("next"));
    if (c.get("session")) return c.redirect(next, 303);
    const ctx = pageCtx(c, services);
    return renderPage(c, ctx, {
      title: ctx.t("login.title"),
      body: <LoginForm ctx={ctx} next={next} state={{}} />,
    });
  });

  app.post("/login", async (c) => {
    const fields = await formFields(c);
    const next = safeNext(fields.next);
    const ctx = pageCtx(c, services);
    const show = (status: number, state: FormState) =>
      renderPage(c, ctx, {
        title: ctx.t("login.title"),
        status,
        body: <LoginForm ctx={ctx} next={next} state={{ values: fields, ...state }} />,
      });
    const form = validateForm(LoginSchema, fields);
    if (!form.ok) return show(400, { errors: form.errors, message: ctx.t("form.invalid") });
    try {
      const { user, cookie } = await services.accounts.login(form.data, clientAddress(c));
      const secure = isHttps(c, options.baseUrl);
      setSessionCookie(c, cookie, { secure, maxAge });
      setPreferenceCookies(c, user, { secure });
      return c.redirect(next, 303);
    } catch (error) {
      if (error instanceof DomainError && error.code === "rate_limited") {
        c.header("Retry-After", String(error.retryAfter ?? 60));
        return show(429, {
          message: ctx.t("login.throttled", { seconds: error.retryAfter ?? 60 }),
        });
      }
      if (error instanceof DomainError && error.code === "unauthenticated") {
        return show(401, { message: ctx.t("login.failed") });
      }
      throw error;
    }
  });

  app.get("/register", (c) => {
    if (c.get("session")) return c.redirect("/", 303);
    const ctx = pageCtx(c, services);
    return renderPage(c, ctx, {
      title: ctx.t("register.title"),
      body: <RegisterForm ctx={ctx} state={{}} />,
    });
  });

  app.post("/register", async (c) => {
    const fields = await formFields(c);
    const ctx = pageCtx(c, services);
    const show = (status: number, state: FormState) =>
      renderPage(c, ctx, {
        title: ctx.t("register.title"),
        status,
        body: <RegisterForm ctx={ctx} state={{ values: fields, ...state }} />,
      });
    const form = validateForm(RegisterSchema, fields);
    if (!form.ok) return show(400, { errors: form.errors, message: ctx.t("form.invalid") });
    try {
      const { user, cookie } = await services.accounts.register(form.data, clientAddress(c));
      const secure = isHttps(c, options.baseUrl);
      setSessionCookie(c, cookie, { secure, maxAge });
      // Keep the language and theme chosen before registering.
      const prefs = { theme: ctx.theme, locale: ctx.locale };
      if (prefs.theme !== user.theme || prefs.locale !== user.locale) {
        services.accounts.updateMe({ id: user.id, role: user.role }, prefs);
      }
      setPreferenceCookies(c, prefs, { secure });
      return c.redirect("/", 303);
    } catch (error) {
      if (error instanceof DomainError && error.code === "conflict") {
        return show(409, { errors: { email: ctx.t("register.taken") } });
      }
      if (error instanceof DomainError && error.code === "rate_limited") {
        c.header("Retry-After", String(error.retryAfter ?? 60));
        return show(429, {
          message: ctx.t("register.throttled", { seconds: error.retryAfter ?? 60 }),
        });
      }
      throw error;
    }
  });

  app.post("/logout", (c) => {
    const session = c.get("session");
    if (session) services.accounts.logout(session.idHash);
    clearSessionCookie(c, { secure: isHttps(c, options.baseUrl) });
    return c.redirect("/login", 303);
  });

  app.get("/settings", (c) => {
    const ctx = pageCtx(c, services);
    return renderPage(c, ctx, {
      title: ctx.t("settings.title"),
      body: <SettingsPage ctx={ctx} saved={c.req.query("saved") === "1"} state={{}} />,
    });
  });

  app.post("/settings", async (c) => {
    const fields = await formFields(c);
    const form = validateForm(ProfileSchema, fields);
    if (!form.ok) {
      const ctx = pageCtx(c, services);
      return renderPage(c, ctx, {
        title: ctx.t("settings.title"),
        status: 400,
        body: (
          <SettingsPage
            ctx={ctx}
            saved={false}
            state={{ errors: form.errors, message: ctx.t("form.invalid") }}
          />
        ),
      });
    }
    const session = c.get("session")!;
    const user = services.accounts.updateMe(
      { id: session.user.id, role: session.user.role },
      form.data,
    );
    setPreferenceCookies(c, user, { secure: isHttps(c, options.baseUrl) });
    return c.redirect("/settings?saved=1", 303);
  });

  return app;
}
