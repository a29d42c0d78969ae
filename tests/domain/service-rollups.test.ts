import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  claim,
  freshDomain,
  makeAdmin,
  makeExpert,
  makePatient,
  makeReport,
  refusal,
  review,
  type Domain,
  type Person,
} from "../helpers/factories";

/*
 * The Service screen's rollups without HTTP (decision 0034), on SQLite and on PostgreSQL: two
 * recorders (two processes) counting the same minute add up in the table; percentiles come from
 * the summed latency buckets; old rollups are pruned; the gauges are sampled once per minute
 * however many processes try; the summary is for admins only and reads Turnaround's figures.
 */

let d: Domain;
let service: typeof import("~/domain/operations/service.server");
let admin: Person;
const MIN = 60_000;

beforeAll(async () => {
  d = await freshDomain();
  service = await import("~/domain/operations/service.server");
  admin = await makeAdmin();
});
afterAll(() => d?.close());

const rowsAt = (minute: number) =>
  d.db
    .db()
    .select()
    .from(d.schema.serviceRequestMinutes)
    .where(eq(d.schema.serviceRequestMinutes.minute, minute));

describe("request rollups", () => {
  it("puts routes in groups and statuses in classes", () => {
    expect(service.routeGroup("/api/v1/report/get-pending-reports")).toBe("api");
    expect(service.routeGroup("/api/v1/uploads/:uploadId")).toBe("uploads");
    expect(service.routeGroup("/dashboard/upload-report")).toBe("uploads");
    expect(service.routeGroup("/api/v1/report/:reportId/file")).toBe("files");
    expect(service.routeGroup("/s/:token/letter.pdf")).toBe("files");
    expect(service.routeGroup("/dashboard/pending-report")).toBe("pages");
    expect(service.routeGroup("/")).toBe("pages");
    expect(service.routeGroup("/assets/*")).toBe("other");
    expect(service.routeGroup("(static)")).toBe("other");
    expect(service.routeGroup("/healthz")).toBe("other");
    expect([200, 302, 404, 499, 503].map(service.statusClass)).toEqual(["2xx", "3xx", "4xx", "4xx", "5xx"]);
  });

  it("two processes counting the same minute add up, bucket by bucket", async () => {
    const now = Date.UTC(2026, 10, 20, 10, 30, 15);
    const minute = Math.floor(now / MIN);
    const one = new service.RequestRecorder();
    const two = new service.RequestRecorder();
    const api = "/api/v1/report/get-pending-reports";
    for (let i = 0; i < 3; i++) one.record({ route: api, status: 200, ms: 3 }, now);
    for (let i = 0; i < 2; i++) two.record({ route: api, status: 200, ms: 40 }, now + 1000);
    two.record({ route: "/dashboard/home", status: 503, ms: 7000 }, now);
    expect(await one.flush()).toBe(1);
    expect(await two.flush()).toBe(2);
    // Nothing left to add: a second flush writes nothing and adds nothing.
    expect(await one.flush()).toBe(0);
    // A later flush of the same minute adds to what is there.
    one.record({ route: api, status: 200, ms: 120 }, now + 2000);
    await one.flush();

    const rows = await rowsAt(minute);
    const apiRow = rows.find((r) => r.routeGroup === "api" && r.statusClass === "2xx")!;
    expect(apiRow).toMatchObject({ count: 6, le5: 3, le50: 2, le250: 1, le10: 0, leInf: 0 });
    const pageRow = rows.find((r) => r.routeGroup === "pages")!;
    expect(pageRow).toMatchObject({ statusClass: "5xx", count: 1, leInf: 1 });
    expect(rows).toHaveLength(2);
  });

  it("percentiles are interpolated inside the bucket they fall in", () => {
    const b = (at: number, n: number) => {
      const buckets = new Array(11).fill(0);
      buckets[at] = n;
      return buckets;
    };
    expect(service.histogramPercentile(new Array(11).fill(0), 50)).toBeNull();
    expect(service.histogramPercentile(b(0, 10), 50)).toBe(2.5); // 0–5 ms
    expect(service.histogramPercentile(b(3, 100), 50)).toBe(37.5); // 25–50 ms
    expect(service.histogramPercentile(b(3, 100), 99)).toBeCloseTo(49.75);
    expect(service.histogramPercentile(b(10, 4), 99)).toBe(5000); // slower than 5 s: its lower bound
    const mixed = new Array(11).fill(0);
    mixed[0] = 90; // ≤ 5 ms
    mixed[6] = 10; // 250–500 ms
    expect(service.histogramPercentile(mixed, 50)).toBeCloseTo(2.78, 1);
    expect(service.histogramPercentile(mixed, 99)).toBe(250 + 250 * 0.9);
  });

  it("the summary shows the hour's requests, errors and each group's percentiles", async () => {
    const now = Date.now();
    const r = new service.RequestRecorder();
    for (let i = 0; i < 10; i++)
      r.record({ route: "/api/v1/profile/get-user-details", status: 200, ms: 20 }, now);
    r.record({ route: "/api/v1/profile/get-user-details", status: 401, ms: 2 }, now);
    r.record({ route: "/dashboard/home", status: 500, ms: 80 }, now);
    await r.flush();
    const s = await service.serviceSummary(admin, now);
    expect(s.requests).toHaveLength(48);
    const hour = s.requests[47];
    expect(hour.hour).toBe(Math.floor(now / 3_600_000) * 3_600_000);
    expect(hour).toMatchObject({ total: 12, ok: 10, "4xx": 1, "5xx": 1 });
    const api = s.latency.find((g) => g.group === "api")!;
    expect(api.requests).toBe(11);
    expect(api.p50Ms).toBeGreaterThan(10);
    expect(api.p50Ms).toBeLessThanOrEqual(25);
    expect(s.latency.find((g) => g.group === "uploads")).toMatchObject({
      requests: 0,
      p50Ms: null,
      p99Ms: null,
    });
  });

  it("prunes rollups and samples older than 8 days", async () => {
    const now = Date.now();
    const old = new service.RequestRecorder();
    old.record({ route: "/", status: 200, ms: 1 }, now - 9 * 86_400_000);
    old.record({ route: "/", status: 200, ms: 1 }, now - 86_400_000);
    await old.flush();
    await service.sampleGauges(now - 9 * 86_400_000);
    await service.pruneServiceRollups(now);
    expect(await rowsAt(Math.floor((now - 9 * 86_400_000) / MIN))).toHaveLength(0);
    expect(await rowsAt(Math.floor((now - 86_400_000) / MIN))).toHaveLength(1);
    const samples = await d.db
      .db()
      .select()
      .from(d.schema.serviceGaugeMinutes)
      .where(eq(d.schema.serviceGaugeMinutes.minute, Math.floor((now - 9 * 86_400_000) / MIN)));
    expect(samples).toHaveLength(0);
  });
});

