/** Login, registration, logout and settings pages; every form works without JavaScript. */
import { type Context, Hono } from "hono";
import type { Child } from "hono/jsx";
import type { LocalLogin, RegistrationMode } from "../../domain/config.ts";
import type { Services } from "../../domain/services.ts";
import { DomainError } from "../../domain/kernel/errors.ts";
import type { PublicIdentity } from "../../domain/identity/sso.ts";
import { timeZoneNames } from "../../domain/kernel/time_zones.ts";
import type { AppEnv } from "../api/openapi.ts";
import { LoginSchema, ProfileSchema, RegisterSchema } from "../api/schemas.ts";
import { clientAddress, requestMeta } from "../client_address.ts";
import { clearSessionCookie, isHttps, setPreferenceCookies, setSessionCookie } from "../cookies.ts";
import type { MessageKey } from "../i18n/en.ts";
import { type PageCtx, pageCtx, safeNext } from "./context.ts";
import {
  ButtonForm,
  Field,
  type FormState,
  formState,
  PostForm,
  SelectField,
  TextField,
} from "./kit/fields.tsx";
import { Alert, renderPage } from "./kit/layout.tsx";
import { pageForms, type Shown } from "./kit/submit.ts";

/** The sign-in email field of the login and register forms. */
function EmailField(props: { ctx: PageCtx; form: FormState }) {
  return (
    <Field label={props.ctx.t("field.email")} error={props.form.errors.email}>
      <input
        name="email"
        type="email"
        autocomplete="username"
        required
        value={props.form.values.email ?? ""}
      />
    </Field>
  );
}

/** A password field; the browser fills in the current one or suggests a new one. */
function PasswordField(props: { ctx: PageCtx; form: FormState; fresh: boolean }) {
  const { t } = props.ctx;
  return (
    <Field label={t("field.password")} error={props.form.errors.password}>
      <input
        name="password"
        type="password"
        autocomplete={props.fresh ? "new-password" : "current-password"}
        required
        minlength={props.fresh ? 8 : undefined}
      />
      {props.fresh ? <span class="hint">{t("field.passwordHint")}</span> : null}
    </Field>
  );
}

/** A narrow card holding a sign-in form and the link to the other one. */
function SignIn(
  props: {
    ctx: PageCtx;
    shown: Shown;
    title: MessageKey;
    action: string;
    submit: MessageKey;
    other: [MessageKey, string, MessageKey];
    children: Child;
  },
) {
  const { t } = props.ctx;
  const [question, href, link] = props.other;
  return (
    <div class="card narrow">
      <h1>{t(props.title)}</h1>
      <Alert message={props.shown.message} />
      <PostForm action={props.action} submit={t(props.submit)}>{props.children}</PostForm>
      <p class="muted">
        {t(question)} <a href={href}>{t(link)}</a>
      </p>
    </div>
  );
}

/** The single sign-on button (a link to the start, keeping `next`). */
function SsoButton(props: { ctx: PageCtx; next: string; label: string }) {
  const href = `/auth/oidc/start?next=${encodeURIComponent(props.next)}`;
  return (
    <p data-sso>
      <a class="button primary" href={href}>{props.label}</a>
    </p>
  );
}

function LoginForm(
  props: {
    ctx: PageCtx;
    next: string;
    shown: Shown;
    forgot: boolean;
    reset: boolean;
    sso: string | null;
    localLogin: LocalLogin;
  },
) {
  const { ctx } = props;
  const form = formState(props.shown, "login");
  if (props.localLogin === "off" && props.sso !== null) {
    // Single sign-on only: no password form.
    return (
      <div class="card narrow">
        <h1>{ctx.t("login.title")}</h1>
        <Alert message={props.shown.message} />
        <SsoButton ctx={ctx} next={props.next} label={props.sso} />
      </div>
    );
  }
  return (
    <>
      {props.reset ? <div class="success" role="status">{ctx.t("reset.done")}</div> : null}
      {props.sso === null ? null : (
        <div class="card narrow">
          <SsoButton ctx={ctx} next={props.next} label={props.sso} />
          {props.localLogin === "admins"
            ? <p class="muted">{ctx.t("login.adminsOnly")}</p>
            : <p class="muted">{ctx.t("login.orPassword")}</p>}
        </div>
      )}
      <SignIn
        ctx={ctx}
        shown={props.shown}
        title="login.title"
        action="/login"
        submit="login.submit"
        other={["login.noAccount", "/register", "nav.register"]}
      >
        <input type="hidden" name="next" value={props.next} />
        <EmailField ctx={ctx} form={form} />
        <PasswordField ctx={ctx} form={form} fresh={false} />
        {props.forgot
          ? (
            <p>
              <a href="/forgot-password">{ctx.t("reset.forgot")}</a>
            </p>
          )
          : null}
      </SignIn>
    </>
  );
}

