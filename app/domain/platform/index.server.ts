/**
 * Platform: what every context leans on.
 *
 * - errors: `DomainError`, the one typed error every domain function throws (safe in the browser).
 * - client, paging: who is asking (a plain value) and pages of lists (safe in the browser).
 * - ratelimit, budgets: rate limits and SMS budgets counted in the database.
 * - audit: the audit trail and who opened which file or link.
 * - startup: migrations, the admin account and the background jobs at start, and their shutdown.
 * - gauges: the product's own figures for /metrics and the Service screen (pending, overdue, queues).
 * - service: the Service screen's request rollups and queue samples (decision 0034).
 */
export * from "./errors";
export * from "./client";
export * from "./paging";
export * from "./ratelimit.server";
export * from "./budgets";
export * from "./audit.server";
export * from "./startup.server";
export * from "./gauges.server";
export {
  requestDone,
  serviceSummary,
  apiServiceSummary,
  routeGroup,
  ROUTE_GROUPS,
  QUEUE_SERIES,
  type ServiceSummary,
  type RouteGroup,
} from "./service.server";
