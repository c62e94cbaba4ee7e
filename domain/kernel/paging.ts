/** Paging: `?page=N&pageSize=N` read leniently, and the page object. */
import { invalid } from "./errors.ts";

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

/**
 * A whole number written in decimal digits (white space around allowed): its value, `Infinity`
 * when it is beyond the safe integer range, or null when it is not such a number (empty, signed,
 * fractional, text).
 */
export function wholeNumber(raw: string | undefined | null): number | null {
  if (raw === undefined || raw === null || !/^\s*\d+\s*$/.test(raw)) return null;
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : Infinity;
}

/**
 * Reads page and pageSize: a non-numeric, zero or negative value falls back (page 1, size 20);
 * a size above 100, however large, is 100. A page number beyond the safe integer range cannot
 * be honoured: it throws `validation` naming `page` (pages pass `clampPage` and get an empty
 * page instead).
 */
export function pageRequest(
  query: { page?: string | null | undefined; pageSize?: string | null | undefined },
  options: { clampPage?: boolean } = {},
): PageRequest {
  const page = wholeNumber(query.page);
  if (page === Infinity && !options.clampPage) {
    throw invalid("page", `Use a page number from 1 to ${Number.MAX_SAFE_INTEGER}`);
  }
  const size = wholeNumber(query.pageSize);
  return {
    page: page === null || page < 1 ? 1 : Math.min(page, Number.MAX_SAFE_INTEGER),
    pageSize: size === null || size < 1 ? DEFAULT_PAGE_SIZE : Math.min(size, MAX_PAGE_SIZE),
  };
}

/** The row offset of a page (past any table's end for the largest page numbers). */
export function offsetOf(request: PageRequest): number {
  return Math.min((request.page - 1) * request.pageSize, Number.MAX_SAFE_INTEGER);
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