function RegisterForm(props: { ctx: PageCtx; shown: Shown; mode: RegistrationMode }) {
  const { ctx } = props;
  const { t } = ctx;
  if (props.mode !== "open") {
    // Nobody registers here: say why, and (by invitation) how one joins.
    return (
      <div class="card narrow" data-registration={props.mode}>
        <h1>{t("register.title")}</h1>
        <Alert message={props.shown.message} />
        <p class="notice">
          {t(props.mode === "invite" ? "register.inviteOnly" : "register.closed")}
        </p>
        <p class="muted">
          {t("register.haveAccount")} <a href="/login">{t("nav.login")}</a>
        </p>
      </div>
    );
  }
  const form = formState(props.shown, "register");
  return (
    <SignIn
      ctx={ctx}
      shown={props.shown}
      title="register.title"
      action="/register"
      submit="register.submit"
      other={["register.haveAccount", "/login", "nav.login"]}
    >
      <TextField
        label={ctx.t("field.displayName")}
        schema={RegisterSchema}
        name="displayName"
        form={form}
      />
      <EmailField ctx={ctx} form={form} />
      <PasswordField ctx={ctx} form={form} fresh />
    </SignIn>
  );
}

/** The zones grouped by region (`Asia/Tokyo` is "Tokyo" under "Asia"), `UTC` first. */
function zoneGroups(): Array<[string, Array<[string, string]>]> {
  const groups = new Map<string, Array<[string, string]>>();
  for (const name of timeZoneNames()) {
    const slash = name.indexOf("/");
    const region = slash < 0 ? "" : name.slice(0, slash);
    const place = (slash < 0 ? name : name.slice(slash + 1)).replaceAll("_", " ");
    if (!groups.has(region)) groups.set(region, []);
    groups.get(region)!.push([name, place]);
  }
  return [...groups].sort(([a], [b]) => a === "" ? -1 : b === "" ? 1 : a.localeCompare(b));
}

/** The time zone select: every zone the server knows, grouped by region. */
function TimeZoneField(props: { ctx: PageCtx; form: FormState }) {
  const { t } = props.ctx;
  const value = props.form.values.timeZone ?? props.ctx.timeZone;
  return (
    <Field label={t("field.timeZone")} error={props.form.errors.timeZone}>
      <select name="timeZone" aria-describedby="time-zone-hint">
        {zoneGroups().map(([region, zones]) => {
          const options = zones.map(([name, place]) => (
            <option value={name} selected={name === value}>{place}</option>
          ));
          // hono/jsx would print a `key` as an attribute; the list is rendered once.
          // deno-lint-ignore jsx-key
          return region === "" ? options : <optgroup label={region}>{options}</optgroup>;
        })}
      </select>
      <span class="hint" id="time-zone-hint">{t("settings.timeZoneHint")}</span>
    </Field>
  );
}

