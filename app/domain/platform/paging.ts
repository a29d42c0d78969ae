/**
 * Lists come in pages. The domain takes a page request and answers a page; the adapters read the
 * request from a query string (`pageQuery()` in utils/api.server.ts) and write the page's links.
 */
export type PageQuery = {
  page: number;
  pageSize: number;
  /**
   * Keyset pagination: the `nextCursor` of the previous page. With it the page starts right after
   * that row in the list's order (the same index, no OFFSET); `page` is then ignored.
   */
  cursor?: string | null;
};

/** One page of a list, with the total across all pages. */
export type Paged<T> = {
  items: T[];
  total: number;
  page: number;
  pageSize: number;
  /** The list was counted only up to a cap: it holds more than `total` rows (a search, a filter). */
  totalIsLowerBound?: boolean;
  /** Where the next page starts (pass as `cursor`), or null after the last row. */
  nextCursor?: string | null;
};
