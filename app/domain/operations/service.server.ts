import { and, gte, lt, sql, type SQLWrapper } from "drizzle-orm";
import { db } from "~/db/client.server";
import { reports, serviceGaugeMinutes, serviceRequestMinutes } from "~/db/schema";
import { log } from "~/lib/log.server";
import { opinionTimes } from "../consultation/index.server";
import type { Actor } from "../platform/index.server";
import { defineSchedule, DomainError } from "../platform/index.server";
import { config } from "~/config.server";
import { productGauges } from "./gauges.server";

/**
 * The Service screen's data (decision 0034): per-minute request rollups and gauge samples in the
 * database, shared by every process and node, read back per hour.
 *
 * Requests: each serving process counts the requests it answered in memory, per (minute, route
 * group, status class), with a fixed latency histogram — a Map lookup and a few increments per
 * request, no I/O on the request path — and every SERVICE_ROLLUP_FLUSH_MS (and at shutdown) adds
 * what it counted to the table with one upsert per row that adds to the stored counts, so several
 * workers and nodes sum up. Percentiles come from the summed bucket counts.
 *
 * Gauges: once a minute one process of the whole deployment samples the queue sizes; the first to
 * insert the minute's `sampler` row does it (a unique key, insert-or-ignore), the others skip.
 */

const MINUTE = 60_000;
const HOUR = 3_600_000;
const WEEK = 7 * 24 * HOUR;
/** Rollups and samples are kept this long (the screen shows 48 hours). */
export const SERVICE_RETENTION_MS = 8 * 24 * HOUR;

/** Upper bounds of the latency buckets in ms; the last bucket is everything slower. */
export const LATENCY_BOUNDS = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000] as const;
const BUCKET_KEYS = [
  "le5",
  "le10",
  "le25",
  "le50",
  "le100",
  "le250",
  "le500",
  "le1000",
  "le2500",
  "le5000",
  "leInf",
] as const;
const BUCKET_COLUMNS = [
  "le_5",
  "le_10",
  "le_25",
  "le_50",
  "le_100",
  "le_250",
  "le_500",
  "le_1000",
  "le_2500",
  "le_5000",
  "le_inf",
] as const;

export const ROUTE_GROUPS = ["api", "pages", "uploads", "files", "other"] as const;
export type RouteGroup = (typeof ROUTE_GROUPS)[number];
export const STATUS_CLASSES = ["2xx", "3xx", "4xx", "5xx"] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];

const UPLOADS = /^\/(?:api\/v1\/uploads|api\/v1\/report\/upload-report|dashboard\/upload-report)(?:\/|$)/;
const FILES =
  /^\/(?:api\/v1\/report\/:reportId\/(?:file|opinion\.pdf)|s\/:token\/(?:file|letter\.pdf)|media\/|dashboard\/my-data\/download|api\/v1\/profile\/download-my-data|api\/v1\/fhir\/)/;

/**
 * The group of a logged route pattern (never a raw path): uploads, file downloads, the rest of
 * the API, rendered pages, and everything else (static files, /healthz, /readyz, refusals
 * before routing).
 */
export function routeGroup(route: string): RouteGroup {
  if (UPLOADS.test(route)) return "uploads";
  if (FILES.test(route)) return "files";
  if (route.startsWith("/api/")) return "api";
  if (route.startsWith("/") && route !== "/healthz" && route !== "/readyz" && !route.startsWith("/assets/"))
    return "pages";
  return "other";
}

/** 499 (the client went away) counts with 4xx; anything under 200 with 2xx. */
export function statusClass(status: number): StatusClass {
  if (status >= 500) return "5xx";
  if (status >= 400) return "4xx";
  if (status >= 300) return "3xx";
  return "2xx";
}

function bucketOf(ms: number): number {
  for (let i = 0; i < LATENCY_BOUNDS.length; i++) if (ms <= LATENCY_BOUNDS[i]) return i;
  return LATENCY_BOUNDS.length;
}

type Cell = { minute: number; group: RouteGroup; status: StatusClass; count: number; buckets: number[] };

/** One process's counts not yet added to the table. */
export class RequestRecorder {
  private cells = new Map<string, Cell>();

