/**
 * Search across every project of the caller (the header's search box): the project search's
 * rules and form, each match labelled with its project. The snippet is the only text
 * inserted unescaped: the domain escapes it and adds nothing but `<mark>`.
 */
import { Hono } from "hono";
import { raw } from "hono/html";
import type { ProjectSearchHit, SEARCH_TYPES, SearchPage } from "../../domain/content/search.ts";
import type { Services } from "../../domain/services.ts";
import type { AppEnv } from "../api/openapi.ts";
import { type PageCtx, pageCtx } from "./context.ts";
import { Pager, Time } from "./kit/content.tsx";
import { Alert, renderPage } from "./kit/layout.tsx";
import { hitHref, readSearch, SearchCount, SearchForm } from "./kit/search.tsx";

type SearchType = (typeof SEARCH_TYPES)[number];

function Results(
  props: { ctx: PageCtx; page: SearchPage<ProjectSearchHit>; q: string; type: string },
) {
  const { ctx, page, q, type } = props;
  const { t } = ctx;
  if (page.items.length === 0) {
    return <p class="muted" data-search-empty>{t("search.none", { q })}</p>;
  }
  return (
    <>
      <SearchCount t={t} locale={ctx.locale} page={page} />
      <ol class="plain search-results">
        {page.items.map((hit) => (
          <li class="card search-hit" data-hit={`${hit.type}-${hit.id}`}>
            <div class="row">
              <a class="tag" href={`/projects/${hit.projectId}`} data-hit-project={hit.projectId}>
                {hit.projectName}
              </a>
              <span class="tag" data-hit-type={hit.type}>
                {t(`search.type.${hit.type as SearchType}`)}
              </span>
              <a class="hit-title" href={hitHref(hit.projectId, hit)}>
                {hit.title || t("search.untitled")}
              </a>
              <span class="spacer"></span>
              <Time ctx={ctx} iso={hit.createdAt} />
            </div>
            {/* Escaped by the domain, with only <mark> added: the one raw insertion. */}
            <p class="snippet">{raw(hit.snippet)}</p>
          </li>
        ))}
      </ol>
      <Pager
        ctx={ctx}
        page={page}
        path="/search"
        query={{ q, type: type === "" ? null : type }}
        pagesAtLeast={!page.totalIsExact}
      />
    </>
  );
}

/** The search page across projects. */
export function searchEverywherePage(services: Services) {
  const app = new Hono<AppEnv>();
  app.get("/search", async (c) => {
    const ctx = await pageCtx(c, services);
    const { t } = ctx;
    const { q, type, shownType, page, message } = await readSearch(
      c,
      t,
      (input) => services.search.everywhere(ctx.actor!, input),
    );
    return renderPage(c, ctx, {
      title: q.trim() ? t("search.titleFor", { q: q.trim() }) : t("search.everywhere"),
      status: message ? 400 : 200,
      body: (
        <>
          <h1>{t("search.everywhere")}</h1>
          <SearchForm t={t} action="/search" q={q} type={shownType} />
          <Alert message={message} />
          {page
            ? <Results ctx={ctx} page={page} q={q} type={type} />
            : message === null
            ? <p class="muted">{t("search.everywhereHint")}</p>
            : null}
        </>
      ),
    });
  });
  return app;
}