describe("gauge samples", () => {
  it("one process samples a minute, however many try; the queues are the product's gauges", async () => {
    const patient = await makePatient();
    await makeReport(patient);
    await makeReport(patient, { urgency: "urgent" });
    const now = Date.now() + 5 * MIN; // a minute nobody sampled yet
    const tries = await Promise.all([service.sampleGauges(now), service.sampleGauges(now)]);
    expect(tries.filter(Boolean)).toHaveLength(1);
    expect(await service.sampleGauges(now)).toBe(false);
    const rows = await d.db
      .db()
      .select()
      .from(d.schema.serviceGaugeMinutes)
      .where(eq(d.schema.serviceGaugeMinutes.minute, Math.floor(now / MIN)));
    const byName = Object.fromEntries(rows.map((r) => [r.name, r.value]));
    expect(rows).toHaveLength(1 + service.QUEUE_SERIES.length);
    expect(byName['carebridge_pending_reports{urgency="normal"}']).toBeGreaterThanOrEqual(1);
    expect(byName['carebridge_sms_messages{state="failed"}']).toBe(0);
    const s = await service.serviceSummary(admin, now);
    const last = s.queues[47].values;
    expect(last['carebridge_pending_reports{urgency="normal"}']).toBe(
      byName['carebridge_pending_reports{urgency="normal"}'],
    );
    expect(s.queues[0].values["carebridge_overdue_reports"]).toBeNull();
  });
});

describe("the summary", () => {
  it("is for admins only", async () => {
    const patient = await makePatient();
    const expert = await makeExpert();
    for (const who of [patient, expert]) {
      expect((await refusal(() => service.serviceSummary(who))).code).toBe("forbidden");
    }
  });

  it("has twelve weeks of time to opinion from Turnaround's figures", async () => {
    const patient = await makePatient();
    const expert = await makeExpert();
    const report = await makeReport(patient);
    await claim(expert, report);
    await review(expert, report);
    const s = await service.serviceSummary(admin);
    expect(s.turnaround).toHaveLength(12);
    const week = s.turnaround[11];
    expect(week.reviewed).toBeGreaterThanOrEqual(1);
    expect(week.medianMs).not.toBeNull();
    const figures = await d.consultation.getTurnaround(admin);
    // Every opinion of the last 7 days is also in Turnaround's 30 days.
    expect(figures.reviewedInWindow).toBeGreaterThanOrEqual(week.reviewed);
    expect(s.turnaround[0].reviewed).toBe(0);
  });
});