  record(fields: { route: string; status: number; ms: number }, now = Date.now()) {
    const minute = Math.floor(now / MINUTE);
    const group = routeGroup(fields.route);
    const status = statusClass(fields.status);
    const key = `${minute}|${group}|${status}`;
    let cell = this.cells.get(key);
    if (!cell) {
      cell = { minute, group, status, count: 0, buckets: new Array<number>(BUCKET_KEYS.length).fill(0) };
      this.cells.set(key, cell);
    }
    cell.count++;
    cell.buckets[bucketOf(fields.ms)]++;
  }

  /** Adds everything counted so far to the table (one upsert per row) and starts counting afresh. */
  async flush(): Promise<number> {
    if (!this.cells.size) return 0;
    const cells = [...this.cells.values()];
    this.cells = new Map();
    const rows = cells.map((c) => ({
      minute: c.minute,
      routeGroup: c.group,
      statusClass: c.status,
      count: c.count,
      ...Object.fromEntries(BUCKET_KEYS.map((k, i) => [k, c.buckets[i]])),
    }));
    const add = (column: string) =>
      sql`${sql.identifier("service_request_minutes")}.${sql.identifier(column)} + excluded.${sql.identifier(column)}`;
    try {
      await db()
        .insert(serviceRequestMinutes)
        .values(rows)
        .onConflictDoUpdate({
          target: [
            serviceRequestMinutes.minute,
            serviceRequestMinutes.routeGroup,
            serviceRequestMinutes.statusClass,
          ],
          set: {
            count: add("count"),
            ...Object.fromEntries(BUCKET_KEYS.map((k, i) => [k, add(BUCKET_COLUMNS[i])])),
          },
        });
    } catch (err) {
      // The counts of a failed flush are kept for the next one (the database may be back by then).
      for (const c of cells) {
        const key = `${c.minute}|${c.group}|${c.status}`;
        const later = this.cells.get(key);
        if (!later) this.cells.set(key, c);
        else {
          later.count += c.count;
          c.buckets.forEach((n, i) => (later.buckets[i] += n));
        }
      }
      throw err;
    }
    return rows.length;
  }
}

/** This process's recorder: `requestDone` (the server's hook) feeds it. */
export const requestRecorder = new RequestRecorder();

export function requestDone(fields: { method: string; route: string; status: number; ms: number }) {
  requestRecorder.record(fields);
}

/** The gauge's row name with its labels, e.g. `carebridge_sms_messages{state="failed"}`. */
export function gaugeKey(name: string, labels?: Record<string, string>): string {
  const entries = Object.entries(labels ?? {});
  return entries.length ? `${name}{${entries.map(([k, v]) => `${k}="${v}"`).join(",")}}` : name;
}

const SAMPLER_ROW = "sampler";

/**
 * Samples the product's gauges for the minute of `now`, unless a process (of any node) already
 * did: the minute's `sampler` row is inserted first, and only the process whose insert took it
 * reads the gauges. True when this call sampled.
 */
export async function sampleGauges(now = Date.now()): Promise<boolean> {
  const minute = Math.floor(now / MINUTE);
  const won = await db()
    .insert(serviceGaugeMinutes)
    .values({ minute, name: SAMPLER_ROW, value: 0 })
    .onConflictDoNothing()
    .returning({ minute: serviceGaugeMinutes.minute });
  if (!won.length) return false;
  // The queues the Service screen draws; the node's own figures (its disk) are /metrics' alone.
  const queues = new Set<string>(QUEUE_SERIES);
  const gauges = (await productGauges()).filter((g) => queues.has(gaugeKey(g.name, g.labels)));
  if (gauges.length)
    await db()
      .insert(serviceGaugeMinutes)
      .values(gauges.map((g) => ({ minute, name: gaugeKey(g.name, g.labels), value: Math.round(g.value) })))
      .onConflictDoNothing();
  return true;
}

/** Rollups and samples older than the retention, for the hourly prune. */
export async function pruneServiceRollups(now = Date.now()): Promise<void> {
  const before = Math.floor((now - SERVICE_RETENTION_MS) / MINUTE);
  await db().delete(serviceRequestMinutes).where(lt(serviceRequestMinutes.minute, before));
  await db().delete(serviceGaugeMinutes).where(lt(serviceGaugeMinutes.minute, before));
}

let flushTimer: NodeJS.Timeout | undefined;

/** A serving process adds its counts to the table every `flushMs` (timers never keep a process alive). */
export function startRequestRollups(flushMs: number) {
  if (flushTimer) return;
  flushTimer = setInterval(() => {
    requestRecorder
      .flush()
      .catch((err) => log("error", "service rollup flush failed", { error: String(err) }));
  }, flushMs);
  flushTimer.unref();
}

