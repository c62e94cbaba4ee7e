/**
 * Search across every project of the caller (the header's search box): the project search's
 * rules and form, each match labelled with its project. The snippet is the only text
 * inserted unescaped: the domain escapes it and adds nothing but `<mark>`.
 */
import { Hono } from "hono";
import { raw } from "hono/html";
import { DomainError } from "../../domain/errors.ts";
import { type Page, pageRequest } from "../../domain/paging.ts";
import { MAX_QUERY, type ProjectSearchHit, SEARCH_TYPES } from "../../domain/search.ts";
import type { Services } from "../../domain/services.ts";
import type { AppEnv } from "../api/openapi.ts";
import { type PageCtx, pageCtx } from "./context.ts";
import { Pager, subjectHref, Time } from "./kit/content.tsx";
import { Select } from "./kit/fields.tsx";
import { Alert, renderPage } from "./kit/layout.tsx";

type SearchType = (typeof SEARCH_TYPES)[number];

/** Where a hit is shown: chat hits open the chat, milestone hits the milestones page. */
function hitHref(hit: ProjectSearchHit): string {
  const base = `/projects/${hit.projectId}`;
  if (hit.type === "chat") return `${base}/chat`;
  if (hit.type === "milestone") return `${base}/milestones`;
  return subjectHref(hit.projectId, hit.type, hit.id) ?? base;
}

function Results(props: { ctx: PageCtx; page: Page<ProjectSearchHit>; q: string; type: string }) {
  const { ctx, page, q, type } = props;
  const { t } = ctx;
  if (page.items.length === 0) {
    return <p class="muted" data-search-empty>{t("search.none", { q })}</p>;
  }
  return (
    <>
      <p class="muted" data-search-total={page.total}>{t("search.count", { count: page.total })}</p>
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
              <a class="hit-title" href={hitHref(hit)}>{hit.title || t("search.untitled")}</a>
              <span class="spacer"></span>
              <Time ctx={ctx} iso={hit.createdAt} />
            </div>
            {/* Escaped by the domain, with only <mark> added: the one raw insertion. */}
            <p class="snippet">{raw(hit.snippet)}</p>
          </li>
        ))}
      </ol>
      <Pager ctx={ctx} page={page} path="/search" query={{ q, type: type === "" ? null : type }} />
    </>
  );
}

/** The search page across projects. */
export function searchEverywherePage(services: Services) {
  const app = new Hono<AppEnv>();
  app.get("/search", (c) => {
    const ctx = pageCtx(c, services);
    const { t } = ctx;
    const q = c.req.query("q") ?? "";
    const type = c.req.query("type") ?? "";
    let message: string | null = null;
    let page: Page<ProjectSearchHit> | null = null;
    // A blank query shows the form alone; the domain judges any other.
    if (q.trim() !== "") {
      try {
        page = services.search.everywhere(ctx.actor!, {
          q,
          type: type === "" ? null : type,
          page: pageRequest({ page: c.req.query("page"), pageSize: "20" }, { clampPage: true }),
        });
      } catch (error) {
        if (!(error instanceof DomainError) || error.code !== "validation") throw error;
        message = error.details?.type
          ? t("search.badType")
          : error.details?.q
          ? t("content.tooLong", { max: MAX_QUERY })
          : t("form.invalid");
      }
    }
    const known = (SEARCH_TYPES as readonly string[]).includes(type);
    return renderPage(c, ctx, {
      title: q.trim() ? t("search.titleFor", { q: q.trim() }) : t("search.everywhere"),
      status: message ? 400 : 200,
      body: (
        <>
          <h1>{t("search.everywhere")}</h1>
          <form class="search-form row card" method="get" action="/search" role="search">
            <label class="search-q">
              {t("search.query")}
              <input type="search" name="q" value={q} maxlength={MAX_QUERY} />
            </label>
            <label class="search-type">
              {t("search.typeLabel")}
              <Select
                name="type"
                value={known ? type : ""}
                options={[
                  ["", t("search.type.all")],
                  ...SEARCH_TYPES.map((ty) => [ty, t(`search.type.${ty}`)] as const),
                ]}
              />
            </label>
            <button type="submit">{t("search.submit")}</button>
          </form>
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
