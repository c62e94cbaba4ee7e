/**
 * The notifications page: unread notifications, newest first, each markable as read, and
 * all of them at once.
 */
import { Hono } from "hono";
import type { Notification } from "../../domain/projects/notifications.ts";
import { pageRequest } from "../../domain/kernel/paging.ts";
import type { Services } from "../../domain/services.ts";
import type { AppEnv } from "../api/openapi.ts";
import type { MessageKey } from "../i18n/en.ts";
import { type PageCtx, pageCtx } from "./context.ts";
import { subjectHref, Time } from "./kit/content.tsx";
import { renderPage } from "./kit/layout.tsx";

/**
 * The page of what a notification is about (its project's page when it has none): a comment
 * opens its board, a message its place in the chat, files, events and milestones their list.
 */
export function link(n: Notification): string {
  if (!n.projectId) return "/";
  const p = `/projects/${n.projectId}`;
  const lists: Record<string, string> = {
    comment: "board",
    message: `chat#message-${n.subjectId}`,
    file: "files",
    event: "calendar",
    milestone: "milestones",
  };
  const list = lists[n.subjectType];
  return list ? `${p}/${list}` : subjectHref(n.projectId, n.subjectType, n.subjectId) ?? p;
}

function NotificationsPage(props: { ctx: PageCtx; items: Notification[]; total: number }) {
  const { t } = props.ctx;
  return (
    <>
      <h1>{t("notifications.title")}</h1>
      <div class="row">
        <p class="muted">{t("notifications.unread", { count: props.total })}</p>
        {props.total > 0
          ? (
            <form class="inline" method="post" action="/notifications/read-all">
              <button type="submit" data-mark-all-read>{t("notifications.markAllRead")}</button>
            </form>
          )
          : null}
      </div>
      {props.items.length === 0
        ? <p class="muted">{t("notifications.none")}</p>
        : (
          <ul class="plain card notifications">
            {props.items.map((n) => (
              <li class="row" data-notification={n.kind}>
                <a href={link(n)}>{t(`kind.${n.kind}` as MessageKey)}</a>
                <span>{n.text}</span>
                <span class="muted">
                  <Time ctx={props.ctx} iso={n.createdAt} relative />
                </span>
                <span class="spacer"></span>
                <form class="inline" method="post" action={`/notifications/${n.id}/read`}>
                  <button class="secondary" type="submit">{t("notifications.markRead")}</button>
                </form>
              </li>
            ))}
          </ul>
        )}
    </>
  );
}

/** The notification pages. */
export function notificationPages(services: Services) {
  const app = new Hono<AppEnv>();
  app.get("/notifications", async (c) => {
    const ctx = await pageCtx(c, services);
    const page = await services.notifications.listUnread(
      ctx.actor!,
      pageRequest({ page: c.req.query("page"), pageSize: "50" }, { clampPage: true }),
    );
    return renderPage(c, ctx, {
      title: ctx.t("notifications.title"),
      body: <NotificationsPage ctx={ctx} items={page.items} total={page.total} />,
    });
  });
  app.post("/notifications/read-all", async (c) => {
    await services.notifications.markAllRead((await pageCtx(c, services)).actor!);
    return c.redirect("/notifications", 303);
  });
  app.post("/notifications/:id{[0-9]+}/read", async (c) => {
    const ctx = await pageCtx(c, services);
    try {
      await services.notifications.markRead(ctx.actor!, Number(c.req.param("id")));
    } catch {
      // Someone else's or unknown: nothing to mark; show the list again.
    }
    return c.redirect("/notifications", 303);
  });
  return app;
}