/**
 * The gauges' samples on the runner's clock (decision 0113): one sample each SERVICE_SAMPLE_MS for
 * the whole cluster, whichever owner process asks first (the minute's row decides as well).
 */
const gaugeSamples = defineSchedule("service-sample", {
  run: async (slot) => ((await sampleGauges(slot)) ? "sampled" : "taken"),
  everyMs: () => config().serviceSampleMs,
  lookMs: () => config().serviceSampleMs,
  maxAttempts: 1,
});

/** The process that owns the data samples the gauges now and every SERVICE_SAMPLE_MS. */
export function startGaugeSampler() {
  gaugeSamples.start();
}

/** At shutdown: the timers stop and the last counts are added. */
export async function stopServiceRollups() {
  if (flushTimer) clearInterval(flushTimer);
  flushTimer = undefined;
  await gaugeSamples.stop();
  await requestRecorder
    .flush()
    .catch((err) => log("error", "service rollup flush failed", { error: String(err) }));
}

// ---------------------------------------------------------------------------------------------
// Reading it back

/**
 * The `p`-th percentile (0–100) of a histogram of non-cumulative bucket counts, interpolated
 * linearly inside the bucket it falls in (as Prometheus' histogram_quantile does); the open last
 * bucket answers its lower bound. Null without requests.
 */
export function histogramPercentile(buckets: number[], p: number): number | null {
  const total = buckets.reduce((a, b) => a + b, 0);
  if (!total) return null;
  const rank = (p / 100) * total;
  let seen = 0;
  for (let i = 0; i < buckets.length; i++) {
    const inBucket = buckets[i];
    if (inBucket > 0 && seen + inBucket >= rank) {
      const lower = i === 0 ? 0 : LATENCY_BOUNDS[i - 1];
      if (i >= LATENCY_BOUNDS.length) return lower;
      const upper = LATENCY_BOUNDS[i];
      return lower + ((upper - lower) * (rank - seen)) / inBucket;
    }
    seen += inBucket;
  }
  return LATENCY_BOUNDS[LATENCY_BOUNDS.length - 1];
}

export type RequestHour = { hour: number; ok: number; "4xx": number; "5xx": number; total: number };
export type LatencyGroup = {
  group: RouteGroup;
  requests: number;
  p50Ms: number | null;
  p99Ms: number | null;
};
export type QueueHour = { hour: number; values: Record<string, number | null> };
export type TurnaroundWeek = {
  weekStart: number;
  reviewed: number;
  medianMs: number | null;
  p90Ms: number | null;
};

export type ServiceSummary = {
  /** The start of the first hour shown (ms), and how many hours. */
  from: number;
  hours: number;
  requests: RequestHour[];
  latency: LatencyGroup[];
  /** The gauges, in this order, as `gaugeKey` names. */
  queueSeries: string[];
  queues: QueueHour[];
  turnaround: TurnaroundWeek[];
};

/** The queue series shown, as `gaugeKey` names (the product's gauges). */
export const QUEUE_SERIES = [
  'carebridge_pending_reports{urgency="urgent"}',
  'carebridge_pending_reports{urgency="normal"}',
  "carebridge_overdue_reports",
  "carebridge_claims_held",
  'carebridge_sms_messages{state="queued"}',
  'carebridge_sms_messages{state="failed"}',
  'carebridge_mail_messages{state="queued"}',
  'carebridge_mail_messages{state="failed"}',
  "carebridge_uploads_in_progress",
] as const;

/**
 * What the Service screen draws (admins only): requests and errors per hour over 48 hours, p50 and
 * p99 per route group over the last 24 hours, the queues per hour over 48 hours (each hour's
 * largest sample), and the median and 90th-percentile time to opinion per week over 12 weeks
 * (Turnaround's own figures, `opinionTimes`, over each week's opinions).
 */
