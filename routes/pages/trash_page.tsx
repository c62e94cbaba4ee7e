/**
 * A project's trash page: what was deleted, by whom, and when the sweep will purge it, most
 * recently deleted first, with Restore where the caller may restore it. Restore is also where
 * the Undo of a delete posts (see `kit/notices.tsx`), coming back to the page it was on.
 */
import { DomainError } from "../../domain/kernel/errors.ts";
import { type Page, pageRequest } from "../../domain/kernel/paging.ts";
import type { Services } from "../../domain/services.ts";
import { isTrashType, type TrashEntry } from "../../domain/projects/trash.ts";
import { formatDateTime } from "../i18n/format.ts";
import { type AreaPage, areaRoutes, nameOf, paramId, type ProjectFrame } from "./kit/area.tsx";
import { Pager, Table, Time } from "./kit/content.tsx";
import { type Refusal, refusalOf, type RefusalWords } from "./kit/errors.tsx";
import { ButtonForm } from "./kit/fields.tsx";
import { Alert } from "./kit/layout.tsx";
import { afterRestore, restoreBack, restorePath } from "./kit/notices.tsx";

/** The words of the trash's refusals. */
const WORDS: RefusalWords = {
  codes: {
    not_found: "trash.notInTrash",
    forbidden: "trash.mayNotRestore",
    conflict: "trash.threadDeleted",
  },
};

/** A page of the trash, or why the caller may not see it (a viewer). */
type TrashData =
  | { entries: Page<TrashEntry & { mayRestore: boolean }>; refusal?: undefined }
  | { refusal: Refusal; entries?: undefined };

function TrashRow(props: { frame: ProjectFrame; entry: TrashEntry & { mayRestore: boolean } }) {
  const { frame, entry } = props;
  const { t, locale } = frame.ctx;
  const ref = `${entry.type}-${entry.id}`;
  return (
    <tr data-trash={ref}>
      <td>{t(`trash.kind.${entry.type}` as const)}</td>
      <td>{entry.title}</td>
      <td>{entry.deletedBy === null ? "" : nameOf(frame, entry.deletedBy)}</td>
      <td class="muted">
        <Time ctx={frame.ctx} iso={entry.deletedAt} />
      </td>
      <td class="muted">
        <time datetime={entry.purgeAt}>
          {formatDateTime(entry.purgeAt, locale, frame.ctx.timeZone)}
        </time>
      </td>
      <td>
        {entry.mayRestore
          ? (
            <ButtonForm
              class="inline"
              action={restorePath(frame.project.id, entry)}
              label={t("trash.restore")}
              button="secondary"
              attrs={{ "data-restore": ref }}
            />
          )
          : null}
      </td>
    </tr>
  );
}

const trashPage: AreaPage<TrashData> = {
  area: "trash",
  load: async (c, { services, ctx, project }) => {
    const page = pageRequest({ page: c.req.query("page"), pageSize: "50" }, { clampPage: true });
    try {
      // Awaited inside the try, so that a refusal is caught here.
      return { entries: await services.trash.listWithRights(ctx.actor!, project.id, page) };
    } catch (error) {
      // A viewer is told why, on the page, as the API answers 403.
      if (error instanceof DomainError && error.code === "forbidden") {
        return {
          refusal: refusalOf(error, ctx.t, { codes: { forbidden: "trash.viewersCannot" } }),
        };
      }
      throw error;
    }
  },
  title: (_, t) => t("trash.title"),
  status: (data) => data.refusal?.status,
  view: ({ frame, data, shown }) => {
    const { t } = frame.ctx;
    const base = `/projects/${frame.project.id}/trash`;
    if (data.refusal) {
      return (
        <>
          <h1>{t("trash.title")}</h1>
          <Alert message={data.refusal.message} />
        </>
      );
    }
    const { entries } = data;
    return (
      <>
        <h1>{t("trash.title")}</h1>
        <Alert message={shown.message} />
        <p class="muted">{t("trash.intro")}</p>
        {entries.items.length === 0 ? <p class="muted">{t("trash.none")}</p> : (
          <Table
            wrap="card table-wrap"
            class="trash"
            heads={[
              t("trash.type"),
              t("trash.itemTitle"),
              t("trash.deletedBy"),
              t("trash.deletedAt"),
              t("trash.purgeAt"),
              { hidden: t("content.actions") },
            ]}
          >
            {entries.items.map((entry) => (
              <TrashRow key={`${entry.type}-${entry.id}`} frame={frame} entry={entry} />
            ))}
          </Table>
        )}
        <Pager ctx={frame.ctx} page={entries} path={base} />
      </>
    );
  },
};

/** The trash page and its restore form (also the Undo after a delete). */
export function trashPages(services: Services) {
  const area = areaRoutes(services);
  const P = "/projects/:projectId{[0-9]+}/trash";
  area.page(P, trashPage);
  area.form(`${P}/:type{[a-z]+}/:id{[0-9]+}/restore`, trashPage, {
    form: "restore",
    ...WORDS,
    change: async ({ c, actor, projectId, fields }) => {
      const type = c.req.param("type") ?? "";
      if (!isTrashType(type)) throw new DomainError("not_found", "No such kind of trash item");
      const restored = await services.trash.restore(actor, projectId, {
        type,
        id: paramId(c, "id"),
      });
      return afterRestore(restoreBack(projectId, fields.back), restored);
    },
  });
  return area.app;
}
