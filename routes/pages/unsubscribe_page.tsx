/**
 * The unsubscribe link of notification mail (`BASE_URL/unsubscribe/{token}`), without a session:
 * GET shows a page whose button POSTs to the same address; a POST (the button, or a mail
 * client's RFC 8058 one-click request, `List-Unsubscribe=One-Click`) turns the account's
 * notification mail off and answers 200 with a short page. Every token gets the same answers,
 * whether it works or not, so the answer tells nothing about it. The page speaks the language
 * of the `locale` cookie, else of `Accept-Language` (en or ja).
 */
import { type Context, Hono } from "hono";
import type { Services } from "../../domain/services.ts";
import type { AppEnv } from "../api/openapi.ts";
import { preferenceCookies } from "../cookies.ts";
import { translator } from "../i18n/i18n.ts";
import { type PageCtx, pageCtx } from "./context.ts";
import { PostForm } from "./kit/fields.tsx";
import { renderPage } from "./kit/layout.tsx";

/** `ja` when the request prefers Japanese to English, else `en`. */
function acceptedLocale(header: string | undefined): "en" | "ja" {
  let best: { locale: "en" | "ja"; q: number } | null = null;
  for (const part of (header ?? "").split(",")) {
    const [tag, ...params] = part.trim().toLowerCase().split(";");
    const q = Number(params.find((p) => p.trim().startsWith("q="))?.trim().slice(2) ?? 1);
    const locale = tag?.startsWith("ja") ? "ja" : tag?.startsWith("en") ? "en" : null;
    if (locale && Number.isFinite(q) && q > 0 && (best === null || q > best.q)) {
      best = { locale, q };
    }
  }
  return best?.locale ?? "en";
}

/** The page context of a visitor who may have no session: their language from the request. */
export async function visitorCtx(c: Context<AppEnv>, services: Services): Promise<PageCtx> {
  const ctx = await pageCtx(c, services);
  if (ctx.user || preferenceCookies(c).locale) return ctx;
  const locale = acceptedLocale(c.req.header("accept-language"));
  return { ...ctx, locale, t: translator(locale) };
}

/** The unsubscribe page and its one-click POST. */
export function unsubscribePages(services: Services) {
  const app = new Hono<AppEnv>();
  app.get("/unsubscribe/:token", async (c) => {
    const ctx = await visitorCtx(c, services);
    const { t } = ctx;
    return renderPage(c, ctx, {
      title: t("unsubscribe.title"),
      body: (
        <>
          <h1>{t("unsubscribe.title")}</h1>
          <div class="card">
            <p>{t("unsubscribe.intro")}</p>
            <PostForm
              action={`/unsubscribe/${encodeURIComponent(c.req.param("token"))}`}
              submit={t("unsubscribe.button")}
            >
              <input type="hidden" name="List-Unsubscribe" value="One-Click" />
            </PostForm>
          </div>
        </>
      ),
    });
  });
  app.post("/unsubscribe/:token", async (c) => {
    await services.notifier?.unsubscribe(c.req.param("token"));
    const ctx = await visitorCtx(c, services);
    const { t } = ctx;
    return renderPage(c, ctx, {
      title: t("unsubscribe.title"),
      body: (
        <>
          <h1>{t("unsubscribe.title")}</h1>
          <div class="success" role="status">{t("unsubscribe.done")}</div>
        </>
      ),
    });
  });
  return app;
}
