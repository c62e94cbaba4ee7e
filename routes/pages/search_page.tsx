/**
 * The project search page: a GET form (words and a type filter over the eight searchable
 * types), the matches newest first with their type, a link to the item and the highlighted
 * snippet, and paging. The snippet is the only text inserted unescaped: the domain escapes
 * it and adds nothing but `<mark>`. A blank query shows the form alone; an unknown type or
 * an over-long query shows a message.
 */
import { raw } from "hono/html";
import { SEARCH_TYPES, type SearchHit, type SearchPage } from "../../domain/content/search.ts";
import type { Services } from "../../domain/services.ts";
import type { Translate } from "../i18n/i18n.ts";
import { areaRoutes, type ProjectFrame, renderArea } from "./kit/area.tsx";
import { Pager, Time } from "./kit/content.tsx";
import { Alert } from "./kit/layout.tsx";
import { hitHref, readSearch, SearchCount, SearchForm } from "./kit/search.tsx";

type SearchType = (typeof SEARCH_TYPES)[number];

function typeLabel(t: Translate, type: string): string {
  return (SEARCH_TYPES as readonly string[]).includes(type)
    ? t(`search.type.${type as SearchType}`)
    : type;
}

/** Links that re-run the query over one type (or all). */
function TypeFilters(props: { frame: ProjectFrame; q: string; type: string }) {
  const { frame, q, type } = props;
  const { t } = frame.ctx;
  const href = (ty: string) => {
    const params = new URLSearchParams({ q });
    if (ty) params.set("type", ty);
    return `/projects/${frame.project.id}/search?${params}`;
  };
  return (
    <nav class="filters row" aria-label={t("search.typeLabel")}>
      {["", ...SEARCH_TYPES].map((ty) => (
        <a href={href(ty)} aria-current={ty === type ? "page" : undefined} data-search-filter={ty}>
          {ty === "" ? t("search.type.all") : t(`search.type.${ty as SearchType}`)}
        </a>
      ))}
    </nav>
  );
}

function Results(
  props: { frame: ProjectFrame; page: SearchPage<SearchHit>; q: string; type: string },
) {
  const { frame, page, q, type } = props;
  const { t } = frame.ctx;
  if (page.items.length === 0) {
    return <p class="muted" data-search-empty>{t("search.none", { q })}</p>;
  }
  return (
    <>
      <SearchCount t={t} locale={frame.ctx.locale} page={page} />
      <ol class="plain search-results">
        {page.items.map((hit) => (
          <li class="card search-hit" data-hit={`${hit.type}-${hit.id}`}>
            <div class="row">
              <span class="tag" data-hit-type={hit.type}>{typeLabel(t, hit.type)}</span>
              <a class="hit-title" href={hitHref(frame.project.id, hit)}>
                {hit.title || t("search.untitled")}
              </a>
              <span class="spacer"></span>
              <Time ctx={frame.ctx} iso={hit.createdAt} />
            </div>
            {/* Escaped by the domain, with only <mark> added: the one raw insertion. */}
            <p class="snippet">{raw(hit.snippet)}</p>
          </li>
        ))}
      </ol>
      <Pager
        ctx={frame.ctx}
        page={page}
        path={`/projects/${frame.project.id}/search`}
        pagesAtLeast={!page.totalIsExact}
        query={{ q, type: type === "" ? null : type }}
      />
    </>
  );
}

/** The search page. */
export function searchPage(services: Services) {
  const area = areaRoutes(services);
  area.app.get("/projects/:projectId{[0-9]+}/search", (c) =>
    area.run(c, async (frame) => {
      const { t } = frame.ctx;
      const { q, type, shownType, page, message } = await readSearch(
        c,
        t,
        (input) =>
          services.search.project(frame.ctx.actor!, { projectId: frame.project.id, ...input }),
      );
      return renderArea(c, frame, {
        area: "search",
        title: q.trim() ? t("search.titleFor", { q: q.trim() }) : t("search.title"),
        status: message ? 400 : 200,
        body: (
          <>
            <h1>{t("search.title")}</h1>
            <SearchForm
              t={t}
              action={`/projects/${frame.project.id}/search`}
              q={q}
              type={shownType}
              autofocus
            />
            <Alert message={message} />
            {page
              ? (
                <>
                  <TypeFilters frame={frame} q={q} type={type} />
                  <Results frame={frame} page={page} q={q} type={type} />
                </>
              )
              : message === null
              ? <p class="muted">{t("search.hint")}</p>
              : null}
          </>
        ),
      });
    }));
  return area.app;
}
