/**
 * Lists come in pages. The domain takes a page request and answers a page; the adapters read the
 * request from a query string (`pageQuery()` in utils/api.server.ts) and write the page's links.
 */
export type PageQuery = { page: number; pageSize: number };

/** One page of a list, with the total across all pages. */
export type Paged<T> = {
  items: T[];
  total: number;
  page: number;
  pageSize: number;
  /** The list was counted only up to a cap: it holds more than `total` rows (a search, a filter). */
  totalIsLowerBound?: boolean;
};
