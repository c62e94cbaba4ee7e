/** Pages answered when the server, not the visitor, cannot do what was asked. */
import type { Context } from "hono";
import type { PageCtx } from "./context.ts";
import { renderPage } from "./layout.tsx";

/** The page answered (507) when a change failed because the server's disk is full. */
export function storageFullPage(c: Context, ctx: PageCtx) {
  return renderPage(c, ctx, {
    title: ctx.t("error.storageFullTitle"),
    status: 507,
    body: (
      <div class="card narrow">
        <h1>{ctx.t("error.storageFullTitle")}</h1>
        <div class="alert" role="alert">{ctx.t("error.storageFull")}</div>
        <p>
          <a href="/">{ctx.t("common.back")}</a>
        </p>
      </div>
    ),
  });
}
