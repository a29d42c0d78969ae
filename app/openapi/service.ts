import { z } from "zod";
import type { Endpoint } from "./endpoint";

const ms = z.number().nullable();

/** The Service screen's figures (decision 0034). */
export const serviceSummaryObject = z.object({
  from: z.string().datetime().describe("Start of the first hour"),
  hours: z.number().int().describe("How many hours the hourly series hold (48)"),
  requests: z
    .array(
      z.object({
        hour: z.string().datetime(),
        total: z.number().int(),
        ok: z.number().int().describe("2xx and 3xx"),
        clientErrors: z.number().int().describe("4xx (499: the client went away)"),
        serverErrors: z.number().int().describe("5xx"),
      }),
    )
    .describe("Requests answered by every server, per hour, oldest first"),
  latency: z
    .array(
      z.object({
        group: z.enum(["api", "pages", "uploads", "files", "other"]),
        requests: z.number().int(),
        p50Ms: ms,
        p99Ms: ms,
      }),
    )
    .describe(
      "Over the last 24 hours; percentiles from latency buckets (5 ms … 5 s), interpolated inside the bucket",
    ),
  queues: z
    .array(
      z.object({
        hour: z.string().datetime(),
        values: z
          .record(z.number().int().nullable())
          .describe(
            'Each gauge (e.g. carebridge_pending_reports{urgency="urgent"}): the hour\'s largest sample, or null',
          ),
      }),
    )
    .describe("Queue sizes per hour, oldest first"),
  turnaround: z
    .array(
      z.object({
        weekStart: z.string().datetime(),
        weekEnd: z.string().datetime(),
        reviewed: z.number().int(),
        medianMs: ms,
        p90Ms: ms.describe("90th percentile (nearest rank), as /admin/turnaround"),
      }),
    )
    .describe(
      "Time from upload to opinion of the opinions given in each of the last 12 weeks (7-day windows ending now), oldest first",
    ),
});

export const SERVICE_ENDPOINTS: Endpoint[] = [
  {
    method: "get",
    path: "/service/summary",
    who: "Admin",
    summary:
      "The Service screen's figures: requests and errors per hour (48 h), p50/p99 per kind of request (24 h), queue sizes per hour (48 h), time to opinion per week (12 weeks)",
    auth: true,
    data: serviceSummaryObject,
    errors: [401, 403],
  },
];
