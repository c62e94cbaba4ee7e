/**
 * Single sign-on's pages: the start (`/auth/oidc/start?next=/path`, to the provider), the
 * callback (`/auth/oidc/callback`, signed in or refused with a page saying why), and the page
 * that asks for an account's password once before its identity is linked (`/auth/oidc/link`).
 * The state of a sign-in under way, and a waiting link's token, travel in short-lived
 * HttpOnly cookies scoped to `/auth/oidc`, never in an address the request log could show.
 */
import { type Context, Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { DomainError } from "../../domain/kernel/errors.ts";
import type { Services } from "../../domain/services.ts";
import type { AppEnv } from "../api/openapi.ts";
import { requestMeta } from "../client_address.ts";
import { isHttps, setPreferenceCookies, setSessionCookie } from "../cookies.ts";
import type { MessageKey } from "../i18n/en.ts";
import { type PageCtx, safeNext, visitorCtx } from "./context.ts";
import { Field, PostForm } from "./kit/fields.tsx";
import { Alert, renderPage } from "./kit/layout.tsx";
import { notFound } from "./kit/errors.tsx";
import { pageForms, type Shown } from "./kit/submit.ts";

const STATE_COOKIE = "sso_state";
const LINK_COOKIE = "sso_link";
const COOKIE_PATH = "/auth/oidc";

/** The pages without a session that these routes answer (the login guard lets them through). */
export function isSsoPage(path: string): boolean {
  return path === "/auth/oidc/start" || path === "/auth/oidc/callback" ||
    path === "/auth/oidc/link";
}

/** A refusal's words and status: why single sign-on did not sign the person in. */
function refusalOf(error: DomainError): { key: MessageKey; status: number; reason: string | null } {
  switch (error.code) {
    case "sso_domain":
      return { key: "sso.domain", status: 403, reason: null };
    case "account_disabled":
      return { key: "sso.disabled", status: 403, reason: null };
    case "sso_no_account":
      return { key: "sso.noAccount", status: 403, reason: null };
    default: {
      const why = error.details?.reason;
      if (why === "state") return { key: "sso.state", status: 400, reason: null };
      if (why === "token") return { key: "sso.token", status: 400, reason: error.message };
      if (why === "no_email") return { key: "sso.noEmail", status: 403, reason: null };
      return { key: "sso.provider", status: 502, reason: error.message };
    }
  }
}

const REFUSALS = new Set(["sso_failed", "sso_domain", "account_disabled", "sso_no_account"]);

/** The page of a refused single sign-on. */
function refusalPage(c: Context<AppEnv>, ctx: PageCtx, error: DomainError) {
  const { t } = ctx;
  const { key, status, reason } = refusalOf(error);
  return renderPage(c, ctx, {
    title: t("sso.refusedTitle"),
    status,
    body: (
      <div class="card narrow" data-sso-refusal={error.details?.reason ?? error.code}>
        <h1>{t("sso.refusedTitle")}</h1>
        <div class="alert" role="alert">{t(key)}</div>
        {reason === null ? null : (
          <p>
            {t("sso.reasonForAdmin")} <code>{reason}</code>
          </p>
        )}
        <p>
          <a href="/login">{t("nav.login")}</a>
        </p>
      </div>
    ),
  });
}

/** The single sign-on pages. */
export function ssoPages(services: Services, options: { baseUrl: string | null }) {
  const app = new Hono<AppEnv>();
  const form = pageForms(app, services);
  const { sso } = services;
  const maxAge = services.sessions.maxAgeSeconds;
  const secure = (c: Context) => isHttps(c, options.baseUrl);
  const shortCookie = (c: Context, name: string, value: string) =>
    setCookie(c, name, value, {
      httpOnly: true,
      sameSite: "Lax",
      path: COOKIE_PATH,
      secure: secure(c),
      maxAge: 600,
    });
  const clearCookie = (c: Context, name: string) =>
    deleteCookie(c, name, {
      path: COOKIE_PATH,
      secure: secure(c),
      httpOnly: true,
      sameSite: "Lax",
    });

  /** Signs in with a session begun by single sign-on. */
  const signedIn = async (
    c: Context<AppEnv>,
    done: { cookie: string; user: { theme: string; locale: string } },
  ) => {
    setSessionCookie(c, done.cookie, { secure: secure(c), maxAge });
    setPreferenceCookies(c, done.user, { secure: secure(c) });
    return await Promise.resolve();
  };

  app.get("/auth/oidc/start", async (c) => {
    if (!sso) return notFound(c, await visitorCtx(c, services));
    try {
      const { url, state } = await sso.start(safeNext(c.req.query("next")));
      shortCookie(c, STATE_COOKIE, state);
      return c.redirect(url, 302);
    } catch (error) {
      if (error instanceof DomainError && REFUSALS.has(error.code)) {
        return refusalPage(c, await visitorCtx(c, services), error);
      }
      throw error;
    }
  });

  app.get("/auth/oidc/callback", async (c) => {
    if (!sso) return notFound(c, await visitorCtx(c, services));
    const browserState = getCookie(c, STATE_COOKIE);
    clearCookie(c, STATE_COOKIE);
    try {
      const query = new URL(c.req.url).search.slice(1);
      const outcome = await sso.callback(query, browserState, requestMeta(c));
      if (outcome.kind === "link") {
        shortCookie(c, LINK_COOKIE, outcome.token);
        return c.redirect("/auth/oidc/link", 303);
      }
      await signedIn(c, outcome);
      return c.redirect(safeNext(outcome.next), 303);
    } catch (error) {
      if (error instanceof DomainError && REFUSALS.has(error.code)) {
        return refusalPage(c, await visitorCtx(c, services), error);
      }
      throw error;
    }
  });

  const showLink = async (c: Context<AppEnv>, shown: Shown = {}) => {
    const ctx = await visitorCtx(c, services);
    const { t } = ctx;
    const token = getCookie(c, LINK_COOKIE);
    const link = sso && token ? await sso.pendingLink(token).catch(() => null) : null;
    if (!link) {
      return renderPage(c, ctx, {
        title: t("link.badTitle"),
        status: 404,
        body: (
          <div class="card narrow">
            <h1>{t("link.badTitle")}</h1>
            <div class="alert" role="alert">{t("sso.linkGone")}</div>
            <p>
              <a href="/login">{t("nav.login")}</a>
            </p>
          </div>
        ),
      });
    }
    return renderPage(c, ctx, {
      title: t("sso.linkTitle"),
      status: shown.status ?? 200,
      body: (
        <div class="card narrow" data-sso-link>
          <h1>{t("sso.linkTitle")}</h1>
          <Alert message={shown.message} />
          <p>{t("sso.linkIntro", { email: link.email })}</p>
          <PostForm action="/auth/oidc/link" submit={t("sso.linkSubmit")}>
            <input type="hidden" name="email" value={link.email} autocomplete="username" />
            <Field label={t("field.password")} error={undefined}>
              <input name="password" type="password" autocomplete="current-password" required />
            </Field>
          </PostForm>
        </div>
      ),
    });
  };

  app.get("/auth/oidc/link", (c) => showLink(c));

  form("/auth/oidc/link", {
    form: "sso-link",
    codes: {
      unauthenticated: "sso.linkWrong",
      rate_limited: "login.throttled",
      not_found: "sso.linkGone",
      account_disabled: "sso.disabled",
    },
    show: (shown, { c }) => showLink(c, shown),
    change: async (_, { c, fields }) => {
      const token = getCookie(c, LINK_COOKIE);
      if (!sso || !token) throw new DomainError("not_found", "No such link");
      const done = await sso.completeLink(token, fields.password ?? "", requestMeta(c));
      clearCookie(c, LINK_COOKIE);
      await signedIn(c, done);
      return safeNext(done.next);
    },
  });

  return app;
}
