/**
 * What the project search and the search across projects share: reading `q`, `type` and
 * `page` from the address, asking the domain, saying its refusal, and the form.
 */
import type { Context } from "hono";
import { DomainError } from "../../../domain/kernel/errors.ts";
import { type PageRequest, pageRequest } from "../../../domain/kernel/paging.ts";
import { MAX_QUERY, SEARCH_TYPES, type SearchPage } from "../../../domain/content/search.ts";
import type { Translate } from "../../i18n/i18n.ts";
import { subjectHref } from "./content.tsx";
import { Select } from "./fields.tsx";

/** A search as the page shows it: the query, the type (`""` for all), the answer or refusal. */
export interface SearchState<T> {
  q: string;
  type: string;
  /** The type the form shows: `""` when the address named no known type. */
  shownType: string;
  page: SearchPage<T> | null;
  message: string | null;
}

/**
 * Runs the search the address asks for. A blank query runs nothing (the form alone); the
 * domain judges any other, and a refusal becomes the page's message.
 */
export async function readSearch<T>(
  c: Context,
  t: Translate,
  search: (input: { q: string; type: string | null; page: PageRequest }) => Promise<SearchPage<T>>,
): Promise<SearchState<T>> {
  const q = c.req.query("q") ?? "";
  const type = c.req.query("type") ?? "";
  let message: string | null = null;
  let page: SearchPage<T> | null = null;
  if (q.trim() !== "") {
    try {
      page = await search({
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
  return { q, type, shownType: known ? type : "", page, message };
}

/**
 * How many matches: the number, or past the count's cap (`totalIsExact` false) the cap and
 * "+" ("10,000+", "10,000 件以上").
 */
export function SearchCount(
  props: { t: Translate; locale: string; page: SearchPage<unknown> },
) {
  const { t, page } = props;
  const count = page.total.toLocaleString(props.locale);
  return (
    <p class="muted" data-search-total={page.total} data-search-total-exact={page.totalIsExact}>
      {page.totalIsExact ? t("search.count", { count }) : t("search.countAtLeast", { count })}
    </p>
  );
}

/** The search form: the query, the type, and the button; sent to `action` by GET. */
export function SearchForm(
  props: { t: Translate; action: string; q: string; type: string; autofocus?: boolean },
) {
  const { t, q } = props;
  return (
    <form class="search-form row card" method="get" action={props.action} role="search">
      <label class="search-q">
        {t("search.query")}
        <input
          type="search"
          name="q"
          value={q}
          maxlength={MAX_QUERY}
          autofocus={props.autofocus === true && q === ""}
        />
      </label>
      <label class="search-type">
        {t("search.typeLabel")}
        <Select
          name="type"
          value={props.type}
          options={[
            ["", t("search.type.all")],
            ...SEARCH_TYPES.map((ty) => [ty, t(`search.type.${ty}`)] as const),
          ]}
        />
      </label>
      <button type="submit">{t("search.submit")}</button>
    </form>
  );
}

/** Where a hit is shown: chat hits open the chat, milestone hits the milestones page. */
export function hitHref(projectId: number, hit: { type: string; id: number }): string {
  const base = `/projects/${projectId}`;
  if (hit.type === "chat") return `${base}/chat`;
  if (hit.type === "milestone") return `${base}/milestones`;
  return subjectHref(projectId, hit.type, hit.id) ?? base;
}
