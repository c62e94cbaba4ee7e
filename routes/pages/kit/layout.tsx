/** The page shell: document, navigation, theme and language; fragments; alerts. */
import type { Context } from "hono";
import { raw } from "hono/html";
import type { Child } from "hono/jsx";
import { MAX_QUERY } from "../../../domain/content/search.ts";
import type { MessageKey } from "../../i18n/en.ts";
import type { PageCtx } from "../context.ts";

/** The CSP of every page: our own files only, no inline script. */
export const PAGE_CSP = "default-src 'self'; img-src 'self' data:; style-src 'self'; " +
  "script-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; " +
  "frame-ancestors 'none'; form-action 'self'";

/** Who sees a link: everyone signed in, admins, or those who run the loan console. */
type NavFor = "all" | "admin" | "loan";

const NAV: Array<[string, MessageKey, NavFor]> = [
  ["/", "nav.dashboard", "all"],
  ["/projects", "nav.projects", "all"],
  ["/notifications", "nav.notifications", "all"],
  ["/settings", "nav.settings", "all"],
  ["/loan-console", "nav.loanConsole", "loan"],
  ["/admin", "nav.admin", "admin"],
];

/** Whether `user` sees a link meant for `who`. */
function navFor(user: { role: string; loanOfficer: boolean }, who: NavFor): boolean {
  if (who === "all") return true;
  if (who === "admin") return user.role === "admin";
  return user.role === "admin" || user.loanOfficer;
}

function isCurrent(path: string, href: string): boolean {
  return href === "/" ? path === "/" : path === href || path.startsWith(`${href}/`);
}

/** The whole document around a page's content. */
export function Layout(
  props: { ctx: PageCtx; title: string; head?: Child; children: Child },
) {
  const { ctx } = props;
  const { t, user } = ctx;
  return (
    <html lang={ctx.locale} data-theme={ctx.theme}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        {/* `system`: the stylesheet picks light or dark by prefers-color-scheme, before paint. */}
        <meta name="color-scheme" content={ctx.theme === "system" ? "light dark" : ctx.theme} />
        <title>{`${props.title} · ${t("app.name")}`}</title>
        <link rel="icon" href="/static/favicon.svg" type="image/svg+xml" />
        <link rel="stylesheet" href="/static/app.css" />
        <script type="module" src="/static/app.js"></script>
        {ctx.user ? <script type="module" src="/static/notify.js"></script> : null}
        {/* Only for a person who never chose a time zone: proposes the browser's, once. */}
        {ctx.proposeZone ? <script type="module" src="/static/time_zone.js"></script> : null}
        {ctx.user ? <script type="module" src="/static/markdown_preview.js"></script> : null}
        {props.head ?? null}
      </head>
      <body>
        <a class="skip" href="#main">{t("nav.skip")}</a>
        <header class="top">
          <a class="brand" href="/">{t("app.name")}</a>
          <nav class="main" aria-label={t("app.name")}>
            {user
              ? NAV.filter(([, , who]) => navFor(user, who)).map((
                [href, key],
              ) => (
                <a href={href} aria-current={isCurrent(ctx.path, href) ? "page" : undefined}>
                  {t(key)}
                  {/* Always there (hidden at 0) so static/notify.js can keep it live. */}
                  {href === "/notifications"
                    ? (
                      <span
                        class="badge"
                        data-unread={ctx.unread}
                        hidden={ctx.unread === 0}
                        aria-label={t("notifications.unread", { count: ctx.unread })}
                      >
                        {ctx.unread}
                      </span>
                    )
                    : null}
                </a>
              ))
              : null}
          </nav>
          {user
            ? (
              <form class="header-search" method="get" action="/search" role="search">
                <input
                  type="search"
                  name="q"
                  maxlength={MAX_QUERY}
                  placeholder={t("search.everywhere")}
                  aria-label={t("search.everywhere")}
                />
              </form>
            )
            : null}
          {user
            ? (
              <form class="inline" method="post" action="/logout">
                <span class="muted" data-user>{user.displayName}</span>
                <button class="secondary" type="submit">{t("nav.logout")}</button>
              </form>
            )
            : (
              <div class="row">
                <a href="/login">{t("nav.login")}</a>
                <a href="/register">{t("nav.register")}</a>
              </div>
            )}
        </header>
        <main id="main">{props.children}</main>
      </body>
    </html>
  );
}

/** Answers a page with the doctype, the page CSP and `status`. */
export function renderPage(
  c: Context,
  ctx: PageCtx,
  page: { title: string; status?: number; body: Child; head?: Child },
): Response | Promise<Response> {
  c.header("content-security-policy", PAGE_CSP);
  return c.html(
    <>
      {raw("<!DOCTYPE html>")}
      <Layout ctx={ctx} title={page.title} head={page.head}>{page.body}</Layout>
    </>,
    (page.status ?? 200) as 200,
  );
}

/** Answers an HTML fragment (no layout, the page CSP) for a script that re-renders a part. */
export function renderFragment(c: Context, body: Child): Response | Promise<Response> {
  c.header("content-security-policy", PAGE_CSP);
  return c.html(<>{body}</>);
}

/** A form-level error message. */
export function Alert(props: { message: string | null | undefined }) {
  return props.message ? <div class="alert" role="alert">{props.message}</div> : null;
}

/** A field's error message. */
export function FieldError(props: { message: string | undefined }) {
  return props.message ? <span class="field-error">{props.message}</span> : null;
}
