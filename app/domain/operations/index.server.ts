/**
 * Operations: running the service, above every other context (nothing in the domain depends on it).
 *
 * - startup: the start-up and shutdown of a serving process (migrations, the admin account, the
 *   SMS and PACS senders, the scheduled jobs of every context).
 * - gauges: the product's gauges for /metrics (queue sizes, the mail queue, list counts).
 * - disk-warning: the admin's warning of a disk running out of space.
 * - service: the Service screen's figures (request rollups, latency, queues, turnaround).
 */
export { shutdown, startup } from "./startup.server";
export { productGauges, type Gauge } from "./gauges.server";
export { diskWarning, type DiskWarning } from "./disk-warning.server";
export {
  apiServiceSummary,
  QUEUE_SERIES,
  requestDone,
  ROUTE_GROUPS,
  routeGroup,
  serviceSummary,
  type RouteGroup,
  type ServiceSummary,
} from "./service.server";
