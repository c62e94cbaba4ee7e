/**
 * A part of a page that follows the project stream (`static/live.js`): on an event of the
 * named groups it re-renders from the page itself, or, while the person has something typed
 * or an edit form open in it, shows a quiet "updated — show" notice instead.
 */
import type { Child } from "hono/jsx";
import { EVENT_GROUPS, type EventGroup } from "../../../domain/projects/event_names.ts";
import type { AreaPage, ProjectFrame } from "./area.tsx";

/** The event names of `groups`, as the pages' scripts take them (space-separated). */
export function liveEvents(groups: readonly EventGroup[]): string {
  return [...groups.flatMap((g) => EVENT_GROUPS[g]), "item.restored"].join(" ");
}

/** Wraps `children` in a live region following `groups` (restores always count). */
export function Live(props: { frame: ProjectFrame; groups: EventGroup[]; children: Child }) {
  const { t } = props.frame.ctx;
  return (
    <>
      <div
        data-live-region
        data-project={props.frame.project.id}
        data-live-events={liveEvents(props.groups)}
      >
        <p class="notice live-notice" role="status" data-live-notice hidden>
          {t("live.updated")}{" "}
          <button type="button" class="secondary" data-live-show>{t("live.show")}</button>
        </p>
        {props.children}
      </div>
      <script type="module" src="/static/live.js"></script>
    </>
  );
}

/** `page` with its view in a live region following `groups`. */
export function live<D>(page: AreaPage<D>, groups: EventGroup[]): AreaPage<D> {
  return {
    ...page,
    view: (props) => <Live frame={props.frame} groups={groups}>{page.view(props)}</Live>,
  };
}
