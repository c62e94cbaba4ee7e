/** Paging: `?page=N&pageSize=N` read leniently, and the page object. */

/** A requested page. */
export interface PageRequest {
  page: number;
  pageSize: number;
}

/** A page of results. */
export interface Page<T> {
  items: T[];
  page: number;
  pageSize: number;
  total: number;
  hasMore: boolean;
}

/** The default and largest page sizes. */
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

function positive(raw: string | undefined | null): number | null {
  if (raw === undefined || raw === null || !/^\s*\d+\s*$/.test(raw)) return null;
  const n = Number(raw);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

/** Reads page and pageSize: a non-numeric, zero or negative value falls back; size ≤ 100. */
export function pageRequest(
  query: { page?: string | null | undefined; pageSize?: string | null | undefined },
): PageRequest {
  const page = Math.min(positive(query.page) ?? 1, 1_000_000);
  const pageSize = Math.min(positive(query.pageSize) ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  return { page, pageSize };
}

/** The row offset of a page. */
export function offsetOf(request: PageRequest): number {
  return (request.page - 1) * request.pageSize;
}

/** Builds the page object. */
export function pageOf<T>(items: T[], total: number, request: PageRequest): Page<T> {
  return {
    items,
    page: request.page,
    pageSize: request.pageSize,
    total,
    hasMore: offsetOf(request) + items.length < total,
  };
}