export async function serviceSummary(actor: Actor, now = Date.now()): Promise<ServiceSummary> {
  if (actor.accountType !== "Admin") throw new DomainError("forbidden", "reports.adminsOnly");
  const hours = 48;
  const lastHour = Math.floor(now / HOUR);
  const firstHour = lastHour - hours + 1;
  const fromMinute = firstHour * 60;
  const r = serviceRequestMinutes;
  const hourExpr = sql<number>`(${r.minute} / 60)`;
  const sum = (c: SQLWrapper) => sql<number>`sum(${c})`.mapWith(Number);
  const perHour = await db()
    .select({
      hour: hourExpr.mapWith(Number),
      group: r.routeGroup,
      status: r.statusClass,
      count: sum(r.count),
      ...Object.fromEntries(BUCKET_KEYS.map((k) => [k, sum(r[k])])),
    })
    .from(r)
    .where(gte(r.minute, fromMinute))
    .groupBy(hourExpr, r.routeGroup, r.statusClass);

  const requests: RequestHour[] = Array.from({ length: hours }, (_, i) => ({
    hour: (firstHour + i) * HOUR,
    ok: 0,
    "4xx": 0,
    "5xx": 0,
    total: 0,
  }));
  const histograms = new Map<RouteGroup, number[]>(
    ROUTE_GROUPS.map((g) => [g, new Array<number>(BUCKET_KEYS.length).fill(0)]),
  );
  const dayFrom = lastHour - 23;
  for (const row of perHour as unknown as (Record<(typeof BUCKET_KEYS)[number], number> & {
    hour: number;
    group: string;
    status: string;
    count: number;
  })[]) {
    const slot = requests[row.hour - firstHour];
    if (slot) {
      if (row.status === "4xx") slot["4xx"] += row.count;
      else if (row.status === "5xx") slot["5xx"] += row.count;
      else slot.ok += row.count;
      slot.total += row.count;
    }
    const h = histograms.get(row.group as RouteGroup);
    if (h && row.hour >= dayFrom) BUCKET_KEYS.forEach((k, i) => (h[i] += row[k]));
  }
  const latency: LatencyGroup[] = ROUTE_GROUPS.map((group) => {
    const h = histograms.get(group)!;
    return {
      group,
      requests: h.reduce((a, b) => a + b, 0),
      p50Ms: histogramPercentile(h, 50),
      p99Ms: histogramPercentile(h, 99),
    };
  });

  const g = serviceGaugeMinutes;
  const gHour = sql<number>`(${g.minute} / 60)`;
  const samples = await db()
    .select({
      hour: gHour.mapWith(Number),
      name: g.name,
      value: sql<number>`max(${g.value})`.mapWith(Number),
    })
    .from(g)
    .where(gte(g.minute, fromMinute))
    .groupBy(gHour, g.name);
  const queues: QueueHour[] = Array.from({ length: hours }, (_, i) => ({
    hour: (firstHour + i) * HOUR,
    values: Object.fromEntries(QUEUE_SERIES.map((s) => [s, null])),
  }));
  for (const s of samples) {
    const slot = queues[s.hour - firstHour];
    if (slot && s.name in slot.values) slot.values[s.name] = s.value;
  }

  // Twelve 7-day windows ending now, oldest first; each window's opinions through Turnaround's
  // own figures (its 30-day window, ending with the week, holds the week).
  const turnaround = await Promise.all(
    Array.from({ length: 12 }, async (_, i) => {
      const weekEnd = now - (11 - i) * WEEK;
      const weekStart = weekEnd - WEEK;
      const f = await opinionTimes(
        and(gte(reports.reviewedAt, new Date(weekStart)), lt(reports.reviewedAt, new Date(weekEnd)))!,
      );
      return { weekStart, reviewed: f.reviewed, medianMs: f.medianMs, p90Ms: f.p90Ms };
    }),
  );
  return {
    from: firstHour * HOUR,
    hours,
    requests,
    latency,
    queueSeries: [...QUEUE_SERIES],
    queues,
    turnaround,
  };
}

/** The summary as the API gives it: times as ISO-8601 UTC, the queues by name. */
export type ApiServiceSummary = ReturnType<typeof apiServiceSummary>;
export function apiServiceSummary(s: ServiceSummary) {
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    from: iso(s.from),
    hours: s.hours,
    requests: s.requests.map((r) => ({
      hour: iso(r.hour),
      total: r.total,
      ok: r.ok,
      clientErrors: r["4xx"],
      serverErrors: r["5xx"],
    })),
    latency: s.latency,
    queues: s.queues.map((q) => ({ hour: iso(q.hour), values: q.values })),
    turnaround: s.turnaround.map((w) => ({
      weekStart: iso(w.weekStart),
      weekEnd: iso(w.weekStart + WEEK),
      reviewed: w.reviewed,
      medianMs: w.medianMs,
      p90Ms: w.p90Ms,
    })),
  };
}
