import { and, asc, count, eq, getTableColumns, isNotNull, isNull, sql, type SQL } from "drizzle-orm";
import { db, preparedOnce } from "~/db/client.server";
import { centres, healthWorkers, reports, users, type CentreRow } from "~/db/schema";
import { DomainError } from "../platform/errors";
import type { Paged, PageQuery } from "../platform/paging";
import type { Actor } from "../platform/index.server";
import { centreKey, COUNT_KEYS, counterColumn, listCount } from "../platform/index.server";
import { requireCentre, requireCentreAdmin, toApiCentre, type ApiCentre } from "../care/index.server";
import type { ApiReport } from "./api-report.server";
import { overdueReports, PRIORITIES } from "./overdue-reports.server";
import {
  centreFigures,
  inReviewByCentre,
  notDuePlaceholders,
  notDueValues,
  queueFrom,
  waitingColumns,
  type TurnaroundFigures,
} from "./turnaround.server";

/**
 * A centre's figures (decision 0030): its queue's counts, turnaround (the Turnaround screen's own
 * definitions, computed by the same function over the centre's reports), registered profiles,
 * health workers and overdue reports. The centres themselves are care's; their figures are read
 * from the reports, so they live here, above care.
 */

export type CentreStats = TurnaroundFigures & {
  /** Patient profiles registered at the centre. */
  patients: number;
  /** Reports with an opinion, ever. */
  reviewed: number;
  /** Health workers by state of their account. */
  workers: { approved: number; pending: number; suspended: number };
};

export type ApiCentreWithStats = ApiCentre & { stats: CentreStats };

/**
 * The reports of a centre: those of the patient profiles it registered (each report carries its
 * profile's centre, copied by a trigger; decision 0046).
 */
export function centreReports(centreId: string): SQL {
  return eq(reports.centreId, centreId);
}

/**
 * Every figure of a centre but its 30-day times, as columns of the statement that reads the centre
 * (`centre` its id column): its queue's counts (the Turnaround screen's own), its version, its
 * registered profiles and reviewed reports (counters: never a count of the archive) and its health
 * workers by state of their account. A page of centres is one statement (decision 0047).
 */
function figureColumns() {
  const workers = (c: SQL) =>
    sql<number>`(${db()
      .select({ n: count() })
      .from(healthWorkers)
      .innerJoin(users, eq(users.id, healthWorkers.userId))
      .where(and(eq(healthWorkers.centreId, centres.id), c))})`;
  const counter = (make: (id: string) => string) => counterColumn(centreKey(make, centres.id));
  return {
    ...waitingColumns(centres.id, notDuePlaceholders),
    version: counter(COUNT_KEYS.centreVersion),
    registered: counter(COUNT_KEYS.centreRegistered),
    ...Object.fromEntries(
      PRIORITIES.map((p) => [`reviewed${p}`, counter((id) => COUNT_KEYS.centreReportsOf(id, "Reviewed", p))]),
    ),
    workersApproved: workers(and(sql`${users.approved}`, isNull(users.suspendedAt))!),
    workersPending: workers(and(sql`not ${users.approved}`, isNull(users.suspendedAt))!),
    workersSuspended: workers(isNotNull(users.suspendedAt)),
  };
}

/** The directory's order: by state, district, name. */
const DIRECTORY_ORDER = [asc(centres.state), asc(centres.district), asc(centres.name), asc(centres.id)];

/**
 * A page of centres with their figures and the count of every centre, or one centre with its
 * figures: each one statement, built and prepared once (asked for on every visit of the admin's
 * centres screen and API). Its constants are written in and its moments are opaque, so that
 * PostgreSQL keeps one generic plan instead of planning nine sub-selects on every request (at
 * 1,000,000 reports that planning cost more than running it); the reports in review come beside it
 * (`inReviewByCentre`).
 */
const centresPage = (skip: boolean) =>
  preparedOnce(skip ? "centres_page" : "centres_first_page", (d) => {
    const page = d
      .select({
        centre: getTableColumns(centres),
        figures: figureColumns(),
        total: counterColumn(COUNT_KEYS.centresAll),
      })
      .from(centres)
      .orderBy(...DIRECTORY_ORDER)
      .limit(sql.placeholder("limit"));
    // An unknown OFFSET makes the generic plan look dearer than any custom one: the first page
    // (nearly every visit) has none.
    return skip ? page.offset(sql.placeholder("offset")) : page;
  });
const centreById = () =>
  preparedOnce("centre_with_figures", (d) =>
    d
      .select({ centre: getTableColumns(centres), figures: figureColumns() })
      .from(centres)
      .where(eq(centres.id, sql.placeholder("id"))),
  );

/**
 * A centre read with its figures, completed with its reports in review (`inReview`, by centre) and
 * its turnaround figures (kept by the node while its version holds).
 */
async function withStats(
  now: number,
  { centre, figures: row }: { centre: CentreRow; figures: Record<string, unknown> },
  inReview: Map<string, number>,
): Promise<ApiCentreWithStats> {
  const n = (k: string) => Number(row[k] ?? 0);
  const queue = queueFrom({ ...row, inReview: inReview.get(centre.id) ?? 0 });
  const figures = await centreFigures(centre.id, n("version"), queue, now);
  const stats: CentreStats = {
    ...figures,
    patients: n("registered"),
    reviewed: PRIORITIES.reduce<number>((sum, p) => sum + n(`reviewed${p}`), 0),
    workers: {
      approved: n("workersApproved"),
      pending: n("workersPending"),
      suspended: n("workersSuspended"),
    },
  };
  return { ...toApiCentre(centre), stats };
}

async function centreWithStats(centreId: string, now: number): Promise<ApiCentreWithStats> {
  const [[found], inReview] = await Promise.all([
    centreById().execute({ id: centreId, ...notDueValues(now) }),
    inReviewByCentre(now),
  ]);
  if (!found) throw new DomainError("not_found", "centres.notFound");
  return withStats(now, found, inReview);
}

/** Admin: the centres (by state, district, name), each with its figures. */
export async function listCentres(
  actor: Actor,
  page: PageQuery,
  now = Date.now(),
): Promise<Paged<ApiCentreWithStats>> {
  requireCentreAdmin(actor);
  const [found, inReview] = await Promise.all([
    centresPage(page.page > 1).execute({
      limit: page.pageSize,
      offset: (page.page - 1) * page.pageSize,
      ...notDueValues(now),
    }),
    inReviewByCentre(now),
  ]);
  // The count of every centre came with each row; a page past the end asks for it alone.
  const total = found.length ? Number(found[0].total ?? 0) : await listCount(COUNT_KEYS.centresAll);
  const items = await Promise.all(found.map((row) => withStats(now, row, inReview)));
  return { items, total, page: page.page, pageSize: page.pageSize };
}

/** Admin: one centre with its figures. */
export async function getCentreWithStats(
  actor: Actor,
  centreId: string,
  now = Date.now(),
): Promise<ApiCentreWithStats> {
  requireCentreAdmin(actor);
  return centreWithStats(centreId, now);
}

/** Admin: one centre's figures (the same definitions as the Turnaround screen's). */
export async function centreStats(actor: Actor, centreId: string, now = Date.now()): Promise<CentreStats> {
  requireCentreAdmin(actor);
  return (await centreWithStats(centreId, now)).stats;
}

/** Admin: a centre's overdue reports, urgent first, then oldest (at most 100). */
export async function centreOverdue(actor: Actor, centreId: string, now = Date.now()): Promise<ApiReport[]> {
  requireCentreAdmin(actor);
  await requireCentre(centreId);
  return overdueReports(100, now, centreReports(centreId));
}
