/** The project activity page: a paged list, newest first, with links to what still exists. */
import type { ActivityPage as Entries } from "../../domain/projects/activity.ts";
import { pageRequest } from "../../domain/kernel/paging.ts";
import type { Services } from "../../domain/services.ts";
import { type AreaPage, areaRoutes, nameOf, type ProjectFrame } from "./kit/area.tsx";
import { activityHref, kindLabel, Pager, Table, Time } from "./kit/content.tsx";

function ActivityPage(props: { frame: ProjectFrame; entries: Entries }) {
  const { frame, entries } = props;
  const { t, locale } = frame.ctx;
  // Past the count's cap the total is a lower bound: "10,000+ entries", "10,000 件以上".
  const count = entries.total.toLocaleString(locale);
  const base = `/projects/${frame.project.id}/activity`;
  return (
    <>
      <h1>{t("activity.title")}</h1>
      {entries.items.length === 0 ? <p class="muted">{t("activity.none")}</p> : (
        <p
          class="muted"
          data-activity-total={entries.total}
          data-activity-total-exact={entries.totalIsExact}
        >
          {entries.totalIsExact
            ? t("activity.count", { count })
            : t("activity.countAtLeast", { count })}
        </p>
      )}
      {entries.items.length === 0 ? null : (
        <Table
          wrap="card table-wrap"
          class="activity"
          heads={[t("activity.when"), t("activity.who"), t("activity.what"), t("activity.subject")]}
        >
          {entries.items.map((entry) => {
            const href = activityHref(entry);
            return (
              <tr data-activity={entry.kind}>
                <td class="muted">
                  <Time ctx={frame.ctx} iso={entry.createdAt} relative />
                </td>
                <td>{nameOf(frame, entry.actorId)}</td>
                <td>{kindLabel(t, entry.kind)}</td>
                <td>{href ? <a href={href}>{entry.summary}</a> : entry.summary}</td>
              </tr>
            );
          })}
        </Table>
      )}
      <Pager ctx={frame.ctx} page={entries} path={base} pagesAtLeast={!entries.totalIsExact} />
    </>
  );
}

const entriesPage: AreaPage<Entries> = {
  area: "activity",
  load: (c, { services, ctx, project }) =>
    services.activity.list(ctx.actor!, {
      projectId: project.id,
      page: pageRequest({ page: c.req.query("page"), pageSize: "50" }, { clampPage: true }),
    }),
  title: (_, t) => t("activity.title"),
  view: ({ frame, data }) => <ActivityPage frame={frame} entries={data} />,
};

/** The activity page. */
export function activityPage(services: Services) {
  const area = areaRoutes(services);
  area.page("/projects/:projectId{[0-9]+}/activity", entriesPage);
  return area.app;
}