/** The identities at the single sign-on provider, each with its unlink button. */
function IdentitiesCard(
  props: { ctx: PageCtx; identities: PublicIdentity[]; unlinked: boolean },
) {
  const { t } = props.ctx;
  return (
    <div class="card" data-identities>
      <h2>{t("sso.identities")}</h2>
      {props.unlinked ? <div class="success" role="status">{t("sso.unlinked")}</div> : null}
      {props.identities.length === 0 ? <p class="muted">{t("sso.noIdentities")}</p> : (
        <ul>
          {props.identities.map((identity) => (
            <li data-identity={identity.id}>
              {identity.email ?? identity.subject} <span class="muted">({identity.issuer})</span>
              <ButtonForm
                action={`/settings/identities/${identity.id}/unlink`}
                label={t("sso.unlink")}
                confirm={t("sso.unlinkConfirm")}
              />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function SettingsPage(
  props: {
    ctx: PageCtx;
    saved: boolean;
    shown: Shown;
    verifySent: boolean;
    mailOn: boolean;
    identities: PublicIdentity[] | null;
    unlinked: boolean;
  },
) {
  const { t, user } = props.ctx;
  const form = formState(props.shown, "settings", {
    displayName: user!.displayName,
    theme: user!.theme,
    locale: user!.locale,
    timeZone: user!.timeZone,
    emailNotifications: user!.emailNotifications,
    digestHour: String(user!.digestHour),
  });
  return (
    <>
      <h1>{t("settings.title")}</h1>
      {props.saved ? <div class="success" role="status">{t("form.saved")}</div> : null}
      <Alert message={props.shown.message} />
      <div class="card">
        <PostForm action="/settings" submit={t("form.save")} attrs={{ "data-autosubmit": true }}>
          <h2>{t("settings.profile")}</h2>
          <TextField
            label={t("field.displayName")}
            schema={RegisterSchema}
            name="displayName"
            form={form}
          />
          <h2>{t("settings.appearance")}</h2>
          <SelectField
            label={t("field.theme")}
            name="theme"
            form={form}
            options={[
              ["dark", t("theme.dark")],
              ["light", t("theme.light")],
              ["system", t("theme.system")],
            ]}
          />
          <SelectField
            label={t("field.locale")}
            name="locale"
            form={form}
            options={[["en", t("locale.en")], ["ja", t("locale.ja")]]}
          />
          <TimeZoneField ctx={props.ctx} form={form} />
          <h2>{t("settings.mail")}</h2>
          <SelectField
            label={t("field.emailNotifications")}
            name="emailNotifications"
            form={form}
            options={[
              ["immediate", t("mail.immediate")],
              ["daily", t("mail.daily")],
              ["off", t("mail.off")],
            ]}
          />
          <SelectField
            label={t("field.digestHour")}
            name="digestHour"
            form={form}
            options={Array.from({ length: 24 }, (_, h) => [h, `${String(h).padStart(2, "0")}:00`])}
          />
          <p class="hint">{t("settings.digestHourHint")}</p>
        </PostForm>
      </div>
      <div class="card" data-verify-email>
        <h2>{t("verify.heading")}</h2>
        {props.verifySent ? <div class="success" role="status">{t("verify.sent")}</div> : null}
        <p class="muted">{user!.email}</p>
        {user!.emailVerified ? <p>{t("verify.verified")}</p> : (
          <>
            <p>{t("verify.unverified")}</p>
            {props.mailOn
              ? <PostForm action="/settings/verify-email" submit={t("verify.send")} />
              : <p class="muted">{t("verify.mailOff")}</p>}
          </>
        )}
      </div>
      {props.identities === null ? null : (
        <IdentitiesCard
          ctx={props.ctx}
          identities={props.identities}
          unlinked={props.unlinked}
        />
      )}
      <div class="card" data-connect>
        <h2>{t("connect.title")}</h2>
        <p class="muted">{t("connect.intro")}</p>
        <ul>
          <li>
            <a href="/settings/tokens">{t("tokens.title")}</a>
          </li>
          <li>
            <a href="/settings/calendar">{t("feeds.title")}</a>
          </li>
        </ul>
      </div>
    </>
  );
}

/** The account pages. */
export function accountPages(services: Services, options: { baseUrl: string | null }) {
  const app = new Hono<AppEnv>();
  const form = pageForms(app, services);
  const { accounts } = services;
  const maxAge = services.sessions.maxAgeSeconds;
  const secure = (c: Context) => isHttps(c, options.baseUrl);

  const showLogin = async (c: Context<AppEnv>, next: string, shown: Shown = {}) => {
    const ctx = await pageCtx(c, services);
    const body = (
      <LoginForm
        ctx={ctx}
        next={next}
        shown={shown}
        forgot={services.mailEnabled}
        reset={c.req.query("reset") === "1" && shown.status === undefined}
        sso={services.providers().oidc?.buttonText ?? null}
        localLogin={services.localLogin}
      />
    );
    return renderPage(c, ctx, { title: ctx.t("login.title"), status: shown.status ?? 200, body });
  };
  const showRegister = async (c: Context<AppEnv>, shown: Shown = {}) => {
    const ctx = await pageCtx(c, services);
    const mode = await accounts.registration();
    const body = <RegisterForm ctx={ctx} shown={shown} mode={mode} />;
    return renderPage(c, ctx, {
      title: ctx.t("register.title"),
      status: shown.status ?? 200,
      body,
    });
  };
  const showSettings = async (c: Context<AppEnv>, shown: Shown = {}) => {
    const ctx = await pageCtx(c, services);
    const saved = c.req.query("saved") === "1" && shown.status === undefined;
    const verifySent = c.req.query("verify") === "sent" && shown.status === undefined;
    const body = (
      <SettingsPage
        ctx={ctx}
        saved={saved}
        shown={shown}
        verifySent={verifySent}
        mailOn={services.mailEnabled}
        identities={services.sso ? await services.sso.identities(ctx.actor!) : null}
        unlinked={c.req.query("unlinked") === "1" && shown.status === undefined}
      />
    );
    return renderPage(c, ctx, {
      title: ctx.t("settings.title"),
      status: shown.status ?? 200,
      body,
    });
  };

  app.get("/login", (c) => {
    const next = safeNext(c.req.query("next"));
    return c.get("session") ? c.redirect(next, 303) : showLogin(c, next);
  });

  form("/login", {
    form: "login",
    schema: LoginSchema,
    codes: {
      unauthenticated: "login.failed",
      rate_limited: "login.throttled",
      local_login_off: "login.localOff",
    },
    show: (shown, { c, fields }) => showLogin(c, safeNext(fields.next), shown),
    change: async (input, { c, fields }) => {
      const { user, cookie } = await accounts.login(input, requestMeta(c));
      setSessionCookie(c, cookie, { secure: secure(c), maxAge });
      setPreferenceCookies(c, user, { secure: secure(c) });
      return safeNext(fields.next);
    },
  });

  app.get("/register", (c) => c.get("session") ? c.redirect("/", 303) : showRegister(c));

  form("/register", {
    form: "register",
    schema: RegisterSchema,
    codes: {
      conflict: { field: "email", message: "register.taken" },
      rate_limited: "register.throttled",
      registration_closed: services.providers().registration === "invite"
        ? "register.inviteOnly"
        : "register.closed",
      registration_domain: { field: "email", message: "register.domain" },
    },
    show: (shown, { c }) => showRegister(c, shown),
    change: async (input, { c, ctx }) => {
      const { user, cookie } = await accounts.register(input, clientAddress(c));
      setSessionCookie(c, cookie, { secure: secure(c), maxAge });
      // Keep the language and theme chosen before registering.
      const prefs = { theme: ctx.theme, locale: ctx.locale };
      if (prefs.theme !== user.theme || prefs.locale !== user.locale) {
        await accounts.updateMe({ id: user.id, role: user.role }, prefs);
      }
      setPreferenceCookies(c, prefs, { secure: secure(c) });
      return "/";
    },
  });

  app.post("/logout", async (c) => {
    const session = c.get("session");
    // A session begun by single sign-on signs out at the provider too, which sends the
    // browser back to BASE_URL.
    const endSessionUrl = session ? await services.sso?.endSessionUrl(session.idHash) : null;
    // The page after it speaks the person's language, to nobody signed in.
    const ctx = endSessionUrl ? await pageCtx(c, services) : null;
    if (session) {
      await accounts.logout({ idHash: session.idHash, userId: session.user.id }, requestMeta(c));
    }
    clearSessionCookie(c, { secure: secure(c) });
    if (!endSessionUrl || !ctx) return c.redirect("/login", 303);
    // Not a redirect: the page's CSP (form-action 'self') holds for a form's redirects too,
    // so the browser would refuse one to the provider. A page that goes there itself.
    const visitor = { ...ctx, user: null, actor: null, unread: 0, proposeZone: false };
    return renderPage(c, visitor, {
      title: ctx.t("sso.signingOutTitle"),
      // At once, in place of this page in the history; the link is for a browser that waits.
      head: <meta http-equiv="refresh" content={`0; url=${endSessionUrl}`} />,
      body: (
        <div class="card narrow" data-signing-out>
          <h1>{ctx.t("sso.signingOutTitle")}</h1>
          <p role="status">{ctx.t("sso.signingOut")}</p>
          <p>
            <a href={endSessionUrl}>{ctx.t("sso.signingOutLink")}</a>
          </p>
        </div>
      ),
    });
  });

  app.get("/settings", (c) => showSettings(c));

  form("/settings", {
    form: "settings",
    schema: ProfileSchema,
    fields: { timeZone: "settings.timeZoneUnknown" },
    // The hour comes as text from the form; the API takes a number.
    read: (fields) => ({
      ...fields,
      ...(fields.digestHour !== undefined && /^\d{1,2}$/.test(fields.digestHour)
        ? { digestHour: Number(fields.digestHour) }
        : {}),
    }),
    show: (shown, { c }) => showSettings(c, shown),
    change: async (changes, { c, ctx }) => {
      // Saving the form with the zone as shown to a person who never chose one (UTC) is no
      // choice: the browser's zone may still be proposed.
      const { timeZone, ...rest } = changes;
      const chosen = !ctx.proposeZone || timeZone !== ctx.timeZone;
      const user = await accounts.updateMe(ctx.actor!, chosen ? changes : rest);
      setPreferenceCookies(c, user, { secure: secure(c) });
      return "/settings?saved=1";
    },
  });

  form("/settings/verify-email", {
    form: "verify-email",
    codes: {
      mail_off: "verify.mailOff",
      conflict: "verify.already",
      rate_limited: "verify.throttled",
    },
    show: (shown, { c }) => showSettings(c, shown),
    change: async (_, { ctx }) => {
      await services.emailVerification.request(ctx.actor!);
      return "/settings?verify=sent";
    },
  });

  form("/settings/identities/:identityId/unlink", {
    form: "unlink",
    codes: { last_sign_in: "sso.lastSignIn" },
    show: (shown, { c }) => showSettings(c, shown),
    change: async (_, { ctx, c }) => {
      const id = Number(c.req.param("identityId"));
      if (!services.sso || !Number.isSafeInteger(id)) {
        throw new DomainError("not_found", "No such identity");
      }
      await services.sso.unlink(ctx.actor!, id, requestMeta(c));
      return "/settings?unlinked=1";
    },
  });

  return app;
}
