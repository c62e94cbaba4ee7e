/**
 * The unsubscribe link of notification mail (`BASE_URL/unsubscribe/{token}`), without a session:
 * GET shows a page whose button POSTs to the same address; a POST (the button, or a mail
 * client's RFC 8058 one-click request, `List-Unsubscribe=One-Click`) turns the account's
 * notification mail off and answers 200 with a short page. Every token gets the same answers,
 * whether it works or not, so the answer tells nothing about it. The page speaks the language
 * of the `locale` cookie, else of `Accept-Language` (en or ja).
 */
import { Hono } from "hono";
import type { Services } from "../../domain/services.ts";
import type { AppEnv } from "../api/openapi.ts";
import { visitorCtx } from "./context.ts";
import { PostForm } from "./kit/fields.tsx";
import { renderPage } from "./kit/layout.tsx";

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
