import { and, count, desc, eq, inArray, isNull, sql, type SQL } from "drizzle-orm";
import { db } from "~/db/client.server";
import { patients, reportFollowups, reports, type PatientRow } from "~/db/schema";
import type { Actor } from "../platform/index.server";
import type { Paged, PageQuery } from "../platform/paging";
import { normalShortId, toApiPatient, type ApiPatientProfile } from "./patients.server";
import { requireWorkerCentre } from "./registration.server";
import { cappedCount, COUNT_KEYS, listCount } from "../platform/index.server";
import { newestFirstWindow } from "../platform/index.server";

/**
 * The centre's queue (decision 0030): the patients a centre registered, newest first, each with
 * where their reports stand — the latest report's status, how long the oldest open one has waited,
 * whether an opinion is ready, follow-up questions not answered yet. Only the centre's approved
 * health workers see it, and only their own centre's patients (a patient who revoked the centre's
 * access is no longer listed).
 */

export type CentreQueueItem = ApiPatientProfile & {
  reports: number;
  latestReport: null | {
    _id: string;
    reportType: string;
    status: "Pending" | "Reviewed";
    createdAt: string;
    reviewedAt: string | null;
  };
  /** The upload time of the oldest report still waiting for an opinion, or null. */
  waitingSince: string | null;
  /** Reports with an opinion. */
  opinionsReady: number;
  /** The latest report has its opinion (what a worker calls the patient about). */
  opinionReady: boolean;
  /** Follow-up questions the expert has not answered yet. */
  followUpsPending: number;
};

/** A search as typed: a short ID ("7k4m 2q", "CB-7K4M-2Q") or part of a name. */
function searchCondition(q: string | undefined): SQL | undefined {
  const text = (q ?? "").trim();
  if (!text) return undefined;
  const shortId = normalShortId(text);
  const like = `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const byName = sql`lower(${patients.firstName} || ' ' || ${patients.lastName}) like ${like} escape '\\'`;
  return shortId ? sql`(${eq(patients.shortId, shortId)} or ${byName})` : byName;
}

export async function centreQueue(
  actor: Actor,
  page: PageQuery,
  opts: { q?: string } = {},
): Promise<Paged<CentreQueueItem>> {
  const centre = await requireWorkerCentre(actor);
  const where = and(
    eq(patients.centreId, centre._id),
    isNull(patients.centreAccessRevokedAt),
    searchCondition(opts.q),
  );
  // The whole queue's total is a counter row (decision 0031); a search counts its matches only
  // up to a cap and then says "more than".
  const win = newestFirstWindow(page, patients.createdAt, patients.id);
  const [read, counted] = await Promise.all([
    db()
      .select()
      .from(patients)
      .where(and(where, win.after))
      .orderBy(desc(patients.createdAt), desc(patients.id))
      .limit(win.limit)
      .offset(win.offset),
    opts.q?.trim()
      ? cappedCount(db().select({ id: patients.id }).from(patients).where(where))
      : listCount(COUNT_KEYS.centrePatients(centre._id)).then((total) => ({ total, lowerBound: false })),
  ]);
  const { rows: found, nextCursor } = win.cut(read, (p) => p);
  return {
    nextCursor,
    items: await withReportState(found),
    total: counted.total,
    page: page.page,
    pageSize: page.pageSize,
    ...(counted.lowerBound ? { totalIsLowerBound: true } : {}),
  };
}

async function withReportState(found: PatientRow[]): Promise<CentreQueueItem[]> {
  const ids = found.map((p) => p.id);
  const theirReports = ids.length
    ? await db()
        .select({
          id: reports.id,
          patientId: reports.patientId,
          reportType: reports.reportType,
          status: reports.status,
          createdAt: reports.createdAt,
          reviewedAt: reports.reviewedAt,
        })
        .from(reports)
        .where(inArray(reports.patientId, ids))
        .orderBy(desc(reports.createdAt), desc(reports.id))
    : [];
  const reportIds = theirReports.map((r) => r.id);
  const open = reportIds.length
    ? await db()
        .select({ reportId: reportFollowups.reportId, n: count() })
        .from(reportFollowups)
        .where(and(inArray(reportFollowups.reportId, reportIds), isNull(reportFollowups.answeredAt)))
        .groupBy(reportFollowups.reportId)
    : [];
  const openByReport = new Map(open.map((o) => [o.reportId, Number(o.n)]));
  return found.map((p) => {
    const mine = theirReports.filter((r) => r.patientId === p.id); // newest first
    const latest = mine[0];
    const waiting = mine.filter((r) => r.status === "Pending").at(-1);
    return {
      ...toApiPatient(p),
      reports: mine.length,
      latestReport: latest
        ? {
            _id: latest.id,
            reportType: latest.reportType,
            status: latest.status,
            createdAt: latest.createdAt.toISOString(),
            reviewedAt: latest.reviewedAt ? latest.reviewedAt.toISOString() : null,
          }
        : null,
      waitingSince: waiting ? waiting.createdAt.toISOString() : null,
      opinionsReady: mine.filter((r) => r.status === "Reviewed").length,
      opinionReady: latest?.status === "Reviewed",
      followUpsPending: mine.reduce((sum, r) => sum + (openByReport.get(r.id) ?? 0), 0),
    };
  });
}
