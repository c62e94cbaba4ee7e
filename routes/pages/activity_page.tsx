/** The project activity page: a paged list, newest first, with links to what still exists. */
import { Hono } from "hono";
import type { Activity } from "../../domain/activity.ts";
import { type Page, pageRequest } from "../../domain/paging.ts";
import type { Services } from "../../domain/services.ts";
import type { AppEnv } from "../api/openapi.ts";
import { en, type MessageKey } from "../i18n/en.ts";
import type { Translate } from "../i18n/i18n.ts";
import { notFound } from "./project_pages.tsx";
import { frameRunner, nameOf, Pager, type ProjectFrame, renderArea, Time } from "./project_nav.tsx";

/** The translated kind; a kind added later without its string shows as it is. */
function kindLabel(t: Translate, kind: string): string {
  const key = `activity.kind.${kind}`;
  return key in en ? t(key as MessageKey) : kind;
}

/** Where an entry's subject is shown, when it has a page of its own. */
function subjectHref(projectId: number, entry: Activity): string | null {
  switch (entry.subjectType) {
    case "thread":
      return `/projects/${projectId}/board/${entry.subjectId}`;
    case "note":
      return `/projects/${projectId}/notes/${entry.subjectId}`;
    case "file":
      return `/api/files/${entry.subjectId}/download`;
    default:
      return null;
  }
}

function ActivityPage(props: { frame: ProjectFrame; entries: Page<Activity> }) {
  const { frame, entries } = props;
  const { t } = frame.ctx;
  const base = `/projects/${frame.project.id}/activity`;
  return (
    <>
      <h1>{t("activity.title")}</h1>
      {entries.items.length === 0
        ? <p class="muted">{t("activity.none")}</p>
        : (
          <div class="card table-wrap">
            <table class="activity">
              <thead>
                <tr>
                  <th>{t("activity.when")}</th>
                  <th>{t("activity.who")}</th>
                  <th>{t("activity.what")}</th>
                  <th>{t("activity.subject")}</th>
                </tr>
              </thead>
              <tbody>
                {entries.items.map((entry) => {
                  const href = subjectHref(frame.project.id, entry);
                  return (
                    <tr data-activity={entry.kind}>
                      <td class="muted">
                        <Time ctx={frame.ctx} iso={entry.createdAt} />
                      </td>
                      <td>{nameOf(frame, entry.actorId)}</td>
                      <td>{kindLabel(t, entry.kind)}</td>
                      <td>{href ? <a href={href}>{entry.summary}</a> : entry.summary}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      <Pager ctx={frame.ctx} page={entries} path={base} />
    </>
  );
}

/** The activity page. */
export function activityPage(services: Services) {
  const app = new Hono<AppEnv>();
  const run = frameRunner(services, { notFound });
  app.get("/projects/:projectId{[0-9]+}/activity", (c) =>
    run(c, (frame) => {
      const entries = services.activity.list(frame.ctx.actor!, {
        projectId: frame.project.id,
        page: pageRequest({ page: c.req.query("page"), pageSize: "50" }, { clampPage: true }),
      });
      return renderArea(c, frame, {
        area: "activity",
        title: frame.ctx.t("activity.title"),
        body: <ActivityPage frame={frame} entries={entries} />,
      });
    }));
  return app;
}
